package script

// The Lua API fuzzer's program generator (progGen) and its choosers: fuzzed bytes or a seeded PCG.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

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
	region bool            // the program places a region (REG): region:* calls are written then only
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
	fuzzedSim := g.chance(15)
	if fuzzedSim {
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
	// A region in place in some of the programs on the plain grid (it takes no bodies and
	// no capillarity: the body goes); the region's methods are called in those only (a
	// region placed and removed would leave a mark, no checkpoint, on every program).
	if !fuzzedSim && g.chance(30) {
		g.region = true
		b.WriteString(`pcall(BOD.remove, BOD)
sim:set{ capillarity = "off" }
local REG = sim:region{ min = {0.004, 0.004, 0}, max = {0.012, 0.012, 0.006}, refine = 2 }
`)
	}
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
	for strings.HasPrefix(name, "region:") && !g.region {
		name = g.names[g.n(len(g.names))]
	}
	g.calls++
	prefix, method, _ := strings.Cut(name, ":")
	fnExpr, self := name, ""
	if method != "" {
		obj, s := map[string][2]string{"sim": {"sim", "sim"}, "solid": {"SOL", g.pick("SOL", "SOL", "SOL:scale(0.5)", g.slot())},
			"source": {"SRC", g.pick("SRC", "SNK")}, "timer": {"TMR", "TMR"}, "body": {"BOD", "BOD"}, "meter": {"MET", "MET"}, "region": {"REG", "REG"}}[prefix], ""
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
	case "rdx":
		return g.pick("0.0005", "0.00025", "0.0003", "0", "-1")
	case "refine":
		return g.pick("2", "1", "0", "33", "2.5", "-1")
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
