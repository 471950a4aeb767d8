package script

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// sim:spray from Lua: the parcels leave at speed along direction (its length does not
// matter), spread within the cone, and every drop lands with the volume exact (rate x the
// time it ran); the handle prints as a spray and set_rate and stop work on it.
func TestSimSpray(t *testing.T) {
	log := &printLog{}
	src := `
local sim = vp.sim{ size = {0.04, 0.02}, height = 0.03, dx = 0.001, layers = 1, workers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} })
JET = sim:spray{ at = {0.005, 0.01, 0.002}, direction = {2, 0, 2}, speed = 0.5, rate = 1e-7, stop = 0.5 }
FAN = sim:spray{ at = {0.02, 0.01, 0.002}, speed = 0.4, spread = {0.3, 0.2}, seed = 11, rate = 2e-7, radius = 0.001 }
print(tostring(JET), tostring(FAN))
sim:at(0.02, function() FAN:set_rate(0); print("fan", string.format("%.17g", sim:time())) end)
sim:at(0.3, function() JET:stop(); print("jet", string.format("%.17g", sim:time())) end)
`
	sc := mustLoad(t, "spray.lua", src, opts(log))
	if !strings.Contains(log.text(), "spray 0 (rate 1e-07 m^3/s)") || !strings.Contains(log.text(), "spray 1") {
		t.Errorf("tostring: %q", log.text())
	}
	if _, err := sc.Advance(1); err != nil {
		t.Fatal(err)
	}
	sim := sc.Scene()
	// After one step: the jet's parcels move at 0.5 cos(45 deg) along x (gravity acts on
	// z only), the fountain's horizontal speeds spread within 0.4 sin(0.3).
	jet, fan := 0, 0
	var minH, maxH float64 = math.Inf(1), 0
	for _, p := range sim.Particles(nil) {
		switch {
		case p.X < 0.01:
			jet++
			if want := float32(0.5 / math.Sqrt2); p.VX != want || p.VY != 0 {
				t.Errorf("a jet parcel moves at (%g, %g) m/s sideways, want (%g, 0)", p.VX, p.VY, want)
			}
		default:
			fan++
			h := math.Hypot(float64(p.VX), float64(p.VY))
			minH, maxH = min(minH, h), max(maxH, h)
			if h > 0.4*math.Sin(0.3)*(1+1e-6) {
				t.Errorf("a fountain parcel moves at %g m/s sideways: more than 0.4 sin(0.3) = %g", h, 0.4*math.Sin(0.3))
			}
		}
	}
	if jet == 0 || fan < 2 || !(maxH > minH) {
		t.Fatalf("after a step: %d jet parcels, %d fountain parcels with sideways speeds in [%g, %g]: want both, the fountain's spread", jet, fan, minH, maxH)
	}
	for sim.Time() < 0.8 { // Advance stops at each timer
		if _, err := sc.Advance(100); err != nil {
			t.Fatal(err)
		}
	}
	// Each ran from 0 until the time its timer printed.
	var tf, tj float64
	for _, l := range strings.Split(log.text(), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			switch f[0] {
			case "fan":
				tf = v
			case "jet":
				tj = v
			}
		}
	}
	if !(tf >= 0.02 && tj >= 0.3) {
		t.Fatalf("the timers did not run: %q", log.text())
	}
	st := sim.Stats()
	want := 1e-7*tj + 2e-7*tf
	if st.Particles != 0 || math.Abs(st.Added-want) > 1e-12*want || math.Abs(st.Volume-st.Added) > 1e-12*st.Added {
		t.Errorf("at the end: %d particles, added %.17g (want %.17g), volume %.17g", st.Particles, st.Added, want, st.Volume)
	}
}

// Bad sim:spray arguments fail with messages naming the function and the field.
func TestSimSprayErrors(t *testing.T) {
	head := small + "sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} })\n"
	ok := "at = {0.005, 0.005, 0.005}, speed = 0.3, rate = 1e-7"
	for _, tc := range []struct{ args, want string }{
		{ok + ", spread = {4, 0}", "sim:spray: spread is {4, 0}: each is an apex half-angle in [0, pi] radians"},
		{ok + ", spread = {45, 10}", "radians, not degrees"},
		{ok + ", spread = {-0.1, 0}", "spread is {-0.1, 0}"},
		{ok + ", spread = {0.1}", "sim:spray: spread has 1 values, want 2 angles"},
		{ok + ", spread = {0.1, 0.2, 0.3}", "sim:spray: spread has an unexpected entry [3]"},
		{ok + ", spread = 'wide'", "sim:spray: spread is a string, want 2 angles"},
		{ok + ", spread = {0/0, 0}", "sim:spray: spread[1] is nan"},
		{ok + ", direction = {0, 0, 0}", "sim:spray: direction is {0, 0, 0}: it must be a vector of non-zero, finite length"},
		{ok + ", direction = {1, 0}", "sim:spray: direction has 2 values"},
		{"at = {0.005, 0.005, 0.005}, rate = 1e-7", "sim:spray: speed is missing: want a speed in m/s"},
		{"at = {0.005, 0.005, 0.005}, speed = 0, rate = 1e-7", "sim:spray: speed is 0: it must be > 0 m/s"},
		{"at = {0.005, 0.005, 0.005}, speed = 0.3", "sim:spray: rate is missing"},
		{ok + ", seed = 2.5", "sim:spray: seed is 2.5: it must be a whole number"},
		{ok + ", seed = -1", "sim:spray: seed is -1: it must be between 0 and"},
		{ok + ", start = 0.2, stop = 0.1", "sim:spray: stop is 0.1 s: it must be after start"},
		{ok + ", radius = -1", "sim:spray: radius is -1"},
		{ok + ", velocity = {1, 0, 0}", "sim:spray: unknown field \"velocity\""},
		{"at = {5, 5, 5}, speed = 0.3, rate = 1e-7", "sim:spray: at = {5, 5, 5} is outside the 0.01 x 0.01 m domain: lengths are in metres"},
		{"at = {0.005, 0.005, 0.0005}, speed = 0.3, rate = 1e-7", "sim:spray: at = {0.005, 0.005, 0.0005} is inside a solid"},
	} {
		_, err := LoadSource("bad.lua", []byte(head+"sim:spray{ "+tc.args+" }\n"), opts(nil))
		wantError(t, err, "bad.lua", 3, tc.want)
	}
}
