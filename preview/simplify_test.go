package preview

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// TestDisplayMeshKeepsTheShape: a sphere's terrain mesh, simplified to a budget, keeps
// every vertex near the sphere, normals unit and pointing outward, and fits the budget;
// a mesh within budget is returned as it is.
func TestDisplayMeshKeepsTheShape(t *testing.T) {
	c := terrain.Vec3{X: 0.05, Y: 0.05, Z: 0.025}
	const radius = 0.02
	s, err := terrain.Sphere(c, radius)
	if err != nil {
		t.Fatal(err)
	}
	m, err := terrain.SurfaceMesh(s, terrain.Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.05, Dx: 0.0005})
	if err != nil {
		t.Fatal(err)
	}
	if displayMesh(m, m.NumTriangles()) != m {
		t.Error("a mesh within its budget was copied")
	}
	budget := m.NumTriangles() / 6
	d := displayMesh(m, budget)
	if n := d.NumTriangles(); n > budget || n < budget/8 {
		t.Fatalf("%d triangles simplified to %d for a budget of %d", m.NumTriangles(), n, budget)
	}
	cell := 0.0
	for v := range d.NumVertices() {
		p := terrain.Vec3{X: float64(d.Positions[3*v]), Y: float64(d.Positions[3*v+1]), Z: float64(d.Positions[3*v+2])}
		r := p.Sub(c)
		dist := math.Sqrt(r.Dot(r))
		if dist > radius+0.005 { // the domain's walls and floor, also in the mesh
			continue
		}
		cell = max(cell, math.Abs(dist-radius))
		n := terrain.Vec3{X: float64(d.Normals[3*v]), Y: float64(d.Normals[3*v+1]), Z: float64(d.Normals[3*v+2])}
		if l := math.Sqrt(n.Dot(n)); math.Abs(l-1) > 1e-5 {
			t.Fatalf("vertex %d: normal length %g", v, l)
		}
		if n.Dot(r) <= 0 {
			t.Fatalf("vertex %d at %v: normal %v points into the sphere", v, p, n)
		}
	}
	if cell > 0.002 {
		t.Errorf("a simplified vertex lies %g m off the sphere of radius %g", cell, radius)
	}
	for i, ix := range d.Indices {
		if int(ix) >= d.NumVertices() {
			t.Fatalf("index %d = %d of %d vertices", i, ix, d.NumVertices())
		}
	}
}

func TestIsSoftwareRenderer(t *testing.T) {
	for name, want := range map[string]bool{
		"llvmpipe (LLVM 15.0.6, 256 bits)": true, "softpipe": true, "Google SwiftShader": true,
		"NVIDIA H100 PCIe/PCIe/SSE2": false, "Mesa Intel(R) UHD Graphics 620 (KBL GT2)": false,
	} {
		if got := isSoftwareRenderer(name); got != want {
			t.Errorf("%q: software %v, want %v", name, got, want)
		}
	}
}

// TestDisplayMeshKeepsSharpEdges: a box standing on the floor (sharp rims on top, a
// crease at its foot, none of them on the clustering grid's planes), simplified to a
// sixth of its triangles, keeps every vertex on the surface (within a twentieth of a
// clustering cell, where the cells' mean positions cut the rims' corners by up to a
// third of a cell, cell after cell: a sawtooth), and shades each triangle with normals
// within 30 degrees of its own (where the cells' summed normals point between the faces
// that meet at a rim).
func TestDisplayMeshKeepsSharpEdges(t *testing.T) {
	box, err := terrain.Box(terrain.Vec3{X: 0.0213, Y: 0.0237, Z: 0}, terrain.Vec3{X: 0.0771, Y: 0.0689, Z: 0.0191})
	if err != nil {
		t.Fatal(err)
	}
	m, err := terrain.SurfaceMesh(box, terrain.Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.03, Dx: 0.0005})
	if err != nil {
		t.Fatal(err)
	}
	budget := m.NumTriangles() / 6
	d, cell := simplify(m, budget)
	if d == m {
		t.Fatal("the mesh was not simplified")
	}
	var worst float64
	for v := range d.NumVertices() {
		p := terrain.Vec3{X: float64(d.Positions[3*v]), Y: float64(d.Positions[3*v+1]), Z: float64(d.Positions[3*v+2])}
		if p.Z < 1e-6 || p.X < 1e-6 || p.Y < 1e-6 || p.X > 0.1-1e-6 || p.Y > 0.1-1e-6 || p.Z > 0.03-1e-6 {
			continue // the floor slab and the domain's walls
		}
		worst = max(worst, math.Abs(min(box.Dist(p), p.Z)))
	}
	var bent int
	var worstAngle float64
	for tri := range d.NumTriangles() {
		var p [3]terrain.Vec3
		for k := range 3 {
			v := d.Indices[3*tri+k]
			p[k] = terrain.Vec3{X: float64(d.Positions[3*v]), Y: float64(d.Positions[3*v+1]), Z: float64(d.Positions[3*v+2])}
		}
		f := p[1].Sub(p[0]).Cross(p[2].Sub(p[0]))
		fl := math.Sqrt(f.Dot(f))
		if fl < 1e-12 {
			continue
		}
		for k := range 3 {
			v := d.Indices[3*tri+k]
			n := terrain.Vec3{X: float64(d.Normals[3*v]), Y: float64(d.Normals[3*v+1]), Z: float64(d.Normals[3*v+2])}
			a := math.Acos(min(1, n.Dot(f)/fl)) * 180 / math.Pi
			worstAngle = max(worstAngle, a)
			if a > 30.5 {
				bent++
			}
		}
	}
	t.Logf("%d triangles to %d (cell %.2f mm): vertices at most %.4f mm off the box; corner normals at most %.1f degrees off their face, %d beyond 30",
		m.NumTriangles(), d.NumTriangles(), cell*1e3, worst*1e3, worstAngle, bent)
	if worst > cell/20 {
		t.Errorf("a simplified vertex lies %.3f mm off the box: want at most %.3f (a twentieth of the %.2f mm cell)", worst*1e3, cell/20*1e3, cell*1e3)
	}
	if bent > 0 {
		t.Errorf("%d triangle corners are shaded with normals more than 30 degrees off their face", bent)
	}
}
