package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/internal/filestamp"
	"github.com/vpbench/vpbench/preview"
	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/timing"
)

const (
	// DefaultSendInterval is the least time between two State messages while the solver
	// runs: the UI is redrawn at most 25 times a second whatever the solver does.
	DefaultSendInterval = 40 * time.Millisecond
	// WindowSeconds is the wall time the "recent" timings and rates cover.
	WindowSeconds = 2.0
	// sparkLen is how many state intervals the sparkline remembers.
	sparkLen = 120
	// watchInterval is how often the scenario file is checked for changes.
	watchInterval = 300 * time.Millisecond
)

// Config says what the runner runs and how.
type Config struct {
	// Path is the scenario file; "" runs Source (the built-in demo) named SourceName.
	Path       string
	Source     []byte
	SourceName string
	// Script are the load options. The runner sets Print (to its log), Timings (its
	// Table 1 clocks) and Screenshot (the preview, through Shooter).
	Script script.Options
	// FPS is the frames a second (0: DefaultFPS): per wall second in real time, per
	// simulated second as fast as possible. Each frame builds at most one surface.
	FPS float64
	// FrameSteps > 0 fixes the solver steps a frame instead (the paper's Table 1 frames).
	FrameSteps int
	// Until stops the run at this simulated time (0: never): the first step boundary at
	// or after it. The UI pauses there; a headless run ends.
	Until float64
	// Watch reloads the scenario when its file changes.
	Watch bool
	// Speed is the pace at the start (the zero value is real time).
	Speed Speed
	// Surface builds the liquid surface every frame (Table 1's surface column); it is
	// built anyway while the preview wants frames.
	Surface bool
	// Export writes the surface every Export.Every frames (implies Surface).
	Export Export
	// Preview, if set, receives a frame (surface and terrain) every frame while a window
	// or a screenshot wants one, and gives back the window's camera and meniscus switch
	// and its render times.
	Preview *preview.Source
	// Shooter draws sim:screenshot's pictures (nil: sim:screenshot says the preview is
	// needed).
	Shooter Shooter
	// Notes are logged first, as warnings (what the command could not set up).
	Notes []string
	// Headless ends Run as soon as the run stops by itself: Until reached, main returned,
	// a script error, or a script that does not load (Result says which).
	Headless bool
	// Final, if set, runs on the runner's goroutine once a headless run has stopped
	// without error, before the scenario closes (render draws its picture there).
	Final func(sc *scene.Scene) error
	// OnFrame, if set, runs on the runner's goroutine after a load (simulated time 0,
	// before any step) and after every frame, the scenario synchronised (render draws a
	// clip's pictures there). An error stops the run as a script error does.
	OnFrame func(sc *scene.Scene) error
	// SendInterval is the least wall time between two State messages while running (0:
	// DefaultSendInterval). Log lines go out with the next State, at once when idle, and
	// after every frame in a headless run.
	SendInterval time.Duration
	// NoMap leaves the depth map out of the States (a headless run shows none).
	NoMap bool
}

// Result is how a headless run ended: the last state, the scenario's description, the
// Table 1 clocks, the frames' whole wall time, and the error that stopped it.
type Result struct {
	State State
	Info  script.Info
	// Total is the frames' whole wall time (steps, callbacks, surface) per frame.
	Total timing.PhaseClock
	// Wall is the wall time from the end of the load to the end of the run.
	Wall time.Duration
	// Err is the load error, the script error that stopped the run, or Final's.
	Err error
	// Loaded tells whether the scenario loaded (Info and the state's figures are valid).
	Loaded bool
}

// Runner owns the scenario: it loads, steps and reloads it on its own goroutine (Run),
// takes Commands through a channel and reports only through Config.Send, which receives
// State and Log values. Nothing it owns is shared: a State is a copy.
type Runner struct {
	cfg  Config
	cmds chan Command
	wake chan struct{} // Log's nudge to an idle runner
	send func(any)
	done chan struct{}

	sc      *script.Scenario // the script: its scheduler steps the scene (Advance)
	scene   *scene.Scene     // the world the script set up: what the frames draw
	status  Status
	errText string
	err     error
	stamp   filestamp.Stamp
	frame   int
	quit    bool
	result  Result

	pace              pacer
	work              frameWork
	layer             Layer
	mapCols, mapRows  int
	lastSend          time.Time
	dirty             bool // something changed that the UI has not been sent
	nextWatch         time.Time
	watchErr          string
	snap              gpusim.Snapshot
	win               window
	logMu             sync.Mutex
	pending           []LogLine
	statsTime, statsN int64 // runner overhead: time spent building state messages, count

	// Table 1's clocks (since the load): the solver per frame and its steps, the surface
	// per frame that built one, the render per drawn frame (the preview's goroutine
	// records those, hence the lock), and each frame's whole wall time.
	clockMu    sync.Mutex
	simClock   timing.PhaseClock
	steps      int64
	surfClock  timing.PhaseClock
	render     timing.PhaseClock
	totalClock timing.PhaseClock
	runStart   time.Time
	rec        *recording // the clip being recorded, if any (record.go)
}

// New makes a runner; it does nothing until Run. send receives State, Log and (headless) Progress values
// (Program.Send for the UI); it may block while the receiver is busy, never the other way
// round.
func New(cfg Config, send func(any)) *Runner {
	if cfg.SourceName == "" {
		cfg.SourceName = "demo.lua"
	}
	if !cfg.Speed.Max && cfg.Speed.Factor <= 0 {
		cfg.Speed = RealTime
	}
	if cfg.FPS <= 0 {
		cfg.FPS = DefaultFPS
	}
	if cfg.SendInterval <= 0 {
		cfg.SendInterval = DefaultSendInterval
	}
	if cfg.Export.Every > 0 {
		cfg.Surface = true
	}
	r := &Runner{cfg: cfg, cmds: make(chan Command, 64), wake: make(chan struct{}, 1), send: send, done: make(chan struct{}),
		mapCols: 80, mapRows: 12}
	r.pace = pacer{speed: cfg.Speed, fps: cfg.FPS, frameSteps: cfg.FrameSteps, until: cfg.Until}
	r.work = frameWork{surface: cfg.Surface, export: cfg.Export, src: cfg.Preview}
	if cfg.NoMap {
		r.mapCols, r.mapRows = 0, 0
	}
	if cfg.Preview != nil {
		cfg.Preview.OnRender(r.recordRender)
	}
	return r
}

// Result is how a headless run ended; valid once Done is closed.
func (r *Runner) Result() Result { return r.result }

// Commands is where the UI sends its requests. The channel is buffered; a sender that
// must not block (the UI's Update) should drop a command when it is full.
func (r *Runner) Commands() chan<- Command { return r.cmds }

// Done is closed when Run has returned and the scenario is closed.
func (r *Runner) Done() <-chan struct{} { return r.done }

// Overhead is the mean wall time the runner spent building one state message (snapshot
// copy, volume sums, depth map) and how many it built. Call it once Done is closed.
func (r *Runner) Overhead() (time.Duration, int64) {
	if r.statsN == 0 {
		return 0, 0
	}
	return time.Duration(r.statsTime / r.statsN), r.statsN
}

// Run loads the scenario and runs it until ctx ends or CmdQuit arrives (or, headless,
// until the run stops by itself); then it closes the scenario and returns. Call it once,
// on its own goroutine.
func (r *Runner) Run(ctx context.Context) {
	defer close(r.done)
	defer func() {
		if r.sc != nil {
			r.finish(ctx)
			r.sc.Close()
			r.sc, r.scene = nil, nil
		}
		r.flush()
	}()
	for _, n := range r.cfg.Notes {
		r.logf(LogWarn, "%s", n)
	}
	r.load(false)
	r.flush()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for !r.quit && ctx.Err() == nil {
		r.drain()
		if r.quit {
			break
		}
		if r.cfg.Headless && r.status != StatusRunning {
			break
		}
		r.pollWatch()
		if r.status != StatusRunning {
			r.flush()
			r.idle(ctx, timer, r.watchWait())
			continue
		}
		steps, wait := r.plan()
		if steps == 0 {
			r.flushIfDue()
			if wait > 0 {
				r.idle(ctx, timer, min(wait, r.cfg.SendInterval))
			}
			continue
		}
		r.step(steps)
		r.flushIfDue()
	}
	if ctx.Err() != nil && r.err == nil && r.status == StatusRunning {
		r.err = ctx.Err()
	}
}

// finish ends a run: the last frame's state is published, the result recorded and, for
// a headless run that stopped by itself without error, Final runs.
func (r *Runner) finish(ctx context.Context) {
	r.scene.Sync()
	defer r.stopRecording() // after Final: what was recorded is kept
	if r.cfg.Headless && r.err == nil && ctx.Err() == nil && r.cfg.Final != nil {
		if err := r.cfg.Final(r.scene); err != nil {
			r.err = err
			r.logf(LogError, "%v", err)
		}
	}
	r.dirty = true
	r.result.Wall = time.Since(r.runStart)
	r.result.State = r.state()
	r.result.Info = r.sc.Info()
	r.clockMu.Lock()
	r.result.Total = r.totalClock
	r.clockMu.Unlock()
	r.result.Err = r.err
	r.result.Loaded = true
}

// idle waits for a command, ctx, or d (forever when d <= 0), handling the command.
func (r *Runner) idle(ctx context.Context, timer *time.Timer, d time.Duration) {
	var tc <-chan time.Time
	if d > 0 {
		timer.Reset(d)
		tc = timer.C
		defer timer.Stop()
	}
	select {
	case <-ctx.Done():
	case c := <-r.cmds:
		r.handle(c)
	case <-r.wake:
	case <-tc:
	}
}

// Log adds a line to the UI's log from any goroutine (the preview's messages, say). It
// reaches the screen with the runner's next message, at once when the runner is idle.
func (r *Runner) Log(level LogLevel, msg string) {
	r.logMu.Lock()
	r.pending = append(r.pending, LogLine{Level: level, Text: msg})
	r.logMu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// watchWait is how long an idle runner may sleep before it checks the file again.
func (r *Runner) watchWait() time.Duration {
	if !r.cfg.Watch || r.cfg.Path == "" {
		return 0
	}
	return max(time.Until(r.nextWatch), time.Millisecond)
}

// drain handles every command already queued.
func (r *Runner) drain() {
	for {
		select {
		case c := <-r.cmds:
			r.handle(c)
			if r.quit {
				return
			}
		default:
			return
		}
	}
}

// plan is the pacer's decision for now: the steps of a frame due now, or how long to
// wait. At Until the run pauses (the UI) or ends (headless).
func (r *Runner) plan() (steps int, wait time.Duration) {
	t, dt := r.scene.Time(), r.scene.Sim().Dt()
	if r.pace.atUntil(t, dt) {
		r.setStatus(StatusPaused)
		r.logf(LogInfo, "paused at t = %.6g s (--until %g)", t, r.cfg.Until)
		return 0, 0
	}
	lagging := r.pace.lagging(time.Now())
	steps, wait = r.pace.plan(time.Now(), t, dt)
	if r.pace.lagging(time.Now()) != lagging {
		r.dirty = true
	}
	return steps, wait
}

// rebase restarts real-time pacing from the current simulated time.
func (r *Runner) rebase() {
	t := 0.0
	if r.scene != nil {
		t = r.scene.Time()
	}
	r.pace.rebase(time.Now(), t)
}

// step runs one frame of n solver steps (fewer when main returns or a script error
// stops the run): Advance until the steps are done (it stops early where a callback is
// due), then the frame's surface work, then the bookkeeping.
func (r *Runner) step(n int) {
	sc, world := r.sc, r.scene
	t0, n0 := world.Time(), world.Sim().Steps()
	start := time.Now()
	var simDur time.Duration
	var done bool
	var err error
	for taken := 0; taken < n; {
		done, err = sc.Advance(n - taken)
		simDur += sc.LastAdvance()
		taken = int(world.Sim().Steps() - n0)
		if done || err != nil || sc.LastAdvance() == 0 {
			break
		}
	}
	stepped := world.Sim().Steps() - n0
	r.pace.observe(simDur, stepped)
	var surfDur time.Duration
	if err == nil && stepped > 0 {
		r.frame++
		var ferr error
		surfDur, ferr = r.work.do(world, r.frame)
		if ferr != nil {
			r.err = ferr
			r.logf(LogError, "%v", ferr)
			r.setStatus(StatusPaused)
			if r.cfg.Headless {
				r.setStatus(StatusFailed)
			}
		}
	}
	if stepped > 0 {
		r.clockMu.Lock()
		r.simClock.Add(simDur)
		r.steps += stepped
		if surfDur > 0 {
			r.surfClock.Add(surfDur)
		}
		r.totalClock.Add(time.Since(start) - r.work.prep)
		r.clockMu.Unlock()
	}
	if r.status != StatusRunning || done || err != nil {
		world.Sync() // a single step, or the end: show its own state
	}
	r.win.addFrame(world.Time()-t0, stepped, simDur, surfDur)
	r.dirty = true
	switch {
	case err != nil:
		r.fail(err)
	case done:
		r.setStatus(StatusFinished)
		r.logf(LogInfo, "main returned at t = %.3f s: the scenario is finished (r reloads it)", world.Time())
	}
	if err == nil && stepped > 0 {
		r.frameHook()
		r.recordAfterFrame()
	}
	if r.cfg.Headless {
		r.flushLog()
		if stepped > 0 {
			r.send(Progress{Time: world.Time(), Steps: world.Sim().Steps()})
		}
	}
}

// recordRender adds one drawn frame's render time to Table 1 (from any goroutine).
func (r *Runner) recordRender(d time.Duration) {
	r.clockMu.Lock()
	r.render.Add(d)
	r.clockMu.Unlock()
}

// Timings are Table 1's clocks since the load (sim:stats() reads them too). Safe from
// any goroutine.
func (r *Runner) Timings() timing.Timings {
	r.clockMu.Lock()
	defer r.clockMu.Unlock()
	return timing.Timings{Simulation: r.simClock.Timing(), Surface: r.surfClock.Timing(), Render: r.render.Timing(), Steps: r.steps}
}

// resetClocks starts Table 1 over (a new load).
func (r *Runner) resetClocks() {
	r.clockMu.Lock()
	r.simClock, r.surfClock, r.render, r.totalClock, r.steps = timing.PhaseClock{}, timing.PhaseClock{}, timing.PhaseClock{}, timing.PhaseClock{}, 0
	r.clockMu.Unlock()
}

// fail stops the scenario on a script error; the last state stays on screen.
func (r *Runner) fail(err error) {
	r.err = err
	r.errText = err.Error()
	r.setStatus(StatusFailed)
	r.logf(LogError, "%s", r.errText)
	r.logf(LogInfo, "the scenario stopped; the last state stays on screen. Fix the script and reload (r)")
}

func (r *Runner) setStatus(s Status) {
	if r.status == s {
		return
	}
	if s != StatusRunning && r.scene != nil {
		r.scene.Sync() // show the last frame's state, not the one before it (pipelined)
	}
	if s == StatusRunning {
		r.rebase()
		r.win.reset()
	}
	r.status = s
	r.dirty = true
}

// handle carries out one command from the UI.
func (r *Runner) handle(c Command) {
	r.dirty = true
	switch c.Kind {
	case CmdQuit:
		r.quit = true
	case CmdMapSize:
		r.mapCols, r.mapRows = max(c.Cols, 0), max(c.Rows, 0)
	case CmdCycleLayer:
		r.cycleLayer()
	case CmdReload:
		r.load(true)
	case CmdTogglePause:
		switch r.status {
		case StatusRunning:
			r.setStatus(StatusPaused)
		case StatusPaused:
			if r.pace.atUntil(r.scene.Time(), r.scene.Sim().Dt()) {
				r.pace.until = 0
				r.logf(LogInfo, "running on past --until")
			}
			r.setStatus(StatusRunning)
		default:
			r.explainStopped("resume")
		}
	case CmdStep:
		if r.status != StatusRunning && r.status != StatusPaused {
			r.explainStopped("step")
			return
		}
		r.setStatus(StatusPaused)
		r.step(max(r.cfg.FrameSteps, 1)) // a single step may go past --until
	case CmdCycleSpeed:
		i := 0
		for k, s := range Speeds {
			if s == r.pace.speed {
				i = k + 1
			}
		}
		r.pace.speed = Speeds[i%len(Speeds)]
		r.rebase()
		r.win.reset()
		r.logf(LogInfo, "speed: %s", r.pace.speed)
	case CmdViscosity:
		r.scaleViscosity(c.Factor)
	case CmdRecord:
		r.toggleRecording()
	case CmdToggleFalling:
		r.toggleFalling()
	}
}

// explainStopped logs why a key that needs a running scenario did nothing.
func (r *Runner) explainStopped(what string) {
	switch r.status {
	case StatusFinished:
		r.logf(LogInfo, "cannot %s: the scenario is finished (main returned); r reloads it", what)
	case StatusFailed:
		r.logf(LogInfo, "cannot %s: the scenario stopped on an error; fix the script and reload (r)", what)
	default:
		r.logf(LogInfo, "cannot %s: no scenario is loaded; fix the script and reload (r)", what)
	}
}

func (r *Runner) cycleLayer() {
	layers := 1
	if r.scene != nil {
		layers = r.scene.Layers()
	}
	if layers <= 1 {
		r.layer = LayerTop
		r.logf(LogInfo, "the scene has one layer: the depth map shows it")
		return
	}
	switch {
	case r.layer == LayerTop:
		r.layer = LayerAll
	case r.layer == LayerAll:
		r.layer = 1
	case int(r.layer) >= layers:
		r.layer = LayerTop
	default:
		r.layer++
	}
	r.logf(LogInfo, "depth map: %s", r.layer)
}

// minViscosity is where the viscosity key starts from 0 (water's 1e-6 m^2/s).
const minViscosity = 1e-6

// toggleFalling turns falling particles off, or on (the d key). Particles in the air
// when it goes off still land.
func (r *Runner) toggleFalling() {
	if r.sc == nil || r.status == StatusNoScene || r.status == StatusLoading {
		r.explainStopped("change falling")
		return
	}
	var old, now gpusim.Falling
	if !r.change("falling", func(st *scene.Settings) {
		old = st.Solver.Falling
		st.Solver.Falling = gpusim.FallingParticles
		if old == gpusim.FallingParticles {
			st.Solver.Falling = gpusim.FallingOff
		}
		now = st.Solver.Falling
	}) {
		return
	}
	r.logf(LogInfo, "falling: %s -> %s", old, now)
}

func (r *Runner) scaleViscosity(f float64) {
	if r.sc == nil || r.status == StatusNoScene || r.status == StatusLoading {
		r.explainStopped("change the viscosity")
		return
	}
	if !(f > 0) {
		r.logf(LogError, "viscosity factor %v: it must be > 0", f)
		return
	}
	var old, now float64
	if !r.change("viscosity", func(st *scene.Settings) {
		old = st.Solver.Viscosity
		st.Solver.Viscosity = old * f
		if old == 0 && f > 1 {
			st.Solver.Viscosity = minViscosity
		}
		now = st.Solver.Viscosity
	}) {
		return
	}
	r.logf(LogInfo, "viscosity %g -> %g m^2/s", old, now)
}

// change changes a setting through the scene's one entry point (scene.Change), as
// sim:set does: the same checks, the same warnings (logged). It reports whether the
// change was made; an error is logged, naming what.
func (r *Runner) change(what string, edit func(*scene.Settings)) bool {
	warnings, err := r.scene.Change(edit)
	if err != nil {
		r.logf(LogError, "%s: %v", what, err)
		return false
	}
	for _, w := range warnings {
		r.logf(LogWarn, "%s", w)
	}
	return true
}

// load loads the scenario (again, when reload): on success the new one replaces the old;
// on failure the error goes to the log and the old one, if any, goes on as it was.
func (r *Runner) load(reload bool) {
	name := r.cfg.SourceName
	if r.cfg.Path != "" {
		name = r.cfg.Path
		if st, err := filestamp.Of(r.cfg.Path); err == nil {
			r.stamp = st
		}
		r.nextWatch = time.Now().Add(watchInterval)
	}
	verb := "loading"
	if reload {
		verb = "reloading"
	}
	r.logf(LogInfo, "%s %s", verb, name)
	opt := r.cfg.Script
	opt.Print = r.print
	opt.Timings = r.Timings
	opt.Screenshot = r.work.screenshot(r.cfg.Shooter, r.recordRender)
	opt.Record = func(path string, fps float64) (func() error, error) {
		if err := r.startRecording(path, fps); err != nil {
			return nil, err
		}
		rec := r.rec
		return func() error {
			if r.rec != rec { // already stopped (or failed), or another one runs
				return nil
			}
			if err := r.recordFrame(r.scene); err != nil { // the picture due now, if one is
				r.stopRecording()
				return err
			}
			return r.stopRecording()
		}, nil
	}
	var sc *script.Scenario
	var err error
	t0 := time.Now()
	if r.cfg.Path == "" {
		sc, err = script.LoadSource(r.cfg.SourceName, r.cfg.Source, opt)
	} else {
		sc, err = script.Load(r.cfg.Path, opt)
	}
	if err != nil {
		r.logf(LogError, "%v", err)
		if r.sc != nil {
			r.logf(LogInfo, "reload failed: the previous run goes on as it was")
			return
		}
		r.errText = err.Error()
		r.result.Err = err
		r.setStatus(StatusNoScene)
		return
	}
	if r.sc != nil {
		r.stopRecording() // the clip of the old run is kept
		r.sc.Close()
	}
	r.sc, r.scene, r.errText, r.err, r.frame = sc, sc.Scene(), "", nil, 0
	r.work.builder = nil
	r.resetClocks()
	r.runStart = time.Now()
	// On a device backend a frame's steps run while the previous frame is drawn; setStatus
	// and step wait for them when the run stops (Sync).
	r.scene.SetPipelined(true)
	r.win = window{spark: r.win.spark}
	in := sc.Info()
	if int(r.layer) > in.Layers {
		r.layer = LayerTop
	}
	r.logf(LogInfo, "%s loaded in %.0f ms: %dx%d cells, %d layer(s), dx %g m, dt %.3g ms, %s",
		sc.Name(), time.Since(t0).Seconds()*1e3, in.Nx, in.Ny, in.Layers, in.Dx, in.Dt*1e3, BackendName(in.Backend, in.Workers))
	r.status = StatusLoading
	r.setStatus(StatusRunning)
	r.frameHook()
}

// frameHook runs Config.OnFrame; its error stops the run.
func (r *Runner) frameHook() {
	if r.cfg.OnFrame == nil || r.sc == nil || r.err != nil {
		return
	}
	r.scene.Sync()
	if err := r.cfg.OnFrame(r.scene); err != nil {
		r.fail(err)
	}
}

// pollWatch reloads the scenario when its file has changed.
func (r *Runner) pollWatch() {
	if !r.cfg.Watch || r.cfg.Path == "" || time.Now().Before(r.nextWatch) {
		return
	}
	r.nextWatch = time.Now().Add(watchInterval)
	st, err := filestamp.Of(r.cfg.Path)
	if err != nil {
		if msg := err.Error(); msg != r.watchErr {
			r.watchErr = msg
			r.logf(LogWarn, "watching the script: %v", err)
		}
		return
	}
	r.watchErr = ""
	if st != r.stamp {
		r.logf(LogInfo, "%s changed", r.cfg.Path)
		r.load(true)
	}
}

// print is the scenario's Print hook: script output and warnings. It may be called from a
// terrain extraction goroutine while the runner waits, hence the lock.
func (r *Runner) print(msg string) {
	lvl := LogPrint
	if len(msg) > 9 && msg[:9] == "warning: " {
		lvl = LogWarn
	}
	r.logMu.Lock()
	r.pending = append(r.pending, LogLine{Level: lvl, Text: msg})
	r.logMu.Unlock()
}

func (r *Runner) logf(lvl LogLevel, format string, a ...any) {
	r.logMu.Lock()
	r.pending = append(r.pending, LogLine{Level: lvl, Text: fmt.Sprintf(format, a...)})
	r.logMu.Unlock()
	r.dirty = true
}

// flushIfDue sends the state when the last one is older than SendInterval.
func (r *Runner) flushIfDue() {
	if time.Since(r.lastSend) >= r.cfg.SendInterval {
		r.flush()
	}
}

// flushLog sends the pending log lines.
func (r *Runner) flushLog() {
	r.logMu.Lock()
	lines := r.pending
	r.pending = nil
	r.logMu.Unlock()
	if len(lines) > 0 {
		r.send(Log{Lines: lines})
	}
}

// flush sends the pending log lines and, when something changed, the state.
func (r *Runner) flush() {
	r.flushLog()
	if !r.dirty && r.status != StatusRunning {
		return
	}
	r.dirty = false
	r.lastSend = time.Now()
	t0 := time.Now()
	st := r.state()
	r.statsTime += int64(time.Since(t0))
	r.statsN++
	r.send(st)
}

// state makes the State message: a copy of everything the UI shows.
func (r *Runner) state() State {
	st := State{Status: r.status, Err: r.errText, Name: r.cfg.SourceName, Speed: r.pace.speed, Recording: r.recordingPath(),
		Lagging: r.status == StatusRunning && r.pace.lagging(time.Now()), Until: r.pace.until, Layer: r.layer,
		FrameSteps: r.cfg.FrameSteps, Frames: r.frame}
	if r.cfg.FrameSteps == 0 {
		st.FPS = r.cfg.FPS
	}
	if r.cfg.Path != "" {
		st.Name = filepath.Base(r.cfg.Path)
	}
	if r.sc == nil {
		return st
	}
	sim := r.scene.Sim()
	st.Name = r.scene.Name()
	sim.Snapshot(&r.snap)
	stats := sim.Stats()
	c := r.snap.Columns
	st.Backend, st.Workers = stats.Backend, stats.Workers
	st.Time, st.Steps, st.Dt = r.snap.Time, r.snap.Steps, r.snap.Dt
	st.Volume, st.Added, st.Removed, st.Rejected = r.snap.Volume, r.snap.Added, r.snap.Removed, r.snap.Rejected
	st.Wet, st.Columns, st.Pipes = r.snap.Wet, c.NumColumns(), stats.Pipes
	st.Extended, st.Passages = r.snap.Extended, r.snap.Passages
	st.Particles, st.Airborne, st.FallDrop = len(r.snap.Particles), r.snap.Airborne, sim.FallDrop()
	st.Nx, st.Ny, st.Layers, st.Dx = c.Nx, c.Ny, c.Layers, c.Dx
	st.Settings = sim.Settings()
	st.Total = r.Timings()
	r.win.close(time.Now(), st.Total.Render)
	st.Window, st.StepsPerSec, st.RealTime = r.win.summary()
	st.Spark = r.win.sparkline()
	w, h := fitMap(c.Nx, c.Ny, r.mapCols, r.mapRows)
	st.Map = computeDepthMap(c, r.snap.Height, r.layer, w, h)
	return st
}

// BackendName is a backend as people read it: "cpu, 2 worker(s)", or the device's name.
func BackendName(backend string, workers int) string {
	if backend == "cpu" {
		return fmt.Sprintf("cpu, %d worker(s)", workers)
	}
	return backend
}
