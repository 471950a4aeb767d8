package validate

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
)

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// Stoker's middle state from SWASHES' polynomial against the same state found another
// way: Newton on the shock's Rankine-Hugoniot relation u = (hm - hr) sqrt(g (hm + hr) /
// (2 hm hr)) meeting the rarefaction's Riemann invariant u = 2 (sqrt(g hl) - sqrt(g hm)).
func TestStokerMiddleState(t *testing.T) {
	const g, hl, hr = 9.81, 0.005, 0.001
	s, err := NewStoker(g, hl, hr, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := func(h float64) float64 {
		return 2*(math.Sqrt(g*hl)-math.Sqrt(g*h)) - (h-hr)*math.Sqrt(g*(h+hr)/(2*h*hr))
	}
	h := (hl + hr) / 2
	for range 50 {
		d := 1e-9 * h
		h -= f(h) / ((f(h+d) - f(h-d)) / (2 * d))
	}
	if relErr(s.Hm(), h) > 1e-9 {
		t.Errorf("hm = %.12g m from the polynomial, %.12g m from Rankine-Hugoniot", s.Hm(), h)
	}
	if relErr(s.Hm(), 2.539357e-3) > 1e-6 {
		t.Errorf("hm = %.7g m, want 2.539357 mm", s.Hm())
	}
	// The plateau's velocity is the shock relation's too, and the shock conserves mass.
	uRH := (h - hr) * math.Sqrt(g*(h+hr)/(2*h*hr))
	if relErr(s.Um(), uRH) > 1e-8 {
		t.Errorf("um = %g, Rankine-Hugoniot %g", s.Um(), uRH)
	}
	if v := s.ShockSpeed(); math.Abs(v*(s.Hm()-hr)-s.Hm()*s.Um()) > 1e-12 {
		t.Errorf("shock speed %g does not conserve mass", v)
	}
	t.Logf("Stoker hl 5 mm, hr 1 mm: hm %.6f mm, um %.5f m/s, shock %.5f m/s", s.Hm()*1e3, s.Um(), s.ShockSpeed())
	// Mass over a domain holding the whole wave is the initial mass.
	checkMass(t, "stoker", -2, 2, 2*hl+2*hr, func(x float64) float64 { h, _ := s.At(x, 1); return h })
	if _, err := NewStoker(g, hl, 0, 0); err == nil {
		t.Error("NewStoker took hr = 0")
	}
}

// checkMass integrates f over [a, b] (midpoints) and compares with want.
func checkMass(t *testing.T, name string, a, b, want float64, f func(x float64) float64) {
	t.Helper()
	const n = 400000
	var s float64
	for k := range n {
		s += f(a + (float64(k)+0.5)*(b-a)/n)
	}
	s *= (b - a) / n
	if relErr(s, want) > 1e-5 {
		t.Errorf("%s: mass %.8g, want %.8g", name, s, want)
	}
}

// Ritter's profile holds the dam's mass, its front at x0 + 2 c0 t, and the threshold front
// formula is where the profile's depth is eps hl.
func TestRitter(t *testing.T) {
	r := Ritter{G: 9.81, Hl: 0.01, X0: 0.4}
	const T = 0.8
	checkMass(t, "ritter", 0, 1.5, 0.01*0.4, func(x float64) float64 { h, _ := r.At(x, T); return h })
	xf := r.Front(0.01, T)
	if h, _ := r.At(xf, T); relErr(h, 0.01*0.01) > 1e-9 {
		t.Errorf("depth at the 1%% front %g, want %g", h, 1e-4)
	}
	c0 := math.Sqrt(9.81 * 0.01)
	if h, u := r.At(0.4, T); relErr(h, 4.0/9*0.01) > 1e-12 || relErr(u, 2.0/3*c0) > 1e-12 {
		t.Errorf("at the dam: h %g u %g, want 4/9 hl and 2/3 c0", h, u)
	}
	if h, _ := r.At(0.4+2*c0*T+1e-9, T); h != 0 {
		t.Errorf("ahead of the front: h %g", h)
	}
}

// Thacker's period is 2 pi a / sqrt(2 g h0); the lens keeps its volume (pi h0 a^2 / 2)
// and its centre of mass is eta cos(omega t).
func TestThacker(t *testing.T) {
	th := Thacker{G: 9.81, H0: 0.1, A: 1, Eta: 0.5}
	if want := 2 * math.Pi / math.Sqrt(2*9.81*0.1); relErr(th.Period(), want) > 1e-15 {
		t.Errorf("period %g, want %g", th.Period(), want)
	}
	if relErr(th.Period(), 4.4857) > 1e-4 { // SWASHES' 2D planar case: T = 4.4857 s
		t.Errorf("period %g, want SWASHES' 4.4857 s", th.Period())
	}
	for _, tt := range []float64{0, 0.3 * th.Period(), 0.77 * th.Period()} {
		const n = 800
		var v, mx float64
		for i := range n {
			for j := range n {
				x, y := -2+4*(float64(i)+0.5)/n, -2+4*(float64(j)+0.5)/n
				d := th.Depth(x, y, tt)
				v += d
				mx += d * x
			}
		}
		cell := 16.0 / (n * n)
		if relErr(v*cell, math.Pi*0.1/2) > 1e-3 {
			t.Errorf("t %g: volume %g, want pi h0 a^2 / 2 = %g", tt, v*cell, math.Pi*0.05)
		}
		if math.Abs(mx/v-th.CentreX(tt)) > 1e-3 {
			t.Errorf("t %g: centre %g, want %g", tt, mx/v, th.CentreX(tt))
		}
		// Surface planar: depth + bed is linear in x where wet.
		z := func(x float64) float64 { return th.Depth(x, 0, tt) + th.Bed(x, 0) }
		xc := th.CentreX(tt)
		if s1, s2 := z(xc+0.1)-z(xc), z(xc)-z(xc-0.1); math.Abs(s1-s2) > 1e-12 {
			t.Errorf("t %g: surface not planar (%g, %g)", tt, s1, s2)
		}
	}
	// The surface slope drives the velocity: du/dt = -g dz/dx.
	tt, dtt := 0.4, 1e-6
	dudt := (th.U(tt+dtt) - th.U(tt-dtt)) / (2 * dtt)
	xc := th.CentreX(tt)
	slope := (th.Depth(xc+1e-3, 0, tt) + th.Bed(xc+1e-3, 0) - th.Depth(xc-1e-3, 0, tt) - th.Bed(xc-1e-3, 0)) / 2e-3
	if relErr(dudt, -9.81*slope) > 1e-5 {
		t.Errorf("du/dt %g, -g slope %g", dudt, -9.81*slope)
	}
}

// Huppert's constants 1.411 and 0.894 follow from the similarity profiles, which hold
// the volume they are given; the slope's profile too.
func TestHuppert(t *testing.T) {
	if math.Abs(planarEta()-1.411) > 5e-4 || math.Abs(axiEta()-0.894) > 5e-4 {
		t.Errorf("constants %.4f and %.4f, Huppert gives 1.411 and 0.894", planarEta(), axiEta())
	}
	p := Planar{G: 9.81, Nu: 1e-3, A: 3e-5}
	const T = 50
	checkMass(t, "planar", 0, p.Front(T), p.A, func(x float64) float64 { return p.Depth(x, T) })
	if x := p.FrontAt(1e-4, T); relErr(p.Depth(x, T), 1e-4) > 1e-9 {
		t.Errorf("planar FrontAt: depth there %g", p.Depth(x, T))
	}
	a := Axisymmetric{G: 9.81, Nu: 1e-3, V: 1e-6}
	checkMass(t, "axisymmetric", 0, a.Front(T), a.V, func(r float64) float64 { return 2 * math.Pi * r * a.Depth(r, T) })
	if r := a.FrontAt(1e-4, T); relErr(a.Depth(r, T), 1e-4) > 1e-9 {
		t.Errorf("axisymmetric FrontAt: depth there %g", a.Depth(r, T))
	}
	s := Slope{G: 9.81, Nu: 1e-3, A: 2e-5, Sin: math.Sin(0.1)}
	checkMass(t, "slope", 0, s.Front(T), s.A, func(x float64) float64 { return s.Depth(x, T) })
}

func TestBallisticAndWaves(t *testing.T) {
	if relErr(FallTime(9.81, 0.05), 0.100964) > 1e-5 || relErr(ThrowRange(9.81, 0.04, 0.25), 0.25*0.0903056) > 1e-5 {
		t.Errorf("fall time %g, range %g", FallTime(9.81, 0.05), ThrowRange(9.81, 0.04, 0.25))
	}
	// Shallow gravity waves: c_g = sqrt(g h); deep: half the phase speed sqrt(g / k).
	if cg := CapillaryGravityGroupVelocity(9.81, 0, 1000, 1, 1e-3); relErr(cg, math.Sqrt(9.81e-3)) > 1e-3 {
		t.Errorf("shallow c_g %g", cg)
	}
	if cg := CapillaryGravityGroupVelocity(9.81, 0, 1000, 1000, 1); relErr(cg, math.Sqrt(9.81/1000)/2) > 1e-6 {
		t.Errorf("deep gravity c_g %g", cg)
	}
	// Deep capillary waves: c_g = 3/2 sqrt(sigma k / rho).
	if cg := CapillaryGravityGroupVelocity(0, 0.072, 1000, 1e4, 1); relErr(cg, 1.5*math.Sqrt(0.072*1e4/1000)) > 1e-6 {
		t.Errorf("deep capillary c_g %g", cg)
	}
}

func TestSelect(t *testing.T) {
	if cs, err := Select(nil); err != nil || len(cs) != len(Cases()) {
		t.Fatalf("Select(nil): %d cases, %v", len(cs), err)
	}
	cs, err := Select([]string{"wave_ring", "ritter"})
	if err != nil || len(cs) != 2 || cs[0].Name != "ritter" {
		t.Fatalf("Select: %v, %v", cs, err)
	}
	_, err = Select([]string{"ritter", "nope"})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "thacker") {
		t.Fatalf("Select(nope): %v", err)
	}
}

// runShort runs the short suite for the methods and logs each row.
func runShort(t *testing.T, methods []gpusim.Method, names ...string) []Outcome {
	t.Helper()
	cs, err := Select(names)
	if err != nil {
		t.Fatal(err)
	}
	return Run(context.Background(), cs, Options{Short: true, Methods: methods}, func(oc Outcome) {
		var b strings.Builder
		WriteRows(&b, oc)
		t.Log("\n" + b.String())
	})
}

// The short suite with the pipes method: every result expected to pass passes (the dam
// breaks and Thacker are not expected to: their rows are logged); the method-independent
// cases run once.
func TestShortSuitePipes(t *testing.T) {
	outs := runShort(t, []gpusim.Method{gpusim.MethodPipes})
	n := 0
	for _, oc := range outs {
		if oc.Err != nil {
			t.Errorf("%s/%s: %v", oc.Case, oc.Method, oc.Err)
		}
		for _, r := range oc.Results {
			n++
			if r.ExpectPass && !r.Pass {
				t.Errorf("%s/%s %s: measured %g, expected %g: error %.2f%% > %.2f%%", r.Case, r.Method, r.Quantity,
					r.Measured, r.Expected, 100*r.RelErr, 100*r.Tolerance)
			}
			if (r.Case == "ritter" || r.Case == "stoker" || r.Case == "thacker") && r.ExpectPass {
				t.Errorf("%s/pipes is marked as expected to pass", r.Case)
			}
		}
		if oc.Plot == nil || len(oc.Plot.Series) < 2 {
			t.Errorf("%s/%s: no plot", oc.Case, oc.Method)
		}
	}
	if len(outs) != len(Cases()) || n < 15 {
		t.Errorf("%d outcomes with %d results, want one per case", len(outs), n)
	}
}

// The results do not depend on the number of workers.
func TestWorkersIndependent(t *testing.T) {
	var got [2][]float64
	for k, w := range []int{1, 3} {
		cs, _ := Select([]string{"current_planar", "stoker"})
		for _, oc := range Run(context.Background(), cs, Options{Short: true, Methods: []gpusim.Method{gpusim.MethodPipes}, Workers: w}, nil) {
			for _, r := range oc.Results {
				got[k] = append(got[k], r.Measured)
			}
		}
	}
	for i := range got[0] {
		if got[0][i] != got[1][i] {
			t.Errorf("result %d: %v with 1 worker, %v with 3", i, got[0][i], got[1][i])
		}
	}
}

// TestSWETargets: the shallow water equations meet every target of the short suite: the
// dam breaks (front, L1 profile, plateau, shock), Thacker's period and amplitude, the
// currents, the vessels and the contact line's cases but for the gaps they mark open.
func TestSWETargets(t *testing.T) {
	for _, oc := range runShort(t, []gpusim.Method{gpusim.MethodSWE}) {
		if oc.Method == "-" {
			continue
		}
		if oc.Err != nil {
			t.Errorf("%s/swe: %v", oc.Case, oc.Err)
		}
		for _, r := range oc.Results {
			if !r.Pass && !r.Open {
				t.Errorf("%s/swe %s: measured %g, expected %g: error %.2f%% > %.2f%%", r.Case, r.Quantity,
					r.Measured, r.Expected, 100*r.RelErr, 100*r.Tolerance)
			}
		}
	}
}

// TestJobsSideBySide: cases run side by side give the same outcomes, in the cases' order,
// as one after the other, and done sees them in that order.
func TestJobsSideBySide(t *testing.T) {
	cs, err := Select([]string{"current_planar", "stoker", "vessels"})
	if err != nil {
		t.Fatal(err)
	}
	var got [2][]string
	for k, jobs := range []int{1, 3} {
		var seen []string
		outs := Run(context.Background(), cs, Options{Short: true, Jobs: jobs}, func(oc Outcome) { seen = append(seen, oc.Case+"/"+oc.Method) })
		for i, oc := range outs {
			if seen[i] != oc.Case+"/"+oc.Method {
				t.Errorf("jobs %d: done saw %s at %d, Run returned %s/%s", jobs, seen[i], i, oc.Case, oc.Method)
			}
			for _, r := range oc.Results {
				got[k] = append(got[k], fmt.Sprintf("%s/%s %s %v", oc.Case, oc.Method, r.Quantity, r.Measured))
			}
		}
	}
	if len(got[0]) == 0 || strings.Join(got[0], "\n") != strings.Join(got[1], "\n") {
		t.Errorf("one job:\n%s\nthree side by side:\n%s", strings.Join(got[0], "\n"), strings.Join(got[1], "\n"))
	}
}

// TestJobsStopWithTheContext: a cancelled run starts no further case.
func TestJobsStopWithTheContext(t *testing.T) {
	cs, _ := Select([]string{"current_planar", "stoker", "vessels"})
	ctx, cancel := context.WithCancel(context.Background())
	var n int
	outs := Run(ctx, cs, Options{Short: true, Jobs: 1, Methods: []gpusim.Method{gpusim.MethodPipes}}, func(Outcome) { n++; cancel() })
	if len(outs) != 1 || n != 1 {
		t.Errorf("cancelled after the first outcome: %d outcomes, done called %d times", len(outs), n)
	}
}
