package waves

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// A wave crossing a depth gradient turns towards the shallow (slower) side at the rate
// of the ray equation, d theta / dt = -dc/dn.
func TestRefraction(t *testing.T) {
	cols := flatCols(t, 200, 200)
	f := still(cols, 0)
	const ly = 200 * tdx
	depth := func(y float64) float64 { return 3e-3 - 2e-3*y/ly } // 3 mm at y = 0, 1 mm at the top
	for i := range f.Height {
		f.Height[i] = float32(depth((float64(i/200) + 0.5) * tdx))
	}
	st := Settings{Gravity: 9.81, Density: 1000} // gravity waves: the speed depends on the depth
	const r = 10e-3
	s := newSystem(t, cols, st)
	y0 := 50e-3
	s.Launch(Particle{X: 20e-3, Y: y0, DirX: 1, Amplitude: 1e-4, Radius: r}, 0)
	s.Advance(0.1, f)
	p := s.Particles(nil)[0]
	theta := math.Atan2(p.DirY, p.DirX)
	// the phase speed's gradient across the path, by finite difference
	e := 1e-6
	dcdh := (PhaseSpeed(st, r, depth(y0)+e) - PhaseSpeed(st, r, depth(y0)-e)) / (2 * e)
	want := -dcdh * (-2e-3 / ly) * s.Time() // -dc/dy t
	t.Logf("turned %.4f rad towards the shallow side in %.3f s, ray equation %.4f rad (c_g %.3f m/s)", theta, s.Time(), want, GroupVelocity(st, r, depth(y0)))
	if !(theta > 0) || relErr(theta, want) > 0.2 {
		t.Errorf("turned %g rad, want %g (towards +y)", theta, want)
	}
}

// SetColumns: particles where the liquid's layer is gone are removed, the others keep
// going on their new columns.
func TestSetColumns(t *testing.T) {
	cols := flatCols(t, 100, 100)
	f := still(cols, 2e-3)
	s := newSystem(t, cols, Water())
	s.Impact(Impact{X: 25e-3, Y: 25e-3, Amplitude: 1e-4, Radius: tr})
	s.Advance(0.02, f)
	before := s.Count()
	// a block rises under x < 20 mm: its columns start at 5 mm, above the liquid
	cells := make([][]terrain.Interval, 100*100)
	for k := range cells {
		b := float32(0)
		if k%100 < 40 {
			b = 5e-3
		}
		cells[k] = []terrain.Interval{{Min: b, Base: b, Max: height}}
	}
	cols2, err := terrain.FromIntervals(100, 100, tdx, height, 1, cells)
	if err != nil {
		t.Fatal(err)
	}
	s.SetColumns(cols2)
	after := s.Count()
	for _, p := range s.Particles(nil) {
		if p.X < 20e-3 {
			t.Fatalf("a particle at x %g m survived on the block", p.X)
		}
		if cols2.Base[p.Column] != 0 {
			t.Fatalf("particle on column %d with base %g", p.Column, cols2.Base[p.Column])
		}
	}
	f2 := still(cols2, 0)
	for i := range f2.Height {
		f2.Height[i] = 2e-3
		if cols2.Base[i] > 0 {
			f2.Height[i] = cols2.Base[i] // dry
		}
	}
	s.Advance(0.05, f2)
	t.Logf("%d particles, %d after the block rose, %d later; stats %+v", before, after, s.Count(), s.Stats())
	if !(after > 0 && after < before) || s.Stats().Removed != before-after {
		t.Errorf("%d particles before, %d after: want some removed, counted", before, after)
	}
	for _, p := range s.Particles(nil) {
		if p.X < 20e-3 {
			t.Fatalf("a particle at x %g m entered the dry block", p.X)
		}
	}
}

// HeightAt at a cell's centre equals Displacement there, on every layer.
func TestHeightAtMatchesDisplacement(t *testing.T) {
	cols, f, ims := scene(t)
	st := Water()
	st.MinAmplitude = 1e-8
	s := newSystem(t, cols, st)
	for _, im := range ims {
		s.Impact(im)
	}
	s.Advance(0.08, f)
	d := s.Displacement(nil, f)
	nonzero := 0
	for y := 0; y < cols.Ny; y += 3 {
		for x := 0; x < cols.Nx; x += 3 {
			lo, hi := cols.Cell(x, y)
			for i := lo; i < hi; i++ {
				cx, cy := cols.CellCentre(x, y)
				h := s.HeightAt(cx, cy, float64(cols.Base[i]), f)
				if math.Abs(h-float64(d[i])) > 1e-5*math.Abs(h)+1e-12 {
					t.Fatalf("cell (%d,%d) column %d: HeightAt %g, Displacement %g", x, y, i-lo, h, d[i])
				}
				if h != 0 {
					nonzero++
				}
			}
		}
	}
	if nonzero < 100 {
		t.Errorf("only %d nonzero samples", nonzero)
	}
}

// Impacts on dry ground or outside are missed; impacts beyond the cap are dropped.
func TestStatsMissedDropped(t *testing.T) {
	cols := flatCols(t, 50, 50)
	f := still(cols, 2e-3)
	f.Height[0] = 0
	st := Water()
	st.MaxParticles = 60
	s := newSystem(t, cols, st)
	// at the end of the first step: born there, they neither move nor split in it
	dt := s.StepSize()
	s.Impact(Impact{X: 0.1e-3, Y: 0.1e-3, Amplitude: 1e-4, Time: dt})   // dry cell
	s.Impact(Impact{X: -1e-3, Y: 5e-3, Amplitude: 1e-4, Time: dt})      // outside
	s.Impact(Impact{X: 5e-3, Y: 5e-3, Amplitude: math.NaN(), Time: dt}) // NaN
	s.Impact(Impact{X: 10e-3, Y: 10e-3, Amplitude: 1e-4, Time: dt})     // 26 particles
	s.Impact(Impact{X: 15e-3, Y: 10e-3, Amplitude: 1e-4, Time: dt})     // 52
	s.Impact(Impact{X: 20e-3, Y: 10e-3, Amplitude: 1e-4, Time: dt})     // beyond 60: dropped
	s.Advance(dt, f)
	got := s.Stats()
	t.Logf("%+v", got)
	if got.Missed != 3 || got.Dropped != 1 || got.Impacts != 2 || got.Particles > 60 {
		t.Errorf("stats %+v: want 3 missed, 1 dropped, 2 started, at most 60 particles", got)
	}
	s.Advance(0.1, f)
	if got := s.Stats(); got.Unsplit == 0 || got.Particles > 60 {
		t.Errorf("stats %+v: want held-back subdivisions and at most 60 particles", got)
	}
	s.Clear()
	if s.Count() != 0 {
		t.Errorf("Clear left %d particles", s.Count())
	}
}

// With nothing to move, Advance jumps over idle steps; the time and an impact queued
// far ahead come out as if every step had run.
func TestIdleJump(t *testing.T) {
	cols := flatCols(t, 50, 50)
	f := still(cols, 2e-3)
	a, b := newSystem(t, cols, Water()), newSystem(t, cols, Water())
	im := Impact{X: 12e-3, Y: 12e-3, Amplitude: 1e-4, Time: 3.95}
	a.Impact(im)
	b.Impact(im)
	a.Advance(4, f)
	for tt := 0.0; tt <= 4; tt += 0.01 {
		b.Advance(tt, f)
	}
	b.Advance(4, f)
	if a.Time() != b.Time() || a.Stats() != b.Stats() {
		t.Errorf("times %v, %v; stats %+v, %+v", a.Time(), b.Time(), a.Stats(), b.Stats())
	}
	pa, pb := a.Particles(nil), b.Particles(nil)
	if len(pa) == 0 || len(pa) != len(pb) || pa[0] != pb[0] {
		t.Errorf("particles differ: %d and %d", len(pa), len(pb))
	}
}

func TestTanhTable(t *testing.T) {
	worst := 0.0
	for i := 0; i <= 2100000; i++ {
		x := float64(i) * 1e-5
		tt, ss := tanhSech2(x)
		c := math.Cosh(x)
		wt, ws := math.Tanh(x), 1/(c*c)
		et := math.Abs(tt - wt)
		es := math.Abs(ss-ws) / math.Max(ws, 1e-300)
		if x > 0 {
			et /= wt
		}
		if ws < 1e-12 { // sech^2 negligible beside 1: compare absolutely
			es = math.Abs(ss - ws)
		}
		worst = max(worst, et, es)
	}
	t.Logf("largest relative error of tanh and sech^2 over [0, 21]: %.3g", worst)
	if worst > 1e-8 {
		t.Errorf("tanh/sech^2 table: relative error %g", worst)
	}
}

// On a grid of one column a cell, dry columns get no displacement and wet ones the sum
// HeightAt gives, next to a dry strip and a dry spot.
func TestDisplacementDryFlat(t *testing.T) {
	cols := flatCols(t, 60, 60)
	f := still(cols, 2e-3)
	for y := range 60 {
		for x := 30; x < 33; x++ {
			f.Height[y*60+x] = 0 // a dry strip: a wall
		}
	}
	f.Height[10*60+10] = 0
	s := newSystem(t, cols, Water())
	s.Impact(Impact{X: 12e-3, Y: 6e-3, Amplitude: 1e-4})
	s.Impact(Impact{X: 18e-3, Y: 20e-3, Amplitude: 1e-4})
	s.Advance(0.02, f)
	d := s.Displacement(nil, f)
	nonzero := 0
	for i, v := range d {
		x, y := i%60, i/60
		if f.Height[i] == 0 {
			if v != 0 {
				t.Fatalf("dry column (%d,%d): displacement %g", x, y, v)
			}
			continue
		}
		cx, cy := cols.CellCentre(x, y)
		if h := s.HeightAt(cx, cy, 1e-3, f); math.Abs(h-float64(v)) > 1e-5*math.Abs(h)+1e-12 {
			t.Fatalf("column (%d,%d): HeightAt %g, Displacement %g", x, y, h, v)
		}
		if v != 0 {
			nonzero++
		}
	}
	if nonzero < 100 {
		t.Errorf("only %d columns displaced", nonzero)
	}
}
