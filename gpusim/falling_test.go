package gpusim

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// ledgeScene is an nx x ny grid (dx) whose cells with x < ledgeX stand on a block top at
// ledgeZ (the ledge) and the others on a floor at floorZ; the domain top is height.
func ledgeScene(t testing.TB, nx, ny int, dx, ledgeX, ledgeZ, floorZ, height float64) *terrain.Columns {
	return layeredScene(t, nx, ny, dx, height, 1, func(x, _ float64) float64 {
		if x < ledgeX {
			return ledgeZ
		}
		return floorZ
	}, nil)
}

// shelfScene is ledgeScene's ledge as an overhang: a shelf 2 mm thick whose top is at
// ledgeZ, over a floor at floorZ that runs under it: cells under the shelf have two columns.
func shelfScene(t testing.TB, nx, ny int, dx, shelfX, ledgeZ, floorZ, height float64) *terrain.Columns {
	return layeredScene(t, nx, ny, dx, height, 2, func(x, _ float64) float64 { return floorZ }, []slab{
		{ledgeZ - 0.002, ledgeZ, func(x, _ float64) bool { return x >= shelfX }},
	})
}

// fallSettings are DefaultSettings with dt, falling on, and workers.
func fallSettings(dt float64, workers int) Settings {
	s := DefaultSettings()
	s.Dt, s.Workers, s.Falling = dt, workers, FallingParticles
	return s
}

// checkConserved fails when the volume differs from added - removed by more than float
// rounding (the solver's own bound with passages: 1e-15 m^3, docs/solver.md), or some
// height is out of bounds, or a particle is inside a solid.
func checkConserved(t *testing.T, sim *Sim, step int) {
	t.Helper()
	checkBounds(t, sim, step)
	var snap Snapshot
	sim.Snapshot(&snap)
	if d := snap.Volume - (snap.Added - snap.Removed); math.Abs(d) > 1e-12*snap.Added+1e-15 {
		t.Fatalf("step %d: volume %.17g m^3, added - removed %.17g: off by %.3g (%.3g of the added)",
			step, snap.Volume, snap.Added-snap.Removed, d, d/snap.Added)
	}
	c := sim.Columns()
	var air float64
	for k, p := range snap.Particles {
		air += p.Volume
		cx, cy, ok := c.CellAt(float64(p.X), float64(p.Y))
		if !ok {
			t.Fatalf("step %d: particle %d at (%g, %g, %g) is outside the domain", step, k, p.X, p.Y, p.Z)
		}
		col := c.ColumnAt(cx, cy, float64(p.Z))
		if col < 0 || float64(p.Z) < float64(c.Base[col]) || float64(p.Z) > float64(c.Max[col]) {
			t.Fatalf("step %d: particle %d at (%g, %g, %g) is inside a solid", step, k, p.X, p.Y, p.Z)
		}
		if !(p.Volume > 0) {
			t.Fatalf("step %d: particle %d has volume %g", step, k, p.Volume)
		}
	}
	if air != snap.Airborne {
		t.Fatalf("step %d: particles hold %g m^3, Airborne says %g", step, air, snap.Airborne)
	}
}

// stepConserved runs n single steps, checking the volume, bounds and particles after each.
func stepConserved(t *testing.T, sim *Sim, n int) {
	t.Helper()
	for step := range n {
		sim.Step(1)
		checkConserved(t, sim, step)
	}
}

// A parcel dropped from rest at height H above a dry floor lands after sqrt(2H/g), within a
// step, and its whole volume is then on the floor.
func TestFreeFallLandsOnTime(t *testing.T) {
	const dx, H, dt = 0.001, 0.05, 0.002
	for _, workers := range []int{1, 2} {
		c := ledgeScene(t, 20, 20, dx, 0, 0, 0.001, 0.1) // a flat floor at 1 mm
		sim := newSim(t, c, fallSettings(dt, workers))
		const vol = 1e-9
		if err := sim.Drop(0.0105, 0.0105, 0.001+H, vol, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
		want := math.Sqrt(2 * H / 9.81)
		landed := -1.0
		for step := 1; step < 200; step++ {
			sim.Step(1)
			checkConserved(t, sim, step)
			if sim.Stats().Particles == 0 {
				landed = sim.Time()
				break
			}
		}
		if math.Abs(landed-want) > dt {
			t.Fatalf("workers %d: landed at t = %g s, sqrt(2H/g) = %g s (dt %g)", workers, landed, want, dt)
		}
		// It lands spread over the 3 x 3 cells around where it fell, binomially: a quarter
		// in the middle, an eighth in each side cell, a sixteenth in each corner.
		var snap Snapshot
		sim.Snapshot(&snap)
		var all float64
		for i := range c.NumColumns() {
			all += snap.Depth(i) * dx * dx
		}
		mid := snap.Depth(c.ColumnAt(10, 10, 0.002)) * dx * dx
		side := snap.Depth(c.ColumnAt(11, 10, 0.002)) * dx * dx
		corner := snap.Depth(c.ColumnAt(9, 11, 0.002)) * dx * dx
		if math.Abs(all-vol) > 1e-6*vol || math.Abs(mid-vol/4) > 1e-6*vol || math.Abs(side-vol/8) > 1e-6*vol || math.Abs(corner-vol/16) > 1e-6*vol {
			t.Fatalf("workers %d: %g m^3 on the floor (want %g): %g in the middle, %g beside, %g in a corner; want 1/4, 1/8, 1/16 of it",
				workers, all, vol, mid, side, corner)
		}
	}
}

// A parcel thrown sideways at u off a ledge of height H lands u sqrt(2H/g) from where it
// started, within a cell.
func TestThrowLandsAtRange(t *testing.T) {
	const dx, H, dt = 0.0005, 0.04, 0.002
	c := ledgeScene(t, 200, 8, dx, 0.005, 0.001+H, 0.001, 0.08)
	for _, u := range []float64{0.1, 0.25, 0.4} {
		sim := newSim(t, c, fallSettings(dt, 2))
		x0 := 0.005 + 1e-6
		if err := sim.Drop(x0, 0.002, 0.001+H, 1e-10, u, 0, 0); err != nil {
			t.Fatal(err)
		}
		for step := 1; step < 200 && sim.Stats().Particles > 0; step++ {
			sim.Step(1)
			checkConserved(t, sim, step)
		}
		// Where it landed: the middle of the 3 x 3 cells it spread over, the centroid of
		// the floor's liquid along x.
		var snap Snapshot
		sim.Snapshot(&snap)
		var sum, moment float64
		for x := range c.Nx {
			for y := range c.Ny {
				d := snap.Depth(c.ColumnAt(x, y, 0))
				sum += d
				moment += d * (float64(x) + 0.5) * dx
			}
		}
		want := x0 + u*math.Sqrt(2*H/9.81)
		if got := moment / sum; math.Abs(got-want) > 1.5*dx+u*dt {
			t.Fatalf("u = %g: landed in the cell at x = %g m, u sqrt(2H/g) predicts %g m", u, got, want)
		}
	}
}

// pourOverLedge runs a source on a ledge whose liquid runs off its edge onto a floor 20 mm
// below, checking volume, bounds and particles every step, and returns the Sim.
func pourOverLedge(t *testing.T, c *terrain.Columns, st Settings, steps int) *Sim {
	t.Helper()
	sim := newSim(t, c, st)
	if _, err := sim.AddEmitter(Emitter{X: 0.004, Y: 0.0025, Z: 0.03, Radius: 0.0015, Rate: 2e-6}); err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= steps; step++ {
		sim.Step(1)
		checkConserved(t, sim, step)
	}
	return sim
}

// Liquid poured on a ledge runs off its edge as particles that fall and land on the floor
// below: volume is exact through release, flight and landing at every step, no particle is
// ever inside a solid, and the results are bit-identical for 1, 2 and 7 workers. The same
// holds over the edge of an overhanging shelf (two layers: the general layout).
func TestPourOverLedge(t *testing.T) {
	scenes := map[string]*terrain.Columns{
		"ledge": ledgeScene(t, 40, 10, 0.0005, 0.008, 0.021, 0.001, 0.04),
		"shelf": shelfScene(t, 40, 10, 0.0005, 0.012, 0.021, 0.001, 0.04),
	}
	for name, c := range scenes {
		t.Run(name, func(t *testing.T) {
			var ref *Snapshot
			for _, workers := range []int{1, 2, 7} {
				sim := pourOverLedge(t, c, fallSettings(0, workers), 400)
				st := sim.fall
				if st.released == 0 || st.landed == 0 {
					t.Fatalf("workers %d: released %g m^3, landed %g m^3: the liquid did not fall", workers, st.released, st.landed)
				}
				var snap Snapshot
				sim.Snapshot(&snap)
				// Liquid reached the floor beyond the edge.
				var floor float64
				for x := 17; x < c.Nx; x++ {
					for y := range c.Ny {
						i := c.ColumnAt(x, y, 0.0011)
						floor += snap.Depth(i)
					}
				}
				if floor <= 0 {
					t.Fatalf("workers %d: nothing landed on the floor", workers)
				}
				if ref == nil {
					ref = &Snapshot{}
					sim.Snapshot(ref)
					continue
				}
				if !slices.Equal(snap.Height, ref.Height) || !slices.Equal(snap.Particles, ref.Particles) {
					t.Fatalf("workers %d: state differs from one worker's", workers)
				}
			}
		})
	}
}

// With falling off, the same pour puts no liquid into the air.
func TestFallingOff(t *testing.T) {
	c := ledgeScene(t, 40, 10, 0.0005, 0.008, 0.021, 0.001, 0.04)
	st := fallSettings(0, 2)
	st.Falling = FallingOff
	sim := pourOverLedge(t, c, st, 60)
	if s := sim.Stats(); s.Particles != 0 || s.Airborne != 0 || sim.fall.released != 0 {
		t.Fatalf("falling off: %d particles, %g m^3 in the air", s.Particles, s.Airborne)
	}
	// Turned on mid-run, it releases; turned off again, what is in the air still lands.
	st.Falling = FallingParticles
	if err := sim.Set(st); err != nil {
		t.Fatal(err)
	}
	stepConserved(t, sim, 30)
	if sim.Stats().Particles == 0 {
		t.Fatal("falling turned on mid-run: no particle")
	}
	st.Falling = FallingOff
	if err := sim.Set(st); err != nil {
		t.Fatal(err)
	}
	stepConserved(t, sim, 100)
	if n := sim.Stats().Particles; n != 0 {
		t.Fatalf("falling off for 100 steps: %d particles still in the air", n)
	}
}

// A particle that lands in a column with no room stays in the air, at rest, and lands
// when room appears: nothing is lost.
func TestLandingRespectsMax(t *testing.T) {
	// A box of 1 mm cells, floor at 1 mm, top at 3 mm: each column holds 2e-9 m^3.
	c := ledgeScene(t, 3, 3, 0.001, 0, 0, 0.001, 0.003)
	st := fallSettings(0.002, 1)
	sim := newSim(t, c, st)
	if _, err := sim.Fill(0.0015, 0.0015, 0.002, 0.003); err != nil {
		t.Fatal(err)
	}
	if err := sim.Drop(0.0015, 0.0015, 0.0029, 1e-10, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	stepConserved(t, sim, 20)
	if s := sim.Stats(); s.Particles != 1 || s.Airborne != 1e-10 {
		t.Fatalf("a full box: %d particles, %g m^3 in the air; want the one parcel waiting", s.Particles, s.Airborne)
	}
	if _, err := sim.AddEmitter(Emitter{X: 0.0015, Y: 0.0015, Radius: 0.01, Rate: -1e-6, Stop: 0.1}); err != nil {
		t.Fatal(err)
	}
	stepConserved(t, sim, 100)
	if s := sim.Stats(); s.Particles != 0 {
		t.Fatalf("room made: %d particles still in the air", s.Particles)
	}
}

// Drop refuses bad input, naming it.
func TestDropErrors(t *testing.T) {
	c := ledgeScene(t, 10, 10, 0.001, 0.005, 0.005, 0.001, 0.02)
	sim := newSim(t, c, fallSettings(0, 1))
	for _, tc := range []struct {
		x, y, z, v float64
		want       string
	}{
		{0.002, 0.002, 0.003, 1e-9, "inside a solid"},
		{0.02, 0.002, 0.01, 1e-9, "outside the domain"},
		{0.002, 0.002, 0.01, 0, "volume is 0"},
		{0.002, math.NaN(), 0.01, 1e-9, "at[2] (y) is NaN"},
	} {
		err := sim.Drop(tc.x, tc.y, tc.z, tc.v, 0, 0, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Drop(%g, %g, %g, %g): %v, want %q", tc.x, tc.y, tc.z, tc.v, err, tc.want)
		}
	}
	if s := sim.Stats(); s.Particles != 0 || s.Added != 0 {
		t.Fatalf("refused drops changed the state: %+v", s)
	}
}

// BenchmarkPourOverLedge200: the waterfall scene's shape at 200 x 200 (0.5 mm, two layers):
// a shelf at 31-33 mm over the floor, open along one edge, with 4 ml/s poured on it; timed
// once the stream falls steadily (600 steps, 1.8 s). It reports the particle phase's share
// of a step (phase-share; the bound is 0.15) and the particles in the air.
func BenchmarkPourOverLedge200(b *testing.B) {
	for _, mode := range []Falling{FallingParticles, FallingOff} {
		b.Run(mode.String(), func(b *testing.B) {
			c := shelfScene(b, 200, 200, 0.0005, 0.05, 0.033, 0.0, 0.05)
			st := settings(0, 1e-6, 0)
			st.Falling = mode
			sim := newSim(b, c, st)
			if _, err := sim.AddEmitter(Emitter{X: 0.012, Y: 0.05, Z: 0.04, Radius: 0.004, Rate: 4e-6}); err != nil {
				b.Fatal(err)
			}
			sim.Step(600)
			fall0, wall0 := sim.fall.wall, sim.wall
			b.ResetTimer()
			for range b.N {
				sim.Step(1)
			}
			b.StopTimer()
			b.ReportMetric(float64(sim.Columns().NumColumns())*float64(b.N)/b.Elapsed().Seconds(), "colsteps/s")
			if mode == FallingParticles {
				b.ReportMetric((sim.fall.wall-fall0).Seconds()/(sim.wall-wall0).Seconds(), "phase-share")
				b.ReportMetric(float64(len(sim.fall.vol)), "particles")
			}
		})
	}
}

// A parcel wider than three cells spreads over the cells under it as it lands (equal
// shares within its radius); a small one over the 3 x 3 cells around where it lands.
func TestLargeDropSpreads(t *testing.T) {
	c := ledgeScene(t, 30, 30, 0.0005, 0, 0, 0.001, 0.03) // a flat floor at 1 mm
	sim := newSim(t, c, fallSettings(0.002, 2))
	const big = 1e-8 // 10 mm^3: radius 1.34 mm, 2.7 cells
	if err := sim.Drop(0.0075, 0.0075, 0.01, big, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := sim.Drop(0.0025, 0.0125, 0.01, 1e-12, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	var wetBig, wetSmall int
	for step := 1; sim.Stats().Particles > 0; step++ {
		if step > 100 {
			t.Fatal("the drops did not land in 100 steps")
		}
		sim.Step(1)
		checkConserved(t, sim, step)
		if sim.Stats().Particles == 0 {
			var snap Snapshot
			sim.Snapshot(&snap)
			for i := range c.NumColumns() {
				if snap.Depth(i) > 0 {
					if x := int(sim.fall.colCell[i]) % c.Nx; x < 10 {
						wetSmall++
					} else {
						wetBig++
					}
				}
			}
		}
	}
	// The cells within 1.34 mm of the centre: about pi (2.7)^2 = 23.
	if wetBig < 15 || wetBig > 30 {
		t.Errorf("a 10 mm^3 drop wetted %d cells on landing, want those within its radius (about 23)", wetBig)
	}
	if wetSmall != 9 {
		t.Errorf("a 0.001 mm^3 drop wetted %d cells, want the 3 x 3 around it", wetSmall)
	}
}

// Once the stream falls steadily, a step with particles in the air allocates nothing.
func TestFallingStepAllocs(t *testing.T) {
	c := ledgeScene(t, 40, 10, 0.0005, 0.008, 0.021, 0.001, 0.04)
	sim := newSim(t, c, fallSettings(0, 2))
	if _, err := sim.AddEmitter(Emitter{X: 0.004, Y: 0.0025, Z: 0.03, Radius: 0.0015, Rate: 2e-6}); err != nil {
		t.Fatal(err)
	}
	sim.Step(100)
	if sim.Stats().Particles == 0 {
		t.Fatal("no particle in the air after 100 steps")
	}
	if a := testing.AllocsPerRun(20, func() { sim.Step(1) }); a != 0 {
		t.Errorf("Step(1) with %d particles in the air allocates %g times", sim.Stats().Particles, a)
	}
}

// A parcel thrown upwards under a shelf stops rising at the shelf's underside (never
// inside the solid) and falls back to the floor.
func TestThrownUpStopsAtCeiling(t *testing.T) {
	c := shelfScene(t, 40, 10, 0.0005, 0.012, 0.021, 0.001, 0.04) // shelf 19-21 mm over x < 12 mm
	sim := newSim(t, c, fallSettings(0.002, 1))
	if err := sim.Drop(0.005, 0.0025, 0.005, 1e-11, 0, 0, 2); err != nil {
		t.Fatal(err)
	}
	top := 0.0
	for step := 1; sim.Stats().Particles > 0; step++ {
		if step > 200 {
			t.Fatal("the parcel did not land in 200 steps")
		}
		sim.Step(1)
		checkConserved(t, sim, step)
		for _, p := range sim.Particles(nil) {
			top = math.Max(top, float64(p.Z))
		}
	}
	if top > 0.019 || top < 0.0189 {
		t.Errorf("thrown up at 2 m/s under a shelf at 19 mm, it rose to %.3f mm; want it stopped at the shelf", top*1e3)
	}
}

// A falling source pours from its point: its liquid reaches the floor H below after
// sqrt(2H/g) (within a step), the stream spreads over the source's disc, and every drop
// poured ends on the floor with the volume exact. A sink cannot fall, and a falling source
// must pour from free space.
func TestFallingSource(t *testing.T) {
	const dx, H = 0.0005, 0.029
	c := ledgeScene(t, 40, 40, dx, 0, 0, 0.001, 0.04) // a flat floor at 1 mm
	for _, workers := range []int{1, 2} {
		sim := newSim(t, c, fallSettings(0, workers))
		const rate, stop = 1e-6, 0.3
		if _, err := sim.AddEmitter(Emitter{X: 0.01, Y: 0.01, Z: 0.001 + H, Radius: 0.002, Rate: rate, Stop: stop, Falls: true}); err != nil {
			t.Fatal(err)
		}
		first := -1.0
		for step := 1; sim.Time() < stop || sim.Stats().Particles > 0; step++ {
			if step > 1000 {
				t.Fatal("the stream did not land in 1,000 steps")
			}
			t0 := sim.Time()
			sim.Step(1)
			checkConserved(t, sim, step)
			if first < 0 && sim.Stats().Wet > 0 {
				first = t0 // poured at the step's start, landed within the step ending now
			}
		}
		if want := math.Sqrt(2 * H / 9.81); math.Abs(first-want) > 2*sim.Dt() {
			t.Errorf("workers %d: the first drop reached the floor at t = %.4f s, sqrt(2H/g) = %.4f s", workers, first, want)
		}
		st := sim.Stats()
		// Exactly rate x duration (Emitter.overlap), not a whole step's worth more.
		if want := rate * stop; math.Abs(st.Volume-want) > 1e-12*want || math.Abs(st.Added-want) > 1e-12*want {
			t.Errorf("workers %d: volume %g, added %g; want the %g poured", workers, st.Volume, st.Added, want)
		}
		// The stream's width: wet cells over the source's disc, not one column.
		if st.Wet < 20 {
			t.Errorf("workers %d: %d wet cells under a source 2 mm in radius", workers, st.Wet)
		}
	}
	sim := newSim(t, c, fallSettings(0, 1))
	for _, tc := range []struct {
		e    Emitter
		want string
	}{
		{Emitter{X: 0.01, Y: 0.01, Z: 0.02, Rate: -1e-6, Falls: true}, "a sink"},
		{Emitter{X: 0.01, Y: 0.01, Z: 0.0005, Rate: 1e-6, Falls: true}, "inside a solid"},
		{Emitter{X: 0.01, Y: 0.01, Z: 0.02, Rate: 1e-6, Falls: true, VZ: math.NaN()}, "velocity[3] is NaN"},
	} {
		if _, err := sim.AddEmitter(tc.e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.e, err, tc.want)
		}
	}
}
