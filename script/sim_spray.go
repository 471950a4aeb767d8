package script

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/scene"
)

// sprayMethods are the sim methods of sprays: falling sources whose parcels leave in
// directions drawn within a cone (gpusim.Emitter.Spread; docs/solver.md, "Sprays").
func (s *Scenario) sprayMethods() []decl {
	return []decl{
		{"spray", s.simSpray,
			"sim:spray{at, direction, speed, spread, rate, start, stop, seed, radius} -> source: sprays rate m^3/s from at, around direction"},
	}
}

// simSpray is sim:spray: a falling source (gpusim.Emitter with Falls) moving at speed
// along direction (default up: a fountain), each parcel turned within the cone of
// half-angles spread = {across, up and down} (radians, default {0, 0}: a jet; one number
// for both), drawn from seed. It returns a source handle (set_rate, stop).
func (s *Scenario) simSpray(L *lua.LState) int {
	c := s.simCall(L, "spray")
	t := c.table(2, "{at = {x, y, z}, direction = {dx, dy, dz}, speed = v, spread = {a1, a2}, rate = q}")
	c.keys(t, "at", "direction", "speed", "spread", "rate", "start", "stop", "seed", "radius")
	at := c.vec(t, "at", 3)
	dir, ok := c.optVec(t, "direction", 3)
	if !ok {
		dir = []float64{0, 0, 1}
	}
	n := math.Hypot(math.Hypot(dir[0], dir[1]), dir[2])
	if !(n > 0) || math.IsInf(n, 0) {
		c.fail("direction is {%s, %s, %s}: it must be a vector of non-zero, finite length (the spray's main direction)",
			fmtNum(dir[0]), fmtNum(dir[1]), fmtNum(dir[2]))
	}
	speed := c.num(t, "speed", numField{required: true, want: "a speed in m/s (> 0)", hasMin: true, above: true, unit: "m/s"})
	spread := c.spread(t)
	rate := c.num(t, "rate", numField{required: true, hasMin: true, unit: "m^3/s"})
	start, stop := c.schedule(t)
	seed := c.integer(t, "seed", intField{def: 0, min: 0, max: 1 << 53})
	radius := c.num(t, "radius", numField{hasMin: true, unit: "m"})
	c.ensureSolver()
	c.atInDomain(at)
	c.checkRate(rate)
	v := speed / n
	return c.pushEmitter(scene.Emitter{X: at[0], Y: at[1], Z: at[2], Radius: radius, Rate: rate, Start: start, Stop: stop,
		Falls: true, VX: v * dir[0], VY: v * dir[1], VZ: v * dir[2], Spread: spread, Seed: uint64(seed)}, emitterVal{spray: true, rate: rate, pair: -1})
}

// spread reads sim:spray's spread: {a1, a2} or one number for both, each an apex
// half-angle in [0, pi] radians; {0, 0} when absent.
func (c call) spread(t *lua.LTable) [2]float64 {
	var sp [2]float64
	switch v := t.RawGetString("spread").(type) {
	case *lua.LNilType:
		return sp
	case lua.LNumber:
		a := c.number("spread", v)
		sp = [2]float64{a, a}
	case *lua.LTable:
		count := 0
		for k, _ := v.Next(lua.LNil); k != lua.LNil; k, _ = v.Next(k) {
			if kn, ok := k.(lua.LNumber); !ok || (kn != 1 && kn != 2) {
				c.fail("spread has an unexpected entry [%s]: want 2 angles {a1, a2} in radians", describeValue(k))
			}
			count++
		}
		if count != 2 {
			c.fail("spread has %d values, want 2 angles {a1, a2} in radians", count)
		}
		for i := range sp {
			sp[i] = c.number(fmt.Sprintf("spread[%d]", i+1), v.RawGetInt(i+1))
		}
	default:
		c.fail("spread is %s, want 2 angles {a1, a2} in radians (or one number for both)", typeName(v))
	}
	for _, a := range sp {
		if !(a >= 0 && a <= math.Pi) {
			c.fail("spread is {%s, %s}: each is an apex half-angle in [0, pi] radians (pi sprays every way; angles are in radians, not degrees)",
				fmtNum(sp[0]), fmtNum(sp[1]))
		}
	}
	return sp
}
