package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/vpbench/vpbench/script"
)

// command is one of vpbench's commands, as help lists it; name "" is the default mode.
type command struct {
	name     string
	synopsis string // after "vpbench "
	about    string
	run      func(ctx context.Context, p process, args []string, stdout, stderr io.Writer) error // nil: help, version
}

// commands are vpbench's commands in the order help lists them. Their flags are not
// listed here: help reads them from each command's own flag set (flagSetOf), so that it
// cannot go stale.
func commands() []command {
	return []command{
		{"", "[flags] [scenario.lua]",
			"Runs a scenario (no file: the built-in demo) in the terminal UI: live timings, volumes, depth map, log; " +
				"keys: space pause, s step, +/- viscosity, q quit. With --plain, or without a terminal, progress lines " +
				"instead. Reloads when the file changes (--watch).", defaultCommand},
		{"run", "run [--headless] [--until T] [--json FILE] [flags] [scenario.lua]",
			"Runs a scenario (the built-in demo when none is given) without the UI and prints the paper's Table 1 " +
				"timings and the volume accounting.", runCommand},
		{"check", "check [flags] scenario.lua",
			"Builds the scene of a scenario without running it and reports its grid, columns, memory and time step.",
			func(_ context.Context, _ process, args []string, stdout, stderr io.Writer) error {
				return checkCommand(args, stdout, stderr)
			}},
		{"bench", "bench [--until 1] [--json FILE] [--plot FILE.png] [flags] [library-folder]",
			"Runs every scenario of the library (the folder, default the built-in one) headless for --until simulated " +
				"seconds and prints each one's Table 1 and a summary: the real-time factor with the one-time set-up " +
				"(x realtime) and without it (x steady); a scene with a 3D region (sim:region) adds the region's row " +
				"and its time a step (region/step).", benchCommand},
		{"render", "render --at T [--png out.png|out.jpg] [flags] scenario.lua\n" +
			"       vpbench render --from A --to B [--fps F] --out clip.mp4|frames/f_%04d.png [flags] scenario.lua",
			"Runs a scenario headless to simulated time T and renders the preview's picture offscreen into a PNG or " +
				"a JPEG, by the file's extension (--png, or --out without --to); or " +
				"the pictures at simulated times A, A + 1/F, ... up to B into a video (through ffmpeg) or numbered PNGs. " +
				"Needs an X display for OpenGL; without DISPLAY it starts a private Xvfb when Xvfb is installed.", renderCommand},
		{"validate", "validate [--only NAME[,NAME]] [--method pipes|swe|both] [--short] [--out DIR]",
			"Runs the analytic validation suite (docs/validation.md): dam breaks, Thacker's oscillation, viscous " +
				"gravity currents, communicating vessels, a ballistic drop, the wave ring, the liquid's edge (a fast " +
				"pour's puddle, a sessile drop, a drop pinned on a slope), a water column's collapse (the 3D region " +
				"against Martin and Moyce's measurements); prints each measured number " +
				"against its analytic value and, with --out, writes DIR/report.md with a plot per case. Exit status 1 " +
				"when a result expected to pass fails.", validateCommand},
		{"sweep", "sweep plan|run|task|slurm|k8s|collect [flags] study.toml|study-folder",
			"Parameter studies (docs/sweeps.md): a study file (TOML) names a scenario, parameters with lists or ranges " +
				"of values, the simulated time and the outputs. plan lists the tasks and their cost; run runs them here, " +
				"--jobs at a time, each a subprocess, and resumes an interrupted study; task runs one (--index, or " +
				"$JOB_COMPLETION_INDEX); slurm writes (and with --submit submits) a job array; k8s writes an Indexed Job " +
				"manifest; collect writes the table (CSV, JSON), a plot of each output against each parameter and a " +
				"Markdown summary of a study's folder.", sweepCommand},
		{"help", "help [command]", "Prints this help (also -h, --help), or one command's in full (also vpbench COMMAND -h).", nil},
		{"version", "version", "Prints vpbench's version: the scripting API's (vp.version) and the Go release it was built with (also --version).", nil},
	}
}

// lookupCommand is the command called name (not the default mode).
func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name && name != "" {
			return c, true
		}
	}
	return command{}, false
}

// helpRequest is what parseInterspersed returns for -h or --help: the flag set, for the
// help that run prints to stdout. It is flag.ErrHelp.
type helpRequest struct{ fs *flag.FlagSet }

func (helpRequest) Error() string { return flag.ErrHelp.Error() }
func (helpRequest) Unwrap() error { return flag.ErrHelp }

// flagSetOf is the flag set of a command: the command parses -h, which returns it before
// the command does anything else.
func flagSetOf(c command) *flag.FlagSet {
	if c.run == nil {
		return nil
	}
	var h helpRequest
	if err := c.run(context.Background(), process{}, []string{"-h"}, io.Discard, io.Discard); errors.As(err, &h) {
		return h.fs
	}
	return nil
}

// usage writes vpbench's whole help: every command with every flag, the default mode's
// in full.
func usage(w io.Writer) {
	fmt.Fprintf(w, "vpbench: a scripted workbench for small amounts of liquid (extended virtual pipes)\n\nusage:\n")
	cmds := commands()
	for _, c := range cmds {
		fmt.Fprintf(w, "  vpbench %s\n", strings.ReplaceAll(c.synopsis, "\n       vpbench ", "\n  vpbench "))
	}
	for _, c := range cmds {
		fmt.Fprintln(w)
		if c.name == "" {
			writeCommandHelp(w, c)
			continue
		}
		fmt.Fprintf(w, "vpbench %s: %s\n", c.name, wrap(c.about, len("vpbench "+c.name+": "), 0))
		if fs := flagSetOf(c); fs != nil {
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
			fmt.Fprintf(w, "  flags: %s\n", wrap(strings.Join(names, ", "), 9, 9))
			fmt.Fprintf(w, "  ('vpbench help %s' describes them)\n", c.name)
		}
	}
	fmt.Fprintf(w, "\nExit status: 0 success; 1 a run that failed (a script or solver error: file:line and message\n"+
		"on stderr); 2 a usage error (a bad flag or value, a missing or unreadable file).\n")
}

// writeCommandHelp writes one command's help: its synopsis, what it does, and each flag.
func writeCommandHelp(w io.Writer, c command) {
	fmt.Fprintf(w, "usage: vpbench %s\n\n%s\n", c.synopsis, wrap(c.about, 0, 0))
	if fs := flagSetOf(c); fs != nil {
		fmt.Fprintf(w, "\nflags:\n")
		printFlags(w, fs)
	}
}

// printFlags writes each flag of fs with its argument, description and default, as
// flag.PrintDefaults does but with the two dashes the rest of the help uses.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, use := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "-1" && !strings.Contains(use, "default") {
			if arg == "string" {
				d = fmt.Sprintf("%q", d)
			}
			use += fmt.Sprintf(" (default %s)", d)
		}
		fmt.Fprintf(w, "%s\n        %s\n", line, wrap(use, 8, 8))
	})
}

// wrap breaks s into lines of at most 92 columns, the first starting at column first,
// the others indented by indent.
func wrap(s string, first, indent int) string {
	const width = 92
	var b strings.Builder
	col := first
	for i, word := range strings.Fields(s) {
		if i > 0 {
			if col+1+len(word) > width {
				b.WriteString("\n" + strings.Repeat(" ", indent))
				col = indent
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}

// helpCommand is `vpbench help [command]`.
func helpCommand(args []string, stdout io.Writer) error {
	switch {
	case len(args) == 0:
		usage(stdout)
		return nil
	case len(args) > 1:
		return usagef("vpbench help takes at most one command, got %q", args)
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		mean := ""
		if n, ok := closest(args[0], commandNames()); ok {
			mean = fmt.Sprintf(" (did you mean %s?)", n)
		}
		return usagef("vpbench help: no command %q%s: the commands are %s", args[0], mean, strings.Join(commandNames(), ", "))
	}
	writeCommandHelp(stdout, c)
	return nil
}

// versionString is vpbench's version: the scripting API's (script.Version, vp.version in
// scripts), the module's when the build recorded one, and the Go release.
func versionString() string {
	v := "vpbench " + script.Version + " (scripting API, vp.version)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v += ", module " + bi.Main.Version
	}
	return fmt.Sprintf("%s, built with %s %s/%s", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
