package terrain

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestPrimitiveDistances(t *testing.T) {
	m := mustOf(t)
	bx := m(Box(Vec3{0, 0, 0}, Vec3{2, 4, 6}))
	sp := m(Sphere(Vec3{1, 1, 1}, 2))
	cy := m(Cylinder(Vec3{0, 0, 0}, Vec3{0, 0, 5}, 1, 2)) // axis length is ignored
	pl := m(Plane(Vec3{0, 0, 1}, Vec3{0, 0, 3}))
	hf := m(Heightfield(func(x, y float64) float64 { return x + 2*y }))
	for _, c := range []struct {
		name string
		s    Solid
		p    Vec3
		want float64
	}{
		{"box centre", bx, Vec3{1, 2, 3}, -1},
		{"box near face inside", bx, Vec3{1, 3.5, 3}, -0.5},
		{"box face", bx, Vec3{2, 2, 3}, 0},
		{"box outside face", bx, Vec3{1, 2, 7}, 1},
		{"box outside edge", bx, Vec3{5, 8, 3}, 5},
		{"box outside corner", bx, Vec3{-1, -2, -2}, 3},
		{"sphere centre", sp, Vec3{1, 1, 1}, -2},
		{"sphere outside", sp, Vec3{1, 1, 5}, 2},
		{"cylinder axis", cy, Vec3{0, 0, 1}, -1},
		{"cylinder near cap", cy, Vec3{0, 0, 1.75}, -0.25},
		{"cylinder near side", cy, Vec3{0.9, 0, 1}, -0.1},
		{"cylinder radial", cy, Vec3{3, 0, 1}, 2},
		{"cylinder above cap", cy, Vec3{0.5, 0, 4}, 2},
		{"cylinder below base", cy, Vec3{0, 0.5, -1}, 1},
		{"cylinder rim", cy, Vec3{4, 0, 6}, 5},
		{"plane above", pl, Vec3{7, -3, 3}, 2},
		{"plane below", pl, Vec3{7, -3, 0}, -1},
		{"heightfield above", hf, Vec3{1, 1, 5}, 2},
		{"heightfield below", hf, Vec3{1, 1, 0}, -3},
	} {
		if got := c.s.Dist(c.p); !near(got, c.want, 1e-12) {
			t.Errorf("%s: Dist%v = %g, want %g", c.name, c.p, got, c.want)
		}
	}
	// A slanted cylinder: the distance is measured across its axis.
	sc := m(Cylinder(Vec3{1, 1, 1}, Vec3{1, 1, 0}, 0.5, 10))
	p := Vec3{1, 1, 1}.Add(Vec3{1, 1, 0}.Unit().Scale(3)).Add(Vec3{0, 0, 2})
	if got := sc.Dist(p); !near(got, 1.5, 1e-12) {
		t.Errorf("slanted cylinder: Dist = %g, want 1.5", got)
	}
	// A slanted plane: exact distance along its normal.
	sl := m(Plane(Vec3{0, 0, 0}, Vec3{-1, 0, 1}))
	if got := sl.Dist(Vec3{0, 0, 1}); !near(got, math.Sqrt2/2, 1e-12) {
		t.Errorf("slanted plane: Dist = %g, want %g", got, math.Sqrt2/2)
	}
}

// mustOf returns a function that unwraps a constructor's (Solid, error), failing t on
// an error.
func mustOf(t testing.TB) func(Solid, error) Solid {
	return func(s Solid, err error) Solid {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func TestCombinations(t *testing.T) {
	m := mustOf(t)
	a := m(Box(Vec3{0, 0, 0}, Vec3{2, 2, 2}))
	b := m(Sphere(Vec3{2, 1, 1}, 0.5))
	u := m(Union(a, b))
	in := m(Intersection(a, b))
	df := m(Difference(a, b))
	for _, c := range []struct {
		name string
		s    Solid
		p    Vec3
		want float64
	}{
		{"union inside b only", u, Vec3{2.3, 1, 1}, -0.2},
		{"union far", u, Vec3{4, 1, 1}, 1.5},
		{"intersection inside both", in, Vec3{1.9, 1, 1}, -0.1},
		{"intersection in b outside a", in, Vec3{2.3, 1, 1}, 0.3},
		{"difference in hole", df, Vec3{1.9, 1, 1}, 0.4},
		{"difference in a", df, Vec3{0.5, 1, 1}, -0.5},
	} {
		if got := c.s.Dist(c.p); !near(got, c.want, 1e-12) {
			t.Errorf("%s: Dist%v = %g, want %g", c.name, c.p, got, c.want)
		}
	}

	// Translate, and a quarter turn about z: the box [0,2]x[0,1]x[0,1] turns into
	// [-1,0]x[0,2]x[0,1].
	long := m(Box(Vec3{0, 0, 0}, Vec3{2, 1, 1}))
	rot := m(Rotate(long, Vec3{0, 0, 3}, math.Pi/2))
	want := m(Box(Vec3{-1, 0, 0}, Vec3{0, 2, 1}))
	moved := m(Translate(long, Vec3{1, 2, 3}))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		p := Vec3{rng.Float64()*6 - 3, rng.Float64()*6 - 3, rng.Float64()*6 - 3}
		if g, w := rot.Dist(p), want.Dist(p); !near(g, w, 1e-12) {
			t.Fatalf("rotated box at %v: %g, want %g", p, g, w)
		}
		if g, w := moved.Dist(p), long.Dist(p.Sub(Vec3{1, 2, 3})); g != w {
			t.Fatalf("translated box at %v: %g, want %g", p, g, w)
		}
	}
	// Rotation about a slanted axis keeps distances to the axis.
	tilt := m(Rotate(m(Sphere(Vec3{1, 1, 1}, 0.5)), Vec3{1, 1, 1}, 1.234))
	if got := tilt.Dist(Vec3{1, 1, 1}); !near(got, -0.5, 1e-12) {
		t.Errorf("sphere on the rotation axis moved: Dist = %g", got)
	}
}

func TestConstructorErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	s := mustOf(t)(Sphere(Vec3{}, 1))
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"box nan", second(Box(Vec3{nan, 0, 0}, Vec3{1, 1, 1})), "box min"},
		{"box inf", second(Box(Vec3{0, 0, 0}, Vec3{1, inf, 1})), "box max"},
		{"box inverted", second(Box(Vec3{0, 0, 2}, Vec3{1, 1, 1})), "max.z"},
		{"box flat", second(Box(Vec3{0, 1, 0}, Vec3{1, 1, 1})), "max.y"},
		{"sphere radius 0", second(Sphere(Vec3{}, 0)), "sphere radius"},
		{"sphere radius nan", second(Sphere(Vec3{}, nan)), "sphere radius"},
		{"sphere centre", second(Sphere(Vec3{0, 0, inf}, 1)), "sphere center"},
		{"cylinder axis", second(Cylinder(Vec3{}, Vec3{}, 1, 1)), "cylinder axis"},
		{"cylinder radius", second(Cylinder(Vec3{}, Vec3{0, 0, 1}, -1, 1)), "cylinder radius"},
		{"cylinder length", second(Cylinder(Vec3{}, Vec3{0, 0, 1}, 1, 0)), "cylinder length"},
		{"cylinder base", second(Cylinder(Vec3{nan, 0, 0}, Vec3{0, 0, 1}, 1, 1)), "cylinder base"},
		{"plane normal", second(Plane(Vec3{}, Vec3{})), "plane normal"},
		{"plane point", second(Plane(Vec3{inf, 0, 0}, Vec3{0, 0, 1})), "plane point"},
		{"heightfield nil", second(Heightfield(nil)), "heightfield fn"},
		{"union empty", second(Union()), "union"},
		{"union nil", second(Union(s, nil)), "solid 2 is nil"},
		{"intersection nil", second(Intersection(nil)), "solid 1 is nil"},
		{"difference nil", second(Difference(s, nil)), "solid 2 is nil"},
		{"translate nil", second(Translate(nil, Vec3{})), "solid is nil"},
		{"translate nan", second(Translate(s, Vec3{0, nan, 0})), "translation"},
		{"rotate axis", second(Rotate(s, Vec3{}, 1)), "rotation axis"},
		{"rotate angle", second(Rotate(s, Vec3{0, 0, 1}, inf)), "rotation angle"},
		{"serialized nil", second(Serialized(nil)), "solid is nil"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, c.err, c.want)
		}
	}
}

func second(_ Solid, err error) error { return err }

type plainSolid struct{}

func (plainSolid) Dist(p Vec3) float64 { return p.Z }

func TestBounds(t *testing.T) {
	m := mustOf(t)
	bx := m(Box(Vec3{}, Vec3{1, 1, 1}))
	hf := m(Heightfield(func(x, y float64) float64 { return 0 }))
	for _, c := range []struct {
		name string
		s    Solid
		want Bound
	}{
		{"box", bx, Lipschitz},
		{"sphere", m(Sphere(Vec3{}, 1)), Lipschitz},
		{"cylinder", m(Cylinder(Vec3{}, Vec3{1, 0, 0}, 1, 1)), Lipschitz},
		{"plane", m(Plane(Vec3{}, Vec3{0, 0, 1})), Lipschitz},
		{"heightfield", hf, VerticalBound},
		{"user type", plainSolid{}, SignOnly},
		{"union of exact", m(Union(bx, bx)), Lipschitz},
		{"union with heightfield", m(Union(bx, hf)), VerticalBound},
		{"intersection with user type", m(Intersection(bx, plainSolid{})), SignOnly},
		{"difference with heightfield", m(Difference(bx, hf)), VerticalBound},
		{"translated heightfield", m(Translate(hf, Vec3{1, 2, 3})), VerticalBound},
		{"heightfield turned about z", m(Rotate(hf, Vec3{0, 0, 2}, 0.7)), VerticalBound},
		{"heightfield tilted", m(Rotate(hf, Vec3{1, 0, 0}, 0.7)), SignOnly},
		{"box tilted", m(Rotate(bx, Vec3{1, 2, 3}, 0.7)), Lipschitz},
		{"serialized heightfield", m(Serialized(hf)), VerticalBound},
	} {
		if got := BoundOf(c.s); got != c.want {
			t.Errorf("%s: bound %v, want %v", c.name, got, c.want)
		}
		if got := IsLipschitz(c.s); got != (c.want == Lipschitz) {
			t.Errorf("%s: IsLipschitz = %v", c.name, got)
		}
	}
}

// TestLipschitzHolds samples a composed scene that declares Lipschitz and checks the
// declaration: |f(p) - f(q)| <= |p - q|.
func TestLipschitzHolds(t *testing.T) {
	m := mustOf(t)
	scene := m(Union(
		m(Difference(m(Box(Vec3{-1, -1, -1}, Vec3{1, 1, 0.2})), m(Sphere(Vec3{0.3, 0, 0.2}, 0.4)))),
		m(Rotate(m(Cylinder(Vec3{0, 0, 0}, Vec3{1, 0, 0}, 0.2, 1)), Vec3{0, 1, 1}, 0.4)),
		m(Intersection(m(Plane(Vec3{0, 0, 0.5}, Vec3{1, 1, 1})), m(Sphere(Vec3{0, 0, 0.5}, 0.6)))),
	))
	if !IsLipschitz(scene) {
		t.Fatal("scene is not Lipschitz")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		p := Vec3{rng.Float64()*3 - 1.5, rng.Float64()*3 - 1.5, rng.Float64()*3 - 1.5}
		q := p.Add(Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(0.05))
		if diff, dist := math.Abs(scene.Dist(p)-scene.Dist(q)), p.Sub(q).Len(); diff > dist*(1+1e-9) {
			t.Fatalf("|f(%v) - f(%v)| = %g > |p - q| = %g", p, q, diff, dist)
		}
	}
}

func TestSerialized(t *testing.T) {
	calls := 0 // unguarded on purpose: the race detector flags it unless Dist is serialized
	m := mustOf(t)
	hf := m(Heightfield(func(x, y float64) float64 {
		calls++
		if x < 0 {
			panic(errors.New("boom"))
		}
		return 0
	}))
	s := m(Serialized(hf))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				if d := s.Dist(Vec3{1, 0, float64(i)}); d != float64(i) {
					t.Errorf("Dist = %g, want %d", d, i)
				}
			}
		}()
	}
	wg.Wait()
	if calls != 400 {
		t.Errorf("fn called %d times, want 400", calls)
	}
	// A panic releases the lock: the next call does not deadlock.
	for range 2 {
		func() {
			defer func() { _ = recover() }()
			s.Dist(Vec3{-1, 0, 0})
		}()
	}
	if d := s.Dist(Vec3{1, 0, 2}); d != 2 {
		t.Errorf("after a panic Dist = %g, want 2", d)
	}
}
