package preview

import (
	"math"
	"testing"
	"time"
)

// drawTimes is a software renderer's draw time at scale s: fixed plus perPixel times the
// share of the window's pixels drawn.
func drawTimes(fixed, perPixel time.Duration) func(s float64) time.Duration {
	return func(s float64) time.Duration { return fixed + time.Duration(float64(perPixel)*s*s) }
}

// settle runs d against a renderer for a simulated minute, 60 draws a second, and returns
// the scales it drew at in the last 20 seconds and the share of those draws made at the
// scale most used.
func settle(d *drawScale, draw func(float64) time.Duration) (lo, hi, held float64) {
	now := time.Unix(0, 0)
	lo, hi = 2, 0
	count := map[float64]int{}
	for i := range 3600 {
		s := d.scale()
		if i >= 2400 {
			lo, hi = math.Min(lo, s), math.Max(hi, s)
			count[s]++
		}
		d.observe(draw(s), now)
		now = now.Add(time.Second / 60)
	}
	for _, n := range count {
		held = math.Max(held, float64(n)/1200)
	}
	return lo, hi, held
}

// TestDrawScaleSettles: the window's scale settles on the largest level within the budget
// (90 % of the draws, the rest brief tries of the level above every few seconds),
// whatever it starts from;
// climbs to full size where the draws are cheap; and does not blur the picture down to
// the smallest level where the fixed costs alone exceed the budget.
func TestDrawScaleSettles(t *testing.T) {
	for _, tc := range []struct {
		name             string
		draw             func(float64) time.Duration
		wantLo, wantHi   float64
		startLo, startHi bool
	}{
		// 4 + 20 s^2 ms: within 14 ms up to s = 0.707; levels 0.729 (14.6) and 0.656 (12.6).
		{name: "per-pixel cost", draw: drawTimes(4*time.Millisecond, 20*time.Millisecond), wantLo: 0.65, wantHi: 0.73},
		// A GPU-like renderer: 2 ms whatever the size.
		{name: "cheap", draw: drawTimes(2*time.Millisecond, time.Millisecond), wantLo: 1, wantHi: 1},
		// Fixed costs of 16 ms: nothing fits.
		{name: "fixed costs", draw: drawTimes(16*time.Millisecond, 4*time.Millisecond), wantLo: 0.47, wantHi: 0.48},
	} {
		for _, start := range []int{0, drawScaleStart, drawScaleLevels - 1} {
			d := newDrawScale(drawBudget)
			d.level = start
			lo, hi, held := settle(d, tc.draw)
			t.Logf("%s, from level %d: scale %.3f to %.3f, %.0f%% of the draws at one", tc.name, start, lo, hi, 100*held)
			if lo < tc.wantLo || hi > tc.wantHi || held < 0.9 {
				t.Errorf("%s, from level %d: the scale ranged over %.3f to %.3f in the last 20 s (%.0f%% at one), want within [%.2f, %.2f] and 90%% at one", tc.name, start, lo, hi, 100*held, tc.wantLo, tc.wantHi)
			}
		}
	}
}
