package gpusim

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// liftPatch lifts the floors of the cells [x0, x0+w) x [y0, y0+w) by lift (one column a
// cell), as a body would.
func liftPatch(t *testing.T, sim *Sim, x0, y0, w int, lift float32) {
	t.Helper()
	c := sim.Columns()
	var cols []int32
	var lifts []float32
	for y := y0; y < y0+w; y++ {
		for x := x0; x < x0+w; x++ {
			lo, _ := c.Cell(x, y)
			cols = append(cols, int32(lo))
			lifts = append(lifts, lift)
		}
	}
	if err := sim.LiftFloors(cols, lifts, sim.LiveHeights(nil)); err != nil {
		t.Fatal(err)
	}
	for k, l := range lifts {
		if l != lift {
			t.Fatalf("column %d: lift %g applied, %g asked (there is room)", cols[k], l, lift)
		}
	}
}

// TestLiftFloorsDisplace: a 6 x 6 patch of a 30 x 30 pool 2 mm deep lifted by 1 mm (a
// body displacing 36 mm^3) keeps the liquid volume exact, raises the level around it by
// the displaced volume over the pool's area once settled, and lowering it back brings the
// level back; the bits do not depend on the workers, the layout or the backend.
func TestLiftFloorsDisplace(t *testing.T) {
	const dx, depth, lift = 0.001, 0.002, 0.001
	type run struct {
		name    string
		workers int
		o       backendOptions
		backend string
	}
	var first []float32
	for _, r := range []run{{"dense, 1 worker", 1, backendOptions{}, "cpu"}, {"dense, 3 workers", 3, backendOptions{}, "cpu"},
		{"general", 2, backendOptions{general: true}, "cpu"}, {"go kernels", 2, backendOptions{noSIMD: true, general: true}, "cpu"},
		{"host kernels", 1, backendOptions{}, "host-kernels"}} {
		t.Run(r.name, func(t *testing.T) {
			c := ledgeScene(t, 30, 30, dx, 0, 0, 0.001, 0.05)
			st := fallSettings(0, r.workers)
			st.Backend = r.backend
			sim := newSimWith(t, c, st, r.o)
			if _, err := sim.Fill(dx/2, dx/2, 0.0015, 0.001+depth); err != nil {
				t.Fatal(err)
			}
			v0 := sim.Volume()
			liftPatch(t, sim, 12, 12, 6, lift)
			if d, want := sim.Displaced(), 36*lift*dx*dx; math.Abs(d-want) > 1e-6*want {
				t.Errorf("displaced %g m^3, want %g", d, want)
			}
			if v := sim.Volume(); math.Abs(v-v0) > 1e-12*v0 {
				t.Errorf("volume %g after the lift, %g before", v, v0)
			}
			sim.Step(int(4 / sim.Dt())) // the slosh the lift starts settles in about 3.5 s
			var snap Snapshot
			sim.Snapshot(&snap)
			if math.Abs(snap.Volume-v0) > 1e-9*v0 {
				t.Errorf("volume %g after 4 s, %g before", snap.Volume, v0)
			}
			rise := float64(snap.Height[0]) - (0.001 + depth)
			if want := 36 * lift / 900; math.Abs(rise-want) > 0.05*want {
				t.Errorf("the level in a corner rose %.4g mm, want %.4g (the displaced volume over the pool)", rise*1e3, want*1e3)
			}
			lo, _ := c.Cell(14, 14)
			if f := sim.Floor(lo); f != c.Base[lo]+float32(lift) {
				t.Errorf("floor under the patch %g, want %g", f, c.Base[lo]+float32(lift))
			}
			if r.backend == "cpu" {
				// A checkpoint holds the lifted floors: a fresh Sim that reads it steps on
				// to the same bits.
				data := checkpointOf(t, sim)
				b := newSimWith(t, c, st, r.o)
				if err := b.ReadCheckpoint(bytes.NewReader(data)); err != nil {
					t.Fatal(err)
				}
				if b.Displaced() != sim.Displaced() || b.Floor(lo) != sim.Floor(lo) {
					t.Errorf("resumed: displaced %g, floor %g; the original %g, %g", b.Displaced(), b.Floor(lo), sim.Displaced(), sim.Floor(lo))
				}
				ckStepBoth(t, "lifted floors", sim, b, 50)
			} else {
				sim.Step(50) // as many as the others' checkpoint test
			}
			liftPatch(t, sim, 12, 12, 6, 0)
			if sim.Displaced() != 0 {
				t.Errorf("displaced %g after lowering every floor", sim.Displaced())
			}
			sim.Step(int(4 / sim.Dt()))
			h := sim.Heights(nil)
			if back := float64(h[0]) - (0.001 + depth); math.Abs(back) > 0.05*36*lift/900 {
				t.Errorf("the level in a corner is %.4g mm off after lowering, want about 0", back*1e3)
			}
			if v := sim.Volume(); math.Abs(v-v0) > 1e-9*v0 {
				t.Errorf("volume %g at the end, %g at the start", v, v0)
			}
			if first == nil {
				first = h
			} else if i := firstDiffBits(first, h); i >= 0 {
				t.Errorf("column %d: %g, the first run's %g", i, h[i], first[i])
			}
		})
	}
}

// TestLiftFloorsLimits: a lift past Max is cut to the room; bad arguments are errors that
// change nothing.
func TestLiftFloorsLimits(t *testing.T) {
	const dx = 0.001
	c := ledgeScene(t, 4, 4, dx, 0, 0, 0.001, 0.005)
	sim := newSim(t, c, fallSettings(0, 1))
	if _, err := sim.Fill(dx/2, dx/2, 0.0015, 0.003); err != nil {
		t.Fatal(err)
	}
	v0 := sim.Volume()
	h := sim.LiveHeights(nil)
	lifts := []float32{0.01}
	if err := sim.LiftFloors([]int32{5}, lifts, h); err != nil {
		t.Fatal(err)
	}
	if lifts[0] > 0.002+1e-9 || lifts[0] < 0.002-1e-6 {
		t.Errorf("lift %g applied, want the room, 2 mm", lifts[0])
	}
	if got := sim.LiveHeights(nil)[5]; got > c.Max[5] {
		t.Errorf("h = %g above max %g", got, c.Max[5])
	}
	if v := sim.Volume(); math.Abs(v-v0) > 1e-12 {
		t.Errorf("volume %g, %g before", v, v0)
	}
	for _, bad := range []struct {
		cols  []int32
		lifts []float32
		want  string
	}{
		{[]int32{1, 2}, []float32{0}, "2 columns but 1 lifts"},
		{[]int32{99}, []float32{0}, "outside"},
		{[]int32{1}, []float32{-1}, "must be a finite number >= 0"},
		{[]int32{1}, []float32{float32(math.NaN())}, "must be a finite number >= 0"},
	} {
		if err := sim.LiftFloors(bad.cols, bad.lifts, h); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("LiftFloors(%v, %v): %v, want %q", bad.cols, bad.lifts, err, bad.want)
		}
	}
}
