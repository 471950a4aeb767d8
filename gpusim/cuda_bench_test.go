//go:build cuda

package gpusim

// GPU benchmarks (docs/cuda.md, "Performance"). They need an NVIDIA GPU:
//
//	go test -tags cuda -run '^$' -bench CUDA -benchtime 2000x ./gpusim/
//
// CI only compiles them (make cuda-vet). BenchmarkCUDAStep2048 reports the step's speed
// against the bandwidth bound, with the bandwidth measured in the same run.

import "testing"

// minBytesPerColumn is what a dense step must move at least per column: h, r, fx, fy read
// and written (32 bytes), base and max read (8).
const minBytesPerColumn = 40

// cudaBandwidth is the device's copy bandwidth in bytes/s, measured once per run.
func cudaBandwidth(b *testing.B) float64 {
	b.Helper()
	rt, err := newCUDARuntime()
	if err != nil {
		b.Fatal(err)
	}
	bw, err := rt.(*cudaRuntime).CopyBandwidth(1<<30, 20)
	if err != nil {
		b.Fatal(err)
	}
	return bw
}

// BenchmarkCUDACopyBandwidth: device-to-device copies of 1 GiB, in GB/s (read + write).
func BenchmarkCUDACopyBandwidth(b *testing.B) {
	var bw float64
	for range b.N {
		bw = cudaBandwidth(b)
	}
	b.ReportMetric(bw/1e9, "GB/s")
}

// BenchmarkCUDAStep2048: 2048 x 2048 x 1 over a bumpy floor, flooded to 4 mm, on the
// cuda backend; steps in calls of 1,000 (one height readback each). Reports µs per step,
// column-steps/s, and the share of the bandwidth bound reached: the 40 bytes a column
// a step must move, over the copy bandwidth measured in the same run (target: 25% or more).
func BenchmarkCUDAStep2048(b *testing.B) {
	c := layeredScene(b, 2048, 2048, 0.0005, 0.02, 1, bumpyFloor, nil)
	st := settings(0.003, 4e-6, 0)
	st.Backend = "cuda"
	sim := newSim(b, c, st)
	if _, err := sim.Fill(0.5, 0.5, 0.01, 0.004); err != nil {
		b.Fatal(err)
	}
	sim.Step(100) // load the kernels, warm the device
	bw := cudaBandwidth(b)
	b.ResetTimer()
	el := stepTimed(sim, b.N, 1000)
	b.StopTimer()
	perStep := el / float64(b.N)
	cols := float64(c.NumColumns())
	b.ReportMetric(perStep*1e6, "µs/step")
	b.ReportMetric(cols/perStep, "colsteps/s")
	b.ReportMetric(bw/1e9, "GB/s-copy")
	b.ReportMetric(100*minBytesPerColumn*cols/perStep/bw, "%bound")
}
