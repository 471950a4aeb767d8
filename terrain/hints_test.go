package terrain

import (
	"math"
	"testing"
)

// TestFarSignCarried: a probe's queries along rows through the rock model's box (cell by
// cell, as the lattice and the columns' rays go) give Dist's values bit for bit, with
// most far points' signs carried instead of cast, inside the rock and out; and a solid
// made of the rock (scaled, turned, moved, in a union, a difference and an
// intersection) too.
func TestFarSignCarried(t *testing.T) {
	rock, err := LoadModel("../scripts/models/rock.stl")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := rock.Solid()
	if err != nil {
		t.Fatal(err)
	}
	m := rs.(*meshSolid)
	lo, hi := m.nodes[0].lo, m.nodes[0].hi
	scaled, _ := Scale(rs, 0.001)
	turned, _ := Rotate(scaled, Vec3{X: 1}, math.Pi/2)
	moved, _ := Translate(turned, Vec3{X: 0.05, Y: 0.05, Z: 0.002})
	plane, _ := Plane(Vec3{Z: 0.002}, Vec3{Z: 1})
	ball, _ := Sphere(Vec3{X: 0.05, Y: 0.05, Z: 0.02}, 0.012)
	u, _ := Union(plane, moved)
	d, _ := Difference(u, ball)
	box, _ := Box(Vec3{}, Vec3{X: 0.1, Y: 0.1, Z: 0.05})
	in, _ := Intersection(d, box)
	for _, c := range []struct {
		name   string
		s      Solid
		lo, hi Vec3
	}{
		{"rock", rs, lo, hi},
		{"composed", in, Vec3{X: 0.01, Y: 0.01}, Vec3{X: 0.09, Y: 0.09, Z: 0.045}},
	} {
		pr := probe{s: c.s}
		size := c.hi.Sub(c.lo)
		step := size.Len() / 300
		n, inside := 0, 0
		for z := c.lo.Z - 0.1*size.Z; z < c.hi.Z+0.1*size.Z; z += 7 * step {
			for y := c.lo.Y - 0.1*size.Y; y < c.hi.Y+0.1*size.Y; y += 5 * step {
				for x := c.lo.X - 0.1*size.X; x < c.hi.X+0.1*size.X; x += step {
					p := Vec3{x, y, z}
					got, err := pr.dist(p)
					if err != nil {
						t.Fatal(err)
					}
					if want := c.s.Dist(p); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%s: at %v the probe gives %v, Dist %v", c.name, p, got, want)
					}
					n++
					if got < 0 {
						inside++
					}
				}
			}
		}
		if pr.h.carried < n/4 || inside < n/20 {
			t.Errorf("%s: %d points, %d inside, %d far signs carried: want a quarter carried and some inside", c.name, n, inside, pr.h.carried)
		}
		t.Logf("%s: %d points, %d inside, %d far signs carried", c.name, n, inside, pr.h.carried)
	}
}
