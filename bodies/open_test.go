package bodies

// Bodies leave through open sides (World.SetOpen).

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
)

// TestLeavesThroughOpenSide: TestCarriedByCurrent's channel (120 x 16 mm, water fed at
// -x and running off the open +x side), its box carried down it. With the world's +x
// side open the box crosses it and leaves: removed, Left and World.Left count it,
// TakeLeft hands it over once, it no longer displaces anything (the lifts go to 0), and
// a checkpoint's State keeps the count. With the world's sides walled (the bodies'
// former behaviour) the box parks against the edge, its centre within the domain.
func TestLeavesThroughOpenSide(t *testing.T) {
	for _, open := range []bool{true, false} {
		const dx, nx, ny = 0.001, 120, 16
		cols := flat(t, nx, ny, dx, 0.03)
		st := gpusim.DefaultSettings()
		st.Workers, st.Backend = 2, "cpu"
		st.Sides[gpusim.SidePlusX] = gpusim.SideOpen
		sim, err := gpusim.New(cols, st)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sim.Close)
		if _, err := sim.Fill(dx/2, dx/2, floorZ+dx/4, floorZ+0.004); err != nil {
			t.Fatal(err)
		}
		if _, err := sim.AddEmitter(gpusim.Emitter{X: 2 * dx, Y: ny * dx / 2, Z: floorZ + 0.001, Radius: ny * dx, Rate: 2e-6, Stop: math.Inf(1)}); err != nil {
			t.Fatal(err)
		}
		w, err := NewWorld(cols, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		w.SetOpen([4]bool{false, open, false, false})
		sim.Step(int(3 / sim.Dt()))
		h := sim.Heights(nil)
		lo, _ := cols.Cell(80, ny/2)
		sh := box(t, vec{X: 0.5, Y: 0.5, Z: 0.5}, vec{X: 0.006, Y: 0.006, Z: 0.002})
		b, err := w.Add(sh, 500, [3]float64{0.08, ny * dx / 2, float64(h[lo]) + 0.0005}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var taken []*Body
		for !b.Removed() && sim.Time() < 8 {
			run(t, sim, w, sim.Time()+0.01)
			taken = append(taken, w.TakeLeft()...)
		}
		t.Logf("open %v: t = %.2f s, the box at x = %.2f mm, removed %v, left %v", open, sim.Time(), b.x.X*1e3, b.Removed(), b.Left())
		if !open {
			if b.Removed() || b.Left() || w.Left() != 0 || len(taken) != 0 || b.x.X > nx*dx {
				t.Errorf("walled: the box at x = %.2f mm, removed %v, left %v (%d)", b.x.X*1e3, b.Removed(), b.Left(), w.Left())
			}
			continue
		}
		if !b.Removed() || !b.Left() || w.Left() != 1 || w.Count() != 0 || len(taken) != 1 || taken[0] != b || b.x.X <= nx*dx {
			t.Fatalf("open: removed %v, left %v, World.Left %d, Count %d, taken %d, x = %.2f mm", b.Removed(), b.Left(), w.Left(), w.Count(), len(taken), b.x.X*1e3)
		}
		if len(w.TakeLeft()) != 0 {
			t.Error("TakeLeft handed the box over twice")
		}
		st2 := w.State()
		if !st2.Bodies[0].Left || !st2.Bodies[0].Removed {
			t.Errorf("the state of a body that left: %+v", st2.Bodies[0])
		}
		w2, _ := NewWorld(cols, DefaultSettings())
		if _, err := w2.Add(sh, 500, [3]float64{0.08, ny * dx / 2, 0.01}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := w2.Restore(st2); err != nil || w2.Left() != 1 || w2.Count() != 0 {
			t.Errorf("restored: %v, Left %d, Count %d", err, w2.Left(), w2.Count())
		}
		run(t, sim, w, sim.Time()+2) // the lifts relax
		if w.Lifting() {
			t.Error("2 s after the box left, the world still lifts floors")
		}
	}
}
