//go:build cuda

package scripts_test

// The scenario library on a real GPU: every scenario runs twice in lockstep, on the cpu
// backend and on the cuda backend, through the script package (so sources, sinks, terrain
// changes and viscosity changes mid-run come from the scripts themselves). After every
// chunk of steps the heights must agree and the cuda run's volume accounting must be
// exact. It needs an NVIDIA GPU: `go test -tags cuda ./scripts/` (CI only compiles it,
// make cuda-vet). gpusim's TestCUDAMatchesCPU does the same step by step on random states.

import (
	"io/fs"
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/scripts"
)

// Tolerances of the lockstep comparison: the kernels do the CPU's float operations in its
// order (no fused multiply-adds), so the runs should stay bit-identical; the driver's PTX
// compiler is outside the repository's control, so a few roundings' difference is
// allowed, which the slow flows of the library do not amplify within simSeconds.
const (
	cudaHeightTol = 1e-6 // m
	cudaVolTol    = 1e-9 // relative, of Volume == Added - Removed and of cpu vs cuda volume
	simSeconds    = 1.0  // simulated time each scenario runs
)

func TestLibraryCUDAMatchesCPU(t *testing.T) {
	device, err := gpusim.CUDAAvailable()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("device: %s", device)
	names, err := fs.Glob(scripts.FS, "*.lua")
	if err != nil || len(names) == 0 {
		t.Fatalf("scenario library: %v (%d files)", err, len(names))
	}
	for _, name := range names {
		t.Run(strings.TrimSuffix(name, ".lua"), func(t *testing.T) {
			load := func(backend string) *script.Scenario {
				sc, err := script.Load(name, script.Options{Print: func(string) {}, Backend: backend, Workers: 1, Params: cpuOnlyOff[name]})
				if err != nil {
					t.Fatalf("%s backend: %v", backend, err)
				}
				t.Cleanup(sc.Close)
				return sc
			}
			cpu, dev := load("cpu"), load("cuda")
			if b := dev.Info().Backend; !strings.HasPrefix(b, "cuda") {
				t.Fatalf("backend %q, want cuda", b)
			}
			var a, b gpusim.Snapshot
			const chunk = 20
			steps, differ := 0, 0
			for cpu.Scene().Time() < simSeconds {
				advC, errC := cpu.Advance(chunk)
				doneC := advC.Done
				advD, errD := dev.Advance(chunk)
				doneD := advD.Done
				if errC != nil || errD != nil {
					t.Fatalf("t = %.3f s: cpu %v, cuda %v", cpu.Scene().Time(), errC, errD)
				}
				steps += chunk
				copySnapshot(cpu.Scene(), &a)
				copySnapshot(dev.Scene(), &b)
				if a.Steps != b.Steps {
					t.Fatalf("steps: cpu %d, cuda %d", a.Steps, b.Steps)
				}
				for i := range a.Height {
					if d := math.Abs(float64(a.Height[i]) - float64(b.Height[i])); d > cudaHeightTol {
						t.Fatalf("t = %.3f s, column %d: height cpu %g, cuda %g", a.Time, i, a.Height[i], b.Height[i])
					}
					if a.Height[i] != b.Height[i] {
						differ++
					}
				}
				if added := b.Added; added > 0 {
					if e := math.Abs(b.Volume-(b.Added-b.Removed-b.Outflow)) / added; e > cudaVolTol {
						t.Fatalf("t = %.3f s: cuda volume %g, added %g - removed %g - outflow %g: relative error %g", b.Time, b.Volume, b.Added, b.Removed, b.Outflow, e)
					}
				}
				if d := math.Abs(a.Volume - b.Volume); d > cudaVolTol*math.Max(a.Volume, 1e-12) {
					t.Fatalf("t = %.3f s: volume cpu %g, cuda %g", a.Time, a.Volume, b.Volume)
				}
				if doneC || doneD {
					if doneC != doneD {
						t.Fatalf("t = %.3f s: the script ended on one backend only (cpu %v, cuda %v)", a.Time, doneC, doneD)
					}
					break
				}
			}
			t.Logf("%s: %d steps to t = %.2f s, %d column-chunks not bit-identical", name, steps, a.Time, differ)
		})
	}
}

// BenchmarkLibraryCUDASurgery: the surgery scene (200 x 200 x 5) on the cuda backend,
// one step a frame with no surface, pipelined, as `vpbench run --headless --backend cuda`
// steps it; reports the real-time factor (simulated over wall seconds; target: 100 or
// more).
//
//	go test -tags cuda -run '^$' -bench LibraryCUDASurgery -benchtime 3000x ./scripts/
func BenchmarkLibraryCUDASurgery(b *testing.B) {
	sc, err := script.Load("surgery.lua", script.Options{Print: func(string) {}, Backend: "cuda"})
	if err != nil {
		b.Fatal(err)
	}
	defer sc.Close()
	if _, err := sc.Advance(10); err != nil {
		b.Fatal(err)
	}
	sc.Scene().SetPipelined(true)
	t0 := sc.Scene().Time()
	b.ResetTimer()
	for i := range b.N {
		advDone, err := sc.Advance(1)
		done := advDone.Done
		if err != nil {
			b.Fatal(err)
		}
		if done && i < b.N-1 {
			b.Fatalf("the scenario ended after %d frames: run fewer (-benchtime)", i+1)
		}
	}
	sc.Scene().Sync() // the last frame's steps count only once they are done
	b.ReportMetric((sc.Scene().Time()-t0)/b.Elapsed().Seconds(), "x-realtime")
}
