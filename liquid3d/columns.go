package liquid3d

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/terrain"
)

// The columns beyond a Columns side. Each column (one per cell along the side) has a
// liquid level and a depth-averaged velocity normal to the side. The side's face of
// column col and layer k spans [k, k+1] cells above the origin; the share of that span
// below the level is the face's liquid share. A face whose span reaches below the level
// (a share > 0) is wet: its normal velocity is the column's (set on the grid before and after the
// forces, a known term of the divergence in the pressure solve, left as it is and
// marked valid by the projection), and the liquid it carries in is seeded as particles
// from a reservoir per face (seedInflow). A face above the level is an open side's:
// air beyond, pressure 0. The columns' liquid also counts in the liquid fraction (rho)
// of the cells whose kernel reaches beyond the side, so that a full cell beside the
// columns reads full, as beside a wall, and one beside their surface reads it there.
type sideColumns struct {
	n          int       // columns along the side
	level, vel []float64 // per column: m (absolute z); m/s, positive into the region
	lvl        []float64 // per column: the level in cells above the origin
	share      []float64 // per face (col + n k): the liquid share of the face's span
	wet        []bool    // per face: its bottom below the level (share > 0)
	res        []float64 // per face: the inflow's volume not yet seeded, m^3
	cnt        []uint32  // per face: the particles seeded (the seeding pattern's phase)
	took       []float64 // per column: the volume seeded since the last TakeSideInflow, m^3
	// Per wet face: up to four places to seed its inflow at, each (along the side,
	// height) in cells, outside the solid (seedPlaces), and how many it has; a wet face
	// with none lets nothing in.
	place  [][4][2]float32
	nplace []uint8
}

// newColumns makes the columns of the region's Columns sides, with no liquid beyond
// them (every level -Inf) until SetSideColumns.
func (s *Sim) newColumns() {
	for side := XMin; side <= YMax; side++ {
		if s.set.Sides[side] != Columns {
			continue
		}
		n := s.nx
		if side <= XMax {
			n = s.ny
		}
		nf := n * s.nz
		c := &sideColumns{
			n: n, level: make([]float64, n), vel: make([]float64, n), lvl: make([]float64, n), took: make([]float64, n),
			share: make([]float64, nf), wet: make([]bool, nf), res: make([]float64, nf), cnt: make([]uint32, nf),
			place: make([][4][2]float32, nf), nplace: make([]uint8, nf),
		}
		for i := range c.level {
			c.level[i], c.lvl[i] = math.Inf(-1), math.Inf(-1)
		}
		s.cols[side] = c
		if s.rhoOut == nil {
			s.rhoOut = make([]float32, s.ncell)
		}
	}
}

// SetSideColumns sets the columns beyond a Columns side: level (m, absolute z) and
// velocity (m/s, normal to the side, positive into the region), one per cell along the
// side (NY for an x side, NX for a y side, in the order of the cells). The values are
// copied. A side that is not Columns, a wrong length or a value that is not finite is an
// error, and then nothing changes.
func (s *Sim) SetSideColumns(side Side, level, velocity []float64) error {
	c, err := s.columnsSide(side)
	if err != nil {
		return err
	}
	if len(level) != c.n || len(velocity) != c.n {
		return fmt.Errorf("liquid3d: side %v: %d levels and %d velocities, want %d of each (one per cell along the side)", side, len(level), len(velocity), c.n)
	}
	for i := range level {
		if math.IsNaN(level[i]) || math.IsInf(level[i], 0) {
			return fmt.Errorf("liquid3d: side %v: level %d is %g: it must be finite", side, i, level[i])
		}
		if math.IsNaN(velocity[i]) || math.IsInf(velocity[i], 0) {
			return fmt.Errorf("liquid3d: side %v: velocity %d is %g: it must be finite", side, i, velocity[i])
		}
	}
	copy(c.level, level)
	copy(c.vel, velocity)
	for col := range c.level {
		c.lvl[col] = (c.level[col] - s.set.Origin.Z) / s.h
		for k := 0; k < s.nz; k++ {
			f := col + c.n*k
			c.share[f] = liquidShare(c.lvl[col], k)
			c.wet[f] = c.share[f] > 0
			s.seedPlaces(side, col, k)
		}
	}
	s.columnsLiquid()
	return nil
}

// liquidShare is the share of layer k's span [k, k+1] (cells) below level l (cells).
func liquidShare(l float64, k int) float64 {
	return min(max(l-float64(k), 0), 1)
}

// kernelLiquid is the liquid of a column filled to level l (cells) within the kernel of
// the centre of layer k (the particles' trilinear weight, 1 - |z - (k + 1/2)| over [k -
// 1/2, k + 3/2]), the kernel's integral below l: what the particles of such a column,
// seeded in layers half a cell thick (region.seed) and at rest, put into rho there, to
// the rounding (a layer never straddles a kink of the kernel, which is linear between).
// Summing the layers' shares by the cell-averaged weights instead (1/8, 3/4, 1/8, as
// across the side) counted the liquid of a partly filled layer as spread over its
// whole layer: the layer above the surface read s/8 of the filled share s where the
// particles put (s - 1/2)^2 / 2 (nothing for s under a half), and the region at rest
// beside its columns moved (docs/method.md, "Measured": "Rest").
func kernelLiquid(l float64, k int) float64 {
	x := min(max(l-float64(k)-0.5, -1), 1)
	if x <= 0 {
		return (x + 1) * (x + 1) / 2
	}
	return 1 - (1-x)*(1-x)/2
}

// outsideLevel is the level (cells) of the column beyond the side that the cell column
// (i, j) outside the box lies past (the first axis out: x, then y; as kernelShares
// takes it); ok is false past any other side.
func (s *Sim) outsideLevel(i, j int) (l float64, ok bool) {
	var c *sideColumns
	col := 0
	switch {
	case i < 0 || i >= s.nx:
		c = s.cols[XMin]
		if i >= s.nx {
			c = s.cols[XMax]
		}
		col = min(max(j, 0), s.ny-1)
	case j < 0 || j >= s.ny:
		c = s.cols[YMin]
		if j >= s.ny {
			c = s.cols[YMax]
		}
		col = min(max(i, 0), s.nx-1)
	default:
		return 0, false
	}
	if c == nil {
		return 0, false
	}
	return c.lvl[col], true
}

// columnsLiquid sets s.rhoOut: for each cell beside a vertical side, the columns'
// liquid within its centre's kernel (the weights of kernelShares), to be added to the
// particles' (normalize).
func (s *Sim) columnsLiquid() {
	wt := [3]float32{0.125, 0.75, 0.125}
	for k := 0; k < s.nz; k++ {
		for j := 0; j < s.ny; j++ {
			for i := 0; i < s.nx; i++ {
				if i > 0 && i < s.nx-1 && j > 0 && j < s.ny-1 {
					continue
				}
				sum := float32(0)
				for b := -1; b <= 1; b++ {
					for a := -1; a <= 1; a++ {
						if l, ok := s.outsideLevel(i+a, j+b); ok {
							if v := float32(kernelLiquid(l, k)); v > 0 {
								sum += wt[a+1] * wt[b+1] * v
							}
						}
					}
				}
				s.rhoOut[s.cellIndex(i, j, k)] = sum
			}
		}
	}
}

// columnFace is the index, in the grid of its component (u for an x side, v for a y
// side), of a Columns side's face of column col and layer k.
func (s *Sim) columnFace(side Side, col, k int) int {
	switch side {
	case XMin:
		return s.uIndex(0, col, k)
	case XMax:
		return s.uIndex(s.nx, col, k)
	case YMin:
		return s.vIndex(col, 0, k)
	}
	return s.vIndex(col, s.ny, k)
}

// wetFace says whether the face of side's column col and layer k is a columns side's
// face below its column's level (its velocity prescribed).
func (s *Sim) wetFace(side Side, col, k int) bool {
	c := s.cols[side]
	return c != nil && c.wet[col+c.n*k]
}

// seedPlaces finds the places to seed the inflow of side's face of column col and layer
// k at (when it is wet and open): in the half cell next to the face, at the centres of
// the quarters of the face's square (their heights scaled to the span below the level),
// those outside the solid; when all four are in it (a face the solid leaves open only
// in a corner), the centres of the squares of a 4 x 4, then 8 x 8, then 16 x 16 grid
// over the face, the first four outside it. A place is outside the solid when both the
// region's solid (interpolated from the corners, as the particles' move reads it) and
// the solid's own Dist say so (as Fill asks): the interpolation alone puts places
// inside a solid's edges and corners. A face with no place in the 16 x 16 grid (a
// sliver) gets none and lets nothing in (imposeColumns holds it at 0).
func (s *Sim) seedPlaces(side Side, col, k int) {
	c := s.cols[side]
	f := col + c.n*k
	c.nplace[f] = 0
	a := s.au
	if side >= YMin {
		a = s.av
	}
	if !c.wet[f] || a[s.columnFace(side, col, k)] == 0 {
		return
	}
	span := min(c.lvl[col]-float64(k), 1)
	for n := 2; n <= 16 && c.nplace[f] == 0; n *= 2 {
		for m := 0; m < n*n && c.nplace[f] < 4; m++ {
			t := float32(float64(col) + (float64(m%n)+0.5)/float64(n))
			z := float32(float64(k) + span*(float64(m/n)+0.5)/float64(n))
			x, y := s.sidePlace(side, t)
			if s.outsideSolid(x, y, z) {
				c.place[f][c.nplace[f]] = [2]float32{t, z}
				c.nplace[f]++
			}
		}
	}
}

// sidePlace is the position (cells) of a place a quarter cell inside side at t cells
// along it.
func (s *Sim) sidePlace(side Side, t float32) (x, y float32) {
	switch side {
	case XMin:
		return 0.25, t
	case XMax:
		return float32(s.nx) - 0.25, t
	case YMin:
		return t, 0.25
	}
	return t, float32(s.ny) - 0.25
}

// outsideSolid says whether a position (cells) lies outside the solid both as the
// corners sample it and by the solid's own Dist.
func (s *Sim) outsideSolid(x, y, z float32) bool {
	if s.set.Solid == nil {
		return true
	}
	if d, _, _, _ := s.solidAt(x, y, z); !(d > 0) {
		return false
	}
	o := s.set.Origin
	p := terrain.Vec3{X: o.X + float64(x)*s.h, Y: o.Y + float64(y)*s.h, Z: o.Z + float64(z)*s.h}
	return s.set.Solid.Dist(p) > 0
}

// imposeColumns sets the wet faces' velocities to their columns' (the faces closed by
// the solid hold 0, and so do those with a velocity into the region and no place to
// seed it at: seedPlaces).
func (s *Sim) imposeColumns() {
	for side := XMin; side <= YMax; side++ {
		c := s.cols[side]
		if c == nil {
			continue
		}
		f, a := s.u, s.au
		if side >= YMin {
			f, a = s.v, s.av
		}
		sign := float32(1)
		if side == XMax || side == YMax {
			sign = -1
		}
		for k := 0; k < s.nz; k++ {
			for col := 0; col < c.n; col++ {
				if !c.wet[col+c.n*k] {
					continue
				}
				if fi := s.columnFace(side, col, k); a[fi] != 0 {
					v := c.vel[col]
					if v > 0 && c.nplace[col+c.n*k] == 0 {
						v = 0
					}
					f[fi] = sign * float32(v)
				}
			}
		}
	}
}

// seedInflow adds the substep's inflow through each wet face with a velocity into the
// region and a place to seed at (seedPlaces) to the face's reservoir (velocity x H^2 x
// open share x liquid share x dt) and seeds a particle of Fill's volume (H^3/8) for each
// whole one the reservoir holds, at the face's places in turn, moving at the column's
// velocity, into the region, with no affine part; its volume is booked as inflow.
// Serial, sides and faces in a fixed order: the same bits for any number of workers. It
// returns the particles seeded.
func (s *Sim) seedInflow() int {
	pv := s.h * s.h * s.h / 8
	seeded := 0
	for side := XMin; side <= YMax; side++ {
		c := s.cols[side]
		if c == nil {
			continue
		}
		a := s.au
		if side >= YMin {
			a = s.av
		}
		for k := 0; k < s.nz; k++ {
			for col := 0; col < c.n; col++ {
				f := col + c.n*k
				vel := c.vel[col]
				if !c.wet[f] || !(vel > 0) || c.nplace[f] == 0 {
					continue
				}
				open := a[s.columnFace(side, col, k)]
				c.res[f] += vel * s.h * s.h * float64(open) * c.share[f] * s.dtSub
				v := float32(vel)
				for c.res[f] >= pv {
					pl := c.place[f][c.cnt[f]%uint32(c.nplace[f])]
					c.cnt[f]++
					x, y := s.sidePlace(side, pl[0])
					switch side {
					case XMin:
						s.place(x, y, pl[1], v, 0, 0, pv)
					case XMax:
						s.place(x, y, pl[1], -v, 0, 0, pv)
					case YMin:
						s.place(x, y, pl[1], 0, v, 0, pv)
					default:
						s.place(x, y, pl[1], 0, -v, 0, pv)
					}
					c.res[f] -= pv
					s.in += pv
					c.took[col] += pv
					seeded++
				}
			}
		}
	}
	return seeded
}

// columnsSide is side's columns, or an error naming why it has none.
func (s *Sim) columnsSide(side Side) (*sideColumns, error) {
	if side < XMin || side > ZMax {
		return nil, fmt.Errorf("liquid3d: %v is not a side", side)
	}
	if side > YMax || s.cols[side] == nil {
		return nil, fmt.Errorf("liquid3d: side %v is %v, not columns", side, s.set.Sides[side])
	}
	return s.cols[side], nil
}

// perColumn is dst with one value per column of c (made when too short), zeroed.
func perColumn(c *sideColumns, dst []float64) []float64 {
	if cap(dst) < c.n {
		dst = make([]float64, c.n)
	}
	dst = dst[:c.n]
	clear(dst)
	return dst
}

// TakeSideInflow fills dst (one value per column of a Columns side, made when too
// short) with the volume, m^3, the inflow seeded through each column's faces since the
// last call (float64, in the order seeded), and forgets it: what the columns beyond the
// side are to give up (the side's share of Inflow's growth).
func (s *Sim) TakeSideInflow(side Side, dst []float64) ([]float64, error) {
	c, err := s.columnsSide(side)
	if err != nil {
		return dst, err
	}
	dst = perColumn(c, dst)
	copy(dst, c.took)
	clear(c.took)
	return dst, nil
}

// SidePending fills dst (one value per column of a Columns side, made when too short)
// with the volume, m^3, each column's faces' reservoirs hold: inflow booked but not yet
// seeded (less than a particle a face), which a later step seeds, whatever the columns'
// velocity then.
func (s *Sim) SidePending(side Side, dst []float64) ([]float64, error) {
	c, err := s.columnsSide(side)
	if err != nil {
		return dst, err
	}
	dst = perColumn(c, dst)
	for k := 0; k < s.nz; k++ {
		for col := 0; col < c.n; col++ {
			dst[col] += c.res[col+c.n*k]
		}
	}
	return dst, nil
}

// SideWetArea fills dst (one value per column of a Columns side, made when too short)
// with the area, m^2, through which the columns' velocity would carry liquid were their
// levels level (m, absolute, one per column): the wet faces (their bottoms below the
// level), each H^2 times its open share (not in the solid) times its liquid share (the
// part of its span below the level); velocity x area x dt is then the volume the side's
// reservoirs book in a substep of dt (but where a face has no place to seed at, as in a
// sliver the solid leaves: seedPlaces).
func (s *Sim) SideWetArea(side Side, level, dst []float64) ([]float64, error) {
	c, err := s.columnsSide(side)
	if err != nil {
		return dst, err
	}
	if len(level) != c.n {
		return dst, fmt.Errorf("liquid3d: side %v: %d levels, want %d (one per cell along the side)", side, len(level), c.n)
	}
	dst = perColumn(c, dst)
	a := s.au
	if side >= YMin {
		a = s.av
	}
	for col, l := range level {
		lc := (l - s.set.Origin.Z) / s.h
		for k := 0; k < s.nz && float64(k) < lc; k++ {
			dst[col] += s.h * s.h * float64(a[s.columnFace(side, col, k)]) * liquidShare(lc, k)
		}
	}
	return dst, nil
}
