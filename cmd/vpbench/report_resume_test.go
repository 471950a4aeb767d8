package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/vpbench/vpbench/engine"
)

// TestReportCountsTheResumedSegment: a run resumed at 3 s that ends at 5 s after 1 s of
// wall time ran 2x real time, not 5x, and its summary says from where; the UI's summary
// says its frames are paced by the wall clock. The liquid gathering at edges is named as
// such, apart from the particles.
func TestReportCountsTheResumedSegment(t *testing.T) {
	var res engine.Result
	res.Loaded, res.From, res.Wall = true, 3, time.Second
	res.State.Time, res.State.Steps, res.State.FPS = 5, 1000, 60
	res.State.Airborne, res.State.Hanging = 3e-8, 2e-8
	res.Total.Add(500 * time.Millisecond)
	r := makeReport(res)
	if r.RealTimeFactor != 2 || r.SteadyFactor != 4 || r.FromS != 3 {
		t.Errorf("factor %v, steady %v, from %v: want 2, 4 (2 s in 0.5 s of frames), 3", r.RealTimeFactor, r.SteadyFactor, r.FromS)
	}
	r.Simulation.Frames, r.SimulationStepMs, r.StepsPerFrame = 10, 0.1, 100
	var b bytes.Buffer
	r.print(&b)
	for _, want := range []string{"simulated 5.000 s (2.000 s since the checkpoint at 3.000 s) in 1.000 s wall: 2.00x real time",
		"60 frames a simulated second", "in the air 0.0100 ml in 0 particles, gathering at edges 0.0200 ml"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, b.String())
		}
	}
	r.WallPaced = true
	b.Reset()
	r.print(&b)
	if !strings.Contains(b.String(), "frames paced by the wall clock") || strings.Contains(b.String(), "frames a simulated second") {
		t.Errorf("the UI's summary says:\n%s", b.String())
	}
}
