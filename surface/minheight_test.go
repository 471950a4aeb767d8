package surface

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// TestLocalMinimumHeightClosedForm checks Eq. 6-7 on one terrain vertex over a quartet
// with bases 1, 1, 1.4 and 2 mm (dx = 1 mm): the bilinear interpolation of b + l meets
// h_v + eps exactly, l >= the global minimum, the column whose base lies above the vertex
// gets (almost) no correction, and the lower columns take more than the higher ones.
func TestLocalMinimumHeightClosedForm(t *testing.T) {
	c := grid(t, 2, 2, floor(1.4), floor(2), floor(1), floor(1))
	// index order: (0,0) base 1, (1,0) 1, (0,1) 1.4, (1,1) 2
	px, py, hv := 0.8*mm, 1.2*mm, 1.5*mm // fx = 0.3, fy = 0.7
	tm := &terrain.Mesh{Positions: []float32{float32(px), float32(py), float32(hv)}, Normals: []float32{0, 0, 1}}
	b := newBuilder(t, c, tm, DefaultSettings())
	g, eps := globalMinCells*mm, epsCells*mm
	l, q, st := b.vertexLocal(px, py, hv, g, eps)
	if st != vertexConstrains {
		t.Fatalf("status %d", st)
	}
	var interp float64
	for k, col := range q.col {
		interp += q.w[k] * (float64(c.Base[col]) + l[k])
		if l[k] < g-1e-15 {
			t.Errorf("l[%d] = %g below the global minimum", k, l[k])
		}
	}
	if !near(interp, hv+eps, 1e-12) {
		t.Fatalf("bilinear(b + l) = %g, want h_v + eps = %g", interp, hv+eps)
	}
	// Column (1,1), base 2 mm > h_v: weight 1e10, correction ~0 beyond g.
	if d := l[3] - g; d > 1e-12 {
		t.Errorf("column above the vertex corrected by %g", d)
	}
	// Lower bases (1 mm) take more than the 1.4 mm one, per unit of bilinear weight.
	if !(l[0]/q.w[0] > l[2]/q.w[2]) {
		t.Errorf("l/beta: base 1 mm %g, base 1.4 mm %g: the lower should take more", l[0]/q.w[0], l[2]/q.w[2])
	}
	// The precompute took it: hmin = b + max(g, l).
	for k, col := range q.col {
		if want := float32(float64(c.Base[col]) + l[k]); !near(float64(b.hmin[col]), float64(want), 1e-9) {
			t.Errorf("hmin of column %d = %g, want %g", col, b.hmin[col], want)
		}
	}

	// A vertex pointing down is skipped; one that would raise a column more than dx
	// above the quartet's highest base is discarded; one the global minimum already
	// clears constrains nothing.
	tm = &terrain.Mesh{Positions: []float32{float32(px), float32(py), float32(hv), float32(px), float32(py), 4 * mm, 0.5 * mm, 0.5 * mm, 1.02 * mm},
		Normals: []float32{0, 0, -1, 0, 0, 1, 0, 0, 1}}
	b = newBuilder(t, c, tm, DefaultSettings())
	for col := range c.NumColumns() {
		if want := c.Base[col] + float32(g); !near(float64(b.hmin[col]), float64(want), 1e-9) {
			t.Errorf("column %d: hmin %g, want the global minimum %g", col, b.hmin[col], want)
		}
	}
	if b.vertKept != 0 || b.vertSkip != 1 {
		t.Errorf("kept %d, discarded %d; want 0, 1", b.vertKept, b.vertSkip)
	}
	if _, _, st := b.vertexLocal(0.5*mm, 0.5*mm, 1.02*mm, g, eps); st != vertexFree {
		t.Errorf("a vertex 0.02 mm above its column's base: status %d, want free (the global 0.05 mm clears it)", st)
	}
}

func TestSinCos(t *testing.T) {
	worst := 0.0
	for x := -math.Pi / 2; x <= math.Pi/2; x += 1e-4 {
		s, c := sinCos(x)
		worst = max(worst, math.Abs(s-math.Sin(x)), math.Abs(c-math.Cos(x)))
	}
	if worst > 1e-8 {
		t.Fatalf("sinCos error %g", worst)
	}
}

// A terrain vertex on a wall's face (here 15 mm up a 19 mm step between two cells) is
// discarded: it would lift the column at the wall's foot by far more than a cell, and that
// column would then stand as a sheet up the wall whenever wet. A vertex on a bump of the
// floor, needing less than a cell, still constrains.
func TestMinHeightIgnoresWalls(t *testing.T) {
	c := grid(t, 2, 2, floor(1), floor(20), floor(1), floor(20))
	g := 0.05 * mm
	wall := &terrain.Mesh{Positions: []float32{1 * mm, 1 * mm, 15 * mm}, Normals: []float32{-1, 0, 0}}
	b := newBuilder(t, c, wall, DefaultSettings())
	for col := range c.NumColumns() {
		if want := c.Base[col] + float32(g); !near(float64(b.hmin[col]), float64(want), 1e-9) {
			t.Errorf("column %d (base %g mm): hmin %g mm, want the global minimum: the wall lifted it", col, c.Base[col]*1e3, b.hmin[col]*1e3)
		}
	}
	if b.vertKept != 0 || b.vertSkip != 1 {
		t.Errorf("kept %d, discarded %d; want 0, 1", b.vertKept, b.vertSkip)
	}
	flat := grid(t, 2, 2, floor(1), floor(1.3), floor(1), floor(1.3))
	bump := &terrain.Mesh{Positions: []float32{1 * mm, 1 * mm, 1.5 * mm}, Normals: []float32{0, 0, 1}}
	b = newBuilder(t, flat, bump, DefaultSettings())
	if b.vertKept != 1 {
		t.Errorf("a bump 0.35 mm above the floor's mean: kept %d, want 1", b.vertKept)
	}
}
