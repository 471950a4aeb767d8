package script

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
)

// advanceTo advances s until the solver has taken steps steps (Advance stops early at
// callbacks), failing the test on an error.
func advanceTo(t *testing.T, s *Scenario, steps int64) {
	t.Helper()
	for s.Scene().Sim().Steps() < steps {
		done, err := s.Advance(int(steps - s.Scene().Sim().Steps()))
		if err != nil {
			t.Fatalf("advance: %v", err)
		}
		if done {
			t.Fatalf("main returned at step %d, before step %d", s.Scene().Sim().Steps(), steps)
		}
	}
}

// sameState compares two scenarios' solver states bit for bit: heights, the accounting,
// the particles and the stats.
func sameState(t *testing.T, a, b *Scenario) {
	t.Helper()
	sa, sb := a.Scene().Sim(), b.Scene().Sim()
	if sa.Steps() != sb.Steps() || math.Float64bits(sa.Time()) != math.Float64bits(sb.Time()) {
		t.Fatalf("steps %d (t %v) against %d (t %v)", sa.Steps(), sa.Time(), sb.Steps(), sb.Time())
	}
	var pa, pb gpusim.Snapshot
	sa.Snapshot(&pa)
	sb.Snapshot(&pb)
	if len(pa.Height) != len(pb.Height) {
		t.Fatalf("%d heights against %d", len(pa.Height), len(pb.Height))
	}
	diff := 0
	for i := range pa.Height {
		if math.Float32bits(pa.Height[i]) != math.Float32bits(pb.Height[i]) {
			if diff == 0 {
				t.Errorf("column %d: height %v against %v", i, pa.Height[i], pb.Height[i])
			}
			diff++
		}
	}
	if diff > 0 {
		t.Errorf("%d of %d heights differ", diff, len(pa.Height))
	}
	if len(pa.Particles) != len(pb.Particles) {
		t.Errorf("%d particles against %d", len(pa.Particles), len(pb.Particles))
	}
	for _, v := range [][2]float64{{pa.Volume, pb.Volume}, {pa.Added, pb.Added}, {pa.Removed, pb.Removed},
		{pa.Rejected, pb.Rejected}, {pa.Outflow, pb.Outflow}, {pa.Airborne, pb.Airborne}} {
		if math.Float64bits(v[0]) != math.Float64bits(v[1]) {
			t.Errorf("accounting differs: %v against %v", v[0], v[1])
		}
	}
	if pa.Wet != pb.Wet || pa.Extended != pb.Extended || pa.Passages != pb.Passages {
		t.Errorf("stats differ: wet %d/%d, extended %d/%d, passages %d/%d", pa.Wet, pb.Wet, pa.Extended, pb.Extended, pa.Passages, pb.Passages)
	}
	if a.Scene().Settings() != b.Scene().Settings() {
		t.Errorf("settings differ:\n%+v\n%+v", a.Scene().Settings(), b.Scene().Settings())
	}
}

// printsOnly drops the warnings from a print log.
func printsOnly(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "warning: ") {
			out = append(out, l)
		}
	}
	return out
}

func (p *printLog) snapshot() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

// TestCheckpointResumeLibrary runs library scenarios for n steps, writes a checkpoint,
// runs on m steps; then loads them afresh, resumes from the file and runs m steps: the
// heights' bits, the accounting, the stats and the timers' prints (sim:at and sim:every
// firing after the checkpoint) are the same.
func TestCheckpointResumeLibrary(t *testing.T) {
	cases := []struct {
		script string
		params map[string]string
		n, m   int64
	}{
		// t = 0.9 s, then to 1.65 s: sim:at(1.0) (the suction sink), sim:at(1.5) (sim:set
		// viscosity) and sim:every(0.5) fire after the checkpoint.
		{"surgery.lua", map[string]string{"dx": "0.001"}, 300, 250},
		// Coffee pours, drips off the table's edge and leaves through the open sides.
		{"coffee.lua", map[string]string{"dx": "0.001"}, 160, 200},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			if testing.Short() && c.script != "surgery.lua" {
				t.Skip("-short")
			}
			path := filepath.Join("..", "scripts", c.script)
			file := filepath.Join(t.TempDir(), "run.vpc")
			log := &printLog{}
			o := opts(log)
			o.Params = c.params
			a, err := Load(path, o)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			advanceTo(t, a, c.n)
			if err := a.SaveCheckpoint(file); err != nil {
				t.Fatal(err)
			}
			mark := len(log.snapshot())
			advanceTo(t, a, c.n+c.m)
			want := log.snapshot()[mark:]

			log2 := &printLog{}
			o2 := opts(log2)
			o2.Params = map[string]string{}
			for k, v := range c.params {
				o2.Params[k] = v
			}
			b, err := Load(path, o2)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			top := len(log2.snapshot())
			if err := b.ResumeFile(file); err != nil {
				t.Fatal(err)
			}
			if got := b.Scene().Sim().Steps(); got != c.n {
				t.Fatalf("resumed at step %d, want %d", got, c.n)
			}
			advanceTo(t, b, c.n+c.m)
			got := log2.snapshot()[top:]
			sameState(t, a, b)
			if strings.Join(printsOnly(got), "\n") != strings.Join(printsOnly(want), "\n") {
				t.Errorf("prints after the checkpoint differ:\nresumed:\n%s\nuninterrupted:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if len(want) == 0 {
				t.Errorf("no timer fired after the checkpoint: the test checks nothing of the timers")
			}
			t.Logf("after the checkpoint:\n%s", strings.Join(want, "\n"))
		})
	}
}

// saveScript exercises what a scenario checkpoint holds beyond the solver: sim:save from
// a callback, in the middle of a boundary's batch (the sim:every due at the same time
// runs after it), math.random's generator, a cancelled timer, a timer a callback
// registers (not resumable: warned), sim:set's surface and liquid settings, and main
// running at the checkpoint (warned; it does not run again).
const saveScript = `local sim = vp.sim{ size = {0.02, 0.01}, height = 0.01, dx = 0.001, dt = 0.002, layers = 2, workers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0.1, 0, 1} })
sim:source{ at = {0.005, 0.005, 0.008}, radius = 0.002, rate = 2e-7, stop = 0.2 }
math.randomseed(7)
sim:at(0.05, function()
  print("saving")
  sim:save("cp/save.vpc")
end)
sim:every(0.025, function(t)
  print(string.format("every %.4f volume %.17g random %.17g", t, sim:volume(), math.random()))
end)
local dead = sim:at(0.07, function() print("cancelled: never") end)
dead:cancel()
sim:at(0.03, function()
  sim:set{ liquid = "coffee", depth_max = 0.003, meniscus = false }
  sim:at(0.5, function() print("registered by a callback") end)
end)
sim:at(0.09, function(t) print(string.format("at 0.09 depth %.17g", sim:depth(0.012, 0.005))) end)
function main()
  print("main starts")
  vp.wait(0.04)
  print("main waits long")
  vp.wait(100)
  print("main: never")
end
`

// TestCheckpointSimSave resumes from a checkpoint a script wrote with sim:save and
// compares it with the run that went on.
func TestCheckpointSimSave(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("save.lua", []byte(saveScript), 0o644); err != nil {
		t.Fatal(err)
	}
	log := &printLog{}
	a, err := Load("save.lua", opts(log))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	dt := a.Scene().Sim().Dt()
	steps := int64(math.Ceil(0.12 / dt))
	advanceTo(t, a, steps)
	lines := log.snapshot()
	i := 0
	for i < len(lines) && lines[i] != "saving" {
		i++
	}
	if i == len(lines) {
		t.Fatalf("sim:save's callback did not run:\n%s", strings.Join(lines, "\n"))
	}
	want := lines[i+1:]

	log2 := &printLog{}
	b, err := Load("save.lua", opts(log2))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	top := len(log2.snapshot())
	if err := b.ResumeFile("cp/save.vpc"); err != nil {
		t.Fatal(err)
	}
	warned := strings.Join(log2.snapshot()[top:], "\n")
	for _, w := range []string{"main was running at the checkpoint (t = 0.05", "it cannot resume; the timers and the solver do",
		"1 timer(s) registered after the set-up", "sim:at(0.5)"} {
		if !strings.Contains(warned, w) {
			t.Errorf("resume warnings lack %q:\n%s", w, warned)
		}
	}
	if b.Scene().Settings().Liquid.Name != "coffee" || b.Scene().Settings().Surface.DepthMax != 0.003 {
		t.Errorf("the scene's settings were not restored: %+v", b.Scene().Settings())
	}
	top = len(log2.snapshot())
	advanceTo(t, b, steps)
	got := printsOnly(log2.snapshot()[top:])
	// The uninterrupted run printed "registered by a callback" only at 0.5 s, after the
	// end; main printed nothing more either.
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("prints after the checkpoint differ:\nresumed:\n%s\nuninterrupted:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(strings.Join(want, "\n"), "every 0.0500 ") {
		t.Errorf("the sim:every due with the save did not run after it:\n%s", strings.Join(want, "\n"))
	}
	sameState(t, a, b)
}

// TestCheckpointMainDone: a checkpoint written after main returned resumes as finished.
func TestCheckpointMainDone(t *testing.T) {
	src := small + `function main() vp.wait(0.01) end
sim:every(0.02, function() end)`
	a := mustLoad(t, "done.lua", src, opts(nil))
	if err := runToEnd(t, a, 100); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := a.WriteCheckpoint(&buf); err != nil {
		t.Fatal(err)
	}
	b := mustLoad(t, "done.lua", src, opts(nil))
	if err := b.Resume(&buf, "done.vpc"); err != nil {
		t.Fatal(err)
	}
	if done, err := b.Advance(10); !done || err != nil || b.Scene().Sim().Steps() != a.Scene().Sim().Steps() {
		t.Errorf("resumed after main returned: done %v, err %v, steps %d, want %d", done, err, b.Scene().Sim().Steps(), a.Scene().Sim().Steps())
	}
}

// TestCheckpointRefusals: a resume refuses, naming the file and the reason, a checkpoint
// of another script, other parameters, another format version, a truncated or corrupt
// file, a solver checkpoint, a run that changed the terrain, timers that do not match;
// sim:save refuses to run in the set-up.
func TestCheckpointRefusals(t *testing.T) {
	src := small + `sim:terrain(vp.plane{ point = {0, 0, 0.002}, normal = {0, 0, 1} })
local n = vp.param("n", 1)
sim:every(0.01, function() end)
`
	o := opts(nil)
	o.Params = map[string]string{"n": "2"}
	a := mustLoad(t, "surgery.lua", src, o)
	advanceTo(t, a, 5)
	var buf bytes.Buffer
	if err := a.WriteCheckpoint(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	resume := func(name, src string, params map[string]string, data []byte) error {
		o := opts(nil)
		o.Params = params
		b := mustLoad(t, name, src, o)
		return b.Resume(bytes.NewReader(data), "checkpoint.vpc")
	}
	p2 := map[string]string{"n": "2"}
	if err := resume("surgery.lua", src, p2, good); err != nil {
		t.Fatalf("the good checkpoint: %v", err)
	}
	check := func(what string, err error, parts ...string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		for _, p := range parts {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: error %q lacks %q", what, err, p)
			}
		}
	}
	check("another content", resume("surgery.lua", src+"\n-- edited\n", p2, good), "checkpoint.vpc was written by surgery.lua with another content")
	check("another script", resume("coffee.lua", src+"\n", p2, good), "checkpoint.vpc was written by surgery.lua, not coffee.lua")
	check("other params", resume("surgery.lua", src, map[string]string{"n": "3"}, good), "checkpoint.vpc", "other parameters", "--param n=2", "this run: --param n=3")

	bad := bytes.Clone(good)
	binary.LittleEndian.PutUint32(bad[len(CheckpointMagic):], 2)
	check("another version", resume("surgery.lua", src, p2, bad), "checkpoint.vpc", "format version 2", "version 1 only")
	check("truncated", resume("surgery.lua", src, p2, good[:len(good)-100]), "checkpoint.vpc", "truncated")
	bad = bytes.Clone(good)
	bad[len(bad)/2] ^= 1
	check("corrupt", resume("surgery.lua", src, p2, bad), "checkpoint.vpc", "checksum")
	var sb bytes.Buffer
	if err := a.Scene().Sim().WriteCheckpoint(&sb); err != nil {
		t.Fatal(err)
	}
	check("a solver checkpoint", resume("surgery.lua", src, p2, sb.Bytes()), "solver checkpoint")
	check("not a checkpoint", resume("surgery.lua", src, p2, []byte("hello, world: not a checkpoint at all")), "wrong magic")

	// Timers that do not match.
	c := mustLoad(t, "surgery.lua", src, o)
	c.ck.timers = c.ck.timers[:0]
	check("timer count", c.Resume(bytes.NewReader(good), "checkpoint.vpc"), "checkpoint.vpc", "registered 1 timers", "0 now")

	// A terrain changed mid-run.
	tsrc := small + `sim:terrain(vp.plane{ point = {0, 0, 0.002}, normal = {0, 0, 1} })
sim:at(0.01, function() sim:terrain(vp.plane{ point = {0, 0, 0.003}, normal = {0, 0, 1} }) end)
`
	d := mustLoad(t, "terrain.lua", tsrc, opts(nil))
	advanceTo(t, d, 20)
	buf.Reset()
	if err := d.WriteCheckpoint(&buf); err != nil {
		t.Fatal(err)
	}
	check("terrain change", resume("terrain.lua", tsrc, nil, buf.Bytes()), "checkpoint.vpc", "changed the terrain", "cannot be resumed yet")

	// Once run, a scenario does not resume.
	check("after Advance", a.Resume(bytes.NewReader(good), "checkpoint.vpc"), "already run")

	// sim:save in the set-up, and outside the working folder.
	_, err := LoadSource("setup.lua", []byte(small+`sim:save("x.vpc")`), opts(nil))
	check("sim:save in the set-up", err, "sim:save", "not from the set-up")
	e := mustLoad(t, "abs.lua", small+`sim:at(0, function() sim:save("/tmp/x.vpc") end)`, opts(nil))
	_, err = e.Advance(1)
	check("sim:save absolute", err, "sim:save", "absolute path")
}

// TestCheckpointSolverMismatch: a checkpoint whose solver state is for another terrain
// (the same script and parameters, a terrain the set-up builds otherwise) gives gpusim's
// error, and the scenario keeps its loaded state.
func TestCheckpointSolverMismatch(t *testing.T) {
	src := small + `sim:terrain(vp.plane{ point = {0, 0, 0.002}, normal = {0, 0, 1} })`
	other := small + `sim:terrain(vp.plane{ point = {0, 0, 0.004}, normal = {0, 0, 1} })`
	a := mustLoad(t, "m.lua", src, opts(nil))
	advanceTo(t, a, 3)
	var buf bytes.Buffer
	if err := a.WriteCheckpoint(&buf); err != nil {
		t.Fatal(err)
	}
	b := mustLoad(t, "m.lua", other, opts(nil))
	b.ck.srcHash = a.ck.srcHash // pretend the source is the same
	st := b.Scene().Settings()
	err := b.Resume(&buf, "m.vpc")
	if err == nil || !strings.Contains(err.Error(), "m.vpc: the solver's state") || !strings.Contains(err.Error(), "another terrain") {
		t.Fatalf("error %v, want gpusim's terrain mismatch", err)
	}
	if b.Scene().Settings() != st || b.Scene().Sim().Steps() != 0 {
		t.Errorf("a refused resume changed the scenario")
	}
}
