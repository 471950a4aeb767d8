package gpusim

// Physics tests of what every run keeps: a still lake, the same bits for any workers, exact volume.

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// TestLakeAtRest: still liquid over uneven multi-layer terrain stays still (docs/method.md,
// "Expected numbers"). The state is the absolute height, and Fill gives every reached column exactly
// min(level, max), so head differences between wet columns are exactly zero; every flux
// must be exactly 0 and every height unchanged bit for bit after 2000 steps. The levels
// leave columns full under slabs (h = max: their inflow must be scaled to exactly zero),
// dry columns above the level next to wet ones (their outflow must be exactly zero), and
// the bumpy floor partly dry.
func TestLakeAtRest(t *testing.T) {
	const dx = 0.001
	over := func(t testing.TB) *terrain.Columns { return overhangScene(t, 30, 30, dx) }
	five := func(t testing.TB) *terrain.Columns { return fiveLayerScene(t, 30, 30, dx) }
	single := func(t testing.TB) *terrain.Columns { return layeredScene(t, 30, 30, dx, 0.02, 1, bumpyFloor, nil) }
	cases := []lakeCase{
		// Single layer, crests dry (the kernels' dense layout).
		{"single/4mm", single, 0.004, false, true},
		// Bumps of 1-5 mm: level 3 mm leaves the crests dry.
		{"overhang/3mm", over, 0.003, false, true},
		// Full under the 8-10 mm slab, wet on it, dry on the 16-18 mm slab.
		{"overhang/12mm", over, 0.012, true, true},
		// Full under both slabs, wet on the upper one (every column wet).
		{"overhang/20mm", over, 0.020, true, false},
		{"five/3mm", five, 0.003, false, true},
		// Full under the first slab, wet on it, dry on the upper slabs.
		{"five/13mm", five, 0.013, true, true},
		{"five/29mm", five, 0.029, true, true},
	}
	steps := 2000
	for _, tc := range cases {
		for _, cs := range []CrossSection{CrossPaper, CrossFilm} {
			t.Run(tc.name+"/"+cs.String(), func(t *testing.T) {
				c := tc.cols(t)
				st := settings(0, 4e-6, 1)
				st.CrossSection = cs
				sim := newSim(t, c, st)
				x, y, z := lowestFloor(c)
				if _, err := sim.Fill(x, y, z, tc.level); err != nil {
					t.Fatal(err)
				}
				h0 := snapshot(sim).Height
				// The case must contain what it claims: full, wet and dry columns, and a
				// dry column piped to a wet one.
				full, wet, dryNext := 0, 0, 0
				for i, h := range h0 {
					if h == c.Max[i] {
						full++
					}
					if h > c.Base[i] {
						wet++
					}
				}
				for p := range sim.NumPipes() {
					a, b := sim.Pipe(p)
					if (h0[a] > c.Base[a]) != (h0[b] > c.Base[b]) {
						dryNext++
					}
				}
				if wet == 0 || (dryNext == 0) == tc.dry || (full == 0) == tc.full {
					t.Fatalf("setup: %d wet columns, %d full, %d wet-dry pipes", wet, full, dryNext)
				}
				t.Logf("%d columns: %d wet, %d full, %d wet-dry pipes", c.NumColumns(), wet, full, dryNext)
				var f []float32
				for step := 1; step <= steps; {
					n := 1
					if step > 3 {
						n = 100
					}
					sim.Step(n)
					step += n
					f = sim.Fluxes(f)
					for p, v := range f {
						if v != 0 {
							a, b := sim.Pipe(p)
							t.Fatalf("step %d: pipe %d (%d -> %d, h %g/%g, max %g/%g) has flux %g, want exactly 0",
								sim.Steps(), p, a, b, h0[a], h0[b], c.Max[a], c.Max[b], v)
						}
					}
					for i, h := range snapshot(sim).Height {
						if h != h0[i] {
							t.Fatalf("step %d: column %d moved from %g to %g (base %g, max %g)", sim.Steps(), i, h0[i], h, c.Base[i], c.Max[i])
						}
					}
				}
			})
		}
	}
}

// TestWorkersBitIdentical: results do not depend on the number of worker threads
// (docs/method.md, "Expected numbers"): heights and fluxes bit for bit after 300 steps of a flowing
// multi-layer scene with sources, sinks and nu > 0, for 1, 2 and 7 workers; and the same
// on a single-layer bumpy floor (the kernels' dense layout, split by rows).
func TestWorkersBitIdentical(t *testing.T) {
	scenes := map[string]func() *terrain.Columns{
		"overhang": func() *terrain.Columns { return overhangScene(t, 30, 30, 0.001) },
		"single":   func() *terrain.Columns { return layeredScene(t, 30, 30, 0.001, 0.03, 1, bumpyFloor, nil) },
	}
	for _, name := range []string{"overhang", "single"} {
		for _, cs := range []CrossSection{CrossPaper, CrossFilm} {
			workersBitIdentical(t, name, scenes[name], cs)
		}
	}
}

func workersBitIdentical(t *testing.T, name string, scene func() *terrain.Columns, cs CrossSection) {
	var refH, refF []float32
	var refAcct [3]float64
	for _, w := range []int{1, 2, 7} {
		st := settings(0.003, 4e-6, w)
		st.CrossSection = cs
		sim := runOn(t, scene(), st, 300)
		h := snapshot(sim).Height
		f := sim.Fluxes(nil)
		var acct [3]float64
		acct[0], acct[1], acct[2] = sim.Accounting()
		if refH == nil {
			refH, refF, refAcct = h, f, acct
			moving := 0
			for _, v := range f {
				if v != 0 {
					moving++
				}
			}
			if moving < len(f)/10 || acct[1] == 0 {
				t.Fatalf("%s %v: setup: only %d of %d pipes carry flux, removed %g", name, cs, moving, len(f), acct[1])
			}
			continue
		}
		for i := range h {
			if math.Float32bits(h[i]) != math.Float32bits(refH[i]) {
				t.Fatalf("%s %v, %d workers: column %d h = %g, 1 worker gives %g", name, cs, w, i, h[i], refH[i])
			}
		}
		for p := range f {
			if math.Float32bits(f[p]) != math.Float32bits(refF[p]) {
				t.Fatalf("%s %v, %d workers: pipe %d flux = %g, 1 worker gives %g", name, cs, w, p, f[p], refF[p])
			}
		}
		if acct != refAcct {
			t.Fatalf("%s %v, %d workers: accounting %v, 1 worker gives %v", name, cs, w, acct, refAcct)
		}
	}
}

// emitterColumns marks the columns of every cell within r + dx of (x, y): the columns an
// emitter there may touch.
func emitterColumns(c *terrain.Columns, mark []bool, x, y, r float64) {
	for cy := range c.Ny {
		for cx := range c.Nx {
			px, py := c.CellCentre(cx, cy)
			if math.Hypot(px-x, py-y) <= r+c.Dx {
				lo, hi := c.Cell(cx, cy)
				for i := lo; i < hi; i++ {
					mark[i] = true
				}
			}
		}
	}
}

// TestVolumeConservation: over 10,000 steps of a multi-layer scene with overhangs (Fill to
// 6 mm, then a source over the upper slab for 2-20 s and a sink on the floor for 10-35 s,
// liquid falling through the slabs' holes and filling the space under them), after every
// step:
//   - b <= h <= max, no NaN (checkBounds);
//   - the volume equals added - removed (Snapshot and Accounting), twice:
//     (a) Snapshot.Volume, the solver's own figure (it adds the sub-ulp roundings r it
//     carries per column), to 1e-8 of the volume added;
//     (b) docs/method.md's sum (h - b) dx^2 over the heights themselves, to half a float32
//     ulp of h per wet column (the most a carried rounding may be; about 1.2e-7 of added);
//   - the fluxes are antisymmetric: the float64 sum over all columns of their net
//     outflow is zero to rounding (one flux per pipe makes f_ij = -f_ji structural);
//   - every column away from the emitters moved by -dt/dx^2 * (its net outflow as Fluxes
//     reports it), to 2 ulps of h: the reported fluxes are what moved, and nothing (a
//     clamp, say) holds volume back on the side.
//
// Tolerances. The state is float32 heights of 1-30 mm (ulp 1-2e-9 m); the accounting
// sums it exactly in float64. Measured worst over the run, added ~ 1.1e-5 m^3:
// (a) 1.6e-9 of added (paper), 1.0e-9 (film): the bound 1e-8 is 6 times that and 1000 times
// below a scheme that loses a float32 rounding per column per step; (b) 0.065 of the
// half-ulp sum once the solver bugs reported with this test are fixed (2e-8 of added),
// 13 times the sum (3.3e-6 of added) before; antisymmetry 7e-17 of sum |f|.
func TestVolumeConservation(t *testing.T) {
	const dx = 0.001
	steps := 10000
	type mode struct {
		cs  CrossSection
		ext ExtendedPipes
	}
	for _, m := range []mode{{CrossPaper, ExtendedOff}, {CrossFilm, ExtendedOff}, {CrossPaper, ExtendedAxis}, {CrossPaper, ExtendedUnified}, {CrossFilm, ExtendedUnified}} {
		cs := m.cs
		t.Run(cs.String()+"/"+m.ext.String(), func(t *testing.T) {
			c := overhangScene(t, 30, 30, dx)
			st := settings(0, 4e-6, 1)
			st.CrossSection = cs
			st.ExtendedPipes = m.ext
			sim := newSim(t, c, st)
			dt := sim.Dt()
			x, y, z := lowestFloor(c)
			if _, err := sim.Fill(x, y, z, 0.006); err != nil {
				t.Fatal(err)
			}
			srcX, srcY, sinkX, sinkY := 0.009, 0.021, 0.026, 0.004
			if _, err := sim.AddEmitter(Emitter{X: srcX, Y: srcY, Z: 0.025, Radius: 0.002, Rate: 5e-7, Start: 2, Stop: 20}); err != nil {
				t.Fatal(err)
			}
			if _, err := sim.AddEmitter(Emitter{X: sinkX, Y: sinkY, Z: 0.002, Radius: 0.002, Rate: -3e-7, Start: 10, Stop: 35}); err != nil {
				t.Fatal(err)
			}
			near := make([]bool, c.NumColumns())
			emitterColumns(c, near, srcX, srcY, 0.002)
			emitterColumns(c, near, sinkX, sinkY, 0.002)

			var s Snapshot
			sim.Snapshot(&s)
			prev := append([]float32(nil), s.Height...)
			net := make([]float64, c.NumColumns())
			abs := make([]float64, c.NumColumns())
			var f []float32
			var worstSnap, worstOwn, worstUlp, worstNet float64
			maxWet := 0
			for step := 1; step <= steps; step++ {
				sim.Step(1)
				checkBounds(t, sim, step)
				sim.Snapshot(&s)
				maxWet = max(maxWet, s.Wet)

				// Volume, by Snapshot and by our own float64 sum of the heights.
				var own float64
				for i, h := range s.Height {
					own += float64(h) - float64(c.Base[i])
				}
				own *= dx * dx
				added, removed, _ := sim.Accounting()
				if added != s.Added || removed != s.Removed {
					t.Fatalf("step %d: Accounting %g/%g, Snapshot %g/%g", step, added, removed, s.Added, s.Removed)
				}
				want := added - removed
				var ulps float64
				for i, h := range s.Height {
					if h > c.Base[i] {
						ulps += ulp32(h)
					}
				}
				ulps *= dx * dx
				dSnap, dOwn := math.Abs(s.Volume-want)/added, math.Abs(own-want)/added
				worstSnap, worstOwn = max(worstSnap, dSnap), max(worstOwn, dOwn)
				worstUlp = max(worstUlp, math.Abs(own-want)/ulps)
				if dSnap > 1e-8 {
					t.Fatalf("step %d: Snapshot.Volume %.12g m^3, added - removed = %.12g: off by %.2g of added",
						step, s.Volume, want, dSnap)
				}
				if math.Abs(own-want) > 0.5*ulps {
					t.Fatalf("step %d: sum (h - b) dx^2 = %.12g m^3, added - removed = %.12g: off by %.3g m^3 = %.2g of added, "+
						"%.3g times the sum over wet columns of ulp(h) dx^2 (%.3g): more than half a float32 rounding per column",
						step, own, want, own-want, dOwn, math.Abs(own-want)/ulps, ulps)
				}

				// Antisymmetry and the per-column balance.
				f = sim.Fluxes(f)
				clear(net)
				clear(abs)
				var sumAbs float64
				for p, v := range f {
					if math.IsNaN(float64(v)) {
						t.Fatalf("step %d: pipe %d flux is NaN", step, p)
					}
					a, b := sim.Pipe(p)
					net[a] += float64(v)
					net[b] -= float64(v)
					abs[a] += math.Abs(float64(v))
					abs[b] += math.Abs(float64(v))
					sumAbs += math.Abs(float64(v))
				}
				var total float64
				for i := range net {
					total += net[i]
				}
				if sumAbs > 0 {
					worstNet = max(worstNet, math.Abs(total)/sumAbs)
				}
				if math.Abs(total) > 1e-12*sumAbs {
					t.Fatalf("step %d: sum over columns of net outflow = %g m^3/s (sum |f| = %g): fluxes are not antisymmetric", step, total, sumAbs)
				}
				// The extended pipes' net outflow per column, from inside the backend (the
				// pipes change every step and have no public per-pipe view).
				var extNet []float32
				if e := sim.be.(*cpuBackend).ext; e != nil && e.mode != ExtendedOff {
					extNet = e.extNet
				}
				for i, h := range s.Height {
					if near[i] {
						continue
					}
					got := float64(h) - float64(prev[i])
					n := net[i]
					if extNet != nil {
						n += float64(extNet[i])
					}
					want := -n * dt / (dx * dx)
					tol := 2*ulp32(max(h, prev[i])) + 1e-6*abs[i]*dt/(dx*dx)
					if math.Abs(got-want) > tol {
						t.Fatalf("step %d: column %d (base %g, max %g) moved %g m from %g, its fluxes say %g (tolerance %g)",
							step, i, c.Base[i], c.Max[i], got, prev[i], want, tol)
					}
				}
				copy(prev, s.Height)
			}
			added, removed, rejected := sim.Accounting()
			t.Logf("%v: %d steps of %.4g ms: added %.6g m^3, removed %.6g, rejected %.3g, volume %.6g; worst |V - (added - removed)|/added = %.2g (snapshot), %.2g (own sum of h - b), %.2g of sum ulp(h) dx^2; worst |sum net|/sum|f| = %.2g; up to %d wet",
				cs, steps, dt*1e3, added, removed, rejected, s.Volume, worstSnap, worstOwn, worstUlp, worstNet, maxWet)
			// The source and the sink both did their share.
			if fill := added - 18*5e-7; fill <= 0 || removed < 0.5*25*3e-7 {
				t.Fatalf("setup: added %g, removed %g: the emitters did not act as planned", added, removed)
			}
		})
	}
}

// TestSnapshotConcurrent: one goroutine steps (with a source) while another takes
// snapshots; each must be one instant: its Volume the float64 sum of its own heights' depths
// (to the half-ulp roundings the solver carries, far below the 4e-10 m^3 one step adds),
// Time = Steps*dt, and Added + Rejected = rate*Time. Run it with -race too.
func TestSnapshotConcurrent(t *testing.T) {
	const dx, rate = 0.001, 1e-7
	c := layeredScene(t, 20, 20, dx, 0.02, 1, bumpyFloor, nil)
	sim := newSim(t, c, settings(0, 4e-6, 2))
	if _, err := sim.AddEmitter(Emitter{X: 0.01, Y: 0.01, Z: 0.01, Radius: 0.003, Rate: rate}); err != nil {
		t.Fatal(err)
	}
	dt := sim.Dt()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3000 {
			sim.Step(1)
		}
	}()
	var s Snapshot
	n := 0
	for running := true; running; n++ {
		select {
		case <-done:
			running = false
		default:
		}
		sim.Snapshot(&s)
		if len(s.Height) != c.NumColumns() || s.Columns != c || s.Dt != dt {
			t.Fatalf("snapshot %d: %d heights, columns %p, dt %g", n, len(s.Height), s.Columns, s.Dt)
		}
		var own, slack float64
		wet := 0
		for i, h := range s.Height {
			own += float64(h) - float64(c.Base[i])
			slack += ulp32(h) / 2
			if h > c.Base[i] {
				wet++
			}
		}
		own *= dx * dx
		slack *= dx * dx
		if math.Abs(own-s.Volume) > slack || wet != s.Wet {
			t.Fatalf("snapshot %d (step %d): Volume %.12g, sum of its depths %.12g (slack %.2g); Wet %d, counted %d",
				n, s.Steps, s.Volume, own, slack, s.Wet, wet)
		}
		if math.Abs(s.Time-float64(s.Steps)*dt) > 1e-9*dt*float64(s.Steps) {
			t.Fatalf("snapshot %d: Time %g, Steps %d * dt = %g", n, s.Time, s.Steps, float64(s.Steps)*dt)
		}
		if want := rate * s.Time; math.Abs(s.Added+s.Rejected-want) > 1e-9*want {
			t.Fatalf("snapshot %d: added %g + rejected %g, rate * time = %g", n, s.Added, s.Rejected, want)
		}
	}
	if s.Steps != 3000 || n < 10 {
		t.Fatalf("%d snapshots, the last at step %d", n, s.Steps)
	}
	t.Logf("%d consistent snapshots", n)
}

// TestStepAllocs: Step allocates nothing, with sources and a sink active, for 1 and 2
// workers.
func TestStepAllocs(t *testing.T) {
	for _, w := range []int{1, 2} {
		sim := runScene(t, settings(0.003, 4e-6, w), 150) // 0.45 s: source and sink both on
		if a := testing.AllocsPerRun(20, func() { sim.Step(10) }); a != 0 {
			t.Errorf("%d workers: Step(10) allocates %g times", w, a)
		}
		if sim.Time() < 0.4 {
			t.Fatalf("setup: the sink (from 0.4 s) never ran: t = %g", sim.Time())
		}
	}
}

// TestSourceConservation is the demo's situation: a strong source on an incline, where a
// column moves by far more per step than its sub-ulp rounding residual. Folding the
// residual into the flux term lost it there every step: a drift of 2.7e-8 of the volume
// after 600 steps. With the residual added exactly it is 7e-10.
func TestSourceConservation(t *testing.T) {
	c := inclineScene(t, 200, 200, 0.0005, 10*math.Pi/180)
	sim := newSim(t, c, settings(0, 4e-6, 0))
	if _, err := sim.AddEmitter(Emitter{X: 0.085, Y: 0.05, Z: 0.05, Radius: 0.004, Rate: 5e-6, Stop: 2}); err != nil {
		t.Fatal(err)
	}
	sim.Step(600)
	st := sim.Stats()
	if drift := (st.Volume - (st.Added - st.Removed)) / st.Added; math.Abs(drift) > 3e-9 {
		t.Fatalf("volume drifted by %.3g of the volume added (%g m^3 added)", drift, st.Added)
	}
}
