package terrain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cubeOBJ is the box [0,1]x[0,2]x[0,3] as quads, mixing reference forms, a negative
// index and statements the parser must skip.
const cubeOBJ = `# a cube
mtllib cube.mtl
o cube
v 0 0 0
v 1 0 0
v 1 2 0
v 0 2 0
v 0 0 3
v 1 0 3
v 1 2 3
v 0 2 3
vt 0 0
vn 0 0 1
g sides
usemtl stone
s off
f 1/1/1 4/1/1 3/1/1 2/1/1
f 5//1 6//1 7//1 8//1
f 1/1 2/1 6/1 5/1
f 2 3 7 6
f 3 4 8 7
f 4 1 5 -1
`

func parse(t testing.TB, src string) Solid {
	t.Helper()
	s, err := ParseOBJ(strings.NewReader(src), "test.obj")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// capped is the distance a mesh solid reports where the exact one is d: the same up to
// its reach, the reach beyond.
func capped(s Solid, d float64) float64 {
	return math.Copysign(min(math.Abs(d), s.(*meshSolid).reach), d)
}

func randomPoint(rng *rand.Rand, lo, hi float64) Vec3 {
	return Vec3{lo + (hi-lo)*rng.Float64(), lo + (hi-lo)*rng.Float64(), lo + (hi-lo)*rng.Float64()}
}

func TestOBJCubeMatchesBox(t *testing.T) {
	mesh := parse(t, cubeOBJ)
	box := mustOf(t)(Box(Vec3{0, 0, 0}, Vec3{1, 2, 3}))
	if !IsLipschitz(mesh) {
		t.Error("a mesh's distance should be Lipschitz")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		p := randomPoint(rng, -2, 5)
		if got, want := mesh.Dist(p), capped(mesh, box.Dist(p)); !near(got, want, 1e-12) {
			t.Fatalf("Dist%v = %.15g, box gives %.15g", p, got, want)
		}
	}
	// Points on the grid of the cube's own coordinates, where rays could meet edges.
	for x := -1.0; x <= 2; x += 0.5 {
		for y := -1.0; y <= 3; y += 0.5 {
			for z := -1.0; z <= 4; z += 0.5 {
				p := Vec3{x, y, z}
				if got, want := mesh.Dist(p), capped(mesh, box.Dist(p)); !near(got, want, 1e-12) {
					t.Fatalf("Dist%v = %.15g, box gives %.15g", p, got, want)
				}
			}
		}
	}
}

// TestOBJSplitVerticesAndWinding: a cube written with separate vertices per face (as STL
// converters do) and inconsistent face winding still makes the same solid.
func TestOBJSplitVerticesAndWinding(t *testing.T) {
	corner := func(i int) Vec3 { return Vec3{float64(i & 1), float64(i >> 1 & 1), float64(i >> 2 & 1)} }
	quads := [][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}
	var b strings.Builder
	n := 0
	for f, q := range quads {
		if f%2 == 1 {
			q[1], q[3] = q[3], q[1] // flip every other face
		}
		for _, c := range q {
			p := corner(c)
			fmt.Fprintf(&b, "v %g %g %g\n", p.X, p.Y, p.Z)
		}
		fmt.Fprintf(&b, "f %d %d %d %d\n", n+1, n+2, n+3, n+4)
		n += 4
	}
	mesh := parse(t, b.String())
	box := mustOf(t)(Box(Vec3{}, Vec3{1, 1, 1}))
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		p := randomPoint(rng, -1, 2)
		if got, want := mesh.Dist(p), capped(mesh, box.Dist(p)); !near(got, want, 1e-12) {
			t.Fatalf("Dist%v = %g, box gives %g", p, got, want)
		}
	}
}

// icosphere returns an OBJ of the icosahedron subdivided level times, projected onto the
// sphere of radius r at c, and its inradius (the distance from c to the nearest face).
func icosphere(level int, c Vec3, r float64, reverse bool) (string, float64) {
	g := (1 + math.Sqrt(5)) / 2
	verts := []Vec3{
		{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0},
		{0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g},
		{g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1},
	}
	for i := range verts {
		verts[i] = verts[i].Unit()
	}
	faces := [][3]int{
		{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
		{1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
		{3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
		{4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1},
	}
	for range level {
		mid := map[[2]int]int{}
		half := func(a, b int) int {
			k := [2]int{min(a, b), max(a, b)}
			if m, ok := mid[k]; ok {
				return m
			}
			verts = append(verts, verts[a].Add(verts[b]).Unit())
			mid[k] = len(verts) - 1
			return len(verts) - 1
		}
		var next [][3]int
		for _, f := range faces {
			a, b, c := half(f[0], f[1]), half(f[1], f[2]), half(f[2], f[0])
			next = append(next, [3]int{f[0], a, c}, [3]int{f[1], b, a}, [3]int{f[2], c, b}, [3]int{a, b, c})
		}
		faces = next
	}
	in := math.Inf(1)
	for _, f := range faces {
		a, b, cc := verts[f[0]], verts[f[1]], verts[f[2]]
		n := b.Sub(a).Cross(cc.Sub(a)).Unit()
		in = min(in, math.Abs(n.Dot(a)))
	}
	var sb strings.Builder
	for _, v := range verts {
		p := c.Add(v.Scale(r))
		fmt.Fprintf(&sb, "v %.17g %.17g %.17g\n", p.X, p.Y, p.Z)
	}
	for _, f := range faces {
		if reverse {
			f[1], f[2] = f[2], f[1]
		}
		fmt.Fprintf(&sb, "f %d %d %d\n", f[0]+1, f[1]+1, f[2]+1)
	}
	return sb.String(), in * r
}

// TestOBJIcosphereMatchesSphere: the mesh lies between its inscribed sphere and the
// sphere through its vertices, so its signed distance differs from the sphere's by at
// most r - inradius.
func TestOBJIcosphereMatchesSphere(t *testing.T) {
	c, r := Vec3{0.3, -0.2, 0.5}, 1.5
	src, in := icosphere(3, c, r, false)
	mesh := parse(t, src)
	srcRev, _ := icosphere(3, c, r, true)
	rev := parse(t, srcRev)
	sphere := mustOf(t)(Sphere(c, r))
	tol := r - in + 1e-12
	rng := rand.New(rand.NewPCG(9, 10))
	for range 3000 {
		p := c.Add(randomPoint(rng, -2.5, 2.5))
		got, want := mesh.Dist(p), capped(mesh, sphere.Dist(p))
		if !near(got, want, tol) {
			t.Fatalf("Dist%v = %g, sphere gives %g (tolerance %g)", p, got, want, tol)
		}
		if !near(rev.Dist(p), got, 1e-12) {
			t.Fatalf("inside-out mesh: Dist%v = %g, want %g", p, rev.Dist(p), got)
		}
	}
}

// TestOBJLargeMesh: an 81920-triangle sphere through the BVH, and a hollow ball (two
// nested shells) whose cavity counts as free space.
func TestOBJLargeMesh(t *testing.T) {
	c := Vec3{0, 0, 0}
	outer, in := icosphere(6, c, 1, false)
	inner, _ := icosphere(2, c, 0.5, false)
	// Append the inner shell, renumbering its faces after the outer vertices.
	nOuter := strings.Count(outer, "v ")
	var sb strings.Builder
	sb.WriteString(outer)
	for _, line := range strings.Split(strings.TrimSpace(inner), "\n") {
		if strings.HasPrefix(line, "f ") {
			var a, b, cc int
			fmt.Sscanf(line, "f %d %d %d", &a, &b, &cc)
			line = fmt.Sprintf("f %d %d %d", a+nOuter, b+nOuter, cc+nOuter)
		}
		sb.WriteString(line + "\n")
	}
	solid := parse(t, outer)
	hollow := parse(t, sb.String())
	if n := len(solid.(*meshSolid).tris); n != 81920 {
		t.Fatalf("%d triangles, want 81920", n)
	}
	sphere := mustOf(t)(Sphere(c, 1))
	rng := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		p := randomPoint(rng, -1.5, 1.5)
		if got, want := solid.Dist(p), capped(solid, sphere.Dist(p)); !near(got, want, 1-in+1e-12) {
			t.Fatalf("Dist%v = %g, sphere gives %g", p, got, want)
		}
	}
	if d := hollow.Dist(Vec3{0.1, 0.1, 0}); d <= 0 {
		t.Errorf("the cavity of the hollow ball is solid: Dist = %g", d)
	}
	if d := hollow.Dist(Vec3{0.75, 0, 0}); d >= 0 {
		t.Errorf("the shell of the hollow ball is free: Dist = %g", d)
	}
}

func TestOBJErrors(t *testing.T) {
	tri := "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
	tetra := tri + "f 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n"
	if _, err := ParseOBJ(strings.NewReader(tetra), "tetra.obj"); err != nil {
		t.Fatalf("the tetrahedron should parse: %v", err)
	}
	for _, c := range []struct {
		name, src, want string
	}{
		{"bad number", "v 0 0 0\nv 1 x 0\n", "bad.obj:2: vertex coordinate \"x\""},
		{"nan coordinate", "v 0 nan 0\n", "bad.obj:1: vertex coordinate \"nan\""},
		{"short vertex", "v 1 2\n", "bad.obj:1: vertex has 2 coordinates"},
		{"short face", tri + "f 1 2\n", "bad.obj:5: face has 2 vertices"},
		{"bad reference", tri + "f 1 2 a/1\n", "bad.obj:5: vertex reference \"a/1\""},
		{"index zero", tri + "f 0 1 2\n", "bad.obj:5: vertex index 0"},
		{"index too large", tri + "f 1 2 3\nf 1 2 9\n", "bad.obj:6: vertex index 9 is out of range: the file has 4 vertices"},
		{"negative too far", tri + "f -1 -2 -5\n", "bad.obj:5: vertex index -5"},
		{"no faces", tri, "bad.obj: no faces"},
		{"only degenerate faces", tri + "f 1 1 2\n", "no faces with three distinct vertices"},
		{"a patch encloses nothing", tri + "f 1 2 3\n", "bad.obj: the mesh encloses nothing: it is open (3 open edges)"},
		{"opposite faces cancel", tri + "f 1 2 3\nf 1 3 2\nf 1 2 4\n", "the mesh encloses nothing"},
	} {
		_, err := ParseOBJ(strings.NewReader(c.src), "bad.obj")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestLoadOBJ(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cube.obj")
	if err := os.WriteFile(path, []byte(cubeOBJ), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadOBJ(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Dist(Vec3{0.5, 1, 0.1}); !near(d, -0.1, 1e-12) {
		t.Errorf("Dist near the bottom = %g, want -0.1", d)
	}
	if _, err := LoadOBJ(filepath.Join(dir, "missing.obj")); err == nil || !strings.Contains(err.Error(), "missing.obj") {
		t.Errorf("missing file: error %v, want one naming the file", err)
	}
	bad := filepath.Join(dir, "bad.obj")
	if err := os.WriteFile(bad, []byte("v 0 0 0\nf 1 1 1 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOBJ(bad); err == nil || !strings.Contains(err.Error(), bad+":2:") {
		t.Errorf("error %v, want one starting with %s:2:", err, bad)
	}
}

func BenchmarkOBJDist(b *testing.B) {
	src, _ := icosphere(6, Vec3{}, 1, false)
	s := parse(b, src)
	rng := rand.New(rand.NewPCG(1, 1))
	pts := make([]Vec3, 1024)
	for i := range pts {
		pts[i] = randomPoint(rng, -1.5, 1.5)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Dist(pts[i%len(pts)])
	}
}
