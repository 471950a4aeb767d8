//go:build cuda

package gpusim

// The GPU conformance test: the cuda backend on a real device against the CPU backend,
// step by step, on the conformance scenes of device_test.go, with volume accounting.
// It needs an NVIDIA GPU: `go test -tags cuda ./gpusim/` (the cuda build's probe exits
// with a plain message where there is none). CI only compiles it (make cuda-vet).

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Tolerances. The PTX does internal/element's IEEE float32 and float64 operations in its
// order, without fused multiply-adds (nvcc -fmad=false) and with IEEE division, so the
// device should give the CPU's bits, as the host-compiled kernels do
// (TestHostKernelsMatchCPU). But the driver compiles the PTX to machine code itself,
// which this repository does not control, so the test allows what a difference of a few
// roundings could grow into over the steps instead of requiring bits, and reports how
// many values differ at all.
const (
	gpuHeightTol = 1e-7 // m: about 50 ulps of a 3 cm height
	gpuFluxTol   = 1e-5 // of the largest flux
	gpuVolumeTol = 1e-9 // of the volume
)

func TestCUDAMatchesCPU(t *testing.T) {
	if _, err := CUDAAvailable(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range conformanceCases() {
		t.Run(tc.name, func(t *testing.T) {
			cpu, dev := tc.pair(t, "cuda", 42)
			v0 := dev.Volume()
			a0, _, _ := dev.Accounting()
			differ := 0
			for step := 1; step <= tc.steps; step++ {
				cpu.Step(1)
				dev.Step(1)
				a, b := readState(cpu), readState(dev)
				var fmax float64
				for _, f := range a.f {
					fmax = max(fmax, math.Abs(float64(f)))
				}
				for i := range a.h {
					if d := math.Abs(float64(a.h[i]) - float64(b.h[i])); d > gpuHeightTol {
						t.Fatalf("step %d: column %d: height cpu %g, cuda %g", step, i, a.h[i], b.h[i])
					}
				}
				for p := range a.f {
					if d := math.Abs(float64(a.f[p]) - float64(b.f[p])); d > gpuFluxTol*fmax+1e-20 {
						t.Fatalf("step %d: pipe %d: flux cpu %g, cuda %g", step, p, a.f[p], b.f[p])
					}
				}
				if i := firstDiffBits(a.h, b.h); i >= 0 || firstDiffBits(a.f, b.f) >= 0 {
					differ++
				}
			}
			cv, dv := cpu.Volume(), dev.Volume()
			if math.Abs(cv-dv) > gpuVolumeTol*cv {
				t.Errorf("volume: cpu %g, cuda %g", cv, dv)
			}
			added, removed, _ := dev.Accounting()
			added -= a0
			out := dev.Outflow() // the open sides' drains
			if err := math.Abs(dv - (v0 + added - removed - out)); err > gpuVolumeTol*v0 {
				t.Errorf("cuda volume %g, start %g + added %g - removed %g - outflow %g: off by %g", dv, v0, added, removed, out, err)
			}
			if cs, ds := cpu.Stats().Substeps, dev.Stats().Substeps; cs != ds {
				t.Errorf("the SWE's substeps: cpu %d, cuda %d", cs, ds) // a step cut differently
			}
			t.Logf("%s: %d steps, %d of them not bit-identical to the cpu", dev.Stats().Backend, tc.steps, differ)
		})
	}
}

// TestCUDAPipelinedMatchesCPU runs the conformance scenes pipelined (Sim.SetPipelined:
// asynchronous read-back, a full-flag flip stopping the rest of a call on the device) in
// calls of 1 to 9 steps, and compares each published snapshot with the CPU's state of the
// call before, and the state after Sync, within the tolerances above.
func TestCUDAPipelinedMatchesCPU(t *testing.T) {
	if _, err := CUDAAvailable(); err != nil {
		t.Fatal(err)
	}
	near := func(a, b []float32) int {
		for i := range a {
			if math.Abs(float64(a[i])-float64(b[i])) > gpuHeightTol {
				return i
			}
		}
		return -1
	}
	for _, tc := range conformanceCases() {
		if tc.st.Falling == FallingParticles {
			continue // while liquid may fall, Step runs one step at a time, not pipelined
		}
		t.Run(tc.name, func(t *testing.T) {
			cpu, dev := tc.pair(t, "cuda", 7)
			v0 := dev.Volume()
			a0, _, _ := dev.Accounting()
			dev.SetPipelined(true)
			rng := rand.New(rand.NewPCG(3, 5))
			var prev, got Snapshot
			cpu.Snapshot(&prev)
			for calls, steps := 1, 0; steps < 3*tc.steps; calls++ {
				n := 1 + rng.IntN(9)
				cpu.Step(n)
				dev.Step(n)
				steps += n
				dev.Snapshot(&got)
				if calls > 1 && (got.Steps != prev.Steps || near(got.Height, prev.Height) >= 0) {
					t.Fatalf("call %d: published step %d, want %d; first height off %d", calls, got.Steps, prev.Steps, near(got.Height, prev.Height))
				}
				cpu.Snapshot(&prev)
			}
			dev.Sync()
			dev.Snapshot(&got)
			if got.Steps != prev.Steps || near(got.Height, prev.Height) >= 0 {
				t.Fatalf("after Sync: step %d, cpu %d; first height off %d", got.Steps, prev.Steps, near(got.Height, prev.Height))
			}
			dv := dev.Volume()
			added, removed, _ := dev.Accounting()
			added -= a0
			out := dev.Outflow()
			if err := math.Abs(dv - (v0 + added - removed - out)); err > gpuVolumeTol*v0 {
				t.Errorf("cuda volume %g, start %g + added %g - removed %g - outflow %g: off by %g", dv, v0, added, removed, out, err)
			}
			db := dev.be.(*deviceBackend)
			t.Logf("%d steps; %d passage rebuilds, %d frames resumed after a flip", got.Steps, db.rebuilds, db.resumes)
		})
	}
}

// BenchmarkCUDASWEStep: a step of the shallow water equations on the device against the
// pipes (general layout) on the same 200 x 200 scene as BenchmarkSWEStep: a 5 mm dam
// breaking across a flat floor (dx 0.5 mm, dt 3 ms), after 0.1 s, in calls of 20 steps.
// Reports ms/step and, for the SWE, substeps/step (each step waits once for the device:
// the fastest wave's read-back).
func BenchmarkCUDASWEStep(b *testing.B) {
	for _, m := range []Method{MethodPipes, MethodSWE} {
		b.Run(m.String(), func(b *testing.B) {
			st := sweSettings(m, 0.003, 1)
			st.Backend = "cuda"
			benchDamBreak(b, st, true, 20)
		})
	}
}
