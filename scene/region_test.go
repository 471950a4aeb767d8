package scene

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/liquid3d"
	"github.com/vpbench/vpbench/surface"
	"github.com/vpbench/vpbench/terrain"
)

// channel is a 60 x 10 mm channel of 2 mm cells, 30 mm high, capillarity off, one
// worker, filled to 8 mm and running at 0.1 m/s along +x; edit changes the config first.
func channel(t *testing.T, edit func(*Config)) *Scene {
	t.Helper()
	cfg := Config{Name: "channel", Domain: terrain.Domain{SizeX: 0.06, SizeY: 0.01, Height: 0.03, Dx: 0.002}, Layers: 1,
		Settings: DefaultSettings(), Workers: -1}
	cfg.Settings.Solver.Workers = 1
	cfg.Settings.Capillarity = false
	if edit != nil {
		edit(&cfg)
	}
	s, _, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if _, err := s.EnsureSolver(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FillMoving(0.001, 0.001, 0.001, 0.008, 0.1, 0); err != nil {
		t.Fatal(err)
	}
	return s
}

// checkBooks: the scene's volume (the columns', the air's and the region's), the
// snapshot's and Stats' are one, and what the books say (added - removed - outflow), to
// 1e-9 of it; it returns the relative error.
func checkBooks(t *testing.T, s *Scene, when string) float64 {
	t.Helper()
	v := s.Volume()
	added, removed, _ := s.Accounting()
	books := added - removed - s.Stats().Outflow
	if sv, st := s.Snapshot().Volume, s.Stats().Volume; sv != v || st != v {
		t.Fatalf("%s: the scene's volume %.17g, its snapshot's %.17g, its stats' %.17g", when, v, sv, st)
	}
	e := (v - books) / books
	if math.Abs(e) > 1e-9 {
		t.Fatalf("%s: volume %.17g, the books %.17g (%.3g relative)", when, v, books, e)
	}
	return e
}

// TestRegionInScene: a region placed over the middle of a running channel with a
// source upstream and a sink downstream: the liquid runs into it and out of it, the
// scene's volume is the books' to 1e-9 after every frame (and the snapshot's and Stats'
// agree with it), the held columns show the region's liquid (their depth near the
// channel's; the surface steps no more across the box's sides than between free columns,
// so the picture is continuous there), and removing it gives its liquid back to the
// columns exactly.
func TestRegionInScene(t *testing.T) {
	s := channel(t, nil)
	if _, err := s.AddEmitter(Emitter{X: 0.005, Y: 0.005, Z: 0.001, Radius: 0.002, Rate: 2e-7}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddEmitter(Emitter{X: 0.055, Y: 0.005, Z: 0.001, Radius: 0.002, Rate: -1e-7}); err != nil {
		t.Fatal(err)
	}
	in, err := s.PlaceRegion([3]float64{0.021, 0, 0}, [3]float64{0.039, 0.01, 0.02}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if in.ID != 1 || in.X != 10 || in.CellsX != 10 || in.CellsY != 5 || in.NX != 20 || in.NY != 10 || in.NZ != 20 || in.H != 0.001 ||
		in.Min != [3]float64{0.02, 0, 0} || math.Abs(in.Max[0]-0.04) > 1e-15 || in.Max[2] != 0.02 || in.Particles == 0 {
		t.Errorf("placed: %+v, want the box [0.02, 0.04] x [0, 0.01] x [0, 0.02] of 20 x 10 x 20 cells of 1 mm", in)
	}
	checkBooks(t, s, "placed")
	worst, border, free := 0.0, 0.0, 0.0
	for s.Time() < 1 {
		s.Step(6)
		if err := s.RegionError(); err != nil {
			t.Fatal(err)
		}
		worst = max(worst, math.Abs(checkBooks(t, s, "step")))
		b, f := surfaceSteps(s.Snapshot(), 10, 20)
		border, free = max(border, b), max(free, f)
	}
	in, _ = s.RegionInfo()
	sn := s.Snapshot()
	c := sn.Columns
	mid, _ := c.Cell(15, 2) // under the region
	out, _ := c.Cell(25, 2) // beyond it
	dIn, dOut := sn.Depth(mid), sn.Depth(out)
	t.Logf("1 s: %d particles, in %.4g ml, out %.4g ml, %d substeps and %d iterations the last step, %.3g ms a step over %d steps; depth under the region %.3f mm, beyond %.3f mm; volume within %.3g",
		in.Particles, in.In*1e6, in.Out*1e6, in.Substeps, in.Iterations, in.StepWall.Seconds()*1e3/float64(in.Steps), in.Steps, dIn*1e3, dOut*1e3, worst)
	if !(in.In > 1e-7) || !(in.Out > 1e-7) || in.Steps != s.Steps() || in.Iterations == 0 {
		t.Errorf("the liquid did not run through the region: %+v", in)
	}
	if !(dIn > 0.004 && dIn < 0.012) {
		t.Errorf("the held column under the region is %.3f mm deep: the picture would not show the region's liquid", dIn*1e3)
	}
	t.Logf("the largest step of the surface across the region's sides over the run %.3f mm, between free neighbours %.3f mm", border*1e3, free*1e3)
	if border > 1.5*free {
		t.Errorf("the surface steps %.3f mm across the region's sides, %.3f mm at most between free columns: the picture is not continuous", border*1e3, free*1e3)
	}
	v := s.Volume()
	s.RemoveRegion()
	if s.HasRegion() {
		t.Fatal("removed, yet in place")
	}
	if got := s.Volume(); math.Abs(got-v) > 1e-12*v {
		t.Errorf("the columns hold %.17g m^3 after the removal, the scene held %.17g", got, v)
	}
	checkBooks(t, s, "removed")
	s.Step(30)
	checkBooks(t, s, "stepped after the removal")
	if _, err := s.PlaceRegion([3]float64{0.02, 0, 0}, [3]float64{0.04, 0.01, 0.02}, 1); err != nil {
		t.Fatal(err)
	} else if in, _ := s.RegionInfo(); in.ID != 2 {
		t.Errorf("the second region placed has id %d, want 2", in.ID)
	}
	s.Step(30)
	checkBooks(t, s, "the second region")
}

// regionChannel is TestRegionInScene's channel with its source and sink; place places
// its region too, as a script's set-up would.
func regionChannel(t *testing.T, place bool) *Scene {
	t.Helper()
	s := channel(t, nil)
	if _, err := s.AddEmitter(Emitter{X: 0.005, Y: 0.005, Z: 0.001, Radius: 0.002, Rate: 2e-7}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddEmitter(Emitter{X: 0.055, Y: 0.005, Z: 0.001, Radius: 0.002, Rate: -1e-7}); err != nil {
		t.Fatal(err)
	}
	if place {
		if _, err := s.PlaceRegion([3]float64{0.021, 0, 0}, [3]float64{0.039, 0.01, 0.02}, 2); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// sceneBits is the scene's state as the region checkpoint tests compare it, as bits:
// every column's exact level, the region's particles (positions, velocities, volumes),
// its id, books and what its sides hold, the scene's volume and books.
func sceneBits(s *Scene) []uint64 {
	var b []uint64
	f64 := func(v ...float64) {
		for _, x := range v {
			b = append(b, math.Float64bits(x))
		}
	}
	all := make([]int, s.sim.Columns().NumColumns())
	for i := range all {
		all[i] = i
	}
	f64(s.sim.Levels(all, nil)...)
	if in, ok := s.RegionInfo(); ok {
		for _, p := range s.rg.g.Liquid().Particles(nil) {
			f64(p.Pos.X, p.Pos.Y, p.Pos.Z, p.Vel.X, p.Vel.Y, p.Vel.Z, p.Volume)
		}
		added, _ := s.rg.g.Liquid().Accounting()
		f64(float64(in.ID), float64(in.Particles), in.Volume, in.In, in.Out, added, s.rg.g.Pending())
	}
	added, removed, _ := s.Accounting()
	f64(s.Volume(), added, removed, s.Stats().Outflow, s.sim.Exchanged(), s.Time())
	return b
}

// runTo steps s in frames of 6 steps until t.
func runTo(t *testing.T, s *Scene, until float64) {
	t.Helper()
	for s.Time() < until {
		s.Step(6)
		if err := s.RegionError(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRegionCheckpoint: the channel with a region through which its flow runs,
// checkpointed at 0.4 s (SaveWorld) and run on to 0.8 s, restored into fresh channels
// and run to 0.8 s, gives the same bits (every column's exact level, the region's
// particles, its books, the scene's volume and books): restored into a set-up that placed
// the region too (the checkpoint's replaces it) and into one that did not (the
// checkpoint's is placed). A checkpoint after the region was removed, restored into a
// set-up that places one, takes it out, and the next region placed continues the ids.
// A region's state cut short is an error naming the region, never a panic.
func TestRegionCheckpoint(t *testing.T) {
	a := regionChannel(t, true)
	runTo(t, a, 0.4)
	w, err := a.SaveWorld(false)
	if err != nil {
		t.Fatal(err)
	}
	if w.Region == nil || w.Region.ID != 1 || w.RegionCount != 1 {
		t.Fatalf("the world's region %v, count %d: want region 1 of 1", w.Region != nil, w.RegionCount)
	}
	t.Logf("at %.3g s: the solver's state %d bytes, the region's %d bytes", a.Time(), len(w.Solver), len(w.Region.State))
	runTo(t, a, 0.8)
	want := sceneBits(a)
	for _, place := range []bool{true, false} {
		b := regionChannel(t, place)
		if _, err := b.RestoreWorld(w); err != nil {
			t.Fatal(err)
		}
		checkBooks(t, b, "restored")
		runTo(t, b, 0.8)
		if !slices.Equal(sceneBits(b), want) {
			t.Fatalf("restored into a set-up that placed the region %v: the state at 0.8 s differs from the run not stopped", place)
		}
	}

	// Removed before the checkpoint: the set-up's region goes, the ids go on.
	a.RemoveRegion()
	a.Step(6)
	w2, err := a.SaveWorld(false)
	if err != nil {
		t.Fatal(err)
	}
	if w2.Region != nil || w2.RegionCount != 1 {
		t.Fatalf("after the removal: region %v, count %d", w2.Region != nil, w2.RegionCount)
	}
	b := regionChannel(t, true)
	if _, err := b.RestoreWorld(w2); err != nil {
		t.Fatal(err)
	}
	if b.HasRegion() || b.sim.Held() != nil {
		t.Fatal("the set-up's region is still in place")
	}
	a.Step(12)
	b.Step(12)
	if !slices.Equal(sceneBits(a), sceneBits(b)) {
		t.Fatal("after the removal: the states differ")
	}
	if in, err := b.PlaceRegion([3]float64{0.02, 0, 0}, [3]float64{0.04, 0.01, 0.02}, 1); err != nil || in.ID != 2 {
		t.Fatalf("the region placed after the resume: id %d (%v), want 2", in.ID, err)
	}

	// A region's state cut short.
	bad := w
	bad.Region = &WorldRegion{ID: 1, State: w.Region.State[:len(w.Region.State)/3]}
	if _, err := regionChannel(t, true).RestoreWorld(bad); err == nil || !strings.Contains(err.Error(), "the 3D region: region checkpoint is truncated") {
		t.Errorf("a region's state cut short: %v", err)
	}
	// The solver's state holds columns and no region comes with it.
	bad.Region = nil
	if _, err := regionChannel(t, false).RestoreWorld(bad); err == nil || !strings.Contains(err.Error(), "no 3D region") {
		t.Errorf("held columns without a region: %v", err)
	}
}

// surfaceSteps is the largest step of the surface along x between a held column (the
// region's over column cells [x0, x1) of every row) and the free one beside it, and
// between two free neighbours: the picture is continuous across the region's sides when
// the first is no larger than the second.
func surfaceSteps(sn *Snapshot, x0, x1 int) (border, free float64) {
	c := sn.Columns
	for j := range c.Ny {
		for i := range c.Nx - 1 {
			a, _ := c.Cell(i, j)
			b, _ := c.Cell(i+1, j)
			d := math.Abs(float64(sn.Height[a]) - float64(sn.Height[b]))
			switch {
			case i == x0-1 || i == x1-1:
				border = max(border, d)
			case i+1 < x0 || i >= x1:
				free = max(free, d)
			}
		}
	}
	return border, free
}

// TestRegionRefused: what a region cannot be placed with, and what the scene cannot do
// while one is in place, are errors that say why and what to do, and change nothing.
func TestRegionRefused(t *testing.T) {
	lo, hi := [3]float64{0.02, 0, 0}, [3]float64{0.04, 0.01, 0.02}
	for _, k := range []struct {
		name   string
		edit   func(*Config)
		before func(*Scene)
		lo, hi [3]float64
		refine int
		want   string
	}{
		{name: "swe", edit: func(c *Config) { c.Method = "swe" }, want: `method is "swe"`},
		{name: "outside", lo: [3]float64{0.05, 0, 0}, hi: [3]float64{0.07, 0.01, 0.02}, want: "reaches out of the domain"},
		{name: "empty", lo: [3]float64{0.02, 0, 0}, hi: [3]float64{0.02, 0.01, 0.02}, want: "the box would be empty along x"},
		{name: "sliver", lo: [3]float64{0.02, 0, 0}, hi: [3]float64{0.02 + 1e-12, 0.01, 0.02}, want: "covers no column cell"},
		{name: "above the floor", lo: [3]float64{0.02, 0, 0.001}, want: "above the floor under the box"},
		{name: "below the liquid", hi: [3]float64{0.04, 0.01, 0.005}, want: "above the box's top"},
		{name: "refine", refine: 33, want: "refine is 33"},
		{name: "too many cells", refine: 32, want: "region cells (refine 32): at most"},
		{name: "open side", edit: func(c *Config) { c.Settings.Solver.Sides[gpusim.SideMinusX] = gpusim.SideOpen }, lo: [3]float64{0.0005, 0, 0}, want: "open minus_x side"},
		{name: "bodies", before: func(s *Scene) {
			b, _ := terrain.Box(terrain.Vec3{X: 0.005, Y: 0.002, Z: 0.006}, terrain.Vec3{X: 0.009, Y: 0.006, Z: 0.01})
			if _, err := s.AddBody(b, 500, nil, nil, nil); err != nil {
				t.Fatal(err)
			}
		}, want: "floating bodies"},
		{name: "source", before: func(s *Scene) {
			if _, err := s.AddEmitter(Emitter{X: 0.03, Y: 0.005, Z: 0.001, Rate: 1e-8}); err != nil {
				t.Fatal(err)
			}
		}, want: "no source or sink may pour into a region's columns"},
	} {
		s := channel(t, k.edit)
		if k.before != nil {
			k.before(s)
		}
		l, h, r := lo, hi, k.refine
		if k.lo != ([3]float64{}) {
			l = k.lo
		}
		if k.hi != ([3]float64{}) {
			h = k.hi
		}
		if r == 0 {
			r = 2
		}
		v := s.Volume()
		if _, err := s.PlaceRegion(l, h, r); err == nil || !strings.Contains(err.Error(), k.want) {
			t.Errorf("%s: %v, want an error with %q", k.name, err, k.want)
		}
		if s.HasRegion() || s.Volume() != v {
			t.Errorf("%s: refused, yet a region is in place or the volume changed", k.name)
		}
	}

	s := channel(t, nil)
	if _, err := s.PlaceRegion(lo, hi, 2); err != nil {
		t.Fatal(err)
	}
	before := s.Settings()
	for _, k := range []struct {
		name string
		do   func() error
		want string
	}{
		{"a second", func() error { _, err := s.PlaceRegion(lo, hi, 2); return err }, "one at a time"},
		{"terrain", func() error { // a lid over the channel from two cells beyond the box on: capped columns
			lid, _ := terrain.Box(terrain.Vec3{X: 0.042, Y: -0.001, Z: 0.02}, terrain.Vec3{X: 0.061, Y: 0.011, Z: 0.031})
			_, _, err := s.SetTerrain(lid)
			return err
		}, "cell (21, 0) lies under a solid (its underside at 0.02 m: an overhang or a roof, where passages may form) within 2 cells of the box"},
		{"fill", func() error { _, err := s.Fill(0.005, 0.005, 0.001, 0.01); return err }, "a fill cannot pour"},
		{"source", func() error { _, err := s.AddEmitter(Emitter{X: 0.03, Y: 0.005, Z: 0.001, Rate: 1e-8}); return err }, "pours into the columns under the region"},
		{"body", func() error {
			b, _ := terrain.Box(terrain.Vec3{X: 0.005, Y: 0.002, Z: 0.006}, terrain.Vec3{X: 0.009, Y: 0.006, Z: 0.01})
			_, err := s.AddBody(b, 500, nil, nil, nil)
			return err
		}, "floating bodies do not enter a region"},
		{"swe", func() error {
			_, err := s.Change(func(st *Settings) { st.Solver.Method = gpusim.MethodSWE })
			return err
		}, "couples to the pipes only"},
		{"gravity", func() error { _, err := s.Change(func(st *Settings) { st.Solver.Gravity = 5 }); return err }, "gravity = 5"},
	} {
		if err := k.do(); err == nil || !strings.Contains(err.Error(), k.want) {
			t.Errorf("with a region, %s: %v, want an error with %q", k.name, err, k.want)
		}
	}
	if s.Settings() != before || !s.HasRegion() {
		t.Error("the refusals changed the settings, or took the region out")
	}
	if _, err := s.Change(func(st *Settings) { st.Solver.Viscosity = 1e-6; st.Solver.Falling = gpusim.FallingOff }); err != nil {
		t.Errorf("a change the region can follow: %v", err)
	}
	s.Step(10)
	checkBooks(t, s, "after the refusals")
}

// TestRegionAirborneDrawn: the region's liquid above its held columns is drawn as liquid
// in the air (regionDrops): the running channel's surface mesh has no vertex far above
// the liquid over the box, and a blob of the region's liquid let go 10 mm above it shows as
// a body of the blob's size there after a step, where the held columns alone (their
// heights, the blob's volume spread over a cell) would show nothing.
func TestRegionAirborneDrawn(t *testing.T) {
	s := channel(t, nil)
	if _, err := s.PlaceRegion([3]float64{0.02, 0, 0}, [3]float64{0.04, 0.01, 0.03}, 2); err != nil {
		t.Fatal(err)
	}
	s.Step(12)
	high := func(m *surface.Mesh, z float64) (n int, lo, hi [3]float64) {
		lo, hi = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		for v := range m.NumVertices() {
			p := m.Positions[3*v : 3*v+3]
			if float64(p[2]) > z && p[0] >= 0.02 && p[0] <= 0.04 { // over the box
				n++
				for a := range 3 {
					lo[a], hi[a] = min(lo[a], float64(p[a])), max(hi[a], float64(p[a]))
				}
			}
		}
		return n, lo, hi
	}
	m, err := s.BuildSurface()
	if err != nil {
		t.Fatal(err)
	}
	if n, lo, hi := high(m, 0.012); n != 0 {
		t.Fatalf("the running channel: %d surface vertices above 12 mm over the box (%v to %v), want none", n, lo, hi)
	}
	var blob []liquid3d.Particle
	const k, sp = 8, 0.25e-3
	for i := range k * k * k {
		x, y, z := i%k, i/k%k, i/(k*k)
		blob = append(blob, liquid3d.Particle{Pos: terrain.Vec3{X: 0.029 + float64(x)*sp, Y: 0.004 + float64(y)*sp, Z: 0.018 + float64(z)*sp},
			Vel: terrain.Vec3{X: 0.1}, Volume: sp * sp * sp})
	}
	if err := s.rg.g.Liquid().AddParticles(blob); err != nil {
		t.Fatal(err)
	}
	s.Step(1)
	m, err = s.BuildSurface()
	if err != nil {
		t.Fatal(err)
	}
	n, lo, hi := high(m, 0.012)
	t.Logf("a step after the blob: %d surface vertices above 12 mm over the box, from %.2f to %.2f mm in x, %.2f to %.2f in y, %.2f to %.2f in z",
		n, lo[0]*1e3, hi[0]*1e3, lo[1]*1e3, hi[1]*1e3, lo[2]*1e3, hi[2]*1e3)
	if n < 20 || lo[0] < 0.027 || hi[0] > 0.033 || lo[1] < 0.002 || hi[1] > 0.008 || lo[2] < 0.015 || hi[2] > 0.022 {
		t.Errorf("the blob of 2 mm at (29-31, 4-6, 18-20) mm is not drawn there: %d vertices above 12 mm, within %v to %v", n, lo, hi)
	}
}

// TestRegionCheckpointAfterTerrain: a checkpoint of a scene whose terrain changed under
// its region (a step raised across the channel, half under the box) resumes: the
// restored scene's terrain is the checkpoint's columns (their outline its solid) and its
// region the checkpoint's, on the solid it ran on (liquid3d's checkpoint carries it as
// sampled); the particles and the books are the saved ones, and the run goes on with the
// books exact.
func TestRegionCheckpointAfterTerrain(t *testing.T) {
	a := regionChannel(t, true)
	runTo(t, a, 0.2)
	step, err := terrain.Box(terrain.Vec3{X: 0.03, Y: -0.001, Z: -0.001}, terrain.Vec3{X: 0.046, Y: 0.011, Z: 0.002})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.SetTerrain(step); err != nil {
		t.Fatal(err)
	}
	runTo(t, a, 0.3)
	w, err := a.SaveWorld(true)
	if err != nil {
		t.Fatal(err)
	}
	b := regionChannel(t, true)
	if _, err := b.RestoreWorld(w); err != nil {
		t.Fatalf("restoring after a terrain change under the region: %v", err)
	}
	checkBooks(t, b, "restored")
	ia, _ := a.RegionInfo()
	ib, _ := b.RegionInfo()
	if ia.Particles != ib.Particles || ia.Volume != ib.Volume || a.Volume() != b.Volume() {
		t.Errorf("restored: %d particles, %.17g m^3 in the region, %.17g in all; saved %d, %.17g, %.17g", ib.Particles, ib.Volume, b.Volume(), ia.Particles, ia.Volume, a.Volume())
	}
	runTo(t, b, 0.5)
	checkBooks(t, b, "0.2 s after the resume")
}
