package waves

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

const (
	tdx    = 0.5e-3 // cell size of the test grids, m
	tr     = 1.5e-3 // kernel radius of the test impacts, m
	height = 20e-3  // domain top, m
)

// flatCols is an nx x ny grid with one column per cell: floor at 0, free to the top.
func flatCols(t testing.TB, nx, ny int) *terrain.Columns {
	t.Helper()
	cells := make([][]terrain.Interval, nx*ny)
	for k := range cells {
		cells[k] = []terrain.Interval{{Min: 0, Base: 0, Max: height}}
	}
	cols, err := terrain.FromIntervals(nx, ny, tdx, height, 1, cells)
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// still returns a flow of uniform depth over the base of every column, no velocity.
func still(cols *terrain.Columns, depth float64) Flow {
	h := make([]float32, cols.NumColumns())
	for i := range h {
		h[i] = cols.Base[i] + float32(depth)
	}
	return Flow{Height: h}
}

// current adds a uniform velocity (u, v) to f.
func current(f Flow, u, v float32) Flow {
	f.VX = make([]float32, len(f.Height))
	f.VY = make([]float32, len(f.Height))
	for i := range f.VX {
		f.VX[i], f.VY[i] = u, v
	}
	return f
}

func newSystem(t testing.TB, cols *terrain.Columns, st Settings) *System {
	t.Helper()
	s, err := New(cols, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// fronts returns the largest projection of the crest particles (amplitude > 0) on +x,
// -x, +y and -y from (x0, y0).
func fronts(ps []Particle, x0, y0 float64) [4]float64 {
	f := [4]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range ps {
		if p.Amplitude <= 0 {
			continue
		}
		dx, dy := p.X-x0, p.Y-y0
		f[0], f[1], f[2], f[3] = max(f[0], dx), max(f[1], -dx), max(f[2], dy), max(f[3], -dy)
	}
	return f
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }
