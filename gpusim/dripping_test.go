package gpusim

import (
	"math"
	"slices"
	"testing"
)

// dripSettings are fallSettings with water's surface tension (0.072 N/m, 1000 kg/m^3,
// contact angle 30 degrees): the edges drip (docs/solver.md, "Dripping edges (Tate's
// law)").
func dripSettings(workers int) Settings {
	st := fallSettings(0, workers)
	st.SurfaceTension, st.Density, st.ContactAngle = 0.072, 1000, 30*math.Pi/180
	return st
}

// dripRun is a pour onto a ledge 20 mm above the floor (40 x 10 cells of 0.5 mm, the
// ledge x < 8 mm), whose liquid runs over the ledge's edge onto the floor, drained at its
// far end, stepped one step at a time. It records every parcel that leaves the edge (the
// particle phase's edgeHook).
type dripRun struct {
	sim     *Sim
	parcels []float64 // the volumes of the parcels that left the edge, in order
	asIs    []bool    // per parcel: a drop let fall as it was (its edge fed it nothing for dripHold)
	perStep []int     // per step: the parcels that left the edge
	now     int       // the parcels that left the edge in the step being run
}

func newDripRun(t *testing.T, st Settings, rate, stop float64) *dripRun {
	t.Helper()
	return newDripRunOn(t, 10, st, rate, stop)
}

// newDripRunOn is newDripRun on a grid ny cells wide (the edge's pipes).
func newDripRunOn(t *testing.T, ny int, st Settings, rate, stop float64) *dripRun {
	t.Helper()
	c := ledgeScene(t, 40, ny, 0.0005, 0.008, 0.021, 0.001, 0.04)
	sim := newSim(t, c, st)
	if _, err := sim.AddEmitter(Emitter{X: 0.004, Y: float64(ny) * 0.00025, Z: 0.03, Radius: 0.0015, Rate: rate, Stop: stop}); err != nil {
		t.Fatal(err)
	}
	// A drain at the floor's far end keeps the pool below the ledge shallow.
	if _, err := sim.AddEmitter(Emitter{X: 0.018, Y: float64(ny) * 0.00025, Z: 0.002, Radius: 0.003, Rate: -1e-5}); err != nil {
		t.Fatal(err)
	}
	d := &dripRun{sim: sim}
	sim.fall.edgeHook = func(_ int, vol float64, asIs bool) {
		d.parcels = append(d.parcels, vol)
		d.asIs = append(d.asIs, asIs)
		d.now++
	}
	return d
}

// step runs n steps, checking after each that the volume is exact (the columns plus the
// particles plus the drops gathering at edges equal what was added, to 1e-12 of it), that
// heights are in bounds and that the particles and the gathering drops add up to Airborne.
func (d *dripRun) step(t *testing.T, n int) {
	t.Helper()
	sim := d.sim
	var snap Snapshot
	for range n {
		d.now = 0
		sim.Step(1)
		d.perStep = append(d.perStep, d.now)
		step := int(sim.Steps())
		checkBounds(t, sim, step)
		sim.Snapshot(&snap)
		if dv := snap.Volume - (snap.Added - snap.Removed); math.Abs(dv) > 1e-12*snap.Added+1e-15 {
			t.Fatalf("step %d: volume %.17g m^3, added - removed %.17g: off by %.3g (%.3g of the added)",
				step, snap.Volume, snap.Added-snap.Removed, dv, dv/snap.Added)
		}
		var air float64
		for _, p := range snap.Particles {
			air += p.Volume
		}
		if hang := sim.fall.hanging(); math.Abs(air+hang-snap.Airborne) > 1e-12*snap.Airborne {
			t.Fatalf("step %d: particles hold %g m^3 and the edges %g, Airborne says %g", step, air, hang, snap.Airborne)
		} else if snap.Hanging != hang || sim.Stats().Hanging != hang {
			t.Fatalf("step %d: the edges hold %g m^3, the snapshot says %g, Stats %g", step, hang, snap.Hanging, sim.Stats().Hanging)
		}
	}
}

// tateWater is the Tate volume of an edge column of water at dx = 0.5 mm:
// pi dx sigma / (rho g) (docs/method.md, "Dripping edges (Tate's law)").
var tateWater = math.Pi * 0.0005 * 0.072 / (1000 * 9.81)

// A wet edge fed slowly drips drops of the Tate volume: every parcel that leaves the edge
// while it is fed is within 30 % of it, none is smaller than a tenth of it but the drops
// an edge lets fall as they are after it has fed them nothing for dripHold, and the
// volume is exact at every step. The drops are the same bits for 1 and 2 workers.
func TestDrippingEdgeTate(t *testing.T) {
	const rate, stop, after = 2.5e-8, 8.0, 4.0 // 0.025 ml/s for 8 s over an edge 2 mm long
	if v, _ := tateDrop(dripSettings(1), 0.0005); math.Abs(v-tateWater) > 1e-15 || math.Abs(v-11.53e-9) > 0.01e-9 {
		t.Fatalf("Tate volume %g m^3, want pi dx sigma / (rho g) = %g (11.5 microlitres)", v, tateWater)
	}
	var ref *dripRun
	for _, workers := range []int{1, 2} {
		d := newDripRunOn(t, 4, dripSettings(workers), rate, stop)
		d.step(t, int(math.Ceil(stop/d.sim.Dt())))
		fed := len(d.parcels)
		hang := d.sim.fall.hanging()
		d.step(t, int(math.Ceil(after/d.sim.Dt()))) // the pour stopped: the ledge drains
		lo, hi, held := math.Inf(1), 0.0, 0
		for i, v := range d.parcels {
			if d.asIs[i] {
				held++
				continue
			}
			if v < 0.1*tateWater {
				t.Errorf("workers %d: parcel %d of %g m^3 left the edge, less than a tenth of the Tate volume %g", workers, i, v, tateWater)
			}
			if i < fed {
				lo, hi = min(lo, v), max(hi, v)
				if math.Abs(v-tateWater) > 0.3*tateWater {
					t.Errorf("workers %d: drop %d of %g m^3 while fed, want within 30 %% of the Tate volume %g", workers, i, v, tateWater)
				}
			}
		}
		if fed-held < 5 {
			t.Fatalf("workers %d: %d drops in %g s of pouring %g m^3/s over the edge", workers, fed, stop, rate)
		}
		t.Logf("workers %d: %d drops while fed, %.4g-%.4g m^3 (Tate %.4g); %.3g m^3 gathering when the pour stopped, then %d parcels %.3g m^3 (%d in all let fall as they were); %.3g m^3 still gathering %g s later",
			workers, fed, lo, hi, tateWater, hang, len(d.parcels)-fed, d.parcels[fed:], held, d.sim.fall.hanging(), after)
		if ref == nil {
			ref = d
			continue
		}
		a, b := snapshot(ref.sim), snapshot(d.sim)
		if !slices.Equal(a.Height, b.Height) || !slices.Equal(a.Particles, b.Particles) || !slices.Equal(ref.parcels, d.parcels) ||
			!slices.Equal(ref.sim.fall.pend, d.sim.fall.pend) || a.Airborne != b.Airborne {
			t.Fatalf("workers %d: state differs from one worker's", workers)
		}
	}
}

// A stream poured over the same edge (10 cells long) still falls as a stream: once it
// pours, parcels leave the edge in at least 85 % of the steps (each edge column's parcels
// gather to a tenth of the Tate volume, a step or two at these flows) and never more
// than 15 steps (45 ms) in a row without, none is smaller than a tenth of the Tate
// volume, and what gathers at the edges stays below a fifth of the Tate volume per edge
// column: the stream is not held back. (The gaps: the pour sets the ledge sloshing at
// about 3 Hz, and the outflow over the lip pauses for 10-13 steps at each trough; with
// the ripple damping the ledge's surface is smooth, so its ten edge columns pause
// together, where before its ripples had them take turns.)
func TestDrippingEdgeStream(t *testing.T) {
	d := newDripRun(t, dripSettings(2), 4e-6, math.Inf(1)) // 4 ml/s
	n := len(d.sim.fall.cand)
	const steps = 600
	var most float64
	for range steps {
		d.step(t, 1)
		if len(d.perStep) > 100 {
			most = max(most, d.sim.fall.hanging())
		}
	}
	if most > 0.2*tateWater*float64(n) {
		t.Errorf("the stream held back: up to %g m^3 gathering at %d edge columns (Tate volume %g)", most, n, tateWater)
	}
	quiet, run, longest := 0, 0, 0
	for _, k := range d.perStep[100:] {
		if k > 0 {
			run = 0
			continue
		}
		quiet++
		run++
		longest = max(longest, run)
	}
	if quiet > (steps-100)*15/100 || longest > 15 {
		t.Errorf("the stream pours in bursts: %d of %d steps without a parcel leaving the edge, up to %d in a row", quiet, steps-100, longest)
	}
	lo := math.Inf(1)
	for i, v := range d.parcels {
		lo = min(lo, v)
		if v < 0.1*tateWater && !d.asIs[i] {
			t.Errorf("parcel %d of %g m^3 left the edge, less than a tenth of the Tate volume %g", i, v, tateWater)
		}
	}
	if a := testing.AllocsPerRun(20, func() { d.sim.Step(1) }); a != 0 {
		t.Errorf("Step(1) with the edges gathering allocates %g times", a)
	}
	t.Logf("stream: %d parcels, the smallest %.3g m^3 (%.2f of the Tate volume); %d of the last %d steps without one (%d in a row at most); at most %.3g m^3 gathering",
		len(d.parcels), lo, lo/tateWater, quiet, steps-100, longest, most)
}

// Without surface tension the edge sheds the parcels it did before: small ones (far below
// a tenth of the Tate volume) leave it, nothing gathers, and the state is that of a run
// whose gathering was never configured.
func TestDrippingOffWithoutTension(t *testing.T) {
	st := dripSettings(2)
	st.SurfaceTension = 0
	d := newDripRun(t, st, 1e-7, math.Inf(1))
	d.step(t, 300)
	small := 0
	for _, v := range d.parcels {
		if v < 0.1*tateWater {
			small++
		}
	}
	if small == 0 || d.sim.fall.npend != 0 || d.sim.fall.hanging() != 0 {
		t.Fatalf("surface tension 0: %d parcels, %d of them below a tenth of the Tate volume; %g m^3 gathering", len(d.parcels), small, d.sim.fall.hanging())
	}
}

// Turned off mid-run (surface tension 0), the drops gathering at the edges fall at once,
// the volume exact; turned on again, the edges gather again.
func TestDrippingTurnedOff(t *testing.T) {
	st := dripSettings(1)
	d := newDripRun(t, st, 1e-7, math.Inf(1))
	d.step(t, 400)
	hang := d.sim.fall.hanging()
	if hang == 0 {
		t.Fatal("nothing gathering at the edges after 400 steps")
	}
	n := len(d.sim.fall.vol)
	off := st
	off.SurfaceTension = 0
	if err := d.sim.Set(off); err != nil {
		t.Fatal(err)
	}
	if h := d.sim.fall.hanging(); h != 0 || len(d.sim.fall.vol) <= n {
		t.Fatalf("surface tension turned off: %g m^3 still gathering, %d particles (%d before)", h, len(d.sim.fall.vol), n)
	}
	d.step(t, 50)
	if err := d.sim.Set(st); err != nil {
		t.Fatal(err)
	}
	d.step(t, 100)
	if d.sim.fall.hanging() == 0 {
		t.Fatal("surface tension turned on again: nothing gathers")
	}
}

// A drop whose edge feeds it nothing for dripHold falls as it is, whole, from the edge's
// lip: here the ledge is emptied (SetHeights, booked as removed) while drops gather, and
// within dripHold and a step every one of them has left, each whole, the volume exact.
func TestDripHold(t *testing.T) {
	d := newDripRunOn(t, 4, dripSettings(1), 4e-8, math.Inf(1))
	d.step(t, 800)
	f := d.sim.fall
	var want []float64
	for _, v := range f.pend {
		if v > 0 {
			want = append(want, v)
		}
	}
	if len(want) == 0 {
		t.Fatal("nothing gathering at the edges after 800 steps")
	}
	c := d.sim.Columns()
	h := slices.Clone(snapshot(d.sim).Height)
	for i := range h {
		if c.Base[i] > 0.01 {
			h[i] = c.Base[i] // the ledge, dry
		}
	}
	if err := d.sim.StopEmitter(0); err != nil {
		t.Fatal(err)
	}
	if err := d.sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	n := len(d.parcels)
	d.step(t, int(math.Ceil(dripHold/d.sim.Dt()))+1)
	if f.hanging() != 0 {
		t.Fatalf("dripHold passed without supply: %g m^3 still gathering", f.hanging())
	}
	got := slices.Clone(d.parcels[n:])
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the drops left %g m^3, want the gathered %g m^3 each whole", got, want)
	}
	t.Logf("without supply: %d drops fell whole, %.3g m^3 (Tate %.3g)", len(got), got, tateWater)
}

// TestDripHeldChange: holding columns (a holder such as a 3D region taking them) and
// letting them go while drops gather at the edges lets the drops fall from their edges
// (the edges are found anew), the volume exact: it once indexed the new, empty list of
// edges and panicked.
func TestDripHeldChange(t *testing.T) {
	d := newDripRun(t, dripSettings(1), 1e-7, math.Inf(1))
	d.step(t, 400)
	if d.sim.fall.hanging() == 0 {
		t.Fatal("nothing gathering at the edges after 400 steps")
	}
	cols := d.sim.Columns()
	var block []int // floor cells x 20 to 24, between the ledge and the drain
	for y := 2; y < cols.Ny-2; y++ {
		for x := 20; x < 25; x++ {
			lo, _ := cols.Cell(x, y)
			block = append(block, lo)
		}
	}
	mustDo(t, d.sim.Hold(block))
	if h := d.sim.fall.hanging(); h != 0 {
		t.Errorf("held: %g m^3 still gathering at the edges", h)
	}
	checkHeldBalance(t, d.sim, 1e-6, "held")
	d.step(t, 100)
	mustDo(t, d.sim.Hold(nil))
	checkHeldBalance(t, d.sim, 1e-6, "let go")
	d.step(t, 100)
}
