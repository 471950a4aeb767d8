package waves

import (
	"math"
	"testing"
)

// seed20k fills s with 20,000 live particles: impacts at scattered points, one frame
// apart, until the cap (MaxParticles 20,000) stops them. The viscosity is 0 and the
// minimum amplitude tiny, so none die during the benchmark.
func seed20k(b *testing.B, s *System, f Flow) float64 {
	tt := 0.0
	seed := uint32(1)
	rnd := func() float64 {
		seed = seed*1664525 + 1013904223
		return float64(seed>>8) / (1 << 24)
	}
	for s.Count() < 20000 {
		for range 8 {
			s.Impact(Impact{X: (5 + 90*rnd()) * 1e-3, Y: (5 + 90*rnd()) * 1e-3, Amplitude: 1e-4, Time: tt})
		}
		tt += 1.0 / 60
		s.Advance(tt, f)
		if tt > 100 {
			b.Fatalf("only %d particles after %g s", s.Count(), tt)
		}
	}
	return tt
}

func benchFrames(b *testing.B, f Flow, step float64) {
	cols := flatCols(b, 200, 200)
	if f.Height == nil {
		f = still(cols, 2e-3)
	}
	st := Water()
	st.Viscosity = 0
	st.MinAmplitude = 1e-12
	st.MaxParticles = 20000
	st.Step = step
	s := newSystem(b, cols, st)
	tt := seed20k(b, s, f)
	var d []float32
	d = s.Displacement(d, f)
	b.ResetTimer()
	for range b.N {
		tt += 1.0 / 60
		s.Advance(tt, f)
		d = s.Displacement(d, f)
	}
	b.StopTimer()
	if s.Count() < 19000 {
		b.Fatalf("%d particles left", s.Count())
	}
	b.ReportMetric(float64(s.Count()), "particles")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
}

// BenchmarkWaves20k: one frame (Advance by 1/60 s, then Displacement) of 20,000
// particles on a 200 x 200 still pool, dx 0.5 mm, depth 2 mm.
func BenchmarkWaves20k(b *testing.B) { benchFrames(b, Flow{}, 0) }

// BenchmarkWaves20kStep60: BenchmarkWaves20k with a wave step of 1/60 s (one a frame)
// instead of the default 1/120 s.
func BenchmarkWaves20kStep60(b *testing.B) { benchFrames(b, Flow{}, 1.0/60) }

// BenchmarkWaves20kFlow: the same with a depth that varies from cell to cell (1.5 to
// 2.5 mm) and a swirling flow, so no two particles share a depth (no cache hits) and
// every one refracts and drifts.
func BenchmarkWaves20kFlow(b *testing.B) {
	cols := flatCols(b, 200, 200)
	f := current(still(cols, 2e-3), 0, 0)
	for i := range f.Height {
		x, y := float64(i%200), float64(i/200)
		f.Height[i] = float32(2e-3 + 0.5e-3*math.Sin(x/9)*math.Cos(y/13))
		f.VX[i] = float32(0.05 * math.Sin(y/25))
		f.VY[i] = float32(0.05 * math.Cos(x/25))
	}
	benchFrames(b, f, 0)
}
