package surface

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

const mm = 1e-3

// iv is a column interval in millimetres with Min = Base.
func iv(base, top float64) terrain.Interval {
	return terrain.Interval{Min: float32(base * mm), Base: float32(base * mm), Max: float32(top * mm)}
}

// grid builds columns from per-cell intervals given row by row, top row (largest y)
// first as printed; dx = 1 mm, domain top 30 mm.
func grid(t testing.TB, nx, ny int, cells ...[]terrain.Interval) *terrain.Columns {
	t.Helper()
	if len(cells) != nx*ny {
		t.Fatalf("grid: %d cells for %dx%d", len(cells), nx, ny)
	}
	ordered := make([][]terrain.Interval, nx*ny)
	for r := range ny {
		y := ny - 1 - r
		for x := range nx {
			ordered[y*nx+x] = cells[r*nx+x]
		}
	}
	layers := 1
	for _, c := range cells {
		layers = max(layers, len(c))
	}
	c, err := terrain.FromIntervals(nx, ny, mm, 30*mm, layers, ordered)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cell is shorthand for a cell's intervals.
func cell(ivs ...terrain.Interval) []terrain.Interval { return ivs }

// floor is a cell with one column from base (mm) to the domain top.
func floor(base float64) []terrain.Interval { return cell(iv(base, 30)) }

// noMeniscus is DefaultSettings without the meniscus (normals straight from heights).
func noMeniscus() Settings {
	s := DefaultSettings()
	s.Meniscus = false
	return s
}

func newBuilder(t testing.TB, c *terrain.Columns, tm *terrain.Mesh, s Settings) *Builder {
	t.Helper()
	b, err := NewBuilder(c, tm, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// heightsMM returns absolute heights from per-column values in mm; a negative value
// means dry (h = b).
func heightsMM(c *terrain.Columns, mmh ...float64) []float32 {
	h := make([]float32, c.NumColumns())
	for i := range h {
		if mmh[i] < 0 {
			h[i] = c.Base[i]
		} else {
			h[i] = float32(mmh[i] * mm)
		}
	}
	return h
}

// col returns the index of column k (0 = lowest) of cell (x, y).
func col(c *terrain.Columns, x, y, k int) int32 {
	lo, hi := c.Cell(x, y)
	if k >= hi-lo {
		panic("no such column")
	}
	return int32(lo + k)
}

// Nodes, in the tests: a column index, or NumColumns + e for extra vertex e.

// linked reports whether nodes i and j are linked (either way, checking symmetry).
func linked(t testing.TB, b *Builder, i, j int32) bool {
	t.Helper()
	vi, vj := b.vertexOfNode(i), b.vertexOfNode(j)
	if vi < 0 || vj < 0 {
		return false
	}
	ij, ji := false, false
	for d := range 8 {
		if b.L(vi, d) == vj {
			ij = true
		}
		if b.L(vj, d) == vi {
			ji = true
		}
	}
	if ij != ji {
		t.Fatalf("link %d-%d is not symmetric: %v / %v", i, j, ij, ji)
	}
	return ij
}

// triangles returns the mesh's triangles as node triples, a contact vertex read as the
// boundary vertex it stands in for (nodeOfVertex): the paper's triangles, which the
// contour clips (contour.go). Of a triangle clipped into two, the half that collapses
// (two corners on one boundary node) is left out: each of the paper's triangles appears
// once. The liquid's sides (sides.go) are left out.
func triangles(b *Builder, m *Mesh) [][3]int32 {
	out := make([][3]int32, 0, b.sideTri/3)
	for t := range b.sideTri / 3 {
		tri := [3]int32{b.nodeOfVertex(int(m.Indices[3*t])), b.nodeOfVertex(int(m.Indices[3*t+1])), b.nodeOfVertex(int(m.Indices[3*t+2]))}
		if tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0] {
			continue
		}
		out = append(out, tri)
	}
	return out
}

// vertexOf returns the output vertex of node, or -1.
func vertexOf(b *Builder, node int32) int {
	for v := range b.numVertices() {
		if b.nodeOfVertex(v) == node {
			return v
		}
	}
	return -1
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// checkMesh checks the invariants every Build result keeps: counts, finite positions,
// unit normals, opacity in [0, 1], indices in range, counter-clockwise from above
// (positive signed area), a wet vertex in every triangle, every triangle's nodes (a
// contact vertex read as the boundary vertex it stands in for) mutually linked and in
// one quartet, and every contact vertex on its link: past its wet vertex, at most at its
// boundary vertex, no higher than the wet vertex, of its opacity; and the liquid's sides
// (checkSides).
func checkMesh(t testing.TB, b *Builder, m *Mesh) {
	t.Helper()
	nv := m.NumVertices()
	if len(m.Normals) != 3*nv || len(m.Opacity) != nv || len(m.Indices)%3 != 0 {
		t.Fatalf("mesh sizes: %d positions, %d normals, %d opacities, %d indices", len(m.Positions), len(m.Normals), len(m.Opacity), len(m.Indices))
	}
	for v := range nv {
		for c := range 3 {
			if x := m.Positions[3*v+c]; math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("vertex %d position %v", v, m.Positions[3*v:3*v+3])
			}
		}
		nx, ny, nz := float64(m.Normals[3*v]), float64(m.Normals[3*v+1]), float64(m.Normals[3*v+2])
		if l := math.Sqrt(nx*nx + ny*ny + nz*nz); !near(l, 1, 1e-5) {
			t.Fatalf("vertex %d normal %v has length %g", v, m.Normals[3*v:3*v+3], l)
		}
		if o := m.Opacity[v]; !(o >= 0 && o <= 1) {
			t.Fatalf("vertex %d opacity %g", v, o)
		}
	}
	for k, slot := range b.ctSlot {
		c, v, w := int(b.nodes)+k, int(slot/8), int(b.lk[slot])
		pos := func(i int) [3]float64 {
			return [3]float64{float64(m.Positions[3*i]), float64(m.Positions[3*i+1]), float64(m.Positions[3*i+2])}
		}
		pc, pv, pw := pos(c), pos(v), pos(w)
		ex, ey := pw[0]-pv[0], pw[1]-pv[1]
		along := ((pc[0]-pv[0])*ex + (pc[1]-pv[1])*ey) / (ex*ex + ey*ey)
		off := math.Abs((pc[0]-pv[0])*ey-(pc[1]-pv[1])*ex) / math.Hypot(ex, ey)
		if !b.isWet(int32(v)) || b.isWet(int32(w)) || along < minContact-1e-6 || along > 1+1e-6 || off > 1e-4*b.dx {
			t.Fatalf("contact vertex %d at %v is not on the link from wet %d %v to boundary %d %v (t %g, %g off)", c, pc, v, pv, w, pw, along, off)
		}
		if pc[2] > pv[2]+1e-9 || m.Opacity[c] != m.Opacity[v] {
			t.Fatalf("contact vertex %d: z %g above its wet vertex's %g, or opacity %g not its %g", c, pc[2], pv[2], m.Opacity[c], m.Opacity[v])
		}
	}
	checkSides(t, b, m)
	for k := range b.sideTri / 3 {
		var tri [3]int32
		wet := false
		for c := range 3 {
			i := m.Indices[3*k+c]
			if i >= uint32(nv) {
				t.Fatalf("triangle %d index %d out of %d", k, i, nv)
			}
			tri[c] = b.nodeOfVertex(int(i))
			wet = wet || b.isWet(int32(i))
		}
		if !wet {
			t.Fatalf("triangle %d %v touches no wet vertex", k, tri)
		}
		for c := range 3 {
			u, v := tri[c], tri[(c+1)%3]
			if u != v && !linked(t, b, u, v) {
				t.Fatalf("triangle %d %v joins unlinked nodes %d and %d", k, tri, u, v)
			}
		}
		p := func(c int) (float64, float64) {
			i := m.Indices[3*k+c]
			return float64(m.Positions[3*i]), float64(m.Positions[3*i+1])
		}
		x0, y0 := p(0)
		x1, y1 := p(1)
		x2, y2 := p(2)
		area := (x1-x0)*(y2-y0) - (x2-x0)*(y1-y0)
		if !(area > 0) {
			t.Fatalf("triangle %d %v is not counter-clockwise from above (2*area %g)", k, tri, area)
		}
		if math.Max(math.Max(x0, x1), x2)-math.Min(math.Min(x0, x1), x2) > 1.01*b.dx ||
			math.Max(math.Max(y0, y1), y2)-math.Min(math.Min(y0, y1), y2) > 1.01*b.dx {
			t.Fatalf("triangle %d %v spans more than a quartet", k, tri)
		}
	}
}

// nodeWet reports whether a node is a wet column.
func nodeWet(b *Builder, node int32) bool {
	return node < int32(b.n) && b.flag[node]&flagWet != 0
}

// nodeCell returns the cell of a node (the wall's for an extra vertex).
func nodeCell(b *Builder, node int32) (int32, int32) {
	if node >= int32(b.n) {
		node = b.extraCol[node-int32(b.n)]
	}
	return b.cellOf(node)
}

// nodeZ returns the surface height of a node that is a vertex.
func nodeZ(b *Builder, node int32) float32 { return b.zv[b.vertexOfNode(node)] }

// checkSides checks the liquid's sides (sides.go): their vertices come after the
// surface's and their triangles after its triangles; every side vertex lies in the plane
// of a side of the domain; every side triangle is either a strip, counter-clockwise from
// above, or a face in a side's plane, facing out (its normal along the side's outward
// normal; a face whose stopping point stands on the floor may be a sliver of no area);
// SideTop is the highest surface vertex of the border cells on each side.
func checkSides(t testing.TB, b *Builder, m *Mesh) {
	t.Helper()
	if int(b.sideStart) != int(b.nodes)+len(b.ctSlot) || b.sideTri > len(m.Indices) {
		t.Fatalf("sides start at vertex %d and index %d; want %d and at most %d", b.sideStart, b.sideTri, int(b.nodes)+len(b.ctSlot), len(m.Indices))
	}
	sx, sy := float64(b.nx)*b.dx, float64(b.ny)*b.dx
	plane := func(v uint32) (int, bool) {
		x, y := float64(m.Positions[3*v]), float64(m.Positions[3*v+1])
		for s, on := range [4]bool{x == 0, near(x, sx, 1e-9), y == 0, near(y, sy, 1e-9)} {
			if on {
				return s, true
			}
		}
		return 0, false
	}
	for v := b.sideStart; int(v) < m.NumVertices(); v++ {
		if _, ok := plane(uint32(v)); !ok {
			t.Fatalf("side vertex %d at %v lies on no side of the domain", v, m.Positions[3*v:3*v+3])
		}
	}
	if m.SideIndex[0] != b.sideTri || m.SideIndex[4] != len(m.Indices) {
		t.Fatalf("SideIndex %v: want %d first and %d last", m.SideIndex, b.sideTri, len(m.Indices))
	}
	for k := b.sideTri / 3; k < len(m.Indices)/3; k++ {
		tri := m.Indices[3*k : 3*k+3]
		side := 0
		for side < 3 && 3*k >= m.SideIndex[side+1] {
			side++
		}
		for _, v := range tri {
			if s, _ := plane(v); int32(v) >= b.sideStart && s != side {
				t.Fatalf("triangle %d %v in side %d's range has vertex %d on side %d", k, tri, side, v, s)
			}
		}
		var p [3][3]float64
		for c := range 3 {
			for a := range 3 {
				p[c][a] = float64(m.Positions[3*tri[c]+uint32(a)])
			}
		}
		e1 := [3]float64{p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]}
		e2 := [3]float64{p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		if n[2] > 0 {
			continue // a strip
		}
		s0, ok0 := plane(tri[0])
		s1, ok1 := plane(tri[1])
		s2, ok2 := plane(tri[2])
		if !ok0 || !ok1 || !ok2 || s0 != s1 || s1 != s2 {
			t.Fatalf("side triangle %d %v is no strip (2*area from above %g) and not in one side's plane", k, tri, n[2])
		}
		out := sideNormals[s0]
		if dot := n[0]*float64(out[0]) + n[1]*float64(out[1]); dot < -1e-18 || n[2] < -1e-18 {
			t.Fatalf("side face %d %v on side %d faces in (normal %v)", k, tri, s0, n)
		}
	}
	var top [4]float32
	for s := range top {
		top[s] = float32(math.Inf(-1))
	}
	if b.s.Sides {
		for v := range b.nWet() {
			x, y := b.vcell(v)
			for s, on := range [4]bool{x == 0, x == int32(b.nx-1), y == 0, y == int32(b.ny-1)} {
				if on {
					top[s] = max(top[s], b.zv[v])
				}
			}
		}
	}
	if m.SideTop != top {
		t.Fatalf("SideTop %v, want %v", m.SideTop, top)
	}
}
