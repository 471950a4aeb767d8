// Package tui is vpbench's terminal UI: `vpbench scenario.lua` on a terminal.
//
// It is a Bubble Tea program in the style of charmbracelet's own applications: the engine
// (Runner) owns the scenario and steps it on its own goroutine; it reaches the UI only
// through messages (engine.State, engine.Log, sent with Program.Send at most 25 times a second),
// and the UI (Model) reaches it only through Commands on a buffered channel, sent without
// blocking. The model holds no engine state, only the copies the messages carry, so its
// Update always returns at once, whatever the solver does.
//
// The screen (docs/tui.md): the scenario's name, pace and backend; the paper's Table 1
// timings (simulation, surface, render: average and maximum ms per frame over the last
// two seconds and since the start) with a sparkline of recent frame times; the volume
// accounting; columns, pipes and extended pipes; the solver settings; a top-down depth
// map drawn with coloured half blocks; a log of the script's output, warnings and errors
// (file:line); a help line.
package tui
