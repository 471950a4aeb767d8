package gpusim

import (
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// TestMemoryEstimateCoversTheSolver: the estimate vp.sim checks before the terrain exists
// covers what the columns and the solver then take on a single-layer grid (where every
// column meets one column of each neighbour) and on the five-layer scene, whose real pipe
// count checkGrid uses.
func TestMemoryEstimateCoversTheSolver(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cols   *terrain.Columns
		layers int
	}{
		{"incline 64x48", inclineScene(t, 64, 48, 0.001, 0.1), 1},
		{"five layers 40x40", fiveLayerScene(t, 40, 40, 0.001), 5},
	} {
		c := tc.cols
		est := MemoryEstimate(c.Nx, c.Ny, tc.layers)
		real := terrain.MemoryEstimate(c.Nx, c.Ny, tc.layers) + topologyBytes(c.NumColumns(), countPipes(c))
		if est < real {
			t.Errorf("%s: MemoryEstimate %d bytes < %d for its columns and solver (%d columns, %d pipes)", tc.name, est, real, c.NumColumns(), countPipes(c))
		}
		if est < terrain.MemoryEstimate(c.Nx, c.Ny, tc.layers) {
			t.Errorf("%s: the estimate leaves out the columns", tc.name)
		}
	}
	if MemoryEstimate(0, 5, 5) != 0 || MemoryEstimate(5, 5, -1) != 0 {
		t.Error("an empty grid's estimate is not 0")
	}
	if got := MemoryEstimate(1<<40, 1<<40, 1<<20); got != math.MaxUint64 {
		t.Errorf("a huge grid's estimate is %d, want saturation", got)
	}
	if err := CheckMemory(10, 10, 1); err != nil {
		t.Errorf("a 10x10 grid: %v", err)
	}
	if err := CheckMemory(1000000, 1000000, 5); err == nil || !strings.Contains(err.Error(), "1000000 x 1000000 grid with 5 layers") {
		t.Errorf("a grid larger than memory: %v", err)
	}
}
