package engine

import (
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// grid builds Columns of nx x ny cells from per-cell column intervals (base, max), cell
// index y*nx + x, and heights: base + depth per column.
func grid(nx, ny int, cells [][][2]float32, depths [][]float32) (*terrain.Columns, []float32) {
	c := &terrain.Columns{Nx: nx, Ny: ny, Dx: 0.001, Height: 0.01, Layers: 2, CellStart: []int32{0}}
	var h []float32
	for k, cell := range cells {
		for j, iv := range cell {
			c.Min = append(c.Min, iv[0])
			c.Base = append(c.Base, iv[0])
			c.Max = append(c.Max, iv[1])
			h = append(h, iv[0]+depths[k][j])
		}
		c.CellStart = append(c.CellStart, int32(len(c.Base)))
	}
	return c, h
}

func TestDepthMapCells(t *testing.T) {
	// 3 x 2 cells. Row y = 1 (top of the picture): a dry cell on the floor, a cell with
	// two columns (1 mm under the overhang, 2 mm on top), a solid cell. Row y = 0: 3 mm,
	// dry on a 5 mm step, 0.5 mm.
	c, h := grid(3, 2, [][][2]float32{
		{{0, 0.01}}, {{0.005, 0.01}}, {{0, 0.01}}, // y = 0
		{{0, 0.01}}, {{0, 0.004}, {0.006, 0.01}}, {}, // y = 1
	}, [][]float32{
		{0.003}, {0}, {0.0005},
		{0}, {0.001, 0.002}, {},
	})
	const none = -1
	for _, tc := range []struct {
		layer Layer
		want  []float32 // row-major, top row (y = 1) first
	}{
		{LayerTop, []float32{0, 0.002, none, 0.003, 0, 0.0005}},
		{LayerAll, []float32{0, 0.003, none, 0.003, 0, 0.0005}},
		{1, []float32{0, 0.001, none, 0.003, 0, 0.0005}},
		{2, []float32{none, 0.002, none, none, none, none}},
	} {
		m := computeDepthMap(c, h, tc.layer, 3, 2)
		if m.W != 3 || m.H != 2 {
			t.Fatalf("%v: map %dx%d; want 3x2", tc.layer, m.W, m.H)
		}
		for k, want := range tc.want {
			if d := m.Depth[k] - want; d > 1e-7 || d < -1e-7 {
				t.Errorf("%v: pixel (%d, %d) depth %g; want %g", tc.layer, k%3, k/3, m.Depth[k], want)
			}
		}
		if tc.layer == LayerTop {
			if g := m.Ground[4]; g != 0.5 {
				t.Errorf("ground of the dry cell on the 5 mm step: %g; want 0.5 (of the 10 mm domain)", g)
			}
			if m.MaxDepth != 0.003 {
				t.Errorf("max depth %g; want 0.003", m.MaxDepth)
			}
		}
	}
}

func TestDepthMapSamplesDownToTheDeepest(t *testing.T) {
	// 6 x 6 cells into 2 x 2 pixels: each pixel covers 3 x 3 cells and shows the deepest.
	cells := make([][][2]float32, 36)
	depths := make([][]float32, 36)
	for k := range cells {
		cells[k] = [][2]float32{{0, 0.01}}
		depths[k] = []float32{0}
	}
	depths[1*6+4] = []float32{0.002} // x = 4, y = 1: bottom right pixel
	c, h := grid(6, 6, cells, depths)
	m := computeDepthMap(c, h, LayerTop, 2, 2)
	want := []float32{0, 0, 0, 0.002}
	for k := range want {
		if m.Depth[k] != want[k] {
			t.Errorf("pixel %d: %g; want %g (pixels %v)", k, m.Depth[k], want[k], m.Depth)
		}
	}
}

func TestFitMap(t *testing.T) {
	for _, tc := range []struct{ nx, ny, cols, rows, w, h int }{
		{200, 200, 120, 10, 20, 20}, // height-bound: 10 rows = 20 pixels
		{200, 100, 40, 40, 40, 20},  // width-bound
		{4, 2, 80, 10, 40, 20},      // small grids are scaled up
		{10, 10, 0, 10, 0, 0},       // no room
	} {
		w, h := fitMap(tc.nx, tc.ny, tc.cols, tc.rows)
		if w != tc.w || h != tc.h {
			t.Errorf("fitMap(%d, %d, %d, %d) = %d, %d; want %d, %d", tc.nx, tc.ny, tc.cols, tc.rows, w, h, tc.w, tc.h)
		}
	}
}
