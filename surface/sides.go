package surface

import "math"

// The liquid's sides (Settings.Sides; docs/preview.md, "The liquid's edge"): where the
// liquid reaches a side of the domain, the grid ends half a cell short of it and the
// surface with it, so that liquid standing against a side wall floated there as a board
// with nothing under it. The liquid is closed there instead: for each wet vertex of a
// border cell, the top runs on flat to the side's plane (a strip half a cell wide), and
// a vertical face in that plane goes down from the surface to the column's floor; both
// stop where the surface does along the side (at a contact vertex, or into a wall).
// Vertices, after the contact vertices, per side (-x, +x, -y, +y) and per border wet
// vertex in cell order: the top's edge (the vertex's normal), the face's top and its
// bottom (the side's outward normal), all with the vertex's opacity; then, where the
// surface along the side stops, the same for the stopping point. Triangles, after the
// surface's: counter-clockwise from above (the strips) and from outside (the faces).

// sideNormals are the sides' outward normals, in the solver's order of sides.
var sideNormals = [4][2]float32{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}

// sideFlipped tells, per side, whether the direction along it (+y on the x sides, +x on
// the y sides) runs to the right seen from outside: the winding turns there.
var sideFlipped = [4]bool{false, true, true, false}

// sides adds the liquid's sides (see above) and records the highest surface along each
// side (Mesh.SideTop).
func (b *Builder) sides() {
	m := &b.mesh
	b.sideStart = int32(m.NumVertices())
	b.sideTri = len(m.Indices)
	inf := float32(math.Inf(-1))
	m.SideTop = [4]float32{inf, inf, inf, inf}
	for s := range m.SideIndex {
		m.SideIndex[s] = b.sideTri
	}
	if !b.s.Sides {
		return
	}
	b.sideOf = resizeKeep(b.sideOf, int(b.nWet()))
	for s := range 4 {
		m.SideIndex[s] = len(m.Indices)
		n := b.ny
		if s >= 2 {
			n = b.nx
		}
		// The border's wet vertices: their edge, face top and bottom.
		for i := range n {
			c := b.borderCell(s, i)
			for v := b.cellV0[c]; v < b.cellV0[c]+int32(b.cellNW[c]); v++ {
				b.sideOf[v] = b.sideVertices(s, v, v, float64(b.zv[v]), float64(b.basev[v]))
				m.SideTop[s] = max(m.SideTop[s], b.zv[v])
			}
		}
		along := dirN
		if s >= 2 {
			along = dirE
		}
		for i := range n {
			c := b.borderCell(s, i)
			for v := b.cellV0[c]; v < b.cellV0[c]+int32(b.cellNW[c]); v++ {
				for _, d := range [2]int{along, opp(along)} {
					b.sideLink(s, v, d, d != along)
				}
			}
		}
	}
	m.SideIndex[4] = len(m.Indices)
}

// borderCell is the i-th cell along side s (from the lower end).
func (b *Builder) borderCell(s, i int) int32 {
	switch s {
	case 0:
		return int32(i * b.nx)
	case 1:
		return int32(i*b.nx + b.nx - 1)
	case 2:
		return int32(i)
	}
	return int32((b.ny-1)*b.nx + i)
}

// sideVertices appends the three side vertices of point p (a vertex of the surface on
// the border line, of height z) for side s and wet vertex v (floor base, opacity): the
// top's edge in the side's plane with p's normal, and the face's top and bottom there
// with the outward normal. It returns the first.
func (b *Builder) sideVertices(s int, v, p int32, z, base float64) int32 {
	m := &b.mesh
	first := int32(m.NumVertices())
	x, y := float64(m.Positions[3*p]), float64(m.Positions[3*p+1])
	switch s {
	case 0:
		x = 0
	case 1:
		x = float64(b.nx) * b.dx
	case 2:
		y = 0
	default:
		y = float64(b.ny) * b.dx
	}
	bottom := min(base+globalMinCells*b.dx, z)
	o := m.Opacity[v]
	m.Positions = append(m.Positions, float32(x), float32(y), float32(z), float32(x), float32(y), float32(z), float32(x), float32(y), float32(bottom))
	m.Opacity = append(m.Opacity, o, o, o)
	n := m.Normals[3*p : 3*p+3 : 3*p+3]
	m.Normals = append(m.Normals, n[0], n[1], n[2], 0, 0, 1, 0, 0, 1)
	// The faces keep their outward normal whatever the camera: a face seen from behind
	// (the far side, through the liquid) is a back face, which the renderer lights as
	// seen. Turned to just past orthogonal to the view, as the camera cap turns the
	// surface's normals, a far face mirrored the room at a grazing angle (Fresnel near
	// 1) and flecked its top edge with bright pixels.
	on := sideNormals[s]
	fn := m.Normals[3*first+3 : 3*first+9 : 3*first+9]
	fn[0], fn[1], fn[2], fn[3], fn[4], fn[5] = on[0], on[1], 0, on[0], on[1], 0
	return first
}

// sideLink closes the liquid between border wet vertex v and its link in direction d
// along side s (back: d runs against the side's direction): to the next border wet
// vertex, a strip and a face (written once, from the lower vertex); to a boundary
// vertex, a strip and a face to where the surface stops on that link (the contact, or
// the boundary vertex at a wall).
func (b *Builder) sideLink(s int, v int32, d int, back bool) {
	u := b.lk[8*v+int32(d)]
	if u < 0 || b.isWet(u) && back {
		return
	}
	e := b.sideOf[v]
	var p, f int32 // the stopping point on the surface, and its side vertices
	if b.isWet(u) {
		p, f = u, b.sideOf[u]
	} else {
		p = b.crossing(v, u)
		m := &b.mesh
		f = b.sideVertices(s, v, p, float64(m.Positions[3*p+2]), float64(b.basev[v]))
	}
	flip := sideFlipped[s] != back
	// The strip: v, p, p's edge, v's edge; the face: v's bottom, v's face top, p's face
	// top, p's bottom (p taken to lie along the side's direction, turned when flipped).
	b.sideQuad(flip, v, p, f, e)
	b.sideQuad(flip, e+2, e+1, f+1, f+2)
}

// sideQuad appends the quadrilateral a, b, c, d as two triangles (a fan from a), in the
// reverse order when flip.
func (b *Builder) sideQuad(flip bool, a, c1, c2, c3 int32) {
	if flip {
		c1, c3 = c3, c1
	}
	b.mesh.Indices = append(b.mesh.Indices, uint32(a), uint32(c1), uint32(c2), uint32(a), uint32(c2), uint32(c3))
}
