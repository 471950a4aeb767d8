package gpusim

import (
	"fmt"
	"math"
	"testing"
)

// TestScheduleExact: a source or sink books exactly rate x the length of its schedule
// [Start, Stop), to 1e-12 relative, whatever the step and wherever Start and Stop fall
// within a step (Emitter.overlap): 5 ml/s from 0 to 1 s gives 5 ml (a whole step more
// before, 5.0128 ml), 2 ml/s for 1.5 s 3 ml; a rate changed mid-run books the old rate
// up to the change and the new one after; both layouts, any worker count, and the
// host-compiled CUDA kernels agree.
func TestScheduleExact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rate, start, stop float64
	}{
		{5e-6, 0, 1},
		{2e-6, 0.25, 1.75},
		{1e-6, 0.0013, 0.4567}, // inside steps at both ends
		{-1e-6, 0.1, 0.35},     // a sink, on a full pool
	} {
		for _, o := range []backendOptions{{}, {general: true}} {
			for _, w := range []int{1, 3} {
				name := fmt.Sprintf("rate %g [%g, %g) %+v %d workers", tc.rate, tc.start, tc.stop, o, w)
				st := settings(0.003, 1e-6, w)
				sim := newSimWith(t, flatScene(t, 40, 40, 0.0005), st, o)
				if tc.rate < 0 {
					if _, err := sim.Fill(0.01, 0.01, 0.0011, 0.01); err != nil {
						t.Fatal(err)
					}
				}
				a0, r0, _ := sim.Accounting()
				if _, err := sim.AddEmitter(Emitter{X: 0.01, Y: 0.01, Z: 0.02, Radius: 0.003, Rate: tc.rate, Start: tc.start, Stop: tc.stop}); err != nil {
					t.Fatal(err)
				}
				for sim.Time() < tc.stop+0.01 {
					sim.Step(7)
				}
				a, r, _ := sim.Accounting()
				got, want := (a-a0)-(r-r0), tc.rate*(tc.stop-tc.start)
				if math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Errorf("%s: booked %.15g m^3, want %.15g", name, got, want)
				}
			}
		}
	}
}

// TestScheduleRateChange: a rate changed between steps books the old rate up to the step
// boundary of the change and the new one after.
func TestScheduleRateChange(t *testing.T) {
	t.Parallel()
	sim := newSim(t, flatScene(t, 40, 40, 0.0005), settings(0.003, 1e-6, 2))
	id, err := sim.AddEmitter(Emitter{X: 0.01, Y: 0.01, Z: 0.02, Radius: 0.003, Rate: 1e-6, Stop: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	sim.Step(40)
	tc := sim.Time()
	if err := sim.SetEmitterRate(id, 3e-6); err != nil {
		t.Fatal(err)
	}
	for sim.Time() < 0.6 {
		sim.Step(10)
	}
	a, _, _ := sim.Accounting()
	want := 1e-6*tc + 3e-6*(0.5-tc)
	if math.Abs(a-want) > 1e-12*want {
		t.Errorf("booked %.15g m^3, want %.15g", a, want)
	}
}
