package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/validate"
)

// validateCommand is `vpbench validate [--only NAME[,NAME]] [--method pipes|swe|both]
// [--short] [--out DIR]`: the analytic validation suite (package validate,
// docs/validation.md). It prints a row per measured number as the cases finish, writes
// DIR/report.md and a plot per case and method with --out, and fails (exit status 1) when
// a result expected to pass does not.
func validateCommand(ctx context.Context, p process, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vpbench validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("only", "", "run only these cases, comma-separated (the cases: "+strings.Join(validate.Names(), ", ")+")")
	method := fs.String("method", "both", `the solver method the method-dependent cases run with: "pipes", "swe" or "both", any case`)
	short := fs.Bool("short", false, "coarser grids and shorter runs, the same tolerances (what make test runs)")
	out := fs.String("out", "", "write DIR/report.md and a plot DIR/<case>_<method>.png per case and method into this folder (made when missing)")
	workers := fs.Int("workers", 0, "CPU threads of the solver (0 = all cores); the results do not depend on it")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("vpbench validate takes no arguments, got %q", pos)
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	cases, err := validate.Select(names)
	if err != nil {
		return usagef("--only: %v", err)
	}
	var methods []gpusim.Method
	if n, ok := gpusim.CanonicalName(append(slices.Clone(gpusim.MethodNames), "both"), *method); ok {
		*method = n // any case, as every enumerated name
	}
	switch *method {
	case "both":
		methods = []gpusim.Method{gpusim.MethodPipes, gpusim.MethodSWE}
	default:
		m, err := gpusim.ParseMethod(*method)
		if err != nil {
			return usagef("--method %q: want \"pipes\", \"swe\" or \"both\"", *method)
		}
		methods = []gpusim.Method{m}
	}
	if *workers < 0 {
		return usagef("--workers %d: want >= 0 (0 = all cores)", *workers)
	}
	if *out != "" {
		if err := validate.CheckDir(*out); err != nil {
			return usagef("%v", err)
		}
	}
	o := validate.Options{Short: *short, Methods: methods, Workers: *workers}
	fmt.Fprintln(stdout, validate.TableHeader)
	start := time.Now()
	var plotErr error
	outs := validate.Run(ctx, cases, o, func(oc validate.Outcome) {
		validate.WriteRows(stdout, oc)
		if *out != "" && plotErr == nil {
			plotErr = validate.WritePlot(*out, oc)
		}
	})
	total := time.Since(start)
	if ctx.Err() != nil {
		fmt.Fprintln(stdout, "stopped: the cases after the last row did not run")
	}
	if *out != "" {
		if plotErr != nil {
			return plotErr
		}
		if err := validate.WriteReport(*out, outs, o, total); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "report written to %s\n", filepath.Join(filepath.Clean(*out), "report.md"))
	}
	if !validate.OK(outs) {
		f := validate.Failures(outs)
		return fmt.Errorf("vpbench validate: %d result(s) expected to pass failed (%.1f s): %s", len(f), total.Seconds(), strings.Join(f, ", "))
	}
	fmt.Fprintf(stdout, "every result expected to pass passed (%.1f s)\n", total.Seconds())
	return nil
}
