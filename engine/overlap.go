package engine

import "time"

// The overlap's choice, by measuring. Building a frame's surface on cores of its own
// while the solver runs the next frame's steps (scene.SetOverlap) pays where the two
// cost about the same: a frame then costs the larger of the two, each on its own core.
// Where one of them is most of the frame and spreads well over every core (a one-layer
// scene's dense sweep with a small surface: viscosity, dambreak), the frame in step on
// all cores is faster. Which one a scene is changes as its liquid spreads, so the tuner
// measures, on real frames, how much faster each part runs on all cores than on its
// share (a trial of each way), and then every frame predicts both ways' cost from the
// parts' times now and takes the cheaper:
//
//	overlapped: max(sim1, surf1)        in step: sim1/a + surf1/b
//
// with sim1, surf1 the solver's and the surface's time a step on their shares of the
// cores and a, b their speed-ups on all cores. The trial is made again every
// tuneAgain frames. Only when frames are built changes, never what: the solver's
// results and the surfaces are the same bits either way.
const (
	tuneSettle = 30  // frames overlapped before the first trial (the liquid spreads)
	tuneWarm   = 2   // frames of a trial's way not measured (the caches and pools settle)
	tuneFrames = 8   // frames measured in each way of a trial
	tuneAgain  = 600 // frames between trials
	tuneMargin = 1.05
)

// overlapTuner says whether the next frame is to overlap, and learns from each frame.
type overlapTuner struct {
	frames int // frames since the phase began
	phase  int // 0: settling, 1: trying the overlap, 2: trying the frame in step, 3: predicting
	// The trial's sums: the solver's and the surface's time and the steps, overlapped [0]
	// and in step [1].
	sim, surf [2]time.Duration
	steps     [2]int64
	a, b      float64 // the speed-ups on all cores (the trial's)
	// The parts' time a step now, on the overlap's shares (exponential averages).
	sim1, surf1 float64
	choice      bool
}

// overlap tells whether the next frame is to overlap.
func (t *overlapTuner) overlap() bool {
	switch t.phase {
	case 0, 1:
		return true
	case 2:
		return false
	}
	return t.choice
}

// observe records a frame of steps steps whose solver side (steps, waves, bodies) took
// sim and whose surface took surf (0: none reported), built as overlap said before it.
func (t *overlapTuner) observe(sim, surf time.Duration, steps int64) {
	if steps <= 0 {
		return
	}
	t.frames++
	switch t.phase {
	case 0:
		if t.frames >= tuneSettle {
			t.phase, t.frames = 1, 0
		}
	case 1, 2:
		k := t.phase - 1
		if t.frames > tuneWarm && surf > 0 {
			t.sim[k] += sim
			t.surf[k] += surf
			t.steps[k] += steps
		}
		if t.frames < tuneWarm+tuneFrames {
			return
		}
		t.phase, t.frames = t.phase+1, 0
		if t.phase < 3 {
			return
		}
		per := func(d time.Duration, n int64) float64 { return d.Seconds() / float64(max(n, 1)) }
		s0, s1 := per(t.sim[0], t.steps[0]), per(t.sim[1], t.steps[1])
		f0, f1 := per(t.surf[0], t.steps[0]), per(t.surf[1], t.steps[1])
		if s0 <= 0 || s1 <= 0 || f0 <= 0 || f1 <= 0 {
			t.a, t.b = 0, 0 // nothing measured (no surface built): keep the overlap
			t.choice = true
		} else {
			t.a, t.b = s0/s1, f0/f1
			t.sim1, t.surf1 = s0, f0
			t.choice = max(s0, f0) <= (s1+f1)*tuneMargin
		}
		t.sim, t.surf, t.steps = [2]time.Duration{}, [2]time.Duration{}, [2]int64{}
	case 3:
		if t.frames >= tuneAgain {
			t.phase, t.frames = 1, 0
			return
		}
		if t.a <= 0 || surf <= 0 {
			return
		}
		s, f := sim.Seconds()/float64(steps), surf.Seconds()/float64(steps)
		if !t.choice { // measured on all cores: on the shares they would take a and b times as long
			s, f = s*t.a, f*t.b
		}
		const w = 0.1
		t.sim1 += w * (s - t.sim1)
		t.surf1 += w * (f - t.surf1)
		over, step := max(t.sim1, t.surf1), t.sim1/t.a+t.surf1/t.b
		switch {
		case t.choice && step*tuneMargin < over:
			t.choice = false
		case !t.choice && over*tuneMargin < step:
			t.choice = true
		}
	}
}
