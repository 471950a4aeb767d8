package gpusim

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/terrain"
)

// nominalPipesPerColumn is the pipes a column has in MemoryEstimate's count: one +x and
// one +y pipe, as on a grid whose columns each meet one column of each neighbour. A
// multi-layer grid can have more; checkGrid counts the real pipes before the solver
// allocates them.
const nominalPipesPerColumn = 2

// MemoryEstimate returns the bytes a simulation of an nx x ny grid with up to layers
// columns per cell needs before its terrain exists: the columns themselves
// (terrain.MemoryEstimate) and what the solver keeps for them (the count checkGrid uses,
// at nominalPipesPerColumn pipes a column). It is the one estimate vp.sim checks and
// sim:info reports. It saturates at the largest uint64, and is 0 when an argument is
// below 1.
func MemoryEstimate(nx, ny, layers int) uint64 {
	cols := terrain.MemoryEstimate(nx, ny, layers)
	if cols == 0 {
		return 0
	}
	n := float64(nx) * float64(ny) * float64(layers)
	solver := n*(topologyColumnBytes) + n*nominalPipesPerColumn*topologyPipeBytes
	if total := float64(cols) + solver; total < math.MaxUint64/2 {
		return cols + uint64(solver)
	}
	return math.MaxUint64
}

// CheckMemory returns an error naming the grid and both byte counts when
// MemoryEstimate(nx, ny, layers) exceeds terrain.AvailableMemory().
func CheckMemory(nx, ny, layers int) error {
	if nx < 1 || ny < 1 || layers < 1 {
		return fmt.Errorf("a %d x %d grid with %d layers is empty: each must be >= 1", nx, ny, layers)
	}
	need := MemoryEstimate(nx, ny, layers)
	return terrain.CheckBytes(fmt.Sprintf("a %d x %d grid with %d layers (its columns and the solver's arrays)", nx, ny, layers), need)
}
