package script

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vpbench/vpbench/scene"
)

// luaQuote writes s as a Lua string literal (decimal escapes for anything unusual).
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// luaNumber writes f as a Lua expression.
func luaNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "(0/0)"
	case math.IsInf(f, 1):
		return "(1/0)"
	case math.IsInf(f, -1):
		return "(-1/0)"
	}
	return "(" + strconv.FormatFloat(f, 'g', -1, 64) + ")"
}

// luaValue makes a value of the kind chosen by k from the fuzzed number and string.
func luaValue(k uint8, f float64, s string) string {
	switch k % 8 {
	case 0:
		return luaNumber(f)
	case 1:
		return luaQuote(s)
	case 2:
		return "{" + luaNumber(f) + ", " + luaNumber(f/3) + "}"
	case 3:
		return "{" + luaNumber(f) + ", " + luaQuote(s) + "}"
	case 4:
		return strconv.FormatBool(f > 0)
	case 5:
		return "nil"
	case 6:
		return "{" + luaNumber(f) + ", " + luaNumber(f) + ", " + luaNumber(f) + "}"
	}
	return "function() return " + luaNumber(f) + " end"
}

// checkScriptResult is the fuzzers' invariant: a scenario, or an *Error with a place.
func checkScriptResult(t *testing.T, s *Scenario, err error, src string) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not a *script.Error\nscript:\n%s", err, err, src)
		}
		if e.File == "" || e.Msg == "" || e.Line < 0 {
			t.Fatalf("error without a place or message: %#v", e)
		}
		return
	}
	defer s.Close()
	for i := 0; i < 3; i++ {
		done, err := s.Advance(4)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Advance: %v (%T) is not a *script.Error\nscript:\n%s", err, err, src)
			}
			return
		}
		if done {
			break
		}
	}
	in := s.Info()
	if in.Nx < 1 || in.Ny < 1 || in.Dt <= 0 || math.IsNaN(s.Scene().Volume()) {
		t.Fatalf("bad scenario: %+v", in)
	}
}

func fuzzSetup(f *testing.F) {
	old := testMaxCells
	testMaxCells = 20000
	f.Cleanup(func() { testMaxCells = old })
}

// FuzzSimFields fuzzes two fields of vp.sim's table (names and values of any type) on top
// of a small valid grid, then builds a terrain, fills it and steps.
func FuzzSimFields(f *testing.F) {
	fuzzSetup(f)
	for _, name := range simFields {
		f.Add(name, uint8(0), 0.001, "auto", "layers", uint8(0), 3.0, "")
		f.Add(name, uint8(1), -1.0, "paper", "dt", uint8(1), 0.0, "auto")
	}
	f.Add("size", uint8(2), 0.02, "", "dx", uint8(0), 0.0005, "")
	f.Add("dx", uint8(0), math.NaN(), "", "layers", uint8(0), math.Inf(1), "")
	f.Add("size", uint8(3), 1e300, "x", "height", uint8(0), 1e-300, "")
	f.Add("cross_section", uint8(1), 0.0, "film", "extended_pipes", uint8(1), 0.0, "axis")
	f.Add("backend", uint8(1), 0.0, "cuda", "workers", uint8(0), 3.0, "")
	f.Add("\x00", uint8(7), 1.0, "\xff", "", uint8(4), 1.0, "")
	f.Fuzz(func(t *testing.T, f1 string, k1 uint8, n1 float64, s1 string, f2 string, k2 uint8, n2 float64, s2 string) {
		src := "local t = { size = {0.01, 0.01}, height = 0.01, dx = 0.001, workers = 1 }\n" +
			"t[" + luaQuote(f1) + "] = " + luaValue(k1, n1, s1) + "\n" +
			"t[" + luaQuote(f2) + "] = " + luaValue(k2, n2, s2) + "\n" +
			"local sim = vp.sim(t)\n" +
			"sim:terrain(vp.union(vp.box{ min = {0, 0, 0}, max = {0.004, 0.004, 0.002} }, vp.plane{ point = {0, 0, 0.001} }))\n" +
			"sim:fill{ at = {0.001, 0.001, 0.003}, level = 0.003 }\n" +
			"sim:source{ at = {0.001, 0.001, 0.005}, rate = 1e-9 }\n" +
			"function main() vp.wait(0.005) print(sim:volume()) end\n"
		s, err := LoadSource("fuzz.lua", []byte(src), Options{Workers: -1, CallbackTimeout: time.Second})
		checkScriptResult(t, s, err, src)
	})
}

// FuzzLoadSource loads arbitrary script text.
func FuzzLoadSource(f *testing.F) {
	fuzzSetup(f)
	for _, p := range []string{"testdata/contract.lua", "testdata/helpers.lua", "testdata/uses_helpers.lua", "testdata/mesh_open.lua"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{
		small,
		small + "function main() vp.wait(0.01) error('x') end",
		small + "sim:every(0.001, function() sim:terrain(vp.sphere{ center = {0.005, 0.005, 0}, radius = 0.003 }) end)",
		small + "main = coroutine.wrap(function() vp.wait(1) end)",
		small + "local co = coroutine.create(vp.wait) print(coroutine.resume(co, 1))",
		small + "sim:at(-1, function() vp.sim{} end)",
		"local sim = vp.sim{ size = {0.01, 0.01}, dx = 0.001 } sim:terrain(vp.heightfield{ fn = function(x, y) return vp.wait(1) end })",
		"vp.sim{} function main() while true do vp.wait(0) end end",
		"x = = 1",
		"#!/usr/bin/env vpbench\n" + small,
		"\xef\xbb\xbf" + small,
		"error(setmetatable({}, {__tostring = function() error('inner') end}))",
		"return string.rep('ab', 1e7):len()",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := LoadSource("fuzz.lua", []byte(src), Options{Workers: -1, CallbackTimeout: 100 * time.Millisecond})
		checkScriptResult(t, s, err, src)
	})
}

// TestHostileScripts are scripts that attack the host side: none may crash the process.
func TestHostileScripts(t *testing.T) {
	for _, src := range []string{
		small + "setmetatable(_G, {__index = function() error('no globals') end})",
		small + "main = nil setmetatable(_G, {__index = function(t, k) while true do end end})",
		small + "local saved\nfunction main() saved = coroutine.running() vp.wait(0.01) end\nsim:at(0.005, function() print(coroutine.resume(saved)) end)",
		small + "function main() print(coroutine.resume(coroutine.running())) end",
		small + "print(string.rep('x', 0/0), string.rep('x', -1), string.rep('', 1e300))",
		small + "print(setmetatable({}, {__tostring = function() return {} end}))",
		small + "error(setmetatable({}, {__tostring = function() error('inner') end}))",
		small + "print(pcall(unpack, {}, 1, 1e8))",
		small + "setfenv(1, {})",
		small + "sim:terrain(vp.heightfield{ fn = function(x, y) sim:fill{ at = {x, y, 0}, level = 1 } return 0 end })",
		small + "sim:terrain(vp.heightfield{ fn = function(x, y) return sim:time() end })",
		small + "sim:terrain(vp.heightfield{ fn = function(x, y) sim:terrain(vp.box{ min = {0, 0, 0}, max = {1, 1, 1} }) return 0 end })",
	} {
		s, err := LoadSource("hostile.lua", []byte(src), Options{Workers: -1, CallbackTimeout: 100 * time.Millisecond})
		checkScriptResult(t, s, err, src)
		t.Logf("%v", err)
	}
}

// ---- FuzzLuaAPI: random programs of vp.* and sim:* calls ----
//
// A program is a random sequence of calls of every declared function (vp.*, sim:*,
// solid:*, source:*, timer:*) at the top level, in main between vp.waits, in sim:at and
// sim:every callbacks and in heightfield fns, with arguments mostly of the right shape and
// sometimes wrong: another type, nil, NaN, +-inf, 1e308, negative, empty and nested
// tables, unknown keys, long strings, functions, extra or missing arguments, a dot call
// instead of a colon call, self of another kind. Most calls run in pcall and report to
// the test through print ("\x01name\x01message" on error, "\x02name" on success); a few
// run unprotected, so that their errors come out of LoadSource or Advance. The
// properties: no Go panic escapes, no program runs past its watchdog, and every error is
// a message that names the function (heuristic: it contains "sim:fill", "vp.box", ...)
// with no trace of a Go failure ("runtime error", "interface conversion", ...).

// apiArg is one argument as the generator makes it: a value of a kind (see plausible),
// or a table of named fields (kind "table").
type apiArg struct {
	kind   string
	fields []apiField
	opt    bool // may be left out
}

type apiField struct {
	name, kind string
	required   bool
}

// tableArg makes a table argument from "name:kind" fields ("name:kind!" when required).
func tableArg(fields ...string) apiArg {
	a := apiArg{kind: "table"}
	for _, f := range fields {
		name, kind, _ := strings.Cut(f, ":")
		req := strings.HasSuffix(kind, "!")
		a.fields = append(a.fields, apiField{name, strings.TrimSuffix(kind, "!"), req})
	}
	return a
}

func posArg(kind string) apiArg { return apiArg{kind: kind} }
func optArg(a apiArg) apiArg    { a.opt = true; return a }

// settingFields are the fields vp.sim and sim:set share (changeable), with their kinds.
var settingFields = []string{"viscosity:visc", "damping:unit", "gravity:grav", "cross_section:choice:paper|film",
	"extended_pipes:choice:unified|axis|off", "falling:choice:particles|off", "fall_drop:len", "dt:dt", "workers:workers",
	"depth_max:len", "meniscus_length:len", "contact_angle:contact", "meniscus:bool", "liquid:liquid", "absorption:absorb",
	"capillarity:choice:on|off", "surface_tension:tension", "density:density", "sides:sides", "capillary_pressure:choice:on|off",
	"waves:choice:on|off", "wave_amplitude:unit", "wave_particles:workers", "method:choice:pipes|swe"}

// apiSpecs are the arguments of every declared function. A function missing here is
// still fuzzed (with arguments of any kind), but TestLuaAPIFuzzKnowsEveryFunction fails.
var apiSpecs = map[string][]apiArg{
	"vp.sim":             {tableArg(append([]string{"size:size", "height:height", "dx:dx", "layers:layers", "backend:choice:cpu|auto|cuda"}, settingFields...)...)},
	"vp.param":           {posArg("pname"), posArg("pdef")},
	"vp.wait":            {posArg("wait")},
	"vp.box":             {tableArg("min:lo3!", "max:hi3!")},
	"vp.sphere":          {tableArg("center:vec3!", "radius:len!")},
	"vp.cylinder":        {tableArg("base:vec3!", "axis:dir3", "radius:len!", "length:len!")},
	"vp.plane":           {tableArg("point:vec3!", "normal:dir3")},
	"vp.heightfield":     {tableArg("fn:hf!")},
	"vp.mesh":            {posArg("mesh"), optArg(tableArg("scale:meshscale", "up:choice:z|y", "place:choice:none|floor", "at:vec2"))},
	"vp.union":           {posArg("solids")},
	"vp.intersection":    {posArg("solids")},
	"vp.difference":      {posArg("solid"), posArg("solid")},
	"solid:translate":    {posArg("offset")},
	"solid:rotate":       {tableArg("axis:dir3!", "angle:angle!")},
	"solid:scale":        {posArg("scale")},
	"sim:terrain":        {posArg("solid")},
	"sim:fill":           {tableArg("at:vec3!", "level:z!")},
	"sim:drop":           {tableArg("at:vec3!", "volume:vol!", "velocity:vel3")},
	"sim:source":         {tableArg("at:vec3!", "radius:len", "rate:rate!", "start:t", "stop:t", "falls:bool", "velocity:vel3", "level:z")},
	"sim:sink":           {tableArg("at:vec3!", "radius:len", "rate:rate!", "start:t", "stop:t", "level:z")},
	"sim:spray":          {tableArg("at:vec3!", "direction:dir3", "speed:speed!", "spread:spread", "rate:rate!", "start:t", "stop:t", "seed:seed", "radius:len")},
	"sim:set":            {tableArg(settingFields...)},
	"sim:time":           {},
	"sim:at":             {posArg("t"), posArg("fn")},
	"sim:every":          {posArg("period"), posArg("fn")},
	"sim:volume":         {optArg(tableArg("min:vec2", "max:hi2", "floor_above:zlo", "floor_below:z"))},
	"sim:depth":          {posArg("x"), posArg("y")},
	"sim:columns":        {posArg("x"), posArg("y")},
	"sim:stats":          {},
	"sim:info":           {},
	"sim:export_mesh":    {posArg("outpath:obj|ply"), optArg(tableArg("ascii:bool"))},
	"sim:export_terrain": {posArg("outpath:obj|ply"), optArg(tableArg("ascii:bool"))},
	"sim:export_bodies":  {posArg("outpath:obj|ply"), optArg(tableArg("ascii:bool"))},
	"sim:camera":         {tableArg("eye:vec3!", "target:vec3!", "fov:fov")},
	"sim:screenshot":     {posArg("outpath:png")},
	"sim:record":         {tableArg("path:outpath:mp4|png!", "fps:fps")},
	"sim:save":           {posArg("outpath:vpc")},
	"sim:report":         {posArg("report")},
	"sim:wave":           {tableArg("at:vec3!", "amplitude:len!", "radius:len")},
	"sim:wave_height":    {posArg("x"), posArg("y")},
	"sim:velocity":       {posArg("x"), posArg("y")},
	"source:set_rate":    {posArg("rate")},
	"source:stop":        {},
	"timer:cancel":       {},
	"sim:body":           {tableArg("solid:solid!", "density:density!", "at:vec3", "rotate:rotate", "color:color")},
	"sim:bodies":         {},
	"body:position":      {},
	"body:velocity":      {},
	"body:rotation":      {},
	"body:submerged":     {},
	"body:info":          {},
	"body:push":          {tableArg("force:vel3!", "at:vec3", "duration:t")},
	"body:set":           {tableArg("density:density", "velocity:vel3", "color:color")},
	"body:remove":        {},
	"sim:flow":           {tableArg("from:vec2!", "to:vec2!", "zmin:z", "zmax:z")},
	"meter:rate":         {},
	"meter:total":        {},
}

// chooser drives the generator: intn(n) is in [0, n). The fuzz target's chooser reads
// the fuzzed bytes (0 once they run out), the seeded test's a PCG generator.
type chooser interface{ intn(n int) int }

type rngChooser struct{ r *rand.Rand }

func (c rngChooser) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return c.r.IntN(n)
}

type byteChooser struct {
	b []byte
	i int
}

func (c *byteChooser) intn(n int) int {
	if n <= 1 || c.i >= len(c.b) {
		return 0
	}
	v := int(c.b[c.i])
	c.i++
	if n > 256 && c.i < len(c.b) {
		v = v<<8 | int(c.b[c.i])
		c.i++
	}
	return v % n
}

// progGen writes one program. Choice 0 is always the sane one, so that a fuzzed input
// that runs out of bytes ends in a plain program.
type progGen struct {
	c      chooser
	names  []string        // the declared functions, sorted
	unprot map[string]bool // functions called without pcall: an error may come out of Load or Advance
	calls  int             // calls written
	hfs    int             // heightfield fns written (each runs once a cell: they hold no calls after the first)
}

func (g *progGen) n(n int) int { return g.c.intn(n) }

// chance is true pct times in 100 (never once the fuzzed bytes run out).
func (g *progGen) chance(pct int) bool { return g.n(100) >= 100-pct }

func (g *progGen) pick(list ...string) string { return list[g.n(len(list))] }

func (g *progGen) slot() string { return fmt.Sprintf("V[%d]", 1+g.n(8)) }

const simLine = "vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, workers = 1 }" // 20 x 20 cells

// program writes a whole program.
func (g *progGen) program() string {
	var b strings.Builder
	b.WriteString(`local V = {}
local LONG = string.rep("ab", 3000)
local function P(name, ok, ...)
  if ok then print("\2" .. name) return (...) end
  print("\1" .. name .. "\1" .. tostring((...)))
end
`)
	if g.chance(15) {
		g.calls++
		t := g.table(apiSpecs["vp.sim"][0], 1)
		if !g.chance(25) { // a small grid unless the table says otherwise
			t = "(function(t) t.size = t.size or {0.02, 0.02} t.dx = t.dx or 0.001 return t end)(" + t + ")"
		}
		fmt.Fprintf(&b, "local sim = P(\"vp.sim\", pcall(vp.sim, %s)) or %s\n", t, simLine)
	} else {
		b.WriteString("local sim = " + simLine + "\n")
	}
	// Values of each kind, and the functions of each object (they are looked up on these,
	// so that a call on a value of the wrong kind still reaches the function).
	b.WriteString(`local I = sim:info()
local SOL = vp.box{ min = {0.002, 0.002, 0}, max = {0.012, 0.012, 0.003} }
local SRC = sim:source{ at = {I.dx / 2, I.dx / 2, I.height / 2}, rate = 1e-9 }
local SNK = sim:sink{ at = {I.dx / 2, I.dx / 2, I.height / 2}, rate = 1e-9 }
local TMR = sim:at(1e9, function() end)
local BOD = sim:body{ solid = vp.box{ min = {0.004, 0.004, 0.001}, max = {0.008, 0.008, 0.003} }, density = 500 }
local _, MET = pcall(sim.flow, sim, { from = {I.dx * 2, 0}, to = {I.dx * 2, I.dx * 4} })
`)
	for i := 0; i < 2+g.n(10); i++ {
		b.WriteString(g.stmt("top", 0))
	}
	switch {
	case g.chance(3):
		b.WriteString("main = " + g.pick("print", "vp.wait", "vp.box", "error", "coroutine.yield", "sim.time") + "\n")
	case g.chance(90) || g.n(2) == 0:
		b.WriteString("function main()\n")
		for i := 0; i < 1+g.n(8); i++ {
			if g.n(3) == 0 {
				b.WriteString(g.wait())
			} else {
				b.WriteString(g.stmt("main", 0))
			}
		}
		b.WriteString("end\n")
	}
	return b.String()
}

// wait is a vp.wait in main: mostly a plain one, sometimes a bad one (whose error ends
// the run) or one inside pcall (which cannot yield).
func (g *progGen) wait() string {
	g.calls++
	switch {
	case g.chance(8):
		g.unprot["vp.wait"] = true
		return "vp.wait(" + g.weird() + ")\n"
	case g.chance(8):
		return "P(\"vp.wait\", pcall(vp.wait, 0.001))\n"
	}
	return "vp.wait(" + g.pick("0.001", "0", "0.0005", "0.003") + ")\n"
}

// stmt writes one call of a random declared function in context ctx (top, main, cb for
// a callback, hf for a heightfield fn) at callback depth depth.
func (g *progGen) stmt(ctx string, depth int) string {
	name := g.names[g.n(len(g.names))]
	if (name == "vp.sim" || name == "vp.wait") && g.n(3) > 0 { // (errors but once)
		name = g.names[g.n(len(g.names))]
	}
	g.calls++
	prefix, method, _ := strings.Cut(name, ":")
	fnExpr, self := name, ""
	if method != "" {
		obj, s := map[string][2]string{"sim": {"sim", "sim"}, "solid": {"SOL", g.pick("SOL", "SOL", "SOL:scale(0.5)", g.slot())},
			"source": {"SRC", g.pick("SRC", "SNK")}, "timer": {"TMR", "TMR"}, "body": {"BOD", "BOD"}, "meter": {"MET", "MET"}}[prefix], ""
		if obj[0] == "" { // a new kind of object: call it on the values there are
			obj = [2]string{"SOL", "SOL"}
		}
		fnExpr, s = obj[0]+"."+method, obj[1]
		self = s
		if g.chance(10) { // a dot call (no self), or self of another kind
			self = g.pick("", "SOL", "sim", "SRC", "TMR", "BOD", "V[1]", "{}", "nil", "42")
		}
	}
	args := g.args(name, depth)
	if self != "" {
		args = append([]string{self}, args...)
	}
	slot := g.slot()
	var st string
	if ctx != "hf" && g.chance(3) {
		g.unprot[name] = true
		st = fmt.Sprintf("%s = %s(%s)\n", slot, fnExpr, strings.Join(args, ", "))
	} else {
		st = fmt.Sprintf("%s = P(%q, pcall(%s))\n", slot, name, strings.Join(append([]string{fnExpr}, args...), ", "))
	}
	if name == "sim:record" {
		stop := g.pick(slot, "nil", "sim")
		st += fmt.Sprintf("if type(%s) == \"table\" and %s.stop then P(\"recording:stop\", pcall(%s.stop, %s)) end\n", slot, slot, slot, stop)
		g.calls++
	}
	return st
}

// args writes the arguments of a call of name.
func (g *progGen) args(name string, depth int) []string {
	spec, ok := apiSpecs[name]
	if !ok { // not in apiSpecs: anything
		spec = nil
		for i := 0; i < g.n(4); i++ {
			spec = append(spec, posArg("any"))
		}
	}
	if g.chance(3) {
		return nil
	}
	var out []string
	for _, a := range spec {
		if a.opt && g.n(3) == 0 {
			break
		}
		switch {
		case g.chance(5):
			out = append(out, g.weird())
		case a.kind == "table":
			out = append(out, g.table(a, depth))
		default:
			out = append(out, g.value(a.kind, depth))
		}
	}
	if len(out) > 0 && g.chance(5) {
		out = out[:len(out)-1]
	}
	if g.chance(6) {
		for i := 0; i <= g.n(2); i++ {
			out = append(out, g.weird())
		}
	}
	return out
}

// table writes a table argument: required fields (mostly), optional ones (sometimes),
// and sometimes a key that is not a field.
func (g *progGen) table(a apiArg, depth int) string {
	var parts []string
	optPct := 30
	if len(a.fields) > 8 { // vp.sim, sim:set: a few settings at a time
		optPct = 8
	}
	for _, f := range a.fields {
		if f.required && g.chance(8) || !f.required && !g.chance(optPct) {
			continue
		}
		parts = append(parts, f.name+" = "+g.value(f.kind, depth))
	}
	if g.chance(8) {
		bad := g.pick("Foo = 1", "[1] = 2", "[true] = 1", "[2.5] = 'x'", "[{}] = 1", "[string.rep('k', 100)] = 1")
		if len(a.fields) > 0 && g.n(2) == 0 {
			f := a.fields[g.n(len(a.fields))].name
			bad = strings.ToUpper(f[:1]) + f[1:] + " = 1"
		}
		parts = append(parts, bad)
	}
	g.shuffle(parts)
	return "{ " + strings.Join(parts, ", ") + " }"
}

func (g *progGen) shuffle(s []string) {
	for i := len(s) - 1; i > 0; i-- {
		j := g.n(i + 1)
		s[i], s[j] = s[j], s[i]
	}
}

func (g *progGen) coord(hi int) string {
	if g.chance(5) {
		return g.pick("-0.001", "0.021", "0.02", "0", "1e-9")
	}
	return strconv.FormatFloat(float64(g.n(hi+1))*0.001, 'g', -1, 64)
}

// value writes a value of a kind: the right shape (mostly), or anything.
func (g *progGen) value(kind string, depth int) string {
	if g.chance(7) {
		return g.weird()
	}
	kind, param, _ := strings.Cut(kind, ":")
	vec := func(xs ...string) string { return "{" + strings.Join(xs, ", ") + "}" }
	switch kind {
	case "x", "y":
		return g.coord(20)
	case "z":
		return g.coord(10)
	case "zlo":
		return g.pick("0", "-1", "0.001")
	case "len":
		return strconv.FormatFloat(float64(1+g.n(8))*0.001, 'g', -1, 64)
	case "vec3":
		return vec(g.coord(20), g.coord(20), g.coord(10))
	case "lo3":
		return vec(g.coord(8), g.coord(8), g.pick("0", "-1", "0.001"))
	case "hi3":
		return vec(g.pick("0.015", "0.01", "0.02", "0.001"), g.pick("0.015", "0.012", "1"), g.coord(10))
	case "vec2":
		return vec(g.coord(20), g.coord(20))
	case "hi2":
		return vec(g.pick("0.02", "0.01"), g.pick("0.02", "0.015"))
	case "dir3":
		return g.pick("{0, 0, 1}", "{1, 0, 0}", "{0, 1, 1}", "{0, 0, -1}", "{0, 0, 0}", "{1e-300, 0, 0}")
	case "vel3":
		return g.pick("{0, 0, 0}", "{0.1, 0, 0}", "{0, 0, -1}", "{100, 0, 0}")
	case "speed":
		return g.pick("0.2", "1", "0", "-1", "100")
	case "spread":
		return g.pick("{0.3, 0.2}", "{0, 0}", "0.5", "{0, 1}", "{3.14159, 3.14159}", "{4, 0}", "{-1, 0}", "{1, 2, 3}", "{45, 10}")
	case "seed":
		return g.pick("0", "1", "42", "-1", "2.5", "9007199254740993")
	case "offset":
		if g.n(3) == 2 {
			return g.pick("0.001, 0, 0", "0, 0, 0.001")
		}
		return g.pick("{0.001, 0, 0}", "{0, 0.002, -0.001}", "{0, 0, 0}")
	case "angle":
		return g.pick("0.5", "0", "1.5707963", "3.14159", "-1", "1e9")
	case "scale":
		return g.pick("1", "0.5", "2", "0.001", "1e6")
	case "meshscale":
		return g.pick("0.001", "0.002", "1", "1e-9", "1e300")
	case "rate":
		return g.pick("1e-9", "0", "1e-7", "1e-6")
	case "vol":
		return g.pick("1e-9", "1e-8", "0", "1e-6")
	case "t":
		return g.pick("0", "0.0005", "0.001", "0.002", "0.005")
	case "report":
		return g.pick("{ level = 0.001 }", "{ a = 1, b = -2.5, ['c.d-e'] = 0 }", "{}", "{ level = sim:volume() }",
			"{ x = (0/0) }", "{ [1] = 2 }", "{ ['bad name'] = 1 }", "{ y = 'n' }", "{ [LONG] = 1 }")
	case "period":
		return g.pick("0.001", "0.0005", "0.002")
	case "wait":
		return g.pick("0.001", "0", "0.0005")
	case "fps":
		return g.pick("30", "1", "60", "1000")
	case "fov":
		return g.pick("35", "60", "1", "170", "0")
	case "bool":
		return g.pick("true", "false")
	case "choice":
		return strconv.Quote(g.pick(strings.Split(param, "|")...))
	case "fn":
		return g.callback(depth + 1)
	case "hf":
		return g.heightfieldFn(depth + 1)
	case "solid":
		return g.pick("SOL", g.slot(), "vp.sphere{ center = {0.01, 0.01, 0}, radius = 0.004 }", "SOL:translate{0.001, 0, 0}",
			"vp.plane{ point = {0, 0, 0.002} }")
	case "solids":
		var s []string
		for i := 0; i <= g.n(3); i++ {
			s = append(s, g.value("solid", depth))
		}
		if g.n(4) == 3 {
			return "{" + strings.Join(s, ", ") + "}"
		}
		return strings.Join(s, ", ")
	case "outpath":
		ext := g.pick(strings.Split(param, "|")...)
		return strconv.Quote(g.pick("out."+ext, "sub/x."+ext, "f_%04d."+ext, "x.txt", "../x."+ext, "/tmp/vpbench-fuzz."+ext, ""))
	case "mesh":
		return strconv.Quote(g.pick("cube.obj", "open.obj", "patch.obj", "missing.obj", "cube.stl", "contract.lua", "../testdata/cube.obj", "/nonexistent/x.obj", ""))
	case "pname":
		return g.pick(`"nu"`, `"flag"`, `"other"`, `""`, "LONG")
	case "pdef":
		return g.pick("1", `"s"`, "true", "nil", "{}", "print")
	case "visc":
		return g.pick("1e-6", "0", "1e-3", "1")
	case "unit":
		return g.pick("0", "0.5", "1")
	case "grav":
		return g.pick("9.81", "1", "100")
	case "dt":
		return g.pick(`"auto"`, "1e-4", "1e-5", "1")
	case "workers":
		return g.pick("1", "0", "2")
	case "contact":
		return g.pick("0.5", "1.5", "{1.2, 0.8}", "{0.8, 1.2}", "3.2")
	case "liquid":
		return g.pick(`"water"`, `"blood"`, `"coffee"`, `"paint"`, "{0.2, 0.3, 0.9}", `"lava"`, "{2, 0, 0}")
	case "rotate":
		return g.pick("{ axis = {0, 0, 1}, angle = 0.5 }", "{ axis = {0, 0, 0}, angle = 1 }", "{ angle = 1 }", "{ axis = {1, 0, 0} }", "42")
	case "color":
		return g.pick("{0.9, 0.1, 0.1}", "{2, 0, 0}", "{0, 0}", `"red"`)
	case "absorb":
		return g.pick("{1, 2, 3}", "{400, 24000, 15000}", "{-1, 0, 0}", "{1e9, 0, 0}")
	case "tension":
		return g.pick("0.072", "0", "0.05", "-1")
	case "density":
		return g.pick("1000", "1", "13500", "0")
	case "sides":
		return g.pick(`"walls"`, `"open"`, `{ minus_x = "open" }`, `{ plus_y = "walls", minus_y = "open" }`, `{ up = "open" }`)
	case "size":
		return g.pick("{0.02, 0.02}", "{0.01, 0.02}", "{0.03, 0.01}", "{0.001, 0.001}")
	case "height":
		return g.pick("0.01", "0.02", "0.005")
	case "dx":
		return g.pick("0.001", "0.002", "0.0005", "0.004")
	case "layers":
		return g.pick("5", "1", "8", "65536")
	}
	return g.weird()
}

// weird writes a value of any kind, most of them wrong for any argument.
func (g *progGen) weird() string {
	switch g.n(20) {
	case 0:
		return "nil"
	case 1, 2:
		return luaNumber([]float64{0, -1, 1e308, -1e308, math.NaN(), math.Inf(1), math.Inf(-1), 5e-324,
			1 << 53, 1e9, -0.5, 0.5, 1 << 63, 1e-12, 3.7, 256, 65537}[g.n(17)])
	case 3:
		return luaQuote(g.pick("", "x", "auto", "\x00", "../x.png", "%s%d%q", "walls", "nan", "cube.obj", "\xff\xfe", "out.PNG", "1e3"))
	case 4:
		return g.pick("true", "false")
	case 5:
		return "{}"
	case 6:
		return "{{1, 2}, {3, {4}}}"
	case 7:
		return g.pick("{1, 2, 3}", "{1, 2}", "{1, 2, 3, 4}", "{0.001, 0.001, 0.001}")
	case 8:
		return g.pick("{ foo = 1 }", "{ x = 1, y = 2, z = 3 }", "{ min = {0, 0, 0} }")
	case 9:
		return g.pick("function() end", "function() return 1 end", "print", "vp.box")
	case 10:
		return g.pick("sim", "SOL", "SRC", "SNK", "TMR", "vp")
	case 11:
		return g.slot()
	case 12:
		return "LONG"
	case 13:
		return g.pick("{(0/0), (1/0), (-1/0)}", "{1e308, -1e308, 1e308}", "{(0/0), 0}")
	case 14:
		return g.pick("{[0.5] = 1, [true] = 2}", "{[3] = 1}", "{1, nil, 3}", "{[-1] = 1, [0] = 2}")
	case 15:
		return "coroutine.create(function() end)"
	case 16:
		return "setmetatable({}, {__index = function() error('meta') end, __len = function() return 1e9 end})"
	case 17:
		return "{ {} }"
	case 18:
		return g.pick("math.huge", "-math.huge", "math.pi")
	}
	return "V"
}

// callback writes a sim:at or sim:every fn: a few calls (none below depth 2), rarely an
// endless loop (the watchdog's).
func (g *progGen) callback(depth int) string {
	if depth >= 2 || g.chance(10) {
		return "function() end"
	}
	if g.chance(2) {
		return "function() while true do end end"
	}
	var b strings.Builder
	b.WriteString("function(t)\n")
	for i := 0; i < 1+g.n(3); i++ {
		b.WriteString(g.stmt("cb", depth))
	}
	b.WriteString("end")
	return b.String()
}

// heightfieldFn writes a vp.heightfield fn: mostly a plain height, sometimes a bad one
// (NaN, a string, an error, an endless loop), and in the first one of a program a call
// (most vp functions are refused inside the fn).
func (g *progGen) heightfieldFn(depth int) string {
	g.hfs++
	var b strings.Builder
	b.WriteString("function(x, y)\n")
	if g.hfs == 1 && depth < 2 && g.chance(15) {
		b.WriteString(g.stmt("hf", depth))
	}
	ret := "0.002 + 0.1 * x"
	if g.chance(25) {
		ret = g.pick("0.003", "x * y * 10", "(0/0)", "nil", "'high'", "error('hf boom')", "1e308", "-1e308", "(1/0)", "-1", "{}", "sim:time()")
	}
	if g.chance(1) {
		ret = "(function() while true do end end)()"
	}
	b.WriteString("return " + ret + "\nend")
	return b.String()
}

// apiRecord is one call's outcome as the program printed it.
type apiRecord struct {
	name, msg string
	ok        bool
}

// apiRun is what running one program gave.
type apiRun struct {
	records []apiRecord
	err     error // from LoadSource or Advance
	elapsed time.Duration
}

// fuzzEnv is where programs run: the script's folder (meshes) as Options.Files, a
// temporary working folder for the files sim:export_mesh writes, small grids.
func fuzzEnv(tb testing.TB) Options {
	dir, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
	old := testMaxCells
	testMaxCells = 2500
	tb.Cleanup(func() { testMaxCells = old })
	tb.Chdir(tb.TempDir())
	return Options{Workers: -1, CallbackTimeout: 100 * time.Millisecond, Files: os.DirFS(dir),
		Params:     map[string]string{"nu": "4e-5", "flag": "maybe"},
		Screenshot: func(*scene.Scene, string) error { return nil },
		Record:     func(string, float64) (func() error, error) { return func() error { return nil }, nil }}
}

// runProgram loads src and advances it a few times, collecting what it printed. A Go
// panic is returned as panicked.
func runProgram(src string, o Options) (r apiRun, panicked any) {
	var mu sync.Mutex
	o.Print = func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.HasPrefix(msg, "\x01"):
			name, m, _ := strings.Cut(msg[1:], "\x01")
			r.records = append(r.records, apiRecord{name: name, msg: m})
		case strings.HasPrefix(msg, "\x02"):
			r.records = append(r.records, apiRecord{name: msg[1:], ok: true})
		}
	}
	t0 := time.Now()
	defer func() {
		r.elapsed = time.Since(t0)
		panicked = recover()
	}()
	s, err := LoadSource("testdata/fuzz.lua", []byte(src), o)
	if err != nil {
		r.err = err
		return r, nil
	}
	defer s.Close()
	for i := 0; i < 6; i++ {
		done, err := s.Advance(8)
		if err != nil {
			r.err = err
			break
		}
		if done {
			break
		}
	}
	return r, nil
}

// goFailures are what a message shows when Go failed rather than the script.
var goFailures = []string{"runtime error", "interface conversion", "index out of range", "nil pointer", "invalid memory address",
	"goroutine ", "panic", "bad argument #", "%!", "<nil>", "*lua.", "lua.L", "&{", "map[", "0xc0"}

// unnamed says what is wrong with an error message of a call of one of names ("" if
// nothing): it must name the function (a sink's methods are "sink:..."), or be a
// heightfield fn's failure or a timeout, which carry their own context.
func unnamed(msg string, names ...string) string {
	for _, f := range goFailures {
		if strings.Contains(msg, f) {
			return fmt.Sprintf("shows a Go failure (%q)", f)
		}
	}
	if strings.Contains(msg, "vp.heightfield") || strings.Contains(msg, "callback ran longer than") {
		return ""
	}
	for _, n := range names {
		if strings.Contains(msg, n) || strings.HasPrefix(n, "source:") && strings.Contains(msg, "sink:"+n[len("source:"):]) {
			return ""
		}
	}
	return fmt.Sprintf("does not name %s", strings.Join(names, " or "))
}

// timedOut reports whether a program ended on the watchdog: the context's cancellation
// then shows in pcall's results too.
func timedOut(err error) bool {
	return err != nil && strings.Contains(err.Error(), "callback ran longer than")
}

// maxProgramTime is the most one program may take: its watchdog stops Lua after 100 ms.
const maxProgramTime = 5 * time.Second

// checkProgram is the fuzzers' invariant on one program's run: problems are returned,
// one a line.
func checkProgram(src string, g *progGen, r apiRun, panicked any) []string {
	var bad []string
	if panicked != nil {
		bad = append(bad, fmt.Sprintf("Go panic: %v", panicked))
	}
	if r.elapsed > maxProgramTime {
		bad = append(bad, fmt.Sprintf("took %v, want under %v (the watchdog is %v)", r.elapsed, maxProgramTime, 100*time.Millisecond))
	}
	for _, rec := range r.records {
		if rec.ok || timedOut(r.err) && strings.Contains(rec.msg, "context canceled") {
			continue
		}
		if why := unnamed(rec.msg, rec.name); why != "" {
			bad = append(bad, fmt.Sprintf("%s: error %q %s", rec.name, rec.msg, why))
		}
	}
	if r.err != nil {
		var e *Error
		if !errors.As(r.err, &e) {
			bad = append(bad, fmt.Sprintf("error %v (%T) is not a *script.Error", r.err, r.err))
		} else {
			// A function passed as a callback (sim:at(0, vp.box)) may fail too: any
			// declared function will do, or main itself.
			names := []string{"main "}
			for n := range g.unprot {
				names = append(names, n)
			}
			names = append(names, g.names...)
			// Line 0 only where no line applies: what the top level left in main.
			if e.File == "" || e.Msg == "" || e.Line < 0 || e.Line == 0 && !strings.HasPrefix(e.Msg, "main is ") {
				bad = append(bad, fmt.Sprintf("error without a place or message: %#v", e))
			} else if why := unnamed(e.Msg, names...); why != "" {
				bad = append(bad, fmt.Sprintf("error %q names no function", e.Error()))
			}
		}
	}
	return bad
}

var (
	apiNamesOnce sync.Once
	apiNames     []string
)

// declaredAPINames are the declared functions, as scripts write them: "vp.box",
// "sim:fill", "solid:translate", ...
func declaredAPINames(tb testing.TB) []string {
	apiNamesOnce.Do(func() {
		s, err := LoadSource("names.lua", []byte(small), Options{Workers: -1})
		if err != nil {
			tb.Fatal(err)
		}
		defer s.Close()
		for prefix, ds := range s.declared() {
			for _, d := range ds {
				apiNames = append(apiNames, prefix+d.name)
			}
		}
		sort.Strings(apiNames)
	})
	return apiNames
}

// TestLuaAPIFuzzKnowsEveryFunction: the generator has the arguments of every declared
// function (and of no other), and vp.sim's and sim:set's fields are all there.
func TestLuaAPIFuzzKnowsEveryFunction(t *testing.T) {
	names := declaredAPINames(t)
	declared := map[string]bool{}
	for _, n := range names {
		declared[n] = true
		if _, ok := apiSpecs[n]; !ok {
			t.Errorf("%s is declared but not in apiSpecs (fuzz_test.go): add its arguments", n)
		}
	}
	for n := range apiSpecs {
		if !declared[n] {
			t.Errorf("apiSpecs has %s, which is not declared", n)
		}
	}
	fieldNames := func(a apiArg) []string {
		var out []string
		for _, f := range a.fields {
			out = append(out, f.name)
		}
		sort.Strings(out)
		return out
	}
	for name, want := range map[string][]string{"vp.sim": simFields, "sim:set": changeable} {
		w := append([]string(nil), want...)
		sort.Strings(w)
		if got := fieldNames(apiSpecs[name][0]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("apiSpecs[%q] fields are %v, want %v", name, got, w)
		}
	}
}

// TestLuaAPIRandomPrograms runs a few hundred seeded random programs (the same ones on
// every run) on a 20 x 20 grid. With -v it logs the calls made and the most common
// error messages.
func TestLuaAPIRandomPrograms(t *testing.T) {
	programs := 1000
	if testing.Short() {
		programs = 100
	}
	if n, err := strconv.Atoi(os.Getenv("VPBENCH_LUA_PROGRAMS")); err == nil && n > 0 {
		programs = n // a longer run: VPBENCH_LUA_PROGRAMS=20000 go test -run RandomPrograms ./script/
	}
	names := declaredAPINames(t)
	o := fuzzEnv(t)
	t0 := time.Now()
	calls, records, loadErrs := 0, 0, 0
	perFn := map[string][2]int{}
	msgs := map[string]int{}
	for seed := 1; seed <= programs; seed++ {
		g := &progGen{c: rngChooser{rand.New(rand.NewPCG(uint64(seed), 0xf22))}, names: names, unprot: map[string]bool{}}
		src := g.program()
		r, panicked := runProgram(src, o)
		if bad := checkProgram(src, g, r, panicked); len(bad) > 0 {
			t.Fatalf("program %d:\n%s\n%s", seed, strings.Join(bad, "\n"), src)
		}
		calls += g.calls
		records += len(r.records)
		if r.err != nil {
			loadErrs++
		}
		for _, rec := range r.records {
			c := perFn[rec.name]
			if rec.ok {
				c[0]++
			} else {
				c[1]++
				msgs[normalizeMessage(rec.msg)]++
			}
			perFn[rec.name] = c
		}
	}
	t.Logf("%d programs, %d calls written, %d run in pcall, %d programs ended on an error, in %v",
		programs, calls, records, loadErrs, time.Since(t0).Round(time.Millisecond))
	var fns []string
	for n := range perFn {
		fns = append(fns, n)
	}
	sort.Strings(fns)
	for _, n := range fns {
		t.Logf("  %-18s %4d ok %4d errors", n, perFn[n][0], perFn[n][1])
	}
	type count struct {
		msg string
		n   int
	}
	var top []count
	for m, n := range msgs {
		top = append(top, count{m, n})
	}
	sort.Slice(top, func(i, j int) bool { return top[i].n > top[j].n || top[i].n == top[j].n && top[i].msg < top[j].msg })
	t.Logf("the 20 most common error messages:")
	for i := 0; i < len(top) && i < 20; i++ {
		t.Logf("  %5d  %s", top[i].n, top[i].msg)
	}
}

// normalizeMessage drops an error's place and shortens it, so that messages count
// together.
func normalizeMessage(msg string) string {
	if _, _, rest, ok := splitPlace(msg, []string{"testdata/fuzz.lua"}); ok {
		msg = rest
	}
	if len(msg) > 110 {
		msg = msg[:110] + "..."
	}
	return msg
}

// FuzzLuaAPI fuzzes programs of API calls: the fuzzed bytes make the generator's
// choices. Run it longer with go test -fuzz FuzzLuaAPI -fuzztime 5m ./script/; the
// corpus, and every crash found, are in testdata/fuzz/FuzzLuaAPI.
func FuzzLuaAPI(f *testing.F) {
	names := declaredAPINames(f)
	o := fuzzEnv(f)
	f.Add([]byte{})
	for seed := uint64(1); seed <= 8; seed++ {
		r := rand.New(rand.NewPCG(seed, 0xf22))
		b := make([]byte, 200)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g := &progGen{c: &byteChooser{b: b}, names: names, unprot: map[string]bool{}}
		src := g.program()
		r, panicked := runProgram(src, o)
		if bad := checkProgram(src, g, r, panicked); len(bad) > 0 {
			t.Fatalf("%s\nprogram:\n%s", strings.Join(bad, "\n"), src)
		}
	})
}

// TestLuaAPIFuzzRegressions are the failures the API fuzzer found, each made a plain
// case: the error it gives now, at its line, naming the function.
func TestLuaAPIFuzzRegressions(t *testing.T) {
	const file = "fuzz.lua"
	advance := func(s *Scenario) (err error) {
		for i := 0; i < 3 && err == nil; i++ {
			_, err = s.Advance(5)
		}
		return err
	}
	cases := []struct {
		name    string
		src     string // after small
		running bool   // the error comes from Advance, not Load
		line    int
		parts   []string
	}{
		// sim:export_mesh and sim:screenshot checked their path with gopher-lua's
		// CheckString: "bad argument #2 to (anonymous) (string expected, got table)".
		{"export_mesh path a table", "sim:export_mesh({})", false, 2, []string{"sim:export_mesh: the path is a table, want a file name"}},
		{"export_mesh no path", "sim:export_mesh()", false, 2, []string{"sim:export_mesh: the path is nil, want a file name"}},
		{"screenshot path a number", "sim:screenshot(42)", false, 2, []string{"sim:screenshot: the path is 42, want a file name"}},
		// A built-in function as a callback or a heightfield fn: its errors had no line
		// ("fuzz.lua: vp.box: ... (in the sim:at(0) callback defined at fuzz.lua:0, ...)").
		{"sim:at built-in callback", "\nsim:at(0, vp.box)", true, 3,
			[]string{"vp.box: want a table", "in the sim:at(0) callback defined at fuzz.lua:3"}},
		{"sim:every built-in callback", "sim:every(0.001, sim.fill)", true, 2,
			[]string{"sim:fill: call it with a colon", "in the sim:every(0.001) callback defined at fuzz.lua:2"}},
		{"heightfield built-in fn", "sim:terrain(vp.heightfield{ fn = vp.box })", false, 2,
			[]string{"vp.box: want a table", "in the vp.heightfield fn at x = 0.0005, y = 0.0005"}},
		// A built-in function as main: gopher-lua cannot resume one as a coroutine
		// ("error object is nil", "bad argument #1 to corountine", or main never yields).
		{"main = print", "main = print", false, 0, []string{"main is a built-in function: it must be a function written in Lua"}},
		{"main = error", "main = error", false, 0, []string{"main is a built-in function"}},
		{"main = coroutine.yield", "main = coroutine.yield", false, 0, []string{"main is a built-in function"}},
		// What vp.wait returned (nothing) was a Go nil in the variables of its call site
		// (gopher-lua leaves results a resume does not pass unset): "runtime error:
		// invalid memory address or nil pointer dereference" where used.
		{"vp.wait's result", "function main()\nlocal x = vp.wait(0.001)\nlocal u = vp.union(x)\nend", true, 4,
			[]string{"vp.union: argument 1 is nil, want a solid", "in main"}},
		{"vp.wait's results", "function main()\nlocal a, b, c = vp.wait(0.001)\nerror(type(a) .. type(b) .. type(c))\nend", true, 4,
			[]string{"nilnilnil (in main"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadSource(file, []byte(small+tc.src), opts(nil))
			if err == nil {
				defer s.Close()
				if !tc.running {
					t.Fatalf("loaded, want an error")
				}
				err = advance(s)
			} else if tc.running {
				t.Fatalf("load: %v", err)
			}
			wantError(t, err, file, tc.line, tc.parts...)
		})
	}
}
