package engine

import (
	"context"
	"time"

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
)

// Runner owns the scenario: it loads, steps and reloads it on its own goroutine (Run),
// takes Commands through a channel (commands.go) and reports only through the send
// function given to New, which receives State, Log and Progress values. Nothing it owns
// is shared: a State is a copy.
//
// It is the composition of small parts, each in its own file: the pacer (pace.go) plans
// the frames, the frame's work (frame.go) builds and hands out the surface, the clocks
// (clocks.go) keep Table 1, the window (window.go) the recent rates, the outbox
// (outbox.go) the messages to the UI and when they go, the watcher (watcher.go) the
// reload on save, and the recording (record.go) a clip.
type Runner struct {
	cfg  Config
	cmds chan Command
	send func(any) // Progress; State and Log go through out
	done chan struct{}

	sc      Scenario     // the script: its scheduler steps the scene (Advance)
	scene   *scene.Scene // the world the script set up: what the frames draw
	status  Status
	errText string
	err     error
	frame   int
	quit    bool
	result  Result

	pace             pacer
	work             frameWork
	clocks           clocks // Table 1 since the load
	win              window
	out              *outbox
	watch            scriptWatcher
	layer            Layer
	mapCols, mapRows int
	readout          scene.Readout // the scene read for the State (state)
	runStart         time.Time
	from             float64  // the simulated time the run started from (a resume's)
	rec              recorder // clips of the preview's view (record.go)

	ckpt checkpointer // checkpoints (checkpoint.go)
	tl   *timeline    // the time series (timeline.go); nil: none
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
	if cfg.OutDir == "" {
		cfg.OutDir = DefaultOutDir
	}
	if cfg.Export.Every > 0 {
		cfg.Surface = true
	}
	r := &Runner{cfg: cfg, cmds: make(chan Command, 64), send: send, done: make(chan struct{}),
		mapCols: 80, mapRows: 12}
	r.pace = pacer{speed: cfg.Speed, fps: cfg.FPS, frameSteps: cfg.FrameSteps, until: cfg.Until}
	r.work = frameWork{surface: cfg.Surface, export: cfg.Export, src: cfg.Preview}
	r.out = newOutbox(send, r.state, cfg.SendInterval)
	r.tl = newTimeline(cfg.Timeline)
	r.ckpt = checkpointer{cfg: cfg.Checkpoints}
	r.rec = recorder{shooter: cfg.Shooter, src: cfg.Preview, newClip: cfg.NewClip, headless: cfg.Headless,
		addRender: r.clocks.addRender, logf: r.out.logf}
	if cfg.Watch {
		r.watch = newScriptWatcher(cfg.Path, watchInterval)
	}
	if cfg.NoMap {
		r.mapCols, r.mapRows = 0, 0
	}
	if cfg.Preview != nil {
		cfg.Preview.OnRender(r.clocks.addRender)
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

// Timings are Table 1's clocks since the load (sim:stats() reads them too). Safe from
// any goroutine.
func (r *Runner) Timings() timing.Timings { return r.clocks.timings() }

// Run loads the scenario and runs it until ctx ends or CmdQuit arrives (or, headless,
// until the run stops by itself); then it closes the scenario and returns. Call it once,
// on its own goroutine.
func (r *Runner) Run(ctx context.Context) {
	defer close(r.done)
	defer func() {
		if r.sc != nil {
			r.finalCheckpoint()
			r.finish(ctx)
			r.timelineEnd()
			r.sc.Close()
			r.sc, r.scene = nil, nil
		}
		r.closeTimeline()
		r.flush()
	}()
	for _, n := range r.cfg.Notes {
		r.out.logf(LogWarn, "%s", n)
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
		r.reloadIfChanged()
		if r.status != StatusRunning {
			r.flush()
			r.idle(ctx, timer, r.watch.wait(time.Now()))
			continue
		}
		steps, wait := r.plan()
		if steps == 0 {
			r.out.flushIfDue(r.status == StatusRunning) // plan may have paused at Until
			if wait > 0 {
				r.idle(ctx, timer, min(wait, r.cfg.SendInterval))
			}
			continue
		}
		r.step(steps)
		r.out.flushIfDue(r.status == StatusRunning)
	}
	if ctx.Err() != nil && r.err == nil && r.status == StatusRunning {
		r.err = ctx.Err()
	}
}

// finish ends a run: the last frame's state is published, the result recorded and, for
// a headless run that stopped by itself without error, Final runs.
func (r *Runner) finish(ctx context.Context) {
	r.settle()
	defer r.rec.stop() // after Final: what was recorded is kept
	if r.cfg.Headless && r.err == nil && ctx.Err() == nil && r.cfg.Final != nil {
		if err := r.cfg.Final(r.scene); err != nil {
			r.err = err
			r.out.logf(LogError, "%v", err)
		}
	}
	r.out.changed()
	r.result.Wall = time.Since(r.runStart)
	r.result.From = r.from
	r.result.State = r.state()
	r.result.Info = r.sc.Info()
	r.result.Total = r.clocks.totalClock()
	r.result.Err = r.err
	r.result.Loaded = true
	r.result.Reported = r.sc.Reported()
	r.result.Overlapped = r.work.overlapped
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
	case <-r.out.wake:
	case <-tc:
	}
}

// Log adds a line to the UI's log from any goroutine (the preview's messages, say). It
// reaches the screen with the runner's next message, at once when the runner is idle.
func (r *Runner) Log(level LogLevel, msg string) { r.out.log(level, msg) }

// flush sends the pending log lines and, when something changed or the run goes on, the
// state.
func (r *Runner) flush() { r.out.flush(r.status == StatusRunning) }

// plan is the pacer's decision for now: the steps of a frame due now, or how long to
// wait. At Until the run pauses (the UI) or ends (headless).
func (r *Runner) plan() (steps int, wait time.Duration) {
	t, dt := r.scene.Time(), r.scene.Dt()
	if r.pace.atUntil(t, dt) {
		r.setStatus(StatusPaused)
		r.out.logf(LogInfo, "paused at t = %.6g s (--until %g)", t, r.cfg.Until)
		return 0, 0
	}
	lagging := r.pace.lagging(time.Now())
	// As fast as possible in the UI, a frame covers what the solver runs in a wall frame
	// period or two (pace.go); whatever counts frames or wants each 1/FPS keeps one a frame:
	// a headless run, exports, OnFrame, a recording.
	r.pace.wallFrames = !r.cfg.Headless && r.cfg.Export.Every == 0 && r.cfg.OnFrame == nil && r.rec.rec == nil
	steps, wait = r.pace.plan(time.Now(), t, dt)
	if r.pace.lagging(time.Now()) != lagging {
		r.out.changed()
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
	t0, n0 := world.Time(), world.Steps()
	start := time.Now()
	rmark := markRegion(world)
	var simDur, waveDur time.Duration
	var done bool
	var err error
	for taken := 0; taken < n; {
		var a script.Advanced
		a, err = sc.Advance(n - taken)
		simDur += a.Solver
		waveDur += a.Waves
		done = a.Done
		taken = int(world.Steps() - n0)
		if done || err != nil || a.Steps == 0 {
			break
		}
	}
	stepped := world.Steps() - n0
	regionSteps, regionDur := rmark.since(world)
	r.pace.observe(simDur+waveDur, stepped) // the waves run with the steps: pacing counts them
	var surfDur time.Duration
	if err == nil && stepped > 0 {
		r.frame++
		// Runs that export, call OnFrame or record build every surface in step (an export
		// every N frames would move the cores between the two ways every N frames).
		r.work.overlap = r.cfg.Overlap && r.cfg.OnFrame == nil && r.rec.rec == nil && r.cfg.Export.Every == 0
		var ferr error
		surfDur, ferr = r.work.do(world, r.frame)
		if ferr != nil {
			r.err = ferr
			r.out.logf(LogError, "%v", ferr)
			r.setStatus(StatusPaused)
			if r.cfg.Headless {
				r.setStatus(StatusFailed)
			}
		}
	}
	total := time.Since(start) - r.work.prep
	if r.work.late > 0 {
		r.clocks.addSurface(r.work.late)
	}
	r.clocks.addFrame(simDur, stepped, surfDur, waveDur, total)
	if r.work.allowed && stepped > 0 {
		r.work.rule.observe(simDur+waveDur, surfDur)
	}
	r.clocks.addRegion(regionDur, regionSteps)
	if r.status != StatusRunning || done || err != nil {
		r.settle() // a single step, or the end: show its own state
	}
	f := frameDone{Time: world.Time(), Covered: world.Time() - t0, Steps: stepped, Sim: simDur, Waves: waveDur, Surf: surfDur,
		Region: regionDur, RegionSteps: regionSteps}
	r.win.addFrame(f)
	r.timelineFrame(f)
	r.out.changed()
	switch {
	case err != nil:
		r.fail(err)
	case done:
		r.setStatus(StatusFinished)
		r.out.logf(LogInfo, "main returned at t = %.3f s: the scenario is finished (r reloads it)", world.Time())
	}
	if err == nil && stepped > 0 {
		r.frameHook()
		r.rec.frame(f, r.picture)
		if r.ckpt.due(f) {
			r.writeCheckpoint(CheckpointWritten)
		}
	}
	if r.cfg.Headless {
		r.out.flushLog()
		if stepped > 0 {
			r.send(Progress{Time: world.Time(), Steps: world.Steps()})
		}
	}
}

// fail stops the scenario on a script error; the last state stays on screen.
func (r *Runner) fail(err error) {
	r.err = err
	r.errText = err.Error()
	r.setStatus(StatusFailed)
	r.out.logf(LogError, "%s", r.errText)
	r.out.logf(LogInfo, "the scenario stopped; the last state stays on screen. Fix the script and reload (r)")
}

// settle waits for the steps in flight (a pipelined device) and the surface in flight
// (the overlap), publishing both: what is shown is the last frame's own state. The
// surface's build time joins Table 1's surface column.
func (r *Runner) settle() {
	r.scene.Sync()
	d, err := r.work.finish(r.scene, r.work.src != nil && r.work.src.Wanted())
	if d > 0 {
		r.clocks.addSurface(d)
	}
	if err != nil {
		r.out.logf(LogError, "%v", err)
	}
}

func (r *Runner) setStatus(s Status) {
	if r.status == s {
		return
	}
	if s != StatusRunning && r.scene != nil {
		r.settle() // show the last frame's state, not the one before it (pipelined)
	}
	if s == StatusRunning {
		r.rebase()
		r.win.reset()
	}
	r.status = s
	r.out.changed()
}

// load loads the scenario (again, when reload): on success the new one replaces the old;
// on failure the error goes to the log and the old one, if any, goes on as it was.
func (r *Runner) load(reload bool) {
	name := r.cfg.SourceName
	if r.cfg.Path != "" {
		name = r.cfg.Path
	}
	r.watch.loaded(time.Now())
	verb := "loading"
	if reload {
		verb = "reloading"
	}
	r.out.logf(LogInfo, "%s %s", verb, name)
	opt := r.cfg.Script
	opt.Print = r.out.print
	opt.Timings = r.clocks.timings
	opt.Screenshot = r.work.screenshot(r.cfg.Shooter, r.clocks.addRender)
	opt.Record = r.scriptRecord
	opt.Resume = r.ckpt.resumeFrom() // the first load's
	loadFn := r.cfg.Load
	if loadFn == nil {
		loadFn = loadScript(&r.cfg)
	}
	t0 := time.Now()
	sc, err := loadFn(opt)
	if err != nil {
		r.out.logf(LogError, "%v", err)
		if r.sc != nil {
			r.out.logf(LogInfo, "reload failed: the previous run goes on as it was")
			return
		}
		r.errText = err.Error()
		r.result.Err = err
		r.setStatus(StatusNoScene)
		return
	}
	if r.sc != nil {
		r.timelineEnd() // the old run's last row
		r.rec.stop()    // the clip of the old run is kept
		r.sc.Close()
	}
	r.sc, r.scene, r.errText, r.err, r.frame = sc, sc.Scene(), "", nil, 0
	if opt.Resume != "" {
		r.reportCheckpoint(Checkpoint{Kind: CheckpointResumed, Path: opt.Resume, Time: r.scene.Time()})
	}
	r.work.builder, r.work.rule, r.work.overlapped = nil, overlapRule{}, 0
	r.clocks.reset()
	r.runStart, r.from = time.Now(), r.scene.Time()
	r.ckpt.start(r.scene.Time())
	// On a device backend a frame's steps run while the previous frame is drawn; setStatus
	// and step wait for them when the run stops (Sync).
	r.scene.SetPipelined(true)
	r.win = window{spark: r.win.spark}
	in := sc.Info()
	if int(r.layer) > in.Layers {
		r.layer = LayerTop
	}
	r.out.logf(LogInfo, "%s loaded in %.0f ms: %dx%d cells, %d layer(s), dx %g m, dt %.3g ms, %s",
		sc.Name(), time.Since(t0).Seconds()*1e3, in.Nx, in.Ny, in.Layers, in.Dx, in.Dt*1e3, BackendName(in.Backend, in.Workers))
	r.status = StatusLoading
	r.setStatus(StatusRunning)
	r.frameHook()
	r.timelineLoaded()
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

// reloadIfChanged reloads the scenario when the watcher says its file has changed.
func (r *Runner) reloadIfChanged() {
	changed, err := r.watch.poll(time.Now())
	if err != nil {
		r.out.logf(LogWarn, "watching the script: %v", err)
	}
	if changed {
		r.out.logf(LogInfo, "%s changed", r.cfg.Path)
		r.load(true)
	}
}
