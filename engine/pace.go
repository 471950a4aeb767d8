package engine

import (
	"math"
	"time"
)

// Pacing: how many solver steps a frame takes and when it is due. One place decides it
// for every front end (the UI, `vpbench run`, bench and render).
//
//   - As fast as possible (Speed.Max; every headless run): frames fall at simulated times
//     k/FPS (the first step boundary at or after each), so a run's frames, its surfaces,
//     exports and surface timings are the same on every machine.
//   - As fast as possible in the UI (wallFrames): a frame still ends at a time k/FPS, but
//     covers as many 1/FPS intervals as the solver runs in maxCatchUp wall frame periods
//     (its measured speed), at least the next one and at most wallGrowth times the last
//     frame's: the surface is built at most about FPS/maxCatchUp times a wall second and
//     the solver runs the rest of the time. A frame's steps are then at least the most a real-time frame may take
//     (below), and it never waits, so no fixed speed is faster (issue 26: 60 surfaces a
//     simulated second made it slower than 2x where the surface is dear). Only where the
//     frames end changes, never the steps.
//   - Real time (Speed.Factor f): a frame is due every 1/FPS wall seconds; it takes the
//     steps that bring simulated time to f times the wall time since the pace started,
//     rounded to whole steps. A frame takes at most maxCatchUp nominal frames' worth of
//     steps, and no more than the solver's measured speed fits in maxCatchUp frame periods
//     (never a burst of catch-up steps that freezes the screen); once it is maxLag behind, the pace lets the debt go and the
//     simulated clock runs at what the machine achieves (State.RealTime), and State.Lagging
//     says so.
//   - FrameSteps N (the paper's Table 1 frames): every frame takes N steps; in real time a
//     frame is due when the pace reaches the middle of its steps.
//
// Every frame stops at Until: a run reaches at least simulated time Until, so events
// scheduled at Until fire.

// DefaultFPS is the frames a second when Config.FPS is 0.
const DefaultFPS = 60

const (
	// maxLag is how far (wall time) real-time pacing may fall behind before the runner
	// says it cannot keep up and lets the difference go.
	maxLag = 250 * time.Millisecond
	// maxCatchUp bounds a real-time frame's steps to this many nominal frames' worth.
	maxCatchUp = 2
	// lagMemory is how long State.Lagging stays on after pacing last fell behind.
	lagMemory = 3 * time.Second
	// LagMargin is how far below the factor asked the window's real-time factor must be
	// for State.Lagging: 0.51x achieved at 0.5x asked (a debt let go once, in a hiccup)
	// is no alarm; 0.47x is.
	LagMargin = 0.05
	// lagWindow is the least wall time the window must cover to judge the factor achieved.
	lagWindow = time.Second
	// wallGrowth bounds a wallFrames frame's 1/FPS intervals to this many times the last
	// one's: a frame grows to its size over a few frames, and a step cost measured too low
	// (a pipelined device's steps overlap the surface) never makes one that freezes the UI.
	wallGrowth = 2
)

// pacer decides each frame's steps (see the comment above).
type pacer struct {
	speed      Speed
	fps        float64
	frameSteps int
	until      float64 // 0: none
	// wallFrames: as fast as possible, a frame covers the 1/fps intervals the solver runs
	// in maxCatchUp frame periods (the UI; the runner sets it before each plan). Off, a
	// frame covers one (headless runs, exports, OnFrame, recordings).
	wallFrames bool
	wallSpan   float64 // the last wallFrames frame's intervals (0: none since the rebase)

	baseWall time.Time // real time: simulated time baseSim at wall time baseWall
	baseSim  float64
	nextDue  time.Time // real time with FPS: when the next frame is due
	lagAt    time.Time // when pacing last let a debt go (zero: never)
	// stepCost is the solver's recent wall seconds per step (an exponential average; 0
	// before the first frame): a real-time frame takes no more steps than fit in
	// maxCatchUp frame periods.
	stepCost float64
}

// observe records a frame's solver time d for its steps.
func (p *pacer) observe(d time.Duration, steps int64) {
	if steps <= 0 {
		return
	}
	c := d.Seconds() / float64(steps)
	if p.stepCost == 0 {
		p.stepCost = c
		return
	}
	p.stepCost += 0.25 * (c - p.stepCost)
}

// stepTolerance is how far (in steps) before a target a step boundary may lie and still
// reach it: simulated time is a float sum of steps (the script's scheduler uses the same).
const stepTolerance = 1e-6

// stepsTo is the whole steps of dt from t that reach target (the first boundary at or
// after it, within stepTolerance); 0 when t already has.
func stepsTo(t, target, dt float64) int {
	n := math.Ceil((target-t)/dt - stepTolerance)
	if n <= 0 || math.IsNaN(n) {
		return 0
	}
	return int(min(n, 1<<30))
}

// rebase restarts real-time pacing at simulated time t, now.
func (p *pacer) rebase(now time.Time, t float64) {
	p.baseWall, p.baseSim, p.nextDue = now, t, now
	p.lagAt = time.Time{}
	p.wallSpan = 0
}

// atUntil reports whether simulated time t has reached Until (no step is left).
func (p *pacer) atUntil(t, dt float64) bool {
	return p.until > 0 && stepsTo(t, p.until, dt) == 0
}

// plan returns the steps of the frame due now, or how long to wait for it (steps 0). t is
// the simulated time, dt the step.
func (p *pacer) plan(now time.Time, t, dt float64) (steps int, wait time.Duration) {
	steps, wait = p.planPace(now, t, dt)
	if steps > 0 && p.until > 0 {
		steps = min(steps, stepsTo(t, p.until, dt))
	}
	return steps, wait
}

func (p *pacer) planPace(now time.Time, t, dt float64) (int, time.Duration) {
	if p.speed.Max {
		if p.frameSteps > 0 {
			return p.frameSteps, 0
		}
		// The next frame time k/FPS after t.
		k := math.Floor(t*p.fps+stepTolerance) + 1
		if p.wallFrames && p.stepCost > 0 { // before the first frame: one interval measures the step
			// The steps that fit in maxCatchUp frame periods (a real-time frame's most),
			// rounded up to a frame time, at most wallGrowth times the last frame's intervals.
			reach := t + math.Floor(maxCatchUp/(p.fps*p.stepCost))*dt
			m := max(1, math.Ceil(reach*p.fps-stepTolerance)-k+1)
			m = min(m, wallGrowth*max(p.wallSpan, 1))
			p.wallSpan = m
			k += m - 1
		} else {
			p.wallSpan = 0
		}
		return max(1, stepsTo(t, k/p.fps, dt)), 0
	}
	f := p.speed.Factor
	target := p.baseSim + f*now.Sub(p.baseWall).Seconds()
	if p.frameSteps > 0 {
		n := p.frameSteps
		ahead := t + float64(n)*dt/2 - target // due when the pace reaches mid-frame
		if ahead > 0 {
			return 0, max(time.Duration(ahead/f*float64(time.Second)), 100*time.Microsecond)
		}
		p.letGo(now, target-(t+float64(n)*dt), f)
		return n, 0
	}
	if now.Before(p.nextDue) {
		return 0, p.nextDue.Sub(now)
	}
	period := time.Duration(float64(time.Second) / p.fps)
	p.nextDue = p.nextDue.Add(period)
	if p.nextDue.Before(now) { // a slow frame: keep the cadence from now on
		p.nextDue = now.Add(period)
	}
	n := int(math.Round((target - t) / dt))
	if n <= 0 {
		return 0, p.nextDue.Sub(now)
	}
	limit := math.Ceil(maxCatchUp * f / (p.fps * dt)) // nominal frames' worth
	if p.stepCost > 0 {
		limit = min(limit, math.Floor(maxCatchUp/(p.fps*p.stepCost))) // what fits in their wall time
	} else {
		limit = 1 // the first frame measures the step
	}
	n = min(n, max(1, int(limit)))
	p.letGo(now, target-(t+float64(n)*dt), f)
	return n, 0
}

// letGo drops the part of a real-time debt (simulated seconds still owed after this
// frame) beyond maxLag: the simulated clock then follows what the machine achieves.
func (p *pacer) letGo(now time.Time, owed, f float64) {
	limit := f * maxLag.Seconds()
	if owed > limit {
		p.baseSim -= owed - limit
		p.lagAt = now
	}
}

// behind is State.Lagging: pacing let a debt go in the last lagMemory and the window
// (at least lagWindow of wall time) achieved less than the factor asked by more than
// LagMargin. A single let-go in a hiccup, on a machine that keeps up over the window, is
// no alarm.
func (p *pacer) behind(now time.Time, w rates) bool {
	return p.lagging(now) && w.wall >= lagWindow && w.realTime < (1-LagMargin)*p.speed.Factor
}

// lagging reports whether real-time pacing had to let a debt go in the last lagMemory.
func (p *pacer) lagging(now time.Time) bool {
	return !p.speed.Max && !p.lagAt.IsZero() && now.Sub(p.lagAt) < lagMemory
}
