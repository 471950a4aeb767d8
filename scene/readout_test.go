package scene

import (
	"strings"
	"testing"
)

// TestReadIsTheScenesOwn: Read fills the UI's figures from the scene's own snapshot (the
// same one Snapshot gives, not a copy), its stats and settings, and its meters; a second
// Read reuses the meters' slices rather than growing them.
func TestReadIsTheScenesOwn(t *testing.T) {
	s := pool(t, nil)
	var r Readout
	s.Read(&r)
	if r.Snap != s.Snapshot() {
		t.Error("Read's snapshot is not the scene's own")
	}
	if r.Snap.Steps != s.Steps() || r.Stats.Steps != s.Steps() || r.Snap.Volume != s.Volume() {
		t.Errorf("read step %d (stats %d), volume %v; the scene's %d, %v", r.Snap.Steps, r.Stats.Steps, r.Snap.Volume, s.Steps(), s.Volume())
	}
	if r.Settings.Viscosity != 3e-6 || len(r.MeterRates) != 1 || len(r.MeterTotals) != 1 {
		t.Errorf("settings' viscosity %g (want 3e-6), meters %d/%d (want 1)", r.Settings.Viscosity, len(r.MeterRates), len(r.MeterTotals))
	}
	if tot, _ := s.MeterTotal(0); r.MeterTotals[0] != tot {
		t.Errorf("meter total %v read, %v the scene's", r.MeterTotals[0], tot)
	}
	before := &r.MeterTotals[0]
	s.Step(5)
	s.Read(&r)
	if &r.MeterTotals[0] != before {
		t.Error("a second Read made new meter slices")
	}
	if r.Snap.Steps != s.Steps() {
		t.Errorf("after 5 more steps the readout's step is %d, the scene's %d", r.Snap.Steps, s.Steps())
	}
}

// TestMethodOverride: Config.Method (--method) holds through New and every Change, and a
// bad one is refused naming where it came from.
func TestMethodOverride(t *testing.T) {
	s := small(t, func(c *Config) { c.Method = "swe" })
	if _, err := s.EnsureSolver(); err != nil {
		t.Fatal(err)
	}
	if m := s.SolverSettings().Method; m != MethodSWE {
		t.Fatalf("method %v after New, want the override's swe", m)
	}
	if _, err := s.Change(func(st *Settings) { st.Solver.Method = MethodPipes }); err != nil {
		t.Fatal(err)
	}
	if m := s.SolverSettings().Method; m != MethodSWE {
		t.Errorf("method %v after a change to pipes, want the override's swe", m)
	}
	cfg := Config{Name: "bad", Domain: s.Domain(), Layers: 1, Settings: DefaultSettings(), Workers: -1, Method: "vof"}
	if _, _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "set from outside the script") {
		t.Errorf("method \"vof\": error %v", err)
	}
}

// TestReadRegion: Read carries the region in place (its RegionInfo) and says when there
// is none; RegionClock, the engine's per-frame read, agrees with RegionInfo's ID, steps
// and wall time.
func TestReadRegion(t *testing.T) {
	s := channel(t, nil)
	var r Readout
	s.Read(&r)
	if r.HasRegion || r.Region != (RegionInfo{}) {
		t.Fatalf("no region, yet read %v, %+v", r.HasRegion, r.Region)
	}
	if _, _, _, ok := s.RegionClock(); ok {
		t.Fatal("RegionClock says a region is in place without one")
	}
	if _, err := s.PlaceRegion([3]float64{0.02, 0, 0}, [3]float64{0.04, 0.01, 0.02}, 2); err != nil {
		t.Fatal(err)
	}
	s.Step(3)
	s.Read(&r)
	in, _ := s.RegionInfo()
	if !r.HasRegion || r.Region.NX != 20 || r.Region.NY != 10 || r.Region.NZ != 20 || r.Region.Particles != in.Particles || r.Region.Particles == 0 {
		t.Errorf("read %v, %+v; the region is %+v", r.HasRegion, r.Region, in)
	}
	id, steps, wall, ok := s.RegionClock()
	if !ok || id != in.ID || steps != in.Steps || wall != in.StepWall || steps != 3 || wall <= 0 {
		t.Errorf("RegionClock %d, %d steps, %v (ok %v); RegionInfo %d, %d steps, %v", id, steps, wall, ok, in.ID, in.Steps, in.StepWall)
	}
	s.RemoveRegion()
	s.Read(&r)
	if r.HasRegion {
		t.Error("removed, yet read as in place")
	}
}
