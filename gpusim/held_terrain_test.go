package gpusim

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// TestHoldTerrainChange: a terrain change with held columns holds the columns of the
// same cells in the new terrain; the holder's liquid is not carried (their heights are
// the new floors, plus what the change displaced into them), what the change displaced
// into them is booked out to the holder, and the books balance. A new terrain where a
// held cell holds two columns, or with a capped column within two cells of a held one,
// is refused and nothing changes.
func TestHoldTerrainChange(t *testing.T) {
	t.Parallel()
	cols := flatFloor(t, 12, 6)
	sim := newSim(t, cols, settings(0, 1e-6, 1))
	if _, err := sim.Fill(0.0005, 0.0005, 0.002, 0.004); err != nil {
		t.Fatal(err)
	}
	block := heldBlock(cols, 4, 2, 8, 4)
	mustDo(t, sim.Hold(block))
	mustDo(t, sim.SetHeld(slices.Repeat([]float64{0.0045}, len(block)), nil))
	sim.Step(20)
	checkHeldBalance(t, sim, 1e-7, "held")
	exBefore := sim.Exchanged()

	// Raise the floor to 3.5 mm over the held x = 4 and 5, and fill x = 3 with solid up
	// to 0.1 mm under the top: its liquid (about 3 mm) finds no room above and goes
	// beside it, into x = 2 and the held x = 4.
	raised := func(layers int, capped bool) *terrain.Columns {
		cells := make([][]terrain.Interval, 12*6)
		for k := range cells {
			x := k % 12
			base := float32(0.001)
			if x == 4 || x == 5 {
				base = 0.0035
			}
			if x == 3 {
				base = 0.0299
			}
			top := float32(0.03)
			if capped && x == 9 { // two cells off the held x = 7
				top = 0.02
			}
			cells[k] = []terrain.Interval{{Min: base, Base: base, Max: top}}
			if layers > 1 && x == 5 && k/12 == 2 { // a held cell with a second, lower column
				cells[k] = []terrain.Interval{{Min: 0.0005, Base: 0.0005, Max: 0.001}, {Min: base, Base: base, Max: top}}
			}
		}
		c, err := terrain.FromIntervals(12, 6, 0.001, 0.03, layers, cells)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	hBefore := slices.Clone(sim.LiveHeights(nil))
	for _, c := range []struct {
		name string
		cols *terrain.Columns
		want string
	}{
		{"two columns", raised(2, false), "would hold 2 columns"},
		{"capped", raised(1, true), "lies under a solid"},
	} {
		if _, err := sim.SetTerrain(c.cols); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
		if !slices.Equal(sim.Held(), block) || !slices.Equal(sim.LiveHeights(nil), hBefore) || sim.Exchanged() != exBefore {
			t.Errorf("%s: refused, yet the held columns, heights or books changed", c.name)
		}
	}

	nw := raised(1, false)
	free := func(s *Sim) float64 { // the free columns' liquid, m^3
		h := s.LiveHeights(nil)
		held := map[int]bool{}
		for _, i := range s.Held() {
			held[i] = true
		}
		v := 0.0
		for i := range h {
			if !held[i] {
				v += (float64(h[i]) - float64(s.Floor(i))) * 1e-6
			}
		}
		return v
	}
	vFree := free(sim)
	rejected, err := sim.SetTerrain(nw)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sim.Held(), heldBlock(nw, 4, 2, 8, 4)) {
		t.Fatalf("held after the change %v, want the same cells' columns %v", sim.Held(), heldBlock(nw, 4, 2, 8, 4))
	}
	h := sim.LiveHeights(nil)
	into := 0.0 // what the change put into the held columns
	for _, i := range sim.Held() {
		d := float64(h[i]) - float64(nw.Base[i])
		if d < 0 {
			t.Errorf("held column %d stands %g m under its new floor", i, -d)
		}
		into += d * 1e-6
	}
	out := exBefore - sim.Exchanged()
	t.Logf("the change put %.4g m^3 into the held columns and booked %.4g m^3 out to the holder; rejected %g; free liquid %.6g -> %.6g m^3", into, out, rejected, vFree, free(sim))
	if math.Abs(out-into) > 1e-12 {
		t.Errorf("booked %.17g m^3 out to the holder, the held columns took %.17g", out, into)
	}
	if math.Abs(free(sim)+into+rejected-vFree) > 1e-6*vFree {
		t.Errorf("the free liquid %.9g m^3 became %.9g free, %.9g held and %.9g rejected", vFree, free(sim), into, rejected)
	}
	checkHeldBalance(t, sim, 1e-7, "after the change")
	sim.Step(20)
	checkHeldBalance(t, sim, 1e-7, "stepped after the change")
}
