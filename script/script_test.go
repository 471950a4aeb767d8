package script

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/timing"
)

// TestVPFunctions calls every vp function and sim method on good input; the script
// asserts what it gets.
func TestVPFunctions(t *testing.T) {
	log := &printLog{}
	o := opts(log)
	o.Params = map[string]string{"n": "3.5", "label": "wet", "flag": "yes"}
	src := small + `
assert(vp.version == "` + Version + `")
assert(require("vp") == vp)
assert(vp.param("n", 1) == 3.5 and vp.param("label", "dry") == "wet" and vp.param("flag", false) == true)
assert(vp.param("absent", 7) == 7 and vp.param("absent2") == nil)

local b = vp.box{ min = {0, 0, 0}, max = {0.01, 0.01, 0.001} }
local sp = vp.sphere{ center = {0.005, 0.005, 0.001}, radius = 0.002 }
local cy = vp.cylinder{ base = {0.002, 0.002, 0}, axis = {0, 0, 1}, radius = 0.001, length = 0.003 }
local pl = vp.plane{ point = {0, 0, 0.0005}, normal = {0, 0, 1} }
local hf = vp.heightfield(function(x, y) return 0.0004 end)
local me = vp.mesh("cube.obj")
local u = vp.union{ b, cy, pl, hf }
local i = vp.intersection(b, sp)
local d = vp.difference(u, sp)
local moved = sp:translate(0.001, 0, 0):translate{ 0, 0.001, 0 }
local turned = cy:rotate{ axis = {0, 0, 1}, angle = math.pi / 2 }
for _, s in ipairs({b, sp, cy, pl, hf, me, u, i, d, moved, turned}) do
  assert(type(s) == "userdata" and tostring(s):sub(1, 6) == "solid ")
end
sim:terrain(vp.union(d, me:translate{0.008, 0.008, 0.001}))
-- the hemisphere cut into the box is a pit: its bottom is below the floor's top
local pit = sim:columns(0.0055, 0.0055)
assert(#pit == 1 and pit[1].base < 0.0009 and pit[1].h == pit[1].base and pit[1].max > 0.009, "pit")
local rim = sim:columns(0.0005, 0.0095)
assert(math.abs(rim[1].base - 0.001) < 1e-6, "floor at 1 mm, got " .. rim[1].base)
assert(sim:depth(0.0055, 0.0055) == 0)
local added = sim:fill{ at = {0.0055, 0.0055, 0.001}, level = 0.0012 }
assert(added > 0 and math.abs(sim:volume() - added) < 1e-18)
assert(sim:depth(0.0055, 0.0055) > 0.0003)
-- sim:volume with a region: the pit's cells, and its floor below the box's top
assert(sim:volume{} == sim:volume{ min = {0, 0}, max = {0.01, 0.01} })
local pitv = sim:volume{ min = {0.004, 0.004}, max = {0.007, 0.007}, floor_below = 0.00099 }
assert(pitv > 0 and pitv <= sim:volume{} and sim:volume{ floor_above = 0.0011 } == 0, "region volumes")
local one = sim:volume{ min = {0.0055, 0.0055}, max = {0.0055, 0.0055} } -- the bounds hold one centre
assert(math.abs(one - sim:depth(0.0055, 0.0055) * 1e-6) < 1e-12 * one, "one cell " .. one)
local src = sim:source{ at = {0.003, 0.005, 0.005}, rate = 1e-9 }
local snk = sim:sink{ at = {0.0055, 0.0055, 0.001}, rate = 1e-10, start = 0.01, stop = 0.05 }
src:set_rate(2e-9)
snk:set_rate(2e-10)
assert(tostring(src) == "source 0 (rate 2e-09 m^3/s)" and tostring(snk) == "sink 1 (rate 2e-10 m^3/s)")
sim:set{ viscosity = 1e-6, damping = 0.9, gravity = 9.8, cross_section = "film", extended_pipes = "axis", dt = 0.002, workers = 1 }
sim:set{ dt = "auto" }
local tm = sim:at(0.02, function(t) print("at", t >= 0.02) end)
local ev = sim:every(0.01, function() end)
assert(tostring(tm) == "timer (sim:at(0.02))")
ev:cancel()
local st = sim:stats()
for _, k in ipairs({"steps", "dt", "wet", "pipes", "extended", "passages", "volume", "added", "removed", "rejected"}) do
  assert(type(st[k]) == "number", k)
end
assert(st.sim.avg == 0 and st.surface.max == 0 and st.render.frames == 0)
local info = sim:info()
assert(info.nx == 10 and info.dx == 0.001 and info.cross_section == "film" and info.extended_pipes == "axis")
assert(info.dt == info.stable_dt * 0.6 and info.size[1] == 0.01 and info.terrain_marched == "")
assert(sim:time() == 0)
print("a", 1, nil, true, 2.5)
function main()
  vp.wait(0.03)
  src:stop()
  print("main", string.format("%.4f", sim:time()))
end
`
	s := mustLoad(t, "testdata/good.lua", src, o)
	if err := runToEnd(t, s, 100); err != nil {
		t.Fatal(err)
	}
	want := "a\t1\tnil\ttrue\t2.5\nat\ttrue\nmain\t0.0300"
	if got := log.text(); got != want {
		t.Errorf("output\n%s\nwant\n%s", got, want)
	}
	st := s.Scene().SolverSettings()
	if st.Viscosity != 1e-6 || st.Damping != 0.9 || st.Gravity != 9.8 || st.CrossSection != scene.CrossFilm || st.ExtendedPipes != scene.ExtendedAxis || st.Dt != 0 {
		t.Errorf("settings %v", st)
	}
	if _, removed, _ := s.Scene().Accounting(); removed <= 0 {
		t.Error("the sink removed nothing")
	}
}

// TestDefaults: vp.sim{} takes the contract's defaults and, without sim:terrain, the empty
// domain (one column per cell from the floor to the top).
func TestDefaults(t *testing.T) {
	s := mustLoad(t, "d.lua", "local sim = vp.sim{}", Options{Workers: -1})
	in := s.Info()
	want := scene.DefaultSolverSettings()
	want.Workers = 0
	want.SurfaceTension = 0.072 // capillarity on, with water's (scene.DefaultSettings)
	want.ContactHysteresis = scene.DefaultContactHysteresis
	if in.Nx != 200 || in.Ny != 200 || in.Layers != 5 || in.Dx != 0.0005 || in.Height != 0.05 || in.SizeX != 0.1 || in.SizeY != 0.1 {
		t.Errorf("grid %+v", in)
	}
	if in.Settings != want || in.Backend != "cpu" || in.Workers != runtime.GOMAXPROCS(0) {
		t.Errorf("settings %v backend %s workers %d", in.Settings, in.Backend, in.Workers)
	}
	if in.Dt != scene.AutoDt(0.0005, 9.81) || in.StableDt != scene.StableDt(0.0005, 9.81) {
		t.Errorf("dt %g, stable %g", in.Dt, in.StableDt)
	}
	if in.Columns != 200*200 || in.DroppedIntervals != 0 || len(in.Warnings) != 0 || in.HasMain {
		t.Errorf("%+v", in)
	}
	c := s.Scene().Columns()
	if c.Base[0] != 0 || c.Max[0] != 0.05 {
		t.Errorf("empty domain column [%g, %g]", c.Base[0], c.Max[0])
	}
	// No main: the scenario never finishes by itself.
	for i := 0; i < 3; i++ {
		if adv, err := s.Advance(5); adv.Done || err != nil {
			t.Fatalf("adv.Done %v err %v", adv.Done, err)
		}
	}
	if s.Scene().Steps() != 15 {
		t.Errorf("steps %d, want 15", s.Scene().Steps())
	}
}

// TestCallbackOrder: callbacks fire at the first step boundary at or after their time,
// in time order, ties in the order they were scheduled, main's wake-ups among them.
func TestCallbackOrder(t *testing.T) {
	log := &printLog{}
	src := small + `sim:set{ dt = 0.005 }
local order = {}
local function note(s) return function(t) order[#order + 1] = s .. "@" .. string.format("%.3f", t) end end
sim:at(0.05, note("b"))
sim:at(0.025, note("a"))
sim:at(0.05, note("c"))
sim:at(0, note("zero"))
sim:every(0.02, note("e"))
sim:at(0.03, function(t)
  note("d")(t)
  sim:at(0.03, note("late")) -- already due: runs at the next boundary
end)
function main()
  order[#order + 1] = "main@" .. sim:time()
  vp.wait(0.05)
  order[#order + 1] = string.format("main@%.3f", sim:time())
  vp.wait(0)
  order[#order + 1] = string.format("main@%.3f", sim:time())
  print(table.concat(order, " "))
end
`
	s := mustLoad(t, "order.lua", src, opts(log))
	if err := runToEnd(t, s, 100); err != nil {
		t.Fatal(err)
	}
	want := "zero@0.000 main@0 e@0.020 a@0.025 d@0.030 late@0.035 e@0.040 b@0.050 c@0.050 main@0.050 main@0.055"
	if got := log.text(); got != want {
		t.Errorf("order\n%s\nwant\n%s", got, want)
	}
}

// TestAdvanceStops: Advance stops at the first boundary where a callback is due.
func TestAdvanceStops(t *testing.T) {
	s := mustLoad(t, "stop.lua", small+"sim:set{ dt = 0.001 }\nhits = 0\nsim:at(0.0105, function() hits = hits + 1 end)\n", Options{Workers: -1})
	adv, err := s.Advance(1000)
	if adv.Done || err != nil {
		t.Fatal(adv.Done, err)
	}
	if n := s.Scene().Steps(); n != 11 || adv.Steps != 11 {
		t.Errorf("stopped after %d steps (Advance says %d), want 11 (the first boundary at or after t = 0.0105)", n, adv.Steps)
	}
	if adv.Solver <= 0 {
		t.Error("Advance took no time in the solver")
	}
	if adv, err := s.Advance(1000); err != nil || s.Scene().Steps() != 1011 || adv.Steps != 1000 {
		t.Errorf("steps %d (Advance says %d)", s.Scene().Steps(), adv.Steps)
	}
	if adv, err := s.Advance(0); err != nil || s.Scene().Steps() != 1011 || adv.Solver != 0 || adv.Steps != 0 {
		t.Errorf("Advance(0) stepped")
	}
	if hits := s.L.GetGlobal("hits").String(); hits != "1" {
		t.Errorf("hits = %s", hits)
	}
}

// TestDeterminism: the same script twice gives the same bits after N steps, whatever the
// number of workers.
func TestDeterminism(t *testing.T) {
	run := func(workers int) (float64, float64, []float32) {
		o := Options{Workers: workers, Params: map[string]string{"nu": "4e-6"}}
		s, err := Load("testdata/contract.lua", o)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for i := 0; i < 20; i++ {
			if _, err := s.Advance(7); err != nil {
				t.Fatal(err)
			}
		}
		var snap scene.Snapshot
		s.Scene().CopySnapshot(&snap)
		return s.Scene().Volume(), s.Scene().Time(), snap.Height
	}
	v1, t1, h1 := run(1)
	v2, t2, h2 := run(1)
	v3, t3, h3 := run(3)
	if v1 != v2 || t1 != t2 || v1 != v3 || t1 != t3 {
		t.Errorf("volume %v %v %v, time %v %v %v", v1, v2, v3, t1, t2, t3)
	}
	for i := range h1 {
		if h1[i] != h2[i] || h1[i] != h3[i] {
			t.Fatalf("column %d: %v %v %v", i, h1[i], h2[i], h3[i])
		}
	}
	if v1 <= 0 || t1 <= 0 {
		t.Errorf("nothing happened: volume %g, time %g", v1, t1)
	}
}

// TestTimings: sim:stats() reports the run loop's Table 1 clocks through Options.Timings,
// and without the hook one simulation frame per Advance call that stepped.
func TestTimings(t *testing.T) {
	src := small + "function main()\n  vp.wait(0.02)\n  local st = sim:stats()\n  print(st.sim.frames, st.surface.frames, st.render.max)\nend\n"
	log := &printLog{}
	o := opts(log)
	o.Timings = func() timing.Timings {
		return timing.Timings{Simulation: timing.PhaseTiming{Frames: 1, AvgMs: 2, MaxMs: 2},
			Surface: timing.PhaseTiming{Frames: 2, AvgMs: 3, MaxMs: 4}, Render: timing.PhaseTiming{Frames: 1, AvgMs: 3, MaxMs: 3}}
	}
	s := mustLoad(t, "tm.lua", src, o)
	if err := runToEnd(t, s, 100); err != nil {
		t.Fatal(err)
	}
	if got := log.text(); got != "1\t2\t3" {
		t.Errorf("sim:stats timings %q, want the hook's 1, 2, 3", got)
	}
	log = &printLog{}
	s = mustLoad(t, "tm.lua", src, opts(log))
	if err := runToEnd(t, s, 100); err != nil {
		t.Fatal(err)
	}
	if got := log.text(); got != "1\t0\t0" {
		t.Errorf("sim:stats timings without a hook %q, want one Advance frame, no surface or render", got)
	}
}

func TestOptions(t *testing.T) {
	src := "local sim = vp.sim{ size = {0.01, 0.01}, dx = 0.001, backend = 'cpu', workers = 2 }"
	s := mustLoad(t, "o.lua", src, Options{Workers: 1, Backend: "auto"})
	if in := s.Info(); in.Workers != 1 || in.Backend != "cpu" {
		t.Errorf("workers %d backend %s", in.Workers, in.Backend)
	}
	// The override holds against sim:set too.
	s = mustLoad(t, "o.lua", src+"\nsim:set{ workers = 2 }", Options{Workers: 1})
	if in := s.Info(); in.Workers != 1 {
		t.Errorf("workers %d after sim:set", in.Workers)
	}
	_, err := LoadSource("o.lua", []byte(src), Options{Workers: -1, Backend: "cuda"})
	wantError(t, err, "o.lua", 1, "the cuda backend is not in this build")
	_, err = LoadSource("o.lua", []byte(src), Options{Backend: "gpu"})
	var e *Error
	if err == nil || errors.As(err, &e) || !strings.Contains(err.Error(), `backend "gpu"`) {
		t.Errorf("bad Options.Backend: %v", err)
	}
	if _, err := Load("testdata/does-not-exist.lua", Options{}); err == nil || errors.As(err, &e) {
		t.Errorf("missing file: %v", err)
	}
	// A dt above the stability limit is a warning, in Info and through Print.
	log := &printLog{}
	s = mustLoad(t, "o.lua", "local sim = vp.sim{ size = {0.01, 0.01}, dx = 0.001, dt = 0.01, workers = 1 }", opts(log))
	if in := s.Info(); len(in.Warnings) != 1 || !strings.Contains(in.Warnings[0], "above the stability limit") {
		t.Errorf("warnings %q", in.Warnings)
	}
	if !strings.HasPrefix(log.text(), "warning: dt = 10 ms is above the stability limit") {
		t.Errorf("printed %q", log.text())
	}
	// Parameters the set-up does not read are warned about.
	log = &printLog{}
	o := opts(log)
	o.Params = map[string]string{"viscosty": "1"}
	mustLoad(t, "o.lua", src, o)
	if !strings.Contains(log.text(), "warning: parameter viscosty=1 is not read") {
		t.Errorf("printed %q", log.text())
	}
}

// TestTerrainMidRun: sim:terrain from a callback rebuilds the columns and keeps the
// liquid; what finds no room is reported.
func TestTerrainMidRun(t *testing.T) {
	log := &printLog{}
	src := small + `sim:fill{ at = {0.005, 0.005, 0.001}, level = 0.004 }
sim:at(0.01, function()
  sim:terrain(vp.box{ min = {0, 0, 0}, max = {0.01, 0.01, 0.0095} })
end)
function main()
  vp.wait(0.02)
  local st = sim:stats()
  print(string.format("%.3g %.3g", st.volume + st.rejected, st.added))
end
`
	s := mustLoad(t, "move.lua", src, opts(log))
	if err := runToEnd(t, s, 100); err != nil {
		t.Fatal(err)
	}
	out := log.text()
	if !strings.Contains(out, "warning: sim:terrain at t = 0.0128506 s: ") || !strings.Contains(out, "of liquid found no room in the new terrain") || !strings.HasSuffix(out, "4e-07 4e-07") {
		t.Errorf("output %q", out)
	}
	if c := s.Scene().Columns(); c.Base[0] < 0.009 {
		t.Errorf("terrain not changed: base %g", c.Base[0])
	}
}

func TestSandbox(t *testing.T) {
	log := &printLog{}
	src := small + `for _, name in ipairs({"io", "os", "debug", "package", "dofile", "loadfile", "load", "loadstring", "module"}) do
  assert(_G[name] == nil, name)
end
assert(string.dump == nil)
local a = {math.random(), math.random(10), math.random(5, 7)}
math.randomseed(42)
local b = math.random()
math.randomseed(42)
assert(math.random() == b)
print(a[1], a[2], a[3])
assert(not pcall(math.random, 0))
assert(("x"):rep(3) == "xxx")
`
	run := func() string {
		log.lines = nil
		mustLoad(t, "sb.lua", src, opts(log))
		return log.text()
	}
	first := run()
	if second := run(); first != second || first == "" {
		t.Errorf("math.random is not deterministic: %q, %q", first, second)
	}
}

// TestHeightfieldErrorIsDeterministic: when fn fails at several points, the error names
// the first in extraction order, whatever the goroutines.
func TestHeightfieldErrorIsDeterministic(t *testing.T) {
	src := "local sim = vp.sim{ size = {0.02, 0.02}, dx = 0.0005, workers = 1 }\n" +
		"sim:terrain(vp.heightfield{ fn = function(x, y)\n  if x > 0.01 then error(string.format('bad at %g %g', x, y)) end\n  return 0.001\nend })"
	for i := 0; i < 5; i++ {
		_, err := LoadSource("hf.lua", []byte(src), Options{Workers: -1})
		wantError(t, err, "hf.lua", 3, "bad at 0.01025 0.00025", "at x = 0.01025, y = 0.00025")
	}
}

func TestClose(t *testing.T) {
	s, err := LoadSource("c.lua", []byte(small), Options{Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s.Close()
	if _, err := s.Advance(1); err == nil {
		t.Error("Advance after Close: no error")
	}
}

func TestTimeIsSafeFromOtherGoroutines(t *testing.T) {
	s := mustLoad(t, "g.lua", small, Options{Workers: -1})
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				_ = s.Scene().Time()
			}
		}
	}()
	for i := 0; i < 50; i++ {
		if _, err := s.Advance(3); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if math.Abs(s.Scene().Time()-150*s.Scene().Dt()) > 1e-12 {
		t.Errorf("time %g", s.Scene().Time())
	}
}

// TestSimAndSetShareSettings: vp.sim takes every field sim:set changes, with the same
// meaning and the same checks (one parser, call.settings).
func TestSimAndSetShareSettings(t *testing.T) {
	const grid = "size = {0.01, 0.01}, dx = 0.001, layers = 1"
	fields := "viscosity = 2e-5, damping = 0.5, gravity = 9, cross_section = 'film', extended_pipes = 'off', dt = 0.002, workers = 1, depth_max = 0.003, meniscus_length = 0.0015, contact_angle = 1, meniscus = false, liquid = 'blood'"
	direct := mustLoad(t, "direct.lua", "local sim = vp.sim{ "+grid+", "+fields+" }\nsim:terrain(vp.box{ min = {0, 0, 0}, max = {0.01, 0.01, 0.001} })\n", opts(nil))
	set := mustLoad(t, "set.lua", "local sim = vp.sim{ "+grid+" }\nsim:set{ "+fields+" }\nsim:terrain(vp.box{ min = {0, 0, 0}, max = {0.01, 0.01, 0.001} })\n", opts(nil))
	for _, s := range []*Scenario{direct, set} {
		if _, err := s.Advance(1); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := direct.Scene().SolverSettings(), set.Scene().SolverSettings(); a != b {
		t.Errorf("solver settings differ:\nvp.sim:  %+v\nsim:set: %+v", a, b)
	}
	if a, b := direct.Scene().Settings().Surface, set.Scene().Settings().Surface; a != b || a.Meniscus || a.DepthMax != 0.003 {
		t.Errorf("surface settings: vp.sim %+v, sim:set %+v (want meniscus off, depth_max 0.003)", a, b)
	}
	if a := direct.Scene().Settings().Liquid.Name; a != "blood" {
		t.Errorf("vp.sim{liquid = 'blood'}: liquid %q", a)
	}
	for _, bad := range []string{"viscosity = -1", "cross_section = 'wide'", "meniscus = 3", "liquid = 'lava'"} {
		_, errA := LoadSource("a.lua", []byte("vp.sim{ "+grid+", "+bad+" }"), opts(nil))
		_, errB := LoadSource("b.lua", []byte("local sim = vp.sim{ "+grid+" }\nsim:set{ "+bad+" }"), opts(nil))
		if errA == nil || errB == nil {
			t.Fatalf("%s: vp.sim error %v, sim:set error %v: want both to fail", bad, errA, errB)
		}
		msg := func(err error) string { // the message after "file:line: vp.sim: " or "sim:set: "
			s := err.Error()
			return s[strings.Index(s, ": ")+2:][strings.Index(s[strings.Index(s, ": ")+2:], ": ")+2:]
		}
		if msg(errA) != msg(errB) {
			t.Errorf("%s: vp.sim says %q, sim:set says %q", bad, errA, errB)
		}
	}
}
