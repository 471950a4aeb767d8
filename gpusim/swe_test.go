package gpusim

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// sweSettings: inviscid, undamped, no surface tension, falling off: the shallow water
// equations as the analytic solutions assume them.
func sweSettings(method Method, dt float64, workers int) Settings {
	st := DefaultSettings()
	st.Method, st.Dt, st.Workers = method, dt, workers
	st.Viscosity, st.Damping, st.Falling = 0, 1, FallingOff
	return st
}

// damBreak is a channel nx cells long and 3 wide on a flat floor at 1 mm, liquid hl deep
// left of x0 and hr deep right of it, stepped to time T.
func damBreak(t testing.TB, method Method, nx int, dx, hl, hr, x0, T float64, workers int) (*Sim, []float64) {
	c := flatScene(t, nx, 3, dx)
	dt := 0.4 * dx / (2 * math.Sqrt(9.81*hl))
	sim := newSim(t, c, sweSettings(method, dt, workers))
	h := sim.Heights(nil)
	for y := range c.Ny {
		for x := range c.Nx {
			lo, _ := c.Cell(x, y)
			d := hr
			if (float64(x)+0.5)*dx < x0 {
				d = hl
			}
			h[lo] = c.Base[lo] + float32(d)
		}
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	for sim.Time() < T-dt/2 {
		sim.Step(1)
	}
	h = sim.Heights(h)
	depth := make([]float64, nx)
	for x := range nx {
		lo, _ := c.Cell(x, 1)
		depth[x] = float64(h[lo] - c.Base[lo])
	}
	return sim, depth
}

// ritter is Ritter's dam break on a dry bed: the depth at distance x from the dam at
// time t after it broke, liquid hl deep behind it.
func ritter(x, t, hl, g float64) float64 {
	c0 := math.Sqrt(g * hl)
	switch {
	case x <= -c0*t:
		return hl
	case x < 2*c0*t:
		return math.Pow(2*c0-x/t, 2) / (9 * g)
	}
	return 0
}

// TestSWERitter: a dam 5 mm high breaks onto a dry channel 1 m long (dx 1 mm). After
// 0.5 s the swe's depth profile is Ritter's to 2% (L1 over the rarefaction), and the point
// where it falls below 5% of the dam's height (the front a user sees) lies where
// Ritter's does to 5% of the distance it ran. The pipes, whose waves run at sqrt(g dx)
// whatever the depth and carry no momentum, are 40% short or more: the reason for the
// second method.
func TestSWERitter(t *testing.T) {
	const dx, hl, L, T, eps = 0.001, 0.005, 1.0, 0.5, 0.05
	c0 := math.Sqrt(9.81 * hl)
	want := T * (2*c0 - 3*math.Sqrt(eps)*c0)
	for _, m := range []Method{MethodSWE, MethodPipes} {
		sim, d := damBreak(t, m, int(L/dx), dx, hl, 0, L/2, T, 2)
		front := 0.0
		var l1, l1a float64
		for x := range d {
			xx := (float64(x)+0.5)*dx - L/2
			if d[x] > eps*hl {
				front = xx
			}
			a := ritter(xx, T, hl, 9.81)
			l1 += math.Abs(d[x] - a)
			l1a += a
		}
		err := (front - want) / want
		t.Logf("%v: front %.1f mm from the dam, Ritter %.1f mm (%+.1f%%); profile L1 %.2f%%; %d substeps for %d steps",
			m, front*1e3, want*1e3, 100*err, 100*l1/l1a, sim.be.(*cpuBackend).swe.substepsOr(), sim.Steps())
		if m == MethodSWE && (math.Abs(err) > 0.05 || l1/l1a > 0.02) {
			t.Errorf("swe: front %+.1f%% (want within 5%%), profile L1 %.2f%% (want within 2%%)", 100*err, 100*l1/l1a)
		}
		if m == MethodPipes && err > -0.4 {
			t.Errorf("pipes: front %+.1f%%: the pipes are not expected to run a dam break this well", 100*err)
		}
	}
}

// stoker is Stoker's dam break on a wet bed: the middle state's depth hm and velocity um
// between the rarefaction and the shock, and the shock's speed, from the shock's
// Rankine-Hugoniot relation um = (hm - hr) sqrt(g (hm + hr) / (2 hm hr)) and the
// rarefaction's um = 2 (sqrt(g hl) - sqrt(g hm)), solved by bisection.
func stoker(hl, hr, g float64) (hm, um, speed float64) {
	f := func(h float64) float64 {
		return (h-hr)*math.Sqrt(g*(h+hr)/(2*h*hr)) - 2*(math.Sqrt(g*hl)-math.Sqrt(g*h))
	}
	lo, hi := hr, hl
	for range 200 {
		mid := (lo + hi) / 2
		if f(lo)*f(mid) <= 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	hm = (lo + hi) / 2
	um = 2 * (math.Sqrt(g*hl) - math.Sqrt(g*hm))
	return hm, um, hm * um / (hm - hr)
}

// TestSWEStoker: a dam 5 mm high breaks onto liquid 1 mm deep (dx 1 mm). After 0.4 s the
// swe's plateau between the rarefaction and the shock has Stoker's depth (2.539 mm) to 2%,
// and the shock (where the depth crosses the mean of the plateau's and the bed's) lies
// where Stoker's does to 5% of the distance it ran.
func TestSWEStoker(t *testing.T) {
	const dx, hl, hr, L, T, g = 0.001, 0.005, 0.001, 1.0, 0.4, 9.81
	hm, _, speed := stoker(hl, hr, g)
	_, d := damBreak(t, MethodSWE, int(L/dx), dx, hl, hr, L/2, T, 2)
	x0 := int(L / 2 / dx)
	xs := speed * T
	// The plateau: from a quarter to three quarters of the way to the shock.
	var plateau float64
	n := 0
	for x := x0 + int(0.25*xs/dx); x < x0+int(0.75*xs/dx); x++ {
		plateau += d[x]
		n++
	}
	plateau /= float64(n)
	shock := 0.0
	for x := x0; x < len(d); x++ {
		if d[x] > (hm+hr)/2 {
			shock = (float64(x-x0) + 1) * dx
		}
	}
	t.Logf("plateau %.4f mm, Stoker %.4f mm; shock %.1f mm from the dam, Stoker %.1f mm", plateau*1e3, hm*1e3, shock*1e3, xs*1e3)
	if e := math.Abs(plateau-hm) / hm; e > 0.02 {
		t.Errorf("plateau %.4f mm, Stoker %.4f mm: off by %.1f%%", plateau*1e3, hm*1e3, 100*e)
	}
	if e := math.Abs(shock-xs) / xs; e > 0.05 {
		t.Errorf("shock %.1f mm from the dam, Stoker %.1f mm: off by %.1f%%", shock*1e3, xs*1e3, 100*e)
	}
}

// TestSWELakeAtRest: the lake-at-rest cases of TestLakeAtRest (single layer on a bumpy
// floor, overhangs and five layers, with full, wet and dry columns side by side) stay
// exactly at rest with the SWE: every flux and velocity exactly 0, every height unchanged
// bit for bit after 1000 steps of the paper's dt (a few substeps each, the pools being
// up to 29 mm deep).
func TestSWELakeAtRest(t *testing.T) {
	const dx = 0.001
	over := func(t testing.TB) *terrain.Columns { return overhangScene(t, 30, 30, dx) }
	five := func(t testing.TB) *terrain.Columns { return fiveLayerScene(t, 30, 30, dx) }
	single := func(t testing.TB) *terrain.Columns { return layeredScene(t, 30, 30, dx, 0.02, 1, bumpyFloor, nil) }
	for _, tc := range []lakeCase{{"single/4mm", single, 0.004, false, true}, {"overhang/3mm", over, 0.003, false, true},
		{"overhang/12mm", over, 0.012, true, true}, {"overhang/20mm", over, 0.020, true, false},
		{"five/13mm", five, 0.013, true, true}, {"five/29mm", five, 0.029, true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cols(t)
			st := settings(0.003, 4e-6, 2)
			st.Method = MethodSWE
			sim := newSim(t, c, st)
			x, y, z := lowestFloor(c)
			if _, err := sim.Fill(x, y, z, tc.level); err != nil {
				t.Fatal(err)
			}
			h0 := snapshot(sim).Height
			sim.Step(1000)
			for p, v := range sim.Fluxes(nil) {
				if v != 0 { // and so its velocity, f / (dx d)
					t.Fatalf("pipe %d: flux %g: want exactly 0", p, v)
				}
			}
			for i, h := range snapshot(sim).Height {
				if h != h0[i] {
					t.Fatalf("column %d moved from %g to %g", i, h0[i], h)
				}
			}
			t.Logf("%d substeps for 1000 steps", sim.be.(*cpuBackend).swe.substeps)
		})
	}
}

// TestSWEVolumeAndBounds: 10,000 steps of the overhang scene with the SWE (filled to
// 6 mm, a source over the upper slab for 2-20 s, a sink on the floor for 10-35 s, liquid
// falling through the slabs' holes and flooding the passages under them, unified
// extended pipes): after every step b <= h <= max, and the volume equals added - removed
// to 1e-8 of the volume added (TestVolumeConservation's bound for the pipes).
func TestSWEVolumeAndBounds(t *testing.T) {
	const dx = 0.001
	steps := 10000
	if testing.Short() {
		steps = 2000
	}
	c := overhangScene(t, 30, 30, dx)
	st := settings(0, 4e-6, 2)
	st.Method, st.ExtendedPipes = MethodSWE, ExtendedUnified
	sim := newSim(t, c, st)
	x, y, z := lowestFloor(c)
	if _, err := sim.Fill(x, y, z, 0.006); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.AddEmitter(Emitter{X: 0.009, Y: 0.021, Z: 0.025, Radius: 0.002, Rate: 5e-7, Start: 2, Stop: 20}); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.AddEmitter(Emitter{X: 0.026, Y: 0.004, Z: 0.002, Radius: 0.002, Rate: -3e-7, Start: 10, Stop: 35}); err != nil {
		t.Fatal(err)
	}
	var s Snapshot
	var worst float64
	maxExt, moving := 0, 0
	for step := 1; step <= steps; step++ {
		sim.Step(1)
		checkBounds(t, sim, step)
		sim.Snapshot(&s)
		maxExt = max(maxExt, s.Extended)
		d := math.Abs(s.Volume-(s.Added-s.Removed)) / s.Added
		worst = max(worst, d)
		if d > 1e-8 {
			t.Fatalf("step %d: volume %.12g m^3, added - removed %.12g: off by %.2g of added", step, s.Volume, s.Added-s.Removed, d)
		}
		if step == steps/2 {
			for _, f := range sim.Fluxes(nil) {
				if f != 0 {
					moving++
				}
			}
		}
	}
	if s.Removed == 0 || moving == 0 || (steps == 10000 && maxExt == 0) {
		t.Errorf("setup: removed %g, %d pipes moving at mid-run, up to %d extended pipes", s.Removed, moving, maxExt)
	}
	t.Logf("%d steps (%d substeps): worst volume error %.2g of added; %d pipes moving at mid-run, up to %d extended pipes",
		steps, sim.be.(*cpuBackend).swe.substeps, worst, moving, maxExt)
}

// TestSWEWorkersBitIdentical: heights, fluxes, velocities and accounting bit for bit
// with 1, 2 and 7 workers after 300 steps of the flowing overhang scene with sources,
// sinks and nu > 0, and of a dam break on a bumpy single-layer floor.
func TestSWEWorkersBitIdentical(t *testing.T) {
	for _, name := range []string{"overhang", "single"} {
		var refH, refF, refU []float32
		var refA [3]float64
		for _, w := range []int{1, 2, 7} {
			st := settings(0.003, 4e-6, w)
			st.Method = MethodSWE
			var c *terrain.Columns
			if name == "overhang" {
				c = overhangScene(t, 30, 30, 0.001)
			} else {
				c = layeredScene(t, 30, 30, 0.001, 0.03, 1, bumpyFloor, nil)
			}
			sim := runOn(t, c, st, 300)
			h, f := snapshot(sim).Height, sim.Fluxes(nil)
			u := append([]float32(nil), sim.be.(*cpuBackend).swe.d...) // the face depths
			var a [3]float64
			a[0], a[1], a[2] = sim.Accounting()
			if refH == nil {
				refH, refF, refU, refA = h, f, u, a
				continue
			}
			for i := range h {
				if math.Float32bits(h[i]) != math.Float32bits(refH[i]) {
					t.Fatalf("%s, %d workers: column %d h = %g, 1 worker gives %g", name, w, i, h[i], refH[i])
				}
			}
			for p := range f {
				if math.Float32bits(f[p]) != math.Float32bits(refF[p]) || math.Float32bits(u[p]) != math.Float32bits(refU[p]) {
					t.Fatalf("%s, %d workers: pipe %d flux %g face depth %g, 1 worker gives %g, %g", name, w, p, f[p], u[p], refF[p], refU[p])
				}
			}
			if a != refA {
				t.Fatalf("%s, %d workers: accounting %v, 1 worker gives %v", name, w, a, refA)
			}
		}
	}
}

// TestSWEMethodChange: the method changes mid-run both ways with the liquid and its flow
// carried over (the volume exact, the flow still running the same way); a device backend
// runs the SWE but refuses to change the method mid-run, with a message naming the cpu
// backend.
func TestSWEMethodChange(t *testing.T) {
	sim, _ := damBreak(t, MethodPipes, 200, 0.001, 0.005, 0, 0.1, 0.05, 2)
	for _, m := range []Method{MethodSWE, MethodPipes, MethodSWE} {
		before := sim.Fluxes(nil)
		st := sim.Settings()
		st.Method = m
		if err := sim.Set(st); err != nil {
			t.Fatal(err)
		}
		if got := sim.Fluxes(nil); firstDiffBits(got, before) >= 0 {
			t.Fatalf("to %v: the fluxes changed with the method", m)
		}
		sim.Step(20)
		var s Snapshot
		sim.Snapshot(&s)
		if d := math.Abs(s.Volume - s.Added); d > 1e-12*s.Added {
			t.Fatalf("after the change to %v: volume %g, added %g", m, s.Volume, s.Added)
		}
		vx, _ := sim.Velocities(nil, nil)
		mid, _ := sim.Columns().Cell(100, 1)
		if !(vx[mid] > 0.05) {
			t.Fatalf("after the change to %v: the flow at the dam runs at %g m/s, want on at more than 5 cm/s", m, vx[mid])
		}
		if sim.Settings().Method != m || sim.Stats().Backend != "cpu" {
			t.Fatalf("method %v, backend %s", sim.Settings().Method, sim.Stats().Backend)
		}
	}
}

// BenchmarkSWEStep: a step of the shallow water equations against a step of the pipes
// (dense layout, as New picks it, and general, the SWE's) on the same 200 x 200 scene: a
// 5 mm dam breaking across a flat floor (dx 0.5 mm, the paper's dt of 3 ms), after 0.1 s.
// Reports ms/step and, for the SWE, substeps/step and ms/substep.
func BenchmarkSWEStep(b *testing.B) {
	for _, tc := range []struct {
		name    string
		m       Method
		general bool
	}{{"pipes-dense", MethodPipes, false}, {"pipes-general", MethodPipes, true}, {"swe", MethodSWE, false}} {
		b.Run(tc.name, func(b *testing.B) {
			benchDamBreak(b, sweSettings(tc.m, 0.003, 2), tc.general, b.N)
		})
	}
}

// benchDamBreak times steps of BenchmarkSWEStep's scene with st, in calls of at most
// call steps, and reports ms/step and, with the SWE, substeps/step and ms/substep.
func benchDamBreak(b *testing.B, st Settings, general bool, call int) {
	c := flatScene(b, 200, 200, 0.0005)
	sim := newSimWith(b, c, st, backendOptions{general: general})
	h := sim.Heights(nil)
	for y := range c.Ny {
		for x := range c.Nx / 2 {
			lo, _ := c.Cell(x, y)
			h[lo] = c.Base[lo] + 0.005
		}
	}
	if err := sim.SetHeights(h); err != nil {
		b.Fatal(err)
	}
	sim.Step(33)
	sub0 := sim.Stats().Substeps
	b.ResetTimer()
	for done := 0; done < b.N; done += call {
		sim.Step(min(call, b.N-done))
	}
	b.StopTimer()
	ms := float64(b.Elapsed().Nanoseconds()) / 1e6 / float64(b.N)
	b.ReportMetric(ms, "ms/step")
	if sub := sim.Stats().Substeps - sub0; sub > 0 {
		b.ReportMetric(float64(sub)/float64(b.N), "substeps/step")
		b.ReportMetric(ms*float64(b.N)/float64(sub), "ms/substep")
	}
}

// TestSWEPuddleStops: TestPuddleStops' pour with the SWE (3 ml of water onto a flat
// floor in 6 s). At contact angles of 30 and 60 degrees the puddle stops (its area grows
// by less than 1% in the tenth second) as thick as the wetting head to 10%, as with the
// pipes, and at rest: no column deeper than the head by more than 5% (a receding edge
// drains through the bulk's depth, sweDrainDepth, and the ripple damping is scaled to
// the SWE, capRipple; before, the 60-degree puddle stood 2.00 mm thin, its rim on a film
// that never receded, and a checkerboard of 1.7 and 4.4 mm columns never settled). The
// volume is exact.
func TestSWEPuddleStops(t *testing.T) {
	t.Parallel()
	for _, deg := range []float64{30, 60} {
		st := wettingSettings(deg*math.Pi/180, 2)
		st.Viscosity, st.Method = 4e-6, MethodSWE
		p := pourPuddle(t, st)
		want := st.WettingHead()
		t.Logf("theta %g deg: wetting head %.3f mm; after 10 s: %.2f cm^2 wet, mean thickness %.3f mm, deepest %.3f mm; area after 9 s %.2f cm^2",
			deg, want*1e3, p.area*1e4, p.mean*1e3, p.deepest*1e3, p.a9*1e4)
		if p.area > 1.01*p.a9 {
			t.Errorf("theta %g deg: the puddle still spreads: %.2f cm^2 at 9 s, %.2f at 10 s", deg, p.a9*1e4, p.area*1e4)
		}
		if math.Abs(p.mean-want) > 0.1*want {
			t.Errorf("theta %g deg: puddle %.3f mm thick, want the wetting head %.3f mm within 10%%", deg, p.mean*1e3, want*1e3)
		}
		if p.deepest > 1.05*want {
			t.Errorf("theta %g deg: a column %.3f mm deep, want none deeper than the wetting head %.3f mm by 5%%: the puddle is not at rest", deg, p.deepest*1e3, want*1e3)
		}
		if math.Abs(p.volume-p.added) > volTol*p.added {
			t.Errorf("theta %g deg: volume %g, poured %g", deg, p.volume, p.added)
		}
	}
}

// TestSWEEdgeDrains: a receding edge drains through the depth of the liquid behind it
// (sweDrainDepth). A strip of water 2 mm deep at 60 degrees (thinner than the receding
// head, 0.9 x 2.71 mm on a straight line) ends in a film 50 microns thick a column wide
// ahead of it. The film reads the receding head and flows back into the bulk; through its
// own depth it gave back a film's worth a substep and never dried (the bulk behind it was
// then no edge and never receded). Through the bulk's it is dry within a tenth of a second,
// and the volume is exact.
func TestSWEEdgeDrains(t *testing.T) {
	const nx, ny, dx, film = 24, 3, 0.0005, 50e-6
	st := wettingSettings(60*math.Pi/180, 1)
	st.Viscosity, st.Method = 4e-6, MethodSWE
	sim := newSim(t, flatScene(t, nx, ny, dx), st)
	c := sim.Columns()
	h := append([]float32(nil), c.Base...)
	for y := range ny {
		for x := range 8 {
			h[y*nx+x] += 0.002
		}
		h[y*nx+8] += film
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	v0 := sim.Volume()
	edge := func() float64 {
		sn := snapshot(sim)
		return float64(sn.Height[nx+8] - c.Base[nx+8])
	}
	steps := int(math.Round(0.1 / sim.Dt()))
	sim.Step(steps)
	if d := edge(); d > DryDepth {
		t.Errorf("the film ahead of the bulk is %.3g microns deep after 0.1 s, want dry (at most %g)", d*1e6, DryDepth*1e6)
	}
	if v := sim.Volume(); math.Abs(v-v0) > volTol*v0 {
		t.Errorf("volume %g, was %g", v, v0)
	}
}
