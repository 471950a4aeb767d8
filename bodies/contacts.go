package bodies

import (
	"math"
)

// Contacts: a body's boundary points are kept out of the terrain and out of the other
// bodies. For each point found inside, an impulse stops its motion into the solid
// (restitution, Coulomb friction), a few passes over the body's contacts; then the body
// is moved out by the deepest point's depth along each direction.
//
// The terrain is the columns' solid space, as the liquid sees it: a point is inside
// where its cell has no column holding its height, and its way out is the nearest of
// up (the floor above it), down (the ceiling below it) and the four sides (a
// neighbouring cell with a column at its height): normals along the axes, at the cell's
// resolution. The domain's box is a wall on every side but the open ones (World.SetOpen),
// beyond which lies free space.

// contactPasses is how many times the impulses sweep a body's contacts.
const contactPasses = 4

// terrainContacts finds a's boundary points in the terrain and resolves them.
func (w *World) terrainContacts(b *Body) {
	sh := b.shape
	r := b.q.matrix()
	w.cont = w.cont[:0]
	for _, q := range sh.Contact {
		rw := r.mul(vec{X: float64(q[0]), Y: float64(q[1]), Z: float64(q[2])})
		if d, n := w.terrainDepth(b.x.Add(rw)); d > 0 {
			w.cont = append(w.cont, contact{r: rw, n: n, depth: d})
		}
	}
	if len(w.cont) == 0 {
		return
	}
	iw := r.mulM(b.inertia).mulM(r.transpose())
	inv := iw.inverse()
	// Projected Gauss-Seidel with accumulated impulses: each point's normal impulse
	// (lambda >= 0) is corrected in turn, pgsIterations times, so that impulses at
	// points in sequence converge to the support the body's points share (one impulse
	// at a time, each only pushing, set a box flat on the floor rocking, and a swab
	// resting on an edge sank through it a little every update).
	if cap(w.lambda) < len(w.cont) {
		w.lambda, w.vn0, w.kn = make([]float64, len(w.cont)), make([]float64, len(w.cont)), make([]float64, len(w.cont))
	}
	lambda, vn0, kn := w.lambda[:len(w.cont)], w.vn0[:len(w.cont)], w.kn[:len(w.cont)]
	for i, c := range w.cont {
		lambda[i] = 0
		vn0[i] = b.v.Add(b.w.Cross(c.r)).Dot(c.n)
		kn[i] = 1/b.mass + inv.mul(c.r.Cross(c.n)).Cross(c.r).Dot(c.n)
	}
	for range pgsIterations {
		for i, c := range w.cont {
			vel := b.v.Add(b.w.Cross(c.r))
			vn := vel.Dot(c.n)
			target := 0.0
			if vn0[i] < -2*w.st.Gravity*w.dt { // landing, not resting: it bounces
				target = -w.st.Restitution * vn0[i]
			}
			l := max(lambda[i]+(target-vn)/kn[i], 0)
			dl := l - lambda[i]
			lambda[i] = l
			imp := c.n.Scale(dl)
			// Friction: the tangential slip stopped, up to Friction times the support.
			vt := vel.Sub(c.n.Scale(vn))
			if sl := vt.Len(); sl > 1e-12 && l > 0 {
				t := vt.Scale(1 / sl)
				kt := 1/b.mass + inv.mul(c.r.Cross(t)).Cross(c.r).Dot(t)
				imp = imp.Sub(t.Scale(min(sl/kt, w.st.Friction*l/float64(pgsIterations))))
			}
			b.v = b.v.Add(imp.Scale(1 / b.mass))
			b.w = b.w.Add(inv.mul(c.r.Cross(imp)))
		}
	}
	// Out along each axis direction by the deepest point's depth that way.
	var pos, neg vec
	for _, c := range w.cont {
		pos = vec{X: max(pos.X, c.depth*c.n.X), Y: max(pos.Y, c.depth*c.n.Y), Z: max(pos.Z, c.depth*c.n.Z)}
		neg = vec{X: min(neg.X, c.depth*c.n.X), Y: min(neg.Y, c.depth*c.n.Y), Z: min(neg.Z, c.depth*c.n.Z)}
	}
	b.x = b.x.Add(pos).Add(neg)
}

// pgsIterations is how many sweeps the terrain contacts' solve makes.
const pgsIterations = 8

// terrainDepth returns how deep p is in the terrain (0 in free space) and the way out.
func (w *World) terrainDepth(p vec) (float64, vec) {
	c := w.cols
	dx := c.Dx
	d := w.domain
	// The domain's walls; beyond an open side (SetOpen) nothing: free space.
	switch {
	case p.X < d.Min.X && !w.open[0]:
		return d.Min.X - p.X, vec{X: 1}
	case p.X > d.Max.X && !w.open[1]:
		return p.X - d.Max.X, vec{X: -1}
	case p.Y < d.Min.Y && !w.open[2]:
		return d.Min.Y - p.Y, vec{Y: 1}
	case p.Y > d.Max.Y && !w.open[3]:
		return p.Y - d.Max.Y, vec{Y: -1}
	case p.Z > d.Max.Z:
		return p.Z - d.Max.Z, vec{Z: -1}
	case p.X < d.Min.X || p.X > d.Max.X || p.Y < d.Min.Y || p.Y > d.Max.Y:
		return 0, vec{}
	}
	cx, cy := min(int(p.X/dx), c.Nx-1), min(int(p.Y/dx), c.Ny-1)
	lo, hi := c.Cell(cx, cy)
	best, n := math.Inf(1), vec{}
	for i := lo; i < hi; i++ {
		mn, mx := float64(c.Min[i]), float64(c.Max[i])
		if p.Z >= mn && p.Z <= mx {
			return 0, vec{}
		}
		if mn > p.Z && mn-p.Z < best { // the floor above
			best, n = mn-p.Z, vec{Z: 1}
		}
		if mx < p.Z && p.Z-mx < best { // the ceiling below
			best, n = p.Z-mx, vec{Z: -1}
		}
	}
	// Out sideways only where that is less than half the way up: on a slope the columns
	// are a staircase, and a point in a riser pushed sideways set a swab resting on the
	// wound's floor skating and spinning.
	fx, fy := p.X/dx-float64(cx), p.Y/dx-float64(cy)
	up := best
	for _, s := range [4]struct {
		x, y int
		dist float64
		n    vec
	}{{cx - 1, cy, fx * dx, vec{X: -1}}, {cx + 1, cy, (1 - fx) * dx, vec{X: 1}}, {cx, cy - 1, fy * dx, vec{Y: -1}}, {cx, cy + 1, (1 - fy) * dx, vec{Y: 1}}} {
		if s.dist >= best || s.dist >= up/2 || s.x < 0 || s.y < 0 || s.x >= c.Nx || s.y >= c.Ny {
			continue
		}
		if w.columnAt(s.x, s.y, p.Z) >= 0 {
			best, n = s.dist, s.n
		}
	}
	if math.IsInf(best, 1) { // solid all round (deep in a wall): up
		return dx, vec{Z: 1}
	}
	return best, n
}

// bodyContacts finds a's boundary points inside b and b's inside a, and resolves them.
func (w *World) bodyContacts(a, b *Body) (touching bool) {
	if a.x.Sub(b.x).Len() >= a.shape.Radius+b.shape.Radius {
		return false
	}
	ra, rb := a.q.matrix(), b.q.matrix()
	ia := ra.mulM(a.inertia).mulM(ra.transpose())
	ib := rb.mulM(b.inertia).mulM(rb.transpose())
	var deepest contact
	// n points out of b, into a's way out: a moves along n, b against it.
	w.cont = w.cont[:0]
	// The boundary points first; every point where none is found but the two are closer
	// than half their radii (two bodies that met fast or were made in one place overlap
	// deep, and a boundary point can lie on the other's boundary).
	collect := func(p, q *Body, rp, rq mat3, sign float64, interior bool) {
		sh := p.shape
		// p's points in q's frame: m c + t, one product a point; those beyond q's
		// bounding sphere or box are out of q.
		m, t := rq.transpose().mulM(rp), rq.mulT(p.x.Sub(q.x))
		r2 := q.shape.Radius * q.shape.Radius
		mn, mx := q.shape.Min, q.shape.Max
		n := len(sh.Contact)
		if interior {
			n = len(sh.X)
		}
		for i := range n {
			var c vec
			if interior {
				c = vec{X: float64(sh.X[i]), Y: float64(sh.Y[i]), Z: float64(sh.Z[i])}
			} else {
				q := sh.Contact[i]
				c = vec{X: float64(q[0]), Y: float64(q[1]), Z: float64(q[2])}
			}
			local := m.mul(c).Add(t)
			if local.Dot(local) >= r2 || local.X < mn.X || local.Y < mn.Y || local.Z < mn.Z ||
				local.X > mx.X || local.Y > mx.Y || local.Z > mx.Z {
				continue // outside q's sphere or box
			}
			d := q.shape.Dist(local)
			if d >= 0 {
				continue
			}
			x := p.x.Add(rp.mul(c))
			g := gradient(q.shape, local, 0.25*min(q.shape.Cell.X, q.shape.Cell.Y, q.shape.Cell.Z))
			k := contact{r: x.Sub(a.x), n: rq.mul(g).Scale(sign), depth: -d}
			w.cont = append(w.cont, k)
			if k.depth > deepest.depth {
				deepest = k
			}
		}
	}
	collect(a, b, ra, rb, 1, false)
	collect(b, a, rb, ra, -1, false)
	if len(w.cont) == 0 && a.x.Sub(b.x).Len() < (a.shape.Radius+b.shape.Radius)/2 {
		collect(a, b, ra, rb, 1, true)
		collect(b, a, rb, ra, -1, true)
	}
	if len(w.cont) == 0 {
		return false
	}
	// One contact at the points' centre, weighted by depth, along their mean normal.
	var rc, nc vec
	var wsum float64
	for _, k := range w.cont {
		wt := k.depth + 1e-9
		rc, nc, wsum = rc.Add(k.r.Scale(wt)), nc.Add(k.n.Scale(wt)), wsum+wt
	}
	rc = rc.Scale(1 / wsum)
	if l := nc.Len(); l > 0 {
		nc = nc.Scale(1 / l)
	} else {
		nc = deepest.n
	}
	for range contactPasses {
		w.impulse(a, b, ia, ib, rc, rc.Add(a.x).Sub(b.x), nc)
	}
	// Overlaps within a slop (a tenth of a cell) are left: bodies at rest against each
	// other stay in light contact, and a pass that moves nobody ends the passes
	// (World.Step). Bodies pressed deeper are not still: they do not fall asleep
	// overlapping (a sleeping pair is not looked at).
	slop := 0.1 * min(a.shape.Cell.X, a.shape.Cell.Y, a.shape.Cell.Z, b.shape.Cell.X, b.shape.Cell.Y, b.shape.Cell.Z)
	if deepest.depth <= slop {
		return false
	}
	a.still, b.still = 0, 0
	// Apart by the deepest point's depth, by the inverse masses' shares: along its normal
	// where that points away from b's centre, else along the line between the centres
	// (two boxes pressed deep into each other, say into a corner, have their deepest
	// points' normals through their thin side: up and down, which buoyancy and the floor
	// undid every update).
	dir := deepest.n
	if c := a.x.Sub(b.x); c.Dot(dir) <= 0 || deepest.depth > 0.5*min(a.shape.Cell.Z, b.shape.Cell.Z, a.shape.Cell.X, b.shape.Cell.X) {
		if l := c.Len(); l > 1e-9 {
			dir = c.Scale(1 / l)
		} else {
			dir = vec{X: 1}
		}
	}
	wa, wb := 1/a.mass, 1/b.mass
	d := deepest.depth - slop/2
	a.x = a.x.Add(dir.Scale(d * wa / (wa + wb)))
	b.x = b.x.Sub(dir.Scale(d * wb / (wa + wb)))
	return true
}

// gradient is the unit gradient of the shape's distance at p (central differences of
// step h), or up where it vanishes.
func gradient(sh *Shape, p vec, h float64) vec {
	g := vec{
		X: sh.Dist(p.Add(vec{X: h})) - sh.Dist(p.Sub(vec{X: h})),
		Y: sh.Dist(p.Add(vec{Y: h})) - sh.Dist(p.Sub(vec{Y: h})),
		Z: sh.Dist(p.Add(vec{Z: h})) - sh.Dist(p.Sub(vec{Z: h})),
	}
	if l := g.Len(); l > 0 && !math.IsNaN(l) {
		return g.Scale(1 / l)
	}
	return vec{Z: 1}
}

// impulse resolves one contact at ra from a's centre of mass (rb from b's; b nil: the
// terrain) with normal n out of the other: the normal impulse that stops the points'
// approach (with restitution), then friction up to Friction times it.
func (w *World) impulse(a, b *Body, ia, ib mat3, ra, rb, n vec) {
	vel := a.v.Add(a.w.Cross(ra))
	if b != nil {
		vel = vel.Sub(b.v.Add(b.w.Cross(rb)))
	}
	vn := vel.Dot(n)
	if vn >= 0 {
		return
	}
	k := func(d vec) float64 { // the inverse effective mass along d
		s := 1/a.mass + ia.solve(ra.Cross(d)).Cross(ra).Dot(d)
		if b != nil {
			s += 1/b.mass + ib.solve(rb.Cross(d)).Cross(rb).Dot(d)
		}
		return s
	}
	e := w.st.Restitution
	if vn > -2*w.st.Gravity*w.dt { // resting, not landing: what one step of gravity gives does not bounce
		e = 0
	}
	j := -(1 + e) * vn / k(n)
	imp := n.Scale(j)
	vt := vel.Sub(n.Scale(vn))
	if l := vt.Len(); l > 1e-12 {
		t := vt.Scale(1 / l)
		jt := min(l/k(t), w.st.Friction*j)
		imp = imp.Sub(t.Scale(jt))
	}
	a.v = a.v.Add(imp.Scale(1 / a.mass))
	a.w = a.w.Add(ia.solve(ra.Cross(imp)))
	if b != nil {
		b.v = b.v.Sub(imp.Scale(1 / b.mass))
		b.w = b.w.Sub(ib.solve(rb.Cross(imp)))
	}
}
