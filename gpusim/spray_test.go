package gpusim

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// A spray without spread is a jet: thrown at speed u at theta above the horizontal from
// h0 over a dry flat floor, its first parcels land at x0 + u cos(theta) t*, t* the root of
// h0 + u sin(theta) t - g t^2 / 2 = 0 (u^2 sin(2 theta) / g for h0 = 0), within a cell.
// The volume sprayed is exactly rate x (stop - start), conserved every step.
func TestSprayLandsAtRange(t *testing.T) {
	const dx, u, h0, floor = 0.001, 0.5, 0.0005, 0.001
	const rate, start, stop = 2e-8, 0.0013, 0.0517 // not on step boundaries
	c := ledgeScene(t, 60, 10, dx, 0, 0, floor, 0.03)
	theta := math.Pi / 4
	for _, workers := range []int{1, 2} {
		sim := newSim(t, c, fallSettings(0, workers))
		sim.RecordImpacts(true)
		x0, y0 := 0.0055, 0.005
		if _, err := sim.AddEmitter(Emitter{X: x0, Y: y0, Z: floor + h0, Rate: rate, Start: start, Stop: stop, Falls: true,
			VX: u * math.Cos(theta), VZ: u * math.Sin(theta), Seed: 99}); err != nil {
			t.Fatal(err)
		}
		g := sim.Settings().Gravity
		tStar := (u*math.Sin(theta) + math.Sqrt(u*u*math.Sin(theta)*math.Sin(theta)+2*g*h0)) / g
		want := u * math.Cos(theta) * tStar
		first := math.NaN()
		var imp []Impact
		for step := 1; sim.Time() < stop || sim.Stats().Particles > 0; step++ {
			if step > 2000 {
				t.Fatal("the spray did not land in 2,000 steps")
			}
			sim.Step(1)
			checkConserved(t, sim, step)
			imp = sim.Impacts(imp)
			if len(imp) > 0 && math.IsNaN(first) {
				first = imp[0].X - x0
				if dy := imp[0].Y - y0; math.Abs(dy) > 1e-9 {
					t.Errorf("workers %d: the jet along x landed %g m off its line", workers, dy)
				}
			}
		}
		if workers == 1 {
			t.Logf("dt %.4g s: first parcels land %.3f mm from the nozzle; formula %.3f mm (u^2 sin(2 theta)/g = %.3f mm for h0 = 0)",
				sim.Dt(), first*1e3, want*1e3, u*u*math.Sin(2*theta)/g*1e3)
		}
		if !(math.Abs(first-want) <= dx) {
			t.Errorf("workers %d: the first parcels landed %.3f mm from the nozzle, the formula says %.3f mm", workers, first*1e3, want*1e3)
		}
		a, _, _ := sim.Accounting()
		if v := sim.Volume(); math.Abs(a-rate*(stop-start)) > 1e-12*rate*(stop-start) || math.Abs(v-a) > 1e-12*a {
			t.Errorf("workers %d: added %.17g, volume %.17g; want rate x (stop - start) = %.17g", workers, a, v, rate*(stop-start))
		}
	}
}

// sprayCase is a spray's main velocity and half-angles.
type sprayCase struct {
	name   string
	v      [3]float64
	spread [2]float64
}

// sprayAxes are a main direction's unit vector and the test's own frame across it: h
// horizontal (z x d), w = d x h; for a vertical d, h is x.
func sprayAxes(v [3]float64) (d, h, w [3]float64) {
	n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	d = [3]float64{v[0] / n, v[1] / n, v[2] / n}
	if l := math.Hypot(d[0], d[1]); l > 1e-9 {
		h = [3]float64{-d[1] / l, d[0] / l, 0}
	} else {
		h = [3]float64{1, 0, 0}
	}
	w = [3]float64{d[1]*h[2] - d[2]*h[1], d[2]*h[0] - d[0]*h[2], d[0]*h[1] - d[1]*h[0]}
	return d, h, w
}

func dot3(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Every parcel a spray pours leaves at the spray's speed in a direction within its cone:
// at most max(a, b) from the main direction, its offset inside the ellipse of half-angles
// a across and b up and down (a fan in a plane when one is 0). The directions spread (not
// all equal, reaching near the cone's rim, centred on the main direction), and for equal
// half-angles they are uniform over the cone's solid angle: the share within half the
// apex half-angle is (1 - cos(G/2)) / (1 - cos G).
func TestSprayDirectionsInCone(t *testing.T) {
	c := ledgeScene(t, 40, 40, 0.001, 0, 0, 0.001, 0.05)
	for _, tc := range []sprayCase{
		{"45 degrees up, round", [3]float64{0.3, 0, 0.3}, [2]float64{0.3, 0.3}},
		{"fountain, round", [3]float64{0, 0, 0.8}, [2]float64{0.2, 0.2}},
		{"horizontal, wide across", [3]float64{0, -0.4, 0}, [2]float64{0.6, 0.1}},
		{"down, tall", [3]float64{0.05, 0.02, -0.5}, [2]float64{0.1, 0.5}},
		{"fan across", [3]float64{0.2, 0.2, 0.1}, [2]float64{0.7, 0}},
		{"fan up and down", [3]float64{-0.3, 0, 0.1}, [2]float64{0, 0.4}},
		{"every way", [3]float64{0.1, 0, 0}, [2]float64{math.Pi, math.Pi}},
	} {
		sim := newSim(t, c, fallSettings(0.001, 1))
		// 1e-4 m^3/s: 64 parcels a step (maxPourParcels).
		if _, err := sim.AddEmitter(Emitter{X: 0.02, Y: 0.02, Z: 0.025, Rate: 1e-4, Falls: true, VX: tc.v[0], VY: tc.v[1], VZ: tc.v[2],
			Spread: tc.spread, Seed: 7}); err != nil {
			t.Fatal(err)
		}
		d, h, w := sprayAxes(tc.v)
		speed := math.Sqrt(dot3(tc.v, tc.v))
		a, b := tc.spread[0], tc.spread[1]
		G := max(a, b)
		f := sim.fall
		var n, inner int
		var maxAng, sumP, sumQ float64
		first := [3]float32{}
		same := true
		for k := range int64(200) { // 12,800 parcels
			n0 := len(f.vol)
			sim.fall.pour(&sim.em, float64(k)*sim.dt, sim.dt, k)
			if len(f.vol)-n0 != maxPourParcels {
				t.Fatalf("%s: %d parcels poured in a step, want %d", tc.name, len(f.vol)-n0, maxPourParcels)
			}
			for i := n0; i < len(f.vol); i++ {
				v := [3]float64{float64(f.vx[i]), float64(f.vy[i]), float64(f.vz[i])}
				if i == 0 {
					first = [3]float32{f.vx[i], f.vy[i], f.vz[i]}
				} else if first != [3]float32{f.vx[i], f.vy[i], f.vz[i]} {
					same = false
				}
				s := math.Sqrt(dot3(v, v))
				if math.Abs(s-speed) > 1e-6*speed {
					t.Fatalf("%s: parcel %d leaves at %g m/s, the spray's speed is %g", tc.name, i, s, speed)
				}
				u := [3]float64{v[0] / s, v[1] / s, v[2] / s}
				p, q := dot3(u, h), dot3(u, w)
				ang := math.Atan2(math.Hypot(p, q), dot3(u, d))
				if ang > G+1e-6 {
					t.Fatalf("%s: parcel %d leaves %.6f rad from the main direction, the cone's half-angle is %.6f", tc.name, i, ang, G)
				}
				// The offset as an angle vector across d, inside the ellipse of semi-axes a, b.
				var x, y float64
				if r := math.Hypot(p, q); r > 0 {
					x, y = ang*p/r, ang*q/r
				}
				if (a == 0 && math.Abs(x) > 1e-5) || (b == 0 && math.Abs(y) > 1e-5) ||
					(a > 0 && b > 0 && (x/a)*(x/a)+(y/b)*(y/b) > 1+1e-4) {
					t.Fatalf("%s: parcel %d's offset (%.6f across, %.6f up) lies outside the ellipse of half-angles (%g, %g)", tc.name, i, x, y, a, b)
				}
				maxAng = max(maxAng, ang)
				sumP += p
				sumQ += q
				if ang <= G/2 {
					inner++
				}
				n++
			}
		}
		if same {
			t.Errorf("%s: every parcel left in the same direction", tc.name)
		}
		if maxAng < 0.9*G {
			t.Errorf("%s: the widest parcel left %.4f rad from the main direction, the cone is %.4f: the directions hardly spread", tc.name, maxAng, G)
		}
		if mp, mq := sumP/float64(n), sumQ/float64(n); math.Hypot(mp, mq) > 0.1*math.Sin(min(G, math.Pi/2)) {
			t.Errorf("%s: the mean direction is off the main one by (%.4f, %.4f)", tc.name, mp, mq)
		}
		share := float64(inner) / float64(n)
		if a == b {
			want := (1 - math.Cos(G/2)) / (1 - math.Cos(G))
			if math.Abs(share-want) > 0.02 { // 5 standard deviations
				t.Errorf("%s: %.4f of the parcels within G/2 of the main direction, uniform over the cone gives %.4f", tc.name, share, want)
			}
			t.Logf("%s: %d parcels, widest %.4f rad (cone %.4f), %.4f within G/2 (uniform: %.4f)", tc.name, n, maxAng, G, share, want)
		} else {
			t.Logf("%s: %d parcels, widest %.4f rad (cone %.4f)", tc.name, n, maxAng, G)
		}
	}
}

// sprayRun runs a spray with seed over a flat floor for steps (workers) and returns its
// heights, residuals and particles.
func sprayRun(t *testing.T, seed uint64, spread [2]float64, workers, steps int) ckSnap {
	t.Helper()
	c := ledgeScene(t, 40, 40, 0.0005, 0, 0, 0.001, 0.04)
	sim := newSim(t, c, fallSettings(0, workers))
	if _, err := sim.AddEmitter(Emitter{X: 0.01, Y: 0.01, Z: 0.004, Radius: 0.0005, Rate: 5e-7, Falls: true,
		VX: 0.05, VY: 0.02, VZ: 0.3, Spread: spread, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	for step := range steps {
		sim.Step(1)
		checkConserved(t, sim, step)
	}
	if sim.Stats().Particles == 0 || sim.Stats().Wet == 0 {
		t.Fatalf("after %d steps: %d particles in the air, %d wet cells: the spray is not tested", steps, sim.Stats().Particles, sim.Stats().Wet)
	}
	return ckRead(sim)
}

// The same seed sprays the same bits, with 1 worker or 2; another seed sprays otherwise;
// without spread the seed changes nothing.
func TestSprayDeterministic(t *testing.T) {
	const steps = 150
	spread := [2]float64{0.4, 0.25}
	a := sprayRun(t, 3, spread, 1, steps)
	ckSame(t, "seed 3, workers 1 and 2", a, sprayRun(t, 3, spread, 2, steps))
	ckSame(t, "seed 3 twice", a, sprayRun(t, 3, spread, 1, steps))
	b := sprayRun(t, 4, spread, 1, steps)
	if slices.Equal(a.parts, b.parts) || firstDiffBits(a.h, b.h) < 0 {
		t.Error("seeds 3 and 4 sprayed the same particles or the same heights")
	}
	ckSame(t, "no spread, seeds 3 and 4", sprayRun(t, 3, [2]float64{}, 2, steps), sprayRun(t, 4, [2]float64{}, 1, steps))
}

// A spraying step allocates nothing once the arrays have grown.
func TestSprayStepAllocs(t *testing.T) {
	c := ledgeScene(t, 40, 40, 0.0005, 0, 0, 0.001, 0.04)
	sim := newSim(t, c, fallSettings(0, 2))
	if _, err := sim.AddEmitter(Emitter{X: 0.01, Y: 0.01, Z: 0.004, Rate: 5e-7, Falls: true, VZ: 0.3, Spread: [2]float64{0.3, 0.3}}); err != nil {
		t.Fatal(err)
	}
	sim.Step(300)
	if a := testing.AllocsPerRun(20, func() { sim.Step(1) }); a != 0 {
		t.Errorf("Step(1) spraying with %d particles in the air allocates %g times", sim.Stats().Particles, a)
	}
}

// Bad spray values are refused with errors naming the field.
func TestSprayErrors(t *testing.T) {
	c := ledgeScene(t, 20, 20, 0.001, 0, 0, 0.001, 0.03)
	sim := newSim(t, c, fallSettings(0, 1))
	ok := Emitter{X: 0.01, Y: 0.01, Z: 0.01, Rate: 1e-6, Falls: true, VZ: 0.3}
	for _, tc := range []struct {
		edit func(e *Emitter)
		want string
	}{
		{func(e *Emitter) { e.Spread = [2]float64{4, 0} }, "spread[1] is 4 rad: an apex half-angle must lie in [0, pi]"},
		{func(e *Emitter) { e.Spread = [2]float64{0.1, -0.1} }, "spread[2] is -0.1 rad"},
		{func(e *Emitter) { e.Spread = [2]float64{math.NaN(), 0} }, "spread[1] is NaN"},
		{func(e *Emitter) { e.Spread[1] = math.Inf(1) }, "spread[2] is +Inf"},
		{func(e *Emitter) { e.Spread, e.Falls, e.VZ = [2]float64{0.2, 0.2}, false, 0 }, "only a source that falls"},
		{func(e *Emitter) { e.Spread, e.VZ = [2]float64{0.2, 0.2}, 0 }, "velocity {0, 0, 0}"},
		{func(e *Emitter) { e.Spread, e.VX, e.VZ = [2]float64{0.2, 0}, 1.5e308, 1.5e308 }, "speed must be a finite number"},
	} {
		e := ok
		tc.edit(&e)
		if _, err := sim.AddEmitter(e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", e, err, tc.want)
		}
	}
	for _, sp := range [][2]float64{{0, 0}, {math.Pi, 0}, {0, math.Pi}} {
		e := ok
		e.Spread = sp
		if _, err := sim.AddEmitter(e); err != nil {
			t.Errorf("spread %v: %v", sp, err)
		}
	}
}

// A version 1 checkpoint (sources without the spray fields) still reads and resumes to
// the same bits (but for the wetted flags it lacks); version 1 cannot save a spray.
func TestCheckpointVersion1(t *testing.T) {
	sc := ckScenes()[2] // no spray
	a := sc.start(t, 2, "")
	var v1 bytes.Buffer
	if err := a.writeCheckpoint(&v1, 1); err != nil {
		t.Fatal(err)
	}
	if v := checkpointFormat(v1.Bytes()); v != 1 {
		t.Fatalf("format %d", v)
	}
	wet := 0 // version 6: the wetted flags, a count and a byte a column, with surface tension
	if a.settings.CapillaryLength() > 0 {
		wet = 8 + a.cols.NumColumns()
	}
	if n7 := len(checkpointOf(t, a)); n7 != v1.Len()+(24+9)*len(sc.ems)+8+1+wet+24 {
		t.Fatalf("version 7 is %d bytes, version 1 %d: want 33 more a source, an empty list of lifted floors, the method, %d of wetted flags and 24 of held columns (none), exchanged volume and landed parcels (none)", n7, v1.Len(), wet)
	}
	b := ckResume(t, sc, v1.Bytes(), 3, "", sc.general)
	if wet > 0 {
		// Before version 6 a checkpoint has no wetted flags: the resume takes the wet
		// columns (markWetted, as a written height does), and goes on as the run would
		// had it forgotten the ground that drained columns had wetted at that moment.
		c := a.be.(*cpuBackend)
		markWetted(c.capSt.wet, c.h, c.base, c.p.cap.mark)
	}
	ckStepBoth(t, "version 1", a, b, 20)

	s := ckScenes()[0].start(t, 2, "") // with a spray
	if err := s.writeCheckpoint(&v1, 1); err == nil || !strings.Contains(err.Error(), "sprays") {
		t.Errorf("version 1 of a spray: %v", err)
	}
}
