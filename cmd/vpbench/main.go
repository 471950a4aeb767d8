// Command vpbench is the workbench: it runs Lua scenario scripts on the extended virtual
// pipes solver and reports what happens.
//
//	vpbench [flags] [scenario.lua]        run a scenario (the built-in demo when none is
//	                                      given) in the terminal UI (--plain: progress lines);
//	                                      reloads when the file changes
//	vpbench run --headless --until T ...  run without UI; Table 1 timings and volume at the end
//	vpbench check scenario.lua            build the scene, report it, run nothing
//	vpbench bench [--plot FILE.png]       run the scenario library and compare timings
//	vpbench render --at T scenario.lua    draw the preview's picture at time T (PNG or JPEG)
//	vpbench validate [--short] [--out DIR] the analytic validation suite (docs/validation.md)
//	vpbench sweep plan|run|slurm|collect  parameter studies (docs/sweeps.md)
//	vpbench help [command]                every command's flags (help.go), or one's in full
//	vpbench version                       the scripting API's version and the Go release
//
// Exit statuses: 0 success, 1 a run that failed (a script or solver error: file:line and
// message on stderr), 2 a usage error (a bad flag or value, a missing or unreadable file).
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

// process is what the process gives its commands: the preview's window and OpenGL
// (host), served on the main thread by main for the commands that may draw (run, render,
// the default mode, sweep task; nil otherwise), and the vpbench binary a sweep runs its
// tasks with.
type process struct {
	host       *preview.Host
	executable func() (string, error)
}

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
	p := process{executable: os.Executable}
	if mayDraw(args) {
		p.host = preview.NewHost()
		p.host.AutoXvfb = true
		p.host.Log = func(msg string) { fmt.Fprintln(os.Stderr, msg) }
	}
	code := exitOK
	go func() {
		defer done()
		code = run(ctx, p, args, os.Stdout, os.Stderr)
	}()
	if p.host != nil {
		p.host.Serve(serve)
	} else {
		<-serve.Done()
	}
	stop()
	os.Exit(code)
}

// mayDraw reports whether the command line may use the preview: every command but check,
// bench, validate, sweep (but sweep task, which draws a study's pictures), help and
// version.
func mayDraw(args []string) bool {
	if len(args) == 0 {
		return true
	}
	if args[0] == "sweep" && len(args) > 1 && args[1] == "task" {
		return true
	}
	switch args[0] {
	case "check", "bench", "validate", "sweep", "help", "-h", "-help", "--help", "version", "-version", "--version":
		return false
	}
	return true
}

// run dispatches a command line and turns its result into an exit status: 0 success
// (help and version too), 1 a run that failed (a script or solver error), 2 a usage error
// (a bad flag or value, a missing or unreadable file), printed once on stderr.
func run(ctx context.Context, p process, args []string, stdout, stderr io.Writer) int {
	var err error
	name := "" // the command, for its help; "" the default mode
	switch {
	case len(args) == 0:
		err = defaultCommand(ctx, p, args, stdout, stderr)
	case args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		err = helpCommand(args[1:], stdout) // "vpbench -h run" is "vpbench help run"
		name = "help"
	case args[0] == "version" || args[0] == "-version" || args[0] == "--version":
		if len(args) > 1 {
			err = usagef("%s takes no arguments, got %q", args[0], args[1:])
			break
		}
		fmt.Fprintln(stdout, versionString())
	default:
		if c, ok := lookupCommand(args[0]); ok && c.run != nil {
			name = c.name
			err = c.run(ctx, p, args[1:], stdout, stderr)
		} else if uc := unknownCommand(args[0]); uc != nil {
			err = uc // `vpbench rn x.lua`: no command, nor a scenario file
		} else {
			err = defaultCommand(ctx, p, args, stdout, stderr)
		}
	}
	var ue usageError
	var help helpRequest
	if err != nil && !errors.As(err, &ue) && fileArgError(err, args) {
		err = usageError{err.Error()} // a missing or unreadable file: 2, as a bad flag
	}
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &help): // -h or --help among a command's flags: its help, on stdout
		if c, ok := lookupCommand(name); ok {
			writeCommandHelp(stdout, c)
		} else {
			usage(stdout)
		}
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "vpbench: %v\n", err)
		if name == "" || name == "help" {
			fmt.Fprintf(stderr, "run 'vpbench help' for usage\n")
		} else {
			fmt.Fprintf(stderr, "run 'vpbench help %s' for usage\n", name)
		}
		return exitUsage
	default:
		fmt.Fprintf(stderr, "%v\n", err)
		return exitRun
	}
}
