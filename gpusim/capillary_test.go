package gpusim

import (
	"math"
	"testing"
)

// poolScene is a flat floor at 1 mm under a pool of depth d (m) with a cosine bump of
// amplitude a and wavenumber k along x, nx x ny columns of dx.
func poolSim(t testing.TB, st Settings, nx, ny int, dx, d, a, k float64) *Sim {
	t.Helper()
	sim := newSim(t, flatScene(t, nx, ny, dx), st)
	c := sim.Columns()
	h := append([]float32(nil), c.Base...)
	for i := range h {
		x := (float64(i%nx) + 0.5) * dx
		h[i] += float32(d + a*math.Cos(k*x))
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	return sim
}

// TestCapillaryRipple: a standing capillary wave of wavelength 4 mm on a 0.3 mm film of
// water oscillates at the capillary-gravity frequency omega^2 = (g k + sigma k^3 / rho)
// tanh(k h) within 10%, and decays. The pipes carry the shallow-water dispersion of depth
// min(h, dx) (the film cross-section; the paper's carries depth dx whatever the depth,
// docs/method.md, "Surface tension"), so the film is where the relation applies; dt is
// fine enough that the capillary pressure is not smoothed (capillaryPasses 0).
func TestCapillaryRipple(t *testing.T) {
	t.Parallel()
	const dx, depth, lambda, amp = 0.0005, 0.0003, 0.004, 1e-6
	k := 2 * math.Pi / lambda
	st := wettingSettings(0.5, 2)
	st.CapillaryPressure, st.CrossSection, st.Dt = true, CrossFilm, 5e-5
	if n := newCapParams(st, st.Dt, dx).passes; n != 0 {
		t.Fatalf("capillaryPasses = %d at dt %g: want the unsmoothed pressure", n, st.Dt)
	}
	sim := poolSim(t, st, 32, 2, dx, depth, amp, k) // four wavelengths between walls
	c := sim.Columns()
	want := math.Sqrt((st.Gravity*k + st.SurfaceTension*k*k*k/st.Density) * math.Tanh(k*depth))
	// The deviation of column 0 (a crest at t = 0): its zero crossings give the period.
	var crossings []float64
	prev := amp
	peak := 0.0
	steps := int(0.1 / st.Dt)
	for n := 1; n <= steps; n++ {
		sim.Step(1)
		dev := float64(snapshot(sim).Height[0]-c.Base[0]) - depth
		if (dev < 0) != (prev < 0) {
			f := prev / (prev - dev) // linear between the two steps
			crossings = append(crossings, (float64(n-1)+f)*st.Dt)
		}
		prev = dev
		if float64(n)*st.Dt > 0.08 {
			peak = max(peak, math.Abs(dev))
		}
	}
	if len(crossings) < 5 {
		t.Fatalf("%d zero crossings in 0.1 s: the ripple does not oscillate", len(crossings))
	}
	period := 2 * (crossings[4] - crossings[0]) / 4
	got := 2 * math.Pi / period
	t.Logf("omega %.1f rad/s (period %.2f ms), capillary-gravity %.1f rad/s (gravity alone %.1f); amplitude %.3g m at 0.08-0.1 s of %.3g",
		got, period*1e3, want, math.Sqrt(st.Gravity*k*math.Tanh(k*depth)), peak, amp)
	if math.Abs(got-want) > 0.1*want {
		t.Errorf("omega = %.1f rad/s, want %.1f within 10%%", got, want)
	}
	if peak > 0.5*amp {
		t.Errorf("the ripple keeps %.3g m of its %.3g m after 80 ms: want it to decay", peak, amp)
	}
	if math.Abs(sim.Volume()-32*2*dx*dx*depth) > 1e-6*sim.Volume() {
		t.Errorf("volume %g, want %g", sim.Volume(), 32*2*dx*dx*depth)
	}
}

// TestCapillaryStable: at the paper's step (dt 3 ms, dx 0.5 mm), where the explicit
// capillary pressure would need about 0.3 ms, the smoothed pressure (capillaryPasses)
// keeps a disturbed pool of water stable over 10,000 steps: it settles flat, its columns
// stay within their bounds and the volume is kept.
func TestCapillaryStable(t *testing.T) {
	t.Parallel()
	for _, cross := range []CrossSection{CrossPaper, CrossFilm} {
		st := wettingSettings(0.5, 2)
		st.CapillaryPressure, st.CrossSection, st.Dt = true, cross, 0.003
		sim := poolSim(t, st, 40, 40, 0.0005, 0.002, 0.0002, 2*math.Pi/0.003)
		c := sim.Columns()
		h := append([]float32(nil), snapshot(sim).Height...)
		for i := range h { // and noise at the grid's scale
			h[i] += float32(2e-5 * math.Sin(float64(i)*1.7))
		}
		if err := sim.SetHeights(h); err != nil {
			t.Fatal(err)
		}
		v0 := sim.Volume()
		sim.Step(10000)
		checkBounds(t, sim, 10000)
		var dev float64
		for i, v := range snapshot(sim).Height {
			dev = max(dev, math.Abs(float64(v-c.Base[i])-v0/(40*40*0.0005*0.0005)))
		}
		t.Logf("%v: %d smoothing passes; after 30 s the surface is flat to %.3g m", cross, sim.be.(*cpuBackend).p.cap.passes, dev)
		if dev > 1e-5 {
			t.Errorf("%v: the surface is %.3g m from flat after 10,000 steps", cross, dev)
		}
		if math.Abs(sim.Volume()-v0) > volTol*v0 {
			t.Errorf("%v: volume %g, was %g", cross, sim.Volume(), v0)
		}
	}
}

// TestCapillaryPasses: the smoothing is off where the explicit pressure is stable, and
// grows as dt does.
func TestCapillaryPasses(t *testing.T) {
	st := wettingSettings(0.5, 1)
	st.CapillaryPressure = true
	prev := -1
	for _, dt := range []float64{5e-5, 3e-4, 1e-3, 3e-3} {
		n := newCapParams(st, dt, 0.0005).passes
		t.Logf("dt %g ms: %d passes", dt*1e3, n)
		if n < prev || (dt == 5e-5 && n != 0) || (dt == 3e-3 && n == 0) {
			t.Errorf("dt %g: %d passes after %d", dt, n, prev)
		}
		prev = n
	}
	st.SurfaceTension = 0
	if p := newCapParams(st, 0.003, 0.0005); p.on {
		t.Errorf("without surface tension the capillary head is on: %+v", p)
	}
}

// TestRippleDamping: with surface tension on, a standing ripple of wavelength 4 mm on a
// 2 mm pool of water decays at the rate viscosity gives a ripple, 2 nu k^2 (docs/method.md,
// "Ripple damping"), on top of the pipes' own viscous drag: the decay rates with the law
// on and off differ by 2 nu k_d^2 within 25% (k_d^2 = 4 sin^2(k dx/2)/dx^2, the grid's
// Laplacian for the mode).
func TestRippleDamping(t *testing.T) {
	t.Parallel()
	const dx, depth, lambda, amp, nu = 0.0005, 0.002, 0.004, 1e-6, 1e-6
	k := 2 * math.Pi / lambda
	rate := func(sigma float64) float64 {
		st := wettingSettings(0.5, 1)
		st.SurfaceTension, st.Dt, st.Viscosity = sigma, 1e-4, nu
		sim := poolSim(t, st, 32, 2, dx, depth, amp, k)
		c := sim.Columns()
		env := func() float64 { // the largest |deviation| of column 0 over a period
			m := 0.0
			for range 110 { // about a period (11 ms at these sizes, with the pressure off: 16 ms)
				sim.Step(1)
				m = max(m, math.Abs(float64(snapshot(sim).Height[0]-c.Base[0])-depth))
			}
			return m
		}
		a0 := env()
		sim.Step(int(0.3 / st.Dt))
		a1 := env()
		return math.Log(a0/a1) / (0.3 + 0.011)
	}
	on, off := rate(0.072), rate(0)
	kd2 := 4 * math.Pow(math.Sin(k*dx/2), 2) / (dx * dx)
	want := 2 * nu * kd2
	t.Logf("decay rate %.2f/s with surface tension, %.2f/s without: %.2f/s more, 2 nu k_d^2 = %.2f/s", on, off, on-off, want)
	if math.Abs((on-off)-want) > 0.25*want {
		t.Errorf("the ripple damping adds %.2f/s, want 2 nu k_d^2 = %.2f/s within 25%%", on-off, want)
	}
}
