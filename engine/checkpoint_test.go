package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
)

// ckRun is a headless run's messages and its last heights.
type ckRun struct {
	mu     sync.Mutex
	prints []string
	cps    []Checkpoint
	height []float32
	res    Result
}

// runHeadlessCk runs cfg headless (as fast as it can, one worker) until it stops, with
// cancel called (if set) when stop says so after a frame.
func runHeadlessCk(t *testing.T, cfg Config, stop func(sc *scene.Scene) bool) *ckRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &ckRun{}
	cfg.Headless, cfg.NoMap, cfg.Speed = true, true, Speed{Max: true}
	cfg.Script.Workers = 1
	cfg.Final = func(sc *scene.Scene) error {
		out.height = sc.Heights(nil)
		return nil
	}
	if stop != nil {
		cfg.OnFrame = func(sc *scene.Scene) error {
			if stop(sc) {
				out.height = sc.Heights(nil)
				cancel()
			}
			return nil
		}
	}
	r := New(cfg, func(msg any) {
		out.mu.Lock()
		defer out.mu.Unlock()
		switch m := msg.(type) {
		case Log:
			for _, l := range m.Lines {
				if l.Level == LogPrint || l.Level == LogWarn {
					out.prints = append(out.prints, l.Text)
				}
			}
		case Checkpoint:
			out.cps = append(out.cps, m)
		}
	})
	r.Run(ctx)
	out.res = r.Result()
	return out
}

// TestRunnerCheckpoints: a headless run with a checkpoint period writes a checkpoint at
// each period and a final one; a run resumed from a periodic one ends with the same
// heights, volume and prints as the run that was not interrupted.
func TestRunnerCheckpoints(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "small.lua")
	if err := os.WriteFile(path, []byte(small), 0o644); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "cp", "small.vpc")
	full := runHeadlessCk(t, Config{Path: path, Until: 0.6, Checkpoints: Checkpoints{Path: cp, Every: 0.25}}, nil)
	if full.res.Err != nil {
		t.Fatal(full.res.Err)
	}
	var periodic, final int
	for _, c := range full.cps {
		if c.Err != nil {
			t.Fatalf("checkpoint: %v", c.Err)
		}
		switch c.Kind {
		case CheckpointWritten:
			periodic++
		case CheckpointFinal:
			final++
		}
	}
	if periodic != 2 || final != 1 || math.Abs(full.cps[len(full.cps)-1].Time-full.res.State.Time) > 1e-12 {
		t.Fatalf("checkpoints %+v: want 2 periodic ones (0.25, 0.5 s) and a final one at %g s", full.cps, full.res.State.Time)
	}
	if !strings.Contains(full.cps[0].String(), "checkpoint written to "+cp+" (t = 0.25") {
		t.Errorf("message %q", full.cps[0])
	}

	// Stop a run at 0.3 s as Ctrl-C would: its final checkpoint is at the stop.
	stopped := runHeadlessCk(t, Config{Path: path, Until: 0.6, Checkpoints: Checkpoints{Path: cp}},
		func(sc *scene.Scene) bool { return sc.Time() >= 0.3 })
	if len(stopped.cps) != 1 || stopped.cps[0].Kind != CheckpointFinal || stopped.cps[0].Time < 0.3 || stopped.cps[0].Time > 0.4 {
		t.Fatalf("after a stop at 0.3 s: checkpoints %+v, want one final one", stopped.cps)
	}
	mark := 0
	for i, p := range full.prints {
		if strings.HasPrefix(p, "t=0.3") {
			mark = i + 1
		}
	}

	resumed := runHeadlessCk(t, Config{Path: path, Until: 0.6, Checkpoints: Checkpoints{Resume: cp}}, nil)
	if resumed.res.Err != nil {
		t.Fatal(resumed.res.Err)
	}
	if len(resumed.cps) != 1 || resumed.cps[0].Kind != CheckpointResumed || resumed.cps[0].Time != stopped.cps[0].Time {
		t.Errorf("resumed run's messages %+v", resumed.cps)
	}
	if resumed.res.From != stopped.cps[0].Time || full.res.From != 0 {
		t.Errorf("the runs started from t = %v s (resumed; want the checkpoint's %v) and %v (uninterrupted; want 0)", resumed.res.From, stopped.cps[0].Time, full.res.From)
	}
	if got, want := strings.Join(resumed.prints, "\n"), strings.Join(full.prints[mark:], "\n"); got != want {
		t.Errorf("prints after the checkpoint:\n%s\nwant:\n%s", got, want)
	}
	if resumed.res.State.Steps != full.res.State.Steps || math.Float64bits(resumed.res.State.Volume) != math.Float64bits(full.res.State.Volume) {
		t.Errorf("resumed run ends at step %d with %v m^3, the uninterrupted one at %d with %v", resumed.res.State.Steps, resumed.res.State.Volume, full.res.State.Steps, full.res.State.Volume)
	}
	for i := range full.height {
		if math.Float32bits(full.height[i]) != math.Float32bits(resumed.height[i]) {
			t.Fatalf("column %d: height %v resumed, %v uninterrupted", i, resumed.height[i], full.height[i])
		}
	}

	// A refused checkpoint is a load error naming the file.
	other := filepath.Join(dir, "other.lua")
	if err := os.WriteFile(other, []byte(small+"\n-- changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := runHeadlessCk(t, Config{Path: other, Until: 0.6, Checkpoints: Checkpoints{Resume: cp}}, nil)
	if bad.res.Loaded || bad.res.Err == nil || !strings.Contains(bad.res.Err.Error(), "small.vpc was written by small.lua, not other.lua") {
		t.Errorf("resume of another script: loaded %v, err %v", bad.res.Loaded, bad.res.Err)
	}
}

// TestRunnerCheckpointNotOnError: a run stopped by a script error writes no final
// checkpoint over the last good one.
func TestRunnerCheckpointNotOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fail.lua")
	src := small + "sim:at(0.35, function() error(\"boom\") end)\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "fail.vpc")
	run := runHeadlessCk(t, Config{Path: path, Until: 1, Checkpoints: Checkpoints{Path: cp, Every: 0.2}}, nil)
	if run.res.Err == nil {
		t.Fatal("no error")
	}
	if len(run.cps) != 1 || run.cps[0].Kind != CheckpointWritten {
		t.Fatalf("checkpoints %+v, want the one at 0.2 s only", run.cps)
	}
	sc, err := script.Load(path, script.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if err := sc.ResumeFile(cp); err != nil {
		t.Fatal(err)
	}
	if tm := sc.Scene().Time(); tm < 0.2 || tm > 0.3 {
		t.Errorf("the file holds t = %g s, want the periodic checkpoint at 0.2 s", tm)
	}
	if err := (Checkpoints{Every: 1}).Validate(); err == nil {
		t.Error("a period without a file is accepted")
	}
}
