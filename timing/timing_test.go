package timing

import (
	"testing"
	"time"
)

func TestPhaseClock(t *testing.T) {
	var c PhaseClock
	if c.Timing() != (PhaseTiming{}) {
		t.Fatalf("empty clock: %+v", c.Timing())
	}
	c.Add(2 * time.Millisecond)
	c.Add(4 * time.Millisecond)
	var o PhaseClock
	o.Add(9 * time.Millisecond)
	c.Merge(o)
	if got := c.Timing(); got != (PhaseTiming{Frames: 3, AvgMs: 5, MaxMs: 9}) {
		t.Errorf("timing %+v, want 3 frames, avg 5 ms, max 9 ms", got)
	}
}

func TestStepFigures(t *testing.T) {
	tm := Timings{Simulation: PhaseTiming{Frames: 4, AvgMs: 3}, Steps: 12}
	if tm.StepMs() != 1 || tm.StepsPerFrame() != 3 {
		t.Errorf("step %g ms, %g steps a frame: want 1 ms and 3", tm.StepMs(), tm.StepsPerFrame())
	}
	if (Timings{}).StepMs() != 0 || (Timings{}).StepsPerFrame() != 0 || (Timings{}).RegionStepMs() != 0 {
		t.Error("no frames: want zeros")
	}
	// The region's per step counts its own steps: a region placed after the first frames.
	tm.Region, tm.RegionSteps = PhaseTiming{Frames: 2, AvgMs: 1.5}, 6
	if tm.RegionStepMs() != 0.5 || tm.StepMs() != 1 {
		t.Errorf("region %g ms a step (want 0.5), simulation %g (want 1, unchanged)", tm.RegionStepMs(), tm.StepMs())
	}
}
