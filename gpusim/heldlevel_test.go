package gpusim

// Held levels both ways (docs/solver.md, "Held levels"): a source and a sink holding the
// same level over the same columns keep the liquid there at it from above and below, and
// the level can change mid-run (Sim.SetEmitterLevel).

import (
	"math"
	"strings"
	"testing"
)

// TestHeldLevelBothWays: a closed basin 20 x 5 mm (floor at 1 mm) filled to 9 mm, with a
// held level of 7 mm at one end (a source and a sink of 3 ml/s each, both holding it):
// the pair takes the 2 mm above the level out of the whole basin (booked as removed),
// and the basin comes to rest at the level. Raised to 8 mm
// mid-run the pair fills the basin to it (added), lowered to 5 mm it drains it again.
// Each time every column ends within 0.05 mm of the level (in fact 5e-6 mm), the volume
// is the basin's area times the depth to 1e-6 of it (float32 heights), the pair moved
// the difference, and the balance volume = added - removed holds to
// 1e-12 of what was added. A sink holding the level alone takes nothing from liquid at or
// below it; the same with 1 and 3 workers gives the same bits.
func TestHeldLevelBothWays(t *testing.T) {
	t.Parallel()
	run := func(workers int) ([]float32, float64) {
		cols := flatFloor(t, 40, 10)
		st := DefaultSettings()
		// Damping 0.01 (1.4 % of a flux a step): the basin's seiche dies within the
		// stretch. (A held column is pinned at its level: the waves reflect from it and
		// die only by the basin's own damping; at the default 0.5 the basin still rocked
		// 0.1 mm after 4.5 s, the pair adding and taking in turn.)
		st.Workers, st.Damping = workers, 0.01
		sim := newSim(t, cols, st)
		area := float64(cols.Nx*cols.Ny) * cols.Dx * cols.Dx
		if _, err := sim.Fill(0.01, 0.0025, 0.002, 0.009); err != nil {
			t.Fatal(err)
		}
		pair := [2]int{}
		for k, rate := range []float64{3e-6, -3e-6} {
			id, err := sim.AddEmitter(Emitter{X: 0.002, Y: 0.0025, Z: 0.002, Radius: 0.0015, Rate: rate, Holds: true, Level: 0.007})
			if err != nil {
				t.Fatal(err)
			}
			pair[k] = id
		}
		prev := 0.009
		for _, level := range []float64{0.007, 0.008, 0.005} {
			for _, id := range pair {
				if err := sim.SetEmitterLevel(id, level); err != nil {
					t.Fatal(err)
				}
			}
			added0, removed0, _ := sim.Accounting()
			sim.Step(1500) // 4.5 s
			added, removed, rejected := sim.Accounting()
			h := sim.LiveHeights(nil)
			worst := 0.0
			for _, v := range h {
				worst = max(worst, math.Abs(float64(v)-level))
			}
			v := sim.Volume()
			want := area * (level - 0.001)
			if workers == 1 {
				t.Logf("level %g mm: every column within %.3g mm of it; volume %.6g ml (basin to the level %.6g); added %.4g ml, removed %.4g ml in this stretch",
					level*1e3, worst*1e3, v*1e6, want*1e6, (added-added0)*1e6, (removed-removed0)*1e6)
			}
			if worst > 5e-5 {
				t.Errorf("level %g mm: a column stands %.3g mm off it", level*1e3, worst*1e3)
			}
			if math.Abs(v-want) > 1e-6*want { // float32 heights: an ulp at 8 mm is 1e-7 of 7 mm

				t.Errorf("level %g mm: volume %.9g m^3, the basin to the level holds %.9g", level*1e3, v, want)
			}
			if math.Abs(v-(added-removed)) > 1e-12*added || rejected != 0 {
				t.Errorf("level %g mm: volume %g, added - removed %g, rejected %g", level*1e3, v, added-removed, rejected)
			}
			// The pair moved the difference: net, it took 2 mm of the basin, put back 1,
			// then took 3 (each way it also adds or takes a little as the liquid at its
			// columns overshoots and comes back).
			if net := (added - added0) - (removed - removed0); math.Abs(net-area*(level-prev)) > 1e-6*area*0.001 {
				t.Errorf("level %g mm: the pair moved %g m^3 net, the basin's change is %g", level*1e3, net, area*(level-prev))
			}
			prev = level
		}
		// The sink alone holds the level from above only: at 5 mm with the level raised
		// to 6 it takes nothing (the source is stopped).
		if err := sim.StopEmitter(pair[0]); err != nil {
			t.Fatal(err)
		}
		if err := sim.SetEmitterLevel(pair[1], 0.006); err != nil {
			t.Fatal(err)
		}
		_, r0, _ := sim.Accounting()
		sim.Step(100)
		if _, r1, _ := sim.Accounting(); r1 != r0 {
			t.Errorf("a sink holding 6 mm over liquid at 5 mm took %g m^3", r1-r0)
		}
		_, removed, _ := sim.Accounting()
		return sim.LiveHeights(nil), removed
	}
	h1, r1 := run(1)
	h3, r3 := run(3)
	if i := firstDiffBits(h1, h3); i >= 0 || r1 != r3 {
		t.Fatalf("1 and 3 workers differ: column %d, removed %g and %g", i, r1, r3)
	}

	// Errors: a level on an emitter that holds none, a NaN level, an unknown id.
	sim := newSim(t, flatFloor(t, 10, 10), DefaultSettings())
	id, err := sim.AddEmitter(Emitter{X: 0.002, Y: 0.002, Z: 0.002, Rate: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.SetEmitterLevel(id, 0.005); err == nil || !strings.Contains(err.Error(), "holds no level") {
		t.Errorf("SetEmitterLevel on a plain source: %v", err)
	}
	held, _ := sim.AddEmitter(Emitter{X: 0.002, Y: 0.002, Z: 0.002, Rate: -1e-6, Holds: true, Level: 0.004})
	if err := sim.SetEmitterLevel(held, math.NaN()); err == nil || !strings.Contains(err.Error(), "level") {
		t.Errorf("SetEmitterLevel NaN: %v", err)
	}
	if err := sim.SetEmitterLevel(99, 0.005); err == nil {
		t.Error("SetEmitterLevel on id 99: no error")
	}
}
