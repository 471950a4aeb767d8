package gpusim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vpbench/vpbench/gpusim/internal/rows"
)

// The capillary head in the dense sweep (capRow, capAhead: docs/solver.md, "The capillary
// head") against the scalar pass it replaced on the dense layout, which is the general
// layout's (capEdges, the contact line alone), on random states around every threshold.

// stepFloor is a floor of steps of 0.5 mm, drawn per cell: neighbours' floors tie often.
func stepFloor(seed uint64) func(x, y float64) float64 {
	return func(x, y float64) float64 {
		r := rand.New(rand.NewPCG(seed, math.Float64bits(x)^math.Float64bits(y)<<1))
		return 0.001 + 0.0005*float64(r.IntN(4))
	}
}

// randomCapState sets random heights (dry, at and around the dry depth, around the
// receding head, deep), wetted flags and last-step heights on sim's CPU backend, the
// capillary head on and not fresh. Dry and wet columns come in patches, so that some rows
// hold no dry column and some groups of 8 none around them.
func randomCapState(t *testing.T, sim *Sim, rng *rand.Rand) {
	t.Helper()
	be := sim.be.(*cpuBackend)
	c := sim.Columns()
	hr := float32(sim.Settings().RecedingHead())
	h := make([]float32, c.NumColumns())
	wetPatch := rng.Float64()
	for i := range h {
		b := c.Base[i]
		var d float32
		x, y := i%c.Nx, i/c.Nx
		patch := math.Sin(float64(x)*0.4+wetPatch*6)+math.Cos(float64(y)*0.3) > -0.3
		switch k := rng.IntN(12); {
		case patch && k < 9:
			d = 0.0002 + 0.003*rng.Float32()
		case k == 9:
			d = DryDepth
		case k == 10:
			d = hr * rng.Float32()
		case k == 11:
			d = []float32{math.Nextafter32(DryDepth, 1), hr, math.Nextafter32(hr, 0), 2 * DryDepth}[rng.IntN(4)]
		}
		h[i] = min(b+d, c.Max[i])
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	cs := &be.capSt
	for i := range h {
		cs.wet[i] = uint8(rng.IntN(2))
		switch rng.IntN(3) {
		case 0:
			cs.prev[i] = h[i]
		case 1:
			cs.prev[i] = math.Nextafter32(h[i], 0)
		default:
			cs.prev[i] = h[i] + 0.001*(rng.Float32()-0.5)
		}
	}
	cs.fresh = false
}

// TestCapRowsMatchScalar: the dense sweep's capillary head (capRow and capAhead, with the
// AVX2 row kernels and with their Go twins) gives the scalar pass's (capEdges) driving
// heights, wetted flags and last-step heights bit for bit, on random states of grids
// from 1 to 40 columns wide, with and without healing, receding and damping.
func TestCapRowsMatchScalar(t *testing.T) {
	t.Parallel()
	fast, split := 0, 0
	for iter := range 120 {
		nx := []int{40, 17, 9, 3, 2, 1, 33}[iter%7]
		ny := []int{23, 12, 4, 2, 1}[iter/7%5]
		theta := []float64{30, 60, 0}[iter%3] * math.Pi / 180
		st := wettingSettings(theta, 1)
		st.Dt = 0.003
		st.Viscosity = []float64{1e-6, 0}[iter/3%2]
		if theta > 0 {
			st.ContactHysteresis = []float64{0, 0.2}[iter/2%2]
		}
		fresh := iter%11 == 0
		for _, noSIMD := range []bool{false, true} {
			name := fmt.Sprintf("iter %d (%dx%d, theta %.0f, nu %g, noSIMD %v)", iter, nx, ny, theta*180/math.Pi, st.Viscosity, noSIMD)
			sim := newSimWith(t, layeredScene(t, nx, ny, 0.0005, 0.03, 1, stepFloor(uint64(iter)), nil), st, backendOptions{noSIMD: noSIMD})
			be := sim.be.(*cpuBackend)
			if !be.capFused() {
				t.Fatalf("%s: not the dense sweep's capillary head", name)
			}
			randomCapState(t, sim, rand.New(rand.NewPCG(uint64(iter), 1)))
			cs := &be.capSt
			cs.fresh = fresh
			n := len(be.h)
			prev0, wet0 := append([]float32(nil), cs.prev...), append([]uint8(nil), cs.wet...)

			// The sweep's order: rows 0 and 1 by capRow, then each row ahead by capAhead.
			g := be.dense
			d := g.work[0]
			d.cap, d.xa, d.xe = true, 0, nx
			be.capStep(d, 0)
			drive := make([]float32, n)
			take := func(y0, y1 int) {
				for y := y0; y <= y1; y++ {
					copy(drive[y*nx:(y+1)*nx], d.drvRow(y, nx))
				}
			}
			be.capRow(d, 0)
			d.drvDone = 0
			take(0, 0)
			for y := 1; y < ny; y++ {
				if d.drvDone < y {
					before := d.drvDone
					be.capAhead(d, y)
					take(before+1, d.drvDone)
				}
				if d.fast {
					fast++
				} else {
					split++
				}
			}
			gotWet, gotPrev := append([]uint8(nil), cs.wetNext...), append([]float32(nil), cs.prevNext...)

			// The scalar pass on the same state.
			copy(cs.prev, prev0)
			copy(cs.wet, wet0)
			be.capEdges(0, n, fresh)
			for i := range n {
				if math.Float32bits(drive[i]) != math.Float32bits(cs.drive[i]) {
					t.Fatalf("%s: column %d (%d, %d): drive %g (%#x), scalar %g (%#x); h %g b %g prev %g wet %d",
						name, i, i%nx, i/nx, drive[i], math.Float32bits(drive[i]), cs.drive[i], math.Float32bits(cs.drive[i]),
						be.h[i], be.base[i], prev0[i], wet0[i])
				}
				if gotWet[i] != cs.wetNext[i] {
					t.Fatalf("%s: column %d: wetted flag %d, scalar %d", name, i, gotWet[i], cs.wetNext[i])
				}
				if math.Float32bits(gotPrev[i]) != math.Float32bits(be.h[i]) {
					t.Fatalf("%s: column %d: next prev %g, h %g", name, i, gotPrev[i], be.h[i])
				}
			}
		}
	}
	if fast < 200 || split < 200 {
		t.Errorf("rows that went the fast way %d, the other %d: want both", fast, split)
	}
}

// TestCapDenseSameBits: whole runs from random states with the capillary head (sources,
// a sink, falling liquid, an open side, heights written mid-run, Step calls of odd and
// even lengths) give the same bits on the dense layout with the AVX2 kernels and with
// the Go twins, and on the general layout (whose scalar pass the dense sweep replaced),
// for 1, 2 and 3 workers: heights, residuals, fluxes, wetted flags and last-step heights.
func TestCapDenseSameBits(t *testing.T) {
	t.Parallel()
	if !rows.New(true).Vector() {
		t.Log("no vector row kernels on this machine or build: the Go twins alone")
	}
	for seed := range uint64(3) {
		var ref []float32
		var refWet []uint8
		for _, o := range []backendOptions{{}, {noSIMD: true}, {general: true}, {general: true, noSIMD: true}} {
			for _, w := range []int{1, 2, 3} {
				name := fmt.Sprintf("seed %d, %+v, %d workers", seed, o, w)
				st := wettingSettings(30*math.Pi/180, w)
				st.Dt = 0.003
				st.ContactHysteresis = 0.15
				st.Falling = FallingParticles
				if seed == 1 {
					st.Sides[SideMinusY] = SideOpen
				}
				sim := newSimWith(t, layeredScene(t, 45, 31, 0.0005, 0.03, 1, stepFloor(seed+100), nil), st, o)
				if be := sim.be.(*cpuBackend); (be.dense != nil) == o.general {
					t.Fatalf("%s: the wrong layout", name)
				}
				randomCapState(t, sim, rand.New(rand.NewPCG(seed, 7)))
				for _, e := range []Emitter{
					{X: 0.004, Y: 0.004, Z: 0.05, Radius: 0.002, Rate: 3e-7},
					{X: 0.018, Y: 0.012, Z: 0.05, Radius: 0.001, Rate: -2e-7},
					{X: 0.012, Y: 0.006, Z: 0.02, Radius: 0.0005, Rate: 1e-7, Falls: true},
				} {
					if _, err := sim.AddEmitter(e); err != nil {
						t.Fatal(err)
					}
				}
				for _, n := range []int{1, 6, 33, 2, 1} {
					sim.Step(n)
				}
				h := snapshot(sim).Height
				h[len(h)/2] += 0.001 // heights written mid-run: the next step starts afresh
				if err := sim.SetHeights(h); err != nil {
					t.Fatal(err)
				}
				for _, n := range []int{3, 50, 1} {
					sim.Step(n)
				}
				be := sim.be.(*cpuBackend)
				got := append(append(append(snapshot(sim).Height, be.r...), sim.Fluxes(nil)...), be.capSt.prev...)
				if ref == nil {
					ref, refWet = got, append([]uint8(nil), be.capSt.wet...)
					continue
				}
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(ref[i]) {
						t.Fatalf("%s: value %d (of heights, residuals, fluxes, last-step heights) %g, the first run %g", name, i, got[i], ref[i])
					}
				}
				for i, v := range be.capSt.wet {
					if v != refWet[i] {
						t.Fatalf("%s: column %d: wetted flag %d, the first run %d", name, i, v, refWet[i])
					}
				}
			}
		}
	}
}

// TestCapStepAllocs: with the capillary head in the dense sweep, Step allocates nothing,
// for 1, 2 and 3 workers and calls of even and odd lengths.
func TestCapStepAllocs(t *testing.T) {
	for _, w := range []int{1, 2, 3} {
		st := wettingSettings(30*math.Pi/180, w)
		st.Dt = 0.003
		sim := newSim(t, layeredScene(t, 60, 40, 0.0005, 0.03, 1, bumpyFloor, nil), st)
		pourDisc(t, sim, 0.015, 0.01, 0.006, 2e-7)
		if !sim.be.(*cpuBackend).capFused() {
			t.Fatal("not the dense sweep's capillary head")
		}
		sim.Step(20)
		for _, n := range []int{10, 7} {
			if a := testing.AllocsPerRun(10, func() { sim.Step(n) }); a != 0 {
				t.Errorf("%d workers: Step(%d) allocates %g times", w, n, a)
			}
		}
	}
}
