package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/internal/filestamp"
	"github.com/vpbench/vpbench/script"
)

const (
	// sendInterval is the least time between two state messages while the solver runs:
	// the UI is redrawn at most 25 times a second whatever the solver does.
	sendInterval = 40 * time.Millisecond
	// WindowSeconds is the wall time the "recent" timings and rates cover.
	WindowSeconds = 2.0
	// sparkLen is how many state intervals the sparkline remembers.
	sparkLen = 120
	// maxLag is how far (wall time) real-time pacing may fall behind before the runner
	// says it cannot keep up and stops trying to catch up the difference.
	maxLag = 250 * time.Millisecond
	// lagMemory is how long State.Lagging stays on after pacing last fell behind.
	lagMemory = 3 * time.Second
	// watchInterval is how often the scenario file is checked for changes.
	watchInterval = 300 * time.Millisecond
)

// RunnerConfig says what the runner runs and how.
type RunnerConfig struct {
	// Path is the scenario file; "" runs Source (the built-in demo) named SourceName.
	Path       string
	Source     []byte
	SourceName string
	// Script are the load options (Print is the runner's: it goes to the log).
	Script script.Options
	// FrameSteps is the solver steps a frame (one Advance call); 0 means 1.
	FrameSteps int
	// FrameWork, if set, runs after every frame that stepped (frame counts from 1): the
	// liquid surface, for instance. It returns the time it took, which the runner counts
	// as Table 1's surface column of the recent window; it records the frame itself with
	// Scenario.RecordFrame for the totals. An error is logged and pauses the run.
	FrameWork func(sc *script.Scenario, frame int) (time.Duration, error)
	// OnLoad, if set, runs after every successful load, before the first frame (the
	// preview ties its render times to the new scenario there).
	OnLoad func(sc *script.Scenario)
	// Notes are logged first, as warnings (what the command could not set up).
	Notes []string
	// Until pauses the run at this simulated time (0: never).
	Until float64
	// Watch reloads the scenario when its file changes.
	Watch bool
	// Speed is the pace at the start (the zero value is real time).
	Speed Speed
}

// Runner owns the scenario: it loads, steps and reloads it on its own goroutine (Run),
// takes Commands from the UI through a channel and reports to the UI only through
// messages (send). Nothing it owns is shared: a State is a copy.
type Runner struct {
	cfg  RunnerConfig
	cmds chan Command
	wake chan struct{} // Log's nudge to an idle runner
	send func(tea.Msg)
	done chan struct{}

	sc      *script.Scenario
	status  Status
	errText string
	stamp   filestamp.Stamp
	frame   int
	quit    bool

	speed             Speed
	baseWall          time.Time // real-time pacing: simulated time baseSim at wall time baseWall
	baseSim           float64
	lagAt             time.Time // when pacing last fell behind by maxLag (zero: never)
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
}

// NewRunner makes a runner; it does nothing until Run. send delivers messages to the UI
// (Program.Send); it may block while the UI is busy, never the other way round.
func NewRunner(cfg RunnerConfig, send func(tea.Msg)) *Runner {
	if cfg.FrameSteps <= 0 {
		cfg.FrameSteps = 1
	}
	if cfg.SourceName == "" {
		cfg.SourceName = "demo.lua"
	}
	if !cfg.Speed.Max && cfg.Speed.Factor <= 0 {
		cfg.Speed = RealTime
	}
	return &Runner{cfg: cfg, cmds: make(chan Command, 64), wake: make(chan struct{}, 1), send: send, done: make(chan struct{}),
		speed: cfg.Speed, mapCols: 80, mapRows: 12}
}

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

// Run loads the scenario and runs it until ctx ends or CmdQuit arrives; then it closes
// the scenario and returns. Call it once, on its own goroutine.
func (r *Runner) Run(ctx context.Context) {
	defer close(r.done)
	defer func() {
		if r.sc != nil {
			r.sc.Close()
			r.sc = nil
		}
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
		r.pollWatch()
		if r.status != StatusRunning {
			r.flush()
			r.idle(ctx, timer, r.watchWait())
			continue
		}
		if wait := r.pace(); wait > 0 {
			r.flushIfDue()
			r.idle(ctx, timer, min(wait, sendInterval))
			continue
		}
		r.step()
		r.flushIfDue()
	}
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

// pace returns how long to wait before the next frame is due (0: step now). In real-time
// modes simulated time follows baseSim + Factor * (wall - baseWall); when the solver falls
// further behind than maxLag, the runner lets the debt go (so that it does not race to
// catch up later) and says that it cannot keep up (State.Lagging) for lagMemory.
func (r *Runner) pace() time.Duration {
	if r.speed.Max {
		return 0
	}
	now := time.Now()
	t, dt := r.sc.Time(), r.sc.Sim().Dt()
	target := r.baseSim + r.speed.Factor*now.Sub(r.baseWall).Seconds()
	ahead := t + dt/2 - target // the next frame is due when target reaches t + dt/2
	if ahead > 0 {
		return max(time.Duration(ahead/r.speed.Factor*float64(time.Second)), 100*time.Microsecond)
	}
	if behind := time.Duration(-ahead / r.speed.Factor * float64(time.Second)); behind > maxLag {
		if !r.lagging(now) {
			r.dirty = true
		}
		r.lagAt = now
		r.baseWall, r.baseSim = now, t+dt/2 // the next frame is due now
	}
	return 0
}

// lagging reports whether real-time pacing had to let a debt go in the last lagMemory.
func (r *Runner) lagging(now time.Time) bool {
	return !r.lagAt.IsZero() && now.Sub(r.lagAt) < lagMemory
}

// rebase restarts real-time pacing from the current simulated time.
func (r *Runner) rebase() {
	r.baseWall = time.Now()
	if r.sc != nil {
		r.baseSim = r.sc.Time()
	}
}

// step runs one frame: Advance, then the frame work, then the bookkeeping.
func (r *Runner) step() {
	sc := r.sc
	steps := r.cfg.FrameSteps
	if r.cfg.Until > 0 {
		dt := sc.Sim().Dt()
		left := int((r.cfg.Until-sc.Time())/dt + 0.5)
		if left <= 0 {
			r.setStatus(StatusPaused)
			r.logf(LogInfo, "paused at t = %.3f s (--until %g)", sc.Time(), r.cfg.Until)
			return
		}
		steps = min(steps, left)
	}
	t0, n0 := sc.Time(), sc.Sim().Steps()
	done, err := sc.Advance(steps)
	simDur := sc.LastAdvance()
	var surfDur time.Duration
	if err == nil && simDur > 0 && r.cfg.FrameWork != nil {
		r.frame++
		var ferr error
		surfDur, ferr = r.cfg.FrameWork(sc, r.frame)
		if ferr != nil {
			r.logf(LogError, "%v", ferr)
			r.setStatus(StatusPaused)
		}
	}
	if r.status != StatusRunning || done || err != nil {
		sc.Sync() // a single step, or the end: show its own state
	}
	r.win.addFrame(sc.Time()-t0, sc.Sim().Steps()-n0, simDur, surfDur)
	r.dirty = true
	switch {
	case err != nil:
		r.fail(err)
	case done:
		r.setStatus(StatusFinished)
		r.logf(LogInfo, "main returned at t = %.3f s: the scenario is finished (r reloads it)", sc.Time())
	}
}

// fail stops the scenario on a script error; the last state stays on screen.
func (r *Runner) fail(err error) {
	r.errText = err.Error()
	r.setStatus(StatusFailed)
	r.logf(LogError, "%s", r.errText)
	r.logf(LogInfo, "the scenario stopped; the last state stays on screen. Fix the script and reload (r)")
}

func (r *Runner) setStatus(s Status) {
	if r.status == s {
		return
	}
	if s != StatusRunning && r.sc != nil {
		r.sc.Sync() // show the last frame's state, not the one before it (pipelined)
	}
	if s == StatusRunning {
		r.rebase()
		r.win.reset()
		r.lagAt = time.Time{}
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
			if r.cfg.Until > 0 && r.sc.Time() >= r.cfg.Until-r.sc.Sim().Dt()/2 {
				r.cfg.Until = 0
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
		until := r.cfg.Until
		r.cfg.Until = 0 // a single step may go past --until
		r.step()
		r.cfg.Until = until
	case CmdCycleSpeed:
		i := 0
		for k, s := range speeds {
			if s == r.speed {
				i = k + 1
			}
		}
		r.speed = speeds[i%len(speeds)]
		r.rebase()
		r.win.reset()
		r.lagAt = time.Time{}
		r.logf(LogInfo, "speed: %s", r.speed)
	case CmdViscosity:
		r.scaleViscosity(c.Factor)
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
	if r.sc != nil {
		layers = r.sc.Sim().Columns().Layers
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

func (r *Runner) scaleViscosity(f float64) {
	if r.sc == nil || r.status == StatusNoScene || r.status == StatusLoading {
		r.explainStopped("change the viscosity")
		return
	}
	if !(f > 0) {
		r.logf(LogError, "viscosity factor %v: it must be > 0", f)
		return
	}
	sim := r.sc.Sim()
	st := sim.Settings()
	old := st.Viscosity
	st.Viscosity = old * f
	if old == 0 && f > 1 {
		st.Viscosity = minViscosity
	}
	if err := sim.Set(st); err != nil {
		r.logf(LogError, "viscosity: %v", err)
		return
	}
	for _, w := range sim.Warnings() {
		r.logf(LogWarn, "%s", w)
	}
	r.logf(LogInfo, "viscosity %g -> %g m^2/s", old, st.Viscosity)
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
		r.setStatus(StatusNoScene)
		return
	}
	if r.sc != nil {
		r.sc.Close()
	}
	r.sc, r.errText, r.frame = sc, "", 0
	// On a device backend a frame's steps run while the previous frame is drawn; setStatus
	// and step wait for them when the run stops (Sync).
	sc.SetPipelined(true)
	if r.cfg.OnLoad != nil {
		r.cfg.OnLoad(sc)
	}
	r.win = window{spark: r.win.spark}
	in := sc.Info()
	if int(r.layer) > in.Layers {
		r.layer = LayerTop
	}
	r.logf(LogInfo, "%s loaded in %.0f ms: %dx%d cells, %d layer(s), dx %g m, dt %.3g ms, %s",
		sc.Name(), time.Since(t0).Seconds()*1e3, in.Nx, in.Ny, in.Layers, in.Dx, in.Dt*1e3, backendName(in.Backend, in.Workers))
	r.status = StatusLoading
	r.setStatus(StatusRunning)
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

// flushIfDue sends the state when the last one is older than sendInterval.
func (r *Runner) flushIfDue() {
	if time.Since(r.lastSend) >= sendInterval {
		r.flush()
	}
}

// flush sends the pending log lines and, when something changed, the state.
func (r *Runner) flush() {
	r.logMu.Lock()
	lines := r.pending
	r.pending = nil
	r.logMu.Unlock()
	if len(lines) > 0 {
		r.send(LogMsg{Lines: lines})
	}
	if !r.dirty && r.status != StatusRunning {
		return
	}
	r.dirty = false
	r.lastSend = time.Now()
	t0 := time.Now()
	st := r.state()
	r.statsTime += int64(time.Since(t0))
	r.statsN++
	r.send(StateMsg{State: st})
}

// state makes the State message: a copy of everything the UI shows.
func (r *Runner) state() State {
	st := State{Status: r.status, Err: r.errText, Name: r.cfg.SourceName, Speed: r.speed,
		Lagging: r.status == StatusRunning && !r.speed.Max && r.lagging(time.Now()), Until: r.cfg.Until, Layer: r.layer}
	if r.cfg.Path != "" {
		st.Name = filepath.Base(r.cfg.Path)
	}
	if r.sc == nil {
		return st
	}
	sc, sim := r.sc, r.sc.Sim()
	st.Name = sc.Name()
	sim.Snapshot(&r.snap)
	stats := sim.Stats()
	c := r.snap.Columns
	st.Backend, st.Workers = stats.Backend, stats.Workers
	st.Time, st.Steps, st.Dt = r.snap.Time, r.snap.Steps, r.snap.Dt
	st.Volume, st.Added, st.Removed, st.Rejected = r.snap.Volume, r.snap.Added, r.snap.Removed, r.snap.Rejected
	st.Wet, st.Columns, st.Pipes = r.snap.Wet, c.NumColumns(), stats.Pipes
	st.Extended, st.Passages = r.snap.Extended, r.snap.Passages
	st.Nx, st.Ny, st.Layers, st.Dx = c.Nx, c.Ny, c.Layers, c.Dx
	st.Settings = sim.Settings()
	st.Total = sc.Timings()
	r.win.close(time.Now(), st.Total.Render)
	st.Window, st.StepsPerSec, st.RealTime = r.win.summary()
	st.Spark = r.win.sparkline()
	w, h := fitMap(c.Nx, c.Ny, r.mapCols, r.mapRows)
	st.Map = computeDepthMap(c, r.snap.Height, r.layer, w, h)
	return st
}

func backendName(backend string, workers int) string {
	if backend == "cpu" {
		return fmt.Sprintf("cpu, %d worker(s)", workers)
	}
	return backend
}
