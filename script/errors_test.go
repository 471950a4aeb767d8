package script

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestBadInput loads scripts that misuse the API: each error is an *Error at the line of
// the call with a message naming the function and the field.
func TestBadInput(t *testing.T) {
	const file = "testdata/case.lua" // in testdata, so that meshes and modules resolve there
	cases := []struct {
		name  string
		src   string
		line  int
		parts []string
	}{
		{"unknown field", "local sim = vp.sim{ dX = 0.001 }", 1,
			[]string{`vp.sim: unknown field "dX" (did you mean dx?)`, "allowed fields are size, height, dx, layers, backend, viscosity, damping, gravity, cross_section, extended_pipes, falling, fall_drop, dt, workers, depth_max, meniscus_length, contact_angle, meniscus, liquid"}},
		{"positional value", "vp.sim{ 0.1 }", 1, []string{"vp.sim: unexpected value [1] = 0.1: fields are named"}},
		{"not a table", "\nvp.sim(5)", 2, []string{"vp.sim: want a table", "got a number"}},
		{"size element type", "vp.sim{ size = {0.1, 'a'} }", 1, []string{"vp.sim: size[2] is a string, want a number"}},
		{"size length", "vp.sim{ size = {0.1} }", 1, []string{"vp.sim: size has 1 values, want 2 numbers {x, y}"}},
		{"size type", "vp.sim{ size = 0.1 }", 1, []string{"vp.sim: size is a number, want a table of 2 numbers {x, y}"}},
		{"size zero", "vp.sim{ size = {0, 0.1} }", 1, []string{"vp.sim: size[1] is 0 m: it must be > 0 and at most 1000 m"}},
		{"dx type", "vp.sim{ dx = 'fine' }", 1, []string{"vp.sim: dx is a string, want a number"}},
		{"dx zero", "vp.sim{ dx = 0 }", 1, []string{"vp.sim: dx is 0: it must be > 0 m"}},
		{"dx negative", "vp.sim{ dx = -1e-3 }", 1, []string{"vp.sim: dx is -0.001: it must be > 0 m"}},
		{"dx larger than the domain", "vp.sim{ size = {0.01, 0.01}, dx = 0.02 }", 1, []string{"vp.sim: dx is 0.02 m, larger than the domain"}},
		{"height huge", "vp.sim{ height = 1e300 }", 1, []string{"vp.sim: height is 1e+300 m: at most 1000 m"}},
		{"height NaN", "vp.sim{ height = 0/0 }", 1, []string{"vp.sim: height is nan: it must be a finite number"}},
		{"viscosity NaN", "local nan = 0/0\nvp.sim{ viscosity = nan }", 2, []string{"vp.sim: viscosity is nan: it must be a finite number"}},
		{"dx inf", "vp.sim{ dx = 1/0 }", 1, []string{"vp.sim: dx is inf: it must be a finite number"}},
		{"layers zero", "vp.sim{ layers = 0 }", 1, []string{"vp.sim: layers is 0: it must be between 1 and"}},
		{"layers fraction", "vp.sim{ layers = 2.5 }", 1, []string{"vp.sim: layers is 2.5: it must be a whole number"}},
		{"huge grid", "vp.sim{ size = {1000, 1000}, dx = 1e-5 }", 1,
			[]string{"vp.sim: size = {1000, 1000}, dx = 1e-05 and layers = 5 make a grid too large for this machine", "100000000 x 100000000"}},
		{"dt word", "vp.sim{ dt = 'fast' }", 1, []string{`vp.sim: dt is "fast": want a number of seconds > 0, or "auto"`}},
		{"dt zero", "vp.sim{ dt = 0 }", 1, []string{`vp.sim: dt is 0 s: it must be > 0 seconds, or "auto"`}},
		{"damping", "vp.sim{ damping = 2 }", 1, []string{"vp.sim: damping is 2: it must be in [0, 1]"}},
		{"gravity", "vp.sim{ gravity = 0 }", 1, []string{"vp.sim: gravity is 0: it must be > 0"}},
		{"viscosity negative", "vp.sim{ viscosity = -1 }", 1, []string{"vp.sim: viscosity is -1: it must be >= 0"}},
		{"cross_section", "vp.sim{ cross_section = 'round' }", 1, []string{`vp.sim: cross_section is "round": want "paper", "film"`}},
		{"extended_pipes", "vp.sim{ extended_pipes = true }", 1, []string{`vp.sim: extended_pipes is true: want "off", "axis", "unified"`}},
		{"backend cuda", "vp.sim{ backend = 'cuda' }", 1, []string{`vp.sim: backend = "cuda": the cuda backend is not in this build: use backend = "cpu"`}},
		{"backend unknown", "vp.sim{ backend = 'gpu' }", 1, []string{`vp.sim: backend is "gpu": want "auto", "cpu", "cuda"`}},
		{"workers negative", "vp.sim{ workers = -1 }", 1, []string{"vp.sim: workers is -1: it must be between 0 and 256"}},
		{"second vp.sim", small + "local again = vp.sim{}", 2, []string{"vp.sim: called a second time: one vp.sim per script (the first is at testdata/case.lua:1)"}},

		{"box vector element", small + "local b = vp.box{ min = {0, 0, 'z'}, max = {1, 1, 1} }", 2, []string{"vp.box: min[3] is a string, want a number"}},
		{"box vector length", small + "local b = vp.box{ min = {0, 0}, max = {1, 1, 1} }", 2, []string{"vp.box: min has 2 values, want 3 numbers {x, y, z}"}},
		{"box missing max", small + "local b = vp.box{ min = {0, 0, 0} }", 2, []string{"vp.box: max is missing: want 3 numbers {x, y, z}"}},
		{"box inverted", small + "local b = vp.box{ min = {1, 0, 0}, max = {0, 1, 1} }", 2, []string{"vp.box: box max.x (0) must be greater than min.x (1)"}},
		{"box unknown field", small + "local b = vp.box{ min = {0, 0, 0}, max = {1, 1, 1}, centre = {0, 0, 0} }", 2, []string{`vp.box: unknown field "centre": allowed fields are min, max`}},
		{"sphere radius", small + "local b = vp.sphere{ center = {0, 0, 0}, radius = -1 }", 2, []string{"vp.sphere: radius is -1: it must be > 0 m"}},
		{"cylinder axis", small + "local b = vp.cylinder{ base = {0, 0, 0}, axis = {0, 0, 0}, radius = 1, length = 1 }", 2, []string{"vp.cylinder: axis is {0, 0, 0}: it must be a non-zero direction"}},
		{"cylinder length", small + "local b = vp.cylinder{ base = {0, 0, 0}, radius = 1 }", 2, []string{"vp.cylinder: length is missing"}},
		{"plane normal", small + "local b = vp.plane{ point = {0, 0, 0}, normal = {0, 0, 0} }", 2, []string{"vp.plane: normal is {0, 0, 0}: it must be a non-zero direction"}},
		{"heightfield fn type", small + "local b = vp.heightfield{ fn = 3 }", 2, []string{"vp.heightfield: fn is a number, want a function(x, y) returning z"}},
		{"heightfield fn error", small + "sim:terrain(vp.heightfield{ fn = function(x, y)\n  if x > 0.005 then error('too far') end\n  return 0.001\nend })", 3,
			[]string{"too far", "in the vp.heightfield fn at x = 0.0055, y = 0.0005"}},
		{"heightfield fn returns a string", small + "local f = function(x, y)\n  return 'high'\nend\nsim:terrain(vp.heightfield{ fn = f })", 2,
			[]string{`vp.heightfield: fn(0.0005, 0.0005) returned "high": it must return the surface height z, a finite number of metres`}},
		{"heightfield fn returns NaN", small + "sim:terrain(vp.heightfield{ fn = function(x, y) return 0/0 end })", 2, []string{"returned nan"}},
		{"union argument", small + "local u = vp.union(vp.box{ min = {0, 0, 0}, max = {1, 1, 1} }, 5)", 2, []string{"vp.union: argument 2 is a number, want a solid"}},
		{"union empty", small + "local u = vp.union()", 2, []string{"vp.union: no solids given"}},
		{"difference arity", small + "local d = vp.difference(vp.sphere{ center = {0, 0, 0}, radius = 1 })", 2, []string{"vp.difference: takes two solids (a minus b), got 1 arguments"}},
		{"intersection argument", small + "local d = vp.intersection({}, {})", 2, []string{"vp.intersection: argument 1 is a table, want a solid"}},
		{"translate length", small + "local b = vp.sphere{ center = {0, 0, 0}, radius = 1 }:translate{1, 2}", 2, []string{"solid:translate: offset has 2 values, want 3 numbers {x, y, z}"}},
		{"rotate angle", small + "local b = vp.sphere{ center = {0, 0, 0}, radius = 1 }:rotate{ axis = {0, 0, 1} }", 2, []string{"solid:rotate: angle is missing"}},
		{"terrain not a solid", small + "sim:terrain({})", 2, []string{"sim:terrain: the terrain is a table, want a solid"}},
		{"mesh missing", small + "local m = vp.mesh('missing.obj')", 2, []string{"vp.mesh:", "testdata/missing.obj", "no such file"}},
		{"mesh encloses nothing", small + "local m = vp.mesh('patch.obj')", 2, []string{"vp.mesh: testdata/patch.obj: the mesh encloses nothing", "4 open edges"}},
		{"mesh path type", small + "local m = vp.mesh(42)", 2, []string{"vp.mesh: the path is 42, want the path of an OBJ file"}},

		{"source outside", small + "sim:source{ at = {0.5, 0.005, 0.001}, rate = 1e-8 }", 2, []string{"sim:source: at = {0.5, 0.005, 0.001} is outside the 0.01 x 0.01 m domain: lengths are in metres"}},
		{"source negative rate", small + "sim:source{ at = {0.005, 0.005, 0.001}, rate = -1e-8 }", 2, []string{"sim:source: rate is -1e-08: it must be >= 0 m^3/s"}},
		{"source rate missing", small + "sim:source{ at = {0.005, 0.005, 0.001} }", 2, []string{"sim:source: rate is missing"}},
		{"source unknown field", small + "sim:source{ at = {0.005, 0.005, 0.001}, rate = 1e-8, duration = 1 }", 2, []string{`sim:source: unknown field "duration": allowed fields are at, radius, rate, start, stop`}},
		{"sink stop before start", small + "sim:sink{ at = {0.005, 0.005, 0.001}, rate = 1e-8, start = 1, stop = 0.5 }", 2, []string{"sim:sink: stop is 0.5 s: it must be after start (1 s)"}},
		{"sink negative radius", small + "sim:sink{ at = {0.005, 0.005, 0.001}, rate = 1e-8, radius = -1 }", 2, []string{"sim:sink: radius is -1: it must be >= 0 m"}},
		{"set_rate negative", small + "local s = sim:source{ at = {0.005, 0.005, 0.001}, rate = 1e-8 }\ns:set_rate(-1)", 3, []string{"source:set_rate: rate is -1 m^3/s: it must be >= 0"}},
		{"fill outside", small + "sim:fill{ at = {-1, 0.005, 0.001}, level = 0.002 }", 2, []string{"sim:fill: at = {-1, 0.005, 0.001} is outside the 0.01 x 0.01 m domain: lengths are in metres"}},
		{"fill level missing", small + "sim:fill{ at = {0.005, 0.005, 0.001} }", 2, []string{"sim:fill: level is missing"}},
		{"set fixed field", small + "sim:set{ dx = 0.002 }", 2, []string{"sim:set: dx cannot change mid-run"}},
		{"set unknown field", small + "sim:set{ viscocity = 1e-6 }", 2, []string{`sim:set: unknown field "viscocity" (did you mean viscosity?): allowed fields are viscosity, damping, gravity, cross_section, extended_pipes, falling, fall_drop, dt, workers`}},
		{"set bad value", small + "sim:set{ damping = -0.5 }", 2, []string{"sim:set: damping is -0.5: it must be in [0, 1]"}},
		{"falling", small + "sim:set{ falling = 'drops' }", 2, []string{`sim:set: falling is "drops": want "particles", "off"`}},
		{"fall_drop negative", "vp.sim{ fall_drop = -0.001 }", 1, []string{"vp.sim: fall_drop is -0.001: it must be >= 0 m (0 = 8 cells)"}},
		{"drop in a solid", small + "sim:terrain(vp.box{min = {0, 0, 0}, max = {0.01, 0.01, 0.003}})\nsim:drop{ at = {0.005, 0.005, 0.001}, volume = 1e-9 }", 3, []string{"sim:drop: at = {0.005, 0.005, 0.001} is inside a solid"}},
		{"sink falls", small + "sim:sink{ at = {0.005, 0.005, 0.005}, rate = 1e-6, falls = true }", 2, []string{"sim:sink: falls = true: a sink takes liquid from its columns, it cannot fall"}},
		{"velocity without falls", small + "sim:source{ at = {0.005, 0.005, 0.005}, rate = 1e-6, velocity = {0, 0, -1} }", 2, []string{"sim:source: velocity is for a source that falls (falls = true)"}},
		{"falls not a boolean", small + "sim:source{ at = {0.005, 0.005, 0.005}, rate = 1e-6, falls = 1 }", 2, []string{"sim:source: falls is a number: want true or false"}},
		{"falls in a solid", small + "sim:terrain(vp.box{min = {0, 0, 0}, max = {0.01, 0.01, 0.003}})\nsim:source{ at = {0.005, 0.005, 0.001}, rate = 1e-6, falls = true }", 3, []string{"sim:source: at = {0.005, 0.005, 0.001} is inside a solid: a falling source pours from free space"}},
		{"drop volume", small + "sim:drop{ at = {0.005, 0.005, 0.005}, volume = -1 }", 2, []string{"sim:drop: volume is -1 m^3: it must be > 0"}},
		{"drop velocity", small + "sim:drop{ at = {0.005, 0.005, 0.005}, volume = 1e-9, velocity = {1, 2} }", 2, []string{"sim:drop: velocity"}},
		{"at not a function", small + "sim:at(1, 'later')", 2, []string{"sim:at: fn is a string, want a function"}},
		{"at NaN time", small + "sim:at(0/0, function() end)", 2, []string{"sim:at: t is nan: it must be a finite number"}},
		{"every zero period", small + "sim:every(0, function() end)", 2, []string{"sim:every: period is 0 s: it must be > 0"}},
		{"volume empty region", small + "print(sim:volume{ min = {0.006, 0}, max = {0.004, 0.01} })", 2, []string{"sim:volume: min = {0.006, 0} is not below max = {0.004, 0.01}: the region would be empty"}},
		{"volume floors crossed", small + "print(sim:volume{ floor_above = 0.002, floor_below = 0.001 })", 2, []string{"sim:volume: floor_above = 0.002 is not below floor_below = 0.001"}},
		{"volume misspelt", small + "print(sim:volume{ floor_abov = 0.002 })", 2, []string{"sim:volume: unknown field \"floor_abov\""}},
		{"volume region of three numbers", small + "print(sim:volume{ min = {0, 0, 0} })", 2, []string{"sim:volume: min has an unexpected entry [3]"}},
		{"depth outside", small + "print(sim:depth(0.02, 0.005))", 2, []string{"sim:depth: (x, y) = (0.02, 0.005) is outside the domain [0, 0.01] x [0, 0.01]"}},
		{"method with a dot", small + "sim.fill{ at = {0.005, 0.005, 0.001}, level = 0.002 }", 2, []string{"sim:fill: call it with a colon: sim:fill(...)"}},
		{"export_mesh absolute", small + "sim:export_mesh('/tmp/out.obj')", 2, []string{"sim:export_mesh: \"/tmp/out.obj\" is an absolute path"}},
		{"export_mesh outside", small + "sim:export_mesh('a/../../out.obj')", 2, []string{"sim:export_mesh: \"a/../../out.obj\" leaves the working folder"}},
		{"screenshot without a preview", small + "sim:screenshot('out.png')", 2, []string{"sim:screenshot: screenshots need the preview"}},
		{"screenshot not png", small + "sim:screenshot('out.jpg')", 2, []string{`sim:screenshot: "out.jpg": screenshots are PNG files`}},
		{"screenshot outside", small + "sim:screenshot('../out.png')", 2, []string{`sim:screenshot: "../out.png" leaves the working folder`}},
		{"liquid unknown", small + "sim:set{ liquid = 'milk' }", 2, []string{`sim:set: liquid "milk": want one of blood, coffee, paint, water`}},
		{"liquid out of range", small + "sim:set{ liquid = {1, 0.5, 2} }", 2, []string{"sim:set: liquid[3] is 2: each of r, g, b must lie in [0, 1]"}},

		{"wait outside main", small + "vp.wait(1)", 2, []string{"vp.wait: only valid inside main"}},
		{"require parent", small + "local x = require('../x')", 2, []string{`require: "../x" is not a module name`}},
		{"require path", small + "local x = require('sub/x')", 2, []string{`require: "sub/x" is not a module name`}},
		{"require missing", small + "local x = require('nothere')", 2, []string{`require: no module "nothere": cannot read testdata/nothere.lua`}},
		{"param default type", small + "local x = vp.param('nu', {})", 2, []string{`vp.param: the default of "nu" is a table`}},
		{"runtime error", small + "local t = nil\nt.x = 1", 3, []string{"attempt to index a non-table object(nil) with key 'x'"}},
		{"error call", small + "error('mine')", 2, []string{"mine"}},
		{"error table", small + "\nerror({})", 3, []string{"error object is a table value"}},
		{"io is absent", small + "io.write('x')", 2, []string{"attempt to index a non-table object(nil)"}},
		{"os is absent", small + "os.exit(1)", 2, []string{"attempt to index a non-table object(nil)"}},
		{"loadstring is absent", small + "loadstring('x = 1')()", 2, []string{"attempt to call a non-function object"}},
		{"string.rep bound", small + "local s = string.rep('x', 1e12)", 2, []string{"string.rep: the result would be 1e+12 bytes"}},
		{"main not a function", small + "main = 5", 0, []string{"main is a number: it must be a function"}},
		{"no vp.sim", "local x = 1", 0, []string{"the script never calls vp.sim"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := LoadSource(file, []byte(c.src), Options{Workers: -1})
			if err == nil {
				s.Close()
			}
			wantError(t, err, file, c.line, c.parts...)
		})
	}
}

func TestBadParam(t *testing.T) {
	o := Options{Workers: -1, Params: map[string]string{"nu": "abc", "flag": "maybe"}}
	_, err := LoadSource("p.lua", []byte(small+"local nu = vp.param('nu', 4e-6)"), o)
	wantError(t, err, "p.lua", 2, "vp.param: parameter nu=abc is not a finite number (its default, 4e-06, is a number)")
	_, err = LoadSource("p.lua", []byte(small+"\nlocal f = vp.param('flag', false)"), o)
	wantError(t, err, "p.lua", 3, "vp.param: parameter flag=maybe is not a boolean")
}

func TestSyntaxError(t *testing.T) {
	_, err := LoadSource("syn.lua", []byte(small+"local x = = 2\n"), Options{})
	wantError(t, err, "syn.lua", 2, "syntax error near '='")
	// The lexer reports the end of the file without a line: it is the last one.
	_, err = LoadSource("eof.lua", []byte(small+"function f()\n  return 1\n"), Options{})
	wantError(t, err, "eof.lua", 3, "at the end of the file")
	_, err = LoadSource("str.lua", []byte(small+"print('abc)\n"), Options{})
	wantError(t, err, "str.lua", 2, "unterminated string")
}

// TestOpenOBJWarns: an open mesh loads, with a warning naming the script's line and the
// open edges, and its inside is where its winding number says.
func TestOpenOBJWarns(t *testing.T) {
	var log []string
	s, err := Load("testdata/mesh_open.lua", Options{Workers: -1, Print: func(m string) { log = append(log, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if w := strings.Join(log, "\n"); !strings.Contains(w, "mesh_open.lua:4: vp.mesh: open.obj is not closed (3 open edges)") {
		t.Errorf("no warning naming the line and the open edges:\n%s", w)
	}
	// The tetrahedron's corner cell (0.5 mm, 0.5 mm) is solid up to near its slope.
	c := s.Scene().Columns()
	lo, _ := c.Cell(0, 0)
	if b := c.Base[lo]; b < 0.002 || b > 0.0035 {
		t.Errorf("the open tetrahedron's corner column starts at %g m, want its solid under it (about 3 mm)", b)
	}
}

// TestCallbackError: a runtime error in a callback stops the scenario with the callback's
// line; later Advance calls return the same error, and the solver keeps its last good
// state.
func TestCallbackError(t *testing.T) {
	src := small + `sim:fill{ at = {0.005, 0.005, 0.001}, level = 0.003 }
sim:source{ at = {0.005, 0.005, 0.005}, rate = 1e-9 }
sim:every(0.02, function(t)
  if t > 0.05 then
    local x = nil
    return x.field
  end
end)
`
	s := mustLoad(t, "cb.lua", src, Options{Workers: -1})
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = s.Advance(1000)
	}
	e := wantError(t, err, "cb.lua", 7, "attempt to index a non-table object(nil) with key 'field'", "in the sim:every(0.02) callback defined at cb.lua:4")
	tm, vol, steps := s.Scene().Time(), s.Scene().Volume(), s.Scene().Steps()
	for i := 0; i < 3; i++ {
		advDone, err2 := s.Advance(1000)
		done := advDone.Done
		if done || err2 != e && err2.Error() != e.Error() {
			t.Fatalf("Advance after the error: done %v, err %v, want %v", done, err2, e)
		}
	}
	if s.Scene().Time() != tm || s.Scene().Volume() != vol || s.Scene().Steps() != steps {
		t.Errorf("state changed after the error: t %g -> %g, volume %g -> %g", tm, s.Scene().Time(), vol, s.Scene().Volume())
	}
	if tm < 0.05 || tm > 0.07 {
		t.Errorf("stopped at t = %g, want the first every boundary after 0.05", tm)
	}
	added, removed, rejected := s.Scene().Accounting()
	if d := vol - (added - removed - rejected); d > 1e-15 || d < -1e-15 {
		t.Errorf("volume %g does not match the accounting (off by %g)", vol, d)
	}
	if !errors.Is(s.Err(), e) && s.Err().Error() != e.Error() {
		t.Errorf("Err() = %v", s.Err())
	}
}

// TestCallbackTimeout: an endless loop in any entry into Lua is cancelled after
// CallbackTimeout with an *Error at the line it was running.
//
// The limit counts the CPU time of the thread running Lua, so the bounds here are CPU
// time too: the process used at least the limit (the loop ran that long) and not ten
// times more (it was stopped). Wall time is not bounded: on a loaded machine the loop
// gets the CPU a fraction of the time, and takes that much longer to use its 200 ms.
func TestCallbackTimeout(t *testing.T) {
	o := Options{Workers: -1, CallbackTimeout: 200 * time.Millisecond}
	loop := "while true do local x = 1 end\n"
	ranLimit := func(t *testing.T, fn func()) {
		t.Helper()
		if used := withinCPU(t, 10*o.CallbackTimeout, fn); used < o.CallbackTimeout {
			t.Errorf("stopped after %v of CPU time, before the %v limit", used, o.CallbackTimeout)
		}
	}
	t.Run("callback", func(t *testing.T) {
		s := mustLoad(t, "loop.lua", small+"sim:every(0.01, function()\n"+loop+"end)\n", o)
		var err error
		ranLimit(t, func() {
			for i := 0; i < 10 && err == nil; i++ {
				_, err = s.Advance(100)
			}
		})
		e := wantError(t, err, "loop.lua", 3, "callback ran longer than 200ms (endless loop?)", "sim:every(0.01) callback defined at loop.lua:2")
		tm := s.Scene().Time()
		if _, err := s.Advance(10); err == nil || err.Error() != e.Error() || s.Scene().Time() != tm {
			t.Errorf("after the timeout: %v, t %g -> %g", err, tm, s.Scene().Time())
		}
		wantNotHeld(t, s)
	})
	t.Run("top level", func(t *testing.T) {
		ranLimit(t, func() {
			_, err := LoadSource("loop.lua", []byte(small+loop), o)
			wantError(t, err, "loop.lua", 2, "callback ran longer than 200ms", "in the script's set-up")
		})
	})
	t.Run("main", func(t *testing.T) {
		s := mustLoad(t, "loop.lua", small+"function main()\n  vp.wait(0.01)\n"+loop+"end\n", o)
		ranLimit(t, func() {
			err := runToEnd(t, s, 10)
			wantError(t, err, "loop.lua", 4, "callback ran longer than 200ms", "in main")
		})
		wantNotHeld(t, s)
	})
	t.Run("heightfield", func(t *testing.T) {
		ranLimit(t, func() {
			_, err := LoadSource("loop.lua", []byte(small+"sim:terrain(vp.heightfield{ fn = function(x, y)\n"+loop+"end })"), o)
			wantError(t, err, "loop.lua", 3, "callback ran longer than 200ms", "vp.heightfield fn")
		})
	})
	t.Run("pcall cannot swallow it", func(t *testing.T) {
		ranLimit(t, func() {
			_, err := LoadSource("loop.lua", []byte(small+"for i = 1, 1e9 do pcall(function() while true do end end) end"), o)
			wantError(t, err, "loop.lua", 2, "callback ran longer than 200ms")
		})
	})
	t.Run("extraction does not count", func(t *testing.T) {
		// 500 x 500 cells through a heightfield take longer than 200 ms to extract (0.4 s
		// alone, 1.5 s with -race): each call is timed, not the extraction. The time is
		// the calls' CPU time, a few microseconds each, so a call descheduled on a loaded
		// machine does not trip it either (at 200 ms of wall time one did).
		src := "local sim = vp.sim{ size = {0.1, 0.1}, dx = 0.0002, layers = 1, workers = 1 }\n" +
			"sim:terrain(vp.heightfield{ fn = function(x, y) return 0.001 + 0.01 * x end })"
		c0, t0 := processCPU(), time.Now()
		s, err := LoadSource("big.lua", []byte(src), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("loaded in %v, %v of CPU time (the limit: %v a call)", time.Since(t0), processCPU()-c0, o.CallbackTimeout)
		wantNotHeld(t, s)
		s.Close()
	})
}

func TestWaitOutsideMain(t *testing.T) {
	s := mustLoad(t, "w.lua", small+"sim:at(0.01, function()\n  vp.wait(1)\nend)\n", Options{Workers: -1})
	err := runToEnd(t, s, 10)
	wantError(t, err, "w.lua", 3, "vp.wait: only valid inside main")

	s = mustLoad(t, "w.lua", small+"function main()\n  local co = coroutine.wrap(function() vp.wait(1) end)\n  co()\nend\n", Options{Workers: -1})
	err = runToEnd(t, s, 10)
	wantError(t, err, "w.lua", 3, "vp.wait: only valid inside main")

	// pcall cannot carry a wait: main's own code must call it.
	log := &printLog{}
	s = mustLoad(t, "w.lua", small+"function main()\n  print(pcall(vp.wait, 1))\nend\n", opts(log))
	if err := runToEnd(t, s, 10); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.text(), "false\tw.lua:3: vp.wait: cannot wait inside pcall") {
		t.Errorf("output %q", log.text())
	}

	s = mustLoad(t, "w.lua", small+"function main()\n  coroutine.yield()\nend\n", Options{Workers: -1})
	err = runToEnd(t, s, 10)
	wantError(t, err, "w.lua", 2, "main yielded without vp.wait")
}

func TestRequire(t *testing.T) {
	log := &printLog{}
	s, err := Load("testdata/uses_helpers.lua", opts(log))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := log.text(); got != "helpers loaded 1 times\tslab ok" {
		t.Errorf("output %q", got)
	}
	_, err = Load("testdata/require_loop.lua", Options{Workers: -1})
	wantError(t, err, "testdata/loop_b.lua", 2, `require: module "require_loop_a" requires itself`)
	_, err = Load("testdata/require_bad.lua", Options{Workers: -1})
	wantError(t, err, "testdata/bad_module.lua", 3, "syntax error")
}
