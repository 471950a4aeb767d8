package engine

import (
	"time"

	"github.com/vpbench/vpbench/preview"
	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/timing"
)

// What a runner is given (Config) and what a headless run gives back (Result).

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
	// simulated second as fast as possible (in the UI a frame then covers several 1/FPS
	// intervals: pace.go). Each frame builds at most one surface.
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
	// Overlap builds each frame's surface while the solver runs the next frame's steps
	// on half the cores, unless the surface is a small part of the frame (scene.SetOverlap,
	// engine/overlap.go; docs/architecture.md, "Frames overlap"). Runs that export, call
	// OnFrame or record, and frames a window shows bodies in, build theirs in the frame as
	// before.
	Overlap bool
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
	// Checkpoints are the run's checkpoints and the one it resumes from (checkpoint.go).
	Checkpoints Checkpoints
	// OutDir is the folder of the UI's recordings (the v key), made when first needed
	// ("": DefaultOutDir). sim:record's paths are the script's own.
	OutDir string
	// Timeline, if its Path is set, writes a row of the run's figures and the script's
	// sim:report values every Timeline.Every simulated seconds (timeline.go).
	Timeline Timeline
	// NewClip makes a recording's writer (nil: clip.New, ffmpeg or numbered PNGs).
	NewClip ClipWriterFunc
	// Load, if set, loads the scenario instead of the script Path or Source names (the
	// engine's tests drive a scene without Lua; scenario.go).
	Load Loader
}

// DefaultOutDir is where the UI's screenshots and recordings (and, unless --export-dir
// says otherwise, the exports) go: --out-dir.
const DefaultOutDir = "vpbench-out"

// Result is how a headless run ended: the last state, the scenario's description, the
// Table 1 clocks, the frames' whole wall time, and the error that stopped it.
type Result struct {
	State State
	Info  script.Info
	// Total is the frames' whole wall time (steps, callbacks, surface) per frame.
	Total timing.PhaseClock
	// Wall is the wall time from the end of the load to the end of the run.
	Wall time.Duration
	// From is the simulated time the run started from: the checkpoint's when it resumed
	// (Checkpoints.Resume), 0 otherwise. The run covered State.Time - From in Wall.
	From float64
	// Err is the load error, the script error that stopped the run, or Final's.
	Err error
	// Loaded tells whether the scenario loaded (Info and the state's figures are valid).
	Loaded bool
	// Timeline is the error that stopped the timeline's rows or its file, if any.
	Timeline error
	// Reported is what the script reported with sim:report{...}: each name's latest value.
	Reported []script.Reported
	// Overlapped is the frames whose surface was built beside the next frame's steps
	// (Config.Overlap).
	Overlapped int
}
