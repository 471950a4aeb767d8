package scene

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
)

// TestSinksMarks: the scene keeps the sources and sinks added through it and lists the
// sinks' marks (Sinks): a sink's, on its column's floor, its radius at least half a
// cell; not a source's; a source whose rate is set negative becomes a sink and gets one;
// a sink stopped for good loses its mark; a sink whose stop time has come has none, one
// not yet started has one; the record goes through EmitterStates and RestoreEmitters.
func TestSinksMarks(t *testing.T) {
	s := small(t, nil)
	if _, err := s.EnsureSolver(); err != nil {
		t.Fatal(err)
	}
	add := func(e gpusim.Emitter) int {
		t.Helper()
		id, err := s.AddEmitter(e)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	src := add(gpusim.Emitter{X: 0.002, Y: 0.002, Z: 0.001, Radius: 0.001, Rate: 1e-9})
	sink := add(gpusim.Emitter{X: 0.0055, Y: 0.0045, Z: 0.001, Radius: 0.0002, Rate: -1e-9, Start: 5})
	add(gpusim.Emitter{X: 0.008, Y: 0.008, Z: 0.001, Radius: 0.002, Rate: -1e-9, Stop: 1e-9}) // over after a step
	s.Step(1)
	got := s.Sinks()
	if len(got) != 1 || got[0].X != 0.0055 || got[0].Y != 0.0045 || got[0].Radius != 0.0005 || math.IsNaN(got[0].Z) || got[0].Z > 0.001 {
		t.Fatalf("marks %+v: want one, the sink not yet started at (5.5, 4.5) mm, radius half a cell, on the floor", got)
	}
	if err := s.SetEmitterRate(src, -2e-9); err != nil {
		t.Fatal(err)
	}
	if got := s.Sinks(); len(got) != 2 || got[0].X != 0.002 || got[0].Radius != 0.001 {
		t.Fatalf("after the source's rate is set negative: marks %+v, want it first, radius 1 mm", got)
	}
	saved := s.EmitterStates()
	if err := s.StopEmitter(sink); err != nil {
		t.Fatal(err)
	}
	if got := s.Sinks(); len(got) != 1 || got[0].X != 0.002 {
		t.Fatalf("after the sink is stopped: marks %+v, want the other only", got)
	}
	s.RestoreEmitters(saved)
	if got := s.Sinks(); len(got) != 2 {
		t.Fatalf("after the record is restored: %d marks, want 2", len(got))
	}
}
