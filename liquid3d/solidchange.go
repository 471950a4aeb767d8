package liquid3d

import (
	"math"

	"github.com/vpbench/vpbench/terrain"
)

// SetSolid replaces the terrain inside the box (a terrain change mid-run: a tool moving,
// an organ shifting) between steps. The solid is sampled again at the cells' corners,
// and the liquid it now covers moves up to the top of its column, as the columns' liquid
// does at a terrain change: each particle the new solid covers (by the corners'
// interpolation, within the margin a particle's move keeps) is stacked, in particle
// order, on the liquid of its quarter of a column (its particles' layers are half a cell
// thick, four a layer and column, as Fill seeds them), or on the solid's top where that
// is higher, at rest. Pushing each one out of the solid instead bunched them beside it:
// the projection keeps the velocity divergence-free but not the particles' density, so
// the surface did not rise (a block raised under a pool: the level beside it stayed
// where it was). No particle is removed, so the volume does not change; the particles
// moved are returned, and those that found no room under the box's lid (stacked against
// it).
func (s *Sim) SetSolid(solid terrain.Solid) (moved, crowded int) {
	s.set.Solid = solid
	s.sampleSolid()
	for c := range s.cols { // the Columns sides' places to seed at (the solid may cover them now)
		if sc := s.cols[c]; sc != nil {
			for col := range sc.level {
				for k := 0; k < s.nz; k++ {
					s.seedPlaces(Side(c), col, k)
				}
			}
		}
	}
	if solid == nil {
		return 0, 0
	}
	margin := solidMargin * s.hf
	covered := make([]bool, s.np)
	// top: per quarter column (2 x 2 a column), the top of the liquid that stays, cells
	// (a particle's layer reaches a quarter cell above its centre); -Inf: none.
	nq := 4 * s.nx * s.ny
	top := make([]float64, nq)
	for q := range top {
		top[q] = math.Inf(-1)
	}
	quarter := func(x, y float32) int {
		i := min(max(int(2*x), 0), 2*s.nx-1)
		j := min(max(int(2*y), 0), 2*s.ny-1)
		return i + 2*s.nx*j
	}
	for p := 0; p < s.np; p++ {
		x, y, z := s.px[p], s.py[p], s.pz[p]
		if d, _, _, _ := s.solidAt(x, y, z); d < margin {
			covered[p] = true
			moved++
			continue
		}
		q := quarter(x, y)
		top[q] = max(top[q], float64(z)+0.25)
	}
	if moved == 0 {
		return 0, 0
	}
	lid := float64(s.nz) - wallEps
	for p := 0; p < s.np; p++ {
		if !covered[p] {
			continue
		}
		q := quarter(s.px[p], s.py[p])
		// The quarter's centre, and the solid's top there (the first height, in steps of
		// an eighth of a cell, clear of the solid by the margin).
		cx, cy := (float32(q%(2*s.nx))+0.5)/2, (float32(q/(2*s.nx))+0.5)/2
		floor := 0.0
		for z := float32(0); z < float32(s.nz); z += 0.125 {
			if d, _, _, _ := s.solidAt(cx, cy, z); d >= margin {
				break
			}
			floor = float64(z) + 0.125
		}
		t := s.vol[p] / (s.h * s.h * s.h / 4) // the particle's thickness over a quarter, cells
		base := max(top[q], floor)
		z := base + t/2
		if z > lid {
			z = lid
			crowded++
		}
		top[q] = base + t
		s.px[p], s.py[p], s.pz[p] = cx, cy, float32(z)
		s.vx[p], s.vy[p], s.vz[p] = 0, 0, 0
		for a := range s.cm {
			s.cm[a][p] = 0
		}
	}
	return moved, crowded
}
