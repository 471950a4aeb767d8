//go:build cgo

package scripts_test

// The scenario library on the device backend's code path without a GPU: the CUDA kernels
// compiled for the host, with every launch and read-back deferred until the host waits
// (gpusim.RegisterHostKernelBackends), pipelined as the runners step (Advance returns
// once its steps are queued). Each scenario runs in lockstep with the cpu backend.

import (
	"io/fs"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/scripts"
)

func init() { gpusim.RegisterHostKernelBackends() }

// TestLibraryPipelinedMatchesCPU checks, for every scenario of the library:
//   - the device run prints what the cpu run prints: its callbacks (sim:every, sim:at,
//     main) read the state of their own step, not the frame still in flight;
//   - each Advance publishes the previous one's state, bit for bit the cpu's;
//   - after Sync the heights and the volume accounting are the cpu's.
func TestLibraryPipelinedMatchesCPU(t *testing.T) {
	const seconds, chunk = 1.05, 20 // past two of the library's print times
	names, err := fs.Glob(scripts.FS, "*.lua")
	if err != nil || len(names) == 0 {
		t.Fatalf("scenario library: %v (%d files)", err, len(names))
	}
	for _, name := range names {
		t.Run(strings.TrimSuffix(name, ".lua"), func(t *testing.T) {
			var outCPU, outDev []string
			load := func(backend string, out *[]string) *script.Scenario {
				sc, err := script.Load(name, script.Options{Print: func(s string) { *out = append(*out, s) }, Backend: backend, Workers: 1, Params: cpuOnlyOff[name]})
				if err != nil {
					t.Fatalf("%s backend: %v", backend, err)
				}
				t.Cleanup(sc.Close)
				return sc
			}
			cpu, dev := load("cpu", &outCPU), load("host-kernels-deferred", &outDev)
			if b := dev.Info().Backend; b != "host-kernels (deferred)" {
				t.Fatalf("backend %q", b)
			}
			dev.Scene().SetPipelined(true)
			var before, now, got gpusim.Snapshot // the cpu's state before and after a call
			copySnapshot(cpu.Scene(), &now)
			for calls := 1; cpu.Scene().Time() < seconds; calls++ {
				before, now = now, before
				advC, errC := cpu.Advance(chunk)
				doneC := advC.Done
				advD, errD := dev.Advance(chunk)
				doneD := advD.Done
				if errC != nil || errD != nil || doneC != doneD {
					t.Fatalf("t = %.3f s: cpu %v (done %v), device %v (done %v)", cpu.Scene().Time(), errC, doneC, errD, doneD)
				}
				copySnapshot(cpu.Scene(), &now)
				copySnapshot(dev.Scene(), &got)
				// The previous call's state; or this call's, when its callbacks waited for it.
				want := &before
				if got.Steps == now.Steps {
					want = &now
				}
				// (Before the first call's steps, main ran at t = 0 inside Advance: the cpu's
				// state then was not seen from here.)
				first := calls == 1 && got.Steps == 0
				if got.Steps != want.Steps || !first && !slices.Equal(got.Height, want.Height) {
					t.Fatalf("call %d: published step %d, want %d or %d; heights equal %v", calls, got.Steps, before.Steps, now.Steps, slices.Equal(got.Height, want.Height))
				}
				if doneC {
					break
				}
			}
			var prev gpusim.Snapshot
			dev.Scene().Sync()
			copySnapshot(cpu.Scene(), &prev)
			copySnapshot(dev.Scene(), &got)
			if got.Steps != prev.Steps || !slices.Equal(got.Height, prev.Height) {
				t.Fatalf("after Sync: step %d, cpu %d; heights equal %v", got.Steps, prev.Steps, slices.Equal(got.Height, prev.Height))
			}
			ca, cr, cj := cpu.Scene().Accounting()
			da, dr, dj := dev.Scene().Accounting()
			for _, v := range [][2]float64{{ca, da}, {cr, dr}, {cj, dj}} {
				if math.Abs(v[0]-v[1]) > 1e-12*max(math.Abs(v[0]), 1e-12) {
					t.Fatalf("accounting (added, removed, rejected) cpu %g %g %g, device %g %g %g", ca, cr, cj, da, dr, dj)
				}
			}
			if !slices.Equal(outCPU, outDev) {
				t.Fatalf("the scripts printed differently:\ncpu:\n%s\ndevice:\n%s", strings.Join(outCPU, "\n"), strings.Join(outDev, "\n"))
			}
			t.Logf("%d steps, %d lines printed alike", got.Steps, len(outCPU))
		})
	}
}
