package tui

import (
	"fmt"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/script"
)

// Speed is how the runner paces the solver: as fast as it can (Max), or so that
// simulated time runs Factor times as fast as wall time (1 = real time).
type Speed struct {
	Max    bool
	Factor float64
}

// RealTime is the pace at which one simulated second takes one wall second.
var RealTime = Speed{Factor: 1}

// speeds are the paces the speed key cycles through, in order.
var speeds = []Speed{RealTime, {Max: true}, {Factor: 0.1}, {Factor: 0.5}, {Factor: 2}}

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
	Simulation, Surface, Render script.PhaseTiming
}

// State is a copy of the engine's state, sent by the runner to the UI (StateMsg). It
// shares nothing with the runner: the UI may keep it as long as it likes.
type State struct {
	Status Status
	Err    string // the error that stopped the scenario, or that the script's load gave
	Name   string // the scenario's name (file base name)

	Backend string // as the solver reports it: "cpu", "cuda ..."
	Workers int

	Time        float64 // simulated s
	Steps       int64
	Dt          float64 // s
	Until       float64 // pause at this simulated time (0: never)
	StepsPerSec float64 // over the window
	RealTime    float64 // simulated s per wall s over the window
	Speed       Speed
	Lagging     bool // real-time pacing cannot keep up: the solver is slower than the pace asked

	Window Window         // recent frames
	Total  script.Timings // since the start
	Spark  []float64      // recent frame times (solver + surface), ms, oldest first

	Volume, Added, Removed, Rejected float64 // m^3
	Wet, Columns, Pipes              int
	Extended, Passages               int
	Nx, Ny, Layers                   int
	Dx                               float64
	Settings                         gpusim.Settings

	Layer Layer
	Map   DepthMap
}

// StateMsg carries a State from the runner to the UI.
type StateMsg struct{ State State }

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

// LogMsg carries log lines from the runner to the UI, in order.
type LogMsg struct{ Lines []LogLine }

// CommandKind is what the UI asks the runner to do.
type CommandKind int

const (
	CmdTogglePause CommandKind = iota
	CmdStep                    // pause, then advance one frame
	CmdCycleSpeed              // the next of speeds
	CmdViscosity               // multiply the viscosity by Command.Factor
	CmdReload                  // load the script again (from its file)
	CmdCycleLayer              // the depth map's next layer
	CmdMapSize                 // the room for the depth map: Command.Cols x Command.Rows characters
	CmdQuit
)

// Command is a request from the UI to the runner (Runner.Commands).
type Command struct {
	Kind       CommandKind
	Factor     float64
	Cols, Rows int
}
