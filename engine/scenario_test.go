package engine

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/terrain"
)

// bareScenario is a Scenario with no Lua behind it: a scene of 20 x 20 cells of 5 mm with
// a pool filled at the set-up, stepped as asked until doneAt steps ("main returns").
type bareScenario struct {
	sc      *scene.Scene
	doneAt  int64
	saved   []string // SaveCheckpoint's paths
	closed  bool
	advance error // returned by Advance once the scene reaches doneAt, when set
}

func newBareScenario(t *testing.T, doneAt int64) *bareScenario {
	t.Helper()
	cfg := scene.Config{Name: "bare", Domain: terrain.Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.04, Dx: 0.005}, Layers: 1,
		Settings: scene.DefaultSettings(), Workers: 1}
	sc, _, err := scene.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sc.SetTerrain(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Fill(0.05, 0.05, 0.001, 0.004); err != nil {
		t.Fatal(err)
	}
	return &bareScenario{sc: sc, doneAt: doneAt}
}

func (b *bareScenario) Scene() *scene.Scene         { return b.sc }
func (b *bareScenario) Name() string                { return "bare" }
func (b *bareScenario) Info() script.Info           { return script.Info{Info: b.sc.Info()} }
func (b *bareScenario) Reported() []script.Reported { return nil }
func (b *bareScenario) Close()                      { b.closed = true; b.sc.Close() }

func (b *bareScenario) SaveCheckpoint(path string) error {
	b.saved = append(b.saved, path)
	return nil
}

func (b *bareScenario) Advance(n int) (script.Advanced, error) {
	left := b.doneAt - b.sc.Steps()
	if left <= 0 {
		return script.Advanced{Done: true}, b.advance
	}
	n = int(min(int64(n), left))
	t0 := time.Now()
	b.sc.Step(n)
	a := script.Advanced{Steps: int64(n), Solver: time.Since(t0), Done: b.sc.Steps() >= b.doneAt}
	if a.Done && b.advance != nil {
		return a, b.advance
	}
	return a, nil
}

// TestRunnerWithoutLua: the runner drives a Scenario with no script behind it: a headless
// run to the end its scenario sets, its frames paced by simulated time, the volume of the
// filled pool kept, the final checkpoint asked of the scenario, and the scenario closed.
func TestRunnerWithoutLua(t *testing.T) {
	bare := newBareScenario(t, 300)
	v0 := bare.sc.Volume()
	var opts []script.Options
	cfg := Config{Headless: true, NoMap: true, Speed: Speed{Max: true},
		Checkpoints: Checkpoints{Path: filepath.Join(t.TempDir(), "end.vpc")},
		Load: func(opt script.Options) (Scenario, error) {
			opts = append(opts, opt)
			return bare, nil
		}}
	var p probe
	r := New(cfg, p.send)
	r.Run(context.Background())
	res := r.Result()
	if res.Err != nil || !res.Loaded {
		t.Fatalf("result: loaded %v, err %v; log:\n%s", res.Loaded, res.Err, p.logText())
	}
	if res.State.Status != StatusFinished || res.State.Steps != 300 {
		t.Errorf("ended %v after %d steps, want finished after 300", res.State.Status, res.State.Steps)
	}
	if dt := bare.sc.Dt(); math.Abs(res.State.Time-300*dt) > 1e-9 {
		t.Errorf("time %.9g s, want 300 dt = %.9g", res.State.Time, 300*dt)
	}
	if v := res.State.Volume; math.Abs(v-v0) > 1e-9*v0 {
		t.Errorf("volume %.12g m^3 at the end, %.12g filled", v, v0)
	}
	if len(opts) != 1 || opts[0].Print == nil || opts[0].Resume != "" {
		t.Errorf("loads %d (want 1), print hook set %v, resume %q", len(opts), len(opts) > 0 && opts[0].Print != nil, opts[0].Resume)
	}
	if len(bare.saved) != 1 || bare.saved[0] != cfg.Checkpoints.Path {
		t.Errorf("checkpoints asked: %v, want the final one at %s", bare.saved, cfg.Checkpoints.Path)
	}
	if !bare.closed {
		t.Error("the scenario was not closed")
	}
}

// TestRunnerResumeIsALoadOption: the checkpoint to resume from reaches the first load as
// a load option and is reported; a load that fails is the run's error, logged.
func TestRunnerResumeIsALoadOption(t *testing.T) {
	cp := filepath.Join(t.TempDir(), "from.vpc")
	if err := os.WriteFile(cp, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	bare := newBareScenario(t, 10)
	var got string
	cfg := Config{Headless: true, NoMap: true, Speed: Speed{Max: true}, Checkpoints: Checkpoints{Resume: cp},
		Load: func(opt script.Options) (Scenario, error) { got = opt.Resume; return bare, nil }}
	var p probe
	r := New(cfg, p.send)
	r.Run(context.Background())
	if got != cp {
		t.Errorf("the load's resume option is %q, want %q", got, cp)
	}
	p.waitLog(t, "resumed from "+cp)

	refused := errors.New("resume from.vpc: not a vpbench scenario checkpoint")
	cfg.Load = func(script.Options) (Scenario, error) { return nil, refused }
	var q probe
	r = New(cfg, q.send)
	r.Run(context.Background())
	if res := r.Result(); !errors.Is(res.Err, refused) || res.Loaded {
		t.Errorf("a refused load: err %v, loaded %v", res.Err, res.Loaded)
	}
	if !strings.Contains(q.logText(), "not a vpbench scenario checkpoint") {
		t.Errorf("the load's error is not in the log:\n%s", q.logText())
	}
}

// TestRunnerAdvanceErrorStopsTheRun: an error from Advance (a script error, in a real
// scenario) fails the run, and no final checkpoint is asked for (the last good one stays).
func TestRunnerAdvanceErrorStopsTheRun(t *testing.T) {
	bare := newBareScenario(t, 40)
	bare.advance = errors.New("bare.lua:3: attempt to index a nil value")
	cfg := Config{Headless: true, NoMap: true, Speed: Speed{Max: true}, Checkpoints: Checkpoints{Path: filepath.Join(t.TempDir(), "x.vpc")},
		Load: func(script.Options) (Scenario, error) { return bare, nil }}
	var p probe
	r := New(cfg, p.send)
	r.Run(context.Background())
	res := r.Result()
	if res.Err == nil || res.State.Status != StatusFailed {
		t.Fatalf("err %v, status %v: want the Advance error and a failed run", res.Err, res.State.Status)
	}
	if len(bare.saved) != 0 {
		t.Errorf("checkpoints asked after an error: %v", bare.saved)
	}
}
