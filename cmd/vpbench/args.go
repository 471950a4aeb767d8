package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vpbench/vpbench/script"
)

// usageError is a bad command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// parseInterspersed parses flags wherever they stand among the positional arguments
// ("run --until 3 scene.lua --param nu=4e-5"), which Go's flag package alone does not.
func parseInterspersed(fs *flag.FlagSet, args []string) (positional []string, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// paramFlags collects repeated --param name=value.
type paramFlags map[string]string

func (p paramFlags) String() string {
	var b strings.Builder
	for k, v := range p {
		fmt.Fprintf(&b, "%s=%s ", k, v)
	}
	return strings.TrimSpace(b.String())
}

func (p paramFlags) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	p[k] = v
	return nil
}

// scenarioFlags are the flags every command that loads a scenario takes.
type scenarioFlags struct {
	params  paramFlags
	backend string
	workers int
}

func (f *scenarioFlags) register(fs *flag.FlagSet) {
	f.params = paramFlags{}
	fs.Var(f.params, "param", "a scenario parameter name=value, read by vp.param (repeatable)")
	fs.StringVar(&f.backend, "backend", "", `solver backend: "cpu", "cuda" or "auto" (default: the script's)`)
	fs.IntVar(&f.workers, "workers", -1, "CPU threads (0 = all cores; default: the script's)")
}

func (f *scenarioFlags) options(print func(string)) script.Options {
	return script.Options{Print: print, Params: f.params, Backend: f.backend, Workers: f.workers}
}

// loadScenario loads a scenario file, or the built-in demo when path is "".
func loadScenario(path string, opt script.Options) (*script.Scenario, error) {
	if path == "" {
		return script.LoadSource("demo.lua", demoScript, opt)
	}
	return script.Load(path, opt)
}

// printer returns a Print function writing lines to w.
func printer(w io.Writer) func(string) {
	return func(msg string) { fmt.Fprintln(w, msg) }
}
