package gpusim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// The dense sweep leaves rows that are dry and still alone (denseSweep, denseDead): the
// same bits as sweeping every row (backendOptions.noSkip), on states where much of the
// grid is dry ground the liquid never reached, with a source and a sink, an open side,
// falling liquid landing, floors lifted, the terrain changed and heights written mid-run.

// tiltedFloor rises along y by slope, with steps of 0.25 mm drawn per cell where rough.
func tiltedFloor(slope float64, rough bool, seed uint64) func(x, y float64) float64 {
	return func(x, y float64) float64 {
		z := 0.001 + slope*y
		if rough {
			r := rand.New(rand.NewPCG(seed, math.Float64bits(x)^math.Float64bits(y)<<1))
			z += 0.00025 * float64(r.IntN(3))
		}
		return z
	}
}

// skippedRows is the rows the dense sweep has left alone so far, over all workers, and
// the ranges it swept over fewer than all columns; in the general layout, the units it
// has left alone (twice: it has no ranges).
func skippedRows(sim *Sim) (rows, narrow int64) {
	be := sim.be.(*cpuBackend)
	if be.dense == nil {
		for _, n := range be.skip.left {
			rows += n
		}
		return rows, rows
	}
	for _, d := range be.dense.work {
		rows, narrow = rows+d.skipped, narrow+d.narrow
	}
	return rows, narrow
}

// poison fills the dense layout's rings with NaN before each range (denseGrid.poison).
func poison(sim *Sim) {
	if d := sim.be.(*cpuBackend).dense; d != nil {
		d.poison = true
	}
}

// skipRun runs one scenario on a new Sim made with o and returns its state: heights,
// residuals, fluxes, last-step heights, wetted flags and the accounting, as bits.
func skipRun(t *testing.T, scenario, w int, tension bool, o backendOptions) (out []uint64, skipped, narrow int64) {
	t.Helper()
	return skipRunMethod(t, MethodPipes, scenario, w, tension, o)
}

// skipRunMethod is skipRun with the heightfield method given (the SWE on the general
// layout).
func skipRunMethod(t *testing.T, method Method, scenario, w int, tension bool, o backendOptions) (out []uint64, skipped, narrow int64) {
	t.Helper()
	st := settings(0.003, 1e-6, w)
	st.Method = method
	if tension {
		st.SurfaceTension, st.ContactHysteresis = 0.072, 0.15
	}
	st.Falling = FallingParticles
	if scenario == 0 {
		st.Sides[SideMinusY] = SideOpen // the pool drains there
	}
	slope := 0.2
	if scenario == 2 {
		slope = 0 // patches that stay where they are (with surface tension)
	}
	scene := func(slope float64) *terrain.Columns {
		if scenario == 3 { // a slab over the low rows with a hole: a passage floods (extended pipes)
			return layeredScene(t, 48, 70, 0.0005, 0.04, 2, tiltedFloor(slope, true, 3), []slab{{0.003, 0.005, func(x, y float64) bool {
				return y > 0.01 || (x-0.012)*(x-0.012)+(y-0.005)*(y-0.005) < 0.002*0.002
			}}})
		}
		return layeredScene(t, 48, 70, 0.0005, 0.04, 1, tiltedFloor(slope, scenario > 0, 3), nil)
	}
	sim := newSimWith(t, scene(slope), st, o)
	poison(sim) // a ring value read that the range did not compute shows
	c := sim.Columns()
	switch scenario {
	case 0, 1, 3: // a pool in the low rows, a sink in it, a pour landing on dry ground
		if _, err := sim.Fill(0.012, 0.001, 0.002, 0.0025); err != nil {
			t.Fatal(err)
		}
		for _, e := range []Emitter{
			{X: 0.02, Y: 0.003, Z: 0.01, Radius: 0.001, Rate: -1e-7},
			{X: 0.012, Y: 0.025, Z: 0.03, Radius: 0.0007, Rate: 2e-7, Falls: true, Start: 0.01, Stop: 0.2},
			{X: 0.004, Y: 0.03, Z: 0.02, Radius: 0.0007, Rate: 1e-7, Start: 0.05, Stop: 0.15}, // onto dry ground
		} {
			if _, err := sim.AddEmitter(e); err != nil {
				t.Fatal(err)
			}
		}
	case 2: // random patches of liquid on rough flat ground
		h := append([]float32(nil), c.Base...)
		rng := rand.New(rand.NewPCG(11, 2))
		for k := 0; k < 6; k++ {
			cx, cy, r := rng.IntN(c.Nx), rng.IntN(c.Ny), 1+rng.IntN(6)
			for y := max(cy-r, 0); y < min(cy+r, c.Ny); y++ {
				for x := max(cx-r, 0); x < min(cx+r, c.Nx); x++ {
					h[y*c.Nx+x] = c.Base[y*c.Nx+x] + 0.001 + 0.002*rng.Float32()
				}
			}
		}
		if err := sim.SetHeights(h); err != nil {
			t.Fatal(err)
		}
	}
	record := func() { // the state now, as bits
		be := sim.be.(*cpuBackend)
		for _, v := range [][]float32{snapshot(sim).Height, be.r, sim.Fluxes(nil), be.capSt.prev} {
			for _, f := range v {
				out = append(out, uint64(math.Float32bits(f)))
			}
		}
		for _, f := range be.capSt.wet {
			out = append(out, uint64(f))
		}
		st := sim.Stats()
		for _, f := range []float64{st.Volume, st.Added, st.Removed, st.Rejected} {
			out = append(out, math.Float64bits(f))
		}
	}
	for _, n := range []int{1, 17, 4} {
		sim.Step(n)
	}
	record()
	// Floors lifted under dry ground and under the liquid, then stepped.
	lift := []float32{0.0005, 0.0003, 0.0004}
	cols := []int32{int32(60*c.Nx + 10), int32(2*c.Nx + 5), int32(35*c.Nx + 40)}
	if err := sim.LiftFloors(cols, lift, sim.LiveHeights(nil)); err != nil {
		t.Fatal(err)
	}
	sim.Step(9)
	record()
	if err := sim.LiftFloors(cols, []float32{0, 0, 0}, sim.LiveHeights(nil)); err != nil {
		t.Fatal(err)
	}
	sim.Step(30)
	record()
	// Heights written: a drop set down on dry ground.
	h := snapshot(sim).Height
	h[50*c.Nx+20] += 0.002
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	sim.Step(41)
	record()
	// Surface tension turned the other way and back (the settings' step parameters), and
	// the pool set moving (the fluxes written).
	st2 := st
	st2.SurfaceTension = 0.072 - st.SurfaceTension
	for _, s := range []Settings{st2, st} {
		if err := sim.Set(s); err != nil {
			t.Fatal(err)
		}
		sim.Step(13)
		record()
	}
	if _, err := sim.FillMoving(0.012, 0.001, 0.002, 0.0026, 0.01, 0.005); err != nil {
		t.Fatal(err)
	}
	sim.Step(11)
	record()
	skipped, narrow = skippedRows(sim)
	// The terrain changed (a new backend: the same options), then stepped.
	if _, err := sim.SetTerrain(scene(0.9 * slope)); err != nil {
		t.Fatal(err)
	}
	poison(sim)
	for _, n := range []int{2, 33} {
		sim.Step(n)
	}
	record()
	s2, n2 := skippedRows(sim)
	return out, skipped + s2, narrow + n2
}

// TestDenseSkipSameBits: leaving the dry and still rows alone gives the bits of the full
// sweep, with and without surface tension, the AVX2 and the Go kernels, 1, 2 and 3
// workers; and it leaves rows alone.
func TestDenseSkipSameBits(t *testing.T) {
	t.Parallel()
	for scenario := range 3 {
		for _, tension := range []bool{false, true} {
			ref, _, _ := skipRun(t, scenario, 1, tension, backendOptions{noSkip: true})
			for _, w := range []int{1, 2, 3} {
				for _, noSIMD := range []bool{false, true} {
					name := fmt.Sprintf("scenario %d, tension %v, %d workers, noSIMD %v", scenario, tension, w, noSIMD)
					got, skipped, narrow := skipRun(t, scenario, w, tension, backendOptions{noSIMD: noSIMD})
					if (skipped == 0 || narrow == 0) && (scenario < 2 || tension) { // without it, patches spread as films
						t.Errorf("%s: %d rows left alone, %d ranges over fewer than all columns", name, skipped, narrow)
					}
					if w == 2 && !noSIMD {
						t.Logf("%s: %d rows left alone, %d ranges over fewer than all columns", name, skipped, narrow)
					}
					sameRun(t, name, got, ref, "sweeping every row")
				}
			}
		}
	}
}

// TestCSRSkipSameBits: the general layout leaving its dead units alone (csrskip.go) gives
// the bits of computing them all, the pipes and the SWE, with and without surface
// tension, the AVX2 and the Go kernels, 1, 2 and 3 workers, on the dense scenes and on
// one under a slab with a hole (two layers); and it leaves units alone.
func TestCSRSkipSameBits(t *testing.T) {
	t.Parallel()
	for _, method := range []Method{MethodPipes, MethodSWE} {
		for _, scenario := range []int{0, 1, 2, 3} {
			for _, tension := range []bool{false, true} {
				csrSkipSameBits(t, method, scenario, tension)
			}
		}
	}
}

// csrSkipSameBits is TestCSRSkipSameBits for one method, scenario and surface tension.
func csrSkipSameBits(t *testing.T, method Method, scenario int, tension bool) {
	ref, _, _ := skipRunMethod(t, method, scenario, 1, tension, backendOptions{general: true, noSkip: true})
	for _, w := range []int{1, 2, 3} {
		for _, noSIMD := range []bool{false, true} {
			name := fmt.Sprintf("%s, scenario %d, tension %v, %d workers, noSIMD %v", method, scenario, tension, w, noSIMD)
			got, left, _ := skipRunMethod(t, method, scenario, w, tension, backendOptions{general: true, noSIMD: noSIMD})
			if left == 0 {
				t.Errorf("%s: no unit left alone", name)
			}
			if w == 2 && !noSIMD {
				t.Logf("%s: %d units left alone", name, left)
			}
			sameRun(t, name, got, ref, "computing every unit")
		}
	}
}

// sameRun fails the test unless got (a skipRun's state) is ref's bits, ref the run
// computing everything (named by what).
func sameRun(t *testing.T, name string, got, ref []uint64, what string) {
	t.Helper()
	if len(got) != len(ref) {
		t.Fatalf("%s: %d values, %s %d", name, len(got), what, len(ref))
	}
	for i := range got {
		if got[i] != ref[i] {
			t.Fatalf("%s: value %d differs from %s (%#x, %#x)", name, i, what, got[i], ref[i])
		}
	}
}

// TestSkipShare: the workers' shares of a step's units (csrSkip.share) are disjoint,
// cover every unit in order, and split the live columns as evenly as whole units allow,
// also where the live units are few, at either end, or one.
func TestSkipShare(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := 1 + rng.IntN(40)
		sk := &csrSkip{}
		lo := int32(0)
		for range n {
			w := int32(1 + rng.IntN(64))
			sk.units = append(sk.units, csrUnit{lo: lo, hi: lo + w})
			lo += w
		}
		nw := 1 + rng.IntN(3)
		sk.dead = make([][]bool, nw)
		live := make([]bool, n)
		switch trial % 3 {
		case 0: // random
			for u := range live {
				live[u] = rng.IntN(3) == 0
			}
		case 1: // one live unit
			live[rng.IntN(n)] = true
		case 2: // the last ones
			for u := n - 1 - rng.IntN(n); u < n; u++ {
				live[u] = true
			}
		}
		total, widest := 0, 0
		for u := range live {
			if live[u] {
				total += int(sk.units[u].hi - sk.units[u].lo)
				widest = max(widest, int(sk.units[u].hi-sk.units[u].lo))
			}
		}
		if total == 0 {
			continue
		}
		next := int32(0)
		for w := range nw {
			sk.dead[w] = make([]bool, n)
			for u := range live {
				sk.dead[w][u] = !live[u]
			}
			a, b := sk.share(w, nw, total)
			if a != next || b < a {
				t.Fatalf("trial %d: worker %d of %d takes [%d, %d), want it from %d", trial, w, nw, a, b, next)
			}
			cols := 0
			for u := a; u < b; u++ {
				if live[u] {
					cols += int(sk.units[u].hi - sk.units[u].lo)
				}
			}
			if cols > total/nw+widest {
				t.Errorf("trial %d: worker %d of %d takes %d live columns of %d (widest unit %d)", trial, w, nw, cols, total, widest)
			}
			next = b
		}
		if next != int32(n) {
			t.Fatalf("trial %d: the shares end at %d of %d units", trial, next, n)
		}
	}
}
