package gpusim

// Region: the liquid a question is about, picked by where it stands, and the volume a
// snapshot holds there (Snapshot.VolumeIn).

import "math"

// Region picks the liquid a question is about by where it stands: the cells whose
// centres lie in [X0, X1] x [Y0, Y1] (m), and in them the columns whose floor (base, m)
// lies above FloorAbove and at or below FloorBelow. So a shelf's liquid and the basin's
// under it, in the same cells, are told apart by the height of what they stand on.
// AllRegion selects every column; narrow it field by field.
type Region struct {
	X0, Y0, X1, Y1         float64
	FloorAbove, FloorBelow float64
}

// AllRegion is the region of every column.
var AllRegion = Region{
	X0: math.Inf(-1), Y0: math.Inf(-1), X1: math.Inf(1), Y1: math.Inf(1),
	FloorAbove: math.Inf(-1), FloorBelow: math.Inf(1),
}

// VolumeIn returns the volume of the liquid standing in r, m^3: the float64 sum of
// (h - b) dx^2 over r's columns. Liquid in the air is in no column, and the sub-ulp
// roundings that Volume carries are left out, so over AllRegion it is Volume less
// Airborne to float32 rounding. It reads the heights once, for any number of columns:
// a script's report over a whole grid costs microseconds, not a call per cell.
func (s *Snapshot) VolumeIn(r Region) float64 {
	c := s.Columns
	// The cells [a, b) whose centres (i + 0.5) dx lie in [lo, hi]: estimated by division,
	// then settled against the centres themselves, so that a bound on a centre includes it.
	cells := func(lo, hi float64, n int) (a, b int) {
		centre := func(i int) float64 { return (float64(i) + 0.5) * c.Dx }
		a = int(max(min(math.Ceil(lo/c.Dx-0.5), float64(n)), 0))
		for a > 0 && centre(a-1) >= lo {
			a--
		}
		for a < n && centre(a) < lo {
			a++
		}
		b = int(max(min(math.Floor(hi/c.Dx-0.5), float64(n-1)), -1)) + 1
		for b < n && centre(b) <= hi {
			b++
		}
		for b > 0 && centre(b-1) > hi {
			b--
		}
		return a, b
	}
	x0, x1 := cells(r.X0, r.X1, c.Nx)
	y0, y1 := cells(r.Y0, r.Y1, c.Ny)
	var v float64
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			lo, hi := c.Cell(x, y)
			for i := lo; i < hi; i++ {
				b := float64(c.Base[i])
				if d := float64(s.Height[i]) - b; d > 0 && b > r.FloorAbove && b <= r.FloorBelow {
					v += d
				}
			}
		}
	}
	return v * c.Dx * c.Dx
}
