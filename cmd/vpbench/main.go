// Command vpbench is the workbench: it runs Lua scenario scripts on the extended virtual
// pipes solver and reports what happens.
//
//	vpbench [flags] [scenario.lua]        run a scenario (the built-in demo when none is
//	                                      given) in the terminal UI (--plain: progress lines);
//	                                      reloads when the file changes
//	vpbench run --headless --until T ...  run without UI; Table 1 timings and volume at the end
//	vpbench check scenario.lua            build the scene, report it, run nothing
//	vpbench bench [--plot FILE.png]       run the scenario library and compare timings
//	vpbench render --at T scenario.lua    draw the preview's picture at time T into a PNG
//
// Exit statuses: 0 success, 1 a script or run error (file:line and message on stderr),
// 2 bad arguments.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/vpbench/vpbench/preview"
	"github.com/vpbench/vpbench/scripts"
)

const (
	exitOK    = 0
	exitRun   = 1
	exitUsage = 2
)

// demoScript is the built-in demo: a source pouring onto an incline.
var demoScript = scripts.Demo

// previewHost is the preview's window and OpenGL, served on the main thread by main for
// the commands that may draw (run, render, the default mode); nil otherwise, and in
// tests that do not set one.
var previewHost *preview.Host

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	args := os.Args[1:]
	// The command never runs on this goroutine: package preview locks it to the main
	// thread (GLFW and OpenGL must run there), and a goroutine locked to a thread goes
	// through the OS to hand over at every wait. The solver's and the surface's workers
	// wait many times a frame: `vpbench bench` once ran here, its steps two to three times
	// as long as `vpbench run`'s. This goroutine serves the preview for the commands that
	// may draw (the host touches no display until something asks for a picture, so this
	// runs headless too), and only waits for the others.
	serve, done := context.WithCancel(context.Background())
	if mayDraw(args) {
		previewHost = preview.NewHost()
		previewHost.AutoXvfb = true
		previewHost.Log = func(msg string) { fmt.Fprintln(os.Stderr, msg) }
	}
	code := exitOK
	go func() {
		defer done()
		code = run(ctx, args, os.Stdout, os.Stderr)
	}()
	if previewHost != nil {
		previewHost.Serve(serve)
	} else {
		<-serve.Done()
	}
	stop()
	os.Exit(code)
}

// mayDraw reports whether the command line may use the preview: every command but check,
// bench and help.
func mayDraw(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "check", "bench", "help", "-h", "--help":
		return false
	}
	return true
}

// run dispatches a command line and turns its result into an exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var err error
	switch {
	case len(args) > 0 && args[0] == "run":
		err = runCommand(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "check":
		err = checkCommand(args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "bench":
		err = benchCommand(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "render":
		err = renderCommand(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help"):
		usage(stdout)
		return exitOK
	default:
		err = defaultCommand(ctx, args, stdout, stderr)
	}
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "vpbench: %v\n", err)
		fmt.Fprintf(stderr, "run 'vpbench help' for usage\n")
		return exitUsage
	default:
		fmt.Fprintf(stderr, "%v\n", err)
		return exitRun
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `vpbench: a scripted workbench for small amounts of liquid (extended virtual pipes)

usage:
  vpbench [flags] [scenario.lua]          run a scenario (no file: the built-in demo) in the
                                          terminal UI (live timings, volumes, depth map, log;
                                          keys: space pause, s step, +/- viscosity, q quit);
                                          --plain, or no terminal: progress lines instead.
                                          Reloads when the file changes
  vpbench run --headless [--until T] [--json FILE] [--param name=value]... scenario.lua
                                          run without a UI and print the paper's Table 1
                                          timings and the volume accounting
  vpbench check scenario.lua              build the scene and report grid, columns, memory
                                          and time step without running
  vpbench bench [--until 1] [--json FILE] [--plot FILE.png [--plot-scenario NAME]]
                                          run the scenario library and compare timings
  vpbench render --at T [--png out.png] [--width W --height H] [--view preset]
                 [--meniscus=false] [--param name=value]... scenario.lua
                                          run to simulated time T and draw the preview's
                                          picture offscreen into a PNG

Every command that runs a script takes --script-memory SIZE (512MiB, 2GiB, 1e9): the
memory the script may use, 1GiB by default; past it the script is stopped with an error.

vpbench run and the default mode take --preview: open the preview window (needs a
display; without one the run goes on and says so). sim:screenshot renders offscreen.

vpbench run and the default mode take --checkpoint FILE [--checkpoint-every S]: checkpoints
of the scenario every S simulated seconds, and a final one when the run stops (Ctrl-C, q,
--until); --resume FILE goes on from one, to the same results (docs/checkpoints.md).

Run 'vpbench run -h' (or check, bench, render) for each command's flags.
Exit status: 0 success, 1 script or run error, 2 bad arguments.
`)
}
