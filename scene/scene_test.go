package scene

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// small is a 10 x 10 cell domain of 1 mm cells, one worker.
func small(t *testing.T, edit func(*Config)) *Scene {
	t.Helper()
	cfg := Config{Name: "small", Domain: terrain.Domain{SizeX: 0.01, SizeY: 0.01, Height: 0.01, Dx: 0.001}, Layers: 2,
		Settings: DefaultSettings(), Workers: -1}
	cfg.Settings.Solver.Workers = 1
	if edit != nil {
		edit(&cfg)
	}
	s, _, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestChangeIsAllOrNothing: a change with any bad value (the solver's, the surface's, the
// liquid's) changes nothing, before and after the solver exists; a good one changes the
// solver too.
func TestChangeIsAllOrNothing(t *testing.T) {
	s := small(t, nil)
	for _, withSolver := range []bool{false, true} {
		if withSolver {
			if _, err := s.EnsureSolver(); err != nil {
				t.Fatal(err)
			}
		}
		before := s.Settings()
		for _, bad := range []struct {
			name string
			edit func(*Settings)
			want string
		}{
			{"viscosity", func(st *Settings) { st.Solver.Viscosity = -1; st.Liquid, _ = NamedLiquid("blood") }, "viscosity is -1"},
			{"depth_max", func(st *Settings) { st.Solver.Viscosity = 1e-5; st.Surface.DepthMax = 0 }, "DepthMax"},
			{"colour", func(st *Settings) { st.Solver.Damping = 0.1; st.Liquid.Color[2] = 2 }, "liquid[3] is 2"},
			{"absorption", func(st *Settings) { st.Liquid.Absorption[0] = -1 }, "absorption[1] is -1"},
		} {
			_, err := s.Change(bad.edit)
			if err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("solver %v, %s: error %v, want one naming %q", withSolver, bad.name, err, bad.want)
			}
			if s.Settings() != before {
				t.Errorf("solver %v, %s: a failed change changed the settings", withSolver, bad.name)
			}
			if withSolver && s.SolverSettings() != before.Solver {
				t.Errorf("solver %v, %s: a failed change changed the solver's settings", withSolver, bad.name)
			}
		}
		if _, err := s.Change(func(st *Settings) { st.Solver.Viscosity = 2e-5; st.Surface.Meniscus = false }); err != nil {
			t.Fatal(err)
		}
		if got := s.Settings(); got.Solver.Viscosity != 2e-5 || got.Surface.Meniscus {
			t.Errorf("solver %v: settings after a good change: %+v", withSolver, got)
		}
		if withSolver && s.SolverSettings().Viscosity != 2e-5 {
			t.Errorf("the solver's viscosity is %g after the change, want 2e-5", s.SolverSettings().Viscosity)
		}
	}
}

// TestChangeWorkersOverride: Config.Workers wins over every change, as --workers does
// over vp.sim and sim:set.
func TestChangeWorkersOverride(t *testing.T) {
	s := small(t, func(c *Config) { c.Workers = 1; c.Settings.Solver.Workers = 3 })
	if _, err := s.EnsureSolver(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(func(st *Settings) { st.Solver.Workers = 2 }); err != nil {
		t.Fatal(err)
	}
	if got, sim := s.Settings().Solver.Workers, s.Stats().Workers; got != 1 || sim != 1 {
		t.Errorf("workers %d (solver %d), want the override's 1", got, sim)
	}
}

// TestChangeWarnings: a dt above the stability limit warns once the solver exists, on
// each change of the solver's settings (as the solver says it); a change of the surface
// or the liquid's look alone does not repeat it; more workers than cores warn when they change.
func TestChangeWarnings(t *testing.T) {
	s := small(t, nil)
	lim := gpusim.StableDt(0.001, 9.81)
	if _, err := s.EnsureSolver(); err != nil {
		t.Fatal(err)
	}
	w, err := s.Change(func(st *Settings) { st.Solver.Dt = 2 * lim })
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "above the stability limit") {
		t.Fatalf("dt = 2 x the limit: warnings %q, error %v", w, err)
	}
	// (A named liquid brings its surface tension, which is the solver's with capillarity
	// on: its colour alone is the look.)
	if w, _ := s.Change(func(st *Settings) { st.Liquid.Color = [3]float32{0.4, 0.2, 0.1} }); len(w) != 0 {
		t.Errorf("a change of the liquid's colour alone warned %q", w)
	}
	n := runtime.NumCPU() + 1
	w, _ = s.Change(func(st *Settings) { st.Solver.Dt = 0; st.Solver.Workers = n })
	if len(w) != 1 || !strings.Contains(w[0], "more than the") {
		t.Errorf("workers = cores + 1: warnings %q", w)
	}
	if w, _ := s.Change(func(st *Settings) { st.Solver.Viscosity = 1e-5 }); len(w) != 0 {
		t.Errorf("workers unchanged, warned again: %q", w)
	}
}

// TestNewValidates: New refuses a bad domain, a grid too large for the machine and bad
// settings, naming the field, before it allocates the solver.
func TestNewValidates(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Domain.Dx = 0 }, "dx is 0"},
		{func(c *Config) { c.Layers = 0 }, "layers is 0"},
		{func(c *Config) { c.Domain = terrain.Domain{SizeX: 1000, SizeY: 1000, Height: 1, Dx: 1e-5} }, "make a grid too large for this machine"},
		{func(c *Config) { c.Settings.Solver.Gravity = 0 }, "gravity is 0"},
		{func(c *Config) { c.Settings.Liquid.Color[0] = -0.5 }, "liquid[1] is -0.5"},
	} {
		cfg := Config{Name: "bad", Domain: terrain.Domain{SizeX: 0.01, SizeY: 0.01, Height: 0.01, Dx: 0.001}, Layers: 1,
			Settings: DefaultSettings(), Workers: -1}
		tc.edit(&cfg)
		if _, _, err := New(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one naming %q", err, tc.want)
		}
	}
}

// TestViewLeavesTheSettings: the viewer's camera and meniscus switch reach the surface
// builder and leave the scenario's settings alone; taking the view away restores them.
func TestViewLeavesTheSettings(t *testing.T) {
	s := small(t, nil)
	floor, _ := terrain.Plane(terrain.Vec3{Z: 0.001}, terrain.Vec3{Z: 1})
	if _, _, err := s.SetTerrain(floor); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fill(0.005, 0.005, 0.002, 0.003); err != nil {
		t.Fatal(err)
	}
	build := func() (meniscus bool, eye *[3]float64) {
		if _, err := s.BuildSurface(); err != nil {
			t.Fatal(err)
		}
		b, _ := s.SurfaceBuilder()
		return b.Settings().Meniscus, b.Settings().Camera
	}
	off := false
	s.SetView(View{Eye: &[3]float64{0.005, -0.02, 0.03}, Meniscus: &off})
	if m, eye := build(); m || eye == nil || *eye != [3]float64{0.005, -0.02, 0.03} {
		t.Errorf("with the view: meniscus %v, eye %v", m, eye)
	}
	if st := s.Settings().Surface; !st.Meniscus || st.Camera != nil {
		t.Errorf("the view changed the scenario's surface settings: %+v", st)
	}
	s.SetView(View{})
	if m, eye := build(); !m || eye != nil {
		t.Errorf("view taken away: meniscus %v, eye %v, want the scenario's (on, none)", m, eye)
	}
}

// TestTerrainChangeKeepsVolume: a terrain change hands the solver new columns, the
// liquid keeps its volume, the surface follows (a new terrain mesh version) and the
// snapshot is the new state's.
func TestTerrainChangeKeepsVolume(t *testing.T) {
	s := small(t, nil)
	floor, _ := terrain.Plane(terrain.Vec3{Z: 0.001}, terrain.Vec3{Z: 1})
	if _, _, err := s.SetTerrain(floor); err != nil {
		t.Fatal(err)
	}
	added, err := s.Fill(0.005, 0.005, 0.002, 0.004)
	if err != nil || added <= 0 {
		t.Fatalf("fill: %g, %v", added, err)
	}
	s.Step(5)
	_, v1, _ := s.TerrainMesh()
	if got := s.Snapshot().Volume; math.Abs(got-added) > 1e-9*added {
		t.Errorf("volume %g after 5 steps, want %g", got, added)
	}
	if s.Time() != s.sim.Time() || s.Time() <= 0 {
		t.Errorf("Time %g, the solver's %g", s.Time(), s.sim.Time())
	}
	block, _ := terrain.Box(terrain.Vec3{X: 0.004, Y: 0.004}, terrain.Vec3{X: 0.006, Y: 0.006, Z: 0.003})
	both, _ := terrain.Union(floor, block)
	rejected, _, err := s.SetTerrain(both)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Snapshot().Volume; math.Abs(got+rejected-added) > 1e-9*added {
		t.Errorf("volume %g + rejected %g after the terrain change, want %g", got, rejected, added)
	}
	if _, v2, _ := s.TerrainMesh(); v2 == v1 {
		t.Errorf("the terrain mesh version stayed %d across a terrain change", v1)
	}
}

// TestSetViewAllocatesNothing: the run loop sets the view every frame.
func TestSetViewAllocatesNothing(t *testing.T) {
	s := small(t, nil)
	eye, on := [3]float64{1, 2, 3}, true
	if n := testing.AllocsPerRun(100, func() {
		s.SetView(View{Eye: &eye, Meniscus: &on})
		_ = s.surfaceSettings()
	}); n != 0 {
		t.Errorf("%g allocations a frame", n)
	}
}
