package scene

import (
	"fmt"
	"math"
	"strings"

	"github.com/vpbench/vpbench/gpusim"
)

// The sources and sinks the scene's script adds go through the scene (AddEmitter,
// SetEmitterRate, StopEmitter), which keeps what they are beside the solver: the solver
// publishes no list of them, and the viewers draw a mark where a sink takes liquid
// (Sinks), so that the dry disc it leaves has a reason (docs/preview.md, "Sinks").

// EmitterState is what the scene keeps of a source or sink: the solver's emitter (its
// place, radius, signed rate and schedule), its id, and whether it was stopped for good.
// Exported for checkpoints (EmitterStates, RestoreEmitters).
type EmitterState struct {
	ID                    int
	X, Y, Z, Radius, Rate float64
	Start, Stop           float64
	Stopped               bool
}

// Sink is a sink's mark, for the viewers: the centre of the disc it takes liquid from,
// on the floor there (Z: the base of the column its point picks at its centre), and the
// disc's radius (at least half a cell: a smaller sink takes the one cell holding its
// centre).
type Sink struct {
	X, Y, Z, Radius float64
}

// sinkState is the scene's record of its emitters, and Sinks's reused list.
type sinkState struct {
	emitters []EmitterState
	marks    []Sink
}

// AddEmitter adds a source (Rate > 0) or sink (Rate < 0) to the solver
// (gpusim.Sim.AddEmitter) and keeps it for its mark; it returns the solver's id.
func (s *Scene) AddEmitter(e gpusim.Emitter) (int, error) {
	if s.sim == nil {
		return 0, fmt.Errorf("%s: the scene has no terrain yet", s.name)
	}
	id, err := s.sim.AddEmitter(e)
	if err != nil && s.rg.g != nil && strings.Contains(err.Error(), "is held") {
		return 0, fmt.Errorf("at = {%g, %g, %g} pours into the columns under the region, which are its own: a source or sink stays off the region's box, for now (a falling source, falls = true, or a spray may pour into it)", e.X, e.Y, e.Z)
	}
	if err != nil {
		return 0, err
	}
	stop := e.Stop
	if stop == 0 {
		stop = math.Inf(1) // as the solver reads it
	}
	s.sinks.emitters = append(s.sinks.emitters, EmitterState{ID: id, X: e.X, Y: e.Y, Z: e.Z, Radius: e.Radius,
		Rate: e.Rate, Start: e.Start, Stop: stop})
	return id, nil
}

// SetEmitterRate changes an emitter's rate (gpusim.Sim.SetEmitterRate; keep the sign).
func (s *Scene) SetEmitterRate(id int, rate float64) error {
	if err := s.sim.SetEmitterRate(id, rate); err != nil {
		return err
	}
	if e := s.emitter(id); e != nil {
		e.Rate = rate
	}
	return nil
}

// SetEmitterLevel changes the level an emitter made with a level holds
// (gpusim.Sim.SetEmitterLevel). The solver's checkpoint carries it.
func (s *Scene) SetEmitterLevel(id int, level float64) error {
	return s.sim.SetEmitterLevel(id, level)
}

// StopEmitter stops an emitter for good (gpusim.Sim.StopEmitter); a sink's mark goes.
func (s *Scene) StopEmitter(id int) error {
	if err := s.sim.StopEmitter(id); err != nil {
		return err
	}
	if e := s.emitter(id); e != nil {
		e.Stopped = true
	}
	return nil
}

func (s *Scene) emitter(id int) *EmitterState {
	for i := range s.sinks.emitters {
		if s.sinks.emitters[i].ID == id {
			return &s.sinks.emitters[i]
		}
	}
	return nil
}

// EmitterStates returns a copy of the emitters the scene keeps (AddEmitter), in the
// order added, for a checkpoint.
func (s *Scene) EmitterStates() []EmitterState {
	return append([]EmitterState(nil), s.sinks.emitters...)
}

// RestoreEmitters replaces the emitters the scene keeps with a checkpoint's: the solver's
// checkpoint restores its own emitters (those its callbacks added too), and the scene's
// record of them follows.
func (s *Scene) RestoreEmitters(st []EmitterState) {
	s.sinks.emitters = append(s.sinks.emitters[:0], st...)
}

// Sinks returns the marks of the sinks in the scene now: every sink added (AddEmitter
// with a negative rate, or a rate set negative since) that was not stopped for good and
// whose stop time has not come, from when it is added (a drain is there before it
// opens). The slice is the scene's, valid until the next call; it is in the order added.
func (s *Scene) Sinks() []Sink {
	s.sinks.marks = s.sinks.marks[:0]
	if s.sim == nil {
		return s.sinks.marks
	}
	cols := s.sim.Columns()
	t := s.Time()
	for _, e := range s.sinks.emitters {
		if !(e.Rate < 0) || e.Stopped || t >= e.Stop {
			continue
		}
		cx, cy, ok := cols.CellAt(e.X, e.Y)
		if !ok {
			continue
		}
		c := cols.ColumnAt(cx, cy, e.Z)
		if c < 0 {
			continue // the terrain changed: solid there now
		}
		s.sinks.marks = append(s.sinks.marks, Sink{X: e.X, Y: e.Y, Z: float64(cols.Base[c]), Radius: max(e.Radius, cols.Dx/2)})
	}
	return s.sinks.marks
}
