package scene

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// pool is the small scene with a floor 2 mm up, liquid filled over it and a parcel thrown
// in, a flow meter and a viscosity of its own, stepped 200 times.
func pool(t *testing.T, edit func(*Config)) *Scene {
	t.Helper()
	s := small(t, edit)
	floor, err := terrain.Box(terrain.Vec3{}, terrain.Vec3{X: 0.01, Y: 0.01, Z: 0.002})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.SetTerrain(floor); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(func(st *Settings) { st.Solver.Viscosity = 3e-6 }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddMeter(Meter{X1: 0.005, Y1: 0, X2: 0.005, Y2: 0.01, Zmin: 0, Zmax: 0.01}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fill(0.002, 0.002, 0.003, 0.004); err != nil {
		t.Fatal(err)
	}
	if err := s.Drop(0.002, 0.005, 0.006, 2e-8, 0.2, 0, 0); err != nil { // a parcel thrown across the meter
		t.Fatal(err)
	}
	s.Step(200)
	return s
}

// TestWorldRoundTrip: a fresh scene restored from SaveWorld takes the saved settings
// (not the resuming run's workers), time, steps, liquid and meters, and steps on to the
// same heights as the scene it was saved from.
func TestWorldRoundTrip(t *testing.T) {
	a := pool(t, nil)
	w, err := a.SaveWorld(false)
	if err != nil {
		t.Fatal(err)
	}
	if w.Columns != nil || len(w.Meters) != 1 || len(w.Solver) == 0 {
		t.Fatalf("saved world: columns %v, %d meters, %d solver bytes", w.Columns != nil, len(w.Meters), len(w.Solver))
	}
	b := small(t, func(c *Config) { c.Workers = 2 })
	floor, _ := terrain.Box(terrain.Vec3{}, terrain.Vec3{X: 0.01, Y: 0.01, Z: 0.002})
	if _, _, err := b.SetTerrain(floor); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddMeter(Meter{X1: 0.005, Y1: 0, X2: 0.005, Y2: 0.01, Zmin: 0, Zmax: 0.01}); err != nil {
		t.Fatal(err)
	}
	r, err := b.RestoreWorld(w)
	if err != nil {
		t.Fatal(err)
	}
	if r != (Restored{}) {
		t.Errorf("dropped %+v, want nothing", r)
	}
	if b.Settings().Solver.Viscosity != 3e-6 || b.Settings().Solver.Workers != 2 {
		t.Errorf("viscosity %g (want the saved 3e-6), workers %d (want this run's 2)", b.Settings().Solver.Viscosity, b.Settings().Solver.Workers)
	}
	if b.Steps() != a.Steps() || b.Time() != a.Time() || b.Volume() != a.Volume() {
		t.Errorf("restored step %d t %v volume %v, saved %d %v %v", b.Steps(), b.Time(), b.Volume(), a.Steps(), a.Time(), a.Volume())
	}
	ta, _ := a.MeterTotal(0)
	tb, _ := b.MeterTotal(0)
	if ta != tb || ta == 0 {
		t.Errorf("meter totals %v restored, %v saved (want equal, not zero)", tb, ta)
	}
	a.Step(20)
	b.Step(20)
	ha, hb := a.Heights(nil), b.Heights(nil)
	for i := range ha {
		if ha[i] != hb[i] {
			t.Fatalf("after 20 more steps, column %d: %v restored, %v saved", i, hb[i], ha[i])
		}
	}
}

// TestWorldRestoreRefusals: a world of another terrain is refused, naming the solver's
// state, and the scene keeps its own settings and liquid; a world with more meters than
// the set-up made restores and counts the ones dropped; fewer is an error.
func TestWorldRestoreRefusals(t *testing.T) {
	a := pool(t, nil)
	w, err := a.SaveWorld(false)
	if err != nil {
		t.Fatal(err)
	}
	other := small(t, nil) // no floor: another terrain
	if _, err := other.EnsureSolver(); err != nil {
		t.Fatal(err)
	}
	v0, before := other.Volume(), other.Settings()
	if _, err := other.RestoreWorld(w); err == nil || !strings.Contains(err.Error(), "the solver's state") {
		t.Errorf("another terrain: error %v, want one naming the solver's state", err)
	}
	if other.Settings() != before || other.Volume() != v0 {
		t.Errorf("a refused world changed the scene: settings %v, volume %v -> %v", other.Settings() != before, v0, other.Volume())
	}

	floor, _ := terrain.Box(terrain.Vec3{}, terrain.Vec3{X: 0.01, Y: 0.01, Z: 0.002})
	none := small(t, nil) // the set-up made no meter
	if _, _, err := none.SetTerrain(floor); err != nil {
		t.Fatal(err)
	}
	if r, err := none.RestoreWorld(w); err != nil || r.DroppedMeters != 1 {
		t.Errorf("one meter more in the world: dropped %+v, error %v", r, err)
	}
	two := small(t, nil)
	if _, _, err := two.SetTerrain(floor); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := two.AddMeter(Meter{X1: 0.005, Y1: 0, X2: 0.005, Y2: 0.01, Zmax: 0.01}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := two.RestoreWorld(w); err == nil || !strings.Contains(err.Error(), "1 flow meters") {
		t.Errorf("a meter fewer in the world: error %v", err)
	}
}

// TestWorldWithColumns: a world saved with the columns restores them onto a scene set up
// on another terrain (the terrain changed mid-run), and the liquid with them.
func TestWorldWithColumns(t *testing.T) {
	a := pool(t, nil)
	w, err := a.SaveWorld(true)
	if err != nil || w.Columns == nil {
		t.Fatalf("columns saved %v, error %v", w.Columns != nil, err)
	}
	b := small(t, nil)
	if _, err := b.EnsureSolver(); err != nil { // the empty domain: other columns
		t.Fatal(err)
	}
	if _, err := b.AddMeter(Meter{X1: 0.005, Y1: 0, X2: 0.005, Y2: 0.01, Zmax: 0.01}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.RestoreWorld(w); err != nil {
		t.Fatal(err)
	}
	same := fmt.Sprint(b.Columns().Base, b.Columns().Max) == fmt.Sprint(a.Columns().Base, a.Columns().Max)
	if b.Volume() != a.Volume() || !same {
		t.Errorf("volume %v (saved %v); columns the saved ones %v", b.Volume(), a.Volume(), same)
	}
}
