// Command vpbench is the workbench: it builds a scene, steps the extended virtual pipes
// solver and reports what happens. With no arguments it runs the built-in demo: a source
// pouring onto an incline.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Exit statuses: 0 success, 1 a run that failed, 2 bad arguments.
const (
	exitOK    = 0
	exitRun   = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vpbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opt := defaultDemoOptions()
	fs.Float64Var(&opt.until, "until", opt.until, "simulated seconds to run")
	fs.IntVar(&opt.workers, "workers", opt.workers, "CPU threads (0 = all cores)")
	fs.Float64Var(&opt.viscosity, "viscosity", opt.viscosity, "kinematic viscosity, m^2/s")
	fs.StringVar(&opt.crossSection, "cross-section", opt.crossSection, `pipe cross-section: "paper" or "film"`)
	fs.StringVar(&opt.extended, "extended-pipes", opt.extended, `flow through flooded passages: "unified", "axis" or "off"`)
	fs.Float64Var(&opt.dx, "dx", opt.dx, "cell size, m")
	fs.Float64Var(&opt.every, "every", opt.every, "simulated seconds between progress lines")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: vpbench [flags]\n\nRuns the built-in demo (a source pouring onto an incline) and prints progress and a summary.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "vpbench: unexpected argument %q: scenario scripts are not supported yet; run with no arguments for the demo\n", fs.Arg(0))
		return exitUsage
	}
	if err := opt.validate(); err != nil {
		fmt.Fprintf(stderr, "vpbench: %v\n", err)
		return exitUsage
	}
	if err := runDemo(opt, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "vpbench: %v\n", err)
		return exitRun
	}
	return exitOK
}
