package gpusim

// Physics tests of sources and sinks (Emitter): booking, rejection, timing, rates, bad emitters.

import (
	"math"
	"strings"
	"testing"
)

// TestSources covers sources and sinks (Emitter): volume booked exactly, rejection when
// full, start/stop times, rate changes, stopping, and bad emitters. dt = 1/256 s so that
// the simulated times are exact binary fractions and the active steps can be counted.
func TestSources(t *testing.T) {
	const dt, dx = 1.0 / 256, 0.001
	t.Run("box fills and rejects", func(t *testing.T) {
		// 4 x 4 columns from 1 to 5 mm: capacity 16 * 4 mm * 1 mm^2 = 6.4e-8 m^3; the source
		// covers every column at 1e-8 m^3/s, so they fill together in 6.4 s; run 10 s.
		c := boxScene(t, 6, dx, 0.005)
		if c.NumColumns() != 16 {
			t.Fatalf("setup: %d columns, want 16", c.NumColumns())
		}
		sim := newSim(t, c, settings(dt, 4e-6, 1))
		const rate = 1e-8
		if _, err := sim.AddEmitter(Emitter{X: 0.003, Y: 0.003, Z: 0.002, Radius: 0.0025, Rate: rate}); err != nil {
			t.Fatal(err)
		}
		capacity := 16 * 0.004 * dx * dx
		sim.Step(2560)
		s := snapshot(sim)
		for i, h := range s.Height {
			if h != c.Max[i] {
				t.Errorf("column %d: h = %g, want max = %g (full)", i, h, c.Max[i])
			}
		}
		if d := math.Abs(s.Volume - capacity); d > 1e-6*capacity {
			t.Errorf("volume %g m^3, capacity %g", s.Volume, capacity)
		}
		want := rate * 2560 * dt
		if s.Rejected <= 0 || math.Abs(s.Rejected-(want-capacity)) > 1e-6*want {
			t.Errorf("rejected %g m^3, want rate*time - capacity = %g", s.Rejected, want-capacity)
		}
		if d := math.Abs(s.Added + s.Rejected - want); d > 1e-12*want {
			t.Errorf("added %g + rejected %g = %g, rate * time = %g", s.Added, s.Rejected, s.Added+s.Rejected, want)
		}
		if d := math.Abs(s.Volume - s.Added); d > volTol*s.Added {
			t.Errorf("volume %g m^3, added %g", s.Volume, s.Added)
		}
	})
	t.Run("start and stop", func(t *testing.T) {
		c := layeredScene(t, 10, 10, dx, 0.02, 1, func(x, y float64) float64 { return 0.001 }, nil)
		sim := newSim(t, c, settings(dt, 4e-6, 1))
		const rate = 1e-8
		if _, err := sim.AddEmitter(Emitter{X: 0.005, Y: 0.005, Z: 0.002, Rate: rate, Start: 0.25, Stop: 0.5}); err != nil {
			t.Fatal(err)
		}
		added := func() float64 { a, _, _ := sim.Accounting(); return a }
		sim.Step(64) // t = 0 .. 0.25: before start
		if a, v := added(), sim.Volume(); a != 0 || v != 0 {
			t.Fatalf("before start: added %g, volume %g, want 0", a, v)
		}
		sim.Step(1) // the step from t = 0.25: active (start inclusive)
		// (1e-4: the source's float32 rounding is checked in its own subtest below.)
		if a := added(); math.Abs(a-rate*dt) > 1e-4*rate*dt {
			t.Fatalf("first active step added %g, want rate*dt = %g", a, rate*dt)
		}
		sim.Step(63) // to t = 0.5: 64 active steps in all
		at := added()
		_, _, rej := sim.Accounting()
		if want := rate * 0.25; math.Abs(at+rej-want) > 1e-12*want || math.Abs(at-want) > 1e-4*want {
			t.Fatalf("at stop: added %g (+ rejected %g), want rate * 0.25 s = %g", at, rej, want)
		}
		sim.Step(100) // after stop (exclusive)
		if a := added(); a != at {
			t.Fatalf("after stop: added went from %g to %g", at, a)
		}
		if v := sim.Volume(); math.Abs(v-at) > volTol*at {
			t.Fatalf("volume %g, added %g", v, at)
		}
	})
	t.Run("nothing rejected when nothing is full", func(t *testing.T) {
		// Rejected is what sources could not place because their columns were full
		// (Snapshot.Rejected): with 15 mm of room and 0.1 mm of liquid it must be zero, and
		// the source must deliver rate*time, to the float64 rounding of the accounting.
		c := layeredScene(t, 10, 10, dx, 0.02, 1, func(x, y float64) float64 { return 0.001 }, nil)
		sim := newSim(t, c, settings(dt, 4e-6, 1))
		const rate = 1e-8
		if _, err := sim.AddEmitter(Emitter{X: 0.005, Y: 0.005, Z: 0.002, Radius: 0.002, Rate: rate}); err != nil {
			t.Fatal(err)
		}
		sim.Step(2560) // 10 s: 1e-7 m^3, 1 mm over the 100 cells
		added, _, rej := sim.Accounting()
		want := rate * 10
		if math.Abs(rej) > 1e-9*want || math.Abs(added-want) > 1e-9*want {
			t.Errorf("added %.10g m^3 and rejected %.3g, want rate*time = %.10g and 0: the source lost %.2g of its volume "+
				"to the float32 rounding of the heights it sets and booked it as rejected", added, rej, want, rej/want)
		}
	})
	t.Run("sink takes at most what is there", func(t *testing.T) {
		c := boxScene(t, 6, dx, 0.005)
		sim := newSim(t, c, settings(dt, 4e-6, 1))
		v0, err := sim.Fill(0.003, 0.003, 0.002, 0.003)
		if err != nil {
			t.Fatal(err)
		}
		if want := 16 * 0.002 * dx * dx; math.Abs(v0-want) > 1e-6*want {
			t.Fatalf("Fill added %g m^3, want %g", v0, want)
		}
		// One cell, 1e-8 m^3/s: 3.9e-11 per step, far less than the 3.2e-8 there: it takes
		// its rate.
		if _, err := sim.AddEmitter(Emitter{X: 0.0015, Y: 0.0015, Z: 0.002, Rate: -1e-8}); err != nil {
			t.Fatal(err)
		}
		sim.Step(256)
		_, removed, _ := sim.Accounting()
		if want := 1e-8 * 1.0; math.Abs(removed-want) > 1e-4*want {
			t.Errorf("sink removed %g m^3 in 1 s, want its rate %g", removed, want)
		}
		// A sink over every column asking for 1000 times what is there: it takes all of it
		// in one step, never more, and leaves every column at its base.
		if _, err := sim.AddEmitter(Emitter{X: 0.003, Y: 0.003, Z: 0.002, Radius: 0.0025, Rate: -1e3 * v0 / dt}); err != nil {
			t.Fatal(err)
		}
		var halfUlps float64
		for i := range c.Max {
			halfUlps += ulp32(c.Max[i]) / 2 * dx * dx
		}
		for step := 1; step <= 10; step++ {
			sim.Step(1)
			checkBounds(t, sim, step)
			// "What is there" is the solver's own volume: the sink may not take more, to
			// float rounding (volTol), plus half a float32 ulp of h per column (the
			// roundings the solver carries).
			added, removed, _ := sim.Accounting()
			if removed > added*(1+volTol)+halfUlps {
				t.Fatalf("step %d: removed %.12g m^3, more than the %.12g there was (by %.2g of it)", step, removed, added, removed/added-1)
			}
			s := snapshot(sim)
			for i, h := range s.Height {
				if h != c.Base[i] {
					t.Fatalf("step %d: column %d has depth %g after the sink", step, i, s.Depth(i))
				}
			}
			if math.Abs(s.Volume) > volTol*added+halfUlps || math.Abs(removed-added) > volTol*added+halfUlps {
				t.Fatalf("step %d: volume %g m^3 left, removed %g of %g", step, s.Volume, removed, added)
			}
		}
	})
	t.Run("set rate and stop", func(t *testing.T) {
		c := layeredScene(t, 10, 10, dx, 0.02, 1, func(x, y float64) float64 { return 0.001 }, nil)
		sim := newSim(t, c, settings(dt, 4e-6, 1))
		id, err := sim.AddEmitter(Emitter{X: 0.005, Y: 0.005, Z: 0.002, Rate: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		sim.Step(64)
		if err := sim.SetEmitterRate(id, 3e-8); err != nil {
			t.Fatal(err)
		}
		sim.Step(64)
		added, _, rej := sim.Accounting()
		if want := (1e-8 + 3e-8) * 64 * dt; math.Abs(added+rej-want) > 1e-12*want {
			t.Errorf("added %g, want %g (64 steps at 1e-8 then 64 at 3e-8)", added+rej, want)
		}
		if err := sim.StopEmitter(id); err != nil {
			t.Fatal(err)
		}
		sim.Step(64)
		if a, _, _ := sim.Accounting(); a != added {
			t.Errorf("after StopEmitter: added went from %g to %g", added, a)
		}
		for _, tc := range []struct {
			err  error
			want string
		}{
			{sim.SetEmitterRate(7, 1e-8), "7"},
			{sim.SetEmitterRate(-1, 1e-8), "-1"},
			{sim.SetEmitterRate(id, math.NaN()), "rate"},
			{sim.SetEmitterRate(id, math.Inf(1)), "rate"},
			{sim.StopEmitter(7), "7"},
		} {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %q", tc.err, tc.want)
			}
		}
	})
	t.Run("bad emitters", func(t *testing.T) {
		c := boxScene(t, 6, dx, 0.005)
		sim := newSim(t, c, settings(dt, 4e-6, 1))
		ok := Emitter{X: 0.003, Y: 0.003, Z: 0.002, Radius: 0.001, Rate: 1e-8, Start: 1, Stop: 2}
		for _, tc := range []struct {
			name string
			edit func(e *Emitter)
			want string
		}{
			{"outside x", func(e *Emitter) { e.X = 0.007 }, "outside"},
			{"outside y", func(e *Emitter) { e.Y = -0.001 }, "outside"},
			{"NaN x", func(e *Emitter) { e.X = math.NaN() }, "at[1]"},
			{"Inf z", func(e *Emitter) { e.Z = math.Inf(1) }, "at[3]"},
			{"NaN rate", func(e *Emitter) { e.Rate = math.NaN() }, "rate"},
			{"Inf rate", func(e *Emitter) { e.Rate = math.Inf(-1) }, "rate"},
			{"NaN start", func(e *Emitter) { e.Start = math.NaN() }, "start"},
			{"NaN stop", func(e *Emitter) { e.Stop = math.NaN() }, "stop"},
			{"stop before start", func(e *Emitter) { e.Stop = 0.5 }, "stop"},
			{"negative radius", func(e *Emitter) { e.Radius = -0.001 }, "radius"},
			{"NaN radius", func(e *Emitter) { e.Radius = math.NaN() }, "radius"},
			{"solid cell", func(e *Emitter) { e.X, e.Y, e.Radius = 0.0005, 0.0005, 0 }, "solid"},
		} {
			e := ok
			tc.edit(&e)
			if _, err := sim.AddEmitter(e); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: AddEmitter(%+v) = %v, want an error naming %q", tc.name, e, err, tc.want)
			}
		}
		if _, err := sim.AddEmitter(ok); err != nil {
			t.Errorf("good emitter: %v", err)
		}
	})
}
