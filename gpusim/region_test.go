package gpusim

import (
	"math"
	"testing"
)

// TestVolumeIn: the liquid of a region against a sum over the cells whose centres lie in
// it, column by column, on the overhang scene (up to three columns a cell) flooded so
// that liquid stands on the floor and on both slabs.
func TestVolumeIn(t *testing.T) {
	const n, dx = 40, 0.001
	c := overhangScene(t, n, n, dx)
	sim := newSim(t, c, settings(0.002, 1e-6, 2))
	for _, at := range [][3]float64{{0.005, 0.005, 0.001}, {0.012, 0.012, 0.0105}, {0.028, 0.024, 0.0185}, {0.035, 0.02, 0.0105}} {
		if _, err := sim.Fill(at[0], at[1], at[2], at[2]+0.003); err != nil {
			t.Fatal(err)
		}
	}
	sim.Step(50)
	s := snapshot(sim)
	brute := func(r Region) float64 {
		var v float64
		for y := range c.Ny {
			for x := range c.Nx {
				cx, cy := c.CellCentre(x, y)
				if cx < r.X0 || cx > r.X1 || cy < r.Y0 || cy > r.Y1 {
					continue
				}
				lo, hi := c.Cell(x, y)
				for i := lo; i < hi; i++ {
					if b := float64(c.Base[i]); b > r.FloorAbove && b <= r.FloorBelow {
						v += max(s.Depth(i), 0)
					}
				}
			}
		}
		return v * dx * dx
	}
	all := s.VolumeIn(AllRegion)
	if math.Abs(all-(s.Volume-s.Airborne)) > 1e-6*s.Volume || all <= 0 {
		t.Fatalf("the whole grid holds %g m^3, Volume - Airborne is %g", all, s.Volume-s.Airborne)
	}
	split := AllRegion
	split.FloorBelow = 0.009
	below := s.VolumeIn(split)
	split.FloorBelow, split.FloorAbove = math.Inf(1), 0.009
	above := s.VolumeIn(split)
	if below <= 0 || above <= 0 || math.Abs(below+above-all) > 1e-12*all {
		t.Fatalf("floors at or below 9 mm hold %g, above %g: sum %g, want %g", below, above, below+above, all)
	}
	for _, r := range []Region{
		AllRegion,
		{X0: 0.0105, Y0: -1, X1: 0.0295, Y1: 1, FloorAbove: math.Inf(-1), FloorBelow: math.Inf(1)},
		{X0: 0.0105, Y0: 0.0205, X1: 0.0295, Y1: 0.0305, FloorAbove: 0.009, FloorBelow: 0.017}, // bounds on centres
		{X0: 0.0005, Y0: 0.0005, X1: 0.0005, Y1: 0.0395, FloorAbove: -1, FloorBelow: 0.009},    // one row of cells along y
		{X0: 0.02, Y0: 0.02, X1: 0.01, Y1: 0.03, FloorAbove: -1, FloorBelow: 1},                // empty: x0 > x1
		{X0: 0.5, Y0: 0.5, X1: 0.6, Y1: 0.6, FloorAbove: -1, FloorBelow: 1},                    // outside the grid
	} {
		got, want := s.VolumeIn(r), brute(r)
		if math.Abs(got-want) > 1e-12*all {
			t.Errorf("%+v: VolumeIn %g, cell by cell %g", r, got, want)
		}
	}
	if got := s.VolumeIn(Region{X0: 0.02, Y0: 0.02, X1: 0.01, Y1: 0.03, FloorAbove: -1, FloorBelow: 1}); got != 0 {
		t.Errorf("an empty region holds %g", got)
	}
}

// BenchmarkVolumeIn: one region's volume over a 200 x 200 grid of up to three columns a
// cell (the cost of one sim:volume{...} in a script's report).
func BenchmarkVolumeIn(b *testing.B) {
	c := overhangScene(b, 200, 200, 0.0005)
	sim := newSim(b, c, settings(0.002, 1e-6, 2))
	if _, err := sim.Fill(0.05, 0.05, 0.001, 0.02); err != nil {
		b.Fatal(err)
	}
	s := snapshot(sim)
	r := AllRegion
	r.FloorAbove = 0.009
	b.ResetTimer()
	for range b.N {
		s.VolumeIn(r)
	}
}
