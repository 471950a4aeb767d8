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
		{"fill", s.simFill, "sim:fill{at, level, velocity} -> m^3: pours liquid into the space connected to at, up to level (moving at velocity = {u, v} m/s)"},
		{"drop", s.simDrop, "sim:drop{at, volume, velocity}: releases a parcel of liquid in the air"},
		{"source", func(L *lua.LState) int { return s.addEmitter(s.simCall(L, "source"), false) },
			"sim:source{at, radius, rate, start, stop, falls, velocity, level, removes} -> source: adds rate m^3/s (with level: holds the liquid there at level, both ways unless removes = false)"},
		{"sink", func(L *lua.LState) int { return s.addEmitter(s.simCall(L, "sink"), true) },
			"sim:sink{at, radius, rate, start, stop, level} -> sink: takes up to rate m^3/s (with level: only what stands above it)"},
	}
}

func (s *Scenario) simFill(L *lua.LState) int {
	c := s.simCall(L, "fill")
	t := c.table(2, "{at = {x, y, z}, level = z, velocity = {u, v}}")
	c.keys(t, "at", "level", "velocity")
	at := c.vec(t, "at", 3)
	level := c.num(t, "level", numField{required: true, want: "a height in m"})
	vel, moving := c.optVec(t, "velocity", 2)
	c.ensureSolver()
	c.atInDomain(at)
	var added float64
	var err error
	if moving {
		added, err = s.scene.FillMoving(at[0], at[1], at[2], level, vel[0], vel[1])
	} else {
		added, err = s.scene.Fill(at[0], at[1], at[2], level)
	}
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
	holds bool    // made with a level (gpusim.Emitter.Holds)
	// pair is the id of the sink that holds a source's level from above (a source made
	// with a level and removes = true, the default), or -1: the handle's set_rate, set
	// and stop act on both.
	pair int
}

// ids are the solver's emitters the handle stands for: its own and its pair's.
func (e *emitterVal) ids() []int {
	if e.pair >= 0 {
		return []int{e.id, e.pair}
	}
	return []int{e.id}
}

func (e *emitterVal) describe() string {
	return fmt.Sprintf("%s %d (rate %s m^3/s)", e.kind(), e.id, fmtNum(e.rate))
}

// kind is "source", "sink" or "spray".
func (e *emitterVal) kind() string {
	switch {
	case e.sink:
		return "sink"
	case e.spray:
		return "spray"
	}
	return "source"
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
	c.keys(t, "at", "radius", "rate", "start", "stop", "falls", "velocity", "level", "removes")
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
		if falls {
			c.fail("level is for a source that puts its liquid into its columns, not one that falls")
		}
		want := "a height in m (the level the source holds)"
		if sink {
			want = "a height in m (the sink takes what stands above it)"
		}
		level = c.num(t, "level", numField{required: true, want: want, unit: "m"})
	}
	// A source holding a level holds it both ways by default (removes = true): a sink of
	// the same rate holding the same level over the same columns takes what stands above
	// it. removes = false keeps the source's add-only hold.
	removes := false
	if t.RawGetString("removes") != lua.LNil {
		switch {
		case sink:
			c.fail("removes is for a source that holds a level: a sink removes anyway")
		case !holds:
			c.fail("removes is for a source that holds a level (give level = z)")
		}
	}
	if holds && !sink {
		removes = c.boolean(t, "removes", true)
	}
	c.ensureSolver()
	c.atInDomain(at)
	c.checkRate(rate)
	q := rate
	if sink {
		q = -rate
	}
	e := scene.Emitter{X: at[0], Y: at[1], Z: at[2], Radius: radius, Rate: q, Start: start, Stop: stop,
		Falls: falls, VX: vel[0], VY: vel[1], VZ: vel[2], Holds: holds, Level: level}
	val := emitterVal{sink: sink, rate: rate, holds: holds, pair: -1}
	if removes {
		// The sink first: if it is refused, no source is left behind. The source's id is
		// then the sink's plus one; the handle is the source's.
		down := e
		down.Rate = -rate
		id, err := s.scene.AddEmitter(down)
		if err != nil {
			c.fail("%v", err)
		}
		val.pair = id
	}
	return c.pushEmitter(e, val)
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
		c, e := colonSelf[emitterVal](s, L, name, "a source or sink", "s")
		if e.sink {
			c.fn = strings.Replace(c.fn, "source", "sink", 1)
		}
		return c, e
	}
	setRate := func(c call, e *emitterVal, q float64) {
		if q < 0 {
			c.fail("rate is %s m^3/s: it must be >= 0 (a sink removes its rate)", fmtNum(q))
		}
		for k, id := range e.ids() {
			signed := q
			if e.sink || k == 1 { // the pair's sink takes the same rate
				signed = -q
			}
			if err := s.scene.SetEmitterRate(id, signed); err != nil {
				c.fail("%v", err)
			}
		}
		c.checkRate(q)
		e.rate = q
	}
	return []decl{
		{"set_rate", func(L *lua.LState) int {
			c, e := self(L, "source:set_rate")
			setRate(c, e, c.number("rate", L.Get(2)))
			return 0
		}, "source:set_rate(q): the rate from now on, m^3/s (>= 0)"},
		{"set", func(L *lua.LState) int {
			c, e := self(L, "source:set")
			t := c.table(2, "{level = z, rate = q}")
			c.keys(t, "level", "rate")
			if t.RawGetString("level") != lua.LNil {
				level := c.num(t, "level", numField{required: true, want: "a height in m", unit: "m"})
				if !e.holds {
					c.fail("level: this %s was made without a level; give level = z to sim:%s to hold one", e.kind(), e.kind())
				}
				for _, id := range e.ids() {
					if err := s.scene.SetEmitterLevel(id, level); err != nil {
						c.fail("%v", err)
					}
				}
			}
			if t.RawGetString("rate") != lua.LNil {
				setRate(c, e, c.num(t, "rate", numField{required: true, hasMin: true, unit: "m^3/s"}))
			}
			return 0
		}, "source:set{level = z, rate = q}: the held level (m) and the rate (m^3/s) from now on"},
		{"stop", func(L *lua.LState) int {
			c, e := self(L, "source:stop")
			for _, id := range e.ids() {
				if err := s.scene.StopEmitter(id); err != nil {
					c.fail("%v", err)
				}
			}
			return 0
		}, "source:stop(): stops it for good"},
	}
}
