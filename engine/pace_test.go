package engine

import (
	"math"
	"testing"
	"time"
)

// The pacer's decisions on a synthetic clock: these tests assert what a frame takes and
// when, not how fast anything runs.

// advance takes n steps of dt from t the way the scheduler does: a float sum.
func advance(t, dt float64, n int) float64 {
	for range n {
		t += dt
	}
	return t
}

func TestPaceMaxSpeedFramesAtFPS(t *testing.T) {
	const dt, fps, until = 3.03e-3, 60.0, 3.0
	p := pacer{speed: Speed{Max: true}, fps: fps, until: until}
	now := time.Unix(0, 0)
	sim, frames := 0.0, 0
	for !p.atUntil(sim, dt) {
		n, wait := p.plan(now, sim, dt)
		if n <= 0 || wait != 0 {
			t.Fatalf("frame %d at t = %g: %d steps, wait %v: a Max-speed frame is always due", frames, sim, n, wait)
		}
		next := advance(sim, dt, n)
		frames++
		// The frame ends at the first step boundary at or after k/fps (or at until).
		k := math.Min(float64(frames)/fps, until)
		if next < k-1e-9 || next-dt >= k-1e-9 {
			t.Fatalf("frame %d ends at %.6f s: want the first boundary at or after %.6f", frames, next, k)
		}
		sim = next
	}
	if want := int(until * fps); frames != want {
		t.Errorf("%d frames in %g simulated s at %g fps, want %d", frames, until, fps, want)
	}
	if sim < until || sim-dt >= until {
		t.Errorf("stopped at %.6f s: want the first step boundary at or after %g", sim, until)
	}
}

func TestPaceUntilReachesEvents(t *testing.T) {
	// dt 3.03 ms: 1.5 s is no step boundary; the run must not stop at 1.49985 s.
	const dt = 3.03e-3
	for _, fs := range []int{0, 1, 7} {
		p := pacer{speed: Speed{Max: true}, fps: DefaultFPS, frameSteps: fs, until: 1.5}
		sim := 0.0
		for i := 0; !p.atUntil(sim, dt); i++ {
			n, _ := p.plan(time.Time{}, sim, dt)
			if n <= 0 || i > 10000 {
				t.Fatalf("frame-steps %d: no progress at t = %g", fs, sim)
			}
			sim = advance(sim, dt, n)
		}
		if sim < 1.5-stepTolerance*dt || sim-dt >= 1.5 {
			t.Errorf("frame-steps %d: stopped at %.6f s, want the first boundary at or after 1.5 (%.6f)", fs, sim, math.Ceil(1.5/dt)*dt)
		}
	}
	// A float sum of steps that lands a rounding short of the target still reaches it.
	if n := stepsTo(advance(0, 0.1, 10), 1.0, 0.1); n != 0 {
		t.Errorf("ten steps of 0.1 (sum %.17g) are %d steps short of 1.0, want 0", advance(0, 0.1, 10), n)
	}
}

func TestPaceFrameStepsFixed(t *testing.T) {
	p := pacer{speed: Speed{Max: true}, fps: DefaultFPS, frameSteps: 5}
	for i := range 10 {
		if n, _ := p.plan(time.Time{}, float64(i)*0.015, 0.003); n != 5 {
			t.Fatalf("frame %d: %d steps, want 5", i, n)
		}
	}
}

// realTime drives a real-time pacer on a synthetic wall clock: each frame's solver work
// costs cost per step, and the loop waits when the pacer says so. It returns the
// simulated time after wall seconds, the frames, the most steps a frame took, and
// whether the pacer said it was lagging at the end.
func realTime(t *testing.T, dt, fps float64, cost time.Duration, wall time.Duration) (sim float64, frames, most int, lagging bool) {
	t.Helper()
	now := time.Unix(1000, 0)
	p := pacer{speed: Speed{Factor: 1}, fps: fps}
	p.rebase(now, 0)
	end := now.Add(wall)
	for now.Before(end) {
		n, wait := p.plan(now, sim, dt)
		if n == 0 {
			if wait <= 0 {
				t.Fatalf("no steps and no wait at %v", now)
			}
			now = now.Add(wait)
			continue
		}
		d := time.Duration(n) * cost
		p.observe(d, int64(n))
		now = now.Add(d)
		sim = advance(sim, dt, n)
		frames++
		most = max(most, n)
	}
	return sim, frames, most, p.lagging(now)
}

func TestPaceRealTimeKeepsPace(t *testing.T) {
	const dt, fps = 3.03e-3, 60.0
	wall := 10 * time.Second
	sim, frames, most, lagging := realTime(t, dt, fps, 200*time.Microsecond, wall)
	if math.Abs(sim-wall.Seconds()) > 2*dt {
		t.Errorf("a machine with room to spare: %.4f simulated s in %v, want within two steps", sim, wall)
	}
	if want := fps * wall.Seconds(); math.Abs(float64(frames)-want) > 2 {
		t.Errorf("%d frames in %v at %g fps, want %g", frames, wall, fps, want)
	}
	// The first frame takes one step to measure it; the next catches up, within
	// maxCatchUp nominal frames.
	if nominal := 1 / (fps * dt); float64(most) > math.Ceil(maxCatchUp*nominal) {
		t.Errorf("a frame took %d steps, the nominal frame is %.1f", most, nominal)
	}
	if lagging {
		t.Error("lagging on a machine with room to spare")
	}
}

func TestPaceSlowMachineSlipsSmoothly(t *testing.T) {
	// A step costs 4 ms for 3 ms of simulated time: the machine achieves 0.75x.
	const dt, fps = 3e-3, 60.0
	cost := 4 * time.Millisecond
	wall := 10 * time.Second
	sim, _, most, lagging := realTime(t, dt, fps, cost, wall)
	if !lagging {
		t.Error("a machine at 0.75x real time: the pacer does not say it cannot keep up")
	}
	// No burst: a frame never takes more steps than fit in maxCatchUp frame periods.
	if limit := int(maxCatchUp / (fps * cost.Seconds())); most > max(limit, 1) {
		t.Errorf("a frame took %d steps (%v of solver time): the limit is %d", most, time.Duration(most)*cost, limit)
	}
	// The simulated clock runs at what the machine achieves, no slower.
	if achieved, rate := dt/cost.Seconds(), sim/wall.Seconds(); rate < 0.95*achieved || rate > achieved+1e-9 {
		t.Errorf("simulated %.3f s in %v (%.3fx): the machine achieves %.3fx", sim, wall, rate, achieved)
	}
}

// paced drives a pacer at speed on a synthetic wall clock: a step costs cost, each frame
// builds a surface that costs surf, and the loop waits when the pacer says so (as
// Runner.Run does). It returns the simulated seconds per wall second over wall, the
// frames, and each frame's end (simulated time).
func paced(t *testing.T, speed Speed, wallFrames bool, dt, fps float64, cost, surf, wall time.Duration) (rate float64, frames int, ends []float64) {
	t.Helper()
	start := time.Unix(1000, 0)
	now, sim := start, 0.0
	p := pacer{speed: speed, fps: fps, wallFrames: wallFrames}
	p.rebase(now, 0)
	end := now.Add(wall)
	for now.Before(end) {
		n, wait := p.plan(now, sim, dt)
		if n == 0 {
			if wait <= 0 {
				t.Fatalf("%v: no steps and no wait at %v", speed, now)
			}
			now = now.Add(wait)
			continue
		}
		d := time.Duration(n) * cost
		p.observe(d, int64(n))
		now = now.Add(d + surf)
		sim = advance(sim, dt, n)
		frames++
		ends = append(ends, sim)
	}
	return sim / now.Sub(start).Seconds(), frames, ends
}

// TestPaceFastNeverSlowerThanFixed is issue 26: as fast as possible in the UI is never
// slower than a fixed speed, however the solver's and the surface's costs compare (the
// surface dear included: 60 surfaces a simulated second made it slower than 2x).
func TestPaceFastNeverSlowerThanFixed(t *testing.T) {
	const dt, fps = 3e-3, 60.0
	wall := 20 * time.Second
	for _, cost := range []time.Duration{20 * time.Microsecond, 200 * time.Microsecond, 540 * time.Microsecond,
		750 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond} {
		for _, surf := range []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
			10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond} {
			fast, _, _ := paced(t, Speed{Max: true}, true, dt, fps, cost, surf, wall)
			for _, s := range Speeds {
				if s.Max {
					continue
				}
				if got, _, _ := paced(t, s, true, dt, fps, cost, surf, wall); fast < got {
					t.Errorf("step %v, surface %v: as fast as possible %.3fx, slower than %v (%.3fx)", cost, surf, fast, s, got)
				}
			}
		}
	}
}

// TestPaceFastWithDearSurface: where the surface costs more than the frame's steps, as
// fast as possible in the UI reaches at least the 2x setting's rate; one frame per 1/FPS
// simulated second (the headless frames, and the UI's before issue 26) does not.
func TestPaceFastWithDearSurface(t *testing.T) {
	const dt, fps = 3e-3, 60.0
	cost, surf, wall := 300*time.Microsecond, 12*time.Millisecond, 10*time.Second
	twice, _, _ := paced(t, Speed{Factor: 2}, true, dt, fps, cost, surf, wall)
	fast, frames, _ := paced(t, Speed{Max: true}, true, dt, fps, cost, surf, wall)
	fixed, _, _ := paced(t, Speed{Max: true}, false, dt, fps, cost, surf, wall)
	if fast < twice {
		t.Errorf("as fast as possible %.3fx, 2x %.3fx: want at least 2x's", fast, twice)
	}
	if fixed >= twice {
		t.Errorf("one frame per 1/%g simulated s: %.3fx, 2x %.3fx: the case no longer shows issue 26", fps, fixed, twice)
	}
	if perSec := float64(frames) / wall.Seconds(); perSec > fps {
		t.Errorf("%.1f frames (surfaces) a wall second, want at most %g", perSec, fps)
	}
	t.Logf("step %v, surface %v: 2x %.3fx, as fast as possible %.3fx (%d frames), one frame per 1/%g s %.3fx", cost, surf, twice, fast, frames, fps, fixed)
}

// TestPaceFastFramesEndAtFrameTimes: the UI's larger frames end where headless frames do
// (the first step boundary at or after a time k/FPS), so the steps are the same; a frame
// covers at most wallGrowth times the last one's intervals, and a cheap solver builds at
// most FPS surfaces a wall second.
func TestPaceFastFramesEndAtFrameTimes(t *testing.T) {
	const dt, fps = 3.03e-3, 60.0
	for _, cost := range []time.Duration{time.Microsecond, 100 * time.Microsecond, 3 * time.Millisecond} {
		wall := 5 * time.Second
		_, frames, ends := paced(t, Speed{Max: true}, true, dt, fps, cost, 0, wall)
		if perSec := float64(frames) / wall.Seconds(); perSec > fps {
			t.Errorf("step %v: %.1f frames a wall second, want at most %g", cost, perSec, fps)
		}
		prevK, span := 0.0, 1.0
		for i, e := range ends {
			k := math.Ceil(e*fps - 1e-9) // the frame time it ends at
			if e-dt >= k/fps-1e-9 {
				t.Fatalf("step %v: frame %d ends at %.6f s, not the first boundary at or after a frame time", cost, i, e)
			}
			if k-prevK > wallGrowth*span {
				t.Fatalf("step %v: frame %d covers %g intervals after one of %g", cost, i, k-prevK, span)
			}
			prevK, span = k, k-prevK
		}
	}
}
