package script

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// maxRepBytes bounds what string.rep may build (64 MiB): beyond, a script would only
// exhaust memory, and the watchdog cannot stop Go code.
const maxRepBytes = 64 << 20

// metatables are the metatables of the userdata scripts see.
type metatables struct {
	sim, solid, emitter, timer, body, meter, region *lua.LTable
}

// newState makes the sandboxed Lua state: base (without dofile, loadfile, load,
// loadstring), table, string, math and coroutine; no io, os, debug or package. print goes
// to Options.Print, require loads modules beside the script, math.random is the
// scenario's own deterministic generator. The state runs under the scenario's context,
// which the watchdog cancels.
func (s *Scenario) newState() {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	s.L = L
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	for _, name := range []string{"dofile", "loadfile", "load", "loadstring", "module", "_printregs", "require"} {
		L.SetGlobal(name, lua.LNil)
	}
	L.SetGlobal("print", L.NewFunction(s.luaPrint))
	L.SetGlobal("require", L.NewFunction(s.luaRequire))
	if str, ok := L.GetGlobal("string").(*lua.LTable); ok {
		str.RawSetString("dump", lua.LNil)
		str.RawSetString("rep", L.NewFunction(strRep))
	}
	if m, ok := L.GetGlobal("math").(*lua.LTable); ok {
		m.RawSetString("random", L.NewFunction(s.mathRandom))
		m.RawSetString("randomseed", L.NewFunction(s.mathRandomseed))
	}

	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wd.cancel = s.cancel
	// A script that grows fast can outrun the memory monitor's samples on a busy machine
	// and use its CPU budget first (fresh pages cost the thread system time): where what
	// it holds when the watchdog fires is over the limit, memory is the cause to name.
	s.wd.beforeCancel = func() { s.mem.overLimit() }
	s.mem.start(s.memLimit(), s.cancel) // the heap's baseline: the script's memory counts from here
	L.SetContext(s.ctx)
	s.hf.th, _ = L.NewThread() // heightfield fns run here (a child of the context)

	s.mt = metatables{
		sim:     s.newMetatable("sim", s.simMethods()),
		solid:   s.newMetatable("solid", s.solidMethods()),
		emitter: s.newMetatable("source", s.emitterMethods()),
		timer:   s.newMetatable("timer", s.timerMethods()),
		body:    s.newMetatable("body", s.bodyHandleMethods()),
		meter:   s.newMetatable("meter", s.meterMethods()),
		region:  s.newMetatable("region", s.regionHandleMethods()),
	}
	s.vpMod = s.newVPModule()
	L.SetGlobal("vp", s.vpMod)
}

// newMetatable makes a userdata metatable whose __index holds methods; __metatable hides
// it from getmetatable.
func (s *Scenario) newMetatable(kind string, methods []decl) *lua.LTable {
	L := s.L
	mt := L.NewTable()
	idx := L.NewTable()
	names := make([]string, 0, len(methods))
	for _, d := range methods {
		idx.RawSetString(d.name, L.NewFunction(d.fn))
		names = append(names, d.name)
	}
	L.SetMetatable(idx, s.noSuchName(kind+":", "method of "+kind, names)) // sim:sorce{...}: did you mean sim:source?
	mt.RawSetString("__index", idx)
	mt.RawSetString("__metatable", lua.LFalse)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		desc := kind
		if ud, ok := L.Get(1).(*lua.LUserData); ok {
			if d, ok := ud.Value.(interface{ describe() string }); ok {
				desc = d.describe()
			}
		}
		L.Push(lua.LString(desc))
		return 1
	}))
	return mt
}

// luaPrint is print: its arguments through tostring, tab-separated, to Options.Print.
func (s *Scenario) luaPrint(L *lua.LState) int {
	n := L.GetTop()
	parts := make([]string, n)
	for i := 1; i <= n; i++ {
		parts[i-1] = L.ToStringMeta(L.Get(i)).String()
	}
	s.print(strings.Join(parts, "\t"))
	return 0
}

// validModule accepts module names of letters, digits, '_' and '-'.
func validModule(name string) bool {
	if name == "" || len(name) > 200 {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// luaRequire is require: "vp" is the vp module; any other name loads name.lua from the
// script's folder (no folders, no ".."), once, like Lua's require: the module's value is
// what its chunk returns (true if nothing).
func (s *Scenario) luaRequire(L *lua.LState) int {
	c := call{s, L, "require"}
	v := L.Get(1)
	name, ok := v.(lua.LString)
	if !ok {
		c.fail("the module name is %s, want a string", typeName(v))
	}
	if name == "vp" {
		L.Push(s.vpMod)
		return 1
	}
	if !validModule(string(name)) {
		c.fail("%q is not a module name: modules are .lua files beside the script, named without folders or \".lua\" (require(\"helpers\") loads helpers.lua)", string(name))
	}
	if v, ok := s.modules[string(name)]; ok {
		L.Push(v)
		return 1
	}
	if s.loading[string(name)] {
		c.fail("module %q requires itself (a loop of require calls)", string(name))
	}
	path := filepath.Join(s.dir, string(name)+".lua")
	src, err := os.ReadFile(path)
	if err != nil {
		c.fail("no module %q: cannot read %s: %v", string(name), path, unwrapPathError(err))
	}
	fn, err := compile(L, src, path)
	if err != nil {
		e := syntaxError(err, path, src)
		s.addChunk(path)
		L.Error(lua.LString(e.Error()), 0)
	}
	s.addChunk(path)
	s.loading[string(name)] = true
	defer delete(s.loading, string(name))
	L.Push(fn)
	L.Push(name)
	L.Call(1, 1)
	ret := L.Get(-1)
	L.Pop(1)
	if ret == lua.LNil {
		ret = lua.LTrue
	}
	s.modules[string(name)] = ret
	L.Push(ret)
	return 1
}

func (s *Scenario) addChunk(path string) {
	for _, c := range s.chunks {
		if c == path {
			return
		}
	}
	s.chunks = append(s.chunks, path)
}

// unwrapPathError drops the path an *os.PathError repeats.
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// strRep is string.rep with the result bounded by maxRepBytes.
func strRep(L *lua.LState) int {
	str := L.CheckString(1)
	n := L.CheckNumber(2)
	if !(n >= 1) || len(str) == 0 { // NaN too
		L.Push(lua.LString(""))
		return 1
	}
	if float64(n)*float64(len(str)) > maxRepBytes {
		L.RaiseError("string.rep: the result would be %.3g bytes: at most %d", float64(n)*float64(len(str)), maxRepBytes)
	}
	L.Push(lua.LString(strings.Repeat(str, int(n))))
	return 1
}

// mathRandom is math.random on the scenario's generator (seeded with 0, so that a
// script gives the same numbers on every run; math.randomseed changes the seed).
func (s *Scenario) mathRandom(L *lua.LState) int {
	const big = 1 << 53
	intArg := func(n int) int64 {
		v := float64(L.CheckNumber(n))
		if math.IsNaN(v) || math.Abs(v) > big {
			L.ArgError(n, fmtNum(v)+" is not an integer within +-2^53")
		}
		return int64(math.Floor(v))
	}
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(s.rng.Float64()))
	case 1:
		m := intArg(1)
		if m < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(s.rng.Int64N(m) + 1))
	default:
		lo, hi := intArg(1), intArg(2)
		if lo > hi {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(lo + s.rng.Int64N(hi-lo+1)))
	}
	return 1
}

func (s *Scenario) mathRandomseed(L *lua.LState) int {
	v := float64(L.CheckNumber(1))
	seed := math.Float64bits(v)
	if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
		seed = uint64(int64(v))
	}
	s.ck.pcg = rand.NewPCG(seed, 0) // its state goes into checkpoints
	s.rng = rand.New(s.ck.pcg)
	return 0
}
