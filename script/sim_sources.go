package script

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/scene"
)

// sourceMethods are the sim methods that add and take liquid: at once (fill, drop) or
// over time (sources and sinks).
func (s *Scenario) sourceMethods() []decl {
	return []decl{
		{"fill", s.simFill, "sim:fill{at, level} -> m^3: pours liquid into the space connected to at, up to level"},
		{"drop", s.simDrop, "sim:drop{at, volume, velocity}: releases a parcel of liquid in the air"},
		{"source", func(L *lua.LState) int { return s.addEmitter(s.simCall(L, "source"), false) },
			"sim:source{at, radius, rate, start, stop, falls, velocity} -> source: adds rate m^3/s"},
		{"sink", func(L *lua.LState) int { return s.addEmitter(s.simCall(L, "sink"), true) },
			"sim:sink{at, radius, rate, start, stop} -> sink: takes up to rate m^3/s"},
	}
}

func (s *Scenario) simFill(L *lua.LState) int {
	c := s.simCall(L, "fill")
	t := c.table(2, "{at = {x, y, z}, level = z}")
	c.keys(t, "at", "level")
	at := c.vec(t, "at", 3)
	level := c.num(t, "level", numField{required: true, want: "a height in m"})
	c.ensureSolver()
	c.atInDomain(at)
	added, err := s.scene.Fill(at[0], at[1], at[2], level)
	if err != nil {
		c.fail("%s", strings.TrimPrefix(err.Error(), "fill: "))
	}
	c.checkFillVolume(level, added)
	L.Push(lua.LNumber(added))
	return 1
}

func (s *Scenario) simDrop(L *lua.LState) int {
	c := s.simCall(L, "drop")
	t := c.table(2, "{at = {x, y, z}, volume = m^3, velocity = {vx, vy, vz}}")
	c.keys(t, "at", "volume", "velocity")
	at := c.vec(t, "at", 3)
	vol := c.num(t, "volume", numField{required: true, want: "a volume in m^3"})
	vel, ok := c.optVec(t, "velocity", 3)
	if !ok {
		vel = []float64{0, 0, 0}
	}
	c.ensureSolver()
	if err := s.scene.Drop(at[0], at[1], at[2], vol, vel[0], vel[1], vel[2]); err != nil {
		c.fail("%s", strings.TrimPrefix(err.Error(), "drop: "))
	}
	c.checkDropVolume(vol)
	return 0
}

// atInDomain refuses a place at = {x, y, z} outside the domain, with the hint a length
// in millimetres needs: "at = {50, 50, 30} is outside the 0.1 x 0.1 m domain: lengths
// are in metres".
func (c call) atInDomain(at []float64) {
	if _, _, ok := c.s.scene.Columns().CellAt(at[0], at[1]); !ok {
		c.fail("at = {%s, %s, %s} is outside the %s: lengths are in metres", fmtNum(at[0]), fmtNum(at[1]), fmtNum(at[2]), c.s.domainSize())
	}
}

// emitterVal is a source or sink handle (a spray's too: sim_spray.go).
type emitterVal struct {
	s     *Scenario
	id    int
	sink  bool
	spray bool    // made by sim:spray (sim_spray.go)
	rate  float64 // as the script gives it (>= 0)
}

func (e *emitterVal) describe() string {
	kind := "source"
	if e.sink {
		kind = "sink"
	} else if e.spray {
		kind = "spray"
	}
	return fmt.Sprintf("%s %d (rate %s m^3/s)", kind, e.id, fmtNum(e.rate))
}

// schedule reads a source's start (default 0, >= 0) and stop (default never; after
// start), s: sim:source, sim:sink and sim:spray.
func (c call) schedule(t *lua.LTable) (start, stop float64) {
	start = c.num(t, "start", numField{hasMin: true, unit: "s"})
	stop = math.Inf(1)
	if t.RawGetString("stop") != lua.LNil {
		stop = c.num(t, "stop", numField{required: true})
		if stop <= start {
			c.fail("stop is %s s: it must be after start (%s s)", fmtNum(stop), fmtNum(start))
		}
	}
	return start, stop
}

// addEmitter is sim:source and sim:sink: rate >= 0 in both (a sink removes it).
func (s *Scenario) addEmitter(c call, sink bool) int {
	t := c.table(2, "{at = {x, y, z}, radius = r, rate = q, start = t0, stop = t1}")
	c.keys(t, "at", "radius", "rate", "start", "stop", "falls", "velocity", "level")
	at := c.vec(t, "at", 3)
	radius := c.num(t, "radius", numField{hasMin: true, unit: "m"})
	rate := c.num(t, "rate", numField{required: true, hasMin: true, unit: "m^3/s"})
	start, stop := c.schedule(t)
	falls := c.boolean(t, "falls", false)
	vel, hasVel := c.optVec(t, "velocity", 3)
	if sink && falls {
		c.fail("falls = true: a sink takes liquid from its columns, it cannot fall")
	}
	if hasVel && !falls {
		c.fail("velocity is for a source that falls (falls = true): one that does not puts its liquid into its columns")
	}
	if !hasVel {
		vel = []float64{0, 0, 0}
	}
	holds, level := t.RawGetString("level") != lua.LNil, 0.0
	if holds {
		if sink {
			c.fail("level is for a source: a sink takes what is there")
		}
		if falls {
			c.fail("level is for a source that puts its liquid into its columns, not one that falls")
		}
		level = c.num(t, "level", numField{required: true, want: "a height in m (the level the source holds)", unit: "m"})
	}
	c.ensureSolver()
	c.atInDomain(at)
	c.checkRate(rate)
	q := rate
	if sink {
		q = -rate
	}
	return c.pushEmitter(scene.Emitter{X: at[0], Y: at[1], Z: at[2], Radius: radius, Rate: q, Start: start, Stop: stop,
		Falls: falls, VX: vel[0], VY: vel[1], VZ: vel[2], Holds: holds, Level: level}, emitterVal{sink: sink, rate: rate})
}

// pushEmitter adds e to the solver through the scene (which keeps it for the sinks'
// marks) and pushes its handle (val, with its scenario and id filled in): sim:source,
// sim:sink and sim:spray.
func (c call) pushEmitter(e scene.Emitter, val emitterVal) int {
	id, err := c.s.scene.AddEmitter(e)
	if err != nil {
		c.fail("%v", err)
	}
	val.s, val.id = c.s, id
	ud := c.L.NewUserData()
	ud.Value = &val
	ud.Metatable = c.s.mt.emitter
	c.L.Push(ud)
	return 1
}

// emitterMethods are a source's (and a sink's) methods.
func (s *Scenario) emitterMethods() []decl {
	self := func(L *lua.LState, name string) (call, *emitterVal) {
		c := call{s, L, name}
		if ud, ok := L.Get(1).(*lua.LUserData); ok {
			if e, ok := ud.Value.(*emitterVal); ok {
				c.notInHeightfield()
				if e.sink {
					c.fn = strings.Replace(c.fn, "source", "sink", 1)
				}
				return c, e
			}
		}
		c.fail("call it with a colon on a source or sink (s%s...)", name[strings.IndexByte(name, ':'):])
		return c, nil
	}
	return []decl{
		{"set_rate", func(L *lua.LState) int {
			c, e := self(L, "source:set_rate")
			q := c.number("rate", L.Get(2))
			if q < 0 {
				c.fail("rate is %s m^3/s: it must be >= 0 (a sink removes its rate)", fmtNum(q))
			}
			if e.sink {
				q = -q
			}
			if err := s.scene.SetEmitterRate(e.id, q); err != nil {
				c.fail("%v", err)
			}
			c.checkRate(math.Abs(q))
			e.rate = math.Abs(q)
			return 0
		}, "source:set_rate(q): the rate from now on, m^3/s (>= 0)"},
		{"stop", func(L *lua.LState) int {
			c, e := self(L, "source:stop")
			if err := s.scene.StopEmitter(e.id); err != nil {
				c.fail("%v", err)
			}
			return 0
		}, "source:stop(): stops it for good"},
	}
}
