package liquid3d

import "slices"

// martinMoyce is Martin and Moyce's (1952) surge front of a collapsing column of water
// twice as tall as wide (n^2 = 2): T = t sqrt(2 g / a), Z = x / a.
var martinMoyce = [...][2]float64{
	{0.41, 1.11}, {0.84, 1.22}, {1.19, 1.44}, {1.43, 1.67}, {1.63, 1.89}, {1.83, 2.11},
	{1.98, 2.33}, {2.20, 2.56}, {2.32, 2.78}, {2.51, 3.00}, {2.65, 3.22}, {2.83, 3.44},
	{2.98, 3.67}, {3.11, 3.89}, {3.33, 4.11},
}

// MartinMoyce returns Martin and Moyce's measured surge front of a collapsing column of
// water twice as tall as wide (n^2 = 2; "An experimental study of the collapse of liquid
// columns on a rigid horizontal plane", Phil. Trans. R. Soc. A 244, 1952), as (T, Z)
// pairs in increasing T: T = t sqrt(2 g / a), Z = x / a, for a column a wide and 2a tall
// released at t = 0 against a wall at x = 0. The slice is a copy.
func MartinMoyce() [][2]float64 { return slices.Clone(martinMoyce[:]) }

// MartinMoyceAt interpolates Martin and Moyce's curve linearly at T: before their first
// point it extends the first segment (to Z = 1.005 at T = 0), after their last (T = 3.33)
// it holds its Z.
func MartinMoyceAt(T float64) float64 {
	d := martinMoyce[:]
	for i := 1; i < len(d); i++ {
		if T <= d[i][0] {
			f := (T - d[i-1][0]) / (d[i][0] - d[i-1][0])
			return d[i-1][1] + f*(d[i][1]-d[i-1][1])
		}
	}
	return d[len(d)-1][1]
}

// SurgeFront is the front of the liquid spreading along +x on the box's floor, m from
// the box's -x side: the farthest particle in the lowest layer of cells, plus a quarter
// cell (half the particles' spacing: the edge of the volume it stands for). It is the
// measure of Martin and Moyce's collapse (MartinMoyce): the liquid at the -x end of a box
// whose floor is its -z side. A quarter cell when no particle is in the lowest layer.
func SurgeFront(s *Sim) float64 {
	x := 0.0
	for p := 0; p < s.np; p++ {
		if s.pz[p] < 1 {
			x = max(x, float64(s.px[p]))
		}
	}
	return (x + 0.25) * s.h
}
