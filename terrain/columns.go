package terrain

import (
	"fmt"
	"math"
)

// Domain is the box the simulation lives in: [0, SizeX] x [0, SizeY] x [0, Height] metres,
// cut into square cells of side Dx. Cell (x, y) has its centre at ((x+0.5)Dx, (y+0.5)Dx).
type Domain struct {
	SizeX, SizeY float64 // horizontal extent, m
	Height       float64 // domain top, m: no column reaches above it
	Dx           float64 // cell size, m
}

// Grid returns the number of cells along x and y: the sizes rounded to whole cells (at
// least one each).
func (d Domain) Grid() (nx, ny int) {
	nx = int(math.Round(d.SizeX / d.Dx))
	ny = int(math.Round(d.SizeY / d.Dx))
	return max(nx, 1), max(ny, 1)
}

// Validate reports the first field of d that cannot describe a domain, naming it.
func (d Domain) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"size[1] (x)", d.SizeX}, {"size[2] (y)", d.SizeY}, {"height", d.Height}, {"dx", d.Dx}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s is %v: it must be a finite number of metres", f.name, f.v)
		}
		if f.v <= 0 {
			return fmt.Errorf("%s is %g m: it must be > 0", f.name, f.v)
		}
	}
	if d.Dx > d.SizeX || d.Dx > d.SizeY {
		return fmt.Errorf("dx is %g m, larger than the domain (%g x %g m)", d.Dx, d.SizeX, d.SizeY)
	}
	if n := math.Max(d.SizeX, d.SizeY) / d.Dx; n > 1<<30 {
		return fmt.Errorf("dx = %g m cuts the domain into %.3g cells along one axis: at most 2^30", d.Dx, n)
	}
	return nil
}

// Interval is one column's free space in a cell, in metres: liquid may lie in [Base, Max].
// Min is where the free interval starts; Min == Base for every column vpbench extracts (the
// domain floor counts as a solid of zero thickness), but the surface's link test reads Min
// and the pipes read Base, so both are kept (see docs/method.md, "State").
type Interval struct {
	Min, Base, Max float32
}

// Columns is the column decomposition of a terrain: every cell holds 0..Layers columns,
// stored bottom to top. Storage is flat (structure of arrays): the columns of cell
// c = y*Nx + x are indices CellStart[c] .. CellStart[c+1]-1 of Min, Base and Max.
//
// Invariants (checked by Validate): Min <= Base < Max within a column; the columns of a
// cell are sorted and disjoint (Max of one <= Min of the next); 0 <= Min and Max <= Height.
// A Columns value is never modified once built: solvers and the surface share it.
type Columns struct {
	Nx, Ny int
	Dx     float64 // cell size, m
	Height float64 // domain top, m
	Layers int     // the most columns a cell may hold

	CellStart []int32   // len Nx*Ny+1
	Min       []float32 // len NumColumns(), m
	Base      []float32 // m
	Max       []float32 // m

	// Dropped counts the free intervals that did not fit: a cell with more than Layers
	// keeps its topmost Layers and fills the ones below as solid (see Extract).
	Dropped int
}

// NumColumns is the total number of columns over all cells.
func (c *Columns) NumColumns() int { return len(c.Base) }

// Cell returns the index range [lo, hi) of the columns of cell (x, y).
func (c *Columns) Cell(x, y int) (lo, hi int) {
	k := y*c.Nx + x
	return int(c.CellStart[k]), int(c.CellStart[k+1])
}

// CellCentre returns the centre of cell (x, y) in metres.
func (c *Columns) CellCentre(x, y int) (float64, float64) {
	return (float64(x) + 0.5) * c.Dx, (float64(y) + 0.5) * c.Dx
}

// CellAt returns the cell holding the point (px, py) and whether it is inside the domain.
func (c *Columns) CellAt(px, py float64) (x, y int, ok bool) {
	fx, fy := math.Floor(px/c.Dx), math.Floor(py/c.Dx)
	if fx < 0 || fy < 0 || fx >= float64(c.Nx) || fy >= float64(c.Ny) {
		return 0, 0, false
	}
	return int(fx), int(fy), true
}

// ColumnAt returns the column of cell (x, y) that a point at height z belongs to: the
// column whose free interval holds z; if z lies inside a solid, the column resting on that
// solid (liquid placed there lands on the solid's top); if z is above every column, the
// topmost. It returns -1 for a cell with no column.
func (c *Columns) ColumnAt(x, y int, z float64) int {
	lo, hi := c.Cell(x, y)
	if lo == hi {
		return -1
	}
	for i := lo; i < hi; i++ {
		if float64(c.Max[i]) >= z {
			return i
		}
	}
	return hi - 1
}

// Validate checks the invariants above and names the first cell that breaks one.
func (c *Columns) Validate() error {
	if c.Nx < 1 || c.Ny < 1 {
		return fmt.Errorf("columns: grid %dx%d is empty", c.Nx, c.Ny)
	}
	if len(c.CellStart) != c.Nx*c.Ny+1 || c.CellStart[0] != 0 {
		return fmt.Errorf("columns: CellStart has %d entries, want %d starting at 0", len(c.CellStart), c.Nx*c.Ny+1)
	}
	n := int(c.CellStart[c.Nx*c.Ny])
	if len(c.Min) != n || len(c.Base) != n || len(c.Max) != n {
		return fmt.Errorf("columns: %d columns but Min/Base/Max have %d/%d/%d entries", n, len(c.Min), len(c.Base), len(c.Max))
	}
	for y := 0; y < c.Ny; y++ {
		for x := 0; x < c.Nx; x++ {
			lo, hi := c.Cell(x, y)
			if hi < lo || hi-lo > c.Layers {
				return fmt.Errorf("columns: cell (%d,%d) has %d columns, layers = %d", x, y, hi-lo, c.Layers)
			}
			for i := lo; i < hi; i++ {
				if !(c.Min[i] >= 0 && c.Min[i] <= c.Base[i] && c.Base[i] < c.Max[i] && float64(c.Max[i]) <= c.Height*(1+1e-6)) {
					return fmt.Errorf("columns: cell (%d,%d) column %d has min %g, base %g, max %g (height %g)",
						x, y, i-lo, c.Min[i], c.Base[i], c.Max[i], c.Height)
				}
				if i > lo && c.Min[i] < c.Max[i-1] {
					return fmt.Errorf("columns: cell (%d,%d) columns %d and %d overlap", x, y, i-lo-1, i-lo)
				}
			}
		}
	}
	return nil
}

// FromIntervals builds Columns from explicit per-cell intervals (bottom to top), cells in
// row-major order (index y*nx + x). It is how tests and generated scenes make terrain
// without an SDF. The result is validated.
func FromIntervals(nx, ny int, dx, height float64, layers int, cells [][]Interval) (*Columns, error) {
	if len(cells) != nx*ny {
		return nil, fmt.Errorf("columns: %d cells given for a %dx%d grid", len(cells), nx, ny)
	}
	c := &Columns{Nx: nx, Ny: ny, Dx: dx, Height: height, Layers: layers, CellStart: make([]int32, nx*ny+1)}
	for k, iv := range cells {
		for _, v := range iv {
			c.Min = append(c.Min, v.Min)
			c.Base = append(c.Base, v.Base)
			c.Max = append(c.Max, v.Max)
		}
		c.CellStart[k+1] = int32(len(c.Base))
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}
