package engine

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/vpbench/vpbench/scene"
)

// TestOverlapRule: frames overlap while the surface is a fair part of the frame, go
// back in step when it is small beside the solver (and not before overlapHold frames),
// and overlap again when it grows.
func TestOverlapRule(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	var o overlapRule
	feed := func(frames int, sim, surf float64) (overlapped int) {
		for range frames {
			if o.overlap() {
				overlapped++
			}
			o.observe(ms(sim), ms(surf))
		}
		return overlapped
	}
	if n := feed(100, 2, 2); n != 100 {
		t.Fatalf("surface as dear as the solver: %d of 100 frames overlapped, want all", n)
	}
	// The surface shrinks to a tenth of the solver's time: the average follows in some
	// frames, then the frames go in step.
	feed(60, 4, 0.4)
	if n := feed(100, 2.2, 0.4); n != 0 {
		t.Errorf("a surface a tenth of the solver's time: %d of 100 frames overlapped, want none", n)
	}
	// In step the solver runs faster (2.2 ms): a surface 0.3 of it stays in step.
	if n := feed(100, 2.2, 0.66); n != 0 {
		t.Errorf("a surface 0.3 of the solver's time in step: %d of 100 frames overlapped, want none (no flapping)", n)
	}
	// The surface grows back: the frames overlap again.
	feed(overlapHold+20, 2.2, 2)
	if n := feed(50, 2, 2); n != 50 {
		t.Errorf("the surface grown back: %d of 50 frames overlapped, want all", n)
	}
	// Just after a change the rule holds for overlapHold frames, whatever it sees.
	o = overlapRule{off: true} // gone in step this frame
	if n := feed(overlapHold-1, 2, 2); n != 0 {
		t.Errorf("%d of the %d frames after a change overlapped, want none (the hold)", n, overlapHold-1)
	}
	if n := feed(10, 2, 2); n == 0 {
		t.Error("no frame overlapped after the hold, the surface as dear as the solver")
	}
	// No surface reported (the first overlapped frame's): no change.
	for range 100 {
		o.observe(ms(5), 0)
	}
	if !o.overlap() {
		t.Error("frames without a surface's time turned the overlap off")
	}
}

// TestRunnerOverlapSameRun: a headless run with the overlap on ends in the state of the
// same run without it, bit for bit, every frame's surface timed once (a surface still in
// flight when the frames go back in step is its own frame's), whether the rule keeps the
// frames overlapped or sends them back in step.
func TestRunnerOverlapSameRun(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	const src = `local sim = vp.sim{ size = {0.04, 0.03}, height = 0.02, dx = 0.0005, layers = 1, workers = 0, falling = "particles" }
sim:terrain(vp.box{ min = {0, 0, 0}, max = {0.04, 0.03, 0.002} })
sim:source{ at = {0.01, 0.015, 0.003}, radius = 0.003, rate = 4e-6 }
sim:source{ at = {0.03, 0.015, 0.015}, radius = 0.001, rate = 1e-6 } -- falls: drops in the air
`
	run := func(overlap bool) ([]float32, int, int, bool) {
		var h []float32
		cfg := Config{Source: []byte(src), SourceName: "overlap.lua", Speed: Speed{Max: true}, Headless: true, Until: 1.5,
			Surface: true, Overlap: overlap, Final: func(sc *scene.Scene) error {
				h = append([]float32(nil), sc.Snapshot().Height...)
				return nil
			}}
		cfg.Script.Workers = -1
		p := &probe{}
		r := New(cfg, p.send)
		r.Run(context.Background())
		if err := r.Result().Err; err != nil {
			t.Fatalf("overlap %v: %v\n%s", overlap, err, p.logText())
		}
		tm := r.Timings()
		return h, tm.Simulation.Frames, tm.Surface.Frames, r.work.overlapped > 0
	}
	want, _, _, _ := run(false)
	got, frames, surfaces, tried := run(true)
	if !slices.Equal(got, want) {
		t.Fatal("the run with the overlap ends in another state than without it")
	}
	if !tried {
		t.Error("no frame overlapped")
	}
	if surfaces != frames {
		t.Errorf("%d frames and %d surfaces timed, want one each", frames, surfaces)
	}
}
