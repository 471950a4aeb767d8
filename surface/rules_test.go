package surface

import (
	"math"
	"slices"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// slabCell is a cell with a slab at 5-7 mm over a floor at 1 mm: columns [1, 5] and
// [7, 30].
func slabCell() []terrain.Interval { return cell(iv(1, 5), iv(7, 30)) }

// hasEdge reports whether some triangle has u and v as an edge.
func hasEdge(tris [][3]int32, u, v int32) bool {
	for _, t := range tris {
		for c := range 3 {
			a, b := t[c], t[(c+1)%3]
			if (a == u && b == v) || (a == v && b == u) {
				return true
			}
		}
	}
	return false
}

// inTriangle reports whether node is a corner of some triangle.
func inTriangle(tris [][3]int32, node int32) bool {
	for _, t := range tris {
		if slices.Contains(t[:], node) {
			return true
		}
	}
	return false
}

func TestLinksAcrossLayers(t *testing.T) {
	// Left: slab cell (lower [1,5], upper [7,30]); right: open cell [1,30].
	c := grid(t, 2, 1, slabCell(), floor(1))
	lower, upper, right := col(c, 0, 0, 0), col(c, 0, 0, 1), col(c, 1, 0, 0)
	b := newBuilder(t, c, nil, noMeniscus())
	cases := []struct {
		name           string
		h              []float64 // lower, upper, right; < 0 dry
		lowerR, upperR bool      // linked to right
	}{
		{"both lakes under the slab level", []float64{3, -1, 3}, true, false},
		{"liquid above the slab on both sides", []float64{5, 9, 9}, false, true},
		{"wet next to a dry column on the same floor", []float64{-1, -1, 3}, true, false},
		{"all dry", []float64{-1, -1, -1}, false, false},
		{"right at slab level: reaches the dry upper column's base", []float64{4.9, -1, 6}, false, true},
		{"right below the upper base, upper wet above: out of each other's range", []float64{-1, 9, 3}, true, false},
	}
	for _, tc := range cases {
		b.Build(heightsMM(c, tc.h...))
		if got := linked(t, b, lower, right); got != tc.lowerR {
			t.Errorf("%s: lower-right linked = %v, want %v", tc.name, got, tc.lowerR)
		}
		if got := linked(t, b, upper, right); got != tc.upperR {
			t.Errorf("%s: upper-right linked = %v, want %v", tc.name, got, tc.upperR)
		}
	}
}

func TestLinksRecheckedEveryFrame(t *testing.T) {
	// Paper Fig. 7: a (left, under the slab) and b (right) are linked; as b rises above
	// the slab it becomes linked with c (the upper column) instead.
	c := grid(t, 2, 1, slabCell(), floor(1))
	a, cc, bb := col(c, 0, 0, 0), col(c, 0, 0, 1), col(c, 1, 0, 0)
	b := newBuilder(t, c, nil, noMeniscus())
	b.Build(heightsMM(c, 4, 8, 4))
	if !linked(t, b, a, bb) || linked(t, b, cc, bb) {
		t.Fatal("frame 1: want a-b linked, c-b not")
	}
	b.Build(heightsMM(c, 4, 8, 8))
	if linked(t, b, a, bb) || !linked(t, b, cc, bb) {
		t.Fatal("frame 2: want c-b linked, a-b not")
	}
}

func TestQuartetFourLinked(t *testing.T) {
	c := grid(t, 2, 2, floor(1), floor(1), floor(1), floor(1))
	b := newBuilder(t, c, nil, noMeniscus())
	m := b.Build(heightsMM(c, 3, 3, 3, 3))
	checkMesh(t, b, m)
	if tris := triangles(b, m); len(tris) != 2 || b.sideStart != 4 {
		t.Fatalf("got %d triangles, %d vertices; want 2, 4", len(tris), b.sideStart)
	}
}

func TestQuartetThreeLinked(t *testing.T) {
	// a, b, c (bottom-left, bottom-right, top-left) have the slab, their upper columns wet
	// at 9 mm; d (top-right) is open, wet at 3 mm: out of the upper columns' range. The
	// upper columns form a group of three: one triangle. Below, d links to the dry lower
	// columns, which link to each other (boundary pairs): a group of four split along the
	// diagonal b-c whose ends are both outside; its all-dry triangle is dropped.
	c := grid(t, 2, 2,
		slabCell(), floor(1),
		slabCell(), slabCell())
	b := newBuilder(t, c, nil, noMeniscus())
	// columns in index order: (0,0) lower, upper; (1,0) lower, upper; (0,1) lower, upper; (1,1).
	m := b.Build(heightsMM(c, -1, 9, -1, 9, -1, 9, 3))
	checkMesh(t, b, m)
	tris := triangles(b, m)
	ua, ub, uc := col(c, 0, 0, 1), col(c, 1, 0, 1), col(c, 0, 1, 1)
	la, lb, lc, d := col(c, 0, 0, 0), col(c, 1, 0, 0), col(c, 0, 1, 0), col(c, 1, 1, 0)
	want := [][3]int32{{ua, ub, uc}, {lb, d, lc}}
	if len(tris) != 2 || !slices.Contains(tris, want[0]) || !slices.Contains(tris, want[1]) {
		t.Fatalf("triangles %v, want %v", tris, want)
	}
	if inTriangle(tris, la) {
		t.Fatal("the dry corner of the both-outside diagonal split is in a triangle")
	}
	for _, p := range [][2]int32{{ua, d}, {ub, d}, {uc, d}} {
		if linked(t, b, p[0], p[1]) {
			t.Fatalf("%d and %d linked across levels", p[0], p[1])
		}
	}
}

func TestQuartetPairGivesNothing(t *testing.T) {
	// a and b (bottom) have the slab, upper columns wet at 9 mm: a linked pair, and the
	// top row is open with liquid at 3 mm, out of their range: no triangle on the upper
	// level. The lower level (dry lower columns of a, b and the wet top row) is a group
	// of four.
	c := grid(t, 2, 2,
		floor(1), floor(1),
		slabCell(), slabCell())
	b := newBuilder(t, c, nil, noMeniscus())
	m := b.Build(heightsMM(c, -1, 9, -1, 9, 3, 3))
	checkMesh(t, b, m)
	tris := triangles(b, m)
	ua, ub := col(c, 0, 0, 1), col(c, 1, 0, 1)
	if !linked(t, b, ua, ub) {
		t.Fatal("the upper pair is not linked")
	}
	if inTriangle(tris, ua) || inTriangle(tris, ub) {
		t.Fatalf("a linked pair made a triangle: %v", tris)
	}
	if len(tris) != 2 {
		t.Fatalf("lower level: %d triangles, want 2", len(tris))
	}
}

func TestDiagonalLargerHeightSum(t *testing.T) {
	c := grid(t, 2, 2, floor(1), floor(1), floor(1), floor(1))
	a, bb, cc, d := col(c, 0, 0, 0), col(c, 1, 0, 0), col(c, 0, 1, 0), col(c, 1, 1, 0)
	b := newBuilder(t, c, nil, noMeniscus())
	// heights in index order a, b, c, d
	tris := triangles(b, b.Build(heightsMM(c, 2, 3, 3, 2)))
	if !hasEdge(tris, bb, cc) || hasEdge(tris, a, d) {
		t.Fatalf("b+c = 6 mm > a+d = 4 mm but triangles are %v", tris)
	}
	tris = triangles(b, b.Build(heightsMM(c, 3, 2, 2, 3)))
	if !hasEdge(tris, a, d) || hasEdge(tris, bb, cc) {
		t.Fatalf("a+d = 6 mm > b+c = 4 mm but triangles are %v", tris)
	}
}

func TestDiagonalWetBoundaryPriority(t *testing.T) {
	c := grid(t, 2, 2, floor(1), floor(1), floor(1), floor(1))
	a, bb, cc, d := col(c, 0, 0, 0), col(c, 1, 0, 0), col(c, 0, 1, 0), col(c, 1, 1, 0)
	b := newBuilder(t, c, nil, noMeniscus())
	// a, b, c wet, d dry (at the mean, 2.33 mm): a+d = 5.33 > b+c = 4, but b-c has both
	// ends inside: it wins.
	m := b.Build(heightsMM(c, 3, 2, 2, -1))
	checkMesh(t, b, m)
	tris := triangles(b, m)
	if !hasEdge(tris, bb, cc) || hasEdge(tris, a, d) || len(tris) != 2 {
		t.Fatalf("both-inside diagonal b-c not chosen: %v", tris)
	}
	if z := m.Positions[3*vertexOf(b, d)+2]; !near(float64(z), 7.0/3*mm, 1e-7) {
		t.Fatalf("dry vertex at %g, want the mean 2.333 mm", z)
	}
	// a wet, the rest dry: b-c both outside wins; the all-dry triangle b-d-c is dropped.
	m = b.Build(heightsMM(c, 3, -1, -1, -1))
	checkMesh(t, b, m)
	tris = triangles(b, m)
	if len(tris) != 1 || tris[0] != [3]int32{a, bb, cc} {
		t.Fatalf("got %v, want the single triangle a-b-c", tris)
	}
}

func TestDryVertexNextToTallWall(t *testing.T) {
	// Two columns of floor at 1 mm, wet at 3 and 4 mm; then a wall whose top is at 20 mm,
	// dry. The wall columns are linked (their range reaches down to the ground) and their
	// vertices sit at the mean of their wet neighbours, not at 20 mm.
	c := grid(t, 3, 2,
		floor(1), floor(1), floor(20),
		floor(1), floor(1), floor(20))
	b := newBuilder(t, c, nil, noMeniscus())
	// index order: (0,0) (1,0) (2,0) (0,1) (1,1) (2,1)
	m := b.Build(heightsMM(c, 3, 3, -1, 4, 4, -1))
	checkMesh(t, b, m)
	w0, w1 := col(c, 2, 0, 0), col(c, 2, 1, 0)
	for _, w := range []int32{w0, w1} {
		v := vertexOf(b, w)
		if v < 0 {
			t.Fatalf("wall column %d has no vertex", w)
		}
		if z := float64(m.Positions[3*v+2]); !near(z, 3.5*mm, 1e-7) {
			t.Errorf("wall vertex %d at z = %g, want 3.5 mm (mean of its two wet neighbours)", w, z)
		}
		if m.Opacity[v] != 0 {
			t.Errorf("dry vertex opacity %g", m.Opacity[v])
		}
	}
	if tris := triangles(b, m); len(tris) != 4 {
		t.Fatalf("%d triangles, want 4 (two quartets of four)", len(tris))
	}
	// The dry vertex's normal is the mean of its wet neighbours' normals.
	v := vertexOf(b, w0)
	var s [3]float64
	for _, i := range []int32{col(c, 1, 0, 0), col(c, 1, 1, 0)} {
		u := vertexOf(b, i)
		for k := range 3 {
			s[k] += float64(m.Normals[3*u+k])
		}
	}
	l := math.Sqrt(s[0]*s[0] + s[1]*s[1] + s[2]*s[2])
	for k := range 3 {
		if !near(float64(m.Normals[3*v+k]), s[k]/l, 1e-6) {
			t.Fatalf("dry normal %v, want mean %v", m.Normals[3*v:3*v+3], []float64{s[0] / l, s[1] / l, s[2] / l})
		}
	}
}

func TestExtraVertexUnderOverhang(t *testing.T) {
	// Columns x = 0, 1 lie under a ceiling (slab 10-12 mm); x = 2 is a wall up to 20 mm.
	// The wet columns at x = 1 face the wall below their ceiling: not linked (the wall
	// top is above their max), so extra vertices stand at the wall's centres.
	ov := func() []terrain.Interval { return cell(iv(1, 10), iv(12, 30)) }
	c := grid(t, 3, 2,
		ov(), ov(), floor(20),
		ov(), ov(), floor(20))
	b := newBuilder(t, c, nil, DefaultSettings())
	// index order: (0,0) lower upper, (1,0) lower upper, (2,0), (0,1) l u, (1,1) l u, (2,1)
	m := b.Build(heightsMM(c, 5, -1, 5, -1, -1, 6, -1, 6, -1, -1))
	checkMesh(t, b, m)
	i0, i1 := col(c, 1, 0, 0), col(c, 1, 1, 0)
	w0, w1 := col(c, 2, 0, 0), col(c, 2, 1, 0)
	if linked(t, b, i0, w0) || linked(t, b, i1, w1) {
		t.Fatal("wet columns linked to the wall they face")
	}
	if len(b.extraCol) != 2 {
		t.Fatalf("%d extra vertices, want 2", len(b.extraCol))
	}
	n := int32(b.n)
	for e, w := range b.extraCol {
		if w != w0 && w != w1 {
			t.Fatalf("extra vertex on column %d, want the wall", w)
		}
		if z := nodeZ(b, n+int32(e)); !near(float64(z), 5.5*mm, 1e-7) {
			t.Errorf("extra vertex %d at %g, want 5.5 mm: the mean of the two facing columns", e, z)
		}
		if !linked(t, b, n+int32(e), i0) || !linked(t, b, n+int32(e), i1) {
			t.Errorf("extra vertex %d not linked to both facing columns", e)
		}
		if v := vertexOf(b, n+int32(e)); v < 0 || m.Opacity[v] != 0 {
			t.Errorf("extra vertex %d: vertex %d", e, v)
		}
	}
	// Quartets x = 0-1 and x = 1-2 are groups of four: 4 triangles, the second closing
	// the surface against the wall.
	if tris := triangles(b, m); len(tris) != 4 {
		t.Fatalf("%d triangles, want 4", len(tris))
	}
	// The facing columns are the meniscus's first ring.
	v0 := b.vertexOfNode(i0)
	if b.nbc[v0] < 0 || b.nodeOfVertex(int(b.nbc[v0])) < n {
		t.Fatalf("facing column not in the first ring with the extra vertex as NBC")
	}
}

func TestOpacityAndMinimumDepth(t *testing.T) {
	c := grid(t, 2, 1, floor(1), floor(1))
	s := noMeniscus()
	b := newBuilder(t, c, nil, s)
	// a 0.5 mm film and a 0.01 mm film (below the global minimum 0.05 dx = 0.05 mm)
	m := b.Build(heightsMM(c, 1.5, 1.01))
	if tris := triangles(b, m); len(tris) != 0 || b.sideStart != 2 {
		t.Fatalf("two cells make no triangle (their two vertices stay): got %d triangles, %d vertices", len(tris), b.sideStart)
	}
	c = grid(t, 2, 2, floor(1), floor(1), floor(1), floor(1))
	b = newBuilder(t, c, nil, s)
	m = b.Build(heightsMM(c, 1.5, 1.01, 5, -1))
	checkMesh(t, b, m)
	check := func(i int32, z, o float64) {
		t.Helper()
		v := vertexOf(b, i)
		if !near(float64(m.Positions[3*v+2]), z, 1e-8) || !near(float64(m.Opacity[v]), o, 1e-6) {
			t.Errorf("column %d: z %g opacity %g, want %g %g", i, m.Positions[3*v+2], m.Opacity[v], z, o)
		}
	}
	check(0, 1.5*mm, 0.25)
	check(1, 1.05*mm, 0.005) // raised to b + 0.05 dx; opacity from the true depth
	check(2, 5*mm, 1)
	check(3, (1.5+1.05+5)/3*mm, 0)
}

func TestCellWithoutColumns(t *testing.T) {
	// The centre cell is solid to the domain top: no column. Its neighbours, wet, link
	// around it; no triangle reaches it.
	c := grid(t, 3, 3,
		floor(1), floor(1), floor(1),
		floor(1), cell(), floor(1),
		floor(1), floor(1), floor(1))
	b := newBuilder(t, c, nil, DefaultSettings())
	h := make([]float32, c.NumColumns())
	for i := range h {
		h[i] = 3 * mm
	}
	m := b.Build(h)
	checkMesh(t, b, m)
	// 4 quartets, each with 3 columns left: one triangle each.
	if tris := triangles(b, m); len(tris) != 4 {
		t.Fatalf("%d triangles, want 4", len(tris))
	}
}

func TestNaNHeightIsDry(t *testing.T) {
	c := grid(t, 2, 2, floor(1), floor(1), floor(1), floor(1))
	b := newBuilder(t, c, nil, DefaultSettings())
	h := heightsMM(c, 3, 3, 3, -1)
	h[3] = float32(math.NaN())
	m := b.Build(h)
	checkMesh(t, b, m)
	if nodeWet(b, 3) {
		t.Fatal("a NaN height counts as wet")
	}
	if tris := triangles(b, m); len(tris) != 2 {
		t.Fatalf("%d triangles, want 2 (the NaN column is a dry vertex)", len(tris))
	}
}

func TestOverlappingGroupsOfThree(t *testing.T) {
	// a (0,0) and b (1,0): floor 1 mm, wet at 3 and 4 mm. c (0,1): floor 1.5 mm, dry.
	// d (1,1): a thin cavity [1, 2] under a slab [2, 5], dry on top at 5 mm. Links: a-b,
	// a-c, b-c, a-d, b-d, but not c-d (c's base 1.5 mm lies in d's cavity, which nothing
	// wet links to). Groups a-b-c and a-b-d overlap on a-b; both third vertices are dry:
	// the diagonal rule keeps a-b-c (b+c = 7.5 mm > a+d = 6.5 mm).
	c := grid(t, 2, 2,
		floor(1.5), cell(iv(1, 2), iv(5, 30)),
		floor(1), floor(1))
	// index order: a (0,0), b (1,0), c (0,1), d lower, d upper
	a, bb, cc, dUp := col(c, 0, 0, 0), col(c, 1, 0, 0), col(c, 0, 1, 0), col(c, 1, 1, 1)
	b := newBuilder(t, c, nil, noMeniscus())
	m := b.Build(heightsMM(c, 3, 4, -1, -1, -1))
	checkMesh(t, b, m)
	for _, p := range [][2]int32{{a, bb}, {a, cc}, {bb, cc}, {a, dUp}, {bb, dUp}} {
		if !linked(t, b, p[0], p[1]) {
			t.Fatalf("%d-%d not linked", p[0], p[1])
		}
	}
	if linked(t, b, cc, dUp) {
		t.Fatal("c-d linked")
	}
	tris := triangles(b, m)
	if len(tris) != 1 || tris[0] != [3]int32{a, bb, cc} {
		t.Fatalf("triangles %v, want only a-b-c", tris)
	}
}
