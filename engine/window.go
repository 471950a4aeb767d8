package engine

import (
	"math"
	"time"

	"github.com/vpbench/vpbench/timing"
)

// bucket is what happened between two state messages.
type bucket struct {
	wall        time.Duration
	sim         float64 // simulated seconds advanced
	steps       int64
	frames      int // frames run (each builds at most one surface and publishes one picture)
	simT, surfT timing.PhaseClock
	wavesT      timing.PhaseClock
	regionT     timing.PhaseClock
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

// addFrame adds a frame to the current bucket.
func (w *window) addFrame(f frameDone) {
	if w.start.IsZero() {
		w.start = time.Now()
	}
	w.cur.sim += f.Covered
	w.cur.steps += f.Steps
	if f.Steps > 0 {
		w.cur.frames++
	}
	if f.Sim > 0 {
		w.cur.simT.Add(f.Sim)
	}
	if f.Surf > 0 {
		w.cur.surfT.Add(f.Surf)
	}
	if f.Waves > 0 {
		w.cur.wavesT.Add(f.Waves)
	}
	if f.RegionSteps > 0 {
		w.cur.regionT.Add(f.Region)
	}
}

// close ends the current bucket at now; render is the scenario's render total so far.
func (w *window) close(now time.Time, render timing.PhaseTiming) {
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
	if st := b.simT.Timing(); st.Frames > 0 {
		sf := b.surfT.Timing()
		w.spark = append(w.spark, (st.AvgMs*float64(st.Frames)+sf.AvgMs*float64(sf.Frames))/float64(st.Frames))
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

// rates are the window's rates, per wall second.
type rates struct {
	stepsPerSec  float64       // solver steps
	realTime     float64       // simulated seconds
	framesPerSec float64       // frames run (the frames drawn and published)
	wall         time.Duration // the wall time the window covers
}

// summary is the window's timings and rates.
func (w *window) summary() (win Window, rt rates) {
	var wall time.Duration
	var sim float64
	var steps int64
	var frames int
	var simT, surfT, wavesT, regionT timing.PhaseClock
	var rFrames int
	var rMs float64
	for _, b := range w.buckets {
		wall += b.wall
		sim += b.sim
		steps += b.steps
		frames += b.frames
		simT.Merge(b.simT)
		surfT.Merge(b.surfT)
		wavesT.Merge(b.wavesT)
		regionT.Merge(b.regionT)
		rFrames += b.renderFrames
		rMs += b.renderMs
	}
	win.Simulation, win.Surface, win.Waves, win.Steps = simT.Timing(), surfT.Timing(), wavesT.Timing(), steps
	win.Region = regionT.Timing()
	if rFrames > 0 {
		win.Render = timing.PhaseTiming{Frames: rFrames, AvgMs: rMs / float64(rFrames), MaxMs: math.NaN()}
	}
	rt.wall = wall
	if s := wall.Seconds(); s > 0 {
		rt.stepsPerSec, rt.realTime, rt.framesPerSec = float64(steps)/s, sim/s, float64(frames)/s
	}
	return win, rt
}

func (w *window) sparkline() []float64 {
	return append([]float64(nil), w.spark...)
}
