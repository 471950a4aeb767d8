package gpusim

import (
	"math"
	"testing"
)

// TestWettedGroundRefills: a sink drains a patch of a film thinner than the wetting head
// and stops. The patch is wetted ground, and the film flows back over it; the same
// heights written from outside (SetHeights) have no wetted ground, and the patch, a
// hole several cells wide, stays open (docs/method.md, "Wetted ground").
func TestWettedGroundRefills(t *testing.T) {
	t.Parallel()
	const n, dx = 40, 0.0005
	st := wettingSettings(30*math.Pi/180, 2)  // advancing head 1.40 mm
	st.ContactHysteresis = 20 * math.Pi / 180 // receding 10 degrees: 0.47 mm
	mid := n * dx / 2
	centre := (n/2)*n + n/2
	run := func(sim *Sim) float32 {
		sim.Step(int(math.Round(1 / sim.Dt())))
		s := snapshot(sim)
		return s.Height[centre] - s.Columns.Base[centre]
	}
	sim := newSim(t, flatScene(t, n, n, dx), st)
	h := append([]float32(nil), sim.Columns().Base...)
	for i := range h {
		h[i] += 0.001 // a 1 mm film: between the heads, it rests
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	stop := 0.05
	if _, err := sim.AddEmitter(Emitter{X: mid, Y: mid, Radius: 0.0015, Rate: -1e-6, Stop: stop}); err != nil {
		t.Fatal(err)
	}
	sim.Step(int(math.Round(stop/sim.Dt())) + 1)
	drained := snapshot(sim)
	if d := drained.Height[centre] - drained.Columns.Base[centre]; d > DryDepth {
		t.Fatalf("the sink left %.3g m in the patch's middle: want it dry when the sink stops", d)
	}
	refilled := run(sim)

	fresh := newSim(t, flatScene(t, n, n, dx), st)
	if err := fresh.SetHeights(drained.Height); err != nil {
		t.Fatal(err)
	}
	open := run(fresh)
	t.Logf("the patch's middle 1 s after the sink: %.3f mm deep; from the same heights written: %.3f mm", refilled*1e3, open*1e3)
	if refilled <= DryDepth {
		t.Errorf("wetted ground: the patch's middle is still dry 1 s after the sink stopped")
	}
	if open > DryDepth {
		t.Errorf("heights written from outside: the hole filled (%.3g m): want no wetted ground there", open)
	}
}
