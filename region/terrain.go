package region

import (
	"fmt"

	"github.com/vpbench/vpbench/terrain"
)

// SetTerrain changes the terrain under and around the box between steps (a tool moving,
// an organ shifting; the scene's sim:terrain), the region in place:
//
//  1. the new columns are checked for the box (its cells and their neighbours one column
//     each, the box's floor at or under theirs and its top above them); on an error
//     nothing changes;
//  2. change makes the columns' change (gpusim's SetTerrain: the held columns' liquid
//     is the region's and is not carried; the columns of the same cells are held again,
//     and what the change displaced into them is booked out to the region); on its error
//     nothing has changed either;
//  3. the region takes the new terrain: its solid (liquid3d's SetSolid: the liquid the
//     new solid covers moves up its column), the held cells' floors and tops, the pipes
//     across its sides and between the held columns (their numbers change with the
//     terrain; what the sides' buffers hold stays), and the liquid displaced into the
//     held columns, seeded as particles as at New;
//  4. the held heights are written again.
//
// The coupled volume stays the books' (Balance).
func (g *Region) SetTerrain(cols *terrain.Columns, solid terrain.Solid, change func() error) error {
	if err := g.checkColumns(cols); err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	g.held = g.sim.Held()
	c := g.sim.Columns()
	for k, col := range g.held {
		g.base[k], g.top[k] = float64(g.sim.Floor(col)), float64(c.Max[col])
	}
	old := g.sides
	g.sides = [4]*side{}
	g.inner, g.innerA, g.innerB, g.innerY = nil, nil, nil, nil
	if err := g.findPipes(); err != nil {
		return fmt.Errorf("region: after the terrain change: %w", err) // checkColumns should have said
	}
	for s, sd := range g.sides {
		if sd != nil && old[s] != nil {
			copy(sd.buf, old[s].buf)
		}
	}
	g.set.Solid = solid
	g.liq.SetSolid(solid)
	if err := g.seed(g.sim.Levels(g.held, nil)); err != nil {
		return err
	}
	return g.writeHeld()
}

// checkColumns says why the region cannot stand on the terrain cols, or nil: New's
// conditions on the columns (what Hold refuses besides, gpusim's SetTerrain says).
func (g *Region) checkColumns(cols *terrain.Columns) error {
	set := g.set
	if cols.Nx != g.sim.Columns().Nx || cols.Ny != g.sim.Columns().Ny {
		return fmt.Errorf("region: the new terrain is %d x %d cells, the columns' %d x %d", cols.Nx, cols.Ny, g.sim.Columns().Nx, g.sim.Columns().Ny)
	}
	topZ := set.Bottom + float64(set.NZ)*g.h
	for j := -1; j <= set.NY; j++ {
		for i := -1; i <= set.NX; i++ {
			x, y := set.X+i, set.Y+j
			if x < 0 || y < 0 || x >= cols.Nx || y >= cols.Ny {
				continue
			}
			lo, hi := cols.Cell(x, y)
			if hi-lo != 1 {
				return fmt.Errorf("region: in the new terrain cell (%d, %d) holds %d columns: the box's cells and their neighbours must hold one each, for now", x, y, hi-lo)
			}
			if i < 0 || j < 0 || i >= set.NX || j >= set.NY {
				continue
			}
			if b := float64(cols.Base[lo]); b < set.Bottom || b >= topZ {
				return fmt.Errorf("region: in the new terrain cell (%d, %d)'s floor (%g m) is not within the box's height (%g to %g m)", x, y, b, set.Bottom, topZ)
			}
		}
	}
	if x, y, top, ok := CappedNear(cols, set.X, set.Y, set.NX, set.NY); ok {
		return fmt.Errorf("region: in the new terrain %s", CappedNearError(x, y, top))
	}
	return nil
}

// CappedReach is how near, in cells (steps to a cell beside), a region's box may not come
// to a column a solid caps (an overhang, a roof: a passage may form under it, and the
// columns' extended pipes end beside such columns, which the held columns and those
// beside them cannot take: gpusim's Hold refuses them there too).
const CappedReach = 2

// CappedNear finds a cell within CappedReach cells of the box of cells [x0, x0+nx) x
// [y0, y0+ny) holding a column a solid caps, and that solid's underside (m).
func CappedNear(cols *terrain.Columns, x0, y0, nx, ny int) (x, y int, top float64, ok bool) {
	for j := y0 - CappedReach; j < y0+ny+CappedReach; j++ {
		for i := x0 - CappedReach; i < x0+nx+CappedReach; i++ {
			if i < 0 || j < 0 || i >= cols.Nx || j >= cols.Ny {
				continue
			}
			di := max(x0-i, i-(x0+nx-1), 0)
			dj := max(y0-j, j-(y0+ny-1), 0)
			if di+dj > CappedReach {
				continue
			}
			lo, hi := cols.Cell(i, j)
			for k := lo; k < hi; k++ {
				if m := float64(cols.Max[k]); m < cols.Height*(1-1e-6) {
					return i, j, m, true
				}
			}
		}
	}
	return 0, 0, 0, false
}

// CappedNearError says that cell (x, y), CappedNear's, is too near the box.
func CappedNearError(x, y int, top float64) string {
	return fmt.Sprintf("cell (%d, %d) lies under a solid (its underside at %g m: an overhang or a roof, where passages may form) within %d cells of the box: a region stands %d cells off overhangs and roofs, for now",
		x, y, float32(top), CappedReach, CappedReach+1)
}
