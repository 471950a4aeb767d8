package surface

import (
	"math"
	"testing"
)

// Drops become closed spheres of their radius: outward counter-clockwise faces, unit
// radial normals, opacity radius/depth_max, appended after what the mesh held.
func TestAppendDrops(t *testing.T) {
	m := &Mesh{Positions: []float32{0, 0, 0}, Normals: []float32{0, 0, 1}, Opacity: []float32{0.5}}
	drops := []Drop{{X: 0.01, Y: 0.02, Z: 0.03, Radius: 0.001}, {X: 0.05, Y: 0.02, Z: 0.01, Radius: 0.004}}
	m.AppendDrops(drops, 0.002)
	if m.NumVertices() != 1+24 || m.NumTriangles() != 40 {
		t.Fatalf("%d vertices, %d triangles; want 25 and 40", m.NumVertices(), m.NumTriangles())
	}
	edges := map[[2]uint32]int{}
	for k := 0; k < len(m.Indices); k += 3 {
		var p [3][3]float64
		for j := range 3 {
			v := m.Indices[k+j]
			for a := range 3 {
				p[j][a] = float64(m.Positions[3*v+uint32(a)])
			}
			edges[[2]uint32{m.Indices[k+j], m.Indices[k+(j+1)%3]}]++
		}
		d := drops[k/60]
		c := [3]float64{float64(d.X), float64(d.Y), float64(d.Z)}
		u := [3]float64{p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]}
		w := [3]float64{p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]}
		n := [3]float64{u[1]*w[2] - u[2]*w[1], u[2]*w[0] - u[0]*w[2], u[0]*w[1] - u[1]*w[0]}
		out := (p[0][0]-c[0])*n[0] + (p[0][1]-c[1])*n[1] + (p[0][2]-c[2])*n[2]
		if out <= 0 {
			t.Fatalf("triangle %d faces inward", k/3)
		}
	}
	for e, n := range edges { // closed and consistently wound: each edge once each way
		if n != 1 || edges[[2]uint32{e[1], e[0]}] != 1 {
			t.Fatalf("edge %v is used %d times, its reverse %d", e, n, edges[[2]uint32{e[1], e[0]}])
		}
	}
	for v := 1; v < m.NumVertices(); v++ {
		d := drops[(v-1)/12]
		r := math.Hypot(math.Hypot(float64(m.Positions[3*v]-d.X), float64(m.Positions[3*v+1]-d.Y)), float64(m.Positions[3*v+2]-d.Z))
		nn := math.Hypot(math.Hypot(float64(m.Normals[3*v]), float64(m.Normals[3*v+1])), float64(m.Normals[3*v+2]))
		if math.Abs(r-float64(d.Radius)) > 1e-6*float64(d.Radius)+1e-9 || math.Abs(nn-1) > 1e-6 {
			t.Fatalf("vertex %d: %g from the centre (radius %g), normal length %g", v, r, d.Radius, nn)
		}
		if want := float32(min(float64(d.Radius)/0.002, 1)); m.Opacity[v] != want {
			t.Fatalf("vertex %d: opacity %g, want %g", v, m.Opacity[v], want)
		}
	}
	if a := testing.AllocsPerRun(10, func() {
		m.Positions, m.Normals, m.Opacity, m.Indices = m.Positions[:3], m.Normals[:3], m.Opacity[:1], m.Indices[:0]
		m.AppendDrops(drops, 0.002)
	}); a != 0 {
		t.Fatalf("AppendDrops allocates %g times once grown", a)
	}
}
