package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/internal/roofline"
	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/scripts"
)

// benchOptions are the flags of `vpbench bench`.
type benchOptions struct {
	scenarioFlags
	overlap      bool
	until        float64
	jsonPath     string
	plotPath     string
	plotScenario string
	plotDx       string
	only         string
	cpuprofile   string // --cpuprofile: a CPU profile of the whole bench
	surface      bool
	fps          float64
	frameSteps   int
	roofline     bool
}

// benchCommand is `vpbench bench`: every scenario of the library, headless, for a fixed
// simulated time, with the paper's Table 1 timings; optionally a plot of the time per step
// against grid size for one scenario (the paper's Fig. 16 and 22).
func benchCommand(ctx context.Context, p process, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("vpbench bench", flag.ContinueOnError)
	flags.SetOutput(stderr)
	var o benchOptions
	o.register(flags)
	flags.Float64Var(&o.until, "until", 1, "simulated seconds to run each scenario")
	flags.StringVar(&o.jsonPath, "json", "", "also write the results to this JSON file")
	flags.StringVar(&o.plotPath, "plot", "", "draw the time per step against grid size to this PNG file")
	flags.StringVar(&o.plotScenario, "plot-scenario", "viscosity", "the scenario the plot runs (it must read vp.param(\"dx\", ...))")
	flags.StringVar(&o.plotDx, "plot-dx", "0.002,0.001,0.00075,0.0005,0.0004", "the cell sizes (m) the plot runs, comma-separated")
	flags.StringVar(&o.only, "only", "", "run only these scenarios (comma-separated names, without .lua)")
	flags.BoolVar(&o.surface, "surface", true, "build the liquid surface every frame (Table 1's surface column)")
	flags.BoolVar(&o.overlap, "overlap", true, overlapHelp)
	flags.Float64Var(&o.fps, "fps", engine.DefaultFPS, "frames a simulated second, one surface each")
	flags.IntVar(&o.frameSteps, "frame-steps", 0, "fixed solver steps per frame instead, as in the paper's Table 1 (excludes --fps)")
	flags.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole bench to this file (for go tool pprof)")
	flags.BoolVar(&o.roofline, "roofline", false, "measure the memory bandwidth (STREAM triad) first and give each solver's column-steps a second as a fraction of the bound it sets")
	// Its help is help.go's, from these flags.
	pos, err := parseInterspersed(flags, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("vpbench bench takes at most one library folder")
	}
	if math.IsNaN(o.until) || o.until <= 0 || math.IsInf(o.until, 0) {
		return usagef("--until is %v: it must be > 0 simulated seconds", o.until)
	}
	if flagGiven(flags, "fps") && flagGiven(flags, "frame-steps") {
		return usagef("--fps and --frame-steps exclude each other: give one")
	}
	if math.IsNaN(o.fps) || math.IsInf(o.fps, 0) || o.fps <= 0 || o.fps > 1000 {
		return usagef("--fps is %v: it must be a number of frames a second in (0, 1000]", o.fps)
	}
	if o.frameSteps < 0 || flagGiven(flags, "frame-steps") && o.frameSteps < 1 {
		return usagef("--frame-steps is %d: it must be >= 1", o.frameSteps)
	}
	lib, err := openLibrary(pos)
	if err != nil {
		return err
	}
	names, err := libraryNames(lib, o.only)
	if err != nil {
		return err
	}
	stop, err := startProfile(o.cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	var bound float64 // column-steps a second the memory allows; 0 without --roofline
	if o.roofline {
		bound = measureBound(stdout)
	}
	var reports []runReport
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		rep, err := benchOne(ctx, lib, name, o.options(func(string) {}), o.until, o)
		rep.setBound(bound)
		if err != nil {
			rep.Error = err.Error()
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
		}
		rep.print(stdout)
		reports = append(reports, rep)
	}
	printSummary(stdout, reports)
	if o.jsonPath != "" {
		if err := writeJSON(o.jsonPath, reports); err != nil {
			return err
		}
	}
	if o.plotPath != "" {
		if err := plotGridSizes(ctx, lib, o, stdout); err != nil {
			return err
		}
	}
	for _, r := range reports {
		if r.Error != "" {
			return errors.New("some scenarios failed (see above)")
		}
	}
	return nil
}

// openLibrary is the scenario folder given, or the library built into the binary.
func openLibrary(pos []string) (fs.FS, error) {
	if len(pos) == 0 {
		return scripts.FS, nil
	}
	st, err := os.Stat(pos[0])
	if err != nil {
		return nil, usagef("library folder: %v", err)
	}
	if !st.IsDir() {
		return nil, usagef("%s is not a folder of scenarios", pos[0])
	}
	return os.DirFS(pos[0]), nil
}

// libraryNames lists the scenarios (.lua files) of a library, or the ones named in only.
func libraryNames(lib fs.FS, only string) ([]string, error) {
	files, err := fs.Glob(lib, "*.lua")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(f, ".lua"))
	}
	sort.Strings(names)
	if only == "" {
		if len(names) == 0 {
			return nil, usagef("the library has no .lua scenarios")
		}
		return names, nil
	}
	var picked []string
	for _, n := range strings.Split(only, ",") {
		n = strings.TrimSuffix(strings.TrimSpace(n), ".lua")
		if !slices.Contains(names, n) {
			return nil, usagef("--only: no scenario %q in the library (have %s)", n, strings.Join(names, ", "))
		}
		picked = append(picked, n)
	}
	return picked, nil
}

// benchOne runs one library scenario for until simulated seconds, headless on the run
// loop, with o's frames (the default 60 a simulated second, one surface each).
func benchOne(ctx context.Context, lib fs.FS, name string, opt script.Options, until float64, o benchOptions) (runReport, error) {
	src, err := fs.ReadFile(lib, name+".lua")
	if err != nil {
		return runReport{Scenario: name}, err
	}
	opt.Files = lib // the scenes' models are read from the library too
	cfg := engine.Config{Source: src, SourceName: name + ".lua", Script: opt, FPS: o.fps, FrameSteps: o.frameSteps,
		Until: until, Surface: o.surface, Overlap: o.overlap, Speed: engine.Speed{Max: true}, Headless: true, NoMap: true}
	res := runHeadless(ctx, cfg, io.Discard, nil)
	if !res.Loaded {
		return runReport{Scenario: name}, res.Err
	}
	return makeReport(res), res.Err
}

// measureBound measures the STREAM triad with every core and prints it with the
// processor and the bound it sets on the solver: gpusim.BytesPerColumnStep bytes a
// column-step. It returns the bound in column-steps a second.
func measureBound(w io.Writer) float64 {
	workers := runtime.GOMAXPROCS(0)
	bw := roofline.Triad(workers, time.Second)
	bound := bw / gpusim.BytesPerColumnStep
	fmt.Fprintf(w, "processor: %s (%d workers)\nmemory: STREAM triad %.1f GB/s: at %d bytes a column-step, at most %.0f M column-steps/s from memory\n",
		roofline.Processor(), workers, bw/1e9, gpusim.BytesPerColumnStep, bound/1e6)
	return bound
}

// setBound sets the solver's column-steps a second and, with bound > 0 (column-steps a
// second the memory allows), its fraction of that bound.
func (r *runReport) setBound(bound float64) {
	if r.SimulationStepMs <= 0 || r.Columns == 0 {
		return
	}
	r.MColumnStepsPerS = float64(r.Columns) / r.SimulationStepMs * 1e3 / 1e6
	if bound > 0 {
		r.OfBound = r.MColumnStepsPerS * 1e6 / bound
	}
}

// printSummary is one line per scenario: the Table 1 total and the real-time factors,
// with the one-time set-up after the load (x realtime) and without it (x steady: the
// simulated time over the frames' own wall time, from the first frame on), with a 3D
// region the region's time a step of its own (part of sim/step; a dash for the scenes
// without one, the column only when one has one), and with a measured bound the
// solver's rate against it.
func printSummary(w io.Writer, reps []runReport) {
	roof := slices.ContainsFunc(reps, func(r runReport) bool { return r.OfBound > 0 })
	region := slices.ContainsFunc(reps, func(r runReport) bool { return r.Region != nil })
	fmt.Fprintf(w, "\n%-16s %12s %9s %9s %9s %9s %9s %10s %9s", "scenario", "grid", "columns", "sim/step", "sim avg", "sim max", "total", "x realtime", "x steady")
	if region {
		fmt.Fprintf(w, " %11s", "region/step")
	}
	if roof {
		fmt.Fprintf(w, " %10s %8s", "Mcolstep/s", "of-bound")
	}
	fmt.Fprintln(w)
	for _, r := range reps {
		if r.Error != "" {
			fmt.Fprintf(w, "%-16s failed: %s\n", r.Scenario, r.Error)
			continue
		}
		fmt.Fprintf(w, "%-16s %12s %9d %9.3f %9.3f %9.3f %9.3f %10.2f %9.2f", r.Scenario, fmt.Sprintf("%dx%dx%d", r.Nx, r.Ny, r.Layers),
			r.Columns, r.SimulationStepMs, r.Simulation.AvgMs, r.Simulation.MaxMs, r.Total.AvgMs, r.RealTimeFactor, r.SteadyFactor)
		switch {
		case region && r.Region != nil:
			fmt.Fprintf(w, " %11.3f", r.Region.StepMs)
		case region:
			fmt.Fprintf(w, " %11s", "-")
		}
		if roof {
			fmt.Fprintf(w, " %10.1f %8.2f", r.MColumnStepsPerS, r.OfBound)
		}
		fmt.Fprintln(w)
	}
}

// plotGridSizes runs one scenario at several cell sizes and plots the mean time per step
// against the number of cells.
func plotGridSizes(ctx context.Context, lib fs.FS, o benchOptions, stdout io.Writer) error {
	var dxs []float64
	for _, s := range strings.Split(o.plotDx, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || v <= 0 {
			return usagef("--plot-dx: %q is not a cell size in metres", s)
		}
		dxs = append(dxs, v)
	}
	pts := make(plotter.XYs, 0, len(dxs))
	seen := map[int]float64{}
	fmt.Fprintf(stdout, "\n%s: time per step against grid size\n", o.plotScenario)
	for _, dx := range dxs {
		opt := o.options(func(string) {})
		params := paramFlags{}
		for k, v := range o.params {
			params[k] = v
		}
		params["dx"] = strconv.FormatFloat(dx, 'g', -1, 64)
		opt.Params = params
		po := o
		po.surface = false
		rep, err := benchOne(ctx, lib, o.plotScenario, opt, min(o.until, 0.3), po)
		if err != nil {
			return fmt.Errorf("--plot: %s at dx = %g: %w", o.plotScenario, dx, err)
		}
		cells := rep.Nx * rep.Ny
		if prev, ok := seen[cells]; ok {
			return fmt.Errorf("--plot: %s has the same grid at dx = %g and dx = %g: does it read vp.param(\"dx\", ...)?", o.plotScenario, prev, dx)
		}
		seen[cells] = dx
		fmt.Fprintf(stdout, "  dx %-8g %5dx%-5d %9d columns %9.3f ms a step\n", dx, rep.Nx, rep.Ny, rep.Columns, rep.SimulationStepMs)
		pts = append(pts, plotter.XY{X: float64(cells), Y: rep.SimulationStepMs})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: simulation time per step (%s backend)", o.plotScenario, backendName(o.backend))
	p.X.Label.Text = "grid cells (N x N)"
	p.Y.Label.Text = "ms per step"
	line, scatter, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	p.Add(line, scatter, plotter.NewGrid())
	if err := p.Save(6*vg.Inch, 4*vg.Inch, o.plotPath); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	fmt.Fprintf(stdout, "  plot written to %s\n", filepath.Clean(o.plotPath))
	return nil
}

func backendName(b string) string {
	if b == "" {
		return "script's"
	}
	return b
}
