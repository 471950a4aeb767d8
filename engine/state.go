package engine

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/timing"
)

// Speed is how the runner paces the solver: as fast as it can (Max), or so that
// simulated time runs Factor times as fast as wall time (1 = real time).
type Speed struct {
	Max    bool
	Factor float64
}

// RealTime is the pace at which one simulated second takes one wall second.
var RealTime = Speed{Factor: 1}

// Speeds are the paces the UI's speed key cycles through, in order.
var Speeds = []Speed{RealTime, {Max: true}, {Factor: 0.1}, {Factor: 0.5}, {Factor: 2}}

func (s Speed) String() string {
	switch {
	case s.Max:
		return "as fast as possible"
	case s.Factor == 1:
		return "real time"
	default:
		return fmt.Sprintf("%g× real time", s.Factor)
	}
}

// Layer selects what the depth map shows: LayerTop (the topmost column of each cell),
// LayerAll (the summed depth of every column of a cell), or k >= 1 (the k-th column from
// the bottom; cells with fewer columns show as having none).
type Layer int

const (
	LayerTop Layer = 0
	LayerAll Layer = -1
)

func (l Layer) String() string {
	switch {
	case l == LayerTop:
		return "top"
	case l == LayerAll:
		return "all layers (summed)"
	default:
		return fmt.Sprintf("layer %d", int(l))
	}
}

// Status is what the runner is doing with the scenario.
type Status int

const (
	StatusLoading  Status = iota // no scenario yet
	StatusRunning                // stepping
	StatusPaused                 // paused by the user or at --until
	StatusFinished               // the script's main returned
	StatusFailed                 // a script error stopped it (State.Err)
	StatusNoScene                // the script did not load (State.Err): fix it and reload
)

func (s Status) String() string {
	return [...]string{"loading", "running", "paused", "finished", "error", "not loaded"}[s]
}

// Window is the per-frame timing of the recent past (the last WindowSeconds of wall time).
type Window struct {
	Simulation, Surface, Render timing.PhaseTiming
	// Waves is the wave particles' time per frame that ran them.
	Waves timing.PhaseTiming
	// Steps is the solver steps of the window's simulation frames.
	Steps int64
}

// State is a copy of the engine's state, published by the runner (Config.Send). It
// shares nothing with the runner: a receiver may keep it as long as it likes.
type State struct {
	Status Status
	Err    string // the error that stopped the scenario, or that the script's load gave
	Name   string // the scenario's name (file base name)
	// Recording is the clip being recorded of the preview's view ("" when none).
	Recording string

	Backend string // as the solver reports it: "cpu", "cuda ..."
	Workers int

	Time        float64 // simulated s
	Steps       int64
	Dt          float64 // s
	Until       float64 // pause at this simulated time (0: never)
	StepsPerSec float64 // over the window
	RealTime    float64 // simulated s per wall s over the window
	Speed       Speed
	// Lagging says real-time pacing cannot keep up: it had to let a debt go in the last
	// 3 s and the real-time factor of the window is below the factor asked by more than
	// LagMargin (pace.go).
	Lagging bool
	FPS     float64 // the frames a second asked for (0 with FrameSteps): the target
	// FramesPerSec is the frames run (each with its surface and preview picture) per wall
	// second over the window: the measured rate beside FPS, the target.
	FramesPerSec float64
	FrameSteps   int // fixed solver steps a frame (0: as many as the pace asks)
	Frames       int // frames run since the load

	Window Window         // recent frames
	Total  timing.Timings // since the start
	Spark  []float64      // recent frame times (solver + surface), ms, oldest first

	Volume, Added, Removed, Rejected float64 // m^3
	// Outflow is what left through the domain's open sides, m^3 (scene.Stats.Outflow).
	Outflow             float64
	Wet, Columns, Pipes int
	Extended, Passages  int
	// Substeps: the shallow water equations' substeps so far (0 with the pipes).
	Substeps int64
	// Particles are the parcels of liquid in the air and Airborne their volume, m^3 (part
	// of Volume); FallDrop is the release threshold in use, m (scene.Scene.FallDrop).
	Particles int
	Airborne  float64
	FallDrop  float64
	// Waves tells whether wave particles run, and WaveCount how many there are.
	Waves     bool
	WaveCount int
	// Bodies is the number of floating bodies, Sprays the sprays still pouring.
	Bodies, Sprays int
	// Meters are the flow meters' rates (m^3/s) and totals (m^3), in the order the script
	// made them (sim:flow); empty without meters.
	MeterRates, MeterTotals []float64
	Nx, Ny, Layers          int
	Dx                      float64
	Settings                scene.SolverSettings

	Layer Layer
	Map   DepthMap
}

// LogLevel says what a log line is.
type LogLevel int

const (
	LogInfo  LogLevel = iota // the runner's own notes (reloads, key effects)
	LogPrint                 // the script's print()
	LogWarn                  // a warning from the script or the solver
	LogError                 // an error, with file:line when it comes from the script
)

// LogLine is one line of the log pane.
type LogLine struct {
	Level LogLevel
	Text  string
}

// Log carries log lines from the runner, in order.
type Log struct{ Lines []LogLine }

// Progress is sent after every frame of a headless run (Config.Headless), where State
// messages come at most every SendInterval of wall time: a fast run's progress lines are
// keyed to simulated time, so they need each frame's end. Time is the simulated time
// (s), Steps the solver steps since the load.
type Progress struct {
	Time  float64
	Steps int64
}

// CommandKind is what a front end (the UI) asks the runner to do.
type CommandKind int

const (
	CmdTogglePause       CommandKind = iota
	CmdStep                          // pause, then advance one frame
	CmdCycleSpeed                    // the next of Speeds
	CmdViscosity                     // multiply the viscosity by Command.Factor
	CmdReload                        // load the script again (from its file)
	CmdCycleLayer                    // the depth map's next layer
	CmdMapSize                       // the room for the depth map: Command.Cols x Command.Rows characters
	CmdRecord                        // start or stop a recording of the preview's view (the v key)
	CmdToggleFalling                 // falling liquid: particles on or off (the d key)
	CmdContactAngle                  // add Command.Factor radians to the contact angle (the a and A keys)
	CmdToggleCapillarity             // capillarity on or off (the t key)
	CmdToggleWaves                   // waves on or off (the W key)
	CmdLogBodies                     // each body's place, depth and speed, into the log (the b key)
	CmdQuit
)

// Command is a request to the runner (Runner.Commands).
type Command struct {
	Kind       CommandKind
	Factor     float64
	Cols, Rows int
}

// state makes the State message: a copy of everything the UI shows.
func (r *Runner) state() State {
	st := State{Status: r.status, Err: r.errText, Name: r.cfg.SourceName, Speed: r.pace.speed, Recording: r.rec.path(),
		Until: r.pace.until, Layer: r.layer,
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
	st.Name = r.scene.Name()
	r.scene.Read(&r.readout)
	rd := &r.readout
	sn, stats := rd.Snap, rd.Stats
	c := sn.Columns
	st.Backend, st.Workers = stats.Backend, stats.Workers
	st.Time, st.Steps, st.Dt = sn.Time, sn.Steps, sn.Dt
	st.Volume, st.Added, st.Removed, st.Rejected = sn.Volume, sn.Added, sn.Removed, sn.Rejected
	st.Outflow = sn.Outflow
	st.Wet, st.Columns, st.Pipes = sn.Wet, c.NumColumns(), stats.Pipes
	st.Extended, st.Passages = sn.Extended, sn.Passages
	st.Substeps = sn.Substeps
	st.Particles, st.Airborne, st.FallDrop = len(sn.Particles), sn.Airborne, rd.FallDrop
	st.Nx, st.Ny, st.Layers, st.Dx = c.Nx, c.Ny, c.Layers, c.Dx
	st.Settings = rd.Settings
	st.Waves, st.WaveCount = rd.Waves, rd.WaveCount
	st.Bodies, st.Sprays = rd.Bodies, rd.Sprays
	// The State goes to another goroutine: its own copies of the readout's reused slices
	// (nil without meters).
	st.MeterRates = append([]float64(nil), rd.MeterRates...)
	st.MeterTotals = append([]float64(nil), rd.MeterTotals...)
	st.Total = r.clocks.timings()
	r.win.close(time.Now(), st.Total.Render)
	var rt rates
	st.Window, rt = r.win.summary()
	st.StepsPerSec, st.RealTime, st.FramesPerSec = rt.stepsPerSec, rt.realTime, rt.framesPerSec
	st.Lagging = r.status == StatusRunning && r.pace.behind(time.Now(), rt)
	st.Spark = r.win.sparkline()
	w, h := fitMap(c.Nx, c.Ny, r.mapCols, r.mapRows)
	st.Map = computeDepthMap(c, sn.Height, r.layer, w, h)
	return st
}

// BackendName is a backend as people read it: "cpu, 2 worker(s)", or the device's name.
func BackendName(backend string, workers int) string {
	if backend == "cpu" {
		return fmt.Sprintf("cpu, %d worker(s)", workers)
	}
	return backend
}
