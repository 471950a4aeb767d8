package scene

import (
	"bytes"
	"fmt"
	"io"

	"github.com/vpbench/vpbench/bodies"
	"github.com/vpbench/vpbench/terrain"
)

// World is the world's half of a scenario checkpoint: what the scene writes and reads
// back (SaveWorld, RestoreWorld). The script keeps the other half (its identity, timers,
// random generator and main's progress) and stores both in one file (docs/checkpoints.md).
type World struct {
	// Settings are the scene's settings. The solver's are the ones Solver restores too;
	// Backend, Workers and the camera stay the resuming run's.
	Settings Settings
	// Columns are the solver's columns, saved only when the terrain changed after the
	// set-up (SaveWorld's columns argument): the fresh load does not build them.
	Columns *terrain.Columns
	// Bodies are the floating bodies' state (nil: none).
	Bodies *bodies.State
	// Meters are the flow meters' totals, in the order made.
	Meters []float64
	// Emitters are the sources and sinks the scene keeps for the sinks' marks (nil in a
	// checkpoint from before the marks).
	Emitters []EmitterState
	// Solver is the solver's whole state (gpusim's checkpoint format): with a region in
	// place, its held columns and what crossed the region's border too.
	Solver []byte
	// Region is the 3D region in place (nil: none), RegionCount the regions placed so far
	// (the next one placed is RegionCount+1).
	Region      *WorldRegion
	RegionCount int
}

// WorldRegion is the 3D region in a World: its id (RegionInfo.ID) and its state (package
// region's checkpoint format: its settings, what its coupling carries, its solver's
// particles and books).
type WorldRegion struct {
	ID    int
	State []byte
}

// Restored says what RestoreWorld could not bring back: the meters and bodies the
// checkpoint has beyond those the fresh set-up made (callbacks made them; they are not
// made again).
type Restored struct {
	DroppedMeters, DroppedBodies int
}

// SaveWorld is the world's state at the current step boundary, after the steps in
// flight. columns saves the solver's columns too (the terrain changed after the set-up).
func (s *Scene) SaveWorld(columns bool) (World, error) {
	s.Sync()
	w := World{Settings: s.Settings(), Bodies: s.BodyStates(), Meters: s.MeterTotals(), Emitters: s.EmitterStates()}
	w.Settings.Surface.Camera = nil // the viewer's, not the world's
	if columns {
		w.Columns = s.Columns()
	}
	var b bytes.Buffer
	if err := s.WriteCheckpoint(&b); err != nil {
		return World{}, err
	}
	w.Solver = b.Bytes()
	w.RegionCount = s.rg.count
	if s.rg.g != nil {
		var rb bytes.Buffer
		if err := s.rg.g.WriteCheckpoint(&rb); err != nil {
			return World{}, err
		}
		w.Region = &WorldRegion{ID: s.rg.id, State: rb.Bytes()}
	}
	return w, nil
}

// RestoreWorld brings a freshly set-up scene to w: a region the set-up placed is taken
// out first (RemoveRegion); then the settings (through Change; Backend, Workers and the
// camera stay this run's), then the checkpoint's columns when it has them, then the
// solver's state, then the checkpoint's region when it has one (placed again over the
// columns the solver's state holds, with its id, and the count of regions placed), then
// the emitters' record, the meters' totals and the bodies. Where the settings, the
// columns or the solver's state are refused, the scene is put back as it was (the
// set-up's settings and terrain; a region the set-up placed is not placed again) and the
// error names the part; a refusal of the region, the meters or the bodies after that
// leaves the scene half restored (the caller ends the run).
func (s *Scene) RestoreWorld(w World) (Restored, error) {
	var r Restored
	s.RemoveRegion() // the set-up's: the checkpoint's, if any, replaces it below
	old := s.Settings()
	if _, err := s.Change(func(st *Settings) {
		keep := *st
		*st = w.Settings
		st.Solver.Backend, st.Solver.Workers = keep.Solver.Backend, keep.Solver.Workers
		st.Surface.Camera = keep.Surface.Camera
	}); err != nil {
		return r, fmt.Errorf("the checkpoint's settings: %v", err)
	}
	undo := func() { _, _ = s.Change(func(st *Settings) { *st = old }) }
	loaded := s.Solid()
	if w.Columns != nil {
		if _, _, err := s.SetColumns(w.Columns); err != nil {
			undo()
			return r, fmt.Errorf("the terrain's columns: %v", err)
		}
	}
	if err := s.ReadCheckpoint(bytes.NewReader(w.Solver)); err != nil {
		if w.Columns != nil {
			_, _, _ = s.SetTerrain(loaded) // the set-up's terrain again
		}
		undo()
		return r, fmt.Errorf("the solver's state: %v", err)
	}
	s.Warnings() // the original run warned them
	s.rg.count = w.RegionCount
	if w.Region != nil {
		if err := s.restoreRegion(w.Region); err != nil {
			return r, fmt.Errorf("the 3D region: %v", err)
		}
	} else if held := s.sim.Held(); held != nil {
		return r, fmt.Errorf("checkpoint is corrupt: the solver holds %d columns, and it has no 3D region", len(held))
	}
	if w.Emitters != nil {
		s.RestoreEmitters(w.Emitters)
	}
	if n := s.Meters(); len(w.Meters) < n {
		return r, fmt.Errorf("the checkpoint has %d flow meters, the script's set-up made %d", len(w.Meters), n)
	} else if err := s.SetMeterTotals(w.Meters[:n]); err != nil {
		return r, fmt.Errorf("checkpoint is corrupt: %v", err)
	} else {
		r.DroppedMeters = len(w.Meters) - n
	}
	dropped, err := s.RestoreBodies(w.Bodies)
	if err != nil {
		return r, fmt.Errorf("the floating bodies: %v", err)
	}
	r.DroppedBodies = dropped
	return r, nil
}

// WriteCheckpoint writes the solver's whole state (gpusim.Sim.WriteCheckpoint) after
// waiting for the steps in flight. The scene's own settings (the surface's, the liquid's)
// are not in it: SaveWorld keeps them beside it.
func (s *Scene) WriteCheckpoint(w io.Writer) error {
	s.Sync()
	return s.sim.WriteCheckpoint(w)
}

// ReadCheckpoint replaces the solver's state with a checkpoint's (gpusim.Sim.ReadCheckpoint:
// the same terrain, or an error naming the mismatch and nothing changed). The solver's
// settings become the checkpoint's; the caller brings the scene's settings in line first
// (Change), so that the scene and the solver agree (RestoreWorld does). The snapshot and
// the time follow; the waves start over with none (they are not in checkpoints). It is
// refused while a region is in place (RestoreWorld takes it out first); a checkpoint of
// a scene with a region holds its columns, and the region is RestoreWorld's to place
// again over them.
func (s *Scene) ReadCheckpoint(r io.Reader) error {
	s.Sync()
	if s.rg.g != nil {
		return fmt.Errorf("a 3D region is in place: remove it (RemoveRegion) before reading the solver's checkpoint")
	}
	err := s.sim.ReadCheckpoint(r)
	s.stale()
	s.storeTime()
	if s.waves.sys != nil { // waves are not in checkpoints: the resumed run starts with none
		s.waves.sys.Close()
		s.waves.sys = nil
		s.sim.Impacts(nil)
		if werr := s.syncWaves(); err == nil {
			err = werr
		}
	}
	return err
}
