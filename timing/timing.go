// Package timing holds the types of the paper's Table 1: the wall time of each phase of
// a frame (simulation, surface, render), averaged and maximised over frames. The run loop
// (package engine) owns the clocks; the script package reports their readings to Lua
// (sim:stats()), and the terminal UI and the headless report print them.
//
// Units: durations are recorded as time.Duration and reported in milliseconds.
package timing

import "time"

// PhaseTiming is the wall time of one phase per frame, since the start.
type PhaseTiming struct {
	Frames int     // frames that ran the phase
	AvgMs  float64 // mean per frame, ms
	MaxMs  float64 // longest frame, ms
}

// Timings are the per-frame wall times of the phases of a run (Table 1's rows).
type Timings struct {
	// Simulation is the solver's time per frame: every solver step the frame took (one
	// or more; Steps counts them), without the script's callbacks.
	Simulation PhaseTiming
	// Surface is the liquid surface's time per frame that built one.
	Surface PhaseTiming
	// Render is the preview's drawing time per drawn frame (window or screenshot).
	Render PhaseTiming
	// Waves is the wave particles' time per frame that ran them (their impacts and
	// propagation; their field is part of Surface): not in Simulation.
	Waves PhaseTiming
	// Region is the 3D region's time per frame that stepped one (sim:region): its own
	// solver and its coupling to the columns, without the columns' step. It is part of
	// Simulation (the scene steps the region inside its step): the share of it that was
	// the region's. RegionSteps is the region's steps over those frames.
	Region      PhaseTiming
	RegionSteps int64
	// Steps is the number of solver steps the Simulation frames took in all: the
	// simulation's time per step is Simulation.AvgMs * Simulation.Frames / Steps.
	Steps int64
}

// StepMs is the simulation's mean time per solver step, ms (0 before the first step).
func (t Timings) StepMs() float64 {
	if t.Steps == 0 {
		return 0
	}
	return t.Simulation.AvgMs * float64(t.Simulation.Frames) / float64(t.Steps)
}

// RegionStepMs is the region's mean time per step of its own, ms (0 before its first).
func (t Timings) RegionStepMs() float64 {
	if t.RegionSteps == 0 {
		return 0
	}
	return t.Region.AvgMs * float64(t.Region.Frames) / float64(t.RegionSteps)
}

// StepsPerFrame is the mean number of solver steps per simulation frame.
func (t Timings) StepsPerFrame() float64 {
	if t.Simulation.Frames == 0 {
		return 0
	}
	return float64(t.Steps) / float64(t.Simulation.Frames)
}

// PhaseClock accumulates the duration of one phase over frames: count, sum and maximum.
// The zero value is ready to use.
type PhaseClock struct {
	n        int
	sum, max time.Duration
}

// Add records one frame's duration.
func (p *PhaseClock) Add(d time.Duration) {
	p.n++
	p.sum += d
	p.max = max(p.max, d)
}

// Merge adds the frames o recorded.
func (p *PhaseClock) Merge(o PhaseClock) {
	p.n += o.n
	p.sum += o.sum
	p.max = max(p.max, o.max)
}

// Frames is the number of frames recorded.
func (p PhaseClock) Frames() int { return p.n }

// Sum is the total duration recorded.
func (p PhaseClock) Sum() time.Duration { return p.sum }

// Timing is the average and maximum so far, in ms.
func (p PhaseClock) Timing() PhaseTiming {
	if p.n == 0 {
		return PhaseTiming{}
	}
	return PhaseTiming{Frames: p.n, AvgMs: float64(p.sum) / float64(p.n) / 1e6, MaxMs: float64(p.max) / 1e6}
}
