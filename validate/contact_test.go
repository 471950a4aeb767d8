package validate

import (
	"math"
	"testing"
)

// A drop much smaller than the capillary length is a spherical cap: the Young-Laplace
// integration gives the cap's footprint radius and height, found in closed form.
func TestSessileDropSmallIsACap(t *testing.T) {
	const vol, lc = 1e-12, 0.1 // a picolitre: Bond number (R / l_c)^2 ~ 1e-6
	for _, deg := range []float64{30, 60, 90} {
		th := deg * math.Pi / 180
		d, err := NewSessileDrop(vol, th, lc)
		if err != nil {
			t.Fatal(err)
		}
		R := SphericalCapRadius(vol, th)
		h := R * (1 - math.Cos(th)) / math.Sin(th) // the cap's height
		if math.Abs(d.Radius-R) > 1e-4*R || math.Abs(d.Apex-h) > 1e-4*h {
			t.Errorf("%g deg: radius %g, apex %g; the cap's %g, %g", deg, d.Radius, d.Apex, R, h)
		}
	}
}

// Gravity flattens a drop: at the same volume and angle it is wider and lower than the
// cap, and a drop much wider than l_c is a puddle about 2 l_c sin(theta/2) thick.
func TestSessileDropGravity(t *testing.T) {
	th := 30 * math.Pi / 180
	lc := 0.00271
	d, err := NewSessileDrop(5e-9, th, lc)
	if err != nil {
		t.Fatal(err)
	}
	R := SphericalCapRadius(5e-9, th)
	if !(d.Radius > R && d.Apex < R*(1-math.Cos(th))/math.Sin(th)) {
		t.Errorf("5 microlitres: radius %g, apex %g; the cap's radius %g: want wider and lower", d.Radius, d.Apex, R)
	}
	// A puddle is a little thicker than the wetting head (its rim's curvature adds
	// O(l_c / R)): 10 ml spread 18 l_c wide is within 3%, 1 ml within 10%.
	for _, c := range []struct{ vol, tol float64 }{{1e-5, 0.03}, {1e-6, 0.10}} {
		p, err := NewSessileDrop(c.vol, th, lc)
		if err != nil {
			t.Fatal(err)
		}
		if head := 2 * lc * math.Sin(th/2); !(p.Apex > head && p.Apex < (1+c.tol)*head) {
			t.Errorf("a %g ml puddle: apex %g, want above the wetting head %g by under %g%%", c.vol*1e6, p.Apex, head, 100*c.tol)
		}
	}
	if _, err := NewSessileDrop(1e-3, th, lc); err == nil {
		t.Error("a litre: want an error (beyond the integration's reach), not a wrong shape")
	}
	if _, err := NewSessileDrop(-1, th, lc); err == nil {
		t.Error("a negative volume: want an error")
	}
}

// shapeOf counts 4-connected wet pieces and 8-connected dry holes that do not reach the
// border.
func TestWetShape(t *testing.T) {
	grid := []string{
		"......",
		".####.",
		".#.##.",
		".####.",
		"....#.",
		"#.....",
	}
	n := len(grid)
	d := make([]float64, n*n)
	for y, row := range grid {
		for x, ch := range row {
			if ch == '#' {
				d[y*n+x] = 1
			}
		}
	}
	s := shapeOf(n, n, 0.5, d, 0)
	if s.Pieces != 2 || s.Holes != 1 || s.Area != 13*0.25 {
		t.Errorf("pieces %d holes %d area %g: want 2, 1, 3.25", s.Pieces, s.Holes, s.Area)
	}
}

// A bound passes on its own side, whatever the distance.
func TestResultLimits(t *testing.T) {
	for _, c := range []struct {
		limit    string
		measured float64
		pass     bool
	}{{AtMost, 0.001, true}, {AtMost, 0.006, false}, {AtLeast, 0.09, true}, {AtLeast, 0.004, false}, {"", 0.005, true}, {"", 0.004, false}} {
		r := Result{Measured: c.measured, Expected: 0.005, Limit: c.limit}
		r.finish()
		if r.Pass != c.pass {
			t.Errorf("%q %g against 0.005: pass %v, want %v (error %g)", c.limit, c.measured, r.Pass, c.pass, r.RelErr)
		}
	}
}
