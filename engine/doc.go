// Package engine is vpbench's run loop: the one place that steps a scenario, paces its
// frames, builds a surface per frame, writes exports and screenshots, feeds the preview
// and keeps the paper's Table 1 clocks. The terminal UI, `vpbench run`, `render` and
// `bench` all run scenarios through it.
//
// # The loop
//
// A Runner (New, then Run on its own goroutine) loads the scenario (script.Load) and
// repeats: plan a frame (pace.go), take its solver steps (script.Scenario.Advance, which
// stops early where a callback is due), build the frame's surface from the scene the
// script set up (scene.Scene) when something wants it (Config.Surface, an export, the
// preview, a screenshot), publish. Past Advance the runner works on the scene alone:
// surfaces, frames (preview.FrameOf), exports, the UI's setting keys (scene.Change),
// never back through the Lua binding. It stops when main
// returns, at Config.Until, on a script error, or when its context is cancelled; a
// headless runner (Config.Headless) then returns, an interactive one waits for commands
// (reload, step, quit). Result says how the run ended.
//
// # Parts
//
// Run is the loop (runner.go); each concern it composes is a small type of its own, in
// its own file with its own tests:
//
//   - the pacer (pace.go): each frame's steps and when it is due;
//   - the frame's work (frame.go): the surface, its export, the preview's frame;
//   - the clocks (clocks.go): Table 1 since the load, added to from the preview's
//     goroutine too;
//   - the window (window.go): the recent timings and rates and the sparkline;
//   - the outbox (outbox.go): the log lines not yet sent and when a State goes out;
//   - the script watcher (watcher.go): reload on save (Config.Watch);
//   - the commands (commands.go): what each of the UI's keys does;
//   - the recording (record.go): a clip of the preview's view;
//   - the region's mark (region.go): the 3D region's share of a frame's simulation time.
//
// # Frames and pacing
//
// A frame is what a screen shows: one surface, one preview picture, one row of Table 1.
// Config.FPS frames a second (DefaultFPS, 60): a second of wall time in real time, a
// second of simulated time as fast as possible (every headless run), so that a headless
// run's frames, exports and timings are the same on every machine. Config.FrameSteps
// fixes the steps a frame instead (the paper's Table 1 frames). A real-time frame takes
// the steps the wall clock asks for, at most what the measured step cost fits in two
// frame periods; a machine that cannot keep up lets the simulated clock slip smoothly
// and State.Lagging says so. Config.Until is reached exactly: the run stops at the first
// step boundary at or after it, so events scheduled at Until happen.
//
// # Messages
//
// The runner reaches its front ends only through the send function given to New (the
// UI's Program.Send): State (a copy of everything the UI shows, at most every
// SendInterval of wall time while running, at once when something changes while idle),
// Log (the script's prints, warnings, errors and the runner's notes, sent ahead of the
// State they go with, and headless after every frame) and, headless, Progress after
// every frame. Runner.Log may be called from any goroutine: it wakes an idle runner,
// which sends the line at once. Front ends steer the runner with Commands
// (Runner.Commands). The preview takes frames through a preview.Source and hands back
// values (its camera, meniscus switch, draw times); the runner adds the draw times to
// the render clock.
//
// # Timings
//
// Simulation is the solver's wall time per frame (Advance's), surface the frame's
// surface build (the terrain mesh and the minimum heights, made once after a terrain
// change, are left out), render the preview's draw (clocks.go); Timings returns them
// with the steps since the load (timing.Timings), and sim:stats() reads the same clocks.
// With a 3D region in place (sim:region) the region's row is its share of simulation
// (the scene steps it inside its step, so simulation keeps meaning the whole step): the
// difference of the region's own running clock (scene.RegionClock) across the frame,
// over its own steps; the State carries the region itself (scene.RegionInfo) for the
// UI's cells and particles.
// Result.Total is each frame's whole wall time. Tests assert what the runner does, never
// how fast: speed is measured by the benchmarks (BenchmarkRunnerAsFastAsPossible,
// BenchmarkRunnerState).
package engine
