package script

import (
	"math"
	"strings"
	"testing"
)

// TestCapillaritySettings: capillarity is on unless a script turns it off; the named
// liquids bring their surface tension and density, which surface_tension and density
// override; contact_angle is the solver's too; sim:info reports them; bad values fail the
// call and change nothing.
func TestCapillaritySettings(t *testing.T) {
	for _, tc := range []struct {
		set               string
		sigma, rho, theta float64
	}{
		{"", 0.072, 1000, 30 * math.Pi / 180},
		{"sim:set{ capillarity = 'off' }", 0, 1000, 30 * math.Pi / 180},
		{"sim:set{ capillarity = 'off' } sim:set{ capillarity = 'on' }", 0.072, 1000, 30 * math.Pi / 180},
		{"sim:set{ liquid = 'blood', capillarity = 'on', contact_angle = 1 }", 0.056, 1060, 1},
		{"sim:set{ liquid = 'paint' } sim:set{ capillarity = 'on', surface_tension = 0.03 }", 0.03, 1300, 30 * math.Pi / 180},
		{"sim:set{ capillarity = 'on', liquid = {0.5, 0.5, 0.5}, density = 900 }", 0.072, 900, 30 * math.Pi / 180},
		{"sim:set{ capillarity = 'on' } sim:set{ capillarity = 'off' }", 0, 1000, 30 * math.Pi / 180},
	} {
		s := mustLoad(t, "c.lua", small+tc.set+`
local info = sim:info()
assert(info.surface_tension == sim:info().surface_tension and info.contact_angle > 0)
assert((info.capillarity == "on") == (info.surface_tension > 0), info.capillarity)
assert(info.surface_tension == 0 or math.abs(info.wetting_head - 2 * info.capillary_length * math.sin(info.contact_angle / 2)) < 1e-12)
`, opts(nil))
		st := s.Scene().SolverSettings()
		if st.SurfaceTension != tc.sigma || st.Density != tc.rho || math.Abs(st.ContactAngle-tc.theta) > 1e-15 {
			t.Errorf("%q: solver sigma %g, rho %g, theta %g; want %g, %g, %g", tc.set, st.SurfaceTension, st.Density, st.ContactAngle, tc.sigma, tc.rho, tc.theta)
		}
	}
	for _, bad := range []struct{ set, want string }{
		{"sim:set{ surface_tension = -1 }", "surface_tension is -1"},
		{"sim:set{ density = 0 }", "density is 0"},
		{"sim:set{ capillarity = 'maybe' }", `capillarity is "maybe"`},
		{"sim:set{ contact_angle = 4 }", "contact_angle is 4"},
	} {
		_, err := LoadSource("b.lua", []byte(small+"sim:set{ capillarity = 'on' }\n"+bad.set), opts(nil))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one naming %q", bad.set, err, bad.want)
		}
		s := mustLoad(t, "b.lua", small+"sim:set{ capillarity = 'on' }\npcall(function() "+bad.set+" end)", opts(nil))
		if st := s.Scene().SolverSettings(); st.SurfaceTension != 0.072 || st.Density != 1000 {
			t.Errorf("%q failed but changed the solver: sigma %g, rho %g", bad.set, st.SurfaceTension, st.Density)
		}
	}
}

// sim:info().contact_line names the contact line's model: the angle at the line where the
// pressure is exact, the heads where it is smoothed or off, off without surface tension.
func TestContactLineInfo(t *testing.T) {
	mustLoad(t, "cl.lua", small+`
sim:set{ capillarity = 'on', capillary_pressure = 'on', dt = 0.00005 }
assert(sim:info().contact_line == "angle", sim:info().contact_line)
sim:set{ dt = 0.003 }
assert(sim:info().contact_line == "heads", sim:info().contact_line)
sim:set{ dt = 0.00005, capillary_pressure = 'off' }
assert(sim:info().contact_line == "heads", sim:info().contact_line)
sim:set{ capillarity = 'off' }
assert(sim:info().contact_line == "off", sim:info().contact_line)
`, opts(nil))
}

// TestContactHysteresisAndPressure: contact_angle = {advancing, receding} sets the
// hysteresis (a number sets one angle again); capillary_pressure turns the pressure on;
// sim:info reports the receding angle and head and the smoothing passes; a receding angle
// above the advancing one fails the call.
func TestContactHysteresisAndPressure(t *testing.T) {
	s := mustLoad(t, "h.lua", small+`
sim:set{ capillarity = 'on', contact_angle = {1.0, 0.6}, capillary_pressure = 'on' }
local info = sim:info()
assert(info.contact_angle == 1.0 and math.abs(info.receding_angle - 0.6) < 1e-12, info.receding_angle)
assert(math.abs(info.receding_head - 2 * info.capillary_length * math.sin(0.3)) < 1e-12)
assert(info.receding_head < info.wetting_head)
assert(info.capillary_pressure == "on" and info.capillary_smoothing >= 1, info.capillary_smoothing)
assert(info.contact_line == "heads", info.contact_line)
sim:set{ dt = 0.00005 }
assert(sim:info().capillary_smoothing == 0, sim:info().capillary_smoothing)
assert(sim:info().contact_line == "angle", sim:info().contact_line)
`, opts(nil))
	st := s.Scene().SolverSettings()
	if !st.CapillaryPressure || math.Abs(st.ContactHysteresis-0.4) > 1e-15 || st.ContactAngle != 1 {
		t.Errorf("solver: pressure %v, hysteresis %g, angle %g", st.CapillaryPressure, st.ContactHysteresis, st.ContactAngle)
	}
	s = mustLoad(t, "h.lua", small+`sim:set{ capillarity = 'on', contact_angle = {1.0, 0.6} }
sim:set{ contact_angle = 0.8 }
assert(sim:info().receding_angle == 0.8 and sim:info().capillary_pressure == "off")`, opts(nil))
	if st := s.Scene().SolverSettings(); st.ContactHysteresis != 0 {
		t.Errorf("a single angle left hysteresis %g", st.ContactHysteresis)
	}
	for _, bad := range []struct{ set, want string }{
		{"sim:set{ contact_angle = {0.5, 0.8} }", "0 <= receding <= advancing"},
		{"sim:set{ contact_angle = {0.5} }", "contact_angle"},
		{"sim:set{ capillary_pressure = 1 }", "capillary_pressure"},
	} {
		_, err := LoadSource("b.lua", []byte(small+bad.set), opts(nil))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one naming %q", bad.set, err, bad.want)
		}
	}
}
