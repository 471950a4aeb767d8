package script

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
	"github.com/vpbench/vpbench/timing"
)

// pauseWatchdog stops the watchdog for Go work that is not Lua (extraction, building
// the solver, loading a mesh); the returned func restarts it with the budget left.
func (s *Scenario) pauseWatchdog() (resume func()) { return s.wd.pause() }

// emptySolid is the terrain of a script that sets none: free space above the domain
// floor.
var emptySolid, _ = terrain.Plane(terrain.Vec3{Z: -1}, terrain.Vec3{Z: 1})

// setTerrain extracts solid's columns (nil: the empty domain) and builds the solver, or
// hands them to it (the liquid is carried over). It returns the volume that found no
// room. A heightfield fn's failure comes back as its *Error.
func (s *Scenario) setTerrain(solid terrain.Solid) (rejected float64, err error) {
	if solid == nil {
		solid = emptySolid
	}
	s.hf.epoch++
	s.hf.err = nil
	resume := s.pauseWatchdog()
	cols, err := terrain.Extract(solid, s.cfg.domain, s.cfg.layers)
	if err == nil {
		if s.sim == nil {
			var sim *gpusim.Sim
			if sim, err = gpusim.New(cols, s.cfg.settings); err == nil {
				s.sim = sim
			}
		} else {
			rejected, err = s.sim.SetTerrain(cols)
		}
	}
	resume()
	if s.hf.err != nil {
		return 0, s.hf.err
	}
	if err != nil {
		return 0, err
	}
	s.snapOK = false
	s.terrainChanged(solid)
	if cols.Dropped > 0 && cols.Dropped != s.lastDropped {
		s.warn(fmt.Sprintf("the terrain has %d free intervals below the topmost %d of their cells: they are treated as solid (raise layers to keep them)", cols.Dropped, cols.Layers))
	}
	s.lastDropped = cols.Dropped
	s.flushWarnings()
	return rejected, nil
}

// ensureSim builds the solver on the empty domain if the script has not set a terrain
// yet (sim:fill before sim:terrain, for instance).
func (c call) ensureSim() {
	if c.s.sim != nil {
		return
	}
	if _, err := c.s.setTerrain(nil); err != nil {
		c.raise(err)
	}
}

// snapshot is the solver's state now (copied once per step boundary).
func (s *Scenario) snapshot() *gpusim.Snapshot {
	if !s.snapOK {
		s.sim.Snapshot(&s.snap)
		s.snapOK = true
	}
	return &s.snap
}

// now is the simulated time (0 before the solver exists).
func (s *Scenario) now() float64 {
	if s.sim == nil {
		return 0
	}
	return s.sim.Time()
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

// domainString describes the grid's extent.
func (s *Scenario) domainString() string {
	c := s.sim.Columns()
	return fmt.Sprintf("[0, %g] x [0, %g]", float64(c.Nx)*c.Dx, float64(c.Ny)*c.Dx)
}

// xyArgs reads (x, y) from arguments 2 and 3 and finds the cell there.
func (c call) xyArgs() (cx, cy int) {
	x := c.number("x", c.L.Get(2))
	y := c.number("y", c.L.Get(3))
	c.ensureSim()
	cx, cy, ok := c.s.sim.Columns().CellAt(x, y)
	if !ok {
		c.fail("(x, y) = (%s, %s) is outside the domain %s", fmtNum(x), fmtNum(y), c.s.domainString())
	}
	return cx, cy
}

func (s *Scenario) simMethods() map[string]lua.LGFunction {
	m := map[string]lua.LGFunction{
		"terrain": func(L *lua.LState) int {
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
		},
		"fill": func(L *lua.LState) int {
			c := s.simCall(L, "fill")
			t := c.table(2, "{at = {x, y, z}, level = z}")
			c.keys(t, "at", "level")
			at, _ := c.vec(t, "at", 3, true)
			level := c.num(t, "level", 0, true, "a height in m")
			c.ensureSim()
			added, err := s.sim.Fill(at[0], at[1], at[2], level)
			if err != nil {
				c.fail("%s", strings.TrimPrefix(err.Error(), "fill: "))
			}
			s.snapOK = false
			L.Push(lua.LNumber(added))
			return 1
		},
		"drop": func(L *lua.LState) int {
			c := s.simCall(L, "drop")
			t := c.table(2, "{at = {x, y, z}, volume = m^3, velocity = {vx, vy, vz}}")
			c.keys(t, "at", "volume", "velocity")
			at, _ := c.vec(t, "at", 3, true)
			vol := c.num(t, "volume", 0, true, "a volume in m^3")
			vel, ok := c.vec(t, "velocity", 3, false)
			if !ok {
				vel = []float64{0, 0, 0}
			}
			c.ensureSim()
			if err := s.sim.Drop(at[0], at[1], at[2], vol, vel[0], vel[1], vel[2]); err != nil {
				c.fail("%s", strings.TrimPrefix(err.Error(), "drop: "))
			}
			s.snapOK = false
			return 0
		},
		"source": func(L *lua.LState) int { return s.addEmitter(s.simCall(L, "source"), false) },
		"sink":   func(L *lua.LState) int { return s.addEmitter(s.simCall(L, "sink"), true) },
		"set": func(L *lua.LState) int {
			c := s.simCall(L, "set")
			s.simSet(c, c.table(2, "{viscosity = ..., damping = ..., ...}"))
			return 0
		},
		"at": func(L *lua.LState) int {
			c := s.simCall(L, "at")
			t := c.number("t", L.Get(2))
			fn := c.function(3)
			e := &event{t: t, fn: fn, what: fmt.Sprintf("sim:at(%g)", t), def: s.funcPlace(fn)}
			s.schedule(e)
			return s.pushTimer(L, e)
		},
		"every": func(L *lua.LState) int {
			c := s.simCall(L, "every")
			p := c.number("period", L.Get(2))
			if p <= 0 {
				c.fail("period is %s s: it must be > 0", fmtNum(p))
			}
			fn := c.function(3)
			now := s.now()
			e := &event{t: now + p, t0: now, k: 1, period: p, fn: fn, what: fmt.Sprintf("sim:every(%g)", p), def: s.funcPlace(fn)}
			s.schedule(e)
			return s.pushTimer(L, e)
		},
		"time": func(L *lua.LState) int {
			s.simCall(L, "time")
			L.Push(lua.LNumber(s.now()))
			return 1
		},
		"volume": func(L *lua.LState) int {
			c := s.simCall(L, "volume")
			if L.Get(2) == lua.LNil {
				c.ensureSim()
				L.Push(lua.LNumber(s.snapshot().Volume))
				return 1
			}
			r := c.region(c.table(2, "{ min = {x, y}, max = {x, y}, floor_above = z, floor_below = z }"))
			c.ensureSim()
			L.Push(lua.LNumber(s.snapshot().VolumeIn(r)))
			return 1
		},
		"depth": func(L *lua.LState) int {
			c := s.simCall(L, "depth")
			cx, cy := c.xyArgs()
			sn := s.snapshot()
			lo, hi := sn.Columns.Cell(cx, cy)
			d := 0.0
			for i := hi - 1; i >= lo; i-- {
				if sn.Height[i] > sn.Columns.Base[i] {
					d = sn.Depth(i)
					break
				}
			}
			L.Push(lua.LNumber(d))
			return 1
		},
		"columns": func(L *lua.LState) int {
			c := s.simCall(L, "columns")
			cx, cy := c.xyArgs()
			sn := s.snapshot()
			lo, hi := sn.Columns.Cell(cx, cy)
			out := L.CreateTable(hi-lo, 0)
			for i := lo; i < hi; i++ {
				col := L.CreateTable(0, 4)
				col.RawSetString("min", lua.LNumber(sn.Columns.Min[i]))
				col.RawSetString("base", lua.LNumber(sn.Columns.Base[i]))
				col.RawSetString("max", lua.LNumber(sn.Columns.Max[i]))
				col.RawSetString("h", lua.LNumber(sn.Height[i]))
				out.Append(col)
			}
			L.Push(out)
			return 1
		},
		"stats": func(L *lua.LState) int {
			c := s.simCall(L, "stats")
			c.ensureSim()
			L.Push(s.statsTable(L))
			return 1
		},
		"info": func(L *lua.LState) int {
			c := s.simCall(L, "info")
			c.ensureSim()
			L.Push(s.infoTable(L))
			return 1
		},
		"export_mesh": func(L *lua.LState) int {
			c := s.simCall(L, "export_mesh")
			c.ensureSim()
			path := L.CheckString(2)
			if err := safeOutputPath(path); err != nil {
				c.fail("%v", err)
			}
			resume := s.pauseWatchdog() // a first call builds the terrain mesh
			err := s.ExportMesh(path)
			resume()
			if err != nil {
				c.fail("%v", err)
			}
			return 0
		},
		"screenshot": func(L *lua.LState) int {
			s.screenshot(s.simCall(L, "screenshot"))
			return 0
		},
		"record": func(L *lua.LState) int {
			return s.record(s.simCall(L, "record"))
		},
	}
	return m
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

// emitterVal is a source or sink handle.
type emitterVal struct {
	s    *Scenario
	id   int
	sink bool
	rate float64 // as the script gives it (>= 0)
}

func (e *emitterVal) describe() string {
	kind := "source"
	if e.sink {
		kind = "sink"
	}
	return fmt.Sprintf("%s %d (rate %g m^3/s)", kind, e.id, e.rate)
}

// addEmitter is sim:source and sim:sink: rate >= 0 in both (a sink removes it).
func (s *Scenario) addEmitter(c call, sink bool) int {
	t := c.table(2, "{at = {x, y, z}, radius = r, rate = q, start = t0, stop = t1}")
	c.keys(t, "at", "radius", "rate", "start", "stop", "falls", "velocity")
	at, _ := c.vec(t, "at", 3, true)
	radius := c.numAtLeast(t, "radius", 0, false, 0, false, "m")
	rate := c.numAtLeast(t, "rate", 0, true, 0, false, "m^3/s")
	start := c.numAtLeast(t, "start", 0, false, 0, false, "s")
	stop := math.Inf(1)
	if t.RawGetString("stop") != lua.LNil {
		stop = c.num(t, "stop", 0, true, "")
		if stop <= start {
			c.fail("stop is %s s: it must be after start (%s s)", fmtNum(stop), fmtNum(start))
		}
	}
	falls := c.boolean(t, "falls", false)
	vel, hasVel := c.vec(t, "velocity", 3, false)
	if sink && falls {
		c.fail("falls = true: a sink takes liquid from its columns, it cannot fall")
	}
	if hasVel && !falls {
		c.fail("velocity is for a source that falls (falls = true): one that does not puts its liquid into its columns")
	}
	if !hasVel {
		vel = []float64{0, 0, 0}
	}
	c.ensureSim()
	q := rate
	if sink {
		q = -rate
	}
	id, err := s.sim.AddEmitter(gpusim.Emitter{X: at[0], Y: at[1], Z: at[2], Radius: radius, Rate: q, Start: start, Stop: stop,
		Falls: falls, VX: vel[0], VY: vel[1], VZ: vel[2]})
	if err != nil {
		c.fail("%v", err)
	}
	ud := c.L.NewUserData()
	ud.Value = &emitterVal{s: s, id: id, sink: sink, rate: rate}
	ud.Metatable = s.mt.emitter
	c.L.Push(ud)
	return 1
}

func (s *Scenario) emitterMethods() map[string]lua.LGFunction {
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
	return map[string]lua.LGFunction{
		"set_rate": func(L *lua.LState) int {
			c, e := self(L, "source:set_rate")
			q := c.number("rate", L.Get(2))
			if q < 0 {
				c.fail("rate is %s m^3/s: it must be >= 0 (a sink removes its rate)", fmtNum(q))
			}
			if e.sink {
				q = -q
			}
			if err := s.sim.SetEmitterRate(e.id, q); err != nil {
				c.fail("%v", err)
			}
			e.rate = math.Abs(q)
			return 0
		},
		"stop": func(L *lua.LState) int {
			c, e := self(L, "source:stop")
			if err := s.sim.StopEmitter(e.id); err != nil {
				c.fail("%v", err)
			}
			return 0
		},
	}
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

func (s *Scenario) timerMethods() map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"cancel": func(L *lua.LState) int {
			c := call{s, L, "timer:cancel"}
			if ud, ok := L.Get(1).(*lua.LUserData); ok {
				if e, ok := ud.Value.(*event); ok {
					e.done = true
					return 0
				}
			}
			c.fail("call it with a colon on what sim:at or sim:every returned (timer:cancel())")
			return 0
		},
	}
}

// changeable are the settings vp.sim and sim:set share (sim:set accepts only these;
// settings reads them for both); fixed are vp.sim's others.
var (
	changeable = []string{"viscosity", "damping", "gravity", "cross_section", "extended_pipes", "falling", "fall_drop", "dt", "workers",
		"depth_max", "meniscus_length", "contact_angle", "meniscus", "liquid", "absorption"}
	fixed = []string{"size", "height", "dx", "layers", "backend"}
)

// settings reads the changeable fields of t over st (the fields absent keep st's
// values) and checks the result: one parser for vp.sim and sim:set, so a name means
// the same and is checked the same in both. The surface's and the preview's fields
// (depth_max, meniscus..., liquid, absorption) are read and checked too and come back in apply,
// which sets them: a bad field fails the call before anything has changed.
func (s *Scenario) settings(c call, t *lua.LTable, st gpusim.Settings) (_ gpusim.Settings, apply func()) {
	if t.RawGetString("dt") != lua.LNil {
		st.Dt = c.dt(t)
	}
	st.Viscosity = c.num(t, "viscosity", st.Viscosity, false, "")
	st.Damping = c.num(t, "damping", st.Damping, false, "")
	st.Gravity = c.num(t, "gravity", st.Gravity, false, "")
	cross, _ := gpusim.ParseCrossSection(c.choice(t, "cross_section", st.CrossSection.String(), "paper", "film"))
	st.CrossSection = cross
	ext, _ := gpusim.ParseExtendedPipes(c.choice(t, "extended_pipes", st.ExtendedPipes.String(), "unified", "axis", "off"))
	st.ExtendedPipes = ext
	fall, _ := gpusim.ParseFalling(c.choice(t, "falling", st.Falling.String(), "particles", "off"))
	st.Falling = fall
	st.FallDrop = c.num(t, "fall_drop", st.FallDrop, false, "")
	st.Workers = c.integer(t, "workers", st.Workers, 0, maxWorkers)
	if s.opt.Workers >= 0 { // set from outside the script (--workers): it wins
		st.Workers = s.opt.Workers
	}
	if err := st.Validate(); err != nil {
		c.fail("%v", err)
	}
	liquid := s.parseLiquid(c, t)
	surf := s.surfaceSettings(c, t)
	return st, func() {
		s.applySurface(c, surf)
		if liquid != nil {
			s.surf.preview = *liquid
		}
	}
}

// simSet is sim:set{...}: changes settings; nothing changes if one is bad.
func (s *Scenario) simSet(c call, t *lua.LTable) {
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if ks, ok := k.(lua.LString); ok && contains(fixed, string(ks)) {
			c.fail("%s cannot change mid-run: the grid and the backend are fixed by vp.sim (sim:set changes %s)", string(ks), strings.Join(changeable, ", "))
		}
	}
	c.keys(t, changeable...)
	st := s.cfg.settings
	if s.sim != nil {
		st = s.sim.Settings()
	}
	st, apply := s.settings(c, t, st)
	if s.sim != nil {
		if err := s.sim.Set(st); err != nil {
			c.fail("%v", err)
		}
	}
	apply()
	s.cfg.settings = st
	if s.sim != nil {
		s.flushWarnings()
	}
}

// statsTable is sim:stats().
func (s *Scenario) statsTable(L *lua.LState) *lua.LTable {
	st := s.sim.Stats()
	t := L.NewTable()
	set := func(k string, v float64) { t.RawSetString(k, lua.LNumber(v)) }
	set("steps", float64(st.Steps))
	set("time", st.Time)
	set("dt", st.Dt)
	set("columns", float64(st.Columns))
	set("wet", float64(st.Wet))
	set("pipes", float64(st.Pipes))
	set("extended", float64(st.Extended))
	set("passages", float64(st.Passages))
	set("particles", float64(st.Particles))
	set("airborne", st.Airborne)
	set("volume", st.Volume)
	set("added", st.Added)
	set("removed", st.Removed)
	set("rejected", st.Rejected)
	set("workers", float64(st.Workers))
	t.RawSetString("backend", lua.LString(st.Backend))
	if st.Steps > 0 {
		set("step_ms", st.StepWall.Seconds()*1e3/float64(st.Steps))
	} else {
		set("step_ms", 0)
	}
	tm := timing.Timings{Simulation: s.advances.Timing(), Steps: s.stepped}
	if s.opt.Timings != nil {
		tm = s.opt.Timings()
	}
	for _, p := range []struct {
		name string
		t    timing.PhaseTiming
	}{{"sim", tm.Simulation}, {"surface", tm.Surface}, {"render", tm.Render}} {
		pt := L.CreateTable(0, 3)
		pt.RawSetString("frames", lua.LNumber(p.t.Frames))
		pt.RawSetString("avg", lua.LNumber(p.t.AvgMs))
		pt.RawSetString("max", lua.LNumber(p.t.MaxMs))
		t.RawSetString(p.name, pt)
	}
	return t
}

// infoTable is sim:info().
func (s *Scenario) infoTable(L *lua.LState) *lua.LTable {
	in := s.Info()
	t := L.NewTable()
	set := func(k string, v float64) { t.RawSetString(k, lua.LNumber(v)) }
	t.RawSetString("name", lua.LString(in.Name))
	set("nx", float64(in.Nx))
	set("ny", float64(in.Ny))
	set("layers", float64(in.Layers))
	set("dx", in.Dx)
	set("height", in.Height)
	size := L.CreateTable(2, 0)
	size.Append(lua.LNumber(in.SizeX))
	size.Append(lua.LNumber(in.SizeY))
	t.RawSetString("size", size)
	set("columns", float64(in.Columns))
	set("pipes", float64(in.Pipes))
	set("dropped", float64(in.DroppedIntervals))
	t.RawSetString("terrain_marched", lua.LString(in.TerrainMarched))
	set("memory", float64(in.MemoryBytes))
	set("dt", in.Dt)
	set("stable_dt", in.StableDt)
	t.RawSetString("backend", lua.LString(in.Backend))
	set("workers", float64(in.Workers))
	set("viscosity", in.Settings.Viscosity)
	set("damping", in.Settings.Damping)
	set("gravity", in.Settings.Gravity)
	t.RawSetString("cross_section", lua.LString(in.Settings.CrossSection.String()))
	t.RawSetString("extended_pipes", lua.LString(in.Settings.ExtendedPipes.String()))
	t.RawSetString("falling", lua.LString(in.Settings.Falling.String()))
	set("fall_drop", in.FallDrop)
	t.RawSetString("version", lua.LString(Version))
	return t
}

// region reads sim:volume's region table (gpusim.Region): min and max {x, y} bound the
// cells' centres, floor_above and floor_below the floors of the columns counted; every
// field is optional, and a bound left out does not bound.
func (c call) region(t *lua.LTable) gpusim.Region {
	c.keys(t, "min", "max", "floor_above", "floor_below")
	r := gpusim.AllRegion
	if lo, ok := c.vec(t, "min", 2, false); ok {
		r.X0, r.Y0 = lo[0], lo[1]
	}
	if hi, ok := c.vec(t, "max", 2, false); ok {
		r.X1, r.Y1 = hi[0], hi[1]
	}
	if r.X0 > r.X1 || r.Y0 > r.Y1 {
		c.fail("min = {%s, %s} is not below max = {%s, %s}: the region would be empty",
			fmtNum(r.X0), fmtNum(r.Y0), fmtNum(r.X1), fmtNum(r.Y1))
	}
	r.FloorAbove = c.num(t, "floor_above", r.FloorAbove, false, "")
	r.FloorBelow = c.num(t, "floor_below", r.FloorBelow, false, "")
	if r.FloorAbove >= r.FloorBelow {
		c.fail("floor_above = %s is not below floor_below = %s: no floor lies between them",
			fmtNum(r.FloorAbove), fmtNum(r.FloorBelow))
	}
	return r
}
