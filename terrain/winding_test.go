package terrain

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// openSphere is an icosphere at c of radius r with the faces whose centroids lie above
// c.Z + cut*r removed (a hole at the top), wound outward or inside out.
func openSphere(t testing.TB, level int, c Vec3, r, cut float64, reverse bool) *Model {
	t.Helper()
	src, _ := icosphere(level, c, r, reverse)
	m, err := ReadOBJ(strings.NewReader(src), "open.obj")
	if err != nil {
		t.Fatal(err)
	}
	kept := m.Tris[:0]
	for _, tr := range m.Tris {
		z := (m.Verts[tr[0]].Z + m.Verts[tr[1]].Z + m.Verts[tr[2]].Z) / 3
		if z <= c.Z+cut*r {
			kept = append(kept, tr)
		}
	}
	m.Tris = kept
	m.src = nil
	return m
}

// TestOpenSphereByWindingNumber: a sphere with a hole at its top (a scan open at one
// end) is solid where the sphere is, away from the hole, wound either way; its open
// edges are counted.
func TestOpenSphereByWindingNumber(t *testing.T) {
	c, r := Vec3{0.3, -0.2, 0.5}, 1.5
	sphere := mustOf(t)(Sphere(c, r))
	for _, reverse := range []bool{false, true} {
		s, err := openSphere(t, 3, c, r, 0.8, reverse).Solid()
		if err != nil {
			t.Fatal(err)
		}
		if n := MeshOpenEdges(s); n == 0 {
			t.Fatal("the open sphere has no open edges")
		}
		rng := rand.New(rand.NewPCG(3, 4))
		checked := 0
		for range 4000 {
			p := c.Add(randomPoint(rng, -2.2, 2.2))
			q := p.Sub(c)
			if math.Abs(q.Len()-r) < 0.08*r || q.Z > 0.5*r { // near the surface, or by the hole
				continue
			}
			if got, want := s.Dist(p) < 0, sphere.Dist(p) < 0; got != want {
				t.Fatalf("reverse %v: %v is inside the open mesh: %v, inside the sphere: %v (winding %.3f)", reverse, p, got, want, s.(*meshSolid).winding(p))
			}
			checked++
		}
		if checked < 1000 {
			t.Fatalf("only %d points checked", checked)
		}
	}
}

// TestWindingNumberOfClosedMesh: the hierarchical winding number of a closed sphere is 1
// inside and 0 outside to within 0.05 (the dipoles' error, largest a few hundredths of the
// radius from the faces: 0.023 there; the inside test only needs the side of 1/2).
func TestWindingNumberOfClosedMesh(t *testing.T) {
	c, r := Vec3{}, 1.0
	src, in := icosphere(4, c, r, false)
	m, err := ReadOBJ(strings.NewReader(src), "s.obj")
	if err != nil {
		t.Fatal(err)
	}
	s, err := newMeshSolid(m)
	if err != nil {
		t.Fatal(err)
	}
	s.buildWinding()
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		p := randomPoint(rng, -2, 2)
		d := p.Len()
		if d > in-0.01 && d < r+0.01 {
			continue
		}
		want := 0.0
		if d < in {
			want = 1
		}
		if w := s.winding(p); math.Abs(w-want) > 0.05 {
			t.Fatalf("winding at %v (|p| = %.3f) is %.4f, want %g", p, d, w, want)
		}
	}
	if MeshOpenEdges(s) != 0 {
		t.Error("a closed sphere has open edges")
	}
}

// TestOpenMeshConcurrentDist: Dist of an open mesh from several goroutines gives what
// it gives from one (the extraction calls it concurrently).
func TestOpenMeshConcurrentDist(t *testing.T) {
	s, err := openSphere(t, 3, Vec3{}, 1, 0.7, false).Solid()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	pts := make([]Vec3, 500)
	want := make([]float64, len(pts))
	for i := range pts {
		pts[i] = randomPoint(rng, -1.5, 1.5)
		want[i] = s.Dist(pts[i])
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range pts {
				k := (i + 97*g) % len(pts)
				if got := s.Dist(pts[k]); got != want[k] {
					t.Errorf("goroutine %d: Dist%v = %g, alone %g", g, pts[k], got, want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkOpenMeshToTerrain: a 327,680-face sphere with a hole (an open scan) into a
// 200 x 200 x 5 terrain at dx 0.5 mm.
func BenchmarkOpenMeshToTerrain(b *testing.B) {
	m := openSphere(b, 7, Vec3{0.05, 0.05, 0.02}, 0.018, 0.9, false)
	d := Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.05, Dx: 0.0005}
	b.ResetTimer()
	for range b.N {
		s, err := m.Solid()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Extract(s, d, 5); err != nil {
			b.Fatal(err)
		}
	}
}
