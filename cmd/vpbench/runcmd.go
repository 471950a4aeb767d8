package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/vpbench/vpbench/preview"
	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/surface"
)

// runOptions are the flags of `vpbench run` (and of the default mode).
type runOptions struct {
	scenarioFlags
	headless   bool
	until      float64 // simulated s; 0 = until main returns
	jsonPath   string
	frameSteps int
	every      float64 // simulated s between plain progress lines
	watch      bool    // reload when the file changes
	preview    bool    // open the preview window when the run starts
	cpuprofile string  // --cpuprofile: a CPU profile of the run
	frameWork
}

// frameWork is what a frame does besides stepping: build the liquid surface (timed as
// the Table 1 surface column) and write it out every so many frames.
type frameWork struct {
	surface     bool
	exportEvery int
	exportDir   string
	exportFmt   string
	link        *previewLink     // the run's preview (nil: none); it wants frames while a window shows it
	prep        time.Duration    // the last do's one-time surface preparation, left out of the timings
	builder     *surface.Builder // the builder prep made
}

func (f *frameWork) register(fs *flag.FlagSet, surfaceDefault bool) {
	fs.BoolVar(&f.surface, "surface", surfaceDefault, "build the liquid surface mesh every frame (Table 1's surface column)")
	fs.IntVar(&f.exportEvery, "export-every", 0, "write the surface mesh every N frames (0: never; implies --surface)")
	fs.StringVar(&f.exportDir, "export-dir", "out", "folder for --export-every's numbered meshes")
	fs.StringVar(&f.exportFmt, "export-format", "obj", `mesh format for --export-every: "obj" or "ply" (with opacity)`)
}

func (f *frameWork) validate() error {
	if f.exportEvery < 0 {
		return usagef("--export-every is %d: it must be >= 0", f.exportEvery)
	}
	if f.exportFmt != "obj" && f.exportFmt != "ply" {
		return usagef("--export-format is %q: want \"obj\" or \"ply\"", f.exportFmt)
	}
	if f.exportEvery > 0 {
		f.surface = true
	}
	return nil
}

// do runs the frame's surface work after frame number frame; it returns its duration.
// While the preview wants frames, the surface is built every frame (with the window's
// camera and meniscus switch) and handed to it.
func (f *frameWork) do(sc *script.Scenario, frame int) (time.Duration, error) {
	f.prep = 0
	wanted := f.link != nil && f.link.src.Wanted()
	if !f.surface && !wanted {
		return 0, nil
	}
	// The terrain mesh and minimum heights are made once (and again after a terrain
	// change), not per frame: prepared before the clock starts, so that Table 1's surface
	// column is the per-frame work (and the frame total leaves it out too: prep).
	t0 := time.Now()
	b, err := sc.SurfaceBuilder()
	if err != nil {
		return 0, err
	}
	if b != f.builder { // made now
		f.builder, f.prep = b, time.Since(t0)
	}
	export := f.exportEvery > 0 && frame%f.exportEvery == 0
	if export {
		sc.Sync() // the file is named for this frame: its steps, not the pipelined previous ones
	}
	t0 = time.Now()
	var m *surface.Mesh
	if wanted {
		m, err = f.link.src.Feed(sc)
	} else {
		m, err = sc.BuildSurface()
	}
	d := time.Since(t0)
	if err != nil {
		return d, err
	}
	sc.RecordFrame(0, d, 0)
	if export {
		path := filepath.Join(f.exportDir, fmt.Sprintf("%s_%06d.%s", strings.TrimSuffix(sc.Name(), ".lua"), frame, f.exportFmt))
		if err := m.WriteFile(path); err != nil {
			return d, fmt.Errorf("--export-every: %w", err)
		}
	}
	return d, nil
}

func (o *runOptions) register(fs *flag.FlagSet) {
	o.scenarioFlags.register(fs)
	fs.BoolVar(&o.headless, "headless", false, "no terminal UI: progress, then a stats table")
	fs.Float64Var(&o.until, "until", 0, "simulated seconds to run (0: until the script's main returns)")
	fs.StringVar(&o.jsonPath, "json", "", "also write the final stats to this JSON file")
	fs.IntVar(&o.frameSteps, "frame-steps", 1, "solver steps per frame (timings are per frame)")
	fs.Float64Var(&o.every, "every", 0.5, "simulated seconds between progress lines when output is not a terminal")
	fs.BoolVar(&o.preview, "preview", false, "open the preview window (GLFW/OpenGL; needs a display) when the run starts")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the run to this file (for go tool pprof)")
	o.frameWork.register(fs, false)
}

func (o *runOptions) validate() error {
	if math.IsNaN(o.until) || math.IsInf(o.until, 0) || o.until < 0 {
		return usagef("--until is %v: it must be a number of simulated seconds >= 0", o.until)
	}
	if o.frameSteps < 1 {
		return usagef("--frame-steps is %d: it must be >= 1", o.frameSteps)
	}
	if math.IsNaN(o.every) || o.every <= 0 {
		return usagef("--every is %v: it must be > 0", o.every)
	}
	if o.preview && o.headless {
		return usagef("--preview opens a window: drop --headless (sim:screenshot works headless, offscreen)")
	}
	return o.frameWork.validate()
}

// runCommand is `vpbench run [flags] [scenario.lua]`.
func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vpbench run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o runOptions
	o.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: vpbench run [--headless] [--until T] [--json FILE] [--param name=value]... [scenario.lua]\n\n"+
			"Runs a scenario (the built-in demo when none is given) and prints the paper's Table 1 timings and the volume accounting.\n\nflags:\n")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("vpbench run takes one scenario file, got %d: %q", len(pos), pos)
	}
	path, stopProfile, err := o.begin(pos)
	if err != nil {
		return err
	}
	defer stopProfile()
	return runScenario(ctx, path, o, stdout, stderr)
}

// begin checks the options of a run and starts its CPU profile (stop ends it); path is
// the scenario file of the positional arguments (at most one), "" for the built-in demo.
func (o *runOptions) begin(pos []string) (path string, stop func(), err error) {
	if err := o.validate(); err != nil {
		return "", nil, err
	}
	if stop, err = startProfile(o.cpuprofile); err != nil {
		return "", nil, err
	}
	if len(pos) == 1 {
		path = pos[0]
	}
	return path, stop, nil
}

// runScenario loads and runs one scenario to the end, printing its report.
func runScenario(ctx context.Context, path string, o runOptions, stdout, stderr io.Writer) error {
	until := o.until
	if until == 0 {
		until = math.Inf(1)
	}
	prog := newProgress(stderr, stdout, until, o.every)
	print := printer(stdout)
	link := newPreviewLink(path)
	opt := o.options(func(msg string) {
		prog.clear() // the script's lines go above the bar, not through it
		print(msg)
	})
	link.setup(&opt)
	sc, err := loadScenario(path, opt)
	if err != nil {
		return err
	}
	defer sc.Close() // warnings reached the print hook during Load, and the report repeats them
	link.attach(sc)
	o.frameWork.link = link
	if o.preview {
		if err := link.open(); err != nil {
			fmt.Fprintf(stderr, "%v (the run goes on without it)\n", err)
		} else {
			defer link.close()
		}
	}
	if math.IsInf(until, 1) {
		fmt.Fprintf(stderr, "running %s until its main function returns (Ctrl-C stops it)\n", sc.Name())
	}
	total := &script.PhaseClock{}
	start := time.Now()
	runErr := advanceUntil(ctx, sc, until, o.frameSteps, &o.frameWork, total, prog.update)
	prog.finish()
	rep := makeReport(sc, time.Since(start), total)
	if runErr != nil {
		rep.Error = runErr.Error()
	}
	rep.Interrupted = errors.Is(runErr, context.Canceled)
	rep.print(stdout)
	if o.jsonPath != "" {
		if err := writeJSON(o.jsonPath, rep); err != nil {
			return err
		}
	}
	if rep.Interrupted {
		return nil // stopped by the user: what was computed is reported above
	}
	return runErr
}

// advanceUntil steps sc frame by frame until simulated time until, the script's main
// returns, a script error, or ctx is cancelled, doing work's surface work every frame.
// progress is called after every frame.
func advanceUntil(ctx context.Context, sc *script.Scenario, until float64, frameSteps int, work *frameWork, total *script.PhaseClock, progress func(t float64)) error {
	dt := sc.Sim().Dt()
	// On a device backend the next frame's steps run while this one's surface is built
	// (script.Scenario.SetPipelined); turning it off at the end publishes the last frame.
	sc.SetPipelined(true)
	defer sc.SetPipelined(false)
	for frame := 1; sc.Time() < until-dt/2; frame++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		steps := frameSteps
		if !math.IsInf(until, 1) {
			steps = max(1, min(steps, int(math.Ceil((until-sc.Time())/dt-0.5))))
		}
		t0 := time.Now()
		done, err := sc.Advance(steps)
		if err == nil {
			_, err = work.do(sc, frame)
		}
		total.Add(time.Since(t0) - work.prep)
		if err != nil {
			return err
		}
		progress(sc.Time())
		if done {
			return nil
		}
	}
	return nil
}

// progress shows how far a run is: a bar on a terminal, plain lines otherwise.
type progress struct {
	bar      *progressbar.ProgressBar
	lines    io.Writer
	every    float64
	next     float64
	finite   bool
	lastTime float64
	wall     time.Time
}

func newProgress(stderr, stdout io.Writer, until, every float64) *progress {
	p := &progress{every: every, next: every, finite: !math.IsInf(until, 1), wall: time.Now()}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && p.finite {
		p.bar = progressbar.NewOptions64(int64(math.Ceil(until*1000)),
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("simulated ms"),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
		return p
	}
	p.lines = stdout
	return p
}

func (p *progress) update(t float64) {
	p.lastTime = t
	if p.bar != nil {
		_ = p.bar.Set64(int64(t * 1000))
		return
	}
	if t >= p.next-1e-9 {
		fmt.Fprintf(p.lines, "t = %.3f s (%.1fx real time)\n", t, t/time.Since(p.wall).Seconds())
		for p.next <= t+1e-9 {
			p.next += p.every
		}
	}
}

// clear takes the bar off the screen until its next update.
func (p *progress) clear() {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// previewLink ties one scenario run to the preview host (previewHost, served by main on
// the main thread): the sim:screenshot hook, the frames the window takes, its render
// times in Table 1, and the window's Toggle and Screenshot for the terminal UI.
type previewLink struct {
	src *preview.Source
}

// newPreviewLink makes the link of the scenario at path ("" is the built-in demo).
func newPreviewLink(path string) *previewLink {
	name := "demo.lua"
	if path != "" {
		name = filepath.Base(path)
	}
	return &previewLink{src: preview.NewSource(name)}
}

// setup gives the scenario's options the sim:screenshot hook (an error that says why
// when this process has no preview host).
func (l *previewLink) setup(opt *script.Options) {
	opt.Screenshot = preview.ScreenshotHook(previewHost, l.src)
}

// attach sends the window's render times to the scenario's Table 1 timings.
func (l *previewLink) attach(sc *script.Scenario) {
	l.src.OnRender(func(d time.Duration) { sc.RecordFrame(0, 0, d) })
}

// adapter is what the terminal UI takes: Toggle() for its preview key and Screenshot.
func (l *previewLink) adapter() preview.Adapter {
	return preview.Adapter{Host: previewHost, Source: l.src}
}

// open opens the window on the run.
func (l *previewLink) open() error {
	if previewHost == nil {
		return preview.ErrNotServing
	}
	return previewHost.Open(l.src)
}

// close closes the window if it shows this run.
func (l *previewLink) close() {
	if previewHost != nil && previewHost.IsOpen() {
		previewHost.Close()
	}
}
