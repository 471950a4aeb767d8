package liquid3d

// The density correction. APIC's particles follow a grid velocity that is divergence-free
// cell by cell but not between its samples, so where the flow converges (a jet plunging
// into a pool, a drop's impact) they drift together: the liquid's particles come to fill
// less room than their volumes, its cells read fractions over 1, and the surface stands
// low (scripts/jug.lua's glass packed 1.39 times). Each substep, after the pressure
// projection, a cell whose liquid fraction rho is over Settings.Packing asks for a
// displacement field d (in cells) whose divergence is Spread (rho - Packing) there, and
// a cell inside the liquid (no face onto air) whose fraction is as far under 1 asks for
// as much the other way (where the particles crowd against a wall or a floor, the liquid
// beside them thins: the two even out, and the liquid does not grow), 0 elsewhere: d = -grad phi with A phi = e, A the projection's own matrix (the same
// liquid cells, solid faces closed, a columns side's wet faces closed, phi = 0 on the
// free surface by the ghost-fluid condition), so the excess goes to the free surface
// and never through a wall or the solid. The grid to the particles then moves each
// particle by d interpolated at its place (at most maxSpread cells a component), as a
// position correction alone: the velocities are untouched, so no momentum is made, and
// volumes are the particles' as before (the books exact). After Kugelstadt et al.,
// "Implicit Density Projection for Volume Conserving Liquids" (2019), with a dead band
// (a liquid at its seeded density, rho 1 about a full cell, is never moved: a tank at
// rest keeps its bits) and only packed cells at the surface (a cell there under-full is
// the surface's, not an error).

// The correction's conjugate gradient stops at a residual of spreadTolerance of the
// excess, or after spreadIterations: it need not converge (what it leaves, the next
// substep takes up), and solved as the projection is it cost as much as the projection.
const (
	spreadTolerance  = 0.05
	spreadIterations = 30
)

// maxSpread is the most, in cells, the correction moves a particle along an axis in a
// substep.
const maxSpread = 0.25

// spread makes the substep's density correction (tu, tv, tw) after project, from the
// liquid fractions of the substep's particles; it tells whether a cell was packed (else
// the particles are not moved).
func (s *Sim) spread() bool {
	s.spreading = false
	if s.set.Packing == 0 || len(s.lcell) == 0 {
		return false
	}
	hi, share := float32(s.set.Packing), s.set.Spread
	lo := 2 - hi // as far under 1 as Packing is over it
	// A cell's fraction is its centre's kernel's, which reaches the cells about it: it
	// reads true only where those are inside the liquid too (deepInside), found for the
	// few cells under lo as they come (deep: 0 not yet known, 1 inside, 2 not).
	nl := len(s.lcell)
	if cap(s.deep) < nl {
		s.deep = make([]uint8, nl, nl+nl/4)
	}
	s.deep = s.deep[:nl]
	clear(s.deep)
	packed := 0
	for m, c := range s.lcell {
		e := 0.0
		switch r := s.rho[c]; {
		case r > hi: // packed, wherever it is: a fraction over 1 is never the surface's
			e = float64(r-hi) * share
			packed++
		case r < lo && s.deepInside(m):
			e = float64(r-lo) * share
			packed++
		}
		s.res[m], s.pres[m] = e, 0
	}
	s.cur.Packed = max(s.cur.Packed, packed)
	if packed == 0 {
		return false
	}
	it, _ := s.solve(s.solveWorkers(len(s.lcell)), min(s.set.MaxIterations, spreadIterations), spreadTolerance)
	s.cur.SpreadIterations += it
	s.par(phDisplaceU)
	s.par(phDisplaceV)
	s.par(phDisplaceW)
	s.spreading = true
	return true
}

// inside tells whether liquid cell c (index m in the solve) lies inside the liquid: each
// face closed (a wall, the solid) or onto another liquid cell. A cell with a face onto
// air holds the surface, and its fraction under 1 is the surface's, not an error; a
// cell on a columns side (its faces open to the columns, wet or not) takes the liquid
// the columns push in, seeded a face at a time, and its fraction is the seeding's.
func (s *Sim) inside(m int, c int32) bool {
	for dir, n := range s.nbr[6*m : 6*m+6] {
		switch {
		case n >= 0: // a liquid cell: but one nearly empty holds the surface (a few particles over a trough)
			if s.rho[s.lcell[n]] < 0.5 {
				return false
			}
		case s.openFace(int(c), dir):
			if o := s.beyond(int(c), dir); o < 0 || s.room(o) >= 0.5 {
				return false
			}
		}
	}
	return true
}

// beyond is the cell beyond face dir of cell c, -1 outside the box.
func (s *Sim) beyond(c, dir int) int {
	nx, ny, nz := s.nx, s.ny, s.nz
	i, j, k := c%nx, (c/nx)%ny, c/(nx*ny)
	d := [6][3]int{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}}[dir]
	i, j, k = i+d[0], j+d[1], k+d[2]
	if i < 0 || i >= nx || j < 0 || j >= ny || k < 0 || k >= nz {
		return -1
	}
	return s.cellIndex(i, j, k)
}

// room is the mean open share of cell c's faces: under a half, the cell is mostly the
// solid's, and a liquid cell beside it with no liquid there is against a wall, not at a
// surface (a corner where a curved wall meets a floor, where particles gather).
func (s *Sim) room(c int) float32 {
	nx, ny := s.nx, s.ny
	i, j, k := c%nx, (c/nx)%ny, c/(nx*ny)
	return (s.au[s.uIndex(i, j, k)] + s.au[s.uIndex(i+1, j, k)] + s.av[s.vIndex(i, j, k)] + s.av[s.vIndex(i, j+1, k)] +
		s.aw[s.wIndex(i, j, k)] + s.aw[s.wIndex(i, j, k+1)]) / 6
}

// deepInside tells whether liquid cell m and every liquid cell beside it lie inside the
// liquid (inside, noted in deep as found).
func (s *Sim) deepInside(m int) bool {
	if !s.insideAt(m) {
		return false
	}
	for _, n := range s.nbr[6*m : 6*m+6] {
		if n >= 0 && !s.insideAt(int(n)) {
			return false
		}
	}
	return true
}

// insideAt is inside for liquid cell m, noted in deep.
func (s *Sim) insideAt(m int) bool {
	if s.deep[m] == 0 {
		s.deep[m] = 2
		if s.inside(m, s.lcell[m]) {
			s.deep[m] = 1
		}
	}
	return s.deep[m] == 1
}

// openFace tells whether face dir (-x +x -y +y -z +z) of cell c lets liquid or air
// through: its open share is not 0.
func (s *Sim) openFace(c, dir int) bool {
	nx, ny := s.nx, s.ny
	i, j, k := c%nx, (c/nx)%ny, c/(nx*ny)
	var a float32
	switch dir {
	case 0:
		a = s.au[s.uIndex(i, j, k)]
	case 1:
		a = s.au[s.uIndex(i+1, j, k)]
	case 2:
		a = s.av[s.vIndex(i, j, k)]
	case 3:
		a = s.av[s.vIndex(i, j+1, k)]
	case 4:
		a = s.aw[s.wIndex(i, j, k)]
	default:
		a = s.aw[s.wIndex(i, j, k+1)]
	}
	if a == 0 {
		return false
	}
	_ = k
	return true
}

// clampSpread bounds a component of the correction to maxSpread cells.
func clampSpread(d float32) float32 { return max(-maxSpread, min(maxSpread, d)) }
