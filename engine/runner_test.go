package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
)

// small is a scenario that steps fast: 20 x 20 cells of 5 mm, a source pouring for 1 s.
// Line 7 prints; the error line is marked by errLine.
const small = `local sim = vp.sim{ size = {0.1, 0.1}, height = 0.04, dx = 0.005, dt = "auto", layers = 1,
  viscosity = vp.param("nu", 4e-6) }
sim:terrain(vp.box{ min = {0, 0, 0}, max = {0.1, 0.1, 0.005} })
sim:source{ at = {0.05, 0.05, 0.03}, radius = 0.01, rate = 5e-6, start = 0, stop = 1 }
sim:every(0.1, function()
  local st = sim:stats()
  print(string.format("t=%.1f volume=%.3f ml", sim:time(), st.volume * 1e6))
end)
`

// probe collects what a runner sends: the latest State and every log line.
type probe struct {
	mu     sync.Mutex
	st     State
	states int
	logs   []LogLine
}

func (p *probe) send(msg any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m := msg.(type) {
	case State:
		p.st = m
		p.states++
	case Log:
		p.logs = append(p.logs, m.Lines...)
	}
}

// waitState waits until ok holds for the latest State, and returns it.
func (p *probe) waitState(t *testing.T, what string, ok func(State) bool) State {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		st := p.st
		p.mu.Unlock()
		if ok(st) {
			return st
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t.Fatalf("timed out waiting for %s; last state: status %v t=%.3f steps %d err %q; log:\n%s", what, p.st.Status, p.st.Time, p.st.Steps, p.st.Err, p.logText())
	return State{}
}

// waitLog waits until a log line contains text, and returns it.
func (p *probe) waitLog(t *testing.T, text string) LogLine {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		for _, l := range p.logs {
			if strings.Contains(l.Text, text) {
				p.mu.Unlock()
				return l
			}
		}
		p.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t.Fatalf("no log line contains %q; log:\n%s", text, p.logText())
	return LogLine{}
}

func (p *probe) logText() string {
	var b strings.Builder
	for _, l := range p.logs {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

func writeFile(t *testing.T, path, src string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startRunner runs a runner on cfg until the test ends, and checks that it stops.
func startRunner(t *testing.T, cfg Config) (*Runner, *probe) {
	t.Helper()
	p := &probe{}
	if cfg.Script.Workers == 0 {
		cfg.Script.Workers = 1
	}
	r := New(cfg, p.send)
	ctx, cancel := context.WithCancel(context.Background())
	go r.Run(ctx)
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.Done():
		case <-time.After(10 * time.Second):
			t.Error("the runner did not stop within 10 s of its context's end")
		}
	})
	return r, p
}

func TestRunnerPauseStepViscosityQuit(t *testing.T) { pauseStepViscosityQuit(t, "cpu", "cpu") }

// pauseStepViscosityQuit runs the small scenario on backend (whose State.Backend is
// wantName) and drives the runner with
// pause, step, viscosity and quit. (runner_device_test.go runs it on the device backend's
// code, pipelined: a pause or a single step must show that step's own state.)
func pauseStepViscosityQuit(t *testing.T, backend, wantName string) {
	path := filepath.Join(t.TempDir(), "small.lua")
	writeFile(t, path, small)
	r, p := startRunner(t, Config{Path: path, Speed: Speed{Max: true}, Script: script.Options{Backend: backend}})
	st := p.waitState(t, "running with steps", func(s State) bool { return s.Status == StatusRunning && s.Steps > 10 })
	if st.Name != "small.lua" || st.Nx != 20 || st.Ny != 20 || st.Backend != wantName || st.Workers != 1 {
		t.Errorf("state: name %q grid %dx%d backend %q workers %d; want small.lua 20x20 %s 1", st.Name, st.Nx, st.Ny, st.Backend, st.Workers, wantName)
	}
	p.waitLog(t, "volume=")

	r.Commands() <- Command{Kind: CmdTogglePause}
	st = p.waitState(t, "paused", func(s State) bool { return s.Status == StatusPaused })
	time.Sleep(100 * time.Millisecond)
	p.mu.Lock()
	paused := p.st
	p.mu.Unlock()
	if paused.Steps != st.Steps {
		t.Errorf("the solver stepped while paused: %d -> %d steps", st.Steps, paused.Steps)
	}

	r.Commands() <- Command{Kind: CmdStep}
	stepped := p.waitState(t, "one more frame", func(s State) bool { return s.Steps != paused.Steps })
	// A frame: to the first step boundary at or after the next k/FPS.
	f := (math.Floor(paused.Time*DefaultFPS+1e-6) + 1) / DefaultFPS
	if stepped.Status != StatusPaused || stepped.Time < f-1e-9 || stepped.Time-stepped.Dt >= f-1e-9 {
		t.Errorf("step: t %.6g -> %.6g s (dt %g), status %v; want the frame's end at the first step at or after %.6g s, still paused",
			paused.Time, stepped.Time, stepped.Dt, stepped.Status, f)
	}

	nu := stepped.Settings.Viscosity
	r.Commands() <- Command{Kind: CmdViscosity, Factor: 2}
	p.waitState(t, "viscosity doubled", func(s State) bool { return s.Settings.Viscosity == 2*nu })
	r.Commands() <- Command{Kind: CmdViscosity, Factor: 0.5}
	p.waitState(t, "viscosity halved", func(s State) bool { return s.Settings.Viscosity == nu })
	p.waitLog(t, "viscosity 8e-06 -> 4e-06 m^2/s")
	r.Commands() <- Command{Kind: CmdToggleFalling}
	p.waitState(t, "falling off", func(s State) bool { return s.Settings.Falling == scene.FallingOff })
	p.waitLog(t, "falling: particles -> off")
	r.Commands() <- Command{Kind: CmdToggleFalling}
	p.waitState(t, "falling on", func(s State) bool { return s.Settings.Falling == scene.FallingParticles })

	r.Commands() <- Command{Kind: CmdTogglePause}
	p.waitState(t, "running again", func(s State) bool { return s.Status == StatusRunning && s.Steps > stepped.Steps })

	r.Commands() <- Command{Kind: CmdQuit}
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the runner did not stop on CmdQuit")
	}
}

func TestRunnerScriptErrorKeepsStateAndReloadRecovers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.lua")
	writeFile(t, path, small+"sim:at(0.2, function()\n  error(\"boom\")\nend)\n")
	r, p := startRunner(t, Config{Path: path, Speed: Speed{Max: true}})
	st := p.waitState(t, "the error", func(s State) bool { return s.Status == StatusFailed })
	if !strings.Contains(st.Err, "bad.lua:10:") || !strings.Contains(st.Err, "boom") {
		t.Errorf("error %q: want bad.lua:10: ... boom", st.Err)
	}
	if st.Time < 0.2-st.Dt || st.Time > 0.2+st.Dt || st.Volume <= 0 {
		t.Errorf("the state on screen after the error: t = %g s, volume %g; want the last good state at t = 0.2 s with liquid", st.Time, st.Volume)
	}
	if l := p.waitLog(t, "bad.lua:10:"); l.Level != LogError {
		t.Errorf("the error's log line has level %v; want LogError", l.Level)
	}
	r.Commands() <- Command{Kind: CmdStep}
	p.waitLog(t, "cannot step: the scenario stopped on an error")

	writeFile(t, path, small)
	r.Commands() <- Command{Kind: CmdReload}
	st = p.waitState(t, "running after reload", func(s State) bool { return s.Status == StatusRunning && s.Time > 0.3 })
	if st.Err != "" {
		t.Errorf("after a good reload the error is still %q", st.Err)
	}
}

func TestRunnerLoadErrorThenWatchReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "syntax.lua")
	writeFile(t, path, "local sim = vp.sim{ size = {0.1, 0.1}, dx = 0.005 }\nlocal x = = 1\n")
	_, p := startRunner(t, Config{Path: path, Watch: true, Speed: Speed{Max: true}})
	st := p.waitState(t, "not loaded", func(s State) bool { return s.Status == StatusNoScene })
	if !strings.HasPrefix(st.Err, path+":2:") {
		t.Errorf("load error %q: want %s:2: first", st.Err, path)
	}
	p.waitLog(t, "syntax.lua:2:")
	// A new size makes a new stamp even where the clock's resolution is coarse.
	writeFile(t, path, small+"\n-- fixed\n")
	p.waitLog(t, "syntax.lua changed")
	p.waitState(t, "running after the file changed", func(s State) bool { return s.Status == StatusRunning && s.Steps > 0 })
}

func TestRunnerReloadFailureKeepsTheRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keep.lua")
	writeFile(t, path, small)
	r, p := startRunner(t, Config{Path: path, Speed: Speed{Max: true}})
	p.waitState(t, "running", func(s State) bool { return s.Status == StatusRunning && s.Steps > 0 })
	writeFile(t, path, "this is not lua\n")
	r.Commands() <- Command{Kind: CmdReload}
	p.waitLog(t, "reload failed: the previous run goes on")
	p.mu.Lock()
	steps := p.st.Steps
	p.mu.Unlock()
	p.waitState(t, "the old run still stepping", func(s State) bool { return s.Status == StatusRunning && s.Steps > steps })
}

// TestRunnerRealTimePacing: the scenario steps far faster than real time, so the wall
// clock sets the pace and simulated time never runs ahead of it (by more than a step).
// How closely it follows depends on the machine and its load, so that is not asserted:
// the only bound on the wall time is a lower one (and a generous guard against a hang).
func TestRunnerRealTimePacing(t *testing.T) {
	start := time.Now()
	_, p := startRunner(t, Config{Source: []byte(small), SourceName: "small.lua", Speed: RealTime})
	for {
		p.mu.Lock()
		st := p.st
		p.mu.Unlock()
		wall := time.Since(start).Seconds() // after the state was sent: no earlier than its time
		if st.Time > wall+st.Dt {
			t.Fatalf("simulated time %.3f s ran ahead of the wall clock %.3f s in real-time mode", st.Time, wall)
		}
		if st.Time >= 0.6 {
			break
		}
		if wall > 60 {
			t.Fatalf("real-time mode reached only t = %.3f s in 60 s: the runner hangs", st.Time)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestRunnerAsFastAsPossibleFramesAtFPS: as fast as possible the frames fall at simulated
// times k/FPS (the first step boundary at or after each), whatever the wall clock does,
// and the run pauses at Until after Until*FPS frames. (BenchmarkRunnerAsFastAsPossible
// measures how fast.)
func TestRunnerAsFastAsPossibleFramesAtFPS(t *testing.T) {
	const fps, until = 60.0, 1.0
	var mu sync.Mutex
	var times []float64 // the simulated time of each OnFrame: the load's, then every frame's
	var dt float64
	onFrame := func(sc *scene.Scene) error {
		mu.Lock()
		defer mu.Unlock()
		times = append(times, sc.Time())
		dt = sc.Dt()
		return nil
	}
	_, p := startRunner(t, Config{Source: []byte(small), SourceName: "small.lua", Speed: Speed{Max: true}, FPS: fps, Until: until, OnFrame: onFrame})
	p.waitState(t, "paused at --until", func(s State) bool { return s.Status == StatusPaused })
	mu.Lock()
	defer mu.Unlock()
	if want := int(until*fps) + 1; len(times) != want || times[0] != 0 {
		t.Fatalf("%d OnFrame calls, the first at t = %g s; want %d: the load's at 0 s and %g frames", len(times), times[0], want, until*fps)
	}
	for k, tk := range times[1:] {
		target := min(float64(k+1)/fps, until)
		if tk < target-1e-9 || tk-dt >= target-1e-9 {
			t.Errorf("frame %d ends at t = %.6f s: want the first step boundary (dt %g s) at or after %.6f s", k+1, tk, dt, target)
		}
	}
}

// BenchmarkRunnerAsFastAsPossible is a headless run of the small scenario to 2 simulated
// seconds, as fast as possible, load included: sim-s/s is simulated seconds per wall
// second.
func BenchmarkRunnerAsFastAsPossible(b *testing.B) {
	for b.Loop() {
		r := New(Config{Source: []byte(small), SourceName: "small.lua", Speed: Speed{Max: true}, Headless: true, Until: 2,
			Script: script.Options{Workers: 1}}, func(any) {})
		r.Run(context.Background())
		if err := r.Result().Err; err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*float64(b.N)/b.Elapsed().Seconds(), "sim-s/s")
}

func TestRunnerSaysWhenItCannotKeepUp(t *testing.T) {
	_, p := startRunner(t, Config{Source: []byte(small), SourceName: "small.lua", Speed: Speed{Factor: 1e6}})
	st := p.waitState(t, "lagging", func(s State) bool { return s.Lagging })
	if st.Status != StatusRunning {
		t.Errorf("status %v while lagging; want running", st.Status)
	}
}

func TestRunnerUntilPauses(t *testing.T) {
	_, p := startRunner(t, Config{Source: []byte(small), SourceName: "small.lua", Speed: Speed{Max: true}, Until: 0.25})
	st := p.waitState(t, "paused at --until", func(s State) bool { return s.Status == StatusPaused })
	if st.Time < 0.25-1e-9 || st.Time >= 0.25+st.Dt {
		t.Errorf("paused at t = %g s; want the first step boundary at or after 0.25 s", st.Time)
	}
	p.waitLog(t, "--until 0.25")
}

func TestRunnerSurfaceIsTimed(t *testing.T) {
	_, p := startRunner(t, Config{Source: []byte(small), SourceName: "small.lua", Speed: Speed{Max: true}, Surface: true})
	st := p.waitState(t, "surface timings", func(s State) bool { return s.Total.Surface.Frames > 20 && s.Window.Surface.Frames > 0 })
	if st.Window.Surface.AvgMs <= 0 || st.Total.Surface.AvgMs <= 0 || st.Total.Surface.MaxMs < st.Total.Surface.AvgMs {
		t.Errorf("surface timings %+v / %+v: want positive averages, max >= avg", st.Window.Surface, st.Total.Surface)
	}
	if st.Frames < st.Total.Surface.Frames {
		t.Errorf("%d frames run; the totals count %d surface frames", st.Frames, st.Total.Surface.Frames)
	}
}

func TestRunnerLayerAndMapSize(t *testing.T) {
	src := `local sim = vp.sim{ size = {0.1, 0.05}, height = 0.04, dx = 0.005, layers = 2 }
sim:terrain(vp.difference(vp.box{ min = {0, 0, 0}, max = {0.1, 0.05, 0.02} }, vp.box{ min = {0.02, -1, 0.005}, max = {0.08, 1, 0.01} }))
`
	r, p := startRunner(t, Config{Source: []byte(src), SourceName: "two.lua", Speed: Speed{Max: true}})
	r.Commands() <- Command{Kind: CmdMapSize, Cols: 10, Rows: 10}
	st := p.waitState(t, "a 10 x 5 map", func(s State) bool { return s.Map.W == 10 })
	if st.Map.W != 10 || st.Map.H != 5 || st.Layers != 2 {
		t.Fatalf("map %dx%d pixels for a 20x10 grid in 10x10 characters, layers %d; want 10x5, 2 layers", st.Map.W, st.Map.H, st.Layers)
	}
	for _, want := range []Layer{LayerAll, 1, 2, LayerTop} {
		r.Commands() <- Command{Kind: CmdCycleLayer}
		p.waitState(t, "layer "+want.String(), func(s State) bool { return s.Layer == want && s.Map.Layer == want })
	}
}

func TestRunnerCancelledCallbackShowsFileLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loop.lua")
	writeFile(t, path, small+"sim:at(0.1, function()\n  while true do end\nend)\n")
	_, p := startRunner(t, Config{Path: path, Speed: Speed{Max: true},
		Script: script.Options{Workers: 1, CallbackTimeout: 100 * time.Millisecond}})
	st := p.waitState(t, "the cancelled callback", func(s State) bool { return s.Status == StatusFailed })
	if !strings.Contains(st.Err, "loop.lua:10:") || !strings.Contains(st.Err, "callback ran longer than 100ms") {
		t.Errorf("error %q: want loop.lua:10: ... callback ran longer than 100ms", st.Err)
	}
	if st.Time < 0.1-st.Dt || st.Volume <= 0 {
		t.Errorf("after the cancelled callback the state is t = %g s, volume %g: want the last good state", st.Time, st.Volume)
	}
}

// BenchmarkRunnerState is the runner's cost per state message on the demo's grid (200 x
// 200 cells): snapshot copy, volume sums, a 60 x 30 character depth map.
func BenchmarkRunnerState(b *testing.B) {
	src, err := os.ReadFile("../scripts/demo.lua")
	if err != nil {
		b.Fatal(err)
	}
	r := New(Config{Source: src, SourceName: "demo.lua", Script: script.Options{Workers: 1}}, func(any) {})
	r.load(false)
	defer r.sc.Close()
	r.mapCols, r.mapRows = 60, 30
	for range 300 {
		if _, err := r.sc.Advance(1); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		r.sc.Scene().Step(1) // a new published state, as between two messages
		b.StartTimer()
		_ = r.state()
	}
}

func TestRunnerLogReachesAnIdleUI(t *testing.T) {
	r, p := startRunner(t, Config{Source: []byte(small), SourceName: "small.lua", Speed: Speed{Max: true}, Until: 0.05})
	p.waitState(t, "paused at --until", func(s State) bool { return s.Status == StatusPaused })
	r.Log(LogInfo, "a message from the preview")
	p.waitLog(t, "a message from the preview")
}

// TestHeadlessUntilReachesWaitAndStats: a headless run to --until 1.5 with dt 3.03 ms
// (1.5 s is no step boundary) reaches 1.5 s, so vp.wait(1.5) returns; its frames fall at
// 60 a simulated second, one surface each; sim:stats() reads the runner's Table 1 clocks.
func TestHeadlessUntilReachesWaitAndStats(t *testing.T) {
	const src = `local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, dt = 0.00303, layers = 1 }
sim:source{ at = {0.01, 0.01, 0.005}, radius = 0.003, rate = 1e-6 }
function main()
  vp.wait(1.5)
  local st = sim:stats()
  print(string.format("waited %.5f frames %d", sim:time(), st.sim.frames))
end
`
	p := &probe{}
	r := New(Config{Source: []byte(src), SourceName: "wait.lua", Speed: Speed{Max: true}, Headless: true, Until: 1.5, Surface: true}, p.send)
	r.Run(context.Background())
	res := r.Result()
	if res.Err != nil {
		t.Fatalf("run: %v\n%s", res.Err, p.logText())
	}
	line := p.waitLog(t, "waited")
	var at float64
	var frames int
	if _, err := fmt.Sscanf(line.Text, "waited %g frames %d", &at, &frames); err != nil {
		t.Fatalf("%q: %v", line.Text, err)
	}
	if at < 1.5-1e-9 || at >= 1.5+0.00303 {
		t.Errorf("vp.wait(1.5) returned at %g s", at)
	}
	if res.State.Time < 1.5-1e-9 {
		t.Errorf("the run stopped at %g s, before --until 1.5", res.State.Time)
	}
	tm := r.Timings()
	if want := 90; tm.Surface.Frames < want-1 || tm.Surface.Frames > want+1 || tm.Simulation.Frames != tm.Surface.Frames {
		t.Errorf("%d simulation and %d surface frames in 1.5 s at 60 fps, want %d of each", tm.Simulation.Frames, tm.Surface.Frames, want)
	}
	// main runs inside the frame that reaches 1.5 s, before the runner counts it.
	if frames < 89 || frames > tm.Simulation.Frames {
		t.Errorf("sim:stats() at 1.5 s counted %d frames; the runner %d", frames, tm.Simulation.Frames)
	}
}
