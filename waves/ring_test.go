package waves

import (
	"math"
	"testing"
)

// A ring in a still pool stays round and its radius grows at the group velocity of its
// depth, at two depths.
func TestRingRoundAndSpeed(t *testing.T) {
	for _, depth := range []float64{2e-3, 8e-3} {
		cols := flatCols(t, 200, 200)
		f := still(cols, depth)
		s := newSystem(t, cols, Water())
		x0, y0 := 50e-3, 50e-3
		s.Impact(Impact{X: x0, Y: y0, Z: 0, Amplitude: 1e-4, Radius: tr})
		const tEnd = 0.05
		s.Advance(tEnd, f)
		cg := GroupVelocity(Water(), tr, depth)
		want := tr + cg*s.Time()
		fr := fronts(s.Particles(nil), x0, y0)
		t.Logf("depth %g mm: c_g %.4f m/s, radius want %.3f mm, fronts +x %.3f -x %.3f +y %.3f -y %.3f mm, %d particles",
			depth*1e3, cg, want*1e3, fr[0]*1e3, fr[1]*1e3, fr[2]*1e3, fr[3]*1e3, s.Count())
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range fr {
			if e := relErr(v, want); e > 0.05 {
				t.Errorf("depth %g mm: front %.3f mm, want %.3f mm (c_g): off by %.1f%%", depth*1e3, v*1e3, want*1e3, e*100)
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		if (hi-lo)/hi > 0.05 {
			t.Errorf("depth %g mm: fronts range %.3f .. %.3f mm: not round", depth*1e3, lo*1e3, hi*1e3)
		}
		// The field's crest along the four axes is at the particles' front (within two cells).
		d := s.Displacement(nil, f)
		cx, cy := int(x0/tdx), int(y0/tdx)
		for a, step := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			best, at := math.Inf(-1), 0.0
			for n := 0; n < 90; n++ {
				x, y := cx+n*step[0], cy+n*step[1]
				if v := float64(d[y*200+x]); v > best {
					best, at = v, math.Hypot((float64(x)+0.5)*tdx-x0, (float64(y)+0.5)*tdx-y0)
				}
			}
			if math.Abs(at-want) > 2*tdx || best <= 0 {
				t.Errorf("depth %g mm, axis %d: field crest %.3g m at %.3f mm, want near %.3f mm", depth*1e3, a, best, at*1e3, want*1e3)
			}
		}
	}
}

// The numbers of docs/waves.md: water, radius 1.5 mm, depth 2 mm.
func TestGroupVelocityNumbers(t *testing.T) {
	w := Water()
	cg := GroupVelocity(w, 1.5e-3, 2e-3)
	cp := PhaseSpeed(w, 1.5e-3, 2e-3)
	t.Logf("water, R 1.5 mm, depth 2 mm: c_g %.4f m/s, c %.4f m/s; depth 8 mm: c_g %.4f", cg, cp, GroupVelocity(w, 1.5e-3, 8e-3))
	if cg < 0.55 || cg > 0.61 || cp < 0.37 || cp > 0.42 {
		t.Errorf("c_g %g, c %g m/s: want about 0.58 and 0.39 (capillary)", cg, cp)
	}
	// Shallow gravity waves: c_g = c = sqrt(g h).
	g := Settings{Gravity: 9.81, Density: 1000}
	h := 1e-3
	cg = GroupVelocity(g, 1, h) // k h = pi e-3
	if e := relErr(cg, math.Sqrt(9.81*h)); e > 1e-3 {
		t.Errorf("shallow gravity c_g %g, want sqrt(g h) = %g", cg, math.Sqrt(9.81*h))
	}
	// Deep gravity waves: c_g = c / 2; deep capillary waves: c_g = 3 c / 2.
	if e := relErr(GroupVelocity(g, 1e-3, 1), PhaseSpeed(g, 1e-3, 1)/2); e > 1e-6 {
		t.Errorf("deep gravity: c_g / c off by %g", e)
	}
	cap := Settings{SurfaceTension: 0.072, Density: 1000}
	if e := relErr(GroupVelocity(cap, 1e-3, 1), 1.5*PhaseSpeed(cap, 1e-3, 1)); e > 1e-6 {
		t.Errorf("deep capillary: c_g / c off by %g", e)
	}
}

// dc/dh, the phase speed's derivative, matches a finite difference, over depths from thin
// films to deep, for capillary-gravity and gravity waves.
func TestDispersionDerivative(t *testing.T) {
	for _, st := range []Settings{Water(), {Gravity: 9.81, Density: 1000}} {
		const r = 1.5e-3
		k := math.Pi / r
		for _, h := range []float64{2e-5, 1e-4, 5e-4, 2e-3, 8e-3} {
			cg, d := dispersion(k, h, st.Gravity, st.SurfaceTension/st.Density)
			if e := relErr(cg, GroupVelocity(st, r, h)); e > 1e-8 {
				t.Errorf("c_g %g, GroupVelocity %g", cg, GroupVelocity(st, r, h))
			}
			e := h * 1e-4
			fd := (PhaseSpeed(st, r, h+e) - PhaseSpeed(st, r, h-e)) / (2 * e)
			if math.Abs(d-fd) > 1e-5*math.Abs(fd)+1e-9 {
				t.Errorf("sigma %g, h %g: dc/dh %g, finite difference of the phase speed %g", st.SurfaceTension, h, d, fd)
			}
			// and the group velocity's own finite difference, against the exact one
			gp, _ := dispersion(k, h+e, st.Gravity, st.SurfaceTension/st.Density)
			gm, _ := dispersion(k, h-e, st.Gravity, st.SurfaceTension/st.Density)
			ge := (GroupVelocity(st, r, h+e) - GroupVelocity(st, r, h-e)) / (2 * e)
			if math.Abs((gp-gm)/(2*e)-ge) > 1e-4*math.Abs(ge)+1e-9 {
				t.Errorf("h %g: c_g from the table and from math.Tanh disagree", h)
			}
		}
	}
}

// In a uniform current u the ring drifts: downstream front - upstream front = 2 u t.
func TestRingInCurrent(t *testing.T) {
	cols := flatCols(t, 200, 200)
	const u = 0.1
	f := current(still(cols, 2e-3), u, 0)
	s := newSystem(t, cols, Water())
	x0, y0 := 40e-3, 50e-3
	s.Impact(Impact{X: x0, Y: y0, Amplitude: 1e-4, Radius: tr})
	s.Advance(0.05, f)
	fr := fronts(s.Particles(nil), x0, y0)
	got, want := fr[0]-fr[1], 2*u*s.Time()
	t.Logf("downstream %.3f mm, upstream %.3f mm: difference %.3f mm, 2 u t = %.3f mm; across %.3f, %.3f mm",
		fr[0]*1e3, fr[1]*1e3, got*1e3, want*1e3, fr[2]*1e3, fr[3]*1e3)
	if e := relErr(got, want); e > 0.1 {
		t.Errorf("front difference %.3f mm, want 2 u t = %.3f mm (off by %.1f%%)", got*1e3, want*1e3, e*100)
	}
}

// A ring reflects off a straight wall (dry cells beyond x = xw) as from its mirror image.
func TestReflectionImageSource(t *testing.T) {
	cols := flatCols(t, 200, 200)
	f := still(cols, 2e-3)
	const wallCell = 140
	xw := wallCell * tdx
	for i := range f.Height {
		if int(i%200) >= wallCell {
			f.Height[i] = 0 // dry
		}
	}
	s := newSystem(t, cols, Water())
	x0, y0 := 50e-3, 50e-3
	s.Impact(Impact{X: x0, Y: y0, Amplitude: 1e-4, Radius: tr})
	s.Advance(0.05, f)
	r := tr + GroupVelocity(Water(), tr, 2e-3)*s.Time()
	xi := 2*xw - x0 // the image source
	reflected, direct := 0, 0
	front := math.Inf(1)
	for _, p := range s.Particles(nil) {
		if p.Amplitude <= 0 {
			continue
		}
		if p.X >= xw {
			t.Fatalf("particle at x %.4f mm, beyond the wall at %.4f mm", p.X*1e3, xw*1e3)
		}
		e1 := math.Hypot(p.X-x0, p.Y-y0) - r
		e2 := math.Hypot(p.X-xi, p.Y-y0) - r
		switch {
		case math.Abs(e1) < 0.01*r:
			direct++
		case math.Abs(e2) < 0.01*r:
			reflected++
			if p.DirX >= 0 {
				t.Errorf("reflected particle at (%.3f, %.3f) mm moves +x", p.X*1e3, p.Y*1e3)
			}
			if math.Abs(p.Y-y0) < 5e-3 {
				front = min(front, p.X)
			}
		default:
			t.Errorf("particle at (%.3f, %.3f) mm: %.3f mm from the ring, %.3f mm from the image's", p.X*1e3, p.Y*1e3, e1*1e3, e2*1e3)
		}
	}
	want := xi - r
	t.Logf("r %.3f mm: %d direct, %d reflected; reflected front on the axis at x %.3f mm, image says %.3f mm", r*1e3, direct, reflected, front*1e3, want*1e3)
	if reflected < 10 || direct < 10 {
		t.Errorf("%d reflected and %d direct crest particles: want both", reflected, direct)
	}
	if math.Abs(front-want) > 0.02*r {
		t.Errorf("reflected front at %.3f mm, image source gives %.3f mm", front*1e3, want*1e3)
	}
}

// A single particle (dispersion angle 0: a piece of plane wave) decays as
// exp(-2 nu k^2 t), at two viscosities.
func TestViscousDecay(t *testing.T) {
	cols := flatCols(t, 200, 200)
	f := still(cols, 2e-3)
	for _, nu := range []float64{1e-6, 1e-5} {
		st := Water()
		st.Viscosity = nu
		s := newSystem(t, cols, st)
		const a0 = 1e-4
		s.Launch(Particle{X: 50e-3, Y: 50e-3, DirX: 1, Amplitude: a0, Radius: tr}, 0)
		tEnd := 0.1
		if nu > 5e-6 {
			tEnd = 0.02
		}
		s.Advance(tEnd, f)
		ps := s.Particles(nil)
		if len(ps) != 1 {
			t.Fatalf("nu %g: %d particles, want 1", nu, len(ps))
		}
		want := a0 * math.Exp(-DecayRate(nu, tr)*s.Time())
		t.Logf("nu %g: amplitude %.4g after %.3f s, exp(-2 nu k^2 t) gives %.4g (rate %.3g /s)", nu, ps[0].Amplitude, s.Time(), want, DecayRate(nu, tr))
		if e := relErr(ps[0].Amplitude, want); e > 0.1 {
			t.Errorf("nu %g: amplitude %g, want %g (off by %.1f%%)", nu, ps[0].Amplitude, want, e*100)
		}
	}
}

// An impact's crest at birth equals its amplitude; the trough ring makes its volume 0.
func TestCrestAtBirth(t *testing.T) {
	cols := flatCols(t, 100, 100)
	f := still(cols, 2e-3)
	for _, crestOnly := range []bool{false, true} {
		st := Water()
		st.CrestOnly = crestOnly
		s := newSystem(t, cols, st)
		const A = 2e-4
		x0, y0 := 25.1e-3, 24.9e-3
		// Time at the end of the first step: the particles are born there and do not move.
		s.Impact(Impact{X: x0, Y: y0, Amplitude: A, Radius: tr, Time: s.StepSize()})
		s.Advance(s.StepSize(), f)
		best, low := 0.0, 0.0
		for i := -200; i <= 200; i++ {
			for j := -200; j <= 200; j++ {
				v := s.HeightAt(x0+float64(i)*tr/100, y0+float64(j)*tr/100, 0, f)
				best, low = max(best, v), min(low, v)
			}
		}
		vol := 0.0
		for _, d := range s.Displacement(nil, f) {
			vol += float64(d) * tdx * tdx
		}
		t.Logf("crest only %v: %d particles, crest %.4g m for amplitude %.4g, lowest %.4g m, volume %.3g m^3", crestOnly, s.Count(), best, A, low, vol)
		if e := relErr(best, A); e > 0.01 {
			t.Errorf("crest only %v: crest %g m, want %g", crestOnly, best, A)
		}
		if !crestOnly && math.Abs(vol) > 1e-3*A*tr*tr*RingParticles {
			t.Errorf("crest and trough: volume %g m^3, want 0", vol)
		}
	}
}

// An impact takes effect at the step holding its time, its particles moving only for
// the rest of that step.
func TestImpactTime(t *testing.T) {
	cols := flatCols(t, 200, 200)
	f := still(cols, 2e-3)
	s := newSystem(t, cols, Water())
	dt := s.StepSize()
	ti := 1.5 * dt
	s.Impact(Impact{X: 50e-3, Y: 50e-3, Amplitude: 1e-4, Radius: tr, Time: ti})
	s.Advance(dt, f)
	if s.Count() != 0 {
		t.Fatalf("%d particles before the impact's step", s.Count())
	}
	s.Advance(4*dt, f)
	want := tr + GroupVelocity(Water(), tr, 2e-3)*(s.Time()-ti)
	fr := fronts(s.Particles(nil), 50e-3, 50e-3)
	if e := relErr(fr[0], want); e > 1e-4 {
		t.Errorf("front %.5f mm, want %.5f mm", fr[0]*1e3, want*1e3)
	}
}

func TestLandingAmplitude(t *testing.T) {
	a := LandingAmplitude(10e-9, 0.5, 9.81)
	t.Logf("10 mm^3 at 0.5 m/s: %.4g mm", a*1e3)
	if a < 0.05e-3 || a > 0.3e-3 {
		t.Errorf("10 mm^3 at 0.5 m/s: crest %g m, want 0.05 .. 0.3 mm", a)
	}
	if LandingAmplitude(0, 1, 9.81) != 0 || LandingAmplitude(1e-9, 0, 9.81) != 0 || LandingAmplitude(math.NaN(), 1, 9.81) != 0 {
		t.Error("zero volume, zero speed or NaN: want 0")
	}
	prev := 0.0
	for _, v := range []float64{1e-12, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6} {
		if a := LandingAmplitude(v, 0.5, 9.81); !(a > prev) {
			t.Errorf("not increasing in volume at %g m^3: %g after %g", v, a, prev)
		} else {
			prev = a
		}
	}
	prev = 0
	for _, sp := range []float64{0.01, 0.1, 0.5, 1, 3} {
		if a := LandingAmplitude(1e-8, sp, 9.81); !(a > prev) {
			t.Errorf("not increasing in speed at %g m/s", sp)
		} else {
			prev = a
		}
	}
}

func TestKernel(t *testing.T) {
	for i := -110000; i <= 110000; i++ {
		u := float64(i) / 100000
		want := 0.0
		if math.Abs(u) < 1 {
			want = (1 + math.Cos(math.Pi*u)) / 2
		}
		if math.Abs(kernel(u)-want) > 1e-8 {
			t.Fatalf("kernel(%g) = %g, want %g", u, kernel(u), want)
		}
	}
}
