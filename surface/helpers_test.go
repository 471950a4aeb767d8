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

// triangles returns the mesh's triangles as node triples.
func triangles(b *Builder, m *Mesh) [][3]int32 {
	out := make([][3]int32, 0, m.NumTriangles())
	for t := range m.NumTriangles() {
		out = append(out, [3]int32{b.nodeOfVertex(int(m.Indices[3*t])), b.nodeOfVertex(int(m.Indices[3*t+1])), b.nodeOfVertex(int(m.Indices[3*t+2]))})
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
// (non-negative signed area), a wet vertex in every triangle, every triangle's nodes
// mutually linked and in one quartet.
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
	for k, tri := range triangles(b, m) {
		for c := range 3 {
			if m.Indices[3*k+c] >= uint32(nv) {
				t.Fatalf("triangle %d index %d out of %d", k, m.Indices[3*k+c], nv)
			}
		}
		if !nodeWet(b, tri[0]) && !nodeWet(b, tri[1]) && !nodeWet(b, tri[2]) {
			t.Fatalf("triangle %d %v touches no wet vertex", k, tri)
		}
		for c := range 3 {
			u, v := tri[c], tri[(c+1)%3]
			if !linked(t, b, u, v) {
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
