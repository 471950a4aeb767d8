package surface_test

import (
	"fmt"

	"github.com/vpbench/vpbench/surface"
	"github.com/vpbench/vpbench/terrain"
)

// A 3 x 3 floor at 1 mm with a wall (top 5 mm) along the right; the left column of
// cells holds liquid 2 mm deep, the middle one 1 mm. The wall's columns are dry and
// linked to the middle ones: their vertices sit at the mean height of their wet
// neighbours, with opacity 0. The normals lean away from the slope and, near the wall,
// away from the wall (the meniscus: the solid rises steeply there, beta > alpha). The
// liquid's sides along the domain's sides are left off (Settings.Sides), to show the
// surface alone: every cell of so small a grid lies on the border.
func ExampleBuilder() {
	const mm = 1e-3
	fl := []terrain.Interval{{Min: 1 * mm, Base: 1 * mm, Max: 10 * mm}}
	wall := []terrain.Interval{{Min: 5 * mm, Base: 5 * mm, Max: 10 * mm}}
	row := [][]terrain.Interval{fl, fl, wall}
	cols, err := terrain.FromIntervals(3, 3, mm, 10*mm, 1, append(append(row, row...), row...))
	if err != nil {
		panic(err)
	}
	s := surface.DefaultSettings()
	s.Sides = false
	b, err := surface.NewBuilder(cols, nil, s)
	if err != nil {
		panic(err)
	}
	h := make([]float32, cols.NumColumns())
	for i := range h {
		h[i] = cols.Base[i] // dry
		if i%3 == 0 {
			h[i] = 3 * mm
		} else if i%3 == 1 {
			h[i] = 2 * mm
		}
	}
	m := b.Build(h)
	fmt.Printf("%d vertices, %d triangles\n", m.NumVertices(), m.NumTriangles())
	for v := range m.NumVertices() {
		fmt.Printf("(%.1f, %.1f, %.2f) mm  normal (%+.3f, %+.3f, %+.3f)  opacity %.2f\n",
			m.Positions[3*v]/mm, m.Positions[3*v+1]/mm, m.Positions[3*v+2]/mm,
			m.Normals[3*v], m.Normals[3*v+1], m.Normals[3*v+2], m.Opacity[v])
	}
	// Output:
	// 9 vertices, 8 triangles
	// (0.5, 0.5, 3.00) mm  normal (+0.580, +0.000, +0.815)  opacity 1.00
	// (1.5, 0.5, 2.00) mm  normal (-0.052, +0.000, +0.999)  opacity 0.50
	// (0.5, 1.5, 3.00) mm  normal (+0.580, +0.000, +0.815)  opacity 1.00
	// (1.5, 1.5, 2.00) mm  normal (-0.052, +0.000, +0.999)  opacity 0.50
	// (0.5, 2.5, 3.00) mm  normal (+0.580, +0.000, +0.815)  opacity 1.00
	// (1.5, 2.5, 2.00) mm  normal (-0.052, +0.000, +0.999)  opacity 0.50
	// (2.5, 0.5, 2.00) mm  normal (-0.052, +0.000, +0.999)  opacity 0.00
	// (2.5, 1.5, 2.00) mm  normal (-0.052, +0.000, +0.999)  opacity 0.00
	// (2.5, 2.5, 2.00) mm  normal (-0.052, +0.000, +0.999)  opacity 0.00
}
