package script

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/scene"
)

// The sim object vp.sim returns: its methods are declared by concept, each file beside
// the Go code that does the work (sim_terrain.go, sim_sources.go, sim_settings.go,
// sim_spray.go, sim_time.go, sim_queries.go, sim_output.go, sim_region.go, ...); simMethods is their union.

// simMethods are the sim object's methods.
func (s *Scenario) simMethods() []decl {
	return decls(s.terrainMethods(), s.sourceMethods(), s.sprayMethods(), s.bodyMethods(), s.flowMethods(), s.settingsMethods(), s.timeMethods(), s.queryMethods(), s.waveMethods(), s.outputMethods(), s.checkpointMethods(), s.reportMethods(), s.regionMethods())
}

// simCall starts a sim method: it checks self and that no heightfield fn is running.
func (s *Scenario) simCall(L *lua.LState, name string) call {
	c := call{s, L, "sim:" + name}
	if ud, ok := L.Get(1).(*lua.LUserData); !ok || ud.Value != s {
		c.fail("call it with a colon: sim:%s(...) (the first argument is %s, not the sim)", name, typeName(L.Get(1)))
	}
	c.notInHeightfield()
	return c
}

// snapshot is the solver's state now (copied once per step boundary).
func (s *Scenario) snapshot() *scene.Snapshot { return s.scene.Snapshot() }

// now is the simulated time (0 before the solver exists).
func (s *Scenario) now() float64 {
	if s.scene == nil || !s.scene.HasSolver() {
		return 0
	}
	return s.scene.Time()
}

// domainString describes the grid's extent.
func (s *Scenario) domainString() string {
	c := s.scene.Columns()
	return fmt.Sprintf("[0, %s] x [0, %s]", fmtNum(float64(c.Nx)*c.Dx), fmtNum(float64(c.Ny)*c.Dx))
}

// domainSize describes the grid's extent for a message: "0.1 x 0.1 m domain".
func (s *Scenario) domainSize() string {
	c := s.scene.Columns()
	return fmt.Sprintf("%s x %s m domain", fmtNum(float64(c.Nx)*c.Dx), fmtNum(float64(c.Ny)*c.Dx))
}

// xyArgs reads (x, y) from arguments 2 and 3 and finds the cell there.
func (c call) xyArgs() (cx, cy int) {
	x := c.number("x", c.L.Get(2))
	y := c.number("y", c.L.Get(3))
	c.ensureSolver()
	cx, cy, ok := c.s.scene.Columns().CellAt(x, y)
	if !ok {
		c.fail("(x, y) = (%s, %s) is outside the domain %s: lengths are in metres", fmtNum(x), fmtNum(y), c.s.domainString())
	}
	return cx, cy
}

// function checks that argument n is a function.
func (c call) function(n int) *lua.LFunction {
	v := c.L.Get(n)
	fn, ok := v.(*lua.LFunction)
	if !ok {
		c.fail("fn is %s, want a function", typeName(v))
	}
	return fn
}
