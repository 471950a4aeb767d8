package script

// The Lua API fuzzer, FuzzLuaAPI: the functions' arguments, running and checking programs.

import (
	"errors"
	"fmt"
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
	"sim:fill":           {tableArg("at:vec3!", "level:z!", "velocity:vec2")},
	"sim:drop":           {tableArg("at:vec3!", "volume:vol!", "velocity:vel3")},
	"sim:source":         {tableArg("at:vec3!", "radius:len", "rate:rate!", "start:t", "stop:t", "falls:bool", "velocity:vel3", "level:z", "removes:bool")},
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
	"source:set":         {tableArg("level:z", "rate:rate")},
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
	"sim:region":         {tableArg("min:lo3!", "max:hi3!", "dx:rdx", "refine:refine")},
	"region:info":        {},
	"region:move":        {tableArg("min:lo3", "max:hi3", "dx:rdx", "refine:refine")},
	"region:remove":      {},
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
	// elapsed is the process's CPU time the run used (a loaded machine stretches wall
	// time, not that), wall its wall time.
	elapsed, wall time.Duration
}

// fuzzEnv is where programs run: the script's folder (meshes) as Options.Files, a
// temporary working folder for the files sim:export_mesh writes, small grids.
func fuzzEnv(tb testing.TB) Options {
	dir, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Chdir(tb.TempDir())
	return Options{Workers: -1, CallbackTimeout: 100 * time.Millisecond, MaxCells: 2500, Files: os.DirFS(dir),
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
	t0, c0 := time.Now(), processCPU()
	defer func() {
		r.elapsed, r.wall = processCPU()-c0, time.Since(t0)
		panicked = recover()
	}()
	s, err := LoadSource("testdata/fuzz.lua", []byte(src), o)
	if err != nil {
		r.err = err
		return r, nil
	}
	defer s.Close()
	for i := 0; i < 6; i++ {
		advDone, err := s.Advance(8)
		done := advDone.Done
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

// maxProgramTime is the most CPU time one program may use: its watchdog stops Lua after
// 100 ms of it.
const maxProgramTime = 5 * time.Second

// checkProgram is the fuzzers' invariant on one program's run: problems are returned,
// one a line.
func checkProgram(src string, g *progGen, r apiRun, panicked any) []string {
	var bad []string
	if panicked != nil {
		bad = append(bad, fmt.Sprintf("Go panic: %v", panicked))
	}
	if r.elapsed > maxProgramTime {
		bad = append(bad, fmt.Sprintf("used %v of CPU time (in %v), want under %v (the watchdog is %v)", r.elapsed, r.wall, maxProgramTime, 100*time.Millisecond))
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
