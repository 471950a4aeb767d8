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
// resolution. The domain's box is a wall on every side.

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
	// One contact per direction (the normals are along the axes): at the points' centre,
	// weighted by depth, so that a box flat on the floor gets its impulse under its
	// centre of mass (many points' impulses one after another set it rocking).
	var group [6]struct {
		r     vec
		wsum  float64
		depth float64
	}
	for _, k := range w.cont {
		d := axisOf(k.n)
		g := &group[d]
		wt := k.depth + 1e-9
		g.r = g.r.Add(k.r.Scale(wt))
		g.wsum += wt
		g.depth = max(g.depth, k.depth)
	}
	var move vec
	for range contactPasses {
		for d := range group {
			if g := &group[d]; g.wsum > 0 {
				w.impulse(b, nil, iw, mat3{}, g.r.Scale(1/g.wsum), vec{}, axisNormals[d])
			}
		}
	}
	// Out along each direction by the deepest point's depth that way.
	for d := range group {
		move = move.Add(axisNormals[d].Scale(group[d].depth))
	}
	b.x = b.x.Add(move)
}

// axisNormals are the six directions a terrain contact's normal takes.
var axisNormals = [6]vec{{X: -1}, {X: 1}, {Y: -1}, {Y: 1}, {Z: -1}, {Z: 1}}

// axisOf is the index in axisNormals of an axis normal.
func axisOf(n vec) int {
	switch {
	case n.X < 0:
		return 0
	case n.X > 0:
		return 1
	case n.Y < 0:
		return 2
	case n.Y > 0:
		return 3
	case n.Z < 0:
		return 4
	}
	return 5
}

// terrainDepth returns how deep p is in the terrain (0 in free space) and the way out.
func (w *World) terrainDepth(p vec) (float64, vec) {
	c := w.cols
	dx := c.Dx
	d := w.domain
	// The domain's walls.
	switch {
	case p.X < d.Min.X:
		return d.Min.X - p.X, vec{X: 1}
	case p.X > d.Max.X:
		return p.X - d.Max.X, vec{X: -1}
	case p.Y < d.Min.Y:
		return d.Min.Y - p.Y, vec{Y: 1}
	case p.Y > d.Max.Y:
		return p.Y - d.Max.Y, vec{Y: -1}
	case p.Z > d.Max.Z:
		return p.Z - d.Max.Z, vec{Z: -1}
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
	fx, fy := p.X/dx-float64(cx), p.Y/dx-float64(cy)
	for _, s := range [4]struct {
		x, y int
		dist float64
		n    vec
	}{{cx - 1, cy, fx * dx, vec{X: -1}}, {cx + 1, cy, (1 - fx) * dx, vec{X: 1}}, {cx, cy - 1, fy * dx, vec{Y: -1}}, {cx, cy + 1, (1 - fy) * dx, vec{Y: 1}}} {
		if s.dist >= best || s.x < 0 || s.y < 0 || s.x >= c.Nx || s.y >= c.Ny {
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
func (w *World) bodyContacts(a, b *Body) {
	if a.x.Sub(b.x).Len() >= a.shape.Radius+b.shape.Radius {
		return
	}
	ra, rb := a.q.matrix(), b.q.matrix()
	ia := ra.mulM(a.inertia).mulM(ra.transpose())
	ib := rb.mulM(b.inertia).mulM(rb.transpose())
	var deepest contact
	// n points out of b, into a's way out: a moves along n, b against it.
	w.cont = w.cont[:0]
	// Every point, not only the boundary's: two bodies that met fast or were made in one
	// place overlap deep, and a boundary point can lie on the other's boundary.
	collect := func(p, q *Body, rp, rq mat3, sign float64) {
		sh := p.shape
		for i := range len(sh.X) + len(sh.Contact) {
			var c [3]float32
			if i < len(sh.X) {
				c = [3]float32{sh.X[i], sh.Y[i], sh.Z[i]}
			} else {
				c = sh.Contact[i-len(sh.X)]
			}
			rw := rp.mul(vec{X: float64(c[0]), Y: float64(c[1]), Z: float64(c[2])})
			x := p.x.Add(rw)
			local := rq.mulT(x.Sub(q.x))
			d := q.shape.Dist(local)
			if d >= 0 {
				continue
			}
			g := gradient(q.shape, local, 0.25*min(q.shape.Cell.X, q.shape.Cell.Y, q.shape.Cell.Z))
			n := rq.mul(g).Scale(sign)
			k := contact{r: x.Sub(a.x), n: n, depth: -d}
			w.cont = append(w.cont, k)
			if k.depth > deepest.depth {
				deepest = k
			}
		}
	}
	collect(a, b, ra, rb, 1)
	collect(b, a, rb, ra, -1)
	if len(w.cont) == 0 {
		return
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
	// Apart along the deepest contact's normal, by the inverse masses' shares.
	wa, wb := 1/a.mass, 1/b.mass
	a.x = a.x.Add(deepest.n.Scale(deepest.depth * wa / (wa + wb)))
	b.x = b.x.Sub(deepest.n.Scale(deepest.depth * wb / (wa + wb)))
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
