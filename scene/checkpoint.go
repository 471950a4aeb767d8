package scene

import (
	"io"
)

// WriteCheckpoint writes the solver's whole state (gpusim.Sim.WriteCheckpoint) after
// waiting for the steps in flight. The scene's own settings (the surface's, the liquid's)
// are not in it: script.Scenario's checkpoint saves them beside it (docs/checkpoints.md).
func (s *Scene) WriteCheckpoint(w io.Writer) error {
	s.Sync()
	return s.sim.WriteCheckpoint(w)
}

// ReadCheckpoint replaces the solver's state with a checkpoint's (gpusim.Sim.ReadCheckpoint:
// the same terrain, or an error naming the mismatch and nothing changed). The solver's
// settings become the checkpoint's; the caller brings the scene's settings in line first
// (Change), so that the scene and the solver agree. The snapshot and the time follow;
// the waves start over with none (they are not in checkpoints).
func (s *Scene) ReadCheckpoint(r io.Reader) error {
	s.Sync()
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
