package script

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/terrain"
)

// advanceTo advances s until the solver has taken steps steps (Advance stops early at
// callbacks), failing the test on an error.
func advanceTo(t *testing.T, s *Scenario, steps int64) {
	t.Helper()
	for s.Scene().Steps() < steps {
		advDone, err := s.Advance(int(steps - s.Scene().Steps()))
		done := advDone.Done
		if err != nil {
			t.Fatalf("advance: %v", err)
		}
		if done {
			t.Fatalf("main returned at step %d, before step %d", s.Scene().Steps(), steps)
		}
	}
}

// sameState compares two scenarios' solver states bit for bit: heights, the accounting,
// the particles and the stats.
func sameState(t *testing.T, a, b *Scenario) {
	t.Helper()
	sa, sb := a.Scene(), b.Scene()
	if sa.Steps() != sb.Steps() || math.Float64bits(sa.Time()) != math.Float64bits(sb.Time()) {
		t.Fatalf("steps %d (t %v) against %d (t %v)", sa.Steps(), sa.Time(), sb.Steps(), sb.Time())
	}
	var pa, pb scene.Snapshot
	sa.CopySnapshot(&pa)
	sb.CopySnapshot(&pb)
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
			if got := b.Scene().Steps(); got != c.n {
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
	dt := a.Scene().Dt()
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
	if adv, err := b.Advance(10); !adv.Done || err != nil || b.Scene().Steps() != a.Scene().Steps() {
		t.Errorf("resumed after main returned: adv.Done %v, err %v, steps %d, want %d", adv.Done, err, b.Scene().Steps(), a.Scene().Steps())
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
	binary.LittleEndian.PutUint32(bad[len(CheckpointMagic):], 3)
	check("another version", resume("surgery.lua", src, p2, bad), "checkpoint.vpc", "format version 3", "versions 1 and 2")
	if err := resume("surgery.lua", src, p2, rewriteCheckpoint(t, good, 1, nil)); err != nil {
		t.Errorf("a version 1 checkpoint: %v", err)
	}
	check("truncated", resume("surgery.lua", src, p2, good[:len(good)-100]), "checkpoint.vpc", "truncated")
	bad = bytes.Clone(good)
	bad[len(bad)/2] ^= 1
	check("corrupt", resume("surgery.lua", src, p2, bad), "checkpoint.vpc", "checksum")
	var sb bytes.Buffer
	if err := a.Scene().WriteSolverCheckpoint(&sb); err != nil {
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
	if err := resume("terrain.lua", tsrc, nil, buf.Bytes()); err != nil {
		t.Errorf("a terrain changed mid-run: %v", err)
	}
	// A version 1 checkpoint of such a run has no columns to resume on.
	v1 := rewriteCheckpoint(t, buf.Bytes(), 1, func(h *ckHeader) { h.Columns = nil })
	check("terrain change, version 1", resume("terrain.lua", tsrc, nil, v1), "checkpoint.vpc", "changed the terrain", "version 1 cannot resume", "version 2")
	// Columns the solver's state is not for: gpusim's refusal, and the loaded terrain back.
	f := mustLoad(t, "terrain.lua", tsrc, opts(nil))
	loaded := f.Scene().Columns()
	mis := rewriteCheckpoint(t, buf.Bytes(), CheckpointVersion, func(h *ckHeader) { h.Columns = loaded })
	check("columns of another terrain", f.Resume(bytes.NewReader(mis), "checkpoint.vpc"), "checkpoint.vpc: the solver's state", "another terrain")
	if got := f.Scene().Columns(); terrain.BoundOf(f.Scene().Solid()) == terrain.SignOnly || !reflect.DeepEqual(got, loaded) || f.Scene().Steps() != 0 {
		t.Errorf("a refused resume after a terrain change did not set the loaded terrain back")
	}

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
	if b.Scene().Settings() != st || b.Scene().Steps() != 0 {
		t.Errorf("a refused resume changed the scenario")
	}
}

// rewriteCheckpoint re-encodes a scenario checkpoint as the given format version, its
// header edited by edit (nil: as it is), with a valid checksum.
func rewriteCheckpoint(t *testing.T, data []byte, version uint32, edit func(*ckHeader)) []byte {
	t.Helper()
	h, solver, err := decodeCheckpoint(data)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(h)
	}
	var hb bytes.Buffer
	if err := gob.NewEncoder(&hb).Encode(h); err != nil {
		t.Fatal(err)
	}
	b := append([]byte(CheckpointMagic), binary.LittleEndian.AppendUint32(nil, version)...)
	b = binary.LittleEndian.AppendUint64(b, uint64(hb.Len()))
	b = append(b, hb.Bytes()...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(solver)))
	b = append(b, solver...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// movingScript moves a floating slab every 20 ms (sim:terrain from a callback, the slab's
// place a function of the time alone) while a source pours onto it.
const movingScript = `local sim = vp.sim{ size = {0.02, 0.01}, height = 0.01, dx = 0.001, dt = 0.002, layers = 2, workers = 1 }
local floor = vp.plane{ point = {0, 0, 0.001}, normal = {0.1, 0, 1} }
local function slab(x) return vp.box{ min = {x, 0.002, 0.004}, max = {x + 0.006, 0.008, 0.005} } end
sim:terrain(vp.union(floor, slab(0.003)))
sim:source{ at = {0.007, 0.005, 0.008}, radius = 0.002, rate = 3e-7 }
sim:every(0.02, function(t)
  sim:terrain(vp.union(floor, slab(0.003 + 0.05 * t)))
  local st = sim:stats()
  print(string.format("t %.4f volume %.17g rejected %.17g wet %d", t, sim:volume(), st.rejected, st.wet))
end)
`

// TestCheckpointTerrainChanged: a run whose callback changes the terrain before and after
// the checkpoint resumes on the checkpoint's columns to the same bits, stats and prints
// as the uninterrupted run; the resumed run's own checkpoint (before its next terrain
// change) resumes too; the terrain's picture is the columns' until the script sets one.
func TestCheckpointTerrainChanged(t *testing.T) {
	log := &printLog{}
	a := mustLoad(t, "moving.lua", movingScript, opts(log))
	const n, k, m = 25, 4, 60 // t = 0.05 s (the slab moved at 0.04), then 0.058 s, to 0.12 s
	advanceTo(t, a, n)
	if !a.ck.terrainChanged {
		t.Fatal("the terrain did not change before the checkpoint: the test tests nothing")
	}
	var first bytes.Buffer
	if err := a.WriteCheckpoint(&first); err != nil {
		t.Fatal(err)
	}
	mark := len(log.snapshot())
	advanceTo(t, a, n+m)
	want := printsOnly(log.snapshot()[mark:])
	if len(want) < 3 {
		t.Fatalf("only %d prints after the checkpoint:\n%s", len(want), strings.Join(want, "\n"))
	}

	log2 := &printLog{}
	b := mustLoad(t, "moving.lua", movingScript, opts(log2))
	top := len(log2.snapshot())
	if err := b.Resume(bytes.NewReader(first.Bytes()), "moving.vpc"); err != nil {
		t.Fatal(err)
	}
	warned := strings.Join(log2.snapshot()[top:], "\n")
	for _, w := range []string{"changed the terrain (sim:terrain) after its set-up (first at t = 0.02 s)", "rebuilt from them (blocky)"} {
		if !strings.Contains(warned, w) {
			t.Errorf("resume warnings lack %q:\n%s", w, warned)
		}
	}
	if got := terrain.BoundOf(b.Scene().Solid()); got != terrain.SignOnly {
		t.Errorf("after the resume the terrain's picture is a %T (%v), not the columns'", b.Scene().Solid(), got)
	}
	if mesh, _, err := b.Scene().TerrainMesh(); err != nil || mesh.NumTriangles() == 0 {
		t.Errorf("the columns' terrain mesh: %v", err)
	}
	top = len(log2.snapshot())
	advanceTo(t, b, n+k)
	var second bytes.Buffer
	if err := b.WriteCheckpoint(&second); err != nil {
		t.Fatal(err)
	}
	advanceTo(t, b, n+m)
	if got := printsOnly(log2.snapshot()[top:]); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("prints after the checkpoint differ:\nresumed:\n%s\nuninterrupted:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if terrain.BoundOf(b.Scene().Solid()) == terrain.SignOnly {
		t.Error("the script set the terrain again, and the picture is still the columns'")
	}
	sameState(t, a, b)

	// The resumed run's checkpoint, written before the slab moved again, keeps the columns.
	log3 := &printLog{}
	c := mustLoad(t, "moving.lua", movingScript, opts(log3))
	if err := c.Resume(bytes.NewReader(second.Bytes()), "moving2.vpc"); err != nil {
		t.Fatal(err)
	}
	top = len(log3.snapshot())
	advanceTo(t, c, n+m)
	if got := printsOnly(log3.snapshot()[top:]); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("prints after the second checkpoint differ:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	sameState(t, a, c)
}

// TestCheckpointResumeOption: Options.Resume resumes the load from a checkpoint once the
// set-up has run (the scenario at the checkpoint's time and steps, and its liquid); a
// refused checkpoint is the load's error, naming the file.
func TestCheckpointResumeOption(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("save.lua", []byte(saveScript), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Load("save.lua", opts(&printLog{}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	advanceTo(t, a, int64(math.Ceil(0.12/a.Scene().Dt())))
	if err := a.SaveCheckpoint("at.vpc"); err != nil {
		t.Fatal(err)
	}
	o := opts(&printLog{})
	o.Resume = "at.vpc"
	b, err := Load("save.lua", o)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Scene().Steps() != a.Scene().Steps() || b.Scene().Time() != a.Scene().Time() || b.Scene().Volume() != a.Scene().Volume() {
		t.Errorf("resumed at step %d, t %v, volume %v; the checkpoint's %d, %v, %v",
			b.Scene().Steps(), b.Scene().Time(), b.Scene().Volume(), a.Scene().Steps(), a.Scene().Time(), a.Scene().Volume())
	}
	if err := os.WriteFile("bad.vpc", []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Resume = "bad.vpc"
	if c, err := Load("save.lua", o); err == nil {
		c.Close()
		t.Fatal("a load resuming from a file that is no checkpoint succeeded")
	} else if !strings.Contains(err.Error(), "bad.vpc") || !strings.Contains(err.Error(), "not a vpbench scenario checkpoint") {
		t.Errorf("error %q: want one naming bad.vpc and what it is not", err)
	}
}
