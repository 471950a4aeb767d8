package surface

import "math"

// The contour: where the liquid ends on a floor, between cells (docs/preview.md, "The
// liquid's edge"; doc.go, "Contour").
//
// The paper ends the surface at the dry vertices: a dry column linked to a wet one stands
// at its cell's centre at the mean surface height of its wet neighbours, so the surface
// runs on at full height for a whole cell past the last wet column and stops in the air
// (a cliff a cell wide, a staircase of cells, a pale rim where its opacity fades). Here
// each link from a wet vertex v to a dry vertex w whose floor lies below v's surface
// (a floor link) has a contact vertex on it: where the liquid meets the floor, a
// fraction t of the way from v to w,
//
//	t = d / (d + L tan alpha)   (at least minContact, at most 1),
//
// d the depth of v, L the link's length (dx, or dx sqrt 2 on a diagonal), alpha the
// contact angle: marching squares over the depth, the dry end taking the depth -L tan
// alpha, as if the floor went on under the liquid at the contact angle. A thin edge column
// ends near its centre, its surface falling to the floor at the contact angle; a deep one
// reaches towards w, more steeply. The contact stands on the floor (interpolated between
// the two bases, plus the global minimum depth), with its wet vertex's opacity and
// normal (placeContact, contactNormals: the geometry draws the fall). Where the floor
// steps by more than L (a ledge's edge, a step up that the liquid has not climbed) the
// contact stops at the cells' common face, on v's floor: the liquid ends at the edge
// instead of hanging a sheet down the ledge (the coffee table's front face).
//
// A link to a wall (a dry column whose floor is at or above v's surface, or an extra
// vertex) keeps the boundary vertex itself: the surface runs flat into the solid, which
// hides it, and the depth test draws the contact line where the liquid meets the wall,
// exactly. Such a dry vertex stands at the mean surface height of the wet vertices it
// walls (boundary.go).
//
// The paper's triangles (triangulate.go) are clipped by the contour as they are emitted:
// each triangle with a boundary corner keeps its wet corners and, on each edge from a wet
// to a boundary corner, the crossing (the contact vertex, or the boundary vertex at a
// wall). A contact vertex belongs to its link, so the two quartets that share an axis
// link share it: no crack.

// minContact is the least contact fraction t: a column of vanishing depth still has a
// sliver of surface around its centre, so that no clipped triangle is degenerate.
const minContact = 0.05

// maxContactAngle bounds the contact angle the contour uses: tan alpha grows without
// bound towards 90 degrees (a liquid that beads up); the contact then hugs its column.
const maxContactAngle = 80 * math.Pi / 180

// floorLink reports whether the link from wet vertex v to boundary vertex w ends on a
// floor below v's surface (a contact vertex), rather than at a wall.
func (b *Builder) floorLink(v, w int32) bool {
	nb := b.nWet() + int32(len(b.dryList))
	return w < nb && b.basev[w] < b.st[b.wetList[v]].hc
}

// contacts numbers the contact vertices (after the wet, dry and extra vertices: nodes),
// one per floor link of the meniscus's first ring, in ring order, and sets their
// positions and opacity. It runs after the boundary vertices are known and before the
// triangles, which clip against them.
func (b *Builder) contacts() {
	b.nodes = int32(b.numVertices())
	nw := b.nWet()
	b.contactOf = resizeKeep(b.contactOf, 8*int(nw))
	b.ctSlot = b.ctSlot[:0]
	for _, v := range b.ring {
		slots := b.contactOf[8*v : 8*v+8 : 8*v+8]
		for d := range int32(8) {
			slots[d] = -1
			if w := b.lk[8*v+d]; w >= nw && b.floorLink(v, w) {
				slots[d] = int32(len(b.ctSlot))
				b.ctSlot = append(b.ctSlot, 8*v+d)
			}
		}
	}
	b.resize(int(b.nodes) + len(b.ctSlot))
	b.tanContact = math.Tan(min(b.s.ContactAngle, maxContactAngle))
	b.pool.run(len(b.ctSlot), minHeavy, b.fContacts)
	b.pool.run(len(b.ctSlot), minHeavy, b.fDiagonals)
}

// contactGeometry is the contact on the link in slot 8v+d by the depth alone (the
// fraction t = d / (d + L tan alpha)) and its height: see contactAt.
func (b *Builder) contactGeometry(slot int32) (t, z float64) {
	v := slot / 8
	depth := float64(b.st[b.wetList[v]].hc) - float64(b.basev[v])
	t = 1.0
	if delta := b.linkLength(slot) * b.tanContact; delta > 0 {
		t = depth / (depth + delta)
	}
	return b.contactAt(slot, t)
}

// linkLength is the horizontal length of the link in slot 8v+d: dx, or dx sqrt 2 on a
// diagonal.
func (b *Builder) linkLength(slot int32) float64 {
	if slot&1 == 1 {
		return b.dx * math.Sqrt2
	}
	return b.dx
}

// contactAt is the contact a fraction t of the way along the link in slot 8v+d (to w):
// t clamped to [minContact, 1], and to at most 1/2 where the floor steps by more than the
// link's length (the contact then stands on v's floor); its height, on the floor plus the
// global minimum depth, at most v's surface.
func (b *Builder) contactAt(slot int32, t float64) (float64, float64) {
	v, w := slot/8, b.lk[slot]
	L := b.linkLength(slot)
	bv := float64(b.basev[v])
	t = min(max(t, minContact), 1)
	z := bv
	if step := float64(b.basev[w]) - bv; step > L || step < -L {
		t = min(t, 0.5)
	} else {
		z += t * step
	}
	return t, min(z+globalMinCells*b.dx, float64(b.zv[v]))
}

// contactChunk places the contact vertices lo .. hi-1 by their depth (contactGeometry)
// and sets their opacity.
func (b *Builder) contactChunk(_, lo, hi int) {
	for k := lo; k < hi; k++ {
		slot := b.ctSlot[k]
		t, z := b.contactGeometry(slot)
		b.placeContact(k, t, z)
	}
}

// placeContact sets the position of contact vertex k at fraction t of its link, height
// z, and its opacity: its wet vertex's. The liquid is drawn at its column's depth up to
// where it ends: a wedge whose depth fell to 0 at the contact faded from the liquid's
// colour to the terrain's over its width, and with the reflection fading first, drew a
// band of bare liquid colour outside a pale one (the meniscus's highlight), which read
// as a torn edge.
func (b *Builder) placeContact(k int, t, z float64) {
	m := &b.mesh
	slot := b.ctSlot[k]
	v, w := slot/8, b.lk[slot]
	c := int(b.nodes) + k
	pv, pw := m.Positions[3*v:3*v+2:3*v+2], m.Positions[3*w:3*w+2:3*w+2]
	m.Positions[3*c] = float32(float64(pv[0]) + t*float64(pw[0]-pv[0]))
	m.Positions[3*c+1] = float32(float64(pv[1]) + t*float64(pw[1]-pv[1]))
	m.Positions[3*c+2] = float32(z)
	m.Opacity[c] = m.Opacity[v]
}

// diagonalChunk moves the contact vertices lo .. hi-1 that lie on a diagonal link onto
// the contour of their quartet, as marching squares draws it: the segment between the
// crossings on the two paths round the quartet from the link's wet end x to its boundary
// end y (through each of the other two corners p: on p-y when p is wet, on x-p when p is
// a boundary vertex). By its depth alone a diagonal contact lies nearer x than its axis
// neighbours (the link is sqrt 2 longer), which notched a straight edge at every cell. A
// contact whose quartet lacks a corner or a link keeps its place.
func (b *Builder) diagonalChunk(_, lo, hi int) {
	p := b.mesh.Positions
	for k := lo; k < hi; k++ {
		slot := b.ctSlot[k]
		if slot&1 == 0 {
			continue
		}
		x, d := slot/8, slot%8
		y := b.lk[slot]
		ax, ay, okA := b.sideCrossing(x, y, (d+7)&7, (d+1)&7)
		bx, by, okB := b.sideCrossing(x, y, (d+1)&7, (d+7)&7)
		if !okA || !okB {
			continue
		}
		x0, y0 := float64(p[3*x]), float64(p[3*x+1])
		ex, ey := float64(p[3*y])-x0, float64(p[3*y+1])-y0
		fx, fy := bx-ax, by-ay
		gx, gy := ax-x0, ay-y0
		// x + s e = A + r f
		det := fx*ey - ex*fy
		if math.Abs(det) < 1e-12*(ex*ex+ey*ey) {
			continue
		}
		s := (fx*gy - gx*fy) / det
		t, z := b.contactAt(slot, s)
		b.placeContact(k, t, z)
	}
}

// sideCrossing is where the contour crosses the path from wet vertex x to boundary
// vertex y through x's link in direction dx (p) and p's link in direction dy: on p-y
// when p is wet and linked to y, on x-p when p is a boundary vertex (its contact, or p
// itself at a wall). ok is false when the path is not there.
func (b *Builder) sideCrossing(x, y int32, dx, dy int32) (float64, float64, bool) {
	pv := b.lk[8*x+dx]
	switch {
	case pv < 0:
		return 0, 0, false
	case b.isWet(pv):
		if b.lk[8*pv+dy] != y {
			return 0, 0, false
		}
		return b.crossingPoint(pv, y, dy)
	}
	return b.crossingPoint(x, pv, dx)
}

// crossingPoint is the position from above of the crossing on the axis link from wet
// vertex a in direction d to boundary vertex w: a's contact there, or w at a wall.
func (b *Builder) crossingPoint(a, w, d int32) (float64, float64, bool) {
	c := w
	if b.floorLink(a, w) {
		k := b.contactOf[8*a+d]
		if k < 0 {
			return 0, 0, false
		}
		c = b.nodes + k
	}
	p := b.mesh.Positions
	return float64(p[3*c]), float64(p[3*c+1]), true
}

// contactNormals sets the normals of the contact vertices after the wet vertices': the
// wet vertex's own. The surface falls to the contact in its geometry (the contact stands
// on the floor), and with the wet vertices' convex tilt off (Settings.ConvexTilt) the
// edge is drawn by that geometry alone. Tried: the normal of a surface meeting the floor
// at the contact angle (30 degrees by default). Interpolated from the wet vertex's, the
// normals across the last link then passed 5 to 20 degrees of tilt, where the surface
// mirrors the studio's ring softbox: a pale line just inside every edge, which broke the
// liquid's outline into specks (coffee at 3 s, 800 x 450: 17 specks and a roughness of
// 1.31 against 9 and 1.29; surgery at 2 s: 9 against 3).
func (b *Builder) contactNormals() {
	m := &b.mesh
	for k, slot := range b.ctSlot {
		v, c := slot/8, int(b.nodes)+k
		n := m.Normals[3*v : 3*v+3 : 3*v+3]
		b.setNormal(c, float64(n[0]), float64(n[1]), float64(n[2]))
	}
}

// crossing is where the contour crosses the edge from wet vertex x to boundary vertex y
// of a triangle: x's contact vertex on that link, or y itself at a wall.
func (b *Builder) crossing(x, y int32) int32 {
	if !b.floorLink(x, y) {
		return y
	}
	l := b.lk[8*x : 8*x+8 : 8*x+8]
	for d, j := range l {
		if j == y {
			if k := b.contactOf[8*x+int32(d)]; k >= 0 {
				return b.nodes + k
			}
		}
	}
	return y
}

// emit appends the triangle u, v, w (counter-clockwise from above) to the worker's list,
// clipped by the contour: nothing without a wet corner, itself with three.
func (b *Builder) emit(wk *worker, u, v, w int32) {
	nw := b.nWet()
	wu, wv, ww := u < nw, v < nw, w < nw
	switch {
	case wu && wv && ww:
		wk.idx = append(wk.idx, uint32(u), uint32(v), uint32(w))
	case wu || wv || ww:
		b.clip(wk, u, v, w, wu, wv, ww)
	}
}

// clip emits the wet part of triangle u, v, w, which has one or two wet corners (wu, wv,
// ww say which): with one wet corner x, the triangle x and its two crossings; with two,
// x1 and x2 and the crossings on their edges to the boundary corner, a quadrilateral
// split along the diagonal whose triangles' smaller area is the larger (a crossing at a
// wall may lie on a line with two corners).
func (b *Builder) clip(wk *worker, u, v, w int32, wu, wv, ww bool) {
	// Rotate (keeping the order) so that the pattern is x, y1, y2 (one wet corner) or
	// x1, x2, y (two).
	wet := 0
	for _, x := range [3]bool{wu, wv, ww} {
		if x {
			wet++
		}
	}
	one := wet == 1
	r := 0 // rotations done: the triangles are written back in u, v, w's own rotation
	for ; r < 2; r++ {
		if one && wu || !one && !ww {
			break
		}
		u, v, w = v, w, u
		wu, wv, ww = wv, ww, wu
	}
	if one { // x, y1, y2
		b.tri3(wk, r, u, b.crossing(u, v), b.crossing(u, w))
		return
	}
	// x1, x2, y
	c2, c1 := b.crossing(v, w), b.crossing(u, w)
	if c1 == c2 {
		b.tri3(wk, r, u, v, w)
		return
	}
	p := b.mesh.Positions
	if min(area2(p, u, v, c1), area2(p, v, c2, c1)) > min(area2(p, u, v, c2), area2(p, u, c2, c1)) {
		b.tri3(wk, r, u, v, c1)
		b.tri3(wk, r, v, c2, c1)
	} else {
		b.tri3(wk, r, u, v, c2)
		b.tri3(wk, r, u, c2, c1)
	}
}

// tri3 appends the triangle p0, p1, p2 of a triangle rotated r times (u, v, w to v, w,
// u), turned back by r: the same corners in the same cyclic order, the first one where
// the unrotated triangle had it.
func (b *Builder) tri3(wk *worker, r int, p0, p1, p2 int32) {
	switch r {
	case 1:
		p0, p1, p2 = p2, p0, p1
	case 2:
		p0, p1, p2 = p1, p2, p0
	}
	wk.idx = append(wk.idx, uint32(p0), uint32(p1), uint32(p2))
}

// area2 is twice the signed area from above of the triangle of vertices u, v, w.
func area2(p []float32, u, v, w int32) float64 {
	ux, uy := float64(p[3*u]), float64(p[3*u+1])
	return (float64(p[3*v])-ux)*(float64(p[3*w+1])-uy) - (float64(p[3*w])-ux)*(float64(p[3*v+1])-uy)
}
