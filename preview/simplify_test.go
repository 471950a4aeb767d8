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
