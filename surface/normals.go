package surface

import "math"

// plainNormals sets the normals of the wet vertices lo .. hi-1 from central differences
// of the surface heights over their axis links (one-sided where one side has no link,
// flat where neither has), turned to face the camera if there is one. It runs beside the
// meniscus; tiltNormals then redoes the ones the meniscus tilts.
func (b *Builder) plainNormals(lo, hi int) {
	for v := lo; v < hi; v++ {
		nx, ny, nz := b.plainNormal(v)
		b.setNormal(v, nx, ny, nz)
	}
}

// plainNormal is the untilted normal of wet vertex v.
func (b *Builder) plainNormal(v int) (float64, float64, float64) {
	inv2, inv1 := 1/(2*b.dx), 1/b.dx
	zi := float64(b.zv[v])
	l := b.lk[8*v : 8*v+8 : 8*v+8]
	gx := slope(b.zv, l[dirE], l[dirW], zi, inv1, inv2)
	gy := slope(b.zv, l[dirN], l[dirS], zi, inv1, inv2)
	r := 1 / math.Sqrt(gx*gx+gy*gy+1)
	return -gx * r, -gy * r, r
}

// tiltNormals sets the normals of the band vertices band[lo:hi] within the meniscus
// length of the boundary: the plain normal tilted by the meniscus (Sec. 5.2), then
// turned to face the camera.
func (b *Builder) tiltNormals(_, lo, hi int) {
	L := float32(b.s.MeniscusLength)
	for _, v := range b.band[lo:hi] {
		if di := b.dist[v]; di < L {
			nx, ny, nz := b.plainNormal(int(v))
			nx, ny, nz = b.tilt(v, di, nx, ny, nz)
			b.setNormal(int(v), nx, ny, nz)
		}
	}
}

// setNormal stores the normal of vertex v, turned first, when there is a camera and it
// faces away from it, to a little past orthogonal to the view vector: no normal faces
// away from the viewer (Sec. 5.3).
func (b *Builder) setNormal(v int, nx, ny, nz float64) {
	m := &b.mesh
	if cam := b.s.Camera; cam != nil {
		p := m.Positions[3*v : 3*v+3 : 3*v+3]
		vx, vy, vz := cam[0]-float64(p[0]), cam[1]-float64(p[1]), cam[2]-float64(p[2])
		if nx*vx+ny*vy+nz*vz < 0 {
			if vl := math.Sqrt(vx*vx + vy*vy + vz*vz); vl > 0 {
				vx, vy, vz = vx/vl, vy/vl, vz/vl
				k := 1e-3 - (nx*vx + ny*vy + nz*vz)
				nx, ny, nz = nx+k*vx, ny+k*vy, nz+k*vz
				l := math.Sqrt(nx*nx + ny*ny + nz*nz)
				if !(l > 1e-9) {
					nx, ny, nz, l = vx, vy, vz, 1
				}
				nx, ny, nz = nx/l, ny/l, nz/l
			}
		}
	}
	n := m.Normals[3*v : 3*v+3 : 3*v+3]
	n[0], n[1], n[2] = float32(nx), float32(ny), float32(nz)
}

// slope is the derivative of the surface height at a vertex of height zi along an axis,
// p and q its links in the plus and minus directions.
func slope(zv []float32, p, q int32, zi, inv1, inv2 float64) float64 {
	switch {
	case p >= 0 && q >= 0:
		return (float64(zv[p]) - float64(zv[q])) * inv2
	case p >= 0:
		return (float64(zv[p]) - zi) * inv1
	case q >= 0:
		return (zi - float64(zv[q])) * inv1
	}
	return 0
}

// boundaryNormals gives every dry and extra vertex the mean normal of its linked wet
// neighbours (after the meniscus), normalised.
func (b *Builder) boundaryNormals() {
	m := &b.mesh
	for v := len(b.wetList); v < b.numVertices(); v++ {
		var sx, sy, sz float64
		for d := range 8 {
			i := b.lk[8*v+d]
			if i < 0 || !b.isWet(i) {
				continue
			}
			w := 3 * i
			sx += float64(m.Normals[w])
			sy += float64(m.Normals[w+1])
			sz += float64(m.Normals[w+2])
		}
		l := math.Sqrt(sx*sx + sy*sy + sz*sz)
		if !(l > 1e-12) {
			sx, sy, sz, l = 0, 0, 1, 1
		}
		b.setNormal(v, sx/l, sy/l, sz/l)
	}
}
