package tui

import (
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/gpusim"
)

// TestCapillarityLine: the settings line says when surface tension is off, the wetting
// head with one angle, and both angles and the band a puddle rests in with hysteresis.
func TestCapillarityLine(t *testing.T) {
	st := engine.State{WorldView: engine.WorldView{Settings: gpusim.DefaultSettings()}}
	if got := capillarity(&st); got != "surface tension off" {
		t.Errorf("off: %q", got)
	}
	st.Settings.SurfaceTension = 0.072
	if got := capillarity(&st); !strings.Contains(got, "θ 30°: puddles 1.40 mm") {
		t.Errorf("one angle: %q", got)
	}
	st.Settings.ContactAngle, st.Settings.ContactHysteresis = math.Pi/3, math.Pi/6
	st.Settings.CapillaryPressure = true
	if got := capillarity(&st); !strings.Contains(got, "+pressure, θ 60/30°: puddles 1.40-2.71 mm") {
		t.Errorf("hysteresis: %q", got)
	}
	// At a step where the pressure is exact, the contact angle acts at the line.
	st.Dt, st.Dx = 5e-5, 0.00025
	if got := capillarity(&st); !strings.Contains(got, "+pressure, angle at the line, θ 60/30°") {
		t.Errorf("the angle at the line: %q", got)
	}
}
