package script

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

const (
	maxWorkers = 256
	maxLayers  = 1 << 16
	// maxExtent bounds size and height (m): columns are float32, and liquid on a scale
	// beyond this is not what vpbench is for.
	maxExtent = 1000
)

// testMaxCells, when > 0, bounds the grid vp.sim accepts (set by the fuzz tests, so that
// a fuzzed dx cannot make a grid that fits in memory but takes minutes to build).
var testMaxCells int

// simFields are vp.sim's fields: the fixed ones (grid and backend) and every setting
// sim:set changes (changeable), read by the same parser (Scenario.settings).
var simFields = append(append([]string{}, fixed...), changeable...)

// newVPModule builds the vp table.
func (s *Scenario) newVPModule() *lua.LTable {
	L := s.L
	m := L.NewTable()
	fns := map[string]lua.LGFunction{
		"sim":          s.vpSim,
		"param":        s.vpParam,
		"wait":         s.vpWait,
		"box":          s.vpBox,
		"sphere":       s.vpSphere,
		"cylinder":     s.vpCylinder,
		"plane":        s.vpPlane,
		"heightfield":  s.vpHeightfield,
		"mesh":         s.vpMesh,
		"union":        s.vpUnion,
		"difference":   s.vpDifference,
		"intersection": s.vpIntersection,
	}
	for name, fn := range fns {
		m.RawSetString(name, L.NewFunction(fn))
	}
	m.RawSetString("version", lua.LString(Version))
	return m
}

// vpSim is vp.sim{...}: the domain, grid and solver settings. The solver is built by the
// first sim:terrain (or, without one, at the end of the set-up on the empty domain).
func (s *Scenario) vpSim(L *lua.LState) int {
	c := call{s, L, "vp.sim"}
	c.notInHeightfield()
	if s.cfg != nil {
		c.fail("called a second time: one vp.sim per script (the first is at %s:%d)", s.cfg.at.file, s.cfg.at.line)
	}
	t := c.optTable(1, "{size = {x, y}, dx = ..., ...}")
	c.keys(t, simFields...)

	size := []float64{0.1, 0.1}
	if v, ok := c.vec(t, "size", 2, false); ok {
		size = v
	}
	for i, v := range size {
		if v <= 0 || v > maxExtent {
			c.fail("size[%d] is %s m: it must be > 0 and at most %d m", i+1, fmtNum(v), maxExtent)
		}
	}
	height := c.numAtLeast(t, "height", 0.05, false, 0, true, "m")
	if height > maxExtent {
		c.fail("height is %s m: at most %d m", fmtNum(height), maxExtent)
	}
	dx := c.numAtLeast(t, "dx", 0.0005, false, 0, true, "m")
	layers := c.integer(t, "layers", 5, 1, maxLayers)
	st, apply := s.settings(c, t, gpusim.DefaultSettings())
	backend := c.choice(t, "backend", "auto", "auto", "cpu", "cuda")

	if s.opt.Backend != "" {
		backend = s.opt.Backend
		if backend == "cuda" {
			if _, err := gpusim.CUDAAvailable(); errors.Is(err, gpusim.ErrNoCUDA) {
				c.fail("backend \"cuda\" (set from outside the script): the cuda backend is not in this build: use backend \"cpu\" (or the cuda build: make cuda, bin/vpbench-cuda)")
			} else if err != nil {
				c.fail("backend \"cuda\" (set from outside the script): %v", err)
			}
		}
	}
	if backend == "cuda" {
		if _, err := gpusim.CUDAAvailable(); errors.Is(err, gpusim.ErrNoCUDA) {
			c.fail("backend = \"cuda\": the cuda backend is not in this build: use backend = \"cpu\" (or the cuda build: make cuda, bin/vpbench-cuda)")
		} else if err != nil {
			c.fail("backend = \"cuda\": %v", err)
		}
	}
	dom := terrain.Domain{SizeX: size[0], SizeY: size[1], Height: height, Dx: dx}
	if err := dom.Validate(); err != nil {
		c.fail("%v", err)
	}
	nx, ny := dom.Grid()
	if err := gpusim.CheckMemory(nx, ny, layers); err != nil {
		c.fail("size = {%s, %s}, dx = %s and layers = %d make a grid too large for this machine: %s",
			fmtNum(size[0]), fmtNum(size[1]), fmtNum(dx), layers, strings.TrimPrefix(err.Error(), "terrain: "))
	}
	if testMaxCells > 0 && float64(nx)*float64(ny) > float64(testMaxCells) {
		c.fail("size = {%s, %s} and dx = %s make %d x %d cells: this test build allows %d", fmtNum(size[0]), fmtNum(size[1]), fmtNum(dx), nx, ny, testMaxCells)
	}
	if st.Workers > runtime.NumCPU() {
		s.warn(fmt.Sprintf("workers = %d is more than the %d cores of this machine: the solver's workers will wait for each other", st.Workers, runtime.NumCPU()))
	}
	if backend == "auto" { // cuda when this build has it and a GPU is usable
		backend = "cpu"
		if _, err := gpusim.CUDAAvailable(); err == nil {
			backend = "cuda"
		}
	}
	if backend != "cpu" {
		st.Backend = backend // "cuda", or a test's host-kernel backend (Options.Backend)
	}
	s.cfg = &simConfig{domain: dom, layers: layers, settings: st, backend: backend, at: c.where()}
	apply()
	ud := L.NewUserData()
	ud.Value = s
	ud.Metatable = s.mt.sim
	s.simUD = ud
	L.Push(ud)
	return 1
}

// dt reads vp.sim's and sim:set's dt: "auto" (0 for the solver) or a number > 0.
func (c call) dt(t *lua.LTable) float64 {
	v := t.RawGetString("dt")
	switch v := v.(type) {
	case lua.LString:
		if v == "auto" {
			return 0
		}
	case lua.LNumber:
		f := c.number("dt", v)
		if f <= 0 {
			c.fail("dt is %s s: it must be > 0 seconds, or \"auto\"", fmtNum(f))
		}
		return f
	}
	if v == lua.LNil {
		return 0
	}
	c.fail("dt is %s: want a number of seconds > 0, or \"auto\"", describeValue(v))
	return 0
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
	s.mainWait = &event{t: s.sim.Time() + d, seq: s.seq, main: true, what: "main"}
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
