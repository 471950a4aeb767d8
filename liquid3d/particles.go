package liquid3d

import (
	"math"

	"github.com/vpbench/vpbench/internal/parallel"
	"github.com/vpbench/vpbench/terrain"
)

// sort puts the particles in cell order (a stable counting sort on the key, so the
// order is the same whoever computed the keys), takes out those that left the box
// through an open side (booked in out and the outflow, in particle order) and notes the
// fastest speed. It returns how many left.
func (s *Sim) sort() (int, error) {
	if cap(s.key) < s.np || cap(s.order) < s.np {
		s.key = make([]int32, s.np, s.np+s.np/4)
		s.order = make([]int32, s.np, s.np+s.np/4)
	}
	s.key = s.key[:s.np]
	s.par(phKeys)
	vmax := float32(0)
	for w := 0; w < s.k; w++ {
		if s.workerCount[w] > 0 {
			return 0, ErrNotFinite
		}
		vmax = max(vmax, s.workerMax[w])
	}
	s.maxSpeed = float32(math.Sqrt(float64(vmax)))
	clear(s.cellStart)
	left := 0
	for p, c := range s.key {
		if c < 0 {
			s.outflow = append(s.outflow, Particle{
				Pos: s.world(p), Vel: terrain.Vec3{X: float64(s.vx[p]), Y: float64(s.vy[p]), Z: float64(s.vz[p])}, Volume: s.vol[p],
			})
			s.out += s.vol[p]
			left++
			continue
		}
		s.cellStart[c+1]++
	}
	for c := 0; c < s.ncell; c++ {
		s.cellStart[c+1] += s.cellStart[c]
	}
	copy(s.next, s.cellStart[:s.ncell])
	s.order = s.order[:cap(s.order)]
	for p, c := range s.key {
		if c >= 0 {
			s.order[s.next[c]] = int32(p)
			s.next[c]++
		}
	}
	n := s.np - left
	s.order = s.order[:n]
	s.ensureBuffers()
	s.par(phPermute)
	for a := range 3 {
		s.bpx[a] = s.bpx[a][:n]
		s.bvx[a] = s.bvx[a][:n]
	}
	s.px, s.bpx[0] = s.bpx[0], s.px
	s.py, s.bpx[1] = s.bpx[1], s.py
	s.pz, s.bpx[2] = s.bpx[2], s.pz
	s.vx, s.bvx[0] = s.bvx[0], s.vx
	s.vy, s.bvx[1] = s.bvx[1], s.vy
	s.vz, s.bvx[2] = s.bvx[2], s.vz
	for c := range s.cm {
		s.bcm[c] = s.bcm[c][:n]
		s.cm[c], s.bcm[c] = s.bcm[c], s.cm[c]
	}
	s.bvol = s.bvol[:n]
	s.vol, s.bvol = s.bvol, s.vol
	s.np = n
	s.sortPending = false
	return left, nil
}

// ensureBuffers gives the sort's second buffers room for every particle.
func (s *Sim) ensureBuffers() {
	for a := range 3 {
		s.bpx[a] = grow32(s.bpx[a], s.np)
		s.bvx[a] = grow32(s.bvx[a], s.np)
	}
	for c := range s.bcm {
		s.bcm[c] = grow32(s.bcm[c], s.np)
	}
	if cap(s.bvol) < s.np {
		s.bvol = make([]float64, s.np, s.np+s.np/4)
	}
	s.bvol = s.bvol[:s.np]
}

// grow32 is b with length n, made anew (with room to grow) when its capacity is short.
func grow32(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n, n+n/4)
	}
	return b[:n]
}

// keys is the sort's parallel part: each particle's key (-1 outside the box), the
// fastest speed and the count of particles that are not finite, per worker.
func (s *Sim) keys(w int) {
	lo, hi := parallel.Chunk(s.np, s.kc, w)
	nx, ny, nz := float32(s.nx), float32(s.ny), float32(s.nz)
	m := float32(0)
	bad := int32(0)
	for p := lo; p < hi; p++ {
		x, y, z := s.px[p], s.py[p], s.pz[p]
		vv := s.vx[p]*s.vx[p] + s.vy[p]*s.vy[p] + s.vz[p]*s.vz[p]
		if x != x || y != y || z != z || !(vv <= math.MaxFloat32) {
			bad++
			s.key[p] = -1
			continue
		}
		if !(x >= 0 && x < nx && y >= 0 && y < ny && z >= 0 && z < nz) {
			s.key[p] = -1
			continue
		}
		s.key[p] = int32(int(x)*s.sx + int(y)*s.sy + int(z)*s.sz)
		m = max(m, vv)
	}
	s.workerMax[w], s.workerCount[w] = m, bad
}

// permute copies the particles into the second buffers in the sort's order.
func (s *Sim) permute(w int) {
	lo, hi := parallel.Chunk(len(s.order), s.kc, w)
	ord := s.order[lo:hi]
	gather := func(dst, src []float32) {
		d := dst[lo:hi]
		for i, o := range ord {
			d[i] = src[o]
		}
	}
	gather(s.bpx[0], s.px)
	gather(s.bpx[1], s.py)
	gather(s.bpx[2], s.pz)
	gather(s.bvx[0], s.vx)
	gather(s.bvx[1], s.vy)
	gather(s.bvx[2], s.vz)
	for c := range s.cm {
		gather(s.bcm[c], s.cm[c])
	}
	d := s.bvol[lo:hi]
	for i, o := range ord {
		d[i] = s.vol[o]
	}
}

// wallEps is how far, in cells, a particle stopped by a wall stays from it.
const wallEps = 1e-3

// solidMargin is how far, in cells, a particle pushed out of the solid ends up from its
// surface.
const solidMargin = 0.01

// g2p gives each particle its velocity and affine matrix from the grid (APIC: the
// velocity interpolated trilinearly, the matrix from the weights' gradients) and moves it
// through the grid's velocity (midpoint rule), then out of the solid and off the walls.
func (s *Sim) g2p(w int) {
	lo, hi := parallel.Chunk(s.np, s.kc, w)
	dt := s.dt * s.invh // cells per (m/s)
	nx, ny, nz := s.nx, s.ny, s.nz
	for p := lo; p < hi; p++ {
		x, y, z := s.px[p], s.py[p], s.pz[p]
		var vx, vy, vz, c0, c1, c2, c3, c4, c5, c6, c7, c8, dx, dy, dz float32
		if s.spreading { // the density correction where the liquid packed (spread.go), read as the velocities are
			vx, c0, c1, c2, dx = sampleWith(s.u, s.tu, nx+1, ny, nz, x, y-0.5, z-0.5)
			vy, c3, c4, c5, dy = sampleWith(s.v, s.tv, nx, ny+1, nz, x-0.5, y, z-0.5)
			vz, c6, c7, c8, dz = sampleWith(s.w, s.tw, nx, ny, nz+1, x-0.5, y-0.5, z)
		} else {
			vx, c0, c1, c2 = sample(s.u, nx+1, ny, nz, x, y-0.5, z-0.5)
			vy, c3, c4, c5 = sample(s.v, nx, ny+1, nz, x-0.5, y, z-0.5)
			vz, c6, c7, c8 = sample(s.w, nx, ny, nz+1, x-0.5, y-0.5, z)
		}
		s.cm[0][p], s.cm[1][p], s.cm[2][p] = c0, c1, c2
		s.cm[3][p], s.cm[4][p], s.cm[5][p] = c3, c4, c5
		s.cm[6][p], s.cm[7][p], s.cm[8][p] = c6, c7, c8
		// Midpoint: half a substep with the particle's velocity, then the whole with
		// the grid's velocity there.
		mx, my, mz := x+0.5*dt*vx, y+0.5*dt*vy, z+0.5*dt*vz
		ux := value(s.u, nx+1, ny, nz, mx, my-0.5, mz-0.5)
		uy := value(s.v, nx, ny+1, nz, mx-0.5, my, mz-0.5)
		uz := value(s.w, nx, ny, nz+1, mx-0.5, my-0.5, mz)
		x, y, z = x+dt*ux, y+dt*uy, z+dt*uz
		if s.spreading {
			x, y, z = x+clampSpread(dx), y+clampSpread(dy), z+clampSpread(dz)
		}
		if s.set.Solid != nil {
			if d, gx, gy, gz := s.solidAt(x, y, z); d < solidMargin*s.hf {
				if l := float32(math.Sqrt(float64(gx*gx + gy*gy + gz*gz))); l > 0 {
					ex, ey, ez := gx/l, gy/l, gz/l
					shift := (solidMargin*s.hf - d) * s.invh
					x, y, z = x+shift*ex, y+shift*ey, z+shift*ez
					if vn := vx*ex + vy*ey + vz*ez; vn < 0 {
						vx, vy, vz = vx-vn*ex, vy-vn*ey, vz-vn*ez
					}
				}
			}
		}
		x, vx = s.wall(x, vx, s.nx, XMin)
		y, vy = s.wall(y, vy, s.ny, YMin)
		z, vz = s.wall(z, vz, s.nz, ZMin)
		s.px[p], s.py[p], s.pz[p] = x, y, z
		s.vx[p], s.vy[p], s.vz[p] = vx, vy, vz
	}
}

// wall keeps a coordinate inside the box along an axis whose sides are walls (lo the
// axis's min side), stopping the velocity into the wall; an open side lets it go.
func (s *Sim) wall(x, v float32, n int, lo Side) (float32, float32) {
	if x < wallEps && s.set.Sides[lo] == Wall {
		x = wallEps
		v = max(v, 0)
	}
	if top := float32(n) - wallEps; x > top && s.set.Sides[lo+1] == Wall {
		x = top
		v = min(v, 0)
	}
	return x, v
}

// axis is the lower node, the fraction and the stride to the next node of coordinate t
// (in nodes) on an axis of n nodes of the given stride, clamped to the nodes' range.
func axis(t float32, n, stride int) (int, float32, int) {
	if n == 1 {
		return 0, 0, 0
	}
	if !(t > 0) {
		return 0, 0, stride
	}
	if t >= float32(n-1) {
		return n - 2, 1, stride
	}
	i := int(t)
	return i, t - float32(i), stride
}

// sample interpolates a face field of n0 x n1 x n2 nodes (x fastest) trilinearly at
// (tx, ty, tz) in nodes, clamped to the nodes' range, and its gradient (per cell).
func sample(f []float32, n0, n1, n2 int, tx, ty, tz float32) (val, gx, gy, gz float32) {
	i, fx, sx := axis(tx, n0, 1)
	j, fy, sy := axis(ty, n1, n0)
	k, fz, sz := axis(tz, n2, n0*n1)
	b := i + n0*(j+n1*k)
	c000, c100 := f[b], f[b+sx]
	c010, c110 := f[b+sy], f[b+sx+sy]
	c001, c101 := f[b+sz], f[b+sx+sz]
	c011, c111 := f[b+sy+sz], f[b+sx+sy+sz]
	e00, e10, e01, e11 := c100-c000, c110-c010, c101-c001, c111-c011
	x00, x10 := c000+fx*e00, c010+fx*e10
	x01, x11 := c001+fx*e01, c011+fx*e11
	y0, y1 := x00+fy*(x10-x00), x01+fy*(x11-x01)
	val = y0 + fz*(y1-y0)
	gz = y1 - y0
	gy = (1-fz)*(x10-x00) + fz*(x11-x01)
	gx = (1-fz)*((1-fy)*e00+fy*e10) + fz*((1-fy)*e01+fy*e11)
	return
}

// sampleWith is sample of f, and value of d on the same grid from the same corners:
// the density correction read where the velocity is (g2p), the corners found once.
func sampleWith(f, d []float32, n0, n1, n2 int, tx, ty, tz float32) (val, gx, gy, gz, dval float32) {
	val, gx, gy, gz = sample(f, n0, n1, n2, tx, ty, tz)
	i, fx, sx := axis(tx, n0, 1)
	j, fy, sy := axis(ty, n1, n0)
	k, fz, sz := axis(tz, n2, n0*n1)
	return val, gx, gy, gz, trilinear(d, i+n0*(j+n1*k), sx, sy, sz, fx, fy, fz)
}

// value is sample without the gradient.
func value(f []float32, n0, n1, n2 int, tx, ty, tz float32) float32 {
	i, fx, sx := axis(tx, n0, 1)
	j, fy, sy := axis(ty, n1, n0)
	k, fz, sz := axis(tz, n2, n0*n1)
	return trilinear(f, i+n0*(j+n1*k), sx, sy, sz, fx, fy, fz)
}

// trilinear is value's interpolation from the corner b, its strides and fractions.
func trilinear(f []float32, b, sx, sy, sz int, fx, fy, fz float32) float32 {
	x00 := f[b] + fx*(f[b+sx]-f[b])
	x10 := f[b+sy] + fx*(f[b+sx+sy]-f[b+sy])
	x01 := f[b+sz] + fx*(f[b+sx+sz]-f[b+sz])
	x11 := f[b+sy+sz] + fx*(f[b+sx+sy+sz]-f[b+sy+sz])
	y0, y1 := x00+fy*(x10-x00), x01+fy*(x11-x01)
	return y0 + fz*(y1-y0)
}

// MaxSpeed is the fastest particle's speed, m/s.
func (s *Sim) MaxSpeed() float64 {
	m := 0.0
	for p := 0; p < s.np; p++ {
		m = max(m, float64(s.vx[p])*float64(s.vx[p])+float64(s.vy[p])*float64(s.vy[p])+float64(s.vz[p])*float64(s.vz[p]))
	}
	return math.Sqrt(m)
}

// ColumnThickness fills dst (NX*NY, x fastest; made when too short) with each column's
// liquid thickness, m: the volume of its particles over the column's area. The sum of
// dst times H^2 is Volume() to float64 rounding.
func (s *Sim) ColumnThickness(dst []float64) []float64 {
	dst = s.columns(dst)
	for p := 0; p < s.np; p++ {
		dst[s.column(p)] += s.vol[p]
	}
	a := 1 / (s.h * s.h)
	for c := range dst {
		dst[c] *= a
	}
	return dst
}

// ColumnVelocity fills u and v (NX*NY, x fastest; made when too short) with each
// column's depth-averaged horizontal velocity, m/s: its particles' velocities weighted
// by their volumes; 0 in a column without liquid.
func (s *Sim) ColumnVelocity(u, v []float64) ([]float64, []float64) {
	u, v = s.columns(u), s.columns(v)
	vol := make([]float64, s.nx*s.ny)
	for p := 0; p < s.np; p++ {
		c := s.column(p)
		u[c] += s.vol[p] * float64(s.vx[p])
		v[c] += s.vol[p] * float64(s.vy[p])
		vol[c] += s.vol[p]
	}
	for c := range vol {
		if vol[c] > 0 {
			u[c] /= vol[c]
			v[c] /= vol[c]
		}
	}
	return u, v
}

func (s *Sim) columns(dst []float64) []float64 {
	n := s.nx * s.ny
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	clear(dst)
	return dst
}

func (s *Sim) column(p int) int {
	i := min(max(int(s.px[p]), 0), s.nx-1)
	j := min(max(int(s.py[p]), 0), s.ny-1)
	return i + s.nx*j
}
