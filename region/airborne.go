package region

import (
	"math"

	"github.com/vpbench/vpbench/liquid3d"
)

// AirborneMargin is how far above the held columns' surface, in region cells, a
// particle must lie to be drawn as liquid in the air (Airborne). The held heights are
// the region's liquid spread over each column cell; a particle of the bulk lies under
// them, those at the top of a sloping surface up to about half a column cell times the
// slope above, and a particle's own square spreads it a region cell: two cells leave
// the bulk's top layers out of a surface whose slope is under one (over a column cell
// as wide as four region cells or fewer).
const AirborneMargin = 2

// Airborne appends to dst the region's particles that stand above the held columns'
// surface by more than AirborneMargin region cells, as they were after the last step:
// the liquid the heightfield cannot show (a splash thrown up, a jet, a crest that
// overturns, falling liquid that joined the region), for the picture to draw as liquid
// in the air (docs/method.md, "The region in the picture"). The surface is the held
// heights interpolated between the column cells' centres, as the surface mesh draws
// them. Empty before the first step.
func (g *Region) Airborne(dst []liquid3d.Particle) []liquid3d.Particle {
	if len(g.heights) != len(g.held) {
		return dst
	}
	for _, p := range g.parts {
		if g.airborne(p) {
			dst = append(dst, p)
		}
	}
	return dst
}

// AirborneCount is how many particles Airborne would give and the highest of them (m;
// 0 when none): what the picture draws in the air, for the region's figures.
func (g *Region) AirborneCount() (n int, top float64) {
	if len(g.heights) != len(g.held) {
		return 0, 0
	}
	for _, p := range g.parts {
		if g.airborne(p) {
			if n == 0 || p.Pos.Z > top {
				top = p.Pos.Z
			}
			n++
		}
	}
	return n, top
}

// airborne says whether particle p stands above the held surface by the margin.
func (g *Region) airborne(p liquid3d.Particle) bool {
	set := g.set
	x0, y0 := float64(set.X)*g.dx, float64(set.Y)*g.dx
	return p.Pos.Z > g.heldSurface((p.Pos.X-x0)/g.dx, (p.Pos.Y-y0)/g.dx)+AirborneMargin*g.h
}

// heldSurface is the held heights at (x, y) in column cells from the box's corner,
// interpolated bilinearly between the cells' centres (clamped to the box's cells).
func (g *Region) heldSurface(x, y float64) float64 {
	nx, ny := g.set.NX, g.set.NY
	fx := min(max(x-0.5, 0), float64(nx-1))
	fy := min(max(y-0.5, 0), float64(ny-1))
	i, j := min(int(fx), max(nx-2, 0)), min(int(fy), max(ny-2, 0))
	tx, ty := fx-float64(i), fy-float64(j)
	at := func(a, b int) float64 { return g.heights[min(a, nx-1)+nx*min(b, ny-1)] }
	h0 := at(i, j)*(1-tx) + at(i+1, j)*tx
	h1 := at(i, j+1)*(1-tx) + at(i+1, j+1)*tx
	if math.IsNaN(h0) || math.IsNaN(h1) {
		return math.Inf(1)
	}
	return h0*(1-ty) + h1*ty
}
