package surface

import "math"

// meniscusIters is ceil(MeniscusLength / dx): the number of dead-reckoning iterations and
// of link steps the meniscus band reaches from its first ring.
func (b *Builder) meniscusIters() int {
	return max(1, int(math.Ceil(b.s.MeniscusLength/b.dx-1e-9)))
}

// meniscus finds, for the wet vertices near the boundary, the distance to their nearest
// boundary column (paper Sec. 5.1); tiltNormals tilts their normals (Sec. 5.2).
//
// State per vertex: dist, the distance to the nearest boundary column (NBC), and nbc.
// A boundary vertex (dry or extra) is its own NBC at distance 0; a wet vertex starts
// at +Inf with nbc -2 (not in the band) and joins the band (nbc -1) when reached.
func (b *Builder) meniscus() {
	nw := b.nWet()
	inf := float32(math.Inf(1))
	dist, nbc, lk := b.dist, b.nbc, b.lk
	for v := range nw {
		dist[v], nbc[v] = inf, -2
	}
	for v := nw; v < int32(b.numVertices()); v++ {
		dist[v], nbc[v], b.nxy[v] = 0, v, b.vxy[v]
	}
	b.sweeps = 0
	// The first ring: wet vertices linked to a dry or an extra vertex.
	b.band = append(b.band[:0], b.ring...)
	for _, v := range b.ring {
		nbc[v] = -1
	}
	if len(b.band) == 0 {
		return
	}
	iters := b.meniscusIters()
	// The band: wet vertices within iters-1 link steps of the first ring, discovered
	// breadth-first. Dead reckoning: a vertex takes a linked vertex's NBC when that one's
	// distance plus the step to it beats its own, and then the Euclidean distance to
	// that NBC (for the first ring, the nearest linked boundary vertex: axis before
	// diagonal, then the lower direction). The first sweep runs with the discovery
	// (each vertex after the layer before it); further sweeps over the band in the same
	// order (Gauss-Seidel) until one changes nothing, iters sweeps in all at most.
	start := 0
	for layer := range iters {
		end := len(b.band)
		for _, v := range b.band[start:end] {
			b.relax(v)
			if layer == iters-1 {
				continue
			}
			for _, j := range lk[8*v : 8*v+8] {
				if j >= 0 && nbc[j] == -2 {
					nbc[j] = -1
					b.band = append(b.band, j)
				}
			}
		}
		start = end
	}
	b.sweeps = 1
	for range iters - 1 {
		b.sweeps++
		changed := false
		for _, v := range b.band {
			changed = b.relax(v) || changed
		}
		if !changed {
			break
		}
	}
}

// relax is one dead-reckoning update of band vertex v; it reports a change.
func (b *Builder) relax(v int32) bool {
	dx := float32(b.dx)
	diag := float32(b.dx * math.Sqrt2)
	dist, nbc, nxy := b.dist, b.nbc, b.nxy
	bd, bn, bxy := dist[v], nbc[v], nxy[v]
	xv, yv := b.vcell(v)
	for d, j := range b.lk[8*v : 8*v+8] {
		if j < 0 {
			continue
		}
		step := dx
		if d&1 == 1 {
			step = diag
		}
		if bd > dist[j]+step { // false while j is not reached (+Inf)
			bn, bxy = nbc[j], nxy[j]
			x, y := unpack(bxy)
			ex, ey := float32(x-xv), float32(y-yv)
			bd = dx * float32(math.Sqrt(float64(ex*ex+ey*ey)))
		}
	}
	if bn == nbc[v] && bd == dist[v] {
		return false
	}
	dist[v], nbc[v], nxy[v] = bd, bn, bxy
	return true
}

// gradient is the central (or one-sided) difference of the distance along one axis at
// a vertex of distance di whose links along it are plus and minus (a link not reached
// by the band counts as missing).
func (b *Builder) gradient(plus, minus int32, di float32) float64 {
	inf := float32(math.Inf(1))
	okp := plus >= 0 && b.dist[plus] < inf
	okq := minus >= 0 && b.dist[minus] < inf
	switch {
	case okp && okq:
		return float64(b.dist[plus]-b.dist[minus]) / (2 * b.dx)
	case okp:
		return float64(b.dist[plus]-di) / b.dx
	case okq:
		return float64(di-b.dist[minus]) / b.dx
	}
	return 0
}

// tilt turns the normal n of wet vertex v (at distance di < MeniscusLength from its
// NBC) by the meniscus correction, with the convex cap when there is a camera.
func (b *Builder) tilt(v int32, di float32, nx, ny, nz float64) (float64, float64, float64) {
	L := b.s.MeniscusLength
	nbc := b.nbc[v]
	// Direction to the boundary: minus the gradient of the distance.
	l8 := b.lk[8*v : 8*v+8 : 8*v+8]
	ux := -b.gradient(l8[dirE], l8[dirW], di)
	uy := -b.gradient(l8[dirN], l8[dirS], di)
	ul := ux*ux + uy*uy
	if !(ul > 1e-18) {
		x, y := unpack(b.nxy[v])
		xi, yi := b.vcell(v)
		ux, uy = float64(x-xi), float64(y-yi)
		ul = ux*ux + uy*uy
	}
	r := 1 / math.Sqrt(ul)
	ux, uy = ux*r, uy*r
	// Solid tilt from the bases of the column and its NBC, correction at the contact.
	beta := math.Atan2(float64(b.basev[nbc])-float64(b.basev[v]), float64(di))
	psi := min(max(beta-b.s.ContactAngle, -math.Pi/2), math.Pi/2)
	if psi < 0 && !b.s.ConvexTilt {
		psi = 0 // the contour draws a convex edge (contour.go)
	}
	// Rotation axis: horizontal, perpendicular to u, oriented so that a positive angle
	// tilts the normal away from the boundary (a surface rising towards it).
	ax, ay := uy, -ux
	if b.s.Camera != nil {
		p := b.mesh.Positions[3*v : 3*v+3 : 3*v+3]
		psi = b.capAngle(psi, nx, ny, nz, ax, ay, float64(p[0]), float64(p[1]), float64(p[2]))
	}
	theta := psi * (1 - float64(di)/L)
	nx, ny, nz = rotate(nx, ny, nz, ax, ay, theta)
	r = 1 / math.Sqrt(nx*nx+ny*ny+nz*nz)
	return nx * r, ny * r, nz * r
}

// rotate turns (nx, ny, nz) by angle t about the horizontal unit axis (ax, ay, 0)
// (Rodrigues).
func rotate(nx, ny, nz, ax, ay, t float64) (float64, float64, float64) {
	s, c := sinCos(t)
	// a x n with a = (ax, ay, 0)
	cx, cy, cz := ay*nz, -ax*nz, ax*ny-ay*nx
	ad := (ax*nx + ay*ny) * (1 - c)
	return nx*c + cx*s + ax*ad, ny*c + cy*s + ay*ad, nz*c + cz*s
}

// capAngle caps the contact correction psi so that the contact normal is at most
// orthogonal to the view vector from (px, py, pz) to the camera (Sec. 5.3): it returns
// the angle of the first point in [0, psi] where the rotated normal turns orthogonal,
// or psi if it never does. When the normal already faces away, psi is returned (the
// final camera pass fixes it).
func (b *Builder) capAngle(psi, nx, ny, nz, ax, ay, px, py, pz float64) float64 {
	cam := b.s.Camera
	vx, vy, vz := cam[0]-px, cam[1]-py, cam[2]-pz
	vl := math.Sqrt(vx*vx + vy*vy + vz*vz)
	if !(vl > 0) || psi == 0 {
		return psi
	}
	vx, vy, vz = vx/vl, vy/vl, vz/vl
	// f(t) = rot(n, t).v = C + A cos t + B sin t
	an := ax*nx + ay*ny
	C := an * (ax*vx + ay*vy)
	A := nx*vx + ny*vy + nz*vz - C
	cx, cy, cz := ay*nz, -ax*nz, ax*ny-ay*nx
	B := cx*vx + cy*vy + cz*vz
	if C+A < 0 {
		return psi // already facing away: left to the final camera pass
	}
	// No root in (0, psi] when f(psi) >= 0 and f has no interior minimum there: f is
	// C + R cos(t - phi), lowest at t = phi + pi; on a turn of at most pi/2 with f >= 0 at
	// both ends, a dip below 0 needs that minimum inside.
	sp, cp := sinCos(psi)
	if C+A*cp+B*sp >= 0 {
		// minimum inside (0, psi) iff the derivative -A sin t + B cos t changes sign
		// from negative to positive there.
		if d0, d1 := B, -A*sp+B*cp; !(d0*psi < 0 && d1*psi > 0) {
			return psi
		}
	}
	R := math.Sqrt(A*A + B*B)
	if !(R > 1e-12) || math.Abs(C) > R {
		return psi
	}
	phi := math.Atan2(B, A)
	delta := math.Acos(-C / R)
	best := psi
	for _, t := range [...]float64{phi + delta, phi - delta} {
		t = math.Remainder(t, 2*math.Pi) // in [-pi, pi]
		if t*psi > 0 && math.Abs(t) < math.Abs(best) {
			best = t
		}
	}
	return best
}

// sinCos returns sin t and cos t for |t| <= pi/2 (Taylor series to t^13 and t^12:
// error below 1e-8), faster than math.Sincos.
func sinCos(t float64) (float64, float64) {
	t2 := t * t
	s := t * (1 + t2*(-1.0/6+t2*(1.0/120+t2*(-1.0/5040+t2*(1.0/362880+t2*(-1.0/39916800+t2*(1.0/6227020800)))))))
	c := 1 + t2*(-0.5+t2*(1.0/24+t2*(-1.0/720+t2*(1.0/40320+t2*(-1.0/3628800+t2*(1.0/479001600))))))
	return s, c
}
