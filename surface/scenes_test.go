package surface

import (
	"math"
	"slices"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// solid unwraps a solid constructor's result; the scenes' arguments are constants, so an
// error is a bug in the test.
func solid(s terrain.Solid, err error) terrain.Solid {
	if err != nil {
		panic(err)
	}
	return s
}

// extract returns the columns and the terrain mesh of solid s over an n x n domain.
func extract(t testing.TB, s terrain.Solid, n int, dx, height float64, layers int) (*terrain.Columns, *terrain.Mesh) {
	t.Helper()
	d := terrain.Domain{SizeX: float64(n) * dx, SizeY: float64(n) * dx, Height: height, Dx: dx}
	c, err := terrain.Extract(s, d, layers)
	if err != nil {
		t.Fatal(err)
	}
	m, err := terrain.SurfaceMesh(s, d)
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

// bowlScene is a block with a spherical bowl carved in it (n x n cells), and a lake at
// 40% of the rim height: heights clipped to each column's [Base, Max], dry elsewhere.
func bowlScene(t testing.TB, n int, dx float64) (*terrain.Columns, *terrain.Mesh, []float32) {
	w := float64(n) * dx
	block := solid(terrain.Box(terrain.Vec3{X: -w, Y: -w, Z: -1}, terrain.Vec3{X: 2 * w, Y: 2 * w, Z: 0.4 * w}))
	ball := solid(terrain.Sphere(terrain.Vec3{X: 0.5 * w, Y: 0.5 * w, Z: 0.5 * w}, 0.45*w))
	bowl := solid(terrain.Difference(block, ball))
	c, m := extract(t, bowl, n, dx, 0.6*w, 1)
	return c, m, lake(c, float32(0.05*w+0.4*0.35*w), nil)
}

// lake sets every column whose base lies below level to the level (clipped to its max)
// and leaves the others dry; extra, when not nil, adds a depth by position and base.
func lake(c *terrain.Columns, level float32, extra func(x, y float64, base float32) float32) []float32 {
	h := make([]float32, c.NumColumns())
	for y := range c.Ny {
		for x := range c.Nx {
			lo, hi := c.Cell(x, y)
			px, py := c.CellCentre(x, y)
			for i := lo; i < hi; i++ {
				h[i] = c.Base[i]
				if c.Base[i] < level {
					h[i] = min(level, c.Max[i])
				}
				if extra != nil {
					if d := extra(px, py, c.Base[i]); d > 0 && h[i] == c.Base[i] {
						h[i] = min(c.Base[i]+d, c.Max[i])
					}
				}
			}
		}
	}
	return h
}

// blob is a paraboloid puddle of the given depth and radius centred at (cx, cy), on the
// columns whose base lies in [b0, b1].
func blob(cx, cy, r, depth float64, b0, b1 float32) func(x, y float64, base float32) float32 {
	return func(x, y float64, base float32) float32 {
		if base < b0 || base > b1 {
			return 0
		}
		q := ((x-cx)*(x-cx) + (y-cy)*(y-cy)) / (r * r)
		return float32(depth * (1 - q))
	}
}

// layersScene is a floor tilted along x (from 2 mm, slope 0.03) under pierced slabs at
// 8-10 mm, 16-18 mm (and, for five layers, 24-26 and 32-34 mm) and a pillar from the
// floor through the first slab, over an n x n domain (horizontal features scale with
// it, heights do not): cells have 1 to layers columns, with overhangs and openings
// between layers. Heights: a lake over the lower half of the floor (under the slabs and
// around the pillar), a puddle on every slab.
func layersScene(t testing.TB, n int, dx float64, layers int) (*terrain.Columns, *terrain.Mesh, []float32) {
	w := float64(n) * dx
	floorPlane := solid(terrain.Plane(terrain.Vec3{X: 0, Y: 0, Z: 0.002}, terrain.Vec3{X: -math.Sin(0.03), Y: 0, Z: math.Cos(0.03)})) // z = 2 mm + x tan 0.03
	solids := []terrain.Solid{floorPlane}
	var puddles []func(x, y float64, base float32) float32
	for s := range layers - 1 {
		z0 := 0.008 + 0.008*float64(s)
		slab := solid(terrain.Box(terrain.Vec3{X: -1, Y: -1, Z: z0}, terrain.Vec3{X: 1, Y: 1, Z: z0 + 0.002}))
		hx, hy := w*(0.3+0.4*float64(s%2)), w*(0.3+0.35*float64(s/2%2))
		hole := solid(terrain.Cylinder(terrain.Vec3{X: hx, Y: hy, Z: 0}, terrain.Vec3{X: 0, Y: 0, Z: 1}, 0.13*w, 1))
		band := solid(terrain.Box(terrain.Vec3{X: -1, Y: w * (0.1 + 0.2*float64(s)), Z: 0}, terrain.Vec3{X: w * 0.3, Y: w * (0.16 + 0.2*float64(s)), Z: 1}))
		solids = append(solids, solid(terrain.Difference(slab, solid(terrain.Union(hole, band)))))
		top := float32(z0 + 0.002)
		puddles = append(puddles, blob(w*(0.7-0.4*float64(s%2)), w*(0.35+0.3*float64(s%2)), 0.2*w, 0.0015, top-float32(0.5*dx), top+float32(0.5*dx)))
	}
	// A pillar from the floor through the first slab: the lake under the slab faces its
	// wall above their ceiling (extra vertices).
	solids = append(solids, solid(terrain.Box(terrain.Vec3{X: 0.3 * w, Y: 0.5 * w, Z: -1}, terrain.Vec3{X: 0.36 * w, Y: 0.58 * w, Z: 0.013})))
	all := solid(terrain.Union(solids...))
	c, m := extract(t, all, n, dx, 0.008*float64(layers)+0.006, layers)
	// The lake covers the lower half of the floor (x < w/2).
	h := lake(c, float32(0.002+0.5*w*math.Tan(0.03)), func(x, y float64, base float32) float32 {
		d := float32(0)
		for _, p := range puddles {
			d = max(d, p(x, y, base))
		}
		return d
	})
	return c, m, h
}

// ref is an independent statement of the link rule for columns, from the definition.
type ref struct {
	c    *terrain.Columns
	h    []float32
	wet  []bool
	cell []int // cell index of each column
}

func newRef(c *terrain.Columns, h []float32) *ref {
	r := &ref{c: c, h: make([]float32, len(h)), wet: make([]bool, len(h)), cell: make([]int, len(h))}
	for k := range c.Nx * c.Ny {
		for i := c.CellStart[k]; i < c.CellStart[k+1]; i++ {
			r.cell[i] = k
		}
	}
	for i := range h {
		r.wet[i] = h[i] > c.Base[i]
		r.h[i] = c.Base[i]
		if r.wet[i] {
			r.h[i] = min(h[i], c.Max[i])
		}
	}
	return r
}

// cellOf returns the cell of column i.
func (r *ref) cellOf(i int) (int, int) {
	return r.cell[i] % r.c.Nx, r.cell[i] / r.c.Nx
}

// lo is the bottom of a column's link range: the top of the column below it in its cell,
// or -infinity for the lowest.
func (r *ref) lo(i int) float32 {
	x, y := r.cellOf(i)
	if lo, _ := r.c.Cell(x, y); i == lo {
		return float32(math.Inf(-1))
	}
	return r.c.Max[i-1]
}

func (r *ref) test(i, j int) bool {
	return r.lo(j) < r.h[i] && r.h[i] < r.c.Max[j] && r.lo(i) < r.h[j] && r.h[j] < r.c.Max[i]
}

// neighbours returns the columns of the 8 cells around column i's cell.
func (r *ref) neighbours(i int) []int {
	x, y := r.cellOf(i)
	var out []int
	for d := range 8 {
		nx, ny := x+int(dirX[d]), y+int(dirY[d])
		if nx < 0 || ny < 0 || nx >= r.c.Nx || ny >= r.c.Ny {
			continue
		}
		lo, hi := r.c.Cell(nx, ny)
		for j := lo; j < hi; j++ {
			out = append(out, j)
		}
	}
	return out
}

// wetLinked: i and j are in neighbouring cells, one at least wet, and pass the test.
func (r *ref) wetLinked(i, j int) bool {
	return (r.wet[i] || r.wet[j]) && slices.Contains(r.neighbours(i), j) && r.test(i, j)
}

// boundary: a dry column linked to a wet one.
func (r *ref) boundary(i int) bool {
	if r.wet[i] {
		return false
	}
	for _, j := range r.neighbours(i) {
		if r.wetLinked(i, j) {
			return true
		}
	}
	return false
}

// linked is the full rule for two columns: wet-wet and wet-dry by the test; two
// boundary dry columns by the test and a common linked wet column.
func (r *ref) linked(i, j int) bool {
	if r.wet[i] || r.wet[j] {
		return r.wetLinked(i, j)
	}
	if !slices.Contains(r.neighbours(i), j) || !r.test(i, j) || !r.boundary(i) || !r.boundary(j) {
		return false
	}
	for _, w := range r.neighbours(i) {
		if r.wet[w] && r.wetLinked(w, i) && r.wetLinked(w, j) {
			return true
		}
	}
	return false
}

// checkScene runs every scene-level check on one frame.
func checkScene(t *testing.T, name string, c *terrain.Columns, tm *terrain.Mesh, h []float32, s Settings) {
	t.Helper()
	b := newBuilder(t, c, tm, s)
	m := b.Build(h)
	checkMesh(t, b, m)
	if m.NumTriangles() == 0 {
		t.Fatalf("%s: no triangles", name)
	}
	r := newRef(c, h)
	n := int32(b.n)

	// Links of columns agree with the definition, pair by pair.
	pairs := 0
	for i := range b.n {
		for _, j := range r.neighbours(i) {
			want := r.linked(i, j)
			got := linked(t, b, int32(i), int32(j))
			if got != want {
				t.Fatalf("%s: columns %d (h %g, wet %v) and %d (h %g, wet %v): linked %v, want %v",
					name, i, r.h[i], r.wet[i], j, r.h[j], r.wet[j], got, want)
			}
			if got {
				pairs++
			}
		}
	}
	// Extra vertices stand on a wall some wet column faces without a link.
	for e, j := range b.extraCol {
		faced := false
		ev := b.vertexOfNode(n + int32(e))
		for d := range 8 {
			i := b.L(ev, d)
			if i >= 0 && b.isWet(i) && b.extraFacing[e]&(1<<d) != 0 {
				i = b.nodeOfVertex(int(i))
				faced = true
				if r.linked(int(i), int(j)) || !(c.Max[i] < c.Base[j]) {
					t.Fatalf("%s: extra vertex on %d faced by %d, which is linked to it or not under it", name, j, i)
				}
			}
		}
		if !faced {
			t.Fatalf("%s: extra vertex on %d faced by nobody", name, j)
		}
	}

	// No crack: in every quartet, each axis pair of every group of three mutually linked
	// wet columns is an edge of a triangle of that quartet.
	byQuartet := map[[2]int32][][3]int32{}
	for _, tri := range triangles(b, m) {
		qx, qy := int32(math.MaxInt32), int32(math.MaxInt32)
		for _, nd := range tri {
			x, y := nodeCell(b, nd)
			qx, qy = min(qx, x), min(qy, y)
		}
		byQuartet[[2]int32{qx, qy}] = append(byQuartet[[2]int32{qx, qy}], tri)
	}
	groups := 0
	for y := 0; y+1 < c.Ny; y++ {
		for x := 0; x+1 < c.Nx; x++ {
			var cols [4][]int
			for k := range 4 {
				lo, hi := c.Cell(x+k%2, y+k/2)
				for i := lo; i < hi; i++ {
					if r.wet[i] {
						cols[k] = append(cols[k], i)
					}
				}
			}
			for o := range 4 { // omitted corner
				var cs [3]int
				k := 0
				for q := range 4 {
					if q != o {
						cs[k] = q
						k++
					}
				}
				for _, u := range cols[cs[0]] {
					for _, v := range cols[cs[1]] {
						if !r.linked(u, v) {
							continue
						}
						for _, w := range cols[cs[2]] {
							if !r.linked(u, w) || !r.linked(v, w) {
								continue
							}
							groups++
							nodes := map[int]int{cs[0]: u, cs[1]: v, cs[2]: w}
							for _, p := range [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}} {
								a, ok1 := nodes[p[0]]
								bb, ok2 := nodes[p[1]]
								if ok1 && ok2 && !hasEdge(byQuartet[[2]int32{int32(x), int32(y)}], int32(a), int32(bb)) {
									t.Fatalf("%s: crack in quartet (%d,%d): linked wet columns %d, %d of the group %d %d %d share no edge", name, x, y, a, bb, u, v, w)
								}
							}
						}
					}
				}
			}
		}
	}

	// With a camera, no normal of the surface faces away from it (the sides' faces
	// keep their outward normals: sides.go).
	if cam := s.Camera; cam != nil {
		for v := range int(b.sideStart) {
			var dot, l float64
			for k := range 3 {
				e := cam[k] - float64(m.Positions[3*v+k])
				dot += float64(m.Normals[3*v+k]) * e
				l += e * e
			}
			if dot/math.Sqrt(l) < -1e-6 {
				t.Fatalf("%s: vertex %d faces away from the camera (n.v = %g)", name, v, dot/math.Sqrt(l))
			}
		}
	}

	// Terrain vertices under wet liquid lie below the surface: the bilinear interpolation
	// of the surface heights of their quartet is at least their height.
	under := 0
	g, eps := globalMinCells*b.dx, epsCells*b.dx
	for v := range tm.NumVertices() {
		if tm.Normals[3*v+2] < 0 {
			continue
		}
		px, py, pz := float64(tm.Positions[3*v]), float64(tm.Positions[3*v+1]), float64(tm.Positions[3*v+2])
		_, q, st := b.vertexLocal(px, py, pz, g, eps)
		if st != vertexConstrains && st != vertexFree {
			continue
		}
		all, zl := true, 0.0
		for k, i := range q.col {
			if !r.wet[i] {
				all = false
				break
			}
			zl += q.w[k] * float64(nodeZ(b, i))
		}
		if !all {
			continue
		}
		under++
		if zl < pz {
			t.Fatalf("%s: terrain vertex %d at (%g, %g, %g) pokes through the surface at %g (columns %v)", name, v, px, py, pz, zl, q.col)
		}
	}
	t.Logf("%s: %d columns (%d wet), %d vertices, %d triangles, %d extra vertices, %d linked pairs, %d wet groups of three, %d terrain vertices under liquid checked, %d kept / %d discarded in the precompute",
		name, b.n, len(b.wetList), m.NumVertices(), m.NumTriangles(), len(b.extraCol), pairs/2, groups, under, b.vertKept, b.vertSkip)
	if under == 0 {
		t.Fatalf("%s: no terrain vertex under liquid: the check checked nothing", name)
	}
}

func TestBowl(t *testing.T) {
	c, tm, h := bowlScene(t, 40, mm)
	checkScene(t, "bowl", c, tm, h, DefaultSettings())
}

func TestThreeLayers(t *testing.T) {
	c, tm, h := layersScene(t, 40, mm, 3)
	if c.Layers != 3 {
		t.Fatalf("layers %d", c.Layers)
	}
	multi := 0
	for k := range c.Nx * c.Ny {
		if c.CellStart[k+1]-c.CellStart[k] == 3 {
			multi++
		}
	}
	if multi == 0 {
		t.Fatal("no cell with three columns")
	}
	checkScene(t, "three layers", c, tm, h, DefaultSettings())
	cam := [3]float64{0.1, -0.05, 0.03}
	s := DefaultSettings()
	s.Camera = &cam
	checkScene(t, "three layers, camera", c, tm, h, s)
}
