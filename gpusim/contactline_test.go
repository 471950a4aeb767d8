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

// TestCapRecedeHeadCornerFirst: an edge recedes only below (1 - capCornerShare) h_r, and
// a corner of the line (two faces or more onto dry ground) then reads capCornerShare h_r
// higher than a straight stretch, so it drains into it, but never over h_r; with no
// margin (the SWE, the contact angle at the line) the old head h_r - d, bit for bit.
func TestCapRecedeHeadCornerFirst(t *testing.T) {
	hr := float32(0.0027)
	corner := float32(capCornerShare) * hr
	for _, c := range []struct {
		d          float32
		faces      int
		wantRecede bool
	}{
		{0.95 * hr, 1, false}, {0.95 * hr, 2, false}, {0.85 * hr, 1, true}, {0.85 * hr, 3, true},
		{hr, 2, false}, {0.5 * hr, 1, true}, {hr - corner, 1, false}, {hr - corner, 4, false},
	} {
		r, ok := capRecedeHead(c.d, c.faces, hr, corner)
		if ok != c.wantRecede || (!ok && r != 0) {
			t.Errorf("d %.4g mm, %d faces: recedes %v (head %g), want %v", c.d*1e3, c.faces, ok, r, c.wantRecede)
		}
	}
	for _, d := range []float32{0.1 * hr, 0.5 * hr, 0.85 * hr} {
		straight, _ := capRecedeHead(d, 1, hr, corner)
		corn, _ := capRecedeHead(d, 2, hr, corner)
		if got := (d + corn) - (d + straight); math.Abs(float64(got-corner)) > 1e-9 {
			t.Errorf("d %.4g mm: the corner's head over the stretch's %g, want the margin %g", d*1e3, got, corner)
		}
		if d+corn > hr*1.000001 {
			t.Errorf("d %.4g mm: a corner reads %g over its floor, above h_r %g: it would climb onto dry ground where h_r = h_w", d*1e3, d+corn, hr)
		}
		old := hr - d
		if r, _ := capRecedeHead(d, 2, hr, 0); math.Float32bits(r) != math.Float32bits(old) {
			t.Errorf("d %.4g mm, no margin: head %g, want h_r - d = %g bit for bit", d*1e3, r, old)
		}
	}
}
