package engine

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/vpbench/vpbench/scene"
)

// TestOverlapTuner: the tuner overlaps while the liquid settles, tries both ways, keeps
// the way whose frame is cheaper by the parts' times (overlapped: the larger part; in
// step: their sum over their speed-ups), changes its mind when the parts change, and
// tries both again after tuneAgain frames.
func TestOverlapTuner(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	// feed runs frames of 5 steps whose solver and surface take sim and surf ms on their
	// shares (overlapped) and simAll and surfAll on all cores (in step).
	feed := func(tu *overlapTuner, frames int, sim, surf, simAll, surfAll float64) (overlapped int) {
		for range frames {
			if tu.overlap() {
				overlapped++
				tu.observe(ms(sim), ms(surf), 5)
			} else {
				tu.observe(ms(simAll), ms(surfAll), 5)
			}
		}
		return overlapped
	}
	var tu overlapTuner
	if n := feed(&tu, tuneSettle, 4, 4, 3, 3); n != tuneSettle {
		t.Fatalf("%d of the first %d frames overlapped, want all (the liquid settles)", n, tuneSettle)
	}
	// The trial: both ways, tuneWarm+tuneFrames frames each.
	if n := feed(&tu, 2*(tuneWarm+tuneFrames), 4, 4, 3, 3); n != tuneWarm+tuneFrames {
		t.Fatalf("%d of the trial's %d frames overlapped, want half", n, 2*(tuneWarm+tuneFrames))
	}
	// Balanced parts: overlapped 4 ms a frame, in step 6.
	if n := feed(&tu, 50, 4, 4, 3, 3); n != 50 {
		t.Errorf("balanced parts (overlapped 4 ms, in step 6): %d of 50 frames overlapped, want all", n)
	}
	// The surface shrinks to almost nothing and the solver spreads well: overlapped it
	// costs 4 ms a frame (the solver on its share), in step 2.2.
	feed(&tu, 30, 4, 0.4, 2, 0.2)
	if n := feed(&tu, 20, 4, 0.4, 2, 0.2); n != 0 {
		t.Errorf("a small surface beside a solver that spreads well: %d of 20 frames overlapped, want none", n)
	}
	// The surface grows back: its time, seen in step, predicts the overlap cheaper again.
	feed(&tu, 40, 4, 4, 3, 3)
	if n := feed(&tu, 20, 4, 4, 3, 3); n != 20 {
		t.Errorf("balanced again: %d of 20 frames overlapped, want all", n)
	}
	// A solver that spreads well from the start: the trial itself chooses the frame in step.
	var tv overlapTuner
	feed(&tv, tuneSettle+2*(tuneWarm+tuneFrames), 2, 3, 1, 1.5) // overlapped 3, in step 2.5
	if n := feed(&tv, 50, 2, 3, 1, 1.5); n != 0 {
		t.Errorf("overlapped 3 ms, in step 2.5: %d of 50 frames overlapped, want none", n)
	}
	// The trial comes again after tuneAgain frames.
	if n := feed(&tv, tuneAgain, 2, 3, 1, 1.5); n != tuneWarm+tuneFrames {
		t.Errorf("over tuneAgain frames %d overlapped, want the new trial's %d", n, tuneWarm+tuneFrames)
	}
}

// TestRunnerOverlapSameRun: a headless run with the overlap on (its 90 frames: 30 to
// settle, the tuner's trial of both ways, then its choice) ends in the state of the same
// run without it, bit for bit, every frame's surface timed once (a surface still in
// flight when the frames go back in step is its own frame's).
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
		var on bool
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
		on = r.work.tune.sim != [2]time.Duration{} || r.work.tune.phase > 1
		return h, tm.Simulation.Frames, tm.Surface.Frames, on
	}
	want, _, _, _ := run(false)
	got, frames, surfaces, tried := run(true)
	if !slices.Equal(got, want) {
		t.Fatal("the run with the overlap ends in another state than without it")
	}
	if !tried {
		t.Error("the tuner never ran its trial: the overlap was not tried")
	}
	if surfaces != frames {
		t.Errorf("%d frames and %d surfaces timed, want one each", frames, surfaces)
	}
}
