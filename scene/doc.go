// Package scene is the simulated world of one run: the solver (gpusim.Sim) on the
// terrain's columns, the terrain's solid and triangle mesh, the liquid surface built over
// the solver's heights with its settings, and how the liquid looks. It knows nothing of
// Lua (package script binds it to scripts and schedules their callbacks), of the run loop
// (package engine steps it, builds a surface a frame and hands frames to the preview) or
// of OpenGL (package preview draws frames made from it).
//
// # One way to change a setting
//
// Change is the only way a setting changes: vp.sim (through New), sim:set, the terminal
// UI's keys and the command's --workers and --method all go through it. It takes a
// function that edits a copy of the Settings, applies the outside overrides
// (Config.Workers and Config.Method, from --workers and --method),
// validates the whole (the solver's, the surface's and the liquid's rules), applies it
// when valid and returns the warnings the new settings raise (a dt above the stability
// limit, more workers than cores). An invalid change changes nothing.
//
// # Units
//
// SI throughout: lengths and heights in m, volumes in m^3, times in s, viscosities in
// m^2/s, extinctions in 1/m; colours are sRGB in [0, 1].
//
// # Invariants
//
//   - The solver is built once, by the first SetTerrain (or EnsureSolver on the empty
//     domain), and is the same for the whole run; a terrain change hands it new columns
//     on the same grid, carrying the liquid over.
//   - The surface builder and the terrain mesh are made when first needed and again after
//     a terrain change (they cost a marching-cubes pass over the domain).
//   - Snapshot is the solver's state at the current step boundary, copied at most once
//     per boundary; every change of the state (steps, fills, drops, terrain) drops it.
//
// # Sources and sinks
//
// The script adds sources and sinks through the scene (AddEmitter, SetEmitterRate,
// StopEmitter), which keeps a record of them beside the solver (the solver publishes no
// list; checkpoints carry it: EmitterStates, RestoreEmitters) so that Sinks can list the
// sinks' marks the viewers draw where a sink takes liquid (docs/preview.md, "Sinks").
//
// # The only door to the solver
//
// No user of a Scene holds the solver: the run loop, the script binding and the tools
// ask the scene (solver.go) for time, steps, dt, columns, stats, volumes, heights,
// particles, meters and the solver's checkpoint, change the world through its methods
// (sources, sinks and sprays with AddEmitter, meters with AddMeter, settings with
// Change), and read what a viewer shows with Read (a Readout built from the scene's own
// snapshot). The solver's vocabulary (its settings, emitters, meters, snapshot) is named
// here as aliases, so that engine and script import no gpusim (internal/archcheck
// checks it).
//
// # Goroutines
//
// One goroutine (the runner) drives a Scene: every method but Name, Time and Stats, which
// are safe from any goroutine.
package scene
