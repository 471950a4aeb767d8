package engine

import (
	"math"
	"testing"
	"time"

	"github.com/vpbench/vpbench/timing"
)

// TestWindowFramesPerSecondMeasured: the window's frames a second are the frames run per
// wall second over the last WindowSeconds (a synthetic clock), not the FPS asked: 26
// frames a second of 5 steps each, published every 40 ms, for 3 s.
func TestWindowFramesPerSecondMeasured(t *testing.T) {
	now := time.Unix(1000, 0)
	w := window{start: now}
	const fps = 26.0
	period := time.Second / time.Duration(fps)
	nextFrame, nextSend := now, now.Add(DefaultSendInterval)
	end := now.Add(3 * time.Second)
	for now = now.Add(time.Millisecond); now.Before(end); now = now.Add(time.Millisecond) {
		if !now.Before(nextFrame) {
			w.addFrame(frameDone{Covered: 5 * 0.003, Steps: 5, Sim: 10 * time.Millisecond, Surf: time.Millisecond})
			nextFrame = nextFrame.Add(period)
		}
		if !now.Before(nextSend) {
			w.close(now, timing.PhaseTiming{})
			nextSend = nextSend.Add(DefaultSendInterval)
		}
	}
	_, rt := w.summary()
	if math.Abs(rt.framesPerSec-fps) > 1 {
		t.Errorf("%d-ish frames a second run: the window says %.2f", int(fps), rt.framesPerSec)
	}
	if math.Abs(rt.stepsPerSec-5*fps) > 5 || math.Abs(rt.realTime-5*0.003*fps) > 0.02 {
		t.Errorf("steps/s %.1f, real-time factor %.3f: want %.0f and %.3f", rt.stepsPerSec, rt.realTime, 5*fps, 5*0.003*fps)
	}
	if rt.wall > time.Duration(WindowSeconds*float64(time.Second)) || rt.wall < time.Duration((WindowSeconds-0.1)*float64(time.Second)) {
		t.Errorf("the window covers %v: want about %g s", rt.wall, WindowSeconds)
	}
	// A frame of no step (a script error before the first step) is no frame.
	w.cur = bucket{}
	w.addFrame(frameDone{Sim: time.Millisecond})
	if w.cur.frames != 0 {
		t.Errorf("a frame of no step counted: %d", w.cur.frames)
	}
}

// TestPaceLagThreshold: the cannot-keep-up alarm needs pacing to have let a debt go
// recently AND the window's factor below the one asked by more than LagMargin, over a
// window of at least lagWindow.
func TestPaceLagThreshold(t *testing.T) {
	now := time.Unix(1000, 0)
	full := time.Duration(WindowSeconds * float64(time.Second))
	for _, c := range []struct {
		factor, achieved float64
		wall             time.Duration
		letGo            bool
		want             bool
	}{
		{0.5, 0.51, full, true, false},                 // the false alarm of issue 26
		{0.5, 0.48, full, true, false},                 // 4% below: within the margin
		{0.5, 0.47, full, true, true},                  // 6% below
		{1, 0.80, full, true, true},                    // a slow machine
		{1, 0.80, full, false, false},                  // pacing never let go: no alarm
		{1, 0.80, 500 * time.Millisecond, true, false}, // too little window to judge
		{2, 1.54, full, true, true},
	} {
		p := pacer{speed: Speed{Factor: c.factor}, fps: DefaultFPS}
		p.rebase(now, 0)
		if c.letGo {
			p.letGo(now, c.factor, c.factor) // owes a whole wall second: lets most go
		}
		got := p.behind(now.Add(time.Second), rates{realTime: c.achieved, wall: c.wall})
		if got != c.want {
			t.Errorf("%gx asked, %gx achieved over %v (debt let go: %v): alarm %v, want %v", c.factor, c.achieved, c.wall, c.letGo, got, c.want)
		}
	}
	// As fast as possible never lags.
	p := pacer{speed: Speed{Max: true}, fps: DefaultFPS}
	p.lagAt = now
	if p.behind(now, rates{realTime: 0.1, wall: full}) {
		t.Error("as fast as possible: an alarm")
	}
}
