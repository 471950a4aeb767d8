package liquid3d

import (
	"github.com/vpbench/vpbench/internal/parallel"
)

// p2g moves the particles' momentum to the faces (APIC: each particle's velocity plus
// its affine part at the face, weighted trilinearly by the particle's volume) and their
// volume to the cells' centres (rho). The particles are scattered slab by slab along the
// slab axis (two cells thick): a particle reaches at most one cell beyond its slab, so
// the even slabs touch disjoint faces and run in parallel, then the odd ones. Every face
// sums its contributions in the same order (its even slab's particles in sort order,
// then its odd slab's) whatever the number of workers.
func (s *Sim) p2g() {
	clear(s.u)
	clear(s.v)
	clear(s.w)
	clear(s.mu)
	clear(s.mv)
	clear(s.mw)
	clear(s.rho)
	k := s.k
	if s.slabAxis == 0 && (s.nx+1)/max(k, 1) < 16 {
		// Slabs along x put the workers in the same rows of faces (x runs fastest in
		// them); where a worker's part of a row is under a cache line (16 floats), most
		// of the lines it writes are another's too and move between the cores at each
		// particle: at 16^3 two workers took 784 to 898 ns a cell-substep where one took
		// 262 to 484, at 32^3 (a third of the lines shared) about one's time
		// (docs/benchmarks.md, "Two workers in the P2G of a narrow region"). The same
		// slabs in order on one worker give the same sums.
		k = 1
	}
	s.parK(phP2GEven, k)
	s.parK(phP2GOdd, k)
	s.par(phNormalize)
}

func (s *Sim) p2gSlabs(w, parity int) {
	nsl := len(s.slabs) - 1
	cnt := (nsl - parity + 1) / 2
	lo, hi := parallel.Chunk(cnt, s.kc, w)
	stride := [3]int{s.sx, s.sy, s.sz}[s.slabAxis]
	for t := lo; t < hi; t++ {
		sl := parity + 2*t
		a := s.cellStart[int(s.slabs[sl])*stride]
		b := s.cellStart[int(s.slabs[sl+1])*stride]
		for p := int(a); p < int(b); p++ {
			s.scatter(p)
		}
	}
}

func (s *Sim) scatter(p int) {
	x, y, z := s.px[p], s.py[p], s.pz[p]
	vol := float32(s.vol[p])
	nx, ny, nz := s.nx, s.ny, s.nz
	c := &s.cm
	splat(s.u, s.mu, nx+1, ny, nz, x, y-0.5, z-0.5, vol, s.vx[p], c[0][p], c[1][p], c[2][p])
	splat(s.v, s.mv, nx, ny+1, nz, x-0.5, y, z-0.5, vol, s.vy[p], c[3][p], c[4][p], c[5][p])
	splat(s.w, s.mw, nx, ny, nz+1, x-0.5, y-0.5, z, vol, s.vz[p], c[6][p], c[7][p], c[8][p])
	splatWeight(s.rho, nx, ny, nz, x-0.5, y-0.5, z-0.5, vol)
}

// lower is the node below t (t >= -1) and the fraction above it.
func lower(t float32) (int, float32) {
	i := int(t+1) - 1
	return i, t - float32(i)
}

// splat adds a particle's momentum (its velocity val plus the affine part c . (node -
// particle)) and weight to the 8 nodes about (tx, ty, tz) (in nodes) of a face field of
// n0 x n1 x n2 nodes, those inside it.
func splat(f, m []float32, n0, n1, n2 int, tx, ty, tz, vol, val, cx, cy, cz float32) {
	i0, fx := lower(tx)
	j0, fy := lower(ty)
	k0, fz := lower(tz)
	wx := [2]float32{1 - fx, fx}
	wy := [2]float32{1 - fy, fy}
	wz := [2]float32{1 - fz, fz}
	// The affine part at node (i0, j0, k0); each node further adds c's component.
	base := val - cx*fx - cy*fy - cz*fz
	if i0 >= 0 && i0+1 < n0 && j0 >= 0 && j0+1 < n1 && k0 >= 0 && k0+1 < n2 {
		// All 8 nodes inside (most particles): the loop below unrolled, the same
		// operations in the same order for each node (so the same bits), without its
		// bounds tests (the scatter was a sixth of a region's step).
		for c := 0; c < 2; c++ {
			k := k0 + c
			for b := 0; b < 2; b++ {
				wjk := vol * wy[b] * wz[c]
				vjk := base + cy*float32(b) + cz*float32(c)
				i := n0*(j0+b+n1*k) + i0
				fs, ms := f[i:i+2:i+2], m[i:i+2:i+2]
				wt := wjk * wx[0]
				fs[0] += wt * (vjk + cx*float32(0))
				ms[0] += wt
				wt = wjk * wx[1]
				fs[1] += wt * (vjk + cx*float32(1))
				ms[1] += wt
			}
		}
		return
	}
	splatClipped(f, m, n0, n1, n2, tx, ty, tz, vol, val, cx, cy, cz)
}

// splatClipped is splat over the nodes about (tx, ty, tz) that lie inside the field, a
// bounds test each: a particle at the field's border (splat's interior path is this loop
// unrolled).
func splatClipped(f, m []float32, n0, n1, n2 int, tx, ty, tz, vol, val, cx, cy, cz float32) {
	i0, fx := lower(tx)
	j0, fy := lower(ty)
	k0, fz := lower(tz)
	wx := [2]float32{1 - fx, fx}
	wy := [2]float32{1 - fy, fy}
	wz := [2]float32{1 - fz, fz}
	base := val - cx*fx - cy*fy - cz*fz
	for c := 0; c < 2; c++ {
		k := k0 + c
		if k < 0 || k >= n2 {
			continue
		}
		for b := 0; b < 2; b++ {
			j := j0 + b
			if j < 0 || j >= n1 {
				continue
			}
			wjk := vol * wy[b] * wz[c]
			vjk := base + cy*float32(b) + cz*float32(c)
			row := n0 * (j + n1*k)
			for a := 0; a < 2; a++ {
				i := i0 + a
				if i < 0 || i >= n0 {
					continue
				}
				wt := wjk * wx[a]
				f[row+i] += wt * (vjk + cx*float32(a))
				m[row+i] += wt
			}
		}
	}
}

// splatWeight adds a particle's volume, weighted trilinearly, to the 8 cell centres
// about it.
func splatWeight(m []float32, n0, n1, n2 int, tx, ty, tz, vol float32) {
	i0, fx := lower(tx)
	j0, fy := lower(ty)
	k0, fz := lower(tz)
	wx := [2]float32{1 - fx, fx}
	wy := [2]float32{1 - fy, fy}
	wz := [2]float32{1 - fz, fz}
	if i0 >= 0 && i0+1 < n0 && j0 >= 0 && j0+1 < n1 && k0 >= 0 && k0+1 < n2 {
		for c := 0; c < 2; c++ { // splat's interior path
			for b := 0; b < 2; b++ {
				wjk := vol * wy[b] * wz[c]
				i := n0*(j0+b+n1*(k0+c)) + i0
				ms := m[i : i+2 : i+2]
				ms[0] += wjk * wx[0]
				ms[1] += wjk * wx[1]
			}
		}
		return
	}
	for c := 0; c < 2; c++ {
		k := k0 + c
		if k < 0 || k >= n2 {
			continue
		}
		for b := 0; b < 2; b++ {
			j := j0 + b
			if j < 0 || j >= n1 {
				continue
			}
			wjk := vol * wy[b] * wz[c]
			row := n0 * (j + n1*k)
			for a := 0; a < 2; a++ {
				if i := i0 + a; i >= 0 && i < n0 {
					m[row+i] += wjk * wx[a]
				}
			}
		}
	}
}

// normalize divides the faces' momenta by their weights, closes the closed faces (the
// solid's velocity, 0), adds gravity to the vertical faces the particles reach, and
// turns the centres' volumes into fractions of the room for liquid about them (with the
// columns' liquid beyond a columns side, rhoOut).
func (s *Sim) normalize(w int) {
	div := func(f, m, a []float32, dv float32) {
		lo, hi := parallel.Chunk(len(f), s.kc, w)
		for i := lo; i < hi; i++ {
			switch {
			case a[i] == 0:
				f[i] = 0
			case m[i] > 0:
				f[i] = f[i]/m[i] + dv
			default:
				f[i] = 0
			}
		}
	}
	div(s.u, s.mu, s.au, 0)
	div(s.v, s.mv, s.av, 0)
	div(s.w, s.mw, s.aw, -float32(s.set.Gravity)*s.dt)
	lo, hi := parallel.Chunk(len(s.rho), s.kc, w)
	inv := float32(1 / (s.h * s.h * s.h))
	if s.rhoOut == nil {
		for c := lo; c < hi; c++ {
			s.rho[c] *= inv * s.invOpen[c]
		}
		return
	}
	for c := lo; c < hi; c++ {
		// The conversion rounds the product as the loop above does (no fused add): a
		// cell without the columns' liquid gets the same bits as without columns.
		s.rho[c] = float32(s.rho[c]*(inv*s.invOpen[c])) + s.rhoOut[c]*s.invOpen[c]
	}
}

// forces adds the viscous diffusion (explicit) when there is viscosity; gravity is
// normalize's.
func (s *Sim) forces() {
	if s.set.Viscosity == 0 {
		return
	}
	copy(s.tu, s.u)
	copy(s.tv, s.v)
	copy(s.tw, s.w)
	s.par(phViscosity)
}

// viscosity: u += dt nu Laplacian(u) on every open face the particles reach, over its
// neighbours (in its own grid) the particles reach; a neighbour they do not reach adds
// no flux (no stress at the free surface). Across the solid (a closed neighbour, or the
// box's wall beyond the last face) along an axis other than the component's, the
// solid's side is free slip (no flux), or with Settings.NoSlip a wall half a cell away
// at rest (the ghost velocity -u: a flux -2u).
func (s *Sim) viscosity(w int) {
	kd := float32(s.set.Viscosity) * s.dt * s.invh * s.invh
	noSlip := s.set.NoSlip
	lap := func(comp int, f, t, m, a []float32, n0, n1, n2 int) {
		lo, hi := parallel.Chunk(n1*n2, s.kc, w)
		walls := [3][2]bool{
			{s.set.Sides[XMin] == Wall, s.set.Sides[XMax] == Wall},
			{s.set.Sides[YMin] == Wall, s.set.Sides[YMax] == Wall},
			{s.set.Sides[ZMin] == Wall, s.set.Sides[ZMax] == Wall},
		}
		for r := lo; r < hi; r++ {
			j, k := r%n1, r/n1
			for i := 0; i < n0; i++ {
				c := i + n0*r
				if a[c] == 0 || m[c] == 0 {
					continue
				}
				tc := t[c]
				sum := float32(0)
				// neighbour d along axis ax (-1: beyond the box on side lo/hi).
				add := func(d, ax int, hiSide bool) {
					switch {
					case d < 0:
						if noSlip && ax != comp && walls[ax][b2i(hiSide)] {
							sum -= 2 * tc
						}
					case a[d] == 0:
						if noSlip && ax != comp {
							sum -= 2 * tc
						}
					case m[d] > 0:
						sum += t[d] - tc
					}
				}
				add(iff(i > 0, c-1), 0, false)
				add(iff(i+1 < n0, c+1), 0, true)
				add(iff(j > 0, c-n0), 1, false)
				add(iff(j+1 < n1, c+n0), 1, true)
				add(iff(k > 0, c-n0*n1), 2, false)
				add(iff(k+1 < n2, c+n0*n1), 2, true)
				f[c] = tc + kd*sum
			}
		}
	}
	lap(0, s.u, s.tu, s.mu, s.au, s.nx+1, s.ny, s.nz)
	lap(1, s.v, s.tv, s.mv, s.av, s.nx, s.ny+1, s.nz)
	lap(2, s.w, s.tw, s.mw, s.aw, s.nx, s.ny, s.nz+1)
}

// iff is d when ok, else -1.
func iff(ok bool, d int) int {
	if ok {
		return d
	}
	return -1
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
