package surface

import (
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
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

// With FallDrop set, a pool on a ledge and a pool at its foot are two surfaces, not one
// joined by a sheet down the cliff; without it (the paper's rule) the sheet is there.
// Pools on one level, and a step lower than FallDrop, stay joined either way.
func TestFallDropCutsTheSheet(t *testing.T) {
	// Three columns of cells at 20 mm (the ledge), three at 1 mm (its foot), 4 rows;
	// the last two cells of each row step down only 1 mm.
	row := [][]terrain.Interval{floor(20), floor(20), floor(20), floor(1), floor(1), floor(0)}
	var cells [][]terrain.Interval
	for range 4 {
		cells = append(cells, row...)
	}
	c := grid(t, 6, 4, cells...)
	h := make([]float64, 0, 24)
	for range 4 {
		h = append(h, 21, 21, 21, 2, 2, 2)
	}
	span := func(s Settings) (steep, flat int) {
		b := newBuilder(t, c, nil, s)
		m := b.Build(heightsMM(c, h...))
		for k := 0; k < len(m.Indices); k += 3 {
			lo, hi := math.Inf(1), math.Inf(-1)
			for j := range 3 {
				z := float64(m.Positions[3*m.Indices[k+j]+2])
				lo, hi = math.Min(lo, z), math.Max(hi, z)
			}
			if hi-lo > 10*mm {
				steep++
			} else {
				flat++
			}
		}
		return steep, flat
	}
	s := noMeniscus()
	steep, flat := span(s)
	if steep == 0 {
		t.Fatalf("FallDrop 0: no triangle spans the cliff; the paper's rule links the two pools")
	}
	s.FallDrop = 1.5 * mm
	steepCut, flatCut := span(s)
	if steepCut != 0 {
		t.Fatalf("FallDrop 1.5 mm: %d triangles still span the 18 mm cliff", steepCut)
	}
	if flatCut != flat {
		t.Fatalf("FallDrop 1.5 mm: %d flat triangles, %d without it: the pools themselves changed", flatCut, flat)
	}
	s.FallDrop = -1
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "FallDrop is -1") {
		t.Fatalf("FallDrop -1: %v", err)
	}
}

// BenchmarkAppendDrops: a stream of 3,000 drops (the rock scene's) appended to a mesh, as
// every frame does.
func BenchmarkAppendDrops(b *testing.B) {
	drops := make([]Drop, 3000)
	for i := range drops {
		drops[i] = Drop{X: float32(i%60) * 1e-3, Y: float32(i/60) * 1e-3, Z: 0.01, Radius: 3e-4}
	}
	m := &Mesh{}
	for range b.N {
		m.Positions, m.Normals, m.Opacity, m.Indices = m.Positions[:0], m.Normals[:0], m.Opacity[:0], m.Indices[:0]
		m.AppendDrops(drops, 0.002)
	}
}
