package terrain

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPseudoNormalSignMatchesCrossings: on closed meshes (a cube, a sphere wound either
// way, the library's scanned rock) the sign Dist takes from the nearest point's
// pseudonormal is the one the crossing count gives, at random points and at points just
// off the mesh's vertices and edges, where the nearest point is a vertex or an edge.
func TestPseudoNormalSignMatchesCrossings(t *testing.T) {
	sphere, _ := icosphere(3, Vec3{0.5, 0.5, 0.5}, 0.4, false)
	inverted, _ := icosphere(3, Vec3{0.5, 0.5, 0.5}, 0.4, true)
	rock, err := LoadModel("../scripts/models/rock.stl")
	if err != nil {
		t.Fatal(err)
	}
	rockSolid, err := rock.Solid()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		s    Solid
	}{
		{"cube", parse(t, cubeOBJ)},
		{"sphere", parse(t, sphere)},
		{"inverted sphere", parse(t, inverted)},
		{"rock", rockSolid},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		m := c.s.(*meshSolid)
		if m.pseudo == nil {
			t.Fatalf("%s: no pseudonormals for a closed, consistently wound mesh", c.name)
		}
		lo, hi := m.nodes[0].lo, m.nodes[0].hi
		size := hi.Sub(lo)
		var pts []Vec3
		for range 6000 {
			pts = append(pts, Vec3{lo.X + size.X*(1.4*rng.Float64()-0.2), lo.Y + size.Y*(1.4*rng.Float64()-0.2), lo.Z + size.Z*(1.4*rng.Float64()-0.2)})
		}
		// Just off the corners and the edges' midpoints, on both sides.
		step := 1e-3 * size.Len()
		for k := 0; k < len(m.tris); k += max(1, len(m.tris)/500) {
			tr := m.tris[k]
			for _, q := range []Vec3{tr.a, tr.b, tr.c, tr.a.Add(tr.b).Scale(0.5), tr.b.Add(tr.c).Scale(0.5)} {
				off := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Unit().Scale(step)
				pts = append(pts, q.Add(off), q.Sub(off))
			}
		}
		checked := 0
		for _, p := range pts {
			d2, k := m.nearest2(p, m.reach*m.reach)
			if k < 0 || d2 < 1e-18*size.Dot(size) {
				continue // beyond the reach (crossings decide), or on the mesh
			}
			checked++
			if got, want := !m.outsideOf(p, k), m.inside(p); got != want {
				t.Errorf("%s: at %v the pseudonormal says inside %v, the crossings %v", c.name, p, got, want)
			}
		}
		if checked < 1500 {
			t.Errorf("%s: only %d points checked", c.name, checked)
		}
	}
}

// TestPseudoNormalsNeedAClosedConsistentMesh: a mesh with a face wound against its
// neighbours, or with a hole, keeps the crossing count (or the winding number).
func TestPseudoNormalsNeedAClosedConsistentMesh(t *testing.T) {
	// The cube with its first face's corners reversed: closed, but not consistent.
	flipped := strings.Replace(cubeOBJ, "f 1/1/1 4/1/1 3/1/1 2/1/1", "f 2/1/1 3/1/1 4/1/1 1/1/1", 1)
	if flipped == cubeOBJ {
		t.Fatal("the cube's first face was not found")
	}
	if m := parse(t, flipped).(*meshSolid); m.pseudo != nil {
		t.Error("a mesh with a face wound against its neighbours has pseudonormals")
	}
}

// cubesOBJ is an OBJ of axis-aligned unit cubes with their low corners at lows, each
// a separate closed piece wound outwards.
func cubesOBJ(lows ...Vec3) string {
	var b strings.Builder
	for n, o := range lows {
		for _, c := range [8][3]float64{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}} {
			fmt.Fprintf(&b, "v %g %g %g\n", o.X+c[0], o.Y+c[1], o.Z+c[2])
		}
		k := 8 * n
		for _, f := range [6][4]int{{1, 4, 3, 2}, {5, 6, 7, 8}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 4, 8, 7}, {4, 1, 5, 8}} {
			fmt.Fprintf(&b, "f %d %d %d %d\n", k+f[0], k+f[1], k+f[2], k+f[3])
		}
	}
	return b.String()
}

// TestPseudoNormalsNeedSeparatePieces: two cubes apart keep the pseudonormals; two
// cubes modelled overlapping (a surface that crosses itself, where a point inside one
// cube can be nearest to the other's face inside it) keep the crossing count, which
// gives the same solid as before.
func TestPseudoNormalsNeedSeparatePieces(t *testing.T) {
	if m := parse(t, cubesOBJ(Vec3{}, Vec3{X: 2})).(*meshSolid); m.pseudo == nil {
		t.Error("two cubes apart: no pseudonormals")
	}
	// Two cubes apart, the second wound inside out: each piece's winding is its own.
	mixed := cubesOBJ(Vec3{}) + strings.NewReplacer("f 9 12 11 10", "f 10 11 12 9", "f 13 14 15 16", "f 16 15 14 13",
		"f 9 10 14 13", "f 13 14 10 9", "f 10 11 15 14", "f 14 15 11 10", "f 11 12 16 15", "f 15 16 12 11",
		"f 12 9 13 16", "f 16 13 9 12").Replace(cubesOBJ(Vec3{}, Vec3{X: 2})[len(cubesOBJ(Vec3{})):])
	mm := parse(t, mixed).(*meshSolid)
	if mm.pseudo == nil {
		t.Fatal("two cubes apart, one wound inside out: no pseudonormals")
	}
	for _, p := range []Vec3{{0.5, 0.5, 0.5}, {2.5, 0.5, 0.5}, {0.2, 0.9, 0.3}, {2.9, 0.1, 0.6}} {
		if d := mm.Dist(p); d >= 0 {
			t.Errorf("Dist%v = %g, want negative (inside a cube)", p, d)
		}
	}
	if p := (Vec3{1.5, 0.5, 0.5}); mm.Dist(p) <= 0 {
		t.Errorf("Dist%v = %g, want positive (between the cubes)", p, mm.Dist(p))
	}
	m := parse(t, cubesOBJ(Vec3{}, Vec3{X: 0.5, Y: 0.5})).(*meshSolid)
	if m.pseudo != nil {
		t.Error("two overlapping cubes have pseudonormals")
	}
	// Inside the first cube and outside the second, nearest to the second's face at x =
	// 0.5, whose outward normal points at it: the pseudonormal would say outside; the
	// crossings count one face, inside.
	if p := (Vec3{0.45, 0.6, 0.5}); m.Dist(p) >= 0 {
		t.Errorf("Dist%v = %g, want negative: the point is inside the first cube", p, m.Dist(p))
	}
}
