package tui

import (
	"math"
	"time"

	"github.com/vpbench/vpbench/script"
)

// clock accumulates one phase's frame times: count, sum, maximum.
type clock struct {
	n        int
	sum, max time.Duration
}

func (c *clock) add(d time.Duration) {
	c.n++
	c.sum += d
	c.max = max(c.max, d)
}

func (c *clock) merge(o clock) {
	c.n += o.n
	c.sum += o.sum
	c.max = max(c.max, o.max)
}

func (c clock) timing() script.PhaseTiming {
	if c.n == 0 {
		return script.PhaseTiming{}
	}
	return script.PhaseTiming{Frames: c.n, AvgMs: float64(c.sum) / float64(c.n) / 1e6, MaxMs: float64(c.max) / 1e6}
}

// bucket is what happened between two state messages.
type bucket struct {
	wall        time.Duration
	sim         float64 // simulated seconds advanced
	steps       int64
	simT, surfT clock
	// renderFrames and renderMs are the render phase's frames and total ms in the bucket,
	// from the differences of the scenario's running totals (the preview records them
	// from its own goroutine; their per-frame maximum is not known here).
	renderFrames int
	renderMs     float64
}

// window is the recent past, a bucket per state message, covering WindowSeconds of wall
// time, and the sparkline's history of mean frame times.
type window struct {
	start   time.Time
	cur     bucket
	buckets []bucket
	spark   []float64
	// the render totals seen at the last close
	renderFrames int
	renderMs     float64
}

func (w *window) addFrame(sim float64, steps int64, simDur, surfDur time.Duration) {
	if w.start.IsZero() {
		w.start = time.Now()
	}
	w.cur.sim += sim
	w.cur.steps += steps
	if simDur > 0 {
		w.cur.simT.add(simDur)
	}
	if surfDur > 0 {
		w.cur.surfT.add(surfDur)
	}
}

// close ends the current bucket at now; render is the scenario's render total so far.
func (w *window) close(now time.Time, render script.PhaseTiming) {
	if w.start.IsZero() {
		w.start = now
	}
	b := w.cur
	b.wall = now.Sub(w.start)
	total := render.AvgMs * float64(render.Frames)
	if render.Frames >= w.renderFrames {
		b.renderFrames, b.renderMs = render.Frames-w.renderFrames, total-w.renderMs
	}
	w.renderFrames, w.renderMs = render.Frames, total
	w.buckets = append(w.buckets, b)
	var wall time.Duration
	keep := len(w.buckets)
	for keep > 0 && wall+w.buckets[keep-1].wall <= time.Duration(WindowSeconds*float64(time.Second)) {
		wall += w.buckets[keep-1].wall
		keep--
	}
	w.buckets = append(w.buckets[:0], w.buckets[keep:]...)
	if n := b.simT.n; n > 0 {
		w.spark = append(w.spark, float64(b.simT.sum+b.surfT.sum)/float64(n)/1e6)
		if len(w.spark) > sparkLen {
			w.spark = append(w.spark[:0], w.spark[len(w.spark)-sparkLen:]...)
		}
	}
	w.cur = bucket{}
	w.start = now
}

// reset forgets the window's rates and timings (after a pause or a change of pace), but
// keeps the sparkline's history.
func (w *window) reset() {
	w.buckets = w.buckets[:0]
	w.cur = bucket{}
	w.start = time.Now()
}

// summary is the window's timings and rates: solver steps per wall second and simulated
// seconds per wall second.
func (w *window) summary() (win Window, stepsPerSec, realTime float64) {
	var wall time.Duration
	var sim float64
	var steps int64
	var simT, surfT clock
	var rFrames int
	var rMs float64
	for _, b := range w.buckets {
		wall += b.wall
		sim += b.sim
		steps += b.steps
		simT.merge(b.simT)
		surfT.merge(b.surfT)
		rFrames += b.renderFrames
		rMs += b.renderMs
	}
	win.Simulation, win.Surface = simT.timing(), surfT.timing()
	if rFrames > 0 {
		win.Render = script.PhaseTiming{Frames: rFrames, AvgMs: rMs / float64(rFrames), MaxMs: math.NaN()}
	}
	if s := wall.Seconds(); s > 0 {
		stepsPerSec, realTime = float64(steps)/s, sim/s
	}
	return win, stepsPerSec, realTime
}

func (w *window) sparkline() []float64 {
	return append([]float64(nil), w.spark...)
}
