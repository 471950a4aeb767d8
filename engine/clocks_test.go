package engine

import (
	"sync"
	"testing"
	"time"

	"github.com/vpbench/vpbench/timing"
)

func TestClocksAddFrames(t *testing.T) {
	var c clocks
	c.addFrame(2*time.Millisecond, 3, time.Millisecond, 0, 4*time.Millisecond)
	c.addFrame(4*time.Millisecond, 5, 0, 0, 6*time.Millisecond) // no surface built
	c.addFrame(time.Millisecond, 0, time.Millisecond, 0, time.Millisecond)
	got := c.timings()
	want := timing.Timings{
		Simulation: timing.PhaseTiming{Frames: 2, AvgMs: 3, MaxMs: 4},
		Surface:    timing.PhaseTiming{Frames: 1, AvgMs: 1, MaxMs: 1},
		Steps:      8,
	}
	if got != want {
		t.Errorf("two frames of 3 and 5 steps, one surface, and a frame of no step: %+v, want %+v", got, want)
	}
	if tot := c.totalClock(); tot.Frames() != 2 || tot.Sum() != 10*time.Millisecond {
		t.Errorf("total clock: %d frames, %v; want 2 frames, 10ms", tot.Frames(), tot.Sum())
	}
}

func TestClocksRenderFromOtherGoroutines(t *testing.T) {
	var c clocks
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				c.addRender(time.Millisecond)
				_ = c.timings() // sim:stats() reads while the preview records
			}
		}()
	}
	for range 100 {
		c.addFrame(time.Millisecond, 1, 0, 0, time.Millisecond)
	}
	wg.Wait()
	if got := c.timings(); got.Render.Frames != 400 || got.Simulation.Frames != 100 || got.Render.AvgMs != 1 {
		t.Errorf("400 renders of 1 ms from four goroutines and 100 frames: %+v", got)
	}
}

func TestClocksReset(t *testing.T) {
	var c clocks
	c.addFrame(time.Millisecond, 2, time.Millisecond, time.Millisecond, time.Millisecond)
	c.addRender(time.Millisecond)
	c.reset()
	if got := c.timings(); got != (timing.Timings{}) || c.totalClock().Frames() != 0 {
		t.Errorf("after reset: %+v, total %d frames; want all zero", got, c.totalClock().Frames())
	}
}

func TestClocksAddFrameAllocatesNothing(t *testing.T) {
	var c clocks
	if n := testing.AllocsPerRun(100, func() { c.addFrame(time.Millisecond, 2, time.Millisecond, time.Millisecond, time.Millisecond) }); n != 0 {
		t.Errorf("addFrame allocates %v times a frame, want 0", n)
	}
}

// TestClocksWaves: a frame's waves time is its own row (Timings.Waves), kept apart from
// the solver's; frames without waves do not count in it.
func TestClocksWaves(t *testing.T) {
	var c clocks
	c.addFrame(2*time.Millisecond, 3, time.Millisecond, 3*time.Millisecond, 7*time.Millisecond)
	c.addFrame(2*time.Millisecond, 3, time.Millisecond, 0, 3*time.Millisecond)
	got := c.timings()
	if want := (timing.PhaseTiming{Frames: 1, AvgMs: 3, MaxMs: 3}); got.Waves != want {
		t.Errorf("waves %+v, want %+v", got.Waves, want)
	}
	if got.Simulation.AvgMs != 2 {
		t.Errorf("simulation %+v: the waves' time went into it", got.Simulation)
	}
}

// TestClocksRegion: the region's time is a row of its own (Timings.Region) over its own
// steps, part of the frame's simulation time, which addFrame records unchanged; frames in
// which no region stepped do not count in it, and reset forgets it.
func TestClocksRegion(t *testing.T) {
	var c clocks
	c.addFrame(4*time.Millisecond, 3, time.Millisecond, 0, 6*time.Millisecond)
	c.addRegion(3*time.Millisecond, 3)
	c.addFrame(2*time.Millisecond, 3, time.Millisecond, 0, 3*time.Millisecond)
	c.addRegion(0, 0) // no region in this frame
	c.addFrame(6*time.Millisecond, 2, time.Millisecond, 0, 7*time.Millisecond)
	c.addRegion(5*time.Millisecond, 2)
	got := c.timings()
	if want := (timing.PhaseTiming{Frames: 2, AvgMs: 4, MaxMs: 5}); got.Region != want || got.RegionSteps != 5 {
		t.Errorf("region %+v over %d steps, want %+v over 5", got.Region, got.RegionSteps, want)
	}
	if got.Simulation.Frames != 3 || got.Simulation.AvgMs != 4 || got.Steps != 8 {
		t.Errorf("simulation %+v over %d steps: the region's row changed it", got.Simulation, got.Steps)
	}
	if n := testing.AllocsPerRun(100, func() { c.addRegion(time.Millisecond, 2) }); n != 0 {
		t.Errorf("addRegion allocates %v times a frame, want 0", n)
	}
	c.reset()
	if got := c.timings(); got != (timing.Timings{}) {
		t.Errorf("after reset: %+v", got)
	}
}
