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
	// Region is the 3D region's time per frame that stepped one: part of Simulation
	// (timing.Timings.Region).
	Region timing.PhaseTiming
	// Steps is the solver steps of the window's simulation frames.
	Steps int64
}

// State is a copy of the engine's state, published by the runner (Config.Send). It
// shares nothing with the runner: a receiver may keep it as long as it likes. It is made
// of four values, each built by its own part (state): the run, the world's readout, the
// frames' timings and the depth map; their fields read as the State's own (st.Volume).
type State struct {
	Run
	WorldView
	FrameTimes
	MapView
}

// Run is what the runner is doing: the scenario's status, the pace and the frames.
type Run struct {
	Status Status
	Err    string // the error that stopped the scenario, or that the script's load gave
	Name   string // the scenario's name (file base name)
	// Recording is the clip being recorded of the preview's view ("" when none).
	Recording string

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
}

// WorldView is the world's readout: the scene's figures from its own snapshot
// (scene.Readout), copied.
type WorldView struct {
	Backend string // as the solver reports it: "cpu", "cuda ..."
	Workers int
	// SurfaceWorkers > 0: the surface builds on that many cores of its own while the
	// solver runs the next frame's steps (Config.Overlap), now.
	SurfaceWorkers int

	Time  float64 // simulated s
	Steps int64
	Dt    float64 // s

	Volume, Added, Removed, Rejected float64 // m^3
	// Outflow is what left through the domain's open sides, m^3 (scene.Stats.Outflow).
	Outflow             float64
	Wet, Columns, Pipes int
	Extended, Passages  int
	// Substeps: the shallow water equations' substeps so far (0 with the pipes).
	Substeps int64
	// Particles are the parcels of liquid in the air and Airborne their volume, m^3 (part
	// of Volume); FallDrop is the release threshold in use, m (scene.Scene.FallDrop).
	// Hanging is the part of Airborne gathering at dripping edges, not yet released.
	Particles int
	Airborne  float64
	Hanging   float64
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
	// Region is the 3D region in place (sim:region: its box, cells, particles, ...),
	// HasRegion whether there is one.
	Region    scene.RegionInfo
	HasRegion bool
}

// FrameTimes are the frames' timings: the recent window, Table 1 since the load, and the
// sparkline.
type FrameTimes struct {
	Window Window         // recent frames
	Total  timing.Timings // since the start
	Spark  []float64      // recent frame times (solver + surface), ms, oldest first
}

// MapView is the depth map and the layer it shows.
type MapView struct {
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

// state makes the State message: a copy of everything the UI shows, from its parts.
func (r *Runner) state() State {
	st := State{Run: r.runView(), MapView: MapView{Layer: r.layer}}
	if r.sc == nil {
		return st
	}
	st.Name = r.scene.Name()
	r.scene.Read(&r.readout)
	st.WorldView = worldView(&r.readout)
	if on, w := r.scene.Overlap(); on {
		st.SurfaceWorkers = w
	}
	st.FrameTimes = r.frameTimes(&st.Run)
	c := r.readout.Snap.Columns
	w, h := fitMap(c.Nx, c.Ny, r.mapCols, r.mapRows)
	st.Map = computeDepthMap(c, r.readout.Snap.Height, r.layer, w, h)
	return st
}

// runView is the run's part of the State: status, pace and frames (the window's rates
// are filled in by frameTimes).
func (r *Runner) runView() Run {
	run := Run{Status: r.status, Err: r.errText, Name: r.cfg.SourceName, Speed: r.pace.speed, Recording: r.rec.path(),
		Until: r.pace.until, FrameSteps: r.cfg.FrameSteps, Frames: r.frame}
	if r.cfg.FrameSteps == 0 {
		run.FPS = r.cfg.FPS
	}
	if r.cfg.Path != "" {
		run.Name = filepath.Base(r.cfg.Path)
	}
	return run
}

// worldView copies the scene's readout into the State's: its own copies of the readout's
// reused slices (the State goes to another goroutine; nil without meters).
func worldView(rd *scene.Readout) WorldView {
	sn, stats := rd.Snap, rd.Stats
	c := sn.Columns
	return WorldView{Backend: stats.Backend, Workers: stats.Workers,
		Time: sn.Time, Steps: sn.Steps, Dt: sn.Dt,
		Volume: sn.Volume, Added: sn.Added, Removed: sn.Removed, Rejected: sn.Rejected, Outflow: sn.Outflow,
		Wet: sn.Wet, Columns: c.NumColumns(), Pipes: stats.Pipes, Extended: sn.Extended, Passages: sn.Passages,
		Substeps: sn.Substeps, Particles: len(sn.Particles), Airborne: sn.Airborne, Hanging: sn.Hanging, FallDrop: rd.FallDrop,
		Waves: rd.Waves, WaveCount: rd.WaveCount, Bodies: rd.Bodies, Sprays: rd.Sprays,
		MeterRates: append([]float64(nil), rd.MeterRates...), MeterTotals: append([]float64(nil), rd.MeterTotals...),
		Nx: c.Nx, Ny: c.Ny, Layers: c.Layers, Dx: c.Dx, Settings: rd.Settings,
		Region: rd.Region, HasRegion: rd.HasRegion}
}

// frameTimes closes the window's bucket and reads the timings; the window's rates go to
// run (and whether real time lags).
func (r *Runner) frameTimes(run *Run) FrameTimes {
	ft := FrameTimes{Total: r.clocks.timings()}
	r.win.close(time.Now(), ft.Total.Render)
	var rt rates
	ft.Window, rt = r.win.summary()
	run.StepsPerSec, run.RealTime, run.FramesPerSec = rt.stepsPerSec, rt.realTime, rt.framesPerSec
	run.Lagging = r.status == StatusRunning && r.pace.behind(time.Now(), rt)
	ft.Spark = r.win.sparkline()
	return ft
}

// BackendName is a backend as people read it: "cpu, 2 worker(s)", or the device's name.
func BackendName(backend string, workers int) string {
	if backend == "cpu" {
		return fmt.Sprintf("cpu, %d worker(s)", workers)
	}
	return backend
}
