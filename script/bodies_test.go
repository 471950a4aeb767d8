package script

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// floatPool is a 40 x 40 mm pool of water 8 mm deep (dx 1 mm) with a box of density 500
// let go on it, and a second one made by a callback at 0.2 s.
const floatPool = `local sim = vp.sim{ size = {0.04, 0.04}, height = 0.03, dx = 0.001, workers = WORKERS }
sim:fill{ at = {0.01, 0.01, 0.001}, level = 0.008 }
local b = sim:body{ solid = vp.box{ min = {-0.004, -0.004, -0.0015}, max = {0.004, 0.004, 0.0015} },
  density = 500, at = {0.015, 0.02, 0.012}, rotate = { axis = {1, 0, 0}, angle = 0.3 }, color = {0.8, 0.2, 0.2} }
sim:at(0.2, function()
  sim:body{ solid = vp.sphere{ center = {0, 0, 0}, radius = 0.003 }, density = 800, at = {0.03, 0.02, 0.015} }
end)
sim:at(0.3, function() b:push{ force = {2e-3, 0, 0}, duration = 0.1 } end)
sim:every(0.25, function()
  local x, y, z = b:position()
  print(string.format("%.6f %.9f %.9f %.9f %d", sim:time(), x, y, z, sim:stats().bodies))
end)
`

func floatSource(workers string) string { return strings.Replace(floatPool, "WORKERS", workers, 1) }

// TestBodyFromScript: a box let go on a pool floats at the draft its density gives, the
// pool's volume stays exact, sim:bodies lists both bodies, body reads answer; the run is
// the same bits with 1 and 2 workers.
func TestBodyFromScript(t *testing.T) {
	var runs [2]*Scenario
	for k, w := range []string{"1", "2"} {
		s := mustLoad(t, "float.lua", floatSource(w)+`
sim:at(1.5, function()
  local all = sim:bodies()
  assert(#all == 2, "sim:bodies lists " .. #all)
  local i = all[1]:info()
  assert(i.id == 1 and math.abs(i.mass - 500 * i.volume) < 1e-12, "info")
  assert(math.abs(i.submerged / i.volume - 0.5) < 0.1, "a box of density 500 floats half under: " .. i.submerged / i.volume)
  local axis, angle = all[1]:rotation()
  assert(#axis == 3 and angle >= 0, "rotation")
  all[2]:remove()
  assert(#sim:bodies() == 1, "removed")
  local ok, err = pcall(all[2].push, all[2], { force = {0, 0, 1} })
  assert(not ok and err:find("body 2 was removed"), tostring(err))
end)
`, opts(nil))
		for s.Scene().Time() < 2 {
			if _, err := s.Advance(50); err != nil {
				t.Fatal(err)
			}
		}
		runs[k] = s
		st := s.Scene().Stats()
		if math.Abs(st.Volume-st.Added) > 1e-9*st.Added {
			t.Errorf("workers %s: volume %g, added %g", w, st.Volume, st.Added)
		}
	}
	h1, h2 := runs[0].Scene().Heights(nil), runs[1].Scene().Heights(nil)
	for i := range h1 {
		if h1[i] != h2[i] {
			t.Fatalf("column %d: %v with 1 worker, %v with 2", i, h1[i], h2[i])
		}
	}
	a, b := runs[0].Scene().Bodies(), runs[1].Scene().Bodies()
	if len(a) != 1 || len(b) != 1 {
		t.Fatalf("%d and %d bodies after one was removed", len(a), len(b))
	}
	ax, ay, az := a[0].Position()
	bx, by, bz := b[0].Position()
	if ax != bx || ay != by || az != bz {
		t.Errorf("the box is at (%v, %v, %v) with 1 worker, (%v, %v, %v) with 2", ax, ay, az, bx, by, bz)
	}
}

// TestBodyCheckpoint: a run checkpointed at 0.15 s (before its callback makes a second
// body) and resumed goes on to the same bits and prints as the run that was not stopped;
// one checkpointed after the callback resumes with the set-up's body only, and says so.
func TestBodyCheckpoint(t *testing.T) {
	log := &printLog{}
	a := mustLoad(t, "float.lua", floatSource("1"), opts(log))
	dt := a.Scene().Dt()
	mid := int64(math.Ceil(0.15 / dt)) // before the callback's body
	advanceTo(t, a, mid)
	var cp bytes.Buffer
	if err := a.WriteCheckpoint(&cp); err != nil {
		t.Fatal(err)
	}
	top := len(log.snapshot())
	end := int64(math.Ceil(1.0 / dt))
	advanceTo(t, a, end)
	want := printsOnly(log.snapshot()[top:])

	log2 := &printLog{}
	b := mustLoad(t, "float.lua", floatSource("1"), opts(log2))
	if err := b.Resume(bytes.NewReader(cp.Bytes()), "float.vpc"); err != nil {
		t.Fatal(err)
	}
	top = len(log2.snapshot())
	advanceTo(t, b, end)
	got := printsOnly(log2.snapshot()[top:])
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("prints after the checkpoint differ:\nresumed:\n%s\nuninterrupted:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	sameState(t, a, b)

	// Checkpointed after the callback made the sphere: the resume warns it is gone.
	var cp2 bytes.Buffer
	if err := a.WriteCheckpoint(&cp2); err != nil {
		t.Fatal(err)
	}
	log3 := &printLog{}
	c := mustLoad(t, "float.lua", floatSource("1"), opts(log3))
	if err := c.Resume(bytes.NewReader(cp2.Bytes()), "float.vpc"); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(log3.snapshot(), "\n"); !strings.Contains(w, "1 floating bodies made after the set-up") {
		t.Errorf("the resume does not warn of the callback's body:\n%s", w)
	}
	if n := c.Scene().BodyCount(); n != 1 {
		t.Errorf("%d bodies after the resume, want the set-up's 1", n)
	}
}

// TestBodyErrors: bad bodies fail naming the problem and the line.
func TestBodyErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []string
	}{
		{`sim:body{ density = 500 }`, []string{"solid is missing"}},
		{`sim:body{ solid = vp.plane{ point = {0, 0, 0.002} }, density = 500 }`, []string{"bounded"}},
		{`sim:body{ solid = vp.sphere{ center = {0.005, 0.005, 0.005}, radius = 0.002 }, density = 0 }`, []string{"density", "> 0"}},
		{`sim:body{ solid = vp.sphere{ center = {0.005, 0.005, 0.005}, radius = 0.002 }, density = 500, at = {1, 0, 0} }`, []string{"outside the 0.01 x 0.01 m domain"}},
		{`sim:body{ solid = vp.sphere{ center = {0.005, 0.005, 0.005}, radius = 0.002 }, density = 500, color = {2, 0, 0} }`, []string{"color[1]", "[0, 1]"}},
		{`sim:body{ solid = vp.sphere{ center = {0.005, 0.005, 0.005}, radius = 0.002 }, density = 500, rotate = { axis = {0, 0, 0}, angle = 1 } }`, []string{"rotate.axis", "non-zero"}},
		{`sim:body{ solid = 42, density = 500 }`, []string{"solid is a number", "want a solid"}},
		{`sim:body{ solid = vp.sphere{ center = {0.005, 0.005, 0.005}, radius = 0.002 }, density = 500, mass = 1 }`, []string{"mass"}},
	} {
		_, err := LoadSource("b.lua", []byte(small+c.src+"\n"), opts(nil))
		wantError(t, err, "b.lua", 2, append([]string{"sim:body"}, c.want...)...)
	}
}

// TestExportBodies: sim:export_bodies writes the bodies' surfaces as an OBJ around where
// the body is; with no bodies it says so.
func TestExportBodies(t *testing.T) {
	t.Chdir(t.TempDir())
	_, err := LoadSource("e.lua", []byte(small+`sim:export_bodies("none.obj")`+"\n"), opts(nil))
	wantError(t, err, "e.lua", 2, "sim:export_bodies", "no floating bodies")
	s := mustLoad(t, "e.lua", small+`sim:body{ solid = vp.box{ min = {0.003, 0.003, 0.002}, max = {0.007, 0.007, 0.004} }, density = 500 }
sim:export_bodies("box.obj")
`, opts(nil))
	_ = s
	data, err := os.ReadFile("box.obj")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	lo, hi := [3]float64{1, 1, 1}, [3]float64{-1, -1, -1}
	for _, l := range strings.Split(string(data), "\n") {
		var v [3]float64
		if _, err := fmt.Sscanf(l, "v %g %g %g", &v[0], &v[1], &v[2]); err == nil {
			n++
			for a := range 3 {
				lo[a], hi[a] = min(lo[a], v[a]), max(hi[a], v[a])
			}
		}
	}
	want := [2][3]float64{{0.003, 0.003, 0.002}, {0.007, 0.007, 0.004}}
	for a := range 3 {
		if math.Abs(lo[a]-want[0][a]) > 3e-4 || math.Abs(hi[a]-want[1][a]) > 3e-4 {
			t.Errorf("axis %d: the exported body spans [%g, %g], the box [%g, %g]", a, lo[a], hi[a], want[0][a], want[1][a])
		}
	}
	if n < 8 {
		t.Errorf("%d vertices in the body's OBJ", n)
	}
}

// TestBodyWake: with waves on, a box pushed across a still pool leaves wave particles
// behind it; left floating still, it makes none once it has settled.
func TestBodyWake(t *testing.T) {
	count := func(push string) int {
		s := mustLoad(t, "wake.lua", `local sim = vp.sim{ size = {0.04, 0.04}, height = 0.03, dx = 0.001, workers = 1, waves = "on" }
sim:fill{ at = {0.01, 0.01, 0.001}, level = 0.008 }
local b = sim:body{ solid = vp.box{ min = {-0.004, -0.004, -0.0015}, max = {0.004, 0.004, 0.0015} },
  density = 500, at = {0.012, 0.02, 0.0080} }
sim:at(1.5, function() `+push+` end)
`, opts(nil))
		for s.Scene().Time() < 1.5 {
			if _, err := s.Advance(50); err != nil {
				t.Fatal(err)
			}
		}
		before := s.Scene().WaveCount()
		for s.Scene().Time() < 1.8 {
			if _, err := s.Advance(10); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%q: %d wave particles at 1.5 s, %d at 1.8 s", push, before, s.Scene().WaveCount())
		return s.Scene().WaveCount()
	}
	still, pushed := count(""), count(`b:push{ force = {4e-3, 0, 0}, duration = 0.3 }`)
	if pushed <= still || pushed < 10 {
		t.Errorf("%d wave particles behind the pushed box, %d beside the still one", pushed, still)
	}
}

// TestBodyTerrainChange: a terrain change under a floating box (a block rising in the
// pool) lowers the lifted floors, carries the liquid over and lets the box lift them
// again: the volume stays exact and the box goes on floating half under.
func TestBodyTerrainChange(t *testing.T) {
	s := mustLoad(t, "tc.lua", `local sim = vp.sim{ size = {0.04, 0.04}, height = 0.03, dx = 0.001, workers = 1 }
sim:fill{ at = {0.01, 0.01, 0.001}, level = 0.008 }
local b = sim:body{ solid = vp.box{ min = {-0.004, -0.004, -0.0015}, max = {0.004, 0.004, 0.0015} }, density = 500, at = {0.012, 0.02, 0.0085} }
sim:at(0.5, function() sim:terrain(vp.box{ min = {0.028, 0.005, 0}, max = {0.036, 0.035, 0.012} }) end)
`, opts(nil))
	for s.Scene().Time() < 2 {
		if _, err := s.Advance(50); err != nil {
			t.Fatal(err)
		}
	}
	st := s.Scene().Stats()
	if math.Abs(st.Volume-(st.Added-st.Removed)) > 1e-9*st.Added {
		t.Errorf("volume %g, added - removed %g", st.Volume, st.Added-st.Removed)
	}
	b := s.Scene().Bodies()[0]
	if f := b.Submerged() / b.Volume(); math.Abs(f-0.5) > 0.1 {
		t.Errorf("after the terrain change the box is %.0f%% under, want about half", f*100)
	}
	if d := s.Scene().Displaced(); math.Abs(d-b.Submerged()) > 0.1*b.Submerged() {
		t.Errorf("the floors displace %g m^3, the box has %g under", d, b.Submerged())
	}
}
