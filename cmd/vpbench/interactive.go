package main

import (
	"context"
	"flag"
	"io"
)

// defaultCommand is `vpbench [flags] [scenario.lua]`: the terminal UI will live here; for
// now it runs the scenario with progress lines and reloads it whenever its file changes.
func defaultCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vpbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o runOptions
	o.register(fs)
	fs.BoolVar(&o.watch, "watch", true, "reload the scenario when its file changes")
	fs.Usage = func() { usage(stderr) }
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("unexpected arguments %q: give one scenario file (or a command: run, check, bench, help)", pos[1:])
	}
	if err := o.validate(); err != nil {
		return err
	}
	if len(pos) == 0 {
		if o.until == 0 {
			o.until = 4 // the demo has no main: show its first 4 s
		}
		return runScenario(ctx, "", o, stdout, stderr)
	}
	if !o.watch {
		return runScenario(ctx, pos[0], o, stdout, stderr)
	}
	return watchScenario(ctx, pos[0], o, stdout, stderr)
}
