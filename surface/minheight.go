package surface

import (
	"math"

	"github.com/vpbench/vpbench/terrain"
)

// vertexQuartet is the quartet of columns a terrain vertex constrains and its bilinear
// weights. ok is false when the vertex is skipped: a cell of the quartet has no column.
type vertexQuartet struct {
	col [4]int32
	w   [4]float64
}

// quartetOf finds the quartet of cell centres around (px, py) and, in each of its cells,
// the column a point at height pz belongs to (terrain.Columns.ColumnAt: the column whose
// free interval holds pz, the column resting on the solid that holds it, or the topmost).
// Near the domain's sides the quartet is clamped to the grid (the weight of the missing
// row or column moves to the nearest one).
func (b *Builder) quartetOf(px, py, pz float64) (vertexQuartet, bool) {
	var q vertexQuartet
	x0, fx := quartetAxis(px/b.dx-0.5, b.nx)
	y0, fy := quartetAxis(py/b.dx-0.5, b.ny)
	x1, y1 := min(x0+1, b.nx-1), min(y0+1, b.ny-1)
	cells := [4][2]int{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}}
	q.w = [4]float64{(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy}
	for k, c := range cells {
		col := b.cols.ColumnAt(c[0], c[1], pz)
		if col < 0 {
			return q, false
		}
		q.col[k] = int32(col)
	}
	return q, true
}

// quartetAxis splits a grid coordinate (in cells, centres at integers) into the lower
// cell of its pair and the fraction towards the upper one, clamped to [0, n-1].
func quartetAxis(g float64, n int) (int, float64) {
	if n == 1 || !(g > 0) {
		return 0, 0
	}
	if g >= float64(n-1) {
		return n - 2, 1
	}
	i := math.Floor(g)
	return int(i), g - i
}

// minimumHeights computes the local minimum depths l_k from the terrain mesh (paper
// Sec. 4.4, Eq. 6-7) and the minimum surface heights hmin_k = b_k + max(0.05 dx, l_k).
func (b *Builder) minimumHeights(tm *terrain.Mesh) {
	base := b.cols.Base
	dx := b.dx
	g := globalMinCells * dx
	eps := epsCells * dx
	b.local = make([]float32, b.n)
	b.hmin = make([]float32, b.n)
	for k := range b.local {
		b.local[k] = float32(g)
	}
	if tm != nil {
		for v := range len(tm.Positions) / 3 {
			if tm.Normals[3*v+2] < 0 {
				continue
			}
			l, q, st := b.vertexLocal(float64(tm.Positions[3*v]), float64(tm.Positions[3*v+1]), float64(tm.Positions[3*v+2]), g, eps)
			if st != vertexConstrains {
				if st != vertexFree {
					b.vertSkip++
				}
				continue
			}
			b.vertKept++
			for k, c := range q.col {
				b.local[c] = max(b.local[c], float32(l[k]))
			}
		}
	}
	for k := range b.hmin {
		b.hmin[k] = float32(float64(base[k]) + float64(b.local[k]))
	}
}

// vertexLocal solves Eq. 6 for one terrain vertex (px, py, hv): the local depths l_k of
// its quartet, minimising sum w_k l_k^2 subject to bilinear(b_k + l_k) = hv + eps, in
// closed form (Lagrange multipliers), with w_k = dx / (hv - b_k) for b_k <= hv and 1e10
// above (Eq. 7), and l_k >= g (the global minimum) taken into account in the solve, as
// the paper does against the large corrections of vertices close to a column: with
// l_k = g + d_k,
//
//	R = hv + eps - sum beta_k (b_k + g),   d_k = R (beta_k / w_k) / sum_m (beta_m^2 / w_m),
//
// beta_k the bilinear weights. R <= 0: the global minimum already clears the vertex.
func (b *Builder) vertexLocal(px, py, hv, g, eps float64) ([4]float64, vertexQuartet, vertexStatus) {
	var l [4]float64
	q, ok := b.quartetOf(px, py, hv)
	if !ok {
		return l, q, vertexNoColumn
	}
	base := b.cols.Base
	var bl, top, den float64
	var inv [4]float64 // 1 / w_k
	top = math.Inf(-1)
	for k, c := range q.col {
		bk := float64(base[c])
		bl += q.w[k] * (bk + g)
		top = max(top, bk)
		if bk <= hv {
			inv[k] = (hv - bk) / b.dx
		} else {
			inv[k] = 1e-10
		}
		den += q.w[k] * q.w[k] * inv[k]
	}
	R := hv + eps - bl
	if !(R > 0) || !(den > 0) {
		return l, q, vertexFree
	}
	for k, c := range q.col {
		l[k] = g + R*q.w[k]*inv[k]/den
		// The paper's test, and ours: a correction of more than a cell is not liquid
		// covering a bump of its floor but a wall or an overhang's face beside it (a
		// column at a wall's foot would stand as a sheet up the wall whenever it is wet).
		if float64(base[c])+l[k] > top+b.dx || l[k] > b.dx {
			return l, q, vertexDiscarded
		}
	}
	return l, q, vertexConstrains
}

// vertexStatus is what a terrain vertex does to the local minimum heights.
type vertexStatus int

const (
	vertexConstrains vertexStatus = iota // sets l_k of its quartet
	vertexFree                           // the bases already clear it by eps: nothing to do
	vertexDiscarded                      // would raise a column more than dx, or above the quartet's highest base + dx
	vertexNoColumn                       // a cell of its quartet has no column
	vertexDown                           // its normal points down
)
