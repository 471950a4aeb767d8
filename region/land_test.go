package region

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
)

// TestParcelEntersAsBall: a parcel of 0.52 ml (a drop 10 mm across) let go 50 mm above
// a 20 mm pool in a region of 2 mm cells enters it as a ball of particles at the
// region's spacing (1 mm: about 520 of them, all moving as it did), not as one particle
// of its volume; the books stay exact through its impact and the waves it sends out of
// the box.
func TestParcelEntersAsBall(t *testing.T) {
	const dx, vol = 2e-3, 5.2e-7
	c := flat(t, 40, 40, dx, 0.08)
	st := gpusim.DefaultSettings()
	st.Workers = 2
	sim := newColumns(t, c, st, 0.02)
	g := newRegion(t, sim, Settings{X: 12, Y: 12, NX: 16, NY: 16, Refine: 1, NZ: 30, Workers: 2})
	step(t, g)
	if err := sim.Drop(0.04, 0.04, 0.07, vol, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	added0, _ := g.Liquid().Accounting()
	grew, fastest := 0, 0.0
	for range 40 {
		n0 := g.Liquid().Count()
		step(t, g)
		checkVolume(t, g, "the drop")
		if added, _ := g.Liquid().Accounting(); added > added0 && grew == 0 {
			grew = g.Liquid().Count() - n0 // the step it landed in (less what left the box in it)
			fastest = g.Liquid().MaxSpeed()
			if d := added - added0; math.Abs(d-vol) > 1e-9*vol { // the running sum rounds a little each particle
				t.Errorf("the region took in %.17g m^3, the parcel was %g", d, vol)
			}
		}
	}
	t.Logf("the drop landed as %d particles (net of what left the box that step); the fastest particle then %.3g m/s", grew, fastest)
	if grew < 400 || grew > 600 {
		t.Errorf("the drop entered as %d particles, want about 520 (its volume over the region's particle's)", grew)
	}
	if fastest < 0.8 {
		t.Errorf("the fastest particle at the landing %.3g m/s: the drop did not bring its speed (about 1 m/s)", fastest)
	}
}
