package region

// A region in columns with surface tension (docs/method.md, "The coupling to the
// columns": surface tension): the columns' capillary head reads the held heights as any
// column's, the region's own liquid has none.

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
)

// withTension is st with water's surface tension and capillary pressure.
func withTension(st gpusim.Settings) gpusim.Settings {
	st.SurfaceTension, st.CapillaryPressure = 0.072, true
	return st
}

// TestTensionRest: TestRest's tank at 22.7 and 23.3 mm with water's surface tension on
// the columns: after 2 s the fastest particle and column move under 1 mm/s and the
// surfaces inside and outside the box agree within 0.05 mm, the volume exact after every
// step.
func TestTensionRest(t *testing.T) {
	for _, level := range []float64{0.0227, 0.0233} {
		st := withTension(gpusim.DefaultSettings())
		st.Workers = 2
		checkRest(t, st, 16, 8, 5, 2, 6, 4, level)
	}
}

// spreadOnto: a pool 6 mm deep over the first 12 of 40 columns of 2 mm (a channel one
// column wide), the rest of the floor dry, with water's surface tension (contact angle
// 30 degrees): the pool runs out over the dry floor and through a region over columns
// 16 to 24, its edge meeting the region's dry held columns. It steps until `until` and
// checks the volume after every step.
func spreadOnto(t testing.TB, workers int, until float64) (*gpusim.Sim, *Region) {
	t.Helper()
	const dx = 0.002
	c := flat(t, 40, 1, dx, 0.03)
	st := withTension(gpusim.DefaultSettings())
	st.ContactAngle = math.Pi / 6
	st.Workers = workers
	sim := newSim(t, c, st)
	setLine(t, sim, 12, 0.006, 0)
	g := newRegion(t, sim, Settings{X: 16, NX: 8, NY: 1, Refine: 2, NZ: 12, Workers: workers})
	stepChecked(t, g, until, nil)
	return sim, g
}

// TestTensionSpread: liquid with surface tension runs onto a region over dry ground,
// through it and out onto the dry floor beyond, the volume exact after every step; the
// same bits for 1 and 2 workers.
func TestTensionSpread(t *testing.T) {
	s1, g1 := spreadOnto(t, 1, 1.5)
	in := g1.Liquid().Inflow()
	_, out := g1.Liquid().Accounting()
	beyond := s1.Levels([]int{30}, nil)[0]
	t.Logf("%.3g s: the region took in %.3g m^3 and let out %.3g; 6 columns beyond it %.3f mm deep", s1.Time(), in, out, beyond*1e3)
	if !(in > 1e-8) || !(out > 1e-9) || !(beyond > 0.05e-3) {
		t.Errorf("in %.3g m^3, out %.3g, the column beyond %.3f mm deep: the liquid did not run through the region", in, out, beyond*1e3)
	}
	s2, g2 := spreadOnto(t, 2, 1.5)
	checkSameBits(t, s1, g1, s2, g2)
}
