package script

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/scene"
)

// meterVal is what a flow meter userdata holds.
type meterVal struct {
	s  *Scenario
	id int
}

// flowMethods are the sim methods of flow meters (docs/solver.md, "Flow meters").
func (s *Scenario) flowMethods() []decl {
	return []decl{
		{"flow", s.simFlow,
			"sim:flow{from = {x1, y1}, to = {x2, y2}, zmin, zmax} -> meter: the volume per second crossing the segment, signed, summed over the layers"},
	}
}

// simFlow is sim:flow{ from = {x1, y1}, to = {x2, y2}, zmin = z0, zmax = z1 }.
func (s *Scenario) simFlow(L *lua.LState) int {
	c := s.simCall(L, "flow")
	t := c.table(2, "{from = {x1, y1}, to = {x2, y2}}")
	c.keys(t, "from", "to", "zmin", "zmax")
	from, to := c.vec(t, "from", 2), c.vec(t, "to", 2)
	zmin, zmax := math.Inf(-1), math.Inf(1)
	if t.RawGetString("zmin") != lua.LNil {
		zmin = c.num(t, "zmin", numField{required: true, unit: "m"})
	}
	if t.RawGetString("zmax") != lua.LNil {
		zmax = c.num(t, "zmax", numField{required: true, unit: "m"})
	}
	c.ensureSolver()
	id, err := s.scene.AddMeter(scene.Meter{X1: from[0], Y1: from[1], X2: to[0], Y2: to[1], Zmin: zmin, Zmax: zmax})
	if err != nil {
		c.fail("%s", strings.TrimPrefix(err.Error(), "flow meter: "))
	}
	ud := L.NewUserData()
	ud.Value = &meterVal{s: s, id: id}
	ud.Metatable = s.mt.meter
	L.Push(ud)
	return 1
}

// meterMethods are a flow meter's methods.
func (s *Scenario) meterMethods() []decl {
	self := func(L *lua.LState, name string) (call, *meterVal) {
		return colonSelf[meterVal](s, L, name, "a flow meter", "m")
	}
	return []decl{
		{"rate", func(L *lua.LState) int {
			c, m := self(L, "meter:rate")
			q, err := s.scene.MeterRate(m.id)
			if err != nil {
				c.fail("%v", err)
			}
			L.Push(lua.LNumber(q))
			return 1
		}, "meter:rate() -> m^3/s: the volume crossing its segment per second now, positive from its left to its right"},
		{"total", func(L *lua.LState) int {
			c, m := self(L, "meter:total")
			v, err := s.scene.MeterTotal(m.id)
			if err != nil {
				c.fail("%v", err)
			}
			L.Push(lua.LNumber(v))
			return 1
		}, "meter:total() -> m^3: the volume that crossed its segment since it was made, signed"},
	}
}
