package script

import (
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/scene"
)

type sceneSettings = scene.Settings

// pool is a 40 x 40 mm pool 2 mm deep (dx 0.5 mm) with a 10 mm block standing in it,
// waves on.
const pool = `local sim = vp.sim{ size = {0.04, 0.04}, height = 0.02, dx = 0.0005, workers = 1, waves = "on" }
sim:terrain(vp.box{ min = {0.03, 0.03, 0}, max = {0.04, 0.04, 0.01} })
sim:fill{ at = {0.01, 0.01, 0.001}, level = 0.002 }
`

// TestWavesFromScript: sim:wave starts a ring that sim:wave_height reads where it has
// spread to and sim:stats counts; the liquid's heights are those of the same run without
// it, bit for bit; sim:velocity of still liquid is zero; waves off, sim:wave says how to
// turn them on; bad arguments fail naming the field.
func TestWavesFromScript(t *testing.T) {
	run := func(src string) *Scenario {
		s := mustLoad(t, "w.lua", src, opts(nil))
		for s.Scene().Time() < 0.035 {
			if _, err := s.Advance(5); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	with := run(pool + `sim:wave{ at = {0.015, 0.015, 0.002}, amplitude = 2e-4 }
assert(sim:info().waves == "on" and sim:info().wave_particles == 6000 and sim:info().wave_amplitude == 1)
sim:at(0.02, function() -- the ring starts at the waves' next step (1/60 s)
  assert(sim:stats().waves > 0, "no wave particles")
  local vx, vy = sim:velocity(0.01, 0.01)
  assert(math.abs(vx) < 1e-3 and math.abs(vy) < 1e-3, "still liquid moves")
end)
`)
	without := run(pool)
	if n := with.Scene().WaveCount(); n == 0 {
		t.Fatal("no wave particles after sim:wave")
	}
	// The ring has spread some 10-20 mm in 35 ms: somewhere on the pool it shows.
	most := 0.0
	for x := 0.001; x < 0.03; x += 0.0005 {
		for y := 0.001; y < 0.03; y += 0.0005 {
			most = math.Max(most, math.Abs(with.Scene().WaveHeight(x, y)))
		}
	}
	if !(most > 1e-6) {
		t.Errorf("the largest wave height 35 ms after the impact is %g m", most)
	}
	h1, h2 := with.Scene().Heights(nil), without.Scene().Heights(nil)
	for i := range h1 {
		if h1[i] != h2[i] {
			t.Fatalf("column %d: %g with the wave, %g without: the waves changed the liquid", i, h1[i], h2[i])
		}
	}
	for _, bad := range []struct{ src, want string }{
		{small + `sim:wave{ at = {0.005, 0.005, 0.001}, amplitude = 1e-4 }`, `waves are off: turn them on with waves = "on"`},
		{pool + `sim:wave{ at = {0.015, 0.015, 0.002} }`, "amplitude is missing"},
		{pool + `sim:wave{ at = {15, 15, 2}, amplitude = 1e-4 }`, "lengths are in metres"},
		{pool + `sim:wave{ at = {0.015, 0.015, 0.002}, amplitude = 1e-4, radius = -1 }`, "radius is -1"},
		{pool + `sim:wave{ at = {0.015, 0.015, 0.002}, amplitude = 1e-4, size = 2 }`, `unknown field "size"`},
		{pool + `sim:set{ wave_amplitude = -1 }`, "wave_amplitude is -1"},
		{pool + `sim:set{ wave_particles = 0 }`, "wave_particles"},
		{pool + `sim:set{ waves = "maybe" }`, `waves is "maybe"`},
		{pool + `sim:wave_height(1, 1)`, "outside the domain"},
		{pool + `sim:velocity(1, 1)`, "outside the domain"},
	} {
		_, err := LoadSource("bad.lua", []byte(bad.src), opts(nil))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one saying %q", bad.src[len(bad.src)-60:], err, bad.want)
		}
	}
}

// TestWavesFollowSettings: sim:set turns the waves off (their particles go) and on again
// mid-run; a terrain raised through the liquid makes waves where it moved.
func TestWavesFollowSettings(t *testing.T) {
	s := mustLoad(t, "w.lua", pool+`sim:wave{ at = {0.015, 0.015, 0.002}, amplitude = 2e-4 }`, opts(nil))
	for s.Scene().Time() < 0.03 {
		if _, err := s.Advance(3); err != nil {
			t.Fatal(err)
		}
	}
	sc := s.Scene()
	if !sc.WavesOn() || sc.WaveCount() == 0 {
		t.Fatalf("waves on %v, %d particles", sc.WavesOn(), sc.WaveCount())
	}
	if _, err := sc.Change(func(st *sceneSettings) { st.Waves = false }); err != nil {
		t.Fatal(err)
	}
	if sc.WavesOn() || sc.WaveCount() != 0 {
		t.Errorf("waves off: on %v, %d particles", sc.WavesOn(), sc.WaveCount())
	}
	if _, err := sc.Change(func(st *sceneSettings) { st.Waves = true }); err != nil {
		t.Fatal(err)
	}
	if !sc.WavesOn() || sc.WaveCount() != 0 {
		t.Errorf("waves on again: on %v, %d particles (want a fresh start)", sc.WavesOn(), sc.WaveCount())
	}
	var err error
	raised := mustLoad(t, "r.lua", pool+`sim:at(0.01, function()
  sim:terrain(vp.union(vp.box{ min = {0.03, 0.03, 0}, max = {0.04, 0.04, 0.01} }, vp.box{ min = {0.01, 0.01, 0}, max = {0.02, 0.02, 0.0015} }))
end)`, opts(nil))
	for raised.Scene().Time() < 0.02 && err == nil {
		_, err = raised.Advance(2)
	}
	if err != nil {
		t.Fatal(err)
	}
	if n := raised.Scene().WaveCount(); n == 0 {
		t.Error("a block raised 1.5 mm through a 2 mm pool made no waves")
	}
}
