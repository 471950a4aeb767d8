package terrain

import (
	"fmt"
	"math"
)

// Open meshes: inside and outside by the generalized winding number (Jacobson, Kavan and
// Sorkine-Hornung, "Robust inside-outside segmentation using generalized winding
// numbers", 2013): w(p) is the sum of the signed solid angles the triangles subtend at p
// over 4 pi, 1 inside a closed mesh wound outward and 0 outside, and close to those away
// from the holes of an open one (a scan with a hole at its base). p is inside where
// w(p) >= 1/2. It is evaluated hierarchically over the mesh's BVH (Barill, Dickson,
// Schmidt, Levin and Jacobson, "Fast winding numbers for soups and clouds", 2018): a node
// farther from p than windingBeta times its radius contributes as a dipole, its
// area-weighted normal seen from its area-weighted centroid; nearer nodes are summed
// triangle by triangle. Closed meshes keep the exact ray-parity test (meshSolid.inside).

// windingBeta is how far, in node radii, a node must be from p to count as a dipole: the
// dipole's relative error falls as 1/beta^2 (with 2, w is within 0.03 of the exact sum on
// a sphere; the inside test only needs the side of 1/2).
const windingBeta = 2.0

// windingNode is a BVH node's dipole: the sum of its triangles' area-weighted normals
// (half the cross products), their area-weighted centroid and the radius of a ball about
// it that holds the node's box.
type windingNode struct {
	n, c Vec3
	r    float64
}

// buildWinding computes every node's dipole, children before parents.
func (m *meshSolid) buildWinding() {
	m.wnodes = make([]windingNode, len(m.nodes))
	areas := make([]float64, len(m.nodes))
	for i := len(m.nodes) - 1; i >= 0; i-- {
		nd := &m.nodes[i]
		w := &m.wnodes[i]
		var area float64
		if nd.count > 0 {
			for _, t := range m.tris[nd.first : nd.first+nd.count] {
				cr := t.b.Sub(t.a).Cross(t.c.Sub(t.a)).Scale(0.5)
				a := cr.Len()
				w.n = w.n.Add(cr)
				w.c = w.c.Add(t.a.Add(t.b).Add(t.c).Scale(a / 3))
				area += a
			}
		} else {
			for _, k := range []int32{nd.first, nd.first + 1} {
				w.n = w.n.Add(m.wnodes[k].n)
				w.c = w.c.Add(m.wnodes[k].c.Scale(areas[k]))
				area += areas[k]
			}
		}
		if area > 0 {
			w.c = w.c.Scale(1 / area)
		} else {
			w.c = nd.lo.Add(nd.hi).Scale(0.5)
		}
		areas[i] = area
		for k := range 8 {
			corner := nd.lo
			if k&1 != 0 {
				corner.X = nd.hi.X
			}
			if k&2 != 0 {
				corner.Y = nd.hi.Y
			}
			if k&4 != 0 {
				corner.Z = nd.hi.Z
			}
			w.r = max(w.r, corner.Sub(w.c).Len())
		}
	}
}

// winding is the generalized winding number of the mesh at p.
func (m *meshSolid) winding(p Vec3) float64 {
	var sum float64
	var stack [64]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		i := stack[sp]
		nd, w := &m.nodes[i], &m.wnodes[i]
		d := w.c.Sub(p)
		if dl := d.Len(); dl > windingBeta*w.r {
			sum += w.n.Dot(d) / (dl * dl * dl)
			continue
		}
		if nd.count > 0 {
			for k := nd.first; k < nd.first+nd.count; k++ {
				sum += solidAngle(p, &m.tris[k])
			}
			continue
		}
		stack[sp], stack[sp+1] = nd.first, nd.first+1
		sp += 2
	}
	return sum / (4 * math.Pi)
}

// solidAngle is the signed solid angle triangle t subtends at p (Van Oosterom and
// Strackee's formula): positive seen from behind its counter-clockwise front.
func solidAngle(p Vec3, t *triangle) float64 {
	a, b, c := t.a.Sub(p), t.b.Sub(p), t.c.Sub(p)
	la, lb, lc := a.Len(), b.Len(), c.Len()
	num := a.Dot(b.Cross(c))
	den := la*lb*lc + a.Dot(b)*lc + b.Dot(c)*la + c.Dot(a)*lb
	return 2 * math.Atan2(num, den)
}

// checkEncloses decides how the open mesh is wound, or returns an error when it encloses
// nothing. It samples the winding number at points just behind and just in front of up
// to 64 of its faces (their centroids moved a thousandth of the mesh's size along their
// normals): w >= 1/2 behind some face means fronts face out; w <= -1/2 in front of some
// face means the mesh is inside out (m.flip: inside where -w >= 1/2, as a closed mesh is
// whatever its winding). Otherwise (a patch, or faces whose orientations cancel) it
// encloses nothing.
func (m *meshSolid) checkEncloses(name string) error {
	eps := m.nodes[0].hi.Sub(m.nodes[0].lo).Len() * 1e-3
	step := max(1, len(m.tris)/64)
	best, worst := math.Inf(-1), math.Inf(1)
	for i := 0; i < len(m.tris); i += step {
		t := &m.tris[i]
		n := t.b.Sub(t.a).Cross(t.c.Sub(t.a))
		l := n.Len()
		if l == 0 {
			continue
		}
		ctr := t.a.Add(t.b).Add(t.c).Scale(1.0 / 3)
		behind, front := m.winding(ctr.Sub(n.Scale(eps/l))), m.winding(ctr.Add(n.Scale(eps/l)))
		if behind >= 0.5 {
			return nil
		}
		if front <= -0.5 {
			m.flip = true
			return nil
		}
		best, worst = max(best, behind), min(worst, front)
	}
	return fmt.Errorf("%s: the mesh encloses nothing: it is open (%d open edges) and its generalized winding number stays within (-1/2, 1/2) next to its faces (%.4f to %.4f): a patch, or faces whose orientations cancel", name, m.openEdges, worst, best)
}

// MeshOpenEdges is the number of edges of a mesh solid (Model.Solid) not shared by
// exactly two faces: 0 for a closed mesh, whose inside is exact; otherwise inside and
// outside come from the winding number, and a caller should say so. 0 for other solids.
func MeshOpenEdges(s Solid) int {
	if m, ok := s.(*meshSolid); ok {
		return m.openEdges
	}
	return 0
}
