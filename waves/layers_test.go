package waves

import (
	"math"
	"slices"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// twoLayers is a 100 x 100 grid: a floor at 0 everywhere and, over x < 25 mm, a slab
// from 8 to 10 mm. Its flow has a lower pool 0 .. 2 mm everywhere and an upper pool
// 10 .. 12 mm on the slab.
func twoLayers(t testing.TB) (*terrain.Columns, Flow, int) {
	t.Helper()
	const n, slabCells = 100, 50
	cells := make([][]terrain.Interval, n*n)
	for k := range cells {
		if k%n < slabCells {
			cells[k] = []terrain.Interval{{Min: 0, Base: 0, Max: 8e-3}, {Min: 10e-3, Base: 10e-3, Max: height}}
		} else {
			cells[k] = []terrain.Interval{{Min: 0, Base: 0, Max: height}}
		}
	}
	cols, err := terrain.FromIntervals(n, n, tdx, height, 2, cells)
	if err != nil {
		t.Fatal(err)
	}
	f := Flow{Height: make([]float32, cols.NumColumns())}
	for i := range f.Height {
		f.Height[i] = cols.Base[i] + 2e-3
	}
	return cols, f, slabCells
}

// Two pools, one above the other over part of the domain: a ring on either never puts
// displacement on the other's columns, and its particles stay on their own layer.
func TestLayersStayApart(t *testing.T) {
	cols, f, slabCells := twoLayers(t)
	upper := func(i int) bool { return cols.Base[i] > 5e-3 }
	for _, tc := range []struct {
		name string
		x, z float64
		up   bool
	}{
		{"lower, under the slab", 20e-3, 1e-3, false},
		{"lower, beside the slab", 30e-3, 1e-3, false},
		{"upper", 20e-3, 11e-3, true},
	} {
		st := Water()
		st.MinAmplitude = 1e-9
		s := newSystem(t, cols, st)
		s.Impact(Impact{X: tc.x, Y: 25e-3, Z: tc.z, Amplitude: 1e-4, Radius: tr})
		var d []float32
		var ps []Particle
		own, crossed := 0.0, false
		for frame := 1; frame <= 9; frame++ {
			s.Advance(float64(frame)/60, f)
			d = s.Displacement(d, f)
			for i, v := range d {
				if upper(i) != tc.up && v != 0 {
					t.Fatalf("%s: frame %d: column %d (base %g) of the other layer has displacement %g", tc.name, frame, i, cols.Base[i], v)
				}
				if upper(i) == tc.up {
					own = max(own, math.Abs(float64(v)))
				}
			}
			ps = s.Particles(ps)
			for _, p := range ps {
				if upper(p.Column) != tc.up {
					t.Fatalf("%s: frame %d: a particle on column %d (base %g)", tc.name, frame, p.Column, cols.Base[p.Column])
				}
				if tc.up && p.X > float64(slabCells)*tdx {
					t.Fatalf("%s: a particle at x %g m, off the slab", tc.name, p.X)
				}
				if !tc.up && p.X > float64(slabCells)*tdx {
					crossed = true
				}
			}
		}
		t.Logf("%s: largest displacement on its own layer %.3g m, %d particles", tc.name, own, s.Count())
		if own == 0 {
			t.Errorf("%s: no displacement at all", tc.name)
		}
		if !tc.up && !crossed {
			t.Errorf("%s: no particle passed from under the slab to open liquid or back", tc.name)
		}
		// HeightAt picks the layer by z.
		x := 15e-3
		if tc.up && s.HeightAt(x, 25e-3, 1e-3, f) != 0 || !tc.up && s.HeightAt(x, 25e-3, 11e-3, f) != 0 {
			t.Errorf("%s: HeightAt on the other layer is not 0", tc.name)
		}
	}
}

// scene is a busy test scene: walls, an island, a slab with a pool on it, a depth
// gradient, a swirling flow and viscosity, so that particles refract, reflect, split
// and die.
func scene(t testing.TB) (*terrain.Columns, Flow, []Impact) {
	t.Helper()
	const n = 120
	cells := make([][]terrain.Interval, n*n)
	for k := range cells {
		x, y := k%n, k/n
		switch {
		case x >= 40 && x < 70 && y >= 70 && y < 100:
			cells[k] = []terrain.Interval{{Min: 0, Base: 0, Max: 8e-3}, {Min: 10e-3, Base: 10e-3, Max: height}}
		case x >= 80 && x < 90 && y >= 20 && y < 50: // an island
			cells[k] = []terrain.Interval{{Min: 0, Base: 5e-3, Max: height}}
		default:
			b := float32(y) * 1e-5 // the floor rises along y
			cells[k] = []terrain.Interval{{Min: b, Base: b, Max: height}}
		}
	}
	cols, err := terrain.FromIntervals(n, n, tdx, height, 2, cells)
	if err != nil {
		t.Fatal(err)
	}
	f := Flow{Height: make([]float32, cols.NumColumns()), VX: make([]float32, cols.NumColumns()), VY: make([]float32, cols.NumColumns())}
	for y := range n {
		for x := range n {
			lo, hi := cols.Cell(x, y)
			for i := lo; i < hi; i++ {
				f.Height[i] = 2e-3
				if cols.Base[i] >= 5e-3 && cols.Base[i] < 9e-3 {
					f.Height[i] = cols.Base[i] // the island is dry
				} else if cols.Base[i] >= 10e-3 {
					f.Height[i] = 12e-3
				}
				if x >= 110 {
					f.Height[i] = 0 // a dry strip: a wall
				}
				f.VX[i] = float32(0.05 * math.Sin(float64(y)/15))
				f.VY[i] = float32(0.05 * math.Cos(float64(x)/15))
			}
		}
	}
	ims := []Impact{
		{X: 20e-3, Y: 20e-3, Amplitude: 1e-4, Radius: tr, Time: 0.001},
		{X: 30e-3, Y: 40e-3, Z: 1e-3, Amplitude: 5e-5, Radius: 2e-3, Time: 0.02},
		{X: 27e-3, Y: 42e-3, Z: 11e-3, Amplitude: 8e-5, Radius: tr, Time: 0.03},
		{X: 50e-3, Y: 10e-3, Amplitude: 1e-4, Radius: tr, Time: 0.05},
		{X: 54.9e-3, Y: 30e-3, Amplitude: 1e-4, Radius: 1e-3, Time: 0.05}, // beside the dry strip
	}
	return cols, f, ims
}

type snapshot struct {
	ps []Particle
	d  []float32
	st Stats
}

func runScene(t testing.TB, workers int, times []float64) snapshot {
	return runSceneWalk(t, workers, times, false)
}

// runSceneWalk is runScene, every move walking its cells when walkAll.
func runSceneWalk(t testing.TB, workers int, times []float64, walkAll bool) snapshot {
	cols, f, ims := scene(t)
	st := Water()
	st.MinAmplitude = 1e-8
	st.Workers = workers
	s := newSystem(t, cols, st)
	s.c.walkAll = walkAll
	for _, im := range ims {
		s.Impact(im)
	}
	for _, tt := range times {
		s.Advance(tt, f)
	}
	return snapshot{s.Particles(nil), s.Displacement(nil, f), s.Stats()}
}

func sameSnapshot(t *testing.T, name string, a, b snapshot) {
	t.Helper()
	if !slices.Equal(a.ps, b.ps) {
		t.Errorf("%s: particles differ (%d and %d)", name, len(a.ps), len(b.ps))
	}
	if len(a.d) != len(b.d) {
		t.Fatalf("%s: displacement lengths differ", name)
	}
	for i := range a.d {
		if math.Float32bits(a.d[i]) != math.Float32bits(b.d[i]) {
			t.Errorf("%s: displacement of column %d: %g and %g", name, i, a.d[i], b.d[i])
			break
		}
	}
	if a.st != b.st {
		t.Errorf("%s: stats %+v and %+v", name, a.st, b.st)
	}
}

// Particles and displacement are bit-identical for any number of workers, and Advance
// in pieces equals Advance at once.
func TestDeterminism(t *testing.T) {
	ref := runScene(t, 1, []float64{0.2})
	t.Logf("%d particles after 0.2 s; stats %+v", len(ref.ps), ref.st)
	if ref.st.Removed == 0 || ref.st.Impacts != 5 || len(ref.ps) < 1000 {
		t.Errorf("the scene should start 5 impacts, split and remove particles: %+v", ref.st)
	}
	for _, w := range []int{2, 3, 7} {
		sameSnapshot(t, "workers "+string(rune('0'+w)), ref, runScene(t, w, []float64{0.2}))
	}
	sameSnapshot(t, "pieces 0.1, 0.2", ref, runScene(t, 2, []float64{0.1, 0.2}))
	sameSnapshot(t, "pieces", ref, runScene(t, 3, []float64{0.0013, 0.017, 0.017, 0.05, 0.1333, 0.2}))
}

// The open-water fast path gives the same particles as walking every move.
func TestFastPathSameAsWalk(t *testing.T) {
	// the scene has open blocks (the fast path runs) and blocks that are not
	cols, f, _ := scene(t)
	s := newSystem(t, cols, Water())
	s.Launch(Particle{X: 10e-3, Y: 10e-3, DirX: 1, Amplitude: 1e-4}, 0)
	s.Advance(0.01, f)
	s.Displacement(nil, f)
	open, field := 0, 0
	for b := range s.c.blkClear {
		if s.c.blkClear[b] != 0 {
			open++
		}
		if s.c.blkField[b] {
			field++
		}
	}
	t.Logf("%d of %d blocks open, %d field-open", open, len(s.c.blkClear), field)
	if open < len(s.c.blkClear)/2 || open == len(s.c.blkClear) || field == 0 {
		t.Errorf("%d of %d blocks open, %d field-open: the test does not cover both paths", open, len(s.c.blkClear), field)
	}
	ref := runScene(t, 2, []float64{0.2})
	sameSnapshot(t, "walk every move", ref, runSceneWalk(t, 2, []float64{0.2}, true))
}

// The same in small pools between dry walls on two layers (bench_test.go), where most
// blocks open hold two columns a cell, and the moves near the walls walk.
func TestFastPathSameAsWalkPools(t *testing.T) {
	run := func(walkAll bool) snapshot {
		cols, f := smallPools(t)
		st := Water()
		st.MinAmplitude = 1e-8
		st.Workers = 2
		s := newSystem(t, cols, st)
		s.c.walkAll = walkAll
		for i := range 12 {
			x, y := (40*float64(i%4)+6+3*float64(i))*tdx, (40*float64(i/4%4)+30-2*float64(i))*tdx
			z := 1e-3
			if i%2 == 1 {
				z = 11e-3
			}
			s.Impact(Impact{X: x, Y: y, Z: z, Amplitude: 1e-4, Time: 0.004 * float64(i)})
		}
		s.Advance(0.15, f)
		open := 0
		for b := range s.c.blkMask {
			if s.c.blkMask[b] == 3 && s.c.blkK[b] == 2 {
				open++
			}
		}
		if !walkAll && open == 0 {
			t.Errorf("no block open on both layers")
		}
		return snapshot{s.Particles(nil), s.Displacement(nil, f), s.Stats()}
	}
	ref := run(false)
	t.Logf("%d particles; stats %+v", len(ref.ps), ref.st)
	sameSnapshot(t, "walk every move", ref, run(true))
}

// Advance and Displacement allocate nothing once warm, with an impact every frame (the
// particle arrays reach the cap's size while warming up).
func TestNoAllocations(t *testing.T) {
	cols, f, ims := scene(t)
	st := Water()
	st.Workers = 2
	st.MinAmplitude = 1e-8
	st.MaxParticles = 5000
	s := newSystem(t, cols, st)
	tt := 0.0
	var d []float32
	frame := func() {
		im := ims[int(tt*60)%len(ims)]
		im.Time = tt
		s.Impact(im)
		tt += 1.0 / 60
		s.Advance(tt, f)
		d = s.Displacement(d, f)
	}
	for range 60 {
		frame()
	}
	allocs := testing.AllocsPerRun(30, frame)
	t.Logf("%d particles, %.1f allocations per frame; stats %+v", s.Count(), allocs, s.Stats())
	if allocs != 0 {
		t.Errorf("%.1f allocations per Advance + Displacement", allocs)
	}
	if s.Count() < 1000 {
		t.Errorf("only %d particles: the test measures little", s.Count())
	}
}

func TestBadSettings(t *testing.T) {
	cols := flatCols(t, 10, 10)
	for _, tc := range []struct {
		field string
		edit  func(*Settings)
	}{
		{"Viscosity", func(s *Settings) { s.Viscosity = -1e-6 }},
		{"Amplitude", func(s *Settings) { s.Amplitude = math.NaN() }},
		{"Gravity", func(s *Settings) { s.Gravity = math.Inf(1) }},
		{"Gravity", func(s *Settings) { s.Gravity = -9.81 }},
		{"SurfaceTension", func(s *Settings) { s.SurfaceTension = -0.07 }},
		{"Density", func(s *Settings) { s.Density = 0 }},
		{"Radius", func(s *Settings) { s.Radius = -1 }},
		{"MinAmplitude", func(s *Settings) { s.MinAmplitude = math.NaN() }},
		{"MaxParticles", func(s *Settings) { s.MaxParticles = -5 }},
		{"Workers", func(s *Settings) { s.Workers = -1 }},
		{"Step", func(s *Settings) { s.Step = 5 }},
		{"Gravity and SurfaceTension", func(s *Settings) { s.Gravity, s.SurfaceTension = 0, 0 }},
	} {
		st := Water()
		tc.edit(&st)
		_, err := New(cols, st)
		if err == nil || !containsWord(err.Error(), tc.field) {
			t.Errorf("%s: error %v, want one naming %s", tc.field, err, tc.field)
		}
		s := newSystem(t, cols, Water())
		if err := s.SetSettings(st); err == nil || !containsWord(err.Error(), tc.field) {
			t.Errorf("SetSettings, %s: error %v", tc.field, err)
		}
	}
	if _, err := New(cols, Water()); err != nil {
		t.Errorf("water: %v", err)
	}
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w {
			return true
		}
	}
	return false
}
