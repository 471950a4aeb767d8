package script

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/terrain"
)

const (
	maxWorkers = 256
	maxLayers  = 1 << 16
	// maxExtent bounds size and height (m): columns are float32, and liquid on a scale
	// beyond this is not what vpbench is for.
	maxExtent = 1000
)

// simFields are vp.sim's fields: the fixed ones (grid and backend) and every setting
// sim:set changes (changeable), read by the same parser (call.settings).
var simFields = append(append([]string{}, fixed...), changeable...)

// vpFuncs are the vp module's functions: the scene's set-up (vp.sim), the script's
// parameters and main's clock, and the solids (solids.go).
func (s *Scenario) vpFuncs() []decl {
	return decls([]decl{
		{"sim", s.vpSim, "vp.sim{...} -> sim: the domain, the grid and the settings; one per script"},
		{"param", s.vpParam, "vp.param(name, default) -> value: a value given from the command line (--param), or the default"},
		{"wait", s.vpWait, "vp.wait(seconds): main sleeps while the solver runs on"},
	}, s.solidFuncs())
}

// newVPModule builds the vp table: its functions and vp.version.
func (s *Scenario) newVPModule() *lua.LTable {
	L := s.L
	m := L.NewTable()
	for _, d := range s.vpFuncs() {
		m.RawSetString(d.name, L.NewFunction(d.fn))
	}
	m.RawSetString("version", lua.LString(Version))
	names := []string{"version"}
	for _, d := range s.vpFuncs() {
		names = append(names, d.name)
	}
	L.SetMetatable(m, s.noSuchName("vp.", "function in vp", names))
	return m
}

// noSuchName is a metatable whose __index raises "<prefix>name: no such <what> (did you
// mean <prefix>other?)" for a name a table lacks: vp.spere{...} says what is wrong where
// Lua alone would say "attempt to call a non-function object". names are the table's.
func (s *Scenario) noSuchName(prefix, what string, names []string) *lua.LTable {
	mt := s.L.NewTable()
	mt.RawSetString("__index", s.L.NewFunction(func(L *lua.LState) int {
		k := L.Get(2)
		name, ok := k.(lua.LString)
		if !ok {
			call{s, L, strings.TrimRight(prefix, ".:")}.fail("[%s]: no such %s: its names are strings", describeValue(k), what)
		}
		hint := ""
		if near, ok := nearest(string(name), names); ok {
			hint = fmt.Sprintf(" (did you mean %s%s?)", prefix, near)
		}
		call{s, L, prefix + string(name)}.fail("no such %s%s", what, hint)
		return 0
	}))
	mt.RawSetString("__metatable", lua.LFalse)
	return mt
}

// vpSim is vp.sim{...}: the domain, grid and settings, checked and made into the scene
// (scene.New). The solver is built by the first sim:terrain (or, without one, at the end
// of the set-up on the empty domain).
func (s *Scenario) vpSim(L *lua.LState) int {
	c := call{s, L, "vp.sim"}
	c.notInHeightfield()
	if s.scene != nil {
		c.fail("called a second time: one vp.sim per script (the first is at %s:%d)", s.simPlace.file, s.simPlace.line)
	}
	t := c.optTable(1, "{size = {x, y}, dx = ..., ...}")
	c.keys(t, simFields...)

	size := []float64{0.1, 0.1}
	if v, ok := c.optVec(t, "size", 2); ok {
		size = v
	}
	for i, v := range size {
		if v <= 0 || v > maxExtent {
			c.fail("size[%d] is %s m: it must be > 0 and at most %d m", i+1, fmtNum(v), maxExtent)
		}
	}
	height := c.num(t, "height", numField{def: 0.05, hasMin: true, above: true, unit: "m"})
	if height > maxExtent {
		c.fail("height is %s m: at most %d m", fmtNum(height), maxExtent)
	}
	dx := c.num(t, "dx", numField{def: 0.0005, hasMin: true, above: true, unit: "m"})
	layers := c.integer(t, "layers", intField{def: 5, min: 1, max: maxLayers})
	st := c.settings(t, scene.DefaultSettings())
	backend := c.choice(t, "backend", "auto", "auto", "cpu", "cuda")
	c.checkSimUnits(size, height, dx)

	if s.opt.Backend != "" {
		backend = s.opt.Backend
		if backend == "cuda" {
			if _, err := scene.CUDAAvailable(); errors.Is(err, scene.ErrNoCUDA) {
				c.fail("backend \"cuda\" (set from outside the script): the cuda backend is not in this build: use backend \"cpu\" (or the cuda build: make cuda, bin/vpbench-cuda)")
			} else if err != nil {
				c.fail("backend \"cuda\" (set from outside the script): %v", err)
			}
		}
	}
	if backend == "cuda" {
		if _, err := scene.CUDAAvailable(); errors.Is(err, scene.ErrNoCUDA) {
			c.fail("backend = \"cuda\": the cuda backend is not in this build: use backend = \"cpu\" (or the cuda build: make cuda, bin/vpbench-cuda)")
		} else if err != nil {
			c.fail("backend = \"cuda\": %v", err)
		}
	}
	if backend == "auto" { // cuda when this build has it and a GPU is usable
		backend = "cpu"
		if _, err := scene.CUDAAvailable(); err == nil {
			backend = "cuda"
		}
	}
	if backend != "cpu" {
		st.Solver.Backend = backend // "cuda", or a test's host-kernel backend (Options.Backend)
	}
	dom := terrain.Domain{SizeX: size[0], SizeY: size[1], Height: height, Dx: dx}
	sc, warnings, err := scene.New(scene.Config{Name: s.name, Domain: dom, Layers: layers, Settings: st, Workers: s.opt.Workers, Method: s.opt.Method})
	if err != nil {
		c.fail("%s", strings.TrimPrefix(err.Error(), "terrain: "))
	}
	if nx, ny := dom.Grid(); s.opt.MaxCells > 0 && float64(nx)*float64(ny) > float64(s.opt.MaxCells) {
		c.fail("size = {%s, %s} and dx = %s make %d x %d cells: this run allows %d", fmtNum(size[0]), fmtNum(size[1]), fmtNum(dx), nx, ny, s.opt.MaxCells)
	}
	s.scene, s.simPlace = sc, c.where()
	s.warnAll(warnings)
	ud := L.NewUserData()
	ud.Value = s
	ud.Metatable = s.mt.sim
	s.simUD = ud
	L.Push(ud)
	return 1
}

// vpParam is vp.param(name, default): the value given from outside (Options.Params,
// --param name=value), converted to the default's type, or the default.
func (s *Scenario) vpParam(L *lua.LState) int {
	c := call{s, L, "vp.param"}
	nv := L.Get(1)
	name, ok := nv.(lua.LString)
	if !ok || name == "" {
		c.fail("the parameter name is %s, want a non-empty string", describeValue(nv))
	}
	def := L.Get(2)
	switch def.(type) {
	case lua.LNumber, lua.LString, lua.LBool:
	default:
		if def != lua.LNil {
			c.fail("the default of %q is %s: want a number, a string, a boolean or nil", string(name), typeName(def))
		}
	}
	s.paramsUsed[string(name)] = true
	raw, given := s.opt.Params[string(name)]
	if !given {
		L.Push(def)
		return 1
	}
	switch d := def.(type) {
	case lua.LNumber:
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			c.fail("parameter %s=%s is not a finite number (its default, %s, is a number)", string(name), raw, fmtNum(float64(d)))
		}
		L.Push(lua.LNumber(f))
	case lua.LBool:
		switch strings.ToLower(strings.TrimSpace(raw)) {
		case "true", "1", "yes", "on":
			L.Push(lua.LTrue)
		case "false", "0", "no", "off":
			L.Push(lua.LFalse)
		default:
			c.fail("parameter %s=%s is not a boolean: want true or false (its default is %v)", string(name), raw, d)
		}
	default:
		L.Push(lua.LString(raw))
	}
	return 1
}

// vpWait is vp.wait(seconds): main yields, and the solver runs until the simulated time
// has advanced by seconds (the first step boundary at or after it).
func (s *Scenario) vpWait(L *lua.LState) int {
	c := call{s, L, "vp.wait"}
	c.notInHeightfield()
	if s.mainTh == nil || L != s.mainTh {
		c.fail("only valid inside main (the coroutine that runs beside the solver): use sim:at or sim:every to act later")
	}
	if !s.resuming {
		c.fail("main was resumed by the script (coroutine.resume), not by the solver: only the solver may resume main")
	}
	if crossesGo(L) {
		c.fail("cannot wait inside pcall, a metamethod, require or another function called from Go: call vp.wait from main's own Lua code")
	}
	d := c.number("seconds", L.Get(1))
	if d < 0 {
		c.fail("seconds is %s: it must be >= 0", fmtNum(d))
	}
	s.seq++
	s.mainWait = &event{t: s.scene.Time() + d, seq: s.seq, main: true, what: "main"}
	return L.Yield()
}

// crossesGo reports whether a Go function sits between the running Go function and the
// bottom of L's stack: a coroutine cannot yield across it.
func crossesGo(L *lua.LState) bool {
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return false
		}
		if _, err := L.GetInfo("S", dbg, lua.LNil); err == nil && dbg.What == "G" {
			return true
		}
	}
}
