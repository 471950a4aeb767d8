package terrain

import "math"

// The sign of a closed mesh's distance from its nearest point.
//
// For a closed, consistently wound mesh the side a point p lies on follows from the
// point q of the mesh nearest to it: p is outside where (p - q) . N > 0, N being the
// angle-weighted pseudonormal of the feature q lies on (Baerentzen and Aanaes, "Signed
// distance computation using the angle weighted pseudonormal", IEEE TVCG 2005): the
// face's normal inside a face, the sum of the two faces' normals on an edge, and at a
// vertex the sum of its faces' normals weighted by their angles there. Dist finds q
// anyway, so the sign costs a few products, where the crossing count it replaces casts
// two or three rays through the whole mesh (half the time of meshing a scanned rock).
//
// The test needs the mesh closed (every edge shared by two faces), each edge walked in
// opposite directions by its two faces, no face of zero area, and no two of its separate
// pieces (connected components) with overlapping bounding boxes: the theorem holds for a
// surface that does not cross itself, and pieces modelled overlapping do (a point inside
// one piece can be nearest to another piece's face inside it). A mesh that does not
// qualify keeps the crossing count. Points beyond the reach, whose nearest point Dist
// does not look for, keep it too.

// pseudoNormals are a triangle's pseudonormals (float32: only signs are read from them),
// outward, in the order of the features triClosest names.
type pseudoNormals [7][3]float32

// Features of a triangle, as triClosest names them; featNone: none (the face region of
// a zero-area triangle).
const (
	featNone = iota - 1
	featFace
	featA
	featB
	featC
	featAB
	featBC
	featCA
)

// buildPseudoNormals fills m.pseudo from the merged faces kept (vertex ids below
// nverts; m.tris[k] is face k, before build reorders both) and their edges (ids below
// nedges, in the order ab, bc, ca), or leaves it nil where a face has zero area. The
// caller checks that the mesh is closed and consistently wound.
func (m *meshSolid) buildPseudoNormals(kept, keptEdges [][3]int32, nedges, nverts int) {
	edge := make([]Vec3, nedges)
	vert := make([]Vec3, nverts)
	face := make([]Vec3, len(kept))
	piece, npieces, ok := pieces(m.tris, kept, nverts)
	if !ok {
		return
	}
	volume := make([]float64, npieces) // six times each piece's signed volume
	for k, f := range kept {
		t := m.tris[k]
		c := t.b.Sub(t.a).Cross(t.c.Sub(t.a))
		l := c.Len()
		if l == 0 {
			return // a face of zero area: no normal
		}
		n := c.Scale(1 / l)
		face[k] = n
		volume[piece[k]] += t.a.Dot(t.b.Cross(t.c))
		for e := range 3 {
			edge[keptEdges[k][e]] = edge[keptEdges[k][e]].Add(n)
			// The angle of the face at its corner e.
			p, u, v := t.corner(e), t.corner((e+1)%3), t.corner((e+2)%3)
			vert[f[e]] = vert[f[e]].Add(n.Scale(angle(u.Sub(p), v.Sub(p))))
		}
	}
	m.pseudo = make([]pseudoNormals, len(m.tris))
	for k, f := range kept {
		out := float32(1)
		if volume[piece[k]] < 0 {
			out = -1 // the piece is wound inside out: its normals point in
		}
		f32 := func(v Vec3) [3]float32 { return [3]float32{out * float32(v.X), out * float32(v.Y), out * float32(v.Z)} }
		pn := &m.pseudo[k]
		pn[featFace] = f32(face[k])
		for e := range 3 {
			pn[featA+e] = f32(vert[f[e]])
			pn[featAB+e] = f32(edge[keptEdges[k][e]])
		}
	}
}

// maxPieces bounds the pieces that pieces compares pairwise; a mesh of more keeps the
// crossing count.
const maxPieces = 256

// pieces returns the connected component of each face kept (vertex ids below nverts;
// tris[k] is face k) and their number; ok is false where two have overlapping bounding
// boxes or there are more than maxPieces.
func pieces(tris []triangle, kept [][3]int32, nverts int) (piece []int32, n int, ok bool) {
	parent := make([]int32, nverts)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, f := range kept {
		a, b, c := find(f[0]), find(f[1]), find(f[2])
		parent[b], parent[c] = a, a
	}
	type box struct{ lo, hi Vec3 }
	index := map[int32]int{}
	var boxes []box
	piece = make([]int32, len(kept))
	for k, f := range kept {
		r := find(f[0])
		i, seen := index[r]
		if !seen {
			if len(boxes) == maxPieces {
				return nil, 0, false
			}
			i = len(boxes)
			index[r] = i
			t := tris[k]
			boxes = append(boxes, box{t.a, t.a})
		}
		piece[k] = int32(i)
		t := tris[k]
		boxes[i].lo = vmin(boxes[i].lo, vmin(t.a, vmin(t.b, t.c)))
		boxes[i].hi = vmax(boxes[i].hi, vmax(t.a, vmax(t.b, t.c)))
	}
	for i := range boxes {
		for j := range i {
			a, b := boxes[i], boxes[j]
			if a.lo.X <= b.hi.X && b.lo.X <= a.hi.X && a.lo.Y <= b.hi.Y && b.lo.Y <= a.hi.Y && a.lo.Z <= b.hi.Z && b.lo.Z <= a.hi.Z {
				return nil, 0, false
			}
		}
	}
	return piece, len(boxes), true
}

// angle is the angle between u and v, radians.
func angle(u, v Vec3) float64 {
	c := u.Cross(v).Len()
	return math.Atan2(c, u.Dot(v))
}

// corner is the triangle's corner c (0: a, 1: b, 2: c).
func (t triangle) corner(c int) Vec3 {
	switch c {
	case 0:
		return t.a
	case 1:
		return t.b
	}
	return t.c
}

// triClosest returns the point of t nearest to p and the feature it lies on, walking the
// Voronoi regions of its vertices, edges and face (Ericson, "Real-Time Collision
// Detection", 5.1.5). A zero-area triangle whose face region p falls in gives featNone:
// its edges were tried first.
func triClosest(p Vec3, t *triangle) (Vec3, int) {
	a, b, c := t.a, t.b, t.c
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a, featA
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b, featB
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return a.Add(ab.Scale(d1 / (d1 - d3))), featAB
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c, featC
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return a.Add(ac.Scale(d2 / (d2 - d6))), featCA
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return b.Add(c.Sub(b).Scale((d4 - d3) / ((d4 - d3) + (d5 - d6)))), featBC
	}
	denom := va + vb + vc
	if denom == 0 {
		return Vec3{}, featNone
	}
	v, w := vb/denom, vc/denom
	return a.Add(ab.Scale(v)).Add(ac.Scale(w)), featFace
}

// outsideOf tells whether p lies outside the mesh, from triangle k, the one nearest to
// p (m.pseudo is set).
func (m *meshSolid) outsideOf(p Vec3, k int32) bool {
	q, f := triClosest(p, &m.tris[k])
	n := m.pseudo[k][f]
	d := p.Sub(q)
	return d.X*float64(n[0])+d.Y*float64(n[1])+d.Z*float64(n[2]) > 0
}
