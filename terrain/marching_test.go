package terrain

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestMCCases checks the generated tables: each case's triangles use exactly the edges
// whose corners differ, every triangle's vertices are distinct, and complementary cases
// without ambiguous faces are the same surface wound the other way.
func TestMCCases(t *testing.T) {
	counts := map[int]int{}
	for cfg := range 256 {
		used := map[uint8]bool{}
		tris := mcCases[cfg]
		if len(tris)%3 != 0 {
			t.Fatalf("case %d: %d edge entries", cfg, len(tris))
		}
		for i := 0; i < len(tris); i += 3 {
			if tris[i] == tris[i+1] || tris[i+1] == tris[i+2] || tris[i] == tris[i+2] {
				t.Fatalf("case %d: degenerate triangle %v", cfg, tris[i:i+3])
			}
		}
		for _, e := range tris {
			used[e] = true
		}
		for e, c := range mcEdgeCorners {
			crosses := (cfg>>c[0]&1 != cfg>>c[1]&1)
			if used[uint8(e)] != crosses {
				t.Fatalf("case %d: edge %d used = %v, crossed = %v", cfg, e, used[uint8(e)], crosses)
			}
		}
		counts[len(tris)/3]++
	}
	if len(mcCases[0]) != 0 || len(mcCases[255]) != 0 {
		t.Error("the empty and full cases should have no triangles")
	}
	if len(mcCases[1]) != 3 {
		t.Errorf("one solid corner: %d triangles, want 1", len(mcCases[1])/3)
	}
	if counts[5] == 0 || counts[6] != 0 {
		t.Errorf("triangles per case: %v; the classic tables have at most 5", counts)
	}
}

// meshCheck verifies that m is closed and consistently wound: every directed edge
// appears once and its reverse once. It returns the Euler characteristic V - E + F.
func meshCheck(t *testing.T, m *Mesh) int {
	t.Helper()
	if len(m.Positions) != len(m.Normals) || len(m.Indices)%3 != 0 {
		t.Fatalf("%d positions, %d normals, %d indices", len(m.Positions), len(m.Normals), len(m.Indices))
	}
	directed := make(map[[2]uint32]int, len(m.Indices))
	used := make([]bool, m.NumVertices())
	for i := 0; i < len(m.Indices); i += 3 {
		for k := range 3 {
			a, b := m.Indices[i+k], m.Indices[i+(k+1)%3]
			if int(a) >= m.NumVertices() {
				t.Fatalf("index %d out of range", a)
			}
			directed[[2]uint32{a, b}]++
			used[a] = true
		}
	}
	for e, n := range directed {
		if n != 1 || directed[[2]uint32{e[1], e[0]}] != 1 {
			t.Fatalf("edge %v appears %d times and its reverse %d: the mesh is not closed or not consistently wound",
				e, n, directed[[2]uint32{e[1], e[0]}])
		}
	}
	for v, u := range used {
		if !u {
			t.Fatalf("vertex %d is in no triangle", v)
		}
	}
	for v := range m.NumVertices() {
		n := Vec3{float64(m.Normals[3*v]), float64(m.Normals[3*v+1]), float64(m.Normals[3*v+2])}
		if math.Abs(n.Len()-1) > 1e-6 {
			t.Fatalf("normal %d has length %g", v, n.Len())
		}
	}
	return m.NumVertices() - len(directed)/2 + m.NumTriangles()
}

func vertex(m *Mesh, v uint32) Vec3 {
	return Vec3{float64(m.Positions[3*v]), float64(m.Positions[3*v+1]), float64(m.Positions[3*v+2])}
}

func normal(m *Mesh, v uint32) Vec3 {
	return Vec3{float64(m.Normals[3*v]), float64(m.Normals[3*v+1]), float64(m.Normals[3*v+2])}
}

// windingAgrees checks that every triangle's geometric normal (counter-clockwise) points
// the way of its vertices' normals, i.e. out of the solid.
func windingAgrees(t *testing.T, m *Mesh) {
	t.Helper()
	bad := 0
	for i := 0; i < len(m.Indices); i += 3 {
		a, b, c := m.Indices[i], m.Indices[i+1], m.Indices[i+2]
		pa := vertex(m, a)
		fn := vertex(m, b).Sub(pa).Cross(vertex(m, c).Sub(pa))
		if fn.Len() == 0 {
			continue
		}
		if fn.Dot(normal(m, a).Add(normal(m, b)).Add(normal(m, c))) <= 0 {
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d triangles are wound against their normals", bad, m.NumTriangles())
	}
}

func TestSurfaceMeshSphere(t *testing.T) {
	d := Domain{SizeX: 1, SizeY: 1, Height: 1, Dx: 0.05}
	ctr, r := Vec3{0.52, 0.47, 0.55}, 0.3
	s := mustOf(t)(Sphere(ctr, r))
	m, err := SurfaceMesh(s, d)
	if err != nil {
		t.Fatal(err)
	}
	// The sphere and the floor slab: two closed components, each of Euler characteristic 2.
	if chi := meshCheck(t, m); chi != 4 {
		t.Errorf("Euler characteristic %d, want 4 (a sphere and the floor slab)", chi)
	}
	windingAgrees(t, m)
	var area float64
	sphereVerts, worst, worstAngle := 0, 0.0, 0.0
	for v := range uint32(m.NumVertices()) {
		p := vertex(m, v)
		if p.Z < 0.1 {
			continue // the floor slab
		}
		sphereVerts++
		worst = max(worst, math.Abs(p.Sub(ctr).Len()-r))
		worstAngle = max(worstAngle, math.Acos(min(1, normal(m, v).Dot(p.Sub(ctr).Unit()))))
	}
	for i := 0; i < len(m.Indices); i += 3 {
		pa := vertex(m, m.Indices[i])
		if pa.Z < 0.1 {
			continue
		}
		area += vertex(m, m.Indices[i+1]).Sub(pa).Cross(vertex(m, m.Indices[i+2]).Sub(pa)).Len() / 2
	}
	if worst > 0.05*d.Dx {
		t.Errorf("a vertex lies %.3f dx from the sphere, want <= 0.05 dx", worst/d.Dx)
	}
	if worstAngle > 0.01 {
		t.Errorf("a normal is %.4f rad off the radius", worstAngle)
	}
	if want := 4 * math.Pi * r * r; math.Abs(area-want) > 0.03*want {
		t.Errorf("sphere area %.4f, want %.4f", area, want)
	}
	// About two triangles per lattice square the surface crosses.
	if n := float64(sphereVerts); n < 0.8*area/(d.Dx*d.Dx) || n > 2*area/(d.Dx*d.Dx) {
		t.Errorf("%d vertices on a sphere of area %.0f dx^2", sphereVerts, area/(d.Dx*d.Dx))
	}
}

// TestSurfaceMeshFloor: no solid at all leaves the floor slab, a closed box whose top is
// the domain floor at z = 0 with normals straight up.
func TestSurfaceMeshFloor(t *testing.T) {
	d := Domain{SizeX: 0.2, SizeY: 0.1, Height: 0.05, Dx: 0.01}
	m, err := SurfaceMesh(mustOf(t)(Sphere(Vec3{5, 5, 5}, 1)), d)
	if err != nil {
		t.Fatal(err)
	}
	if chi := meshCheck(t, m); chi != 2 {
		t.Errorf("Euler characteristic %d, want 2", chi)
	}
	windingAgrees(t, m)
	top := 0
	for v := range uint32(m.NumVertices()) {
		p, n := vertex(m, v), normal(m, v)
		if p.X < -0.01 || p.X > 0.21 || p.Y < -0.01 || p.Y > 0.11 || p.Z < -0.011 || p.Z > 1e-12 {
			t.Fatalf("vertex %v lies outside the floor slab", p)
		}
		if p.Z == 0 && p.X > 0.01 && p.X < 0.19 && p.Y > 0.01 && p.Y < 0.09 {
			top++
			if n.Z < 0.9999 {
				t.Fatalf("floor vertex %v has normal %v", p, n)
			}
		}
	}
	if top < 100 {
		t.Errorf("%d vertices on the floor's top", top)
	}
}

// meshVolume is the signed volume a closed mesh encloses: positive when it is wound
// counter-clockwise seen from outside.
func meshVolume(m *Mesh) float64 {
	var v float64
	for i := 0; i < len(m.Indices); i += 3 {
		a, b, c := vertex(m, m.Indices[i]), vertex(m, m.Indices[i+1]), vertex(m, m.Indices[i+2])
		v += a.Dot(b.Cross(c)) / 6
	}
	return v
}

// solidVolume is the volume of the solid inside the domain according to its columns.
func solidVolume(c *Columns) float64 {
	v := float64(c.Nx*c.Ny) * c.Dx * c.Dx * c.Height
	for i := range c.Base {
		v -= float64(c.Max[i]-c.Base[i]) * c.Dx * c.Dx
	}
	return v
}

// TestSurfaceMeshClosedScenes: random blobs that cut the domain's walls and top, a
// heightfield, an overhang and a carved tunnel all give closed, consistently wound
// meshes that enclose the volume the columns leave solid; tracing and brute-force
// evaluation give the same mesh, whatever the number of workers.
func TestSurfaceMeshClosedScenes(t *testing.T) {
	m := mustOf(t)
	d := Domain{SizeX: 0.1, SizeY: 0.08, Height: 0.05, Dx: 0.004}
	rng := rand.New(rand.NewPCG(13, 14))
	var blobs []Solid
	for range 12 {
		blobs = append(blobs, m(Sphere(Vec3{rng.Float64() * 0.1, rng.Float64() * 0.08, rng.Float64() * 0.05}, 0.004+0.015*rng.Float64())))
	}
	hf := m(Heightfield(func(x, y float64) float64 { return 0.02 + 0.015*math.Sin(70*x)*math.Cos(50*y) }))
	over, _ := overhangScene(t)
	ball, _ := icosphere(3, Vec3{}, 1, false)
	scenes := map[string]Solid{
		"blobs":       m(Union(blobs...)),
		"heightfield": hf,
		"overhang":    over,
		"carved":      m(Difference(hf, m(Rotate(m(Cylinder(Vec3{0, 0.04, 0.02}, Vec3{1, 0, 0}, 0.008, 0.2)), Vec3{0, 0, 1}, 0.1)))),
		"sign only":   slope{0.01, 0.3},
		"sphere mesh": m(Union(hf, m(Translate(m(Scale(parse(t, ball), 0.025)), Vec3{0.05, 0.04, 0.025})))),
		"tilted":      surgeryLike(t),
	}
	slab := 0.1 * 0.08 * d.Dx
	for name, s := range scenes {
		want, err := surfaceMesh(s, d, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		meshCheck(t, want)
		// The columns of a finer grid measure the solid's volume independently.
		fine := d
		fine.Dx /= 4
		cols, err := Extract(s, fine, 8)
		if err != nil {
			t.Fatal(err)
		}
		// Marching cubes at 4 mm chamfers the boxes' edges and the blobs' creases.
		got, ref := meshVolume(want)-slab, solidVolume(cols)
		if math.Abs(got-ref) > 0.05*ref {
			t.Errorf("%s: the mesh encloses %.4g m^3 of solid, the columns %.4g", name, got, ref)
		}
		for _, w := range []int{1, 3} {
			got, err := surfaceMesh(s, d, w, true)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %d workers with tracing give a different mesh (%d vs %d triangles)",
					name, w, got.NumTriangles(), want.NumTriangles())
			}
		}
	}
}

// TestSurfaceMeshHeightfield: the mesh lies on the heightfield (within interpolation
// error) and the tracing evaluates far fewer points than the lattice has.
func TestSurfaceMeshHeightfield(t *testing.T) {
	d := Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.1, Dx: 0.002}
	fn := func(x, y float64) float64 { return 0.03 + 0.1*x }
	calls := 0
	hf := mustOf(t)(Heightfield(func(x, y float64) float64 { calls++; return fn(x, y) }))
	if _, err := surfaceMesh(hf, d, 1, false); err != nil {
		t.Fatal(err)
	}
	brute := calls
	calls = 0
	msh, err := surfaceMesh(hf, d, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	meshCheck(t, msh)
	n := mustOf(t)(Plane(Vec3{0, 0, 0.03}, Vec3{-0.1, 0, 1}))
	on := 0
	for v := range uint32(msh.NumVertices()) {
		p := vertex(msh, v)
		if p.X <= 0 || p.X >= 0.1 || p.Y <= 0 || p.Y >= 0.1 || p.Z <= 0 || p.Z >= 0.1 {
			continue // walls and floor
		}
		on++
		if dist := n.Dist(p); math.Abs(dist) > 1e-6*d.Dx {
			t.Fatalf("vertex %v is %g m from the plane", p, dist)
		}
		want := Vec3{-0.1, 0, 1}.Unit()
		if nv := normal(msh, v); nv.Sub(want).Len() > 1e-6 {
			t.Fatalf("vertex %v has normal %v, want %v", p, nv, want)
		}
	}
	if on < 2500 {
		t.Errorf("only %d vertices on the heightfield", on)
	}
	if calls > brute/3 {
		t.Errorf("%d evaluations with tracing, %d without", calls, brute)
	}
}

func TestSurfaceMeshErrors(t *testing.T) {
	m := mustOf(t)
	d := Domain{SizeX: 0.1, SizeY: 0.08, Height: 0.05, Dx: 0.004}
	nanAt := m(Heightfield(func(x, y float64) float64 {
		if x > 0.05 {
			return math.NaN()
		}
		return 0.01
	}))
	panics := m(Heightfield(func(x, y float64) float64 { panic(errBoom) }))
	for _, c := range []struct {
		name string
		s    Solid
		d    Domain
		want string
	}{
		{"nil", nil, d, "solid is nil"},
		{"dx", m(Sphere(Vec3{}, 1)), Domain{SizeX: 1, SizeY: 1, Height: 1, Dx: 0}, "dx is 0"},
		{"huge", m(Sphere(Vec3{}, 1)), Domain{SizeX: 1e6, SizeY: 1e6, Height: 1, Dx: 1}, "bytes) of memory"},
		{"tall", m(Sphere(Vec3{}, 1)), Domain{SizeX: 1, SizeY: 1, Height: 1e300, Dx: 1}, "cells tall"},
		{"nan", nanAt, d, "NaN at (0.05"},
		{"panic", panics, d, "boom"},
	} {
		_, err := SurfaceMesh(c.s, c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := SurfaceMesh(panics, d); !errors.Is(err, errBoom) {
		t.Errorf("the panic's error should stay reachable: %v", err)
	}
}

// paperScene is a 200 x 200 cell domain of 0.5 mm cells (the paper's surgery scene
// size), 5 cm tall, with a wavy heightfield floor, a slab overhang and a tunnel.
func paperScene(b testing.TB) (Solid, Domain) {
	m := mustOf(b)
	hf := m(Heightfield(func(x, y float64) float64 { return 0.01 + 0.004*math.Sin(90*x)*math.Cos(70*y) }))
	slab := m(Box(Vec3{0.03, 0.02, 0.025}, Vec3{0.07, 0.08, 0.03}))
	tunnel := m(Cylinder(Vec3{-1, 0.05, 0.008}, Vec3{1, 0, 0}, 0.004, 3))
	return m(Union(m(Difference(hf, tunnel)), slab)), Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.05, Dx: 0.0005}
}

func BenchmarkExtractPaperScene(b *testing.B) {
	s, d := paperScene(b)
	for b.Loop() {
		if _, err := Extract(s, d, 5); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSurfaceMeshPaperScene(b *testing.B) {
	s, d := paperScene(b)
	for b.Loop() {
		if _, err := SurfaceMesh(s, d); err != nil {
			b.Fatal(err)
		}
	}
}

// meshScene is an 81920-triangle sphere mesh (radius 3 cm) half sunk into the floor of
// the paper-sized domain.
func meshScene(b testing.TB) (Solid, Domain) {
	src, _ := icosphere(6, Vec3{0.05, 0.05, 0.005}, 0.03, false)
	return parse(b, src), Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.05, Dx: 0.0005}
}

func BenchmarkExtractMeshScene(b *testing.B) {
	s, d := meshScene(b)
	for b.Loop() {
		if _, err := Extract(s, d, 5); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSurfaceMeshMeshScene(b *testing.B) {
	s, d := meshScene(b)
	for b.Loop() {
		if _, err := SurfaceMesh(s, d); err != nil {
			b.Fatal(err)
		}
	}
}
