package engine

import (
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
)

// The UI's commands, each handled on the test's goroutine as Run handles them between
// two frames, on a runner whose scenario is loaded and which nothing else drives.

// commandRunner loads src (as name) into a runner that is not running.
func commandRunner(t *testing.T, name, src string, cfg Config) *Runner {
	t.Helper()
	cfg.Source, cfg.SourceName = []byte(src), name
	cfg.Script = script.Options{Workers: 1}
	r := New(cfg, func(any) {})
	r.load(false)
	t.Cleanup(func() {
		if r.sc != nil {
			r.sc.Close()
		}
	})
	logged(r) // the load's lines
	return r
}

// logged takes the lines logged since the last call.
func logged(r *Runner) []string {
	r.out.mu.Lock()
	defer r.out.mu.Unlock()
	var s []string
	for _, l := range r.out.pending {
		s = append(s, l.Text)
	}
	r.out.pending = nil
	return s
}

// wantLine fails unless exactly one line was logged and it contains text.
func wantLine(t *testing.T, r *Runner, what, text string) {
	t.Helper()
	if got := logged(r); len(got) != 1 || !strings.Contains(got[0], text) {
		t.Errorf("%s logged %q, want one line with %q", what, got, text)
	}
}

func TestCommandMarksTheStateOutOfDate(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	r.out.dirty = false
	r.handle(Command{Kind: CmdMapSize, Cols: -3, Rows: 7})
	if !r.out.dirty {
		t.Error("a command left the State as sent: the UI would not see its effect")
	}
	if r.mapCols != 0 || r.mapRows != 7 {
		t.Errorf("map size -3 x 7: %d x %d, want 0 x 7", r.mapCols, r.mapRows)
	}
}

func TestCommandQuitStopsDraining(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	r.cmds <- Command{Kind: CmdCycleSpeed}
	r.cmds <- Command{Kind: CmdQuit}
	r.cmds <- Command{Kind: CmdCycleSpeed}
	r.drain()
	if !r.quit || len(r.cmds) != 1 || r.pace.speed != Speeds[2] {
		t.Errorf("speed, quit, speed queued: quit %v, %d left queued, speed %v; want quit, the last one left, %v", r.quit, len(r.cmds), r.pace.speed, Speeds[2])
	}
}

func TestCommandCycleSpeed(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: RealTime})
	r.step(5)
	for i := range Speeds {
		want := Speeds[(i+1)%len(Speeds)]
		r.handle(Command{Kind: CmdCycleSpeed})
		if r.pace.speed != want {
			t.Fatalf("press %d: speed %v, want %v", i+1, r.pace.speed, want)
		}
		wantLine(t, r, "the speed key", "speed: "+want.String())
		if r.pace.baseSim != r.scene.Time() {
			t.Errorf("press %d: real-time pacing starts from t = %g s, want now (%g s)", i+1, r.pace.baseSim, r.scene.Time())
		}
	}
	r.pace.speed = Speed{Factor: 3} // --speed 3: not one of the key's
	r.handle(Command{Kind: CmdCycleSpeed})
	if r.pace.speed != Speeds[0] {
		t.Errorf("from a pace not in the list: %v, want %v", r.pace.speed, Speeds[0])
	}
}

func TestCommandTogglePause(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	r.handle(Command{Kind: CmdTogglePause})
	if r.status != StatusPaused {
		t.Fatalf("pause: status %v", r.status)
	}
	r.handle(Command{Kind: CmdTogglePause})
	if r.status != StatusRunning || len(logged(r)) != 0 {
		t.Fatalf("resume: status %v", r.status)
	}
	r.step(3)
	r.pace.until = r.scene.Time() // paused at --until
	r.setStatus(StatusPaused)
	r.handle(Command{Kind: CmdTogglePause})
	if r.status != StatusRunning || r.pace.until != 0 {
		t.Errorf("resume at --until: status %v, until %g; want running, no until", r.status, r.pace.until)
	}
	wantLine(t, r, "resuming at --until", "running on past --until")
	r.status = StatusFinished
	r.handle(Command{Kind: CmdTogglePause})
	if r.status != StatusFinished {
		t.Errorf("resume a finished run: status %v", r.status)
	}
	wantLine(t, r, "resuming a finished run", "cannot resume: the scenario is finished")
}

// TestCommandStep: the s key advances one frame (docs/tui.md): --frame-steps N steps,
// or else the steps to the next frame time k/FPS (the first step boundary at or after
// it), as the frames of a headless run end.
func TestCommandStep(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}, FrameSteps: 4})
	n0 := r.scene.Steps()
	r.handle(Command{Kind: CmdStep})
	if got := r.scene.Steps() - n0; got != 4 || r.status != StatusPaused {
		t.Errorf("frame-steps 4: a step took %d steps, status %v; want 4, paused", got, r.status)
	}
	for _, fps := range []float64{0, 60, 25} { // 0: DefaultFPS
		r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}, FPS: fps})
		want := fps
		if want == 0 {
			want = DefaultFPS
		}
		dt := r.scene.Dt()
		if dt*want >= 1 {
			t.Fatalf("dt %g s is a frame or more at %g frames a second: the test shows nothing", dt, want)
		}
		for k := 1; k <= 3; k++ {
			n0, t0 := r.scene.Steps(), r.scene.Time()
			r.handle(Command{Kind: CmdStep})
			frameEnd := float64(k) / want
			now := r.scene.Time()
			if r.status != StatusPaused || now < frameEnd-1e-9 || now-dt >= frameEnd-1e-9 || r.scene.Steps()-n0 < 1 {
				t.Errorf("fps %g, step %d: %d steps from t = %.6f s to %.6f s (dt %.6f s), status %v; want paused at the first step boundary at or after %.6f s",
					fps, k, r.scene.Steps()-n0, t0, now, dt, r.status, frameEnd)
			}
		}
	}
	r = commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	r.status = StatusFailed
	n0 = r.scene.Steps()
	r.handle(Command{Kind: CmdStep})
	if r.scene.Steps() != n0 {
		t.Error("a failed run stepped")
	}
	wantLine(t, r, "stepping a failed run", "cannot step: the scenario stopped on an error")
}

func TestCommandViscosity(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	nu := func() float64 { return r.scene.Settings().Solver.Viscosity }
	r.handle(Command{Kind: CmdViscosity, Factor: 2})
	if nu() != 8e-6 || r.scene.SolverSettings().Viscosity != 8e-6 {
		t.Errorf("4e-6 x 2: the scene has %g, the solver %g; want 8e-6", nu(), r.scene.SolverSettings().Viscosity)
	}
	wantLine(t, r, "x2", "viscosity 4e-06 -> 8e-06 m^2/s")
	r.handle(Command{Kind: CmdViscosity, Factor: 0})
	wantLine(t, r, "a factor of 0", "viscosity factor 0: it must be > 0")
	// scene.Change's own checks: an infinite viscosity is refused, naming the key's setting.
	r.handle(Command{Kind: CmdViscosity, Factor: math.Inf(1)})
	wantLine(t, r, "an infinite factor", "viscosity: viscosity is +Inf")
	if nu() != 8e-6 {
		t.Errorf("refused factors changed the viscosity to %g", nu())
	}
	if _, err := r.scene.Change(func(st *scene.Settings) { st.Solver.Viscosity = 0 }); err != nil {
		t.Fatal(err)
	}
	r.handle(Command{Kind: CmdViscosity, Factor: 0.5})
	if nu() != 0 {
		t.Errorf("0 / 2: %g, want 0", nu())
	}
	logged(r)
	r.handle(Command{Kind: CmdViscosity, Factor: 2})
	if nu() != minViscosity {
		t.Errorf("0 x 2: %g, want %g (water)", nu(), minViscosity)
	}
	wantLine(t, r, "0 x 2", "viscosity 0 -> 1e-06 m^2/s")
}

func TestCommandToggleFalling(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	for _, want := range []scene.Falling{scene.FallingOff, scene.FallingParticles} {
		old := r.scene.Settings().Solver.Falling
		r.handle(Command{Kind: CmdToggleFalling})
		if got := r.scene.SolverSettings().Falling; got != want {
			t.Errorf("falling %s toggled: the solver has %s, want %s", old, got, want)
		}
		wantLine(t, r, "the falling key", "falling: "+old.String()+" -> "+want.String())
	}
}

// TestCommandCapillarity: t turns the liquid's surface tension (on by default) off and on
// in the solver;
// a and A turn the contact angle by a step within [0, pi], the wetting head with it.
func TestCommandCapillarity(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	solver := func() scene.SolverSettings { return r.scene.SolverSettings() }
	if solver().SurfaceTension != 0.072 {
		t.Fatalf("surface tension %g at the start, want water's 0.072 (capillarity is on by default)", solver().SurfaceTension)
	}
	r.handle(Command{Kind: CmdToggleCapillarity})
	if got := solver().SurfaceTension; got != 0 {
		t.Errorf("capillarity off: surface tension %g", got)
	}
	wantLine(t, r, "capillarity off", "capillarity off")
	r.handle(Command{Kind: CmdToggleCapillarity})
	if got := solver().SurfaceTension; got != 0.072 {
		t.Errorf("capillarity on: the solver's surface tension is %g, want water's 0.072", got)
	}
	wantLine(t, r, "capillarity on", "wetting head 1.40 mm")
	step := 5 * math.Pi / 180
	r.handle(Command{Kind: CmdContactAngle, Factor: 6 * step})
	if got := solver().ContactAngle; math.Abs(got-60*math.Pi/180) > 1e-12 {
		t.Errorf("30 + 30 degrees: the solver's contact angle is %g rad", got)
	}
	wantLine(t, r, "A six times at once", "contact angle 30 -> 60 degrees: receding 50 degrees; puddles rest 2.29-2.71 mm thick")
	r.handle(Command{Kind: CmdContactAngle, Factor: -100 * step})
	if got := r.scene.Settings().Surface.ContactAngle; got != 0 {
		t.Errorf("far below 0: contact angle %g, want 0", got)
	}
	logged(r)
	r.handle(Command{Kind: CmdToggleCapillarity})
	if got := solver().SurfaceTension; got != 0 {
		t.Errorf("capillarity off: surface tension %g", got)
	}
	wantLine(t, r, "capillarity off", "capillarity off")
}

func TestCommandCycleLayer(t *testing.T) {
	two := `local sim = vp.sim{ size = {0.1, 0.05}, height = 0.04, dx = 0.005, layers = 2 }
sim:terrain(vp.difference(vp.box{ min = {0, 0, 0}, max = {0.1, 0.05, 0.02} }, vp.box{ min = {0.02, -1, 0.005}, max = {0.08, 1, 0.01} }))
`
	r := commandRunner(t, "two.lua", two, Config{Speed: Speed{Max: true}})
	for _, want := range []Layer{LayerAll, 1, 2, LayerTop} {
		r.handle(Command{Kind: CmdCycleLayer})
		if r.layer != want {
			t.Fatalf("layer key: %v, want %v", r.layer, want)
		}
		wantLine(t, r, "the layer key", "depth map: "+want.String())
	}
	r.layer = 5 // kept from a scenario with more layers
	r.handle(Command{Kind: CmdCycleLayer})
	if r.layer != LayerTop {
		t.Errorf("layer 5 of 2: the key moves to %v, want top", r.layer)
	}
	one := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	one.handle(Command{Kind: CmdCycleLayer})
	if one.layer != LayerTop {
		t.Errorf("one layer: the key moves to %v", one.layer)
	}
	wantLine(t, one, "the layer key on one layer", "the scene has one layer")
}

func TestCommandReload(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	r.step(10)
	old := r.scene
	r.handle(Command{Kind: CmdReload})
	if r.scene == old || r.scene.Time() != 0 || r.status != StatusRunning {
		t.Errorf("reload: the same scene %v, t = %g s, status %v; want a new scene at 0 s, running", r.scene == old, r.scene.Time(), r.status)
	}
	if got := logged(r); len(got) < 2 || got[0] != "reloading small.lua" {
		t.Errorf("reload logged %q, want \"reloading small.lua\" first", got)
	}
}

func TestCommandsWithoutAScenario(t *testing.T) {
	r := commandRunner(t, "bad.lua", "this is not lua\n", Config{Speed: Speed{Max: true}})
	if r.status != StatusNoScene {
		t.Fatalf("status %v after a failed load", r.status)
	}
	for _, c := range []struct {
		cmd  Command
		want string
	}{
		{Command{Kind: CmdTogglePause}, "cannot resume: no scenario is loaded"},
		{Command{Kind: CmdStep}, "cannot step: no scenario is loaded"},
		{Command{Kind: CmdViscosity, Factor: 2}, "cannot change the viscosity: no scenario is loaded"},
		{Command{Kind: CmdToggleFalling}, "cannot change falling: no scenario is loaded"},
		{Command{Kind: CmdContactAngle, Factor: 0.1}, "cannot change the contact angle: no scenario is loaded"},
		{Command{Kind: CmdToggleCapillarity}, "cannot change capillarity: no scenario is loaded"},
		{Command{Kind: CmdCycleLayer}, "the scene has one layer"},
	} {
		r.handle(c.cmd)
		wantLine(t, r, "command "+c.want, c.want)
	}
	if r.status != StatusNoScene {
		t.Errorf("status %v: commands without a scenario changed it", r.status)
	}
}

func TestCommandRecordNeedsThePreview(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	r.handle(Command{Kind: CmdRecord})
	got := logged(r)
	if r.rec.rec != nil || len(got) == 0 || !strings.Contains(got[len(got)-1], "recording: recording needs the preview host") {
		t.Errorf("the record key without a preview host: recording %v, logged %q", r.rec.rec != nil, got)
	}
}

// TestCommandToggleWaves: the W key turns the waves on and off through the scene's
// settings, says so in the log, and the state the UI draws follows.
func TestCommandToggleWaves(t *testing.T) {
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}})
	if r.scene.Settings().Waves || r.state().Waves {
		t.Fatal("waves on at the start: vp.sim's default is off")
	}
	r.handle(Command{Kind: CmdToggleWaves})
	if !r.scene.Settings().Waves || !r.state().Waves {
		t.Error("W: the waves did not turn on")
	}
	wantLine(t, r, "waves on", "waves on: drops landing make rings")
	r.handle(Command{Kind: CmdToggleWaves})
	if r.scene.Settings().Waves || r.state().Waves {
		t.Error("W again: the waves did not turn off")
	}
	wantLine(t, r, "waves off", "waves off")
}
