package region

// A region in columns with surface tension (docs/method.md, "The coupling to the
// columns": surface tension): the columns' capillary head reads the held heights as any
// column's, the region's own liquid has none.

import (
	"math"
	"slices"
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
	const dx = 4e-3
	for _, level := range []float64{0.0227, 0.0233} {
		c := flat(t, 16, 8, dx, 0.048)
		st := withTension(gpusim.DefaultSettings())
		st.Workers = 2
		sim := newColumns(t, c, st, level)
		g := newRegion(t, sim, Settings{X: 5, Y: 2, NX: 6, NY: 4, Refine: 2, NZ: 24, Workers: 2})
		worst := 0.0
		for sim.Time() < 2-1e-9 {
			step(t, g)
			worst = max(worst, math.Abs(checkVolume(t, g, "step")))
		}
		vx, vy := sim.Velocities(nil, nil)
		colSpeed := 0.0
		for i := range vx {
			colSpeed = max(colSpeed, math.Hypot(float64(vx[i]), float64(vy[i])))
		}
		thick := g.Liquid().ColumnThickness(nil)
		lo, hi := slices.Min(thick), slices.Max(thick)
		out := sim.Levels(outsideRing(c, 5, 2, 6, 4), nil)
		olo, ohi := slices.Min(out), slices.Max(out)
		diff := max(math.Abs(hi-olo), math.Abs(ohi-lo))
		speed := g.Liquid().MaxSpeed()
		t.Logf("filled to %.1f mm: fastest particle %.3g m/s, column %.3g m/s; surfaces differ by %.3g mm; volume within %.3g",
			level*1e3, speed, colSpeed, diff*1e3, worst)
		if speed >= 1e-3 || colSpeed >= 1e-3 {
			t.Errorf("filled to %.1f mm: the fastest particle %.3g m/s, column %.3g m/s: want under 1 mm/s", level*1e3, speed, colSpeed)
		}
		if diff > 0.05e-3 {
			t.Errorf("filled to %.1f mm: the surfaces inside and outside differ by %.3g mm, want within 0.05 mm", level*1e3, diff*1e3)
		}
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
	sim, err := gpusim.New(c, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	hs := make([]float32, c.NumColumns())
	for i := range hs {
		if i < 12 {
			hs[i] = 0.006
		}
	}
	if err := sim.SetHeights(hs); err != nil {
		t.Fatal(err)
	}
	g := newRegion(t, sim, Settings{X: 16, NX: 8, NY: 1, Refine: 2, NZ: 12, Workers: workers})
	for sim.Time() < until {
		step(t, g)
		checkVolume(t, g, "step")
	}
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
	hs1, hs2 := slices.Clone(s1.LiveHeights(nil)), slices.Clone(s2.LiveHeights(nil))
	p1, p2 := g1.Liquid().Particles(nil), g2.Liquid().Particles(nil)
	v1, b1 := g1.Balance()
	v2, b2 := g2.Balance()
	if !slices.Equal(hs1, hs2) || !slices.Equal(p1, p2) || v1 != v2 || b1 != b2 {
		t.Errorf("1 and 2 workers differ: heights equal %v, particles equal %v (%d, %d), volume %.17g and %.17g",
			slices.Equal(hs1, hs2), slices.Equal(p1, p2), len(p1), len(p2), v1, v2)
	}
}
