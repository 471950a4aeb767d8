package script

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// waveMethods are the sim methods of the waves and the flow (docs/waves.md): an impact
// from the script, and reads of the waves' field and the liquid's velocity.
func (s *Scenario) waveMethods() []decl {
	return []decl{
		{"wave", s.simWave, "sim:wave{at = {x, y, z}, amplitude = m, radius = m}: a ring of waves on the liquid at that point, now"},
		{"wave_height", s.simWaveHeight, "sim:wave_height(x, y) -> m: the waves' displacement of the topmost liquid surface at (x, y)"},
		{"velocity", s.simVelocity, "sim:velocity(x, y) -> vx, vy: the topmost wet column's depth-averaged velocity at (x, y), m/s"},
	}
}

func (s *Scenario) simWave(L *lua.LState) int {
	c := s.simCall(L, "wave")
	t := c.table(2, "{at = {x, y, z}, amplitude = m, radius = m}")
	c.keys(t, "at", "amplitude", "radius")
	at := c.vec(t, "at", 3)
	amp := c.num(t, "amplitude", numField{required: true, want: "a crest height in m"})
	r := c.num(t, "radius", numField{def: 0, hasMin: true, min: 0, unit: "m"})
	c.ensureSolver()
	c.atInDomain(at)
	if err := s.scene.Wave(at[0], at[1], at[2], amp, r); err != nil {
		c.fail("%s", strings.TrimPrefix(err.Error(), "waves: "))
	}
	return 0
}

func (s *Scenario) simWaveHeight(L *lua.LState) int {
	c := s.simCall(L, "wave_height")
	x := c.number("x", L.Get(2))
	y := c.number("y", L.Get(3))
	c.xyArgs()
	L.Push(lua.LNumber(s.scene.WaveHeight(x, y)))
	return 1
}

func (s *Scenario) simVelocity(L *lua.LState) int {
	c := s.simCall(L, "velocity")
	x := c.number("x", L.Get(2))
	y := c.number("y", L.Get(3))
	c.xyArgs()
	vx, vy := s.scene.Velocity(x, y)
	L.Push(lua.LNumber(vx))
	L.Push(lua.LNumber(vy))
	return 2
}
