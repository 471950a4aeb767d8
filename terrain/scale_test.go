package terrain

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestScale: a scaled sphere is the sphere of scaled centre and radius (exact distances
// at random points), the bound is kept, and a bad factor is an error naming it.
func TestScale(t *testing.T) {
	m := mustOf(t)
	ball := m(Sphere(Vec3{0.1, -0.2, 0.3}, 0.5))
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []float64{0.001, 0.37, 1, 2.5, 1000} {
		s := m(Scale(ball, k))
		want := m(Sphere(Vec3{0.1, -0.2, 0.3}.Scale(k), 0.5*k))
		for range 500 {
			p := randomPoint(rng, -2*k, 2*k)
			if got, w := s.Dist(p), want.Dist(p); !near(got, w, 1e-12*k) {
				t.Fatalf("scale %g: Dist%v = %g, the sphere of radius %g gives %g", k, p, got, 0.5*k, w)
			}
		}
		if BoundOf(s) != Lipschitz {
			t.Errorf("scale %g of a sphere: bound %v, want Lipschitz", k, BoundOf(s))
		}
	}
	hf := m(Heightfield(func(x, y float64) float64 { return x }))
	if b := BoundOf(m(Scale(hf, 3))); b != VerticalBound {
		t.Errorf("a scaled heightfield's bound is %v, want vertical bound", b)
	}
	if d := m(Scale(hf, 3)).Dist(Vec3{3, 0, 6}); !near(d, 3, 1e-12) {
		t.Errorf("scaled heightfield z = x: Dist(3, 0, 6) = %g, want 3", d)
	}
	for _, k := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := Scale(ball, k)
		if err == nil || !strings.Contains(err.Error(), "scale factor is") {
			t.Errorf("Scale by %g: error %v, want one naming the scale factor", k, err)
		}
	}
	if _, err := Scale(nil, 2); err == nil {
		t.Errorf("Scale(nil) gave no error")
	}
}
