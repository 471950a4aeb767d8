package terrain

import (
	"fmt"
	"math"
	"runtime"
)

// Mesh is an indexed triangle mesh.
type Mesh struct {
	Positions []float32 // xyz triples, m
	Normals   []float32 // xyz triples, unit, pointing out of the solid (into free space)
	Indices   []uint32  // triangles, counter-clockwise seen from outside the solid
}

// NumVertices returns the number of vertices.
func (m *Mesh) NumVertices() int { return len(m.Positions) / 3 }

// NumTriangles returns the number of triangles.
func (m *Mesh) NumTriangles() int { return len(m.Indices) / 3 }

// mcColumnBytes is the marching-cubes workspace per lattice column: two layers of
// values, flags and edge vertices, the vertical edges, the tracing state, and the
// column's solid intervals (two, as on a floor under one overhang) with their index.
const mcColumnBytes = 2*(8+1+1+4+4) + 4 + 4 + 8 + 3*4 + 2*16

// SurfaceMesh returns the terrain's surface by marching cubes of s over domain d.
//
// What is meshed is the terrain as the simulation sees it, closed into a diorama: the
// solid joined with a floor slab from z = -dx to z = 0 (the domain floor, so it shows
// where no solid covers it), cut to the box [0, Nx*dx] x [0, Ny*dx] x [-dx, Height].
// The mesh is closed (every edge shared by exactly two triangles) and consistently
// wound; it has flat walls where the solid meets the domain's sides and a flat cap at
// Height where it reaches the top.
//
// The lattice points are the cell centres horizontally and (k+0.5)*dx vertically: the
// points inside that box, where s.Dist is evaluated (never outside the domain), plus a
// ring of points outside it that count as free space. A vertex lies on each lattice edge
// the surface crosses, shared by the triangles that use it: inside the box by linear
// interpolation of Dist, with a normal from its gradient (four evaluations at the
// corners of a small tetrahedron); on an edge leaving the box exactly on the box, with
// the box face's normal. Where the surface passes exactly through a lattice point,
// triangles of zero area can occur. Where s lists its solid intervals along vertical
// lines (see Extract), the lattice points' signs come from the intervals of their
// column, and Dist is evaluated only at the points next to a change of sign. Otherwise,
// when s has a VerticalBound or better, lattice points far from the surface are not
// evaluated: their sign follows from the last value in their column. Either way the mesh
// is the one evaluating every point gives, bit for bit, but for points within rounding
// of the surface. Rows of the lattice that are free, or solid all along the box, together
// with their neighbours are skipped by the search for the surface.
//
// Errors: an invalid domain, a lattice too large for memory, a NaN distance or a panic
// in s.Dist (naming the point). Work is spread over runtime.GOMAXPROCS goroutines; the
// mesh does not depend on their number.
func SurfaceMesh(s Solid, d Domain) (*Mesh, error) {
	return surfaceMesh(s, d, runtime.GOMAXPROCS(0), true)
}

// floorField is the field SurfaceMesh meshes inside the domain: s joined with the floor
// half-space z <= 0, s being read at heights clamped to [0, height].
type floorField struct {
	s      Solid
	height float64
}

func (f floorField) Dist(p Vec3) float64 {
	return min(f.s.Dist(Vec3{p.X, p.Y, min(max(p.Z, 0), f.height)}), p.Z)
}

func (f floorField) Bound() Bound { return BoundOf(f.s) }

// mcLayer is one horizontal layer of lattice points.
type mcLayer struct {
	val   []float64 // field value; exact only where exact is set
	solid []bool    // val <= 0; false outside the box
	exact []bool    // val was evaluated, not inferred from a bound; true outside the box
	xe    []int32   // vertex on the x edge starting at the point; -1 if none yet
	ye    []int32   // vertex on the y edge starting at the point; -1 if none yet
	// rowSolid counts, per lattice row j, the solid points inside the box (0: the row is
	// free; nx: solid all along the box). exact and triangulate skip the rows the surface
	// cannot cross, most of the lattice: the surface is a thin sheet in a 3-D lattice.
	rowSolid []int32
}

func newMCLayer(nX, nY int) *mcLayer {
	n := nX * nY
	return &mcLayer{make([]float64, n), make([]bool, n), make([]bool, n), make([]int32, n), make([]int32, n), make([]int32, nY)}
}

// marcher holds the state of one SurfaceMesh call. Lattice point (i, j, k) lies at
// ((i-0.5) dx, (j-0.5) dx, (k-1.5) dx); it is inside the box for 1 <= i <= nx,
// 1 <= j <= ny and 1 <= k <= kTop, outside (free, never evaluated) otherwise.
type marcher struct {
	f          floorField
	nx, ny     int
	nX, nY, nZ int // lattice points along each axis, the outside ring included
	kTop       int // the highest layer at or below the domain top
	dx, height float64
	skip       bool // infer signs (from the solid's intervals, or its bound) where they settle them
	workers    int
	probes     []probe   // one per worker
	lastK      []int32   // per lattice column: the latest evaluated layer, -1 if none
	lastV      []float64 // and its value
	ze         []int32   // vertex on the z edge from each point of the lower layer
	off        [8]int    // corner c of a cube is point cube+off[c] of layer c>>2

	// Where the solid lists its intervals along lines (canAlong), the signs come from
	// them: lines lists each lattice column's solid intervals in [0, height] (row j's on
	// lineRows[j], column idx's from lineOff[idx], lineCnt[idx] of them; -1: that line is
	// ambiguous and evaluated point by point), lineCur the first not below the layer.
	along    bool
	liners   []liner // one per worker
	lineRows [][]span
	lineOff  []int32
	lineCnt  []int32
	lineCur  []int32

	pos      []float64 // vertex positions (float64 until the normals are done)
	nrm      []float32 // vertex normals; zero until computed for vertices inside the box
	interior []uint32  // vertices whose normal comes from the gradient
	tris     []uint32
}

func surfaceMesh(s Solid, d Domain, workers int, skip bool) (*Mesh, error) {
	if s == nil {
		return nil, fmt.Errorf("terrain: surface mesh: solid is nil")
	}
	nx, ny, err := grid(d)
	if err != nil {
		return nil, err
	}
	if d.Height/d.Dx > maxAxisCells {
		return nil, fmt.Errorf("terrain: the domain is %.3g cells tall: at most %d", d.Height/d.Dx, maxAxisCells)
	}
	m := &marcher{f: floorField{s, d.Height}, nx: nx, ny: ny, nX: nx + 2, nY: ny + 2, dx: d.Dx, height: d.Height}
	m.kTop = int(d.Height/d.Dx + 1.5)
	for m.z(m.kTop) > d.Height {
		m.kTop--
	}
	for m.z(m.kTop+1) <= d.Height {
		m.kTop++
	}
	m.nZ = m.kTop + 2
	plane := m.nX * m.nY
	if err := checkBytes(fmt.Sprintf("a surface mesh of a %d x %d x %d lattice", m.nX, m.nY, m.nZ), mulSat(uint64(plane), mcColumnBytes)); err != nil {
		return nil, err
	}
	m.skip = skip && BoundOf(s) >= VerticalBound
	m.workers = max(1, min(workers, m.nY))
	m.probes = make([]probe, m.workers)
	for w := range m.probes {
		m.probes[w].s = m.f
	}
	m.lastK, m.lastV, m.ze = make([]int32, plane), make([]float64, plane), make([]int32, plane)
	if m.along = skip && canAlong(s); m.along {
		if err := m.lines(); err != nil {
			return nil, fmt.Errorf("terrain: surface mesh: %w", err)
		}
	}
	for i := range m.lastK {
		m.lastK[i] = -1
	}
	for c := range m.off {
		m.off[c] = (c>>1&1)*m.nX + c&1
	}
	// Room for the vertices of a surface twice the floor's area plus the box's four
	// walls (a vertex a cell each), and two triangles a vertex, so that appending rarely
	// copies: the copies of slices grown from empty, and the fresh pages they touch, took
	// a third of the paper scene's mesh (135,800 vertices for 40,000 cells; the estimate
	// is 161,600). Capacity not used is never touched.
	est := 2*nx*ny + 2*(nx+ny)*m.nZ
	m.pos, m.nrm = make([]float64, 0, 3*est), make([]float32, 0, 3*est)
	m.interior, m.tris = make([]uint32, 0, est), make([]uint32, 0, 6*est)
	if err := m.run(); err != nil {
		return nil, fmt.Errorf("terrain: surface mesh: %w", err)
	}
	out := &Mesh{Positions: make([]float32, len(m.pos)), Normals: m.nrm, Indices: m.tris}
	for i, v := range m.pos {
		out.Positions[i] = float32(v)
	}
	return out, nil
}

func (m *marcher) z(k int) float64 { return (float64(k) - 1.5) * m.dx }

func (m *marcher) at(i, j, k int) Vec3 {
	return Vec3{(float64(i) - 0.5) * m.dx, (float64(j) - 0.5) * m.dx, m.z(k)}
}

func (m *marcher) inside(i, j, k int) bool {
	return i >= 1 && i <= m.nx && j >= 1 && j <= m.ny && k >= 1 && k <= m.kTop
}

// run sweeps the lattice layer by layer, keeping two layers of points.
func (m *marcher) run() error {
	a, b := newMCLayer(m.nX, m.nY), newMCLayer(m.nX, m.nY)
	if err := m.fill(a, 0); err != nil {
		return err
	}
	for k := 0; k+1 < m.nZ; k++ {
		if err := m.fill(b, k+1); err != nil {
			return err
		}
		if err := m.exact(a, b, k); err != nil {
			return err
		}
		if err := m.triangulate(a, b, k); err != nil {
			return err
		}
		a, b = b, a
	}
	return m.normals()
}

// eval evaluates point (i, j, k) into layer L. setSign also records its sign: fill does;
// exact does not, since the sign there is settled already and neighbouring rows read it
// concurrently (writing the same value back would still be a data race).
func (m *marcher) eval(pr *probe, L *mcLayer, idx, i, j, k int, setSign bool) error {
	v, err := pr.dist(m.at(i, j, k))
	if err != nil {
		return err
	}
	L.val[idx], L.exact[idx] = v, true
	if setSign {
		L.solid[idx] = v <= 0
	}
	if int32(k) > m.lastK[idx] {
		m.lastK[idx], m.lastV[idx] = int32(k), v
	}
	return nil
}

// fill sets the signs of layer k: free outside the box; inside, from the column's
// latest value where the bound settles the sign, by evaluation elsewhere.
func (m *marcher) fill(L *mcLayer, k int) error {
	margin := m.dx / 16
	return forRows(m.nY, m.workers, func(w, j int) (err error) {
		pr := &m.probes[w]
		defer pr.catch(&err)
		L.rowSolid[j] = 0
		for i := range m.nX {
			idx := j*m.nX + i
			L.xe[idx], L.ye[idx] = -1, -1
			if !m.inside(i, j, k) {
				L.val[idx], L.solid[idx], L.exact[idx] = 0, false, true
				continue
			}
			if m.along && m.lineCnt[idx] >= 0 {
				solid := m.lineSolid(idx, j, m.z(k))
				L.val[idx], L.solid[idx], L.exact[idx] = 0, solid, false
				if solid {
					L.rowSolid[j]++
				}
				continue
			}
			if lk := m.lastK[idx]; m.skip && lk >= 0 {
				if v := m.lastV[idx]; math.Abs(v)-float64(k-int(lk))*m.dx > margin {
					L.val[idx], L.solid[idx], L.exact[idx] = v, v <= 0, false
					if v <= 0 {
						L.rowSolid[j]++
					}
					continue
				}
			}
			if err := m.eval(pr, L, idx, i, j, k, true); err != nil {
				return err
			}
			if L.solid[idx] {
				L.rowSolid[j]++
			}
		}
		return nil
	})
}

// lines lists the solid intervals of every lattice column inside the box (along).
func (m *marcher) lines() error {
	plane := m.nX * m.nY
	m.liners = make([]liner, m.workers)
	m.lineRows = make([][]span, m.nY)
	m.lineOff, m.lineCnt, m.lineCur = make([]int32, plane), make([]int32, plane), make([]int32, plane)
	return forRows(m.ny, m.workers, func(w, row int) (err error) {
		j := row + 1
		pr, l := &m.probes[w], &m.liners[w]
		defer pr.catch(&err)
		var out []span
		for i := 1; i <= m.nx; i++ {
			idx, p := j*m.nX+i, m.at(i, j, 1)
			pr.last = Vec3{p.X, p.Y, 0}
			l.buf = l.buf[:0]
			switch _, err := l.alongLine(m.f.s, line{Vec3{p.X, p.Y, 0}, Vec3{0, 0, 1}}, 0, m.height); err {
			case nil:
				m.lineOff[idx], m.lineCnt[idx] = int32(len(out)), int32(len(l.buf))
				out = append(out, l.buf...)
			case errAmbiguous:
				m.lineCnt[idx] = -1
			default:
				return err // a NaN heightfield, which the message places
			}
		}
		m.lineRows[j] = out
		return nil
	})
}

// lineSolid tells whether the field is solid at height z on column idx of row j: below
// the floor, or in one of the solid's intervals. Layers come in increasing order, so
// each column's cursor only moves up.
func (m *marcher) lineSolid(idx, j int, z float64) bool {
	if z <= 0 {
		return true
	}
	sp := m.lineRows[j][m.lineOff[idx] : m.lineOff[idx]+m.lineCnt[idx]]
	c := m.lineCur[idx]
	for int(c) < len(sp) && sp[c].hi < z {
		c++
	}
	m.lineCur[idx] = c
	return int(c) < len(sp) && sp[c].lo <= z
}

// exact evaluates the points of layers a (k) and b (k+1) that end a lattice edge
// crossing the surface inside the box: interpolation needs their values. Signs stay.
func (m *marcher) exact(a, b *mcLayer, k int) error {
	return forRows(m.nY, m.workers, func(w, j int) (err error) {
		pr := &m.probes[w]
		defer pr.catch(&err)
		skipA, skipB := m.uniformAround(a, b, j, k+1), m.uniformAround(b, a, j, k)
		if skipA && skipB {
			return nil
		}
		for i := range m.nX {
			idx := j*m.nX + i
			for l, L := range [2]*mcLayer{a, b} {
				if l == 0 && skipA || l == 1 && skipB {
					continue
				}
				if L.exact[idx] {
					continue // evaluated, or outside the box
				}
				other, ko := b, k+1
				if l == 1 {
					other, ko = a, k
				}
				s := L.solid[idx]
				if m.inside(i, j, ko) && other.solid[idx] != s ||
					i > 1 && L.solid[idx-1] != s || i < m.nx && L.solid[idx+1] != s ||
					j > 1 && L.solid[idx-m.nX] != s || j < m.ny && L.solid[idx+m.nX] != s {
					if err := m.eval(pr, L, idx, i, j, k+l, false); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

// uniformAround tells whether no point of row j of layer L inside the box has a
// neighbour of the other sign that exact looks at: the row is free or solid all along
// the box, and so are its neighbouring rows inside the box and row j of layer other
// (layer ko), where ko is inside the box. Rows outside the box have no points to
// evaluate.
func (m *marcher) uniformAround(L, other *mcLayer, j, ko int) bool {
	if j < 1 || j > m.ny {
		return true
	}
	s := L.rowSolid[j]
	if s != 0 && s != int32(m.nx) {
		return false
	}
	if j > 1 && L.rowSolid[j-1] != s || j < m.ny && L.rowSolid[j+1] != s {
		return false
	}
	return ko < 1 || ko > m.kTop || other.rowSolid[j] == s
}

// triangulate emits the triangles of the cubes between layers k and k+1. A row of cubes
// whose four rows of corners are free has none; one whose corners inside the box are all
// solid has only its two end cubes, which reach the free points outside the box.
func (m *marcher) triangulate(a, b *mcLayer, k int) error {
	for i := range m.ze {
		m.ze[i] = -1
	}
	layers := [2]*mcLayer{a, b}
	full := int32(m.nx)
	for j := 0; j+1 < m.nY; j++ {
		r0, r1, r2, r3 := a.rowSolid[j], a.rowSolid[j+1], b.rowSolid[j], b.rowSolid[j+1]
		if r0|r1|r2|r3 == 0 {
			continue
		}
		step := 1
		if r0 == full && r1 == full && r2 == full && r3 == full {
			step = m.nX - 2 // cubes 0 and nX-2
		}
		for i := 0; i+1 < m.nX; i += step {
			cube := j*m.nX + i
			cfg := 0
			for c := range 8 {
				if layers[c>>2].solid[cube+m.off[c]] {
					cfg |= 1 << c
				}
			}
			for _, e := range mcCases[cfg] {
				c0 := int(mcEdgeCorners[e][0])
				idx0 := cube + m.off[c0]
				var slot *int32
				switch e / 4 {
				case 0:
					slot = &layers[c0>>2].xe[idx0]
				case 1:
					slot = &layers[c0>>2].ye[idx0]
				default:
					slot = &m.ze[idx0]
				}
				if *slot < 0 {
					v, err := m.vertex(layers, int(e), i, j, k, cube)
					if err != nil {
						return err
					}
					*slot = v
				}
				m.tris = append(m.tris, uint32(*slot))
			}
		}
	}
	return nil
}

// vertex adds the vertex on edge e of the cube at (i, j, k) and returns its index.
func (m *marcher) vertex(layers [2]*mcLayer, e, i, j, k, cube int) (int32, error) {
	n := len(m.pos) / 3
	if n >= math.MaxInt32 {
		return 0, fmt.Errorf("more than %d vertices", math.MaxInt32)
	}
	c0, c1 := int(mcEdgeCorners[e][0]), int(mcEdgeCorners[e][1])
	i0, j0, k0 := i+c0&1, j+c0>>1&1, k+c0>>2
	i1, j1, k1 := i+c1&1, j+c1>>1&1, k+c1>>2
	in0, in1 := m.inside(i0, j0, k0), m.inside(i1, j1, k1)
	axis := e / 4
	var t float64
	var nrm [3]float32
	switch {
	case in0 && in1:
		t = edgeFraction(layers[c0>>2].val[cube+m.off[c0]], layers[c1>>2].val[cube+m.off[c1]])
		m.interior = append(m.interior, uint32(n))
	case in1: // the edge enters the box: the box's low face, halfway along it
		t, nrm[axis] = 0.5, -1
	default: // the edge leaves the box: its high face
		t, nrm[axis] = 0.5, 1
		if axis == 2 {
			t = min(max((m.height-m.z(k0))/m.dx, 0), 1)
		}
	}
	p := m.at(i0, j0, k0)
	switch axis {
	case 0:
		p.X += t * m.dx
	case 1:
		p.Y += t * m.dx
	default:
		p.Z += t * m.dx
	}
	m.pos = append(m.pos, p.X, p.Y, p.Z)
	m.nrm = append(m.nrm, nrm[0], nrm[1], nrm[2])
	return int32(n), nil
}

// edgeFraction is where along an edge the field crosses zero, from its end values a and
// b of opposite signs; clamped, in case a solid breaks its declared bound.
func edgeFraction(a, b float64) float64 {
	if a == b {
		return 0.5
	}
	return min(max(a/(a-b), 0), 1)
}

// tetrahedron are the corners of a regular tetrahedron centred on the origin: the
// gradient of f at p is, to second order, sum_k k f(p + h k) / (4 h/3), four
// evaluations where central differences take six. Only its direction is used.
var tetrahedron = [4]Vec3{{1, -1, -1}, {-1, -1, 1}, {-1, 1, -1}, {1, 1, 1}}

// normals sets the normals of the vertices inside the box to the unit gradient of the
// field (the tetrahedron's differences, step dx/1000). Where the gradient vanishes (a symmetric
// kink) it falls back to the area-weighted normals of the vertex's triangles, then +z.
func (m *marcher) normals() error {
	h := m.dx * 1e-3
	const chunk = 1024
	n := len(m.interior)
	err := forRows((n+chunk-1)/chunk, m.workers, func(w, c int) (err error) {
		pr := &m.probes[w]
		defer pr.catch(&err)
		for _, v := range m.interior[c*chunk : min(n, (c+1)*chunk)] {
			p := Vec3{m.pos[3*v], m.pos[3*v+1], m.pos[3*v+2]}
			var g Vec3
			for _, k := range tetrahedron {
				d, err := pr.dist(p.Add(k.Scale(h)))
				if err != nil {
					return err
				}
				g = g.Add(k.Scale(d))
			}
			u := g.Unit()
			if !u.IsFinite() {
				u = Vec3{} // an infinite distance: fall back below
			}
			m.nrm[3*v], m.nrm[3*v+1], m.nrm[3*v+2] = float32(u.X), float32(u.Y), float32(u.Z)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var acc map[uint32]Vec3 // face normals summed at the vertices that need them
	zero := func(v uint32) bool { return m.nrm[3*v] == 0 && m.nrm[3*v+1] == 0 && m.nrm[3*v+2] == 0 }
	for _, v := range m.interior {
		if zero(v) {
			if acc == nil {
				acc = make(map[uint32]Vec3)
			}
			acc[v] = Vec3{}
		}
	}
	if acc == nil {
		return nil
	}
	pos := func(v uint32) Vec3 { return Vec3{m.pos[3*v], m.pos[3*v+1], m.pos[3*v+2]} }
	for t := 0; t+2 < len(m.tris); t += 3 {
		a, b, c := m.tris[t], m.tris[t+1], m.tris[t+2]
		fn := pos(b).Sub(pos(a)).Cross(pos(c).Sub(pos(a)))
		for _, v := range [3]uint32{a, b, c} {
			if s, ok := acc[v]; ok {
				acc[v] = s.Add(fn)
			}
		}
	}
	for v, s := range acc {
		u := s.Unit()
		if u == (Vec3{}) {
			u.Z = 1
		}
		m.nrm[3*v], m.nrm[3*v+1], m.nrm[3*v+2] = float32(u.X), float32(u.Y), float32(u.Z)
	}
	return nil
}
