package liquid3d

import (
	"math"

	"github.com/vpbench/vpbench/internal/parallel"
	"github.com/vpbench/vpbench/terrain"
)

// sampleSolid fills the solid's signed distance at the cells' corners (s.node, in
// metres; +Inf-free: a box without a solid has +H*NX*NY*NZ everywhere) and the open
// share of every face (s.au, s.av, s.aw): 1 - the share of the face's square inside the
// solid, from the four corners' distances (the fraction of a square below zero of the
// bilinear interpolant, by the cases of "A fast variational framework for accurate
// solid-fluid coupling"); 0 on a wall side.
func (s *Sim) sampleSolid() {
	nx, ny, nz := s.nx, s.ny, s.nz
	if s.set.Solid == nil {
		far := float32(s.h * float64(nx+ny+nz))
		for i := range s.node {
			s.node[i] = far
		}
	} else {
		s.solidJob = func(w int) {
			lo, hi := parallel.Chunk(nz+1, s.kc, w)
			for k := lo; k < hi; k++ {
				for j := 0; j <= ny; j++ {
					for i := 0; i <= nx; i++ {
						p := terrain.Vec3{
							X: s.set.Origin.X + float64(i)*s.h,
							Y: s.set.Origin.Y + float64(j)*s.h,
							Z: s.set.Origin.Z + float64(k)*s.h,
						}
						d := s.set.Solid.Dist(p)
						if math.IsNaN(d) {
							d = -1 // a solid that cannot say is solid there
						}
						s.node[s.nodeIndex(i, j, k)] = float32(d)
					}
				}
			}
		}
		s.pool.Do(s.k, s.solidJob)
		s.solidJob = nil
	}
	s.solidShares()
}

// solidShares sets the faces' open shares (s.au, s.av, s.aw: 0 on a wall side) and the
// kernels' shares from the corners' distances s.node (sampleSolid, or a checkpoint's).
func (s *Sim) solidShares() {
	nx, ny, nz := s.nx, s.ny, s.nz
	n := func(i, j, k int) float32 { return s.node[s.nodeIndex(i, j, k)] }
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i <= nx; i++ {
				a := openShare(n(i, j, k), n(i, j+1, k), n(i, j, k+1), n(i, j+1, k+1))
				s.au[s.uIndex(i, j, k)] = a
			}
		}
	}
	for k := 0; k < nz; k++ {
		for j := 0; j <= ny; j++ {
			for i := 0; i < nx; i++ {
				a := openShare(n(i, j, k), n(i+1, j, k), n(i, j, k+1), n(i+1, j, k+1))
				s.av[s.vIndex(i, j, k)] = a
			}
		}
	}
	for k := 0; k <= nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				a := openShare(n(i, j, k), n(i+1, j, k), n(i, j+1, k), n(i+1, j+1, k))
				s.aw[s.wIndex(i, j, k)] = a
			}
		}
	}
	s.kernelShares()
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			if s.set.Sides[XMin] == Wall {
				s.au[s.uIndex(0, j, k)] = 0
			}
			if s.set.Sides[XMax] == Wall {
				s.au[s.uIndex(nx, j, k)] = 0
			}
		}
		for i := 0; i < nx; i++ {
			if s.set.Sides[YMin] == Wall {
				s.av[s.vIndex(i, 0, k)] = 0
			}
			if s.set.Sides[YMax] == Wall {
				s.av[s.vIndex(i, ny, k)] = 0
			}
		}
	}
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			if s.set.Sides[ZMin] == Wall {
				s.aw[s.wIndex(i, j, 0)] = 0
			}
			if s.set.Sides[ZMax] == Wall {
				s.aw[s.wIndex(i, j, nz)] = 0
			}
		}
	}
}

// kernelShares sets s.invOpen: for each cell, 1 over the share of its centre's
// trilinear kernel (two cells wide along each axis) that lies where liquid can be, so
// that rho (the particles' volume about the centre) reads 1 in a full cell beside a
// wall or the solid as well as in the open. A cell's own share of the kernel is 0.75^3
// per axis product, each neighbour's 0.125 along the axes it is off by; a cell's room
// for liquid is the mean of its faces' open shares (the solid's alone), a wall side's
// outside has none and an open or columns side's outside (air, or the columns' liquid,
// which normalize adds: rhoOut) all. The share is taken as at least
// 1/4, so that a sliver of liquid in a nearly solid cell does not read as full.
func (s *Sim) kernelShares() {
	nx, ny, nz := s.nx, s.ny, s.nz
	room := func(i, j, k int) float32 {
		out := func(lo, hi Side, c, n int) (bool, bool) {
			if c < 0 {
				return true, s.set.Sides[lo] != Wall
			}
			if c >= n {
				return true, s.set.Sides[hi] != Wall
			}
			return false, false
		}
		for _, a := range [3][4]int{{i, nx, int(XMin), int(XMax)}, {j, ny, int(YMin), int(YMax)}, {k, nz, int(ZMin), int(ZMax)}} {
			if o, open := out(Side(a[2]), Side(a[3]), a[0], a[1]); o {
				if open {
					return 1
				}
				return 0
			}
		}
		u := s.au[s.uIndex(i, j, k)] + s.au[s.uIndex(i+1, j, k)]
		v := s.av[s.vIndex(i, j, k)] + s.av[s.vIndex(i, j+1, k)]
		w := s.aw[s.wIndex(i, j, k)] + s.aw[s.wIndex(i, j, k+1)]
		return (u + v + w) / 6
	}
	wt := [3]float32{0.125, 0.75, 0.125}
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				sum := float32(0)
				for c := -1; c <= 1; c++ {
					for b := -1; b <= 1; b++ {
						for a := -1; a <= 1; a++ {
							sum += wt[a+1] * wt[b+1] * wt[c+1] * room(i+a, j+b, k+c)
						}
					}
				}
				s.invOpen[s.cellIndex(i, j, k)] = 1 / max(sum, 0.25)
			}
		}
	}
}

// openShare is the share of a square face outside the solid from its corners' signed
// distances (a, b along one edge; c, d the opposite edge, c beside a), snapped to 0
// below minOpen and to 1 above 1 - minOpen.
func openShare(a, b, c, d float32) float32 {
	f := 1 - insideSquare(a, b, d, c)
	if f < minOpen {
		return 0
	}
	if f > 1-minOpen {
		return 1
	}
	return f
}

// minOpen is the smallest open share a face keeps: a sliver of a face barely couples
// its cells and only worsens the pressure matrix's conditioning.
const minOpen = 1e-3

func inside(p float32) bool { return p <= 0 }

// insideSegment is the share of a segment inside the solid from its ends' distances.
func insideSegment(l, r float32) float32 {
	switch {
	case inside(l) && inside(r):
		return 1
	case inside(l):
		return l / (l - r)
	case inside(r):
		return r / (r - l)
	}
	return 0
}

// insideSquare is the share of a square inside the solid from its corners' distances,
// given in order around the square.
func insideSquare(p0, p1, p2, p3 float32) float32 {
	l := [4]float32{p0, p1, p2, p3}
	count := 0
	for _, v := range l {
		if inside(v) {
			count++
		}
	}
	rot := func() { l[0], l[1], l[2], l[3] = l[1], l[2], l[3], l[0] }
	switch count {
	case 4:
		return 1
	case 3:
		for inside(l[0]) {
			rot()
		}
		s0 := 1 - insideSegment(l[0], l[3])
		s1 := 1 - insideSegment(l[0], l[1])
		return 1 - 0.5*s0*s1
	case 2:
		for !inside(l[0]) || !(inside(l[1]) || inside(l[2])) {
			rot()
		}
		if inside(l[1]) { // the two inside corners share an edge
			return 0.5 * (insideSegment(l[0], l[3]) + insideSegment(l[1], l[2]))
		}
		// Diagonally opposite: the centre's sign decides which way the saddle goes.
		if inside(0.25 * (l[0] + l[1] + l[2] + l[3])) {
			a := 0.5 * (1 - insideSegment(l[0], l[3])) * (1 - insideSegment(l[2], l[3]))
			a += 0.5 * (1 - insideSegment(l[0], l[1])) * (1 - insideSegment(l[2], l[1]))
			return 1 - a
		}
		a := 0.5 * insideSegment(l[0], l[1]) * insideSegment(l[0], l[3])
		a += 0.5 * insideSegment(l[2], l[1]) * insideSegment(l[2], l[3])
		return a
	case 1:
		for !inside(l[0]) {
			rot()
		}
		return 0.5 * insideSegment(l[0], l[3]) * insideSegment(l[0], l[1])
	}
	return 0
}

// solidAt is the solid's distance at a point given in cells from the origin,
// interpolated from the corners, and its gradient (per cell).
func (s *Sim) solidAt(gx, gy, gz float32) (d, dx, dy, dz float32) {
	i, fx := cellOf(gx, s.nx-1)
	j, fy := cellOf(gy, s.ny-1)
	k, fz := cellOf(gz, s.nz-1)
	b := s.nodeIndex(i, j, k)
	sx, sy := 1, s.nx+1
	sz := (s.nx + 1) * (s.ny + 1)
	c000, c100 := s.node[b], s.node[b+sx]
	c010, c110 := s.node[b+sy], s.node[b+sx+sy]
	c001, c101 := s.node[b+sz], s.node[b+sx+sz]
	c011, c111 := s.node[b+sy+sz], s.node[b+sx+sy+sz]
	x00 := c000 + fx*(c100-c000)
	x10 := c010 + fx*(c110-c010)
	x01 := c001 + fx*(c101-c001)
	x11 := c011 + fx*(c111-c011)
	y0 := x00 + fy*(x10-x00)
	y1 := x01 + fy*(x11-x01)
	d = y0 + fz*(y1-y0)
	dz = y1 - y0
	dy = (1-fz)*(x10-x00) + fz*(x11-x01)
	e00, e10 := c100-c000, c110-c010
	e01, e11 := c101-c001, c111-c011
	dx = (1-fz)*((1-fy)*e00+fy*e10) + fz*((1-fy)*e01+fy*e11)
	return
}

// cellOf is the cell (clamped to [0, last]) of a coordinate in cells and the fraction
// across it (in [0, 1] inside the clamped range).
func cellOf(g float32, last int) (int, float32) {
	i := int(g)
	if g < 0 {
		i = 0
	}
	if i > last {
		i = last
	}
	return i, g - float32(i)
}
