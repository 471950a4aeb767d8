package gpusim

// Physics tests of multi-layer filling: under an overhang first; a full passage blocks the flow.

import (
	"math"
	"testing"
)

// TestOverhangFilling: a source in the opening of a slab over a floor (openingScene) fills
// the lower layer under the overhang first; only once every lower column is full (h within
// 1 um of max = 5 mm: the "full" test of docs/method.md, "Extended pipes", with eps = 1 um, 0.025 % of the gap) does
// liquid rise through the opening onto the slab (upper columns wet). Columns never exceed
// max and the volume is what the source added. Only the opening's direct neighbours on the
// slab are exempt from the order: they may wet as soon as the opening column passes 7 mm.
//
// The rate (2e-8 m^3/s: the lower layer, 0.56 ml, takes 28 s) is slow enough that the
// viscous head loss across the lower layer stays small; measured: all lower columns full
// at step 6742, the first upper column wet at 6817, every upper column wet by 9000.
func TestOverhangFilling(t *testing.T) {
	const dx, n, eps, rate = 0.001, 12, 1e-6, 2e-8
	c := openingScene(t, n, dx)
	sim := newSim(t, c, settings(0, 4e-6, 1))
	oy := float64(n / 2) // the opening is cells x = 2..3, y = oy-1..oy
	if _, err := sim.AddEmitter(Emitter{X: 3 * dx, Y: oy * dx, Z: 0.002, Radius: 0.8 * dx, Rate: rate}); err != nil {
		t.Fatal(err)
	}
	type pair struct{ lower, upper int }
	var cells []pair
	var near []bool // upper column is next to the opening (8-neighbourhood)
	for y := range n {
		for x := range n {
			lo, hi := c.Cell(x, y)
			if hi-lo == 2 {
				cells = append(cells, pair{lo, lo + 1})
				near = append(near, x >= 1 && x <= 4 && y >= n/2-2 && y <= n/2+1)
			}
		}
	}
	if len(cells) != n*n-4 {
		t.Fatalf("setup: %d cells under the slab, want %d", len(cells), n*n-4)
	}
	firstWet := make([]int, len(cells))
	tFull := -1
	worstVol := 0.0
	var s Snapshot
	const steps = 9000
	for step := 1; step <= steps; step++ {
		sim.Step(1)
		sim.Snapshot(&s)
		for i, h := range s.Height {
			if !(h >= c.Base[i] && h <= c.Max[i]) {
				t.Fatalf("step %d: column %d has h = %g outside [%g, %g]", step, i, h, c.Base[i], c.Max[i])
			}
		}
		d := math.Abs(s.Volume-s.Added) / s.Added
		worstVol = max(worstVol, d)
		if d > volTol {
			t.Fatalf("step %d: volume %g m^3, added %g: off by %.2g", step, s.Volume, s.Added, d)
		}
		full := 0
		for k, p := range cells {
			if float64(s.Height[p.lower]) >= float64(c.Max[p.lower])-eps {
				full++
			}
			if firstWet[k] == 0 && s.Height[p.upper] > c.Base[p.upper] {
				firstWet[k] = step
				if !near[k] && (tFull < 0 || step < tFull) {
					t.Fatalf("step %d: upper column %d (away from the opening) is wet while only %d of %d lower columns are full",
						step, p.upper, full, len(cells))
				}
			}
		}
		if tFull < 0 && full == len(cells) {
			tFull = step
		}
	}
	firstUpper := steps + 1
	for k := range cells {
		if firstWet[k] == 0 {
			t.Errorf("upper column %d still dry after %d steps: liquid did not rise through the opening", cells[k].upper, steps)
		} else {
			firstUpper = min(firstUpper, firstWet[k])
		}
	}
	if tFull < 0 {
		t.Fatalf("the lower layer never filled")
	}
	if firstUpper <= tFull {
		t.Logf("note: an upper column next to the opening got wet at step %d, before the lower layer was full", firstUpper)
	}
	t.Logf("lower layer full (within %g m) at step %d, first upper column wet at step %d; rejected %g m^3; worst |volume - added|/added %.2g",
		eps, tFull, firstUpper, s.Rejected, worstVol)
}

// TestBlockedPassage: with extended pipes off a full passage blocks the flow (docs/method.md, "Extended pipes"): nothing can enter a full column. A
// source under the slab, away from the opening, fills the lower layer; once its own
// column is full it rejects what it cannot place, and no liquid reaches the slab's top,
// whatever the head in the passage.
func TestBlockedPassage(t *testing.T) {
	const dx, n, rate = 0.001, 12, 5e-8
	c := openingScene(t, n, dx)
	st := settings(0, 4e-6, 1)
	st.ExtendedPipes = ExtendedOff
	sim := newSim(t, c, st)
	if _, err := sim.AddEmitter(Emitter{X: 9.5 * dx, Y: 5.5 * dx, Z: 0.002, Rate: rate}); err != nil {
		t.Fatal(err)
	}
	const steps = 6000 // 25.7 s: the lower layer (0.56 ml) takes 11 s at 5e-8 m^3/s
	sim.Step(steps)
	s := snapshot(sim)
	for y := range n {
		for x := range n {
			lo, hi := c.Cell(x, y)
			if hi-lo == 2 && s.Height[lo+1] != c.Base[lo+1] {
				t.Errorf("upper column of cell (%d,%d) is wet (h - b = %g m) through a blocked passage", x, y, s.Depth(lo+1))
			}
		}
	}
	want := rate * float64(steps) * sim.Dt()
	if s.Rejected < 0.3*want {
		t.Errorf("rejected %g m^3 of %g: the source under a full slab should reject most of its later inflow", s.Rejected, want)
	}
	if d := math.Abs(s.Added + s.Rejected - want); d > 1e-9*want {
		t.Errorf("added %g + rejected %g = %g, rate * time = %g", s.Added, s.Rejected, s.Added+s.Rejected, want)
	}
	if d := math.Abs(s.Volume - s.Added); d > volTol*s.Added {
		t.Errorf("volume %g m^3, added %g", s.Volume, s.Added)
	}
}
