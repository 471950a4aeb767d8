package gpusim

import (
	"math"
	"testing"
)

// TestSetSameSettingsSameBits: a Set that changes nothing (sim:set{} with the values in
// force) changes no result, with surface tension on (whose ripple damping restarted at
// every Set), with and without the capillary pressure, on both layouts and with both
// methods.
func TestSetSameSettingsSameBits(t *testing.T) { setSameRuns(t, "") }

// setSameRuns is TestSetSameSettingsSameBits on backend ("": the CPU's).
func setSameRuns(t *testing.T, backend string) {
	for _, o := range []backendOptions{{general: true}, {}} {
		for _, m := range []Method{MethodPipes, MethodSWE} {
			for _, pressure := range []bool{false, true} {
				run := func(set bool) []uint64 {
					st := settings(0.003, 1e-6, 0)
					st.Method, st.Backend = m, backend
					st.SurfaceTension, st.ContactHysteresis, st.CapillaryPressure = 0.072, 0.15, pressure
					sim := newSimWith(t, layeredScene(t, 40, 50, 0.0005, 0.03, 1, tiltedFloor(0.2, true, 3), nil), st, o)
					if _, err := sim.Fill(0.01, 0.012, 0.002, 0.002); err != nil {
						t.Fatal(err)
					}
					// A source up the slope: the liquid runs, its surface rises and falls.
					if _, err := sim.AddEmitter(Emitter{X: 0.01, Y: 0.02, Z: 0.001, Radius: 0.001, Rate: 4e-7}); err != nil {
						t.Fatal(err)
					}
					var out []uint64
					for k := range 60 {
						if set && k%7 == 3 {
							if err := sim.Set(sim.Settings()); err != nil {
								t.Fatal(err)
							}
						}
						sim.Step(1)
						if k%10 == 9 {
							for _, f := range snapshot(sim).Height {
								out = append(out, uint64(math.Float32bits(f)))
							}
						}
					}
					return out
				}
				sameRun(t, "a Set of the settings in force every 7 steps", run(true), run(false), "a run without")
			}
		}
	}
}
