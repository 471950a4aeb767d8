package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/internal/filestamp"
	"github.com/vpbench/vpbench/tui"
)

// defaultCommand is `vpbench [flags] [scenario.lua]`: the terminal UI when stdin and
// stdout are terminals, else (or with --plain) the scenario with progress lines. Both
// reload the scenario when its file changes.
func defaultCommand(ctx context.Context, p process, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vpbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := runOptions{host: p.host}
	o.register(fs)
	fs.BoolVar(&o.watch, "watch", true, "reload the scenario when its file changes")
	plain := fs.Bool("plain", false, "no terminal UI: progress lines (the default when stdin or stdout is not a terminal)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		if err := unknownCommand(pos[0]); err != nil {
			return err // `vpbench --plain rn x.lua`: no command, nor a scenario file
		}
	}
	if len(pos) > 1 {
		return usagef("unexpected arguments %q: give one scenario file (or a command first: %s)", pos[1:], strings.Join(commandNames(), ", "))
	}
	path, stopProfile, err := o.begin(pos)
	if err != nil {
		return err
	}
	defer stopProfile()
	if !*plain && !o.headless && isTerminal(os.Stdin) && isTerminal(stdout) {
		// The UI shows Table 1's surface row: it builds the surface every frame unless
		// --surface=false says not to.
		if !flagGiven(fs, "surface") {
			o.surface = true
		}
		return runTUI(ctx, path, o, stdout)
	}
	if path == "" {
		if o.until == 0 {
			o.until = 4 // the demo has no main: show its first 4 s
		}
		return runScenario(ctx, "", o, stdout, stderr)
	}
	if !o.watch {
		return runScenario(ctx, path, o, stdout, stderr)
	}
	return watchScenario(ctx, path, o, stdout, stderr)
}

// flagGiven reports whether the command line set the flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runTUI runs the scenario (the built-in demo when path is "") in the terminal UI. A
// script that does not load is no failure here: the UI shows the error and reloads the
// file when it changes. The preview (when main serves one) gets its frames through the
// run loop, its `w` key through the link's adapter, and screenshots are its pictures.
// When the UI ends (q, Ctrl-C), the terminal restored, it prints the summary `vpbench
// run` prints (Table 1 and the volumes) to stdout.
func runTUI(ctx context.Context, path string, o runOptions, stdout io.Writer) error {
	if path != "" {
		if _, err := filestamp.Of(path); err != nil {
			return usagef("%v", err)
		}
	}
	link := newPreviewLink(o.host, path)
	cfg := o.engineConfig(path, link.src)
	cfg.Watch = o.watch && path != ""
	mo := tui.ModelOptions{ScreenshotDir: o.outDir} // c's screenshots; v's recordings go to cfg.OutDir
	var attach func(func(string))
	if h := o.host; h != nil {
		// The host's messages go to the UI's log while the UI owns the terminal.
		prevLog := h.Log
		attach = func(log func(string)) { h.Log = log }
		defer func() { h.Log = prevLog }()
		a := link.adapter()
		mo.Preview, mo.Screenshot = a, a.Screenshot
		if o.preview {
			if err := link.open(); err != nil {
				cfg.Notes = append(cfg.Notes, fmt.Sprintf("%v (the run goes on without it)", err))
			}
		}
		defer link.close()
	} else if o.preview {
		cfg.Notes = append(cfg.Notes, "--preview: no preview in this process (the run goes on without it)")
	}
	return tui.Run(ctx, tui.Options{Runner: cfg, ModelOptions: mo, Attach: attach, Finished: finalSummary(stdout)})
}

// finalSummary prints how the UI's run ended as `vpbench run` does (report.go): nothing
// when no scenario loaded.
func finalSummary(stdout io.Writer) func(engine.Result) {
	return func(res engine.Result) {
		if res.Loaded {
			rep := makeReport(res)
			rep.WallPaced = true
			rep.print(stdout)
		}
		if res.Timeline != nil {
			fmt.Fprintf(stdout, "%v\n", res.Timeline)
		}
	}
}
