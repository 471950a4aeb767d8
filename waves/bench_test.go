package waves

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// benchRand is the benchmarks' fixed sequence of numbers in [0, 1) from seed (a linear
// congruential generator: the same impacts on every run).
func benchRand(seed uint32) func() float64 {
	return func() float64 {
		seed = seed*1664525 + 1013904223
		return float64(seed>>8) / (1 << 24)
	}
}

// seed20k fills s with 20,000 live particles: impacts at scattered points, one frame
// apart, until the cap (MaxParticles 20,000) stops them. The viscosity is 0 and the
// minimum amplitude tiny, so none die during the benchmark.
func seed20k(b *testing.B, s *System, f Flow) float64 {
	tt := 0.0
	rnd := benchRand(1)
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
	timeFrames(b, s, f, tt, 19000)
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

// smallPools is a 160 x 160 grid (dx 0.5 mm) of 4 x 4 square pools, 38 cells across,
// 2 mm deep, between dry walls two cells thick; over x < 40 mm a slab (8 to 10 mm)
// holds a second layer of pools, 10 to 12 mm, with the same walls, over the first.
func smallPools(t testing.TB) (*terrain.Columns, Flow) {
	t.Helper()
	const n = 160
	cells := make([][]terrain.Interval, n*n)
	for k := range cells {
		x, y := k%n, k/n
		b1, b2 := float32(0), float32(10e-3)
		if x%40 < 2 || y%40 < 2 { // a wall: raised and dry
			b1, b2 = 4e-3, 14e-3
		}
		if x < n/2 {
			cells[k] = []terrain.Interval{{Min: 0, Base: b1, Max: 8e-3}, {Min: 10e-3, Base: b2, Max: height}}
		} else {
			cells[k] = []terrain.Interval{{Min: 0, Base: b1, Max: height}}
		}
	}
	cols, err := terrain.FromIntervals(n, n, tdx, height, 2, cells)
	if err != nil {
		t.Fatal(err)
	}
	f := Flow{Height: make([]float32, cols.NumColumns())}
	for i, b := range cols.Base {
		f.Height[i] = b + 2e-3
		if b == 4e-3 || b == 14e-3 {
			f.Height[i] = b
		}
	}
	return cols, f
}

// BenchmarkWavesSmallPools: one frame (Advance by 1/60 s with the scene's step of 1/60
// s, then Displacement) of 4,000 particles in the small pools of smallPools, on both
// layers: most moves walk their cells (no open block under the slab, few in a pool).
func BenchmarkWavesSmallPools(b *testing.B) {
	cols, f := smallPools(b)
	st := Water()
	st.Viscosity = 0
	st.MinAmplitude = 1e-12
	st.MaxParticles = 4000
	st.Step = 1.0 / 60
	s := newSystem(b, cols, st)
	rnd := benchRand(1)
	tt := 0.0
	for s.Count() < 4000 {
		for range 4 {
			// a pool's interior cell, either layer where there are two
			x := (40*float64(int(4*rnd())) + 4 + 34*rnd()) * tdx
			y := (40*float64(int(4*rnd())) + 4 + 34*rnd()) * tdx
			z := 1e-3
			if rnd() < 0.5 {
				z = 11e-3
			}
			s.Impact(Impact{X: x, Y: y, Z: z, Amplitude: 1e-4, Time: tt})
		}
		tt += 1.0 / 60
		s.Advance(tt, f)
		if tt > 100 {
			b.Fatalf("only %d particles after %g s", s.Count(), tt)
		}
	}
	timeFrames(b, s, f, tt, 3800)
}

// timeFrames times b.N frames of s from time tt (Advance by 1/60 s, then Displacement),
// fails if fewer than least particles are left, and reports the count and ms a frame.
func timeFrames(b *testing.B, s *System, f Flow, tt float64, least int) {
	var d []float32
	d = s.Displacement(d, f)
	b.ResetTimer()
	for range b.N {
		tt += 1.0 / 60
		s.Advance(tt, f)
		d = s.Displacement(d, f)
	}
	b.StopTimer()
	if s.Count() < least {
		b.Fatalf("%d particles left", s.Count())
	}
	b.ReportMetric(float64(s.Count()), "particles")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
}

// fountain is the wave load of scripts/fountain.lua: a bowl 90 mm across (the bottom of
// a sphere 70 mm in radius about (50, 50, 72) mm, in a box 20 mm high) on a 200 x 200
// grid, dx 0.5 mm, with a pedestal 10 mm across in its middle rising to 16 mm, filled to
// 14 mm: a round pool 78 mm across with an island, shores all round. The surface
// carries small bumps (0.05 mm) and a slow swirl (5 mm/s), so depths and velocities vary
// from cell to cell as in the scene.
func fountain(t testing.TB) (*terrain.Columns, Flow) {
	t.Helper()
	const n, top = 200, 50e-3
	cells := make([][]terrain.Interval, n*n)
	for k := range cells {
		x, y := (float64(k%n)+0.5)*tdx-50e-3, (float64(k/n)+0.5)*tdx-50e-3
		r := math.Hypot(x, y)
		b := 20e-3
		if r < 70e-3 {
			b = min(b, 72e-3-math.Sqrt(70e-3*70e-3-r*r))
		}
		if r < 5e-3 {
			b = 16e-3
		}
		cells[k] = []terrain.Interval{{Min: 0, Base: float32(b), Max: top}}
	}
	cols, err := terrain.FromIntervals(n, n, tdx, top, 1, cells)
	if err != nil {
		t.Fatal(err)
	}
	f := current(Flow{Height: make([]float32, cols.NumColumns())}, 0, 0)
	for i, b := range cols.Base {
		f.Height[i] = b
		if b < 14e-3 {
			x, y := (float64(i%n)+0.5)*tdx-50e-3, (float64(i/n)+0.5)*tdx-50e-3
			f.Height[i] = float32(14e-3 + 0.05e-3*math.Sin(x/1.7e-3)*math.Cos(y/2.3e-3))
			f.VX[i], f.VY[i] = float32(-0.1*y), float32(0.1*x)
		}
	}
	return cols, f
}

// BenchmarkWavesFountain: the wave load of scripts/fountain.lua's spray: the scene's
// settings (step 1/60 s, 3,000 particles at most, removal at 3 microns, water's
// viscosity) and, each frame, 16 landings on a ring 6 to 15 mm about the pedestal
// (amplitudes 150 to 400 microns, as the scene's merged landings), in a third of the
// frames a leaf's wake (radius 7 mm), then Advance by 1/60 s: the particles stay at the
// cap, most impacts are dropped, and a third of the moves run into the shore or the
// pedestal and walk their cells. A headless run builds no surface: no Displacement.
func BenchmarkWavesFountain(b *testing.B) {
	cols, f := fountain(b)
	st := Water()
	st.Amplitude = 2
	st.MinAmplitude = 3e-6
	st.MaxParticles = 3000
	st.Step = 1.0 / 60
	s := newSystem(b, cols, st)
	rnd := benchRand(1)
	tt := 0.0
	frame := func() {
		for q := range 16 {
			a, r := 2*math.Pi*rnd(), (6+9*rnd())*1e-3
			s.Impact(Impact{X: 50e-3 + r*math.Cos(a), Y: 50e-3 + r*math.Sin(a), Z: 14e-3,
				Amplitude: (150 + 250*rnd()) * 1e-6, Time: tt + float64(q)/(16*60)})
		}
		if rnd() < 1.0/3 {
			a, r := 2*math.Pi*rnd(), (18+12*rnd())*1e-3
			s.Impact(Impact{X: 50e-3 + r*math.Cos(a), Y: 50e-3 + r*math.Sin(a), Z: 14e-3,
				Amplitude: 5e-6, Radius: 7e-3, Time: tt})
		}
		tt += 1.0 / 60
		s.Advance(tt, f)
	}
	for range 120 {
		frame()
	}
	b.ResetTimer()
	for range b.N {
		frame()
	}
	b.StopTimer()
	if s.Count() < 2500 {
		b.Fatalf("%d particles left", s.Count())
	}
	b.ReportMetric(float64(s.Count()), "particles")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
}
