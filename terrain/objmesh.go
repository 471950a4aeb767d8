package terrain

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Model is a triangle mesh as read from a file (ReadOBJ, ReadSTL, LoadModel), before it
// becomes a solid: its vertices may still be moved (Transform) and measured (Bounds).
// Each triangle remembers where the file defines it, for the errors of Solid.
type Model struct {
	Name  string     // labels errors: the file's name
	Verts []Vec3     // metres, once the model's units are applied
	Tris  [][3]int32 // indices into Verts
	// src is each triangle's line in the file (OBJ, ASCII STL), or its index counting
	// from 1 (binary STL, byIndex).
	src     []int32
	byIndex bool
	objRefs bool // vertex numbers mean something to the user (OBJ)
}

// where is the place of triangle t in the file: name:line or name: triangle i.
func (m *Model) where(t int) string {
	if m.byIndex {
		return fmt.Sprintf("%s: triangle %d", m.Name, m.src[t])
	}
	return fmt.Sprintf("%s:%d", m.Name, m.src[t])
}

// Bounds returns the smallest box holding every vertex that a triangle uses.
func (m *Model) Bounds() (lo, hi Vec3) {
	first := true
	for _, t := range m.Tris {
		for _, i := range t {
			v := m.Verts[i]
			if first {
				lo, hi, first = v, v, false
			}
			lo, hi = vmin(lo, v), vmax(hi, v)
		}
	}
	return lo, hi
}

// Transform replaces every vertex v by f(v). f should be a similarity (a scale, a
// rotation, a translation): Solid's distances are then exact. Vertices at one position
// stay at one position, so a closed model stays closed.
func (m *Model) Transform(f func(Vec3) Vec3) {
	for i, v := range m.Verts {
		m.Verts[i] = f(v)
	}
}

// Solid returns the model as a solid; see ParseOBJ for what it checks and how Dist
// works.
func (m *Model) Solid() (Solid, error) {
	s, err := newMeshSolid(m)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// LoadOBJ reads a triangle mesh from a Wavefront OBJ file as a solid; see ParseOBJ.
func LoadOBJ(path string) (Solid, error) {
	m, err := loadOBJ(path)
	if err != nil {
		return nil, err
	}
	return m.Solid()
}

func loadOBJ(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("terrain: %w", err)
	}
	defer f.Close()
	return ReadOBJ(f, path)
}

// ParseOBJ reads a triangle mesh in Wavefront OBJ format as a solid; name labels
// errors (name:line: what is wrong).
//
// It reads "v x y z" (metres; extra components such as w or a colour are ignored) and
// "f" lines with three or more vertex references of the forms i, i/t, i//n or i/t/n;
// negative indices count back from the latest vertex. Polygons are triangulated as fans.
// Every other statement (vn, vt, o, g, s, usemtl, mtllib, l, ...) and # comments are
// ignored. Vertices at exactly the same position are merged, and triangles that use one
// vertex twice are dropped. A closed mesh (every edge shared by exactly two triangles)
// is solid inside by ray parity; an open one where its generalized winding number is at
// least 1/2 (winding.go; MeshOpenEdges counts its open edges), and one that encloses
// nothing is an error.
//
// Dist is the signed distance: the distance to the nearest triangle (found through a
// bounding volume hierarchy, so 100k-triangle meshes are fine), negative inside. It is
// exact up to 1/16 of the mesh's bounding-box diagonal and reports that length beyond:
// still a Lipschitz bound, and it spares searching most of the mesh for points deep
// inside or far away. Inside is decided by the parity of ray crossings along three fixed
// oblique directions, by majority, so one ray grazing an edge cannot flip the sign; face
// orientation does not matter and nested shells (a hollow) work.
func ParseOBJ(r io.Reader, name string) (Solid, error) {
	m, err := ReadOBJ(r, name)
	if err != nil {
		return nil, err
	}
	return m.Solid()
}

// ReadOBJ reads a Wavefront OBJ file as a Model, with the checks of ParseOBJ that need
// no geometry (syntax, numbers, indices, at least one face); Model.Solid does the rest.
func ReadOBJ(r io.Reader, name string) (*Model, error) {
	var (
		verts   []Vec3
		tris    [][3]int32
		lines   []int32 // line of each triangle's face
		face    []int32
		maxRef  = -1 // the highest 0-based vertex index referenced, checked at the end
		maxLine int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<26)
	for ln := 1; sc.Scan(); ln++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "v":
			if len(fields) < 4 {
				return nil, fmt.Errorf("%s:%d: vertex has %d coordinates, want x y z", name, ln, len(fields)-1)
			}
			var c [3]float64
			for i := range c {
				x, err := strconv.ParseFloat(fields[1+i], 64)
				if err != nil || !finite(x) {
					return nil, fmt.Errorf("%s:%d: vertex coordinate %q is not a finite number", name, ln, fields[1+i])
				}
				c[i] = x
			}
			if len(verts) >= math.MaxInt32 {
				return nil, fmt.Errorf("%s:%d: more than %d vertices", name, ln, math.MaxInt32)
			}
			verts = append(verts, Vec3{c[0], c[1], c[2]})
		case "f":
			if len(fields) < 4 {
				return nil, fmt.Errorf("%s:%d: face has %d vertices, want at least 3", name, ln, len(fields)-1)
			}
			face = face[:0]
			for _, ref := range fields[1:] {
				s, _, _ := strings.Cut(ref, "/")
				n, err := strconv.Atoi(s)
				switch {
				case err != nil:
					return nil, fmt.Errorf("%s:%d: vertex reference %q is not an integer", name, ln, ref)
				case n == 0:
					return nil, fmt.Errorf("%s:%d: vertex index 0: OBJ indices start at 1", name, ln)
				case n < 0:
					if -n > len(verts) {
						return nil, fmt.Errorf("%s:%d: vertex index %d reaches before the first vertex (%d defined so far)", name, ln, n, len(verts))
					}
					n = len(verts) + n
				default:
					if n > math.MaxInt32 {
						return nil, fmt.Errorf("%s:%d: vertex index %d is out of range", name, ln, n)
					}
					n--
					if n > maxRef {
						maxRef, maxLine = n, ln
					}
				}
				face = append(face, int32(n))
			}
			for i := 1; i+1 < len(face); i++ {
				tris = append(tris, [3]int32{face[0], face[i], face[i+1]})
				lines = append(lines, int32(min(ln, math.MaxInt32)))
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: a line is longer than %d bytes", name, 1<<26)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if maxRef >= len(verts) {
		return nil, fmt.Errorf("%s:%d: vertex index %d is out of range: the file has %d vertices", name, maxLine, maxRef+1, len(verts))
	}
	if len(tris) == 0 {
		return nil, fmt.Errorf("%s: no faces: a solid needs a closed triangle mesh", name)
	}
	return &Model{Name: name, Verts: verts, Tris: tris, src: lines, objRefs: true}, nil
}

// meshSolid is a triangle mesh solid; tris are stored in BVH leaf order.
type meshSolid struct {
	tris  []triangle
	nodes []bvhNode
	reach float64 // distances are exact up to reach, and reported as reach beyond
	// openEdges counts the edges not shared by exactly two faces; when there are any,
	// inside and outside come from the winding number (winding.go) over wnodes.
	openEdges int
	wnodes    []windingNode
	flip      bool // the open mesh is wound inside out: inside where -w >= 1/2
	// pseudo are the faces' pseudonormals (pseudonormal.go), in tris' order; nil where
	// inside and outside come from crossing counts.
	pseudo []pseudoNormals
}

type triangle struct{ a, b, c Vec3 }

func newMeshSolid(md *Model) (*meshSolid, error) {
	name, verts, tris := md.Name, md.Verts, md.Tris
	if len(tris) == 0 {
		return nil, fmt.Errorf("%s: no faces: a solid needs a closed triangle mesh", name)
	}
	// Merge vertices at the same position, so meshes written with split vertices (as STL
	// files are) still close.
	id := make([]int32, len(verts))
	first := make([]int32, 0, len(verts)) // original index of each merged vertex
	seen := make(map[Vec3]int32, len(verts))
	for i, v := range verts {
		if v.X == 0 {
			v.X = 0 // -0 and +0 are one position
		}
		if v.Y == 0 {
			v.Y = 0
		}
		if v.Z == 0 {
			v.Z = 0
		}
		j, ok := seen[v]
		if !ok {
			j = int32(len(first))
			seen[v] = j
			first = append(first, int32(i))
		}
		id[i] = j
	}
	// Per undirected edge: the faces using it, the direction they walk it in (+1 from the
	// lower vertex id to the higher, -1 the other way, summed) and its index.
	type use struct{ n, dir, idx int32 }
	edges := make(map[uint64]use, 3*len(tris)/2)
	kept := make([][3]int32, 0, len(tris))
	keptEdges := make([][3]int32, 0, len(tris)) // the edges of kept[k]: ab, bc, ca
	area := 0.0
	for t, tri := range tris {
		for _, i := range tri {
			if !verts[i].IsFinite() {
				return nil, fmt.Errorf("%s: vertex %v is not finite (a scale too large for the model?)", md.where(t), verts[i])
			}
		}
		a, b, c := id[tri[0]], id[tri[1]], id[tri[2]]
		if a == b || b == c || a == c {
			continue
		}
		var fe [3]int32
		for x, e := range [3][2]int32{{a, b}, {b, c}, {c, a}} {
			k := uint64(min(e[0], e[1]))<<32 | uint64(max(e[0], e[1]))
			u, ok := edges[k]
			if !ok {
				u.idx = int32(len(edges))
			}
			u.n++
			if e[0] < e[1] {
				u.dir++
			} else {
				u.dir--
			}
			edges[k] = u
			fe[x] = u.idx
		}
		kept = append(kept, [3]int32{a, b, c})
		keptEdges = append(keptEdges, fe)
		va := verts[tri[0]]
		area += verts[tri[1]].Sub(va).Cross(verts[tri[2]].Sub(va)).Len()
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("%s: no faces with three distinct vertices: a solid needs a closed triangle mesh", name)
	}
	if area == 0 {
		return nil, fmt.Errorf("%s: every face has zero area (its vertices lie on one line): a solid needs a closed triangle mesh", name)
	}
	// Edges not shared by exactly two faces (a hole's rim, or three faces on one edge):
	// such a mesh is inside where its winding number is (winding.go).
	open, consistent := 0, true
	for _, u := range edges {
		if u.n != 2 {
			open++
		}
		consistent = consistent && u.dir == 0
	}
	m := &meshSolid{tris: make([]triangle, len(kept)), openEdges: open}
	for i, t := range kept {
		m.tris[i] = triangle{verts[first[t[0]]], verts[first[t[1]]], verts[first[t[2]]]}
	}
	if open == 0 && consistent {
		m.buildPseudoNormals(kept, keptEdges, len(edges), len(first))
	}
	m.build()
	m.reach = m.nodes[0].hi.Sub(m.nodes[0].lo).Len() / meshReachDiv
	if open > 0 {
		m.buildWinding()
		if err := m.checkEncloses(name); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *meshSolid) Bound() Bound { return Lipschitz }

// meshReachDiv sets how far a mesh's distance is exact: 1/meshReachDiv of its bounding
// box's diagonal. Beyond, the search for the nearest triangle would visit most of the
// mesh (think of the centre of a sphere) to learn a number that no caller needs exactly.
// The search's cost grows with the reach, and a far point's sign costs ray casts unless
// a probe carries it (hints.go): with that, 1/32 made the rock's terrain mesh 14 % and
// its loading (mostly the columns) 18 % quicker than 1/16 (the surface meshes are the
// same bits, the columns' floors move within the root finding's tolerance).
const meshReachDiv = 32

// Dist is the distance to the nearest triangle, negative inside the mesh, capped at
// m.reach: min(d, reach) is still 1-Lipschitz, so it remains a safe step length.
func (m *meshSolid) Dist(p Vec3) float64 {
	d2, k := m.nearest2(p, m.reach*m.reach)
	return m.signed(p, d2, k)
}

// signed is the signed distance at p whose square d2 nearest2 found, at triangle k (-1:
// none within the reach).
func (m *meshSolid) signed(p Vec3, d2 float64, k int32) float64 {
	d := math.Sqrt(d2)
	if m.pseudo != nil && k >= 0 {
		if m.outsideOf(p, k) {
			return d
		}
		return -d
	}
	if m.inside(p) {
		return -d
	}
	return d
}

// bvhNode is a node of the bounding volume hierarchy: an inner node's children are
// nodes first and first+1; a leaf holds tris[first : first+count].
type bvhNode struct {
	lo, hi       Vec3
	first, count int32
}

const bvhLeaf = 4 // triangles per leaf at most, unless their centroids coincide

// build orders m.tris into a BVH by median splits along the longest axis of the
// centroids' bounds: depth about log2(n/bvhLeaf).
func (m *meshSolid) build() {
	n := len(m.tris)
	cent := make([]Vec3, n)
	for i, t := range m.tris {
		cent[i] = t.a.Add(t.b).Add(t.c).Scale(1.0 / 3)
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	m.nodes = make([]bvhNode, 1, 2*n/bvhLeaf+2)
	type job struct{ node, lo, hi int32 }
	stack := []job{{0, 0, int32(n)}}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		clo, chi := cent[order[j.lo]], cent[order[j.lo]]
		for _, i := range order[j.lo:j.hi] {
			clo, chi = vmin(clo, cent[i]), vmax(chi, cent[i])
		}
		ext := chi.Sub(clo)
		axis := 0
		if ext.Y > ext.get(axis) {
			axis = 1
		}
		if ext.Z > ext.get(axis) {
			axis = 2
		}
		if j.hi-j.lo <= bvhLeaf || ext.get(axis) == 0 {
			m.nodes[j.node].first, m.nodes[j.node].count = j.lo, j.hi-j.lo
			continue
		}
		mid := (j.lo + j.hi) / 2
		selectNth(order[j.lo:j.hi], int(mid-j.lo), func(i int32) float64 { return cent[i].get(axis) })
		c := int32(len(m.nodes))
		m.nodes = append(m.nodes, bvhNode{}, bvhNode{})
		m.nodes[j.node].first = c
		stack = append(stack, job{c, j.lo, mid}, job{c + 1, mid, j.hi})
	}
	tris := make([]triangle, n)
	for i, o := range order {
		tris[i] = m.tris[o]
	}
	m.tris = tris
	if m.pseudo != nil {
		pseudo := make([]pseudoNormals, n)
		for i, o := range order {
			pseudo[i] = m.pseudo[o]
		}
		m.pseudo = pseudo
	}
	// Bounds, children before parents: children always come after their parent.
	for i := len(m.nodes) - 1; i >= 0; i-- {
		nd := &m.nodes[i]
		if nd.count > 0 {
			t := m.tris[nd.first]
			nd.lo, nd.hi = vmin(t.a, vmin(t.b, t.c)), vmax(t.a, vmax(t.b, t.c))
			for _, t := range m.tris[nd.first+1 : nd.first+nd.count] {
				nd.lo, nd.hi = vmin(nd.lo, vmin(t.a, vmin(t.b, t.c))), vmax(nd.hi, vmax(t.a, vmax(t.b, t.c)))
			}
		} else {
			l, r := m.nodes[nd.first], m.nodes[nd.first+1]
			nd.lo, nd.hi = vmin(l.lo, r.lo), vmax(l.hi, r.hi)
		}
	}
}

// selectNth reorders s so that s[k] has the k-th smallest key, with no larger key before
// it and no smaller one after it (quickselect).
func selectNth(s []int32, k int, key func(int32) float64) {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// Median of three as the pivot keeps sorted input linear.
		mid := lo + (hi-lo)/2
		if key(s[mid]) < key(s[lo]) {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if key(s[hi]) < key(s[lo]) {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if key(s[hi]) < key(s[mid]) {
			s[hi], s[mid] = s[mid], s[hi]
		}
		pivot := key(s[mid])
		i, j := lo, hi
		for i <= j {
			for key(s[i]) < pivot {
				i++
			}
			for key(s[j]) > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// nearest2 returns the squared distance from p to the nearest triangle and its index,
// or limit and -1 when limit is smaller: nodes at least that far are never visited.
func (m *meshSolid) nearest2(p Vec3, limit float64) (float64, int32) {
	best, bestK := limit, int32(-1)
	// The nodes to visit with their boxes' squared distances, computed once when pushed.
	type visit struct {
		node int32
		d2   float64
	}
	var stack [64]visit
	sp := 0
	stack[sp] = visit{0, boxDist2(p, m.nodes[0].lo, m.nodes[0].hi)}
	sp++
	for sp > 0 {
		sp--
		if stack[sp].d2 >= best {
			continue
		}
		nd := &m.nodes[stack[sp].node]
		if nd.count > 0 {
			for i := nd.first; i < nd.first+nd.count; i++ {
				if d := triDist2(p, &m.tris[i]); d < best {
					best, bestK = d, i
				}
			}
			continue
		}
		// Visit the nearer child first (it goes on top of the stack).
		l, r := nd.first, nd.first+1
		dl, dr := boxDist2(p, m.nodes[l].lo, m.nodes[l].hi), boxDist2(p, m.nodes[r].lo, m.nodes[r].hi)
		if dl < dr {
			l, r, dl, dr = r, l, dr, dl
		}
		if dl < best {
			stack[sp] = visit{l, dl}
			sp++
		}
		if dr < best {
			stack[sp] = visit{r, dr}
			sp++
		}
	}
	return best, bestK
}

func boxDist2(p, lo, hi Vec3) float64 {
	dx := max(lo.X-p.X, 0, p.X-hi.X)
	dy := max(lo.Y-p.Y, 0, p.Y-hi.Y)
	dz := max(lo.Z-p.Z, 0, p.Z-hi.Z)
	return dx*dx + dy*dy + dz*dz
}

// triDist2 returns the squared distance from p to triangle t (+Inf for a degenerate,
// zero-area triangle whose face region triClosest cannot name; its edges are handled).
func triDist2(p Vec3, t *triangle) float64 {
	q, f := triClosest(p, t)
	if f == featNone {
		return math.Inf(1)
	}
	return dist2(p, q)
}

func dist2(p, q Vec3) float64 { d := p.Sub(q); return d.Dot(d) }

// insideDirs are the rays of the inside test: fixed, oblique, far from any axis or
// diagonal, so that no axis-aligned or grid-like mesh feeds them an edge on purpose.
var insideDirs = [3]Vec3{
	Vec3{0.2718281828459045, 0.3141592653589793, 0.9159655941772190}.Unit(),
	Vec3{-0.6180339887498949, 0.5772156649015329, 0.4142135623730950}.Unit(),
	Vec3{0.1234567890123456, -0.7071067811865476, -0.5436563656918090}.Unit(),
}

// inside reports whether p is inside the mesh: two of three rays cross it an odd number
// of times.
func (m *meshSolid) inside(p Vec3) bool {
	if boxDist2(p, m.nodes[0].lo, m.nodes[0].hi) > 0 {
		return false
	}
	if m.openEdges > 0 {
		w := m.winding(p)
		if m.flip {
			w = -w
		}
		return w >= 0.5
	}
	a, b := m.crossings(p, insideDirs[0])&1, m.crossings(p, insideDirs[1])&1
	if a == b {
		return a == 1
	}
	return m.crossings(p, insideDirs[2])&1 == 1
}

// crossings counts the triangles the ray from o along dir passes through.
func (m *meshSolid) crossings(o, dir Vec3) int {
	inv := Vec3{1 / dir.X, 1 / dir.Y, 1 / dir.Z}
	n := 0
	var stack [64]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		nd := &m.nodes[stack[sp]]
		if !rayHitsBox(o, inv, nd.lo, nd.hi) {
			continue
		}
		if nd.count > 0 {
			for i := nd.first; i < nd.first+nd.count; i++ {
				if rayHitsTri(o, dir, &m.tris[i]) {
					n++
				}
			}
			continue
		}
		stack[sp], stack[sp+1] = nd.first, nd.first+1
		sp += 2
	}
	return n
}

// rayHitsBox is the slab test for the ray o + t dir, t >= 0 (inv = 1/dir, all finite).
func rayHitsBox(o, inv, lo, hi Vec3) bool {
	t1, t2 := (lo.X-o.X)*inv.X, (hi.X-o.X)*inv.X
	tmin, tmax := min(t1, t2), max(t1, t2)
	t1, t2 = (lo.Y-o.Y)*inv.Y, (hi.Y-o.Y)*inv.Y
	tmin, tmax = max(tmin, min(t1, t2)), min(tmax, max(t1, t2))
	t1, t2 = (lo.Z-o.Z)*inv.Z, (hi.Z-o.Z)*inv.Z
	tmin, tmax = max(tmin, min(t1, t2)), min(tmax, max(t1, t2))
	return tmax >= max(tmin, 0)
}

// rayHitsTri reports whether the ray o + t dir, t > 0, passes through t
// (Moller-Trumbore).
func rayHitsTri(o, dir Vec3, t *triangle) bool {
	e1, e2 := t.b.Sub(t.a), t.c.Sub(t.a)
	pv := dir.Cross(e2)
	det := e1.Dot(pv)
	if det == 0 {
		return false
	}
	inv := 1 / det
	tv := o.Sub(t.a)
	u := tv.Dot(pv) * inv
	if u < 0 || u > 1 {
		return false
	}
	qv := tv.Cross(e1)
	v := dir.Dot(qv) * inv
	if v < 0 || u+v > 1 {
		return false
	}
	return e2.Dot(qv)*inv > 0
}
