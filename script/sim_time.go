package script

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// timeMethods are the sim methods of simulated time: the clock and the callbacks due at
// its times (the scheduler is schedule.go).
func (s *Scenario) timeMethods() []decl {
	return []decl{
		{"time", s.simTime, "sim:time() -> s: the simulated time"},
		{"at", s.simAt, "sim:at(t, fn) -> timer: calls fn at the first step boundary at or after time t"},
		{"every", s.simEvery, "sim:every(period, fn) -> timer: calls fn every period seconds from now"},
	}
}

func (s *Scenario) simTime(L *lua.LState) int {
	s.simCall(L, "time")
	L.Push(lua.LNumber(s.now()))
	return 1
}

func (s *Scenario) simAt(L *lua.LState) int {
	c := s.simCall(L, "at")
	t := c.number("t", L.Get(2))
	fn := c.function(3)
	e := &event{t: t, fn: fn, what: fmt.Sprintf("sim:at(%s)", fmtNum(t)), def: c.fnPlace(fn)}
	s.schedule(e)
	return s.pushTimer(L, e)
}

func (s *Scenario) simEvery(L *lua.LState) int {
	c := s.simCall(L, "every")
	p := c.number("period", L.Get(2))
	if p <= 0 {
		c.fail("period is %s s: it must be > 0", fmtNum(p))
	}
	fn := c.function(3)
	now := s.now()
	e := &event{t: now + p, t0: now, k: 1, period: p, fn: fn, what: fmt.Sprintf("sim:every(%s)", fmtNum(p)), def: c.fnPlace(fn)}
	s.schedule(e)
	return s.pushTimer(L, e)
}

// fnPlace is where fn, a callback, is defined: for a built-in function (print, vp.box),
// which has no Lua definition, the line of the call that takes it.
func (c call) fnPlace(fn *lua.LFunction) place {
	if fn.Proto == nil {
		return c.where()
	}
	return c.s.funcPlace(fn)
}

// pushTimer returns a handle on a scheduled callback, with :cancel().
func (s *Scenario) pushTimer(L *lua.LState, e *event) int {
	ud := L.NewUserData()
	ud.Value = e
	ud.Metatable = s.mt.timer
	L.Push(ud)
	return 1
}

func (e *event) describe() string { return "timer (" + e.what + ")" }

// timerMethods are a timer's methods.
func (s *Scenario) timerMethods() []decl {
	return []decl{
		{"cancel", func(L *lua.LState) int {
			c := call{s, L, "timer:cancel"}
			if ud, ok := L.Get(1).(*lua.LUserData); ok {
				if e, ok := ud.Value.(*event); ok {
					e.done = true
					return 0
				}
			}
			c.fail("call it with a colon on what sim:at or sim:every returned (timer:cancel())")
			return 0
		}, "timer:cancel(): the callback does not run again"},
	}
}
