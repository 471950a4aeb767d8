package engine

import "time"

// When frames overlap. Building a frame's surface beside the next frame's steps
// (scene.SetOverlap) gives the solver half the cores while the steps run; the surface
// has every core (the free ones during the steps, all of them after). It pays unless
// the surface is a small part of the frame: then the frame is the solver's, on half the
// cores, where in step it had them all. So the rule follows the two parts' times, as an
// exponential average of the surface's time over the solver side's (the steps, waves,
// bodies), each frame:
//
//   - overlapped, the frames go back in step when the ratio falls below overlapOff
//     (the solver there runs on half the cores: 1.3 to 1.9 times longer, so this is
//     about 0.25 to 0.4 of the solver's time on all cores);
//   - in step, they overlap again when it rises above overlapOn.
//
// The gap between the two, and overlapHold frames at least between changes, keep it
// from flapping; no change comes in the first overlapHold frames either. dambreak (its
// surface 0.17 of its solver's time in step) goes in step after them; every other scene
// of the library overlaps throughout (viscosity's surface is 5.5 times its solver's,
// rock's 0.9, surgery's 0.7; in step, on two cores). A choice by timing both ways on real frames was
// tried and dropped: a few frames of a way just switched to run with cold pools and
// caches, and the trial chose wrong (docs/benchmarks.md, "Frames overlap").
const (
	overlapOff  = 0.2
	overlapOn   = 0.45
	overlapHold = 30
	overlapEMA  = 0.1
)

// overlapRule says whether the next frame is to overlap.
type overlapRule struct {
	ratio  float64 // the surface's time over the solver side's, averaged (0: none yet)
	frames int     // frames since the last change
	off    bool    // in step now
}

// overlap tells whether the next frame is to overlap.
func (o *overlapRule) overlap() bool { return !o.off }

// observe records a frame's solver side time sim and surface time surf (0: none
// reported, as the first overlapped frame's).
func (o *overlapRule) observe(sim, surf time.Duration) {
	o.frames++
	if sim <= 0 || surf <= 0 {
		return
	}
	r := surf.Seconds() / sim.Seconds()
	if o.ratio == 0 {
		o.ratio = r
	} else {
		o.ratio += overlapEMA * (r - o.ratio)
	}
	if o.frames < overlapHold {
		return
	}
	if (!o.off && o.ratio < overlapOff) || (o.off && o.ratio > overlapOn) {
		o.off, o.frames = !o.off, 0
		o.ratio = 0 // measured again in the new way
	}
}
