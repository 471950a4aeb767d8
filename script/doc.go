// Package script loads and runs scenario scripts: Lua files that set up a simulation
// (domain, terrain, liquid, sources) and act on it while it runs. It is the Lua binding
// of a scene.Scene (the simulated world, which it sets up and changes only through the
// scene's methods) and the scheduler of the script's callbacks between the scene's
// steps. docs/scripting.md is the user's reference for every function and states the Lua
// contract (the fixed names).
//
// # Go API
//
// Load (a file) or LoadSource (an in-memory script such as the command's demo) compiles
// the script once and runs its top level, the scene set-up, under Options: Print receives
// print() output and warnings; Params are vp.param's values; Backend and Workers override
// vp.sim's (Workers < 0 keeps the script's: the zero Options run on all cores);
// CallbackTimeout bounds each entry into Lua (2 s of CPU time by default).
//
//	s, err := script.Load("scenario.lua", script.Options{Print: log, Workers: -1})
//	if err != nil { ... }         // *script.Error: "file:line: message"
//	defer s.Close()
//	for {
//		adv, err := s.Advance(50)   // up to 50 steps, stopping where a callback is due
//		if err != nil { ... }       // the scenario is stopped; the Sim keeps its last state
//		if adv.Done || s.Scene().Time() >= until { break }
//	}
//
// vpbench's own loop (package engine) does this with pacing, surfaces and Table 1's
// clocks; other callers can use the loop above.
//
// Advance steps the solver and, between steps, fires what is due: sim:at and sim:every
// callbacks and main's vp.wait. It stops early at the first step boundary where something
// is due, so a caller that draws after each call sees every callback's effect. The first
// call fires what is due at time 0 (main starts then) before stepping. done is true once
// main has returned; a scenario without main never finishes by itself. After an error
// (a callback error, a timeout) every later Advance returns the same *Error and does not
// step.
//
// Scene returns the simulated world the script set up (scene.Scene: the solver, built
// during Load and the same for the whole run, the terrain, the surface, the liquid's
// look); Info describes the scenario for `vpbench check` (the scene's grid, columns,
// memory estimate, dt and its stability limit, backend and settings, and the script's
// warnings, callbacks and parameters). Close stops the solver and the Lua state.
//
// # Declarations
//
// Each script function is declared once, beside the Go code that does the work, with its
// name and a one-line doc (decl): the sim object's methods by concept, one file each
// (sim_terrain.go, sim_sources.go, sim_settings.go, sim_time.go, sim_queries.go,
// sim_output.go), the vp module's in vp.go and solids.go. The tables scripts see are the
// unions of these declarations, and a test checks that docs/scripting.md documents
// exactly the names declared.
//
// # Timings
//
// Advance measures the wall time it spends in the solver and in the waves and returns
// them with the steps it took (Advanced). Table
// 1's clocks (simulation, surface, render per frame) belong to whoever runs the frames:
// Options.Timings hands them to sim:stats() (sim, surface, render = {frames, avg, max}),
// as package engine does. Without it, sim:stats() counts each Advance that stepped as a
// simulation frame and reports no surface or render frames.
//
// # Goroutines
//
// One goroutine (the runner) drives a Scenario: Advance, Info, Close and the scene's
// methods. Name and the scene's Time are safe from any goroutine, as are the scene's
// CopySnapshot and Stats (the UI reads those while the runner steps).
//
// # Errors
//
// Every error a script causes is an *Error whose File and Line point into the script (or
// the module it required): syntax errors (also those the parser reports at the end of
// the file), runtime errors, API misuse (the line of the vp call, the message naming the
// function and the field: "vp.box: min[3] is a string, want a number"), refusals from the
// solver or the terrain ("sim:source: at = {...} is outside the domain ..."), errors in a
// heightfield fn (at fn's line, naming the point), and timeouts ("callback ran longer
// than 2s (endless loop?)", at the line that was running). Errors from callbacks and main
// say which one and the simulated time. Problems that are not the script's (a file that
// cannot be read, bad Options) are plain errors.
//
// Warnings (Options.Print's "warning: " lines, Info().Warnings) name their place the same
// way, "file:line: fn: message": among them a figure far outside a small-liquid scene
// (a domain over 5 m, dx over 1 cm, a rate over 1e-3 m^3/s, a drop or fill over 1e-2
// m^3), with the unit slip it likely is (units.go). Every number in a message goes
// through fmtNum: as the script wrote it, or with 6 significant digits when it carries
// float noise.
//
// # The Lua API
//
// Every function below is documented in full in docs/scripting.md.
//
// Module vp (a global, and require("vp")):
//
//   - vp.sim{size, height, dx, dt, layers, viscosity, damping, gravity, cross_section,
//     extended_pipes, falling, fall_drop, backend, workers} -> sim: once per script; every
//     field optional with the contract's defaults (falling = "particles", fall_drop = 0:
//     8 cells); each is checked (unknown name, type, NaN, range, memory).
//   - vp.param(name, default): Options.Params[name] converted to default's type (number,
//     boolean or string), or default.
//   - vp.version: the API version (Version).
//   - vp.wait(seconds): only inside main: resume after seconds of simulated time.
//
// Solids (signed distance fields; userdata with translate, rotate and scale):
//
//   - vp.box{min, max}, vp.sphere{center, radius}, vp.cylinder{base, axis, radius, length},
//     vp.plane{point, normal} (solid below), vp.heightfield{fn = function(x, y) return z
//     end} (fn runs during extraction, serialised, one call per cell centre),
//     vp.mesh(path, {scale, up, place, at}) (an OBJ or STL mesh, path relative to the
//     script's folder, or read from Options.Files).
//   - vp.union(a, b, ...), vp.intersection(a, b, ...) (arguments or one array),
//     vp.difference(a, b).
//   - solid:translate{dx, dy, dz} (or three numbers), solid:rotate{axis, angle},
//     solid:scale(s).
//
// Scene and liquid (methods of the sim):
//
//   - sim:terrain(solid): extract the columns; the first call builds the solver, later
//     ones (also mid-run) rebuild its columns keeping the liquid. Without any call the
//     terrain is the empty domain.
//   - sim:fill{at, level} -> volume added.
//   - sim:source{at, radius, rate, start, stop, falls, velocity} and sim:sink{at, radius,
//     rate, start, stop} -> handle with :set_rate(q) and :stop(); rate >= 0 for both; a
//     source with falls = true pours from its point as particles moving at velocity.
//   - sim:drop{at, volume, velocity} (velocity optional): a parcel of liquid put into the
//     air, booked as added; it falls and lands like liquid released over a drop.
//   - sim:spray{at, direction, speed, spread, rate, start, stop, seed, radius} -> source
//     handle: a falling source whose parcels leave at speed in directions drawn within
//     the cone of half-angles spread around direction, reproducibly from seed
//     (sim_spray.go; gpusim.Emitter.Spread).
//   - sim:set{viscosity, damping, gravity, cross_section, extended_pipes, falling,
//     fall_drop, dt, workers, depth_max, meniscus_length, contact_angle, meniscus, liquid,
//     absorption}. vp.sim and sim:set read these with one parser (call.settings) and
//     change them through scene.Scene.Change, as the UI's keys and --workers do: the
//     same checks, the same warnings.
//
// Time:
//
//   - sim:at(t, fn), sim:every(period, fn) -> timer with :cancel(); fn(t_now) runs at the
//     first step boundary at or after its time, in time order, ties in scheduling order;
//     what is scheduled during a boundary's callbacks waits for the next boundary.
//   - a global function main runs as a coroutine from time 0; vp.wait yields it; its
//     return ends the run.
//
// Reading: sim:time(), sim:volume(), sim:depth(x, y), sim:columns(x, y) ->
// {{min, base, max, h}, ...}, sim:stats() -> {steps, time, dt, columns, wet, pipes,
// extended, passages, particles, airborne, volume, added, removed, rejected, backend,
// workers, step_ms, sim, surface, render}, sim:info() -> grid, memory, dt, settings
// (falling, and fall_drop: the release threshold in use, m). sim:volume() and the stats'
// volume include the liquid in the air (airborne).
//
// Output: print(...) goes to Options.Print; sim:export_mesh(path) writes the liquid
// surface (OBJ, or PLY by extension; relative paths inside the working folder only), with
// each particle in the air appended as a small sphere (scene.Scene.BuildSurface);
// sim:screenshot(path) calls Options.Screenshot (the command's preview renders the view
// offscreen when no window is open; an error says so when the hook is nil).
// sim:set{liquid = "blood"} (water, blood, coffee, paint, or {r, g, b}) sets the colour
// the preview gives the liquid (scene.Liquid).
//
// # Sandbox and limits
//
// The Lua state opens base (without dofile, loadfile, load, loadstring), table, string
// (without dump; rep bounded to 64 MiB), math and coroutine; no io, os, debug or package.
// require(name) loads name.lua from the script's folder only (letters, digits, _ and -),
// once. math.random is the scenario's own generator, seeded with 0, so runs are
// deterministic. Every entry into Lua (the top level, each callback, each resume of main,
// each heightfield fn call) runs under a watchdog that cancels the state's context after
// CallbackTimeout of the script's CPU time (the OS thread running Lua's, watchdog.go;
// wall time where threads have no CPU clock), so that a busy machine does not stop a
// script; the context is the scenario's for good, so pcall cannot swallow a timeout, and
// coroutines the script creates inherit it. Go work inside a vp call (extraction,
// building the solver, loading a mesh) pauses the watchdog. Callbacks run only between
// steps, so an error never leaves the solver half-updated; the Lua stack is reset after
// every entry. A memory monitor (memory.go) cancels the same context when the script
// has grown the Go heap by more than Options.MemoryLimit (1 GiB by default): the error
// says "the script used more than 1 GiB of memory". Not bounded: the time of a single
// Go library call (a pathological string pattern), and the memory of a single step
// (s .. s allocates its result at once, before the monitor can stop it).
package script
