package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
)

// usageError is a bad command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// parseInterspersed parses flags wherever they stand among the positional arguments
// ("run --until 3 scene.lua --param nu=4e-5"), which Go's flag package alone does not.
// It prints nothing: a bad flag is a usageError (flagError words it: an unknown flag
// with the nearest defined one, a bad value with the flag, the value and what it takes),
// which run prints once; -h or --help is a helpRequest, whose help run prints to stdout.
func parseInterspersed(fs *flag.FlagSet, args []string) (positional []string, err error) {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defer func() { fs.SetOutput(out); fs.Usage = usage }()
	all := args
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequest{fs}
			}
			return nil, flagError(fs, all, err)
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

// fileArgError reports whether err is about a file named on the command line that could
// not be opened or read (a missing scenario, a folder given for one, an unreadable
// --resume): a usage error, exit status 2, however deep in the run it came up.
func fileArgError(err error, args []string) bool {
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "open" && pe.Op != "read" && pe.Op != "stat" {
		return false
	}
	for _, a := range args {
		_, v, _ := strings.Cut(a, "=") // --resume=FILE
		if pe.Path == a || pe.Path == v {
			return true
		}
	}
	return false
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
// overlapHelp is the --overlap flag's help (run, bench and the UI).
const overlapHelp = "build each frame's surface while the solver runs the next frame's steps on half the cores, unless the surface is a small part of the frame (the CPU backend, two cores or more; frames that export or show bodies in the window are built in step)"

type scenarioFlags struct {
	params       paramFlags
	backend      string
	method       string
	workers      int
	scriptMemory sizeFlag
}

func (f *scenarioFlags) register(fs *flag.FlagSet) {
	f.params = paramFlags{}
	fs.Var(f.params, "param", "a scenario parameter name=value, read by vp.param (repeatable)")
	fs.Var(backendFlag{&f.backend}, "backend", "the solver backend `NAME`: "+wantBackends+", any case (default: the script's)")
	fs.Var(nameFlag{&f.method, scene.MethodNames}, "method", "the heightfield method `NAME`: "+scene.WantNames(scene.MethodNames)+", any case (swe: the shallow water equations; default: the script's)")
	fs.IntVar(&f.workers, "workers", -1, "CPU threads (0 = all cores; default: the script's)")
	fs.Var(&f.scriptMemory, "script-memory", "the memory the script may use (512MiB, 2GiB, 1e9 bytes; default 1GiB): a script that grows past it is stopped with an error")
}

func (f *scenarioFlags) options(print func(string)) script.Options {
	return script.Options{Print: print, Params: f.params, Backend: f.backend, Method: f.method, Workers: f.workers, MemoryLimit: int64(f.scriptMemory)}
}

// nameFlag is a flag naming one of an enumerated setting's names (gpusim/names.go's
// tables, through the scene's): any case on the command line, kept as the canonical
// name; any other value is refused as the flag is parsed (exit status 2), with the names.
type nameFlag struct {
	value *string
	names []string
}

func (f nameFlag) String() string {
	if f.value == nil {
		return ""
	}
	return *f.value
}

func (f nameFlag) Set(s string) error {
	n, ok := gpusim.CanonicalName(f.names, s)
	if !ok {
		return fmt.Errorf("want %s", scene.WantNames(f.names))
	}
	*f.value = n
	return nil
}

// wantBackends are the backends --backend takes, as its messages list them.
const wantBackends = `"auto", "cpu" or "cuda"`

// backendFlag is --backend: a backend the solver has (scene.HasBackend), any case, kept
// in lower case; any other value is refused as the flag is parsed.
type backendFlag struct{ value *string }

func (f backendFlag) String() string {
	if f.value == nil {
		return ""
	}
	return *f.value
}

func (f backendFlag) Set(s string) error {
	for _, b := range []string{s, strings.ToLower(s)} {
		if scene.HasBackend(b) {
			*f.value = b
			return nil
		}
	}
	return fmt.Errorf("want %s", wantBackends)
}

// sizeFlag is a size in bytes: a number (1e9, 1048576) with an optional unit, B, KB, MB,
// GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024; K, M, G, T too), case
// and a space between ignored. 0 means the default.
type sizeFlag int64

func (f *sizeFlag) String() string {
	if *f == 0 {
		return ""
	}
	return script.FormatBytes(int64(*f))
}

func (f *sizeFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*f = sizeFlag(n)
	return nil
}

// parseSize reads a size for sizeFlag; it must be at least 1 MiB.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := len(t)
	for i > 0 && (t[i-1] >= 'a' && t[i-1] <= 'z') {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), t[i:]
	mult := map[string]float64{"": 1, "b": 1, "bytes": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3, "m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9, "t": 1 << 40, "tib": 1 << 40, "tb": 1e12}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if mult == 0 || err != nil || num == "" {
		return 0, fmt.Errorf("%q is not a size: want a number of bytes with an optional unit (512MiB, 2GiB, 1e9)", s)
	}
	b := v * mult
	if math.IsNaN(b) || b < 1<<20 || b > 1<<50 {
		return 0, fmt.Errorf("%q is not a usable size: want between 1 MiB and 1 PiB", s)
	}
	return int64(b), nil
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
