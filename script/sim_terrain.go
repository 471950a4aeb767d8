package script

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/terrain"
)

// terrainMethods are the sim methods that set the terrain.
func (s *Scenario) terrainMethods() []decl {
	return []decl{
		{"terrain", s.simTerrain, "sim:terrain(solid): the solid the liquid lies on; again mid-run, it moves the liquid aside"},
	}
}

func (s *Scenario) simTerrain(L *lua.LState) int {
	c := s.simCall(L, "terrain")
	sv := c.solidArg(2, "the terrain")
	rej, err := s.setTerrain(sv.solid)
	if err != nil {
		c.raise(err)
	}
	if rej > 0 {
		s.warn(fmt.Sprintf("sim:terrain at t = %.6g s: %.3g m^3 (%.3g ml) of liquid found no room in the new terrain within 8 cells and is booked as rejected", s.now(), rej, rej*1e6))
	}
	return 0
}

// pauseWatchdog stops the watchdog for Go work that is not Lua (extraction, building
// the solver, loading a mesh); the returned func restarts it with the budget left.
// The memory monitor pauses too, and credits what the Go work kept.
func (s *Scenario) pauseWatchdog() (resume func()) {
	wd := s.wd.pause()
	mem := s.mem.pause()
	return func() { mem(); wd() } // a collection in mem() does not count as the script's time
}

// setTerrain sets the scene's terrain (nil: the empty domain), building the solver the
// first time, with the watchdog paused (a heightfield fn's calls are timed one by one).
// It returns the volume that found no room. A heightfield fn's failure comes back as its
// *Error.
func (s *Scenario) setTerrain(solid terrain.Solid) (rejected float64, err error) {
	s.hf.epoch++
	s.hf.err = nil
	resume := s.pauseWatchdog()
	rejected, warnings, err := s.scene.SetTerrain(solid)
	resume()
	if s.hf.err != nil {
		return 0, s.hf.err
	}
	if err != nil {
		return 0, err
	}
	s.warnAll(warnings)
	s.ck.terrainSet(s)
	return rejected, nil
}

// ensureSolver builds the solver on the empty domain if the script has not set a terrain
// yet (sim:fill before sim:terrain, for instance).
func (c call) ensureSolver() {
	if c.s.scene.HasSolver() {
		return
	}
	if _, err := c.s.setTerrain(nil); err != nil {
		c.raise(err)
	}
}
