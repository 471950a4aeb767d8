package script

import "time"

// PhaseTiming is the wall time of one phase per frame, since the start.
type PhaseTiming struct {
	Frames int     // frames that ran the phase
	AvgMs  float64 // mean per frame, ms
	MaxMs  float64 // longest frame, ms
}

// Timings are the per-frame wall times of the phases of a run.
type Timings struct {
	// Simulation: the solver, one frame per Advance call that took a step (Advance
	// records it itself).
	Simulation PhaseTiming
	// Surface and Render: the liquid surface and drawing, as the caller reports them
	// with RecordFrame.
	Surface, Render PhaseTiming
}

// PhaseClock accumulates the duration of one phase over frames: count, sum and maximum.
// The zero value is ready to use. It is what Timings report, and what the command uses
// for its own whole-frame totals.
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

// Timing is the average and maximum so far, in ms.
func (p PhaseClock) Timing() PhaseTiming {
	if p.n == 0 {
		return PhaseTiming{}
	}
	return PhaseTiming{Frames: p.n, AvgMs: float64(p.sum) / float64(p.n) / 1e6, MaxMs: float64(p.max) / 1e6}
}

// RecordFrame adds one frame's timings of the phases the caller runs: surface and render
// (0 = the phase did not run this frame and is not counted), so that sim:stats() in Lua
// and Timings report them. sim is not added: Advance records the solver's time itself,
// one Simulation frame per call; pass 0 or LastAdvance(), either is fine. Safe from any
// goroutine.
func (s *Scenario) RecordFrame(sim, surface, render time.Duration) {
	_ = sim
	s.tmu.Lock()
	defer s.tmu.Unlock()
	if surface > 0 {
		s.tSurface.Add(surface)
	}
	if render > 0 {
		s.tRender.Add(render)
	}
}

// Timings reports each phase's frames, mean and longest frame (ms) since the start.
// Safe from any goroutine.
func (s *Scenario) Timings() Timings {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	return Timings{Simulation: s.tSim.Timing(), Surface: s.tSurface.Timing(), Render: s.tRender.Timing()}
}
