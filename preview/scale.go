package preview

import (
	"math"
	"time"
)

// drawScale chooses the fraction of a window's size that a software renderer draws at
// (the window stretches the picture onto itself): the largest whose draws fit within a
// budget. The fractions are levels, 0.9^level from 1 down to about a half; the draw time
// at the current level is averaged over a few draws, then the level moves down when the
// mean is over the budget, and up when it is within it, unless the level above was
// measured over it within the last few seconds (measurements go stale: the machine's load
// changes). So the picture settles on the largest level within the budget, trying the
// level above again now and then; where nothing fits, it draws at the smallest. Half
// the size is the floor: on two shared cores with the solver running, the window drew
// 33 frames a second at a third of its size (13-14 ms a draw) and about as many at half
// (the cores are saturated), while a third of the size is visibly blurred.
//
// A rule that stopped going down where a step did not make the draws clearly faster (the
// fixed costs dominating) was tried and dropped: on two shared cores the draw times of
// a real run vary by more than a step changes them, and it held the picture at 60-80 %
// and 20 ms a draw where 40 % drew in 12.
//
// It is plain arithmetic on the measured times (no OpenGL), tested in scale_test.go.
type drawScale struct {
	budget time.Duration
	level  int
	sum    time.Duration // draws at level since the last move
	n      int
	mean   [drawScaleLevels]time.Duration // the last mean at each level; 0: never measured
	when   [drawScaleLevels]time.Time     // when it was measured
}

const (
	drawScaleLevels = 8                     // levels 0..7: 0.9^7 = 0.48 is the smallest scale
	drawScaleStep   = 0.9                   // the ratio between levels
	drawScaleStart  = 7                     // where a window starts: the smallest
	drawScaleDraws  = 8                     // draws averaged before a move
	drawScaleStale  = 3 * time.Second       // a level's mean older than this is measured again
	drawBudget      = 14 * time.Millisecond // one frame of the loop's 60 a second, less the swap
)

// newDrawScale starts at drawScaleStart with the given budget.
func newDrawScale(budget time.Duration) *drawScale {
	return &drawScale{budget: budget, level: drawScaleStart}
}

// scale is the fraction of the window's size to draw at.
func (d *drawScale) scale() float64 { return math.Pow(drawScaleStep, float64(d.level)) }

// observe takes the time of a draw at the current scale, at now; it reports whether the
// scale changed.
func (d *drawScale) observe(took time.Duration, now time.Time) bool {
	d.sum += took
	d.n++
	if d.n < drawScaleDraws {
		return false
	}
	mean := d.sum / time.Duration(d.n)
	d.sum, d.n = 0, 0
	d.mean[d.level], d.when[d.level] = mean, now
	above := d.level - 1
	switch {
	case mean > d.budget && d.level+1 < drawScaleLevels:
		d.level++
		return true
	case mean <= d.budget && above >= 0 && (d.mean[above] <= d.budget || now.Sub(d.when[above]) >= drawScaleStale):
		d.level = above
		return true
	}
	return false
}
