package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/preview"
)

// runOptions are the flags of `vpbench run` (and of the default mode).
type runOptions struct {
	scenarioFlags
	host       *preview.Host // the process's preview (nil: none): not a flag
	headless   bool
	overlap    bool    // --overlap (engine.Config.Overlap)
	until      float64 // simulated s; 0 = until main returns
	jsonPath   string
	fps        float64 // frames a second (wall in real time, simulated headless)
	frameSteps int     // fixed solver steps a frame (0: by fps)
	every      float64 // simulated s between plain progress lines (0: every few wall seconds)
	watch      bool    // reload when the file changes
	preview    bool    // open the preview window when the run starts
	cpuprofile string  // --cpuprofile: a CPU profile of the run
	surface    bool    // build the liquid surface every frame
	export     engine.Export
	outDir     string                 // --out-dir: screenshots, recordings and (without --export-dir) exports
	ckpt       checkpointFlags        // --checkpoint, --checkpoint-every, --resume (checkpoint.go)
	timeline   engine.Timeline        // --timeline FILE, --timeline-every S
	given      func(name string) bool // whether the command line set a flag
}

func (o *runOptions) register(fs *flag.FlagSet) {
	o.scenarioFlags.register(fs)
	fs.BoolVar(&o.headless, "headless", false, "no terminal UI: progress, then a stats table")
	fs.Float64Var(&o.until, "until", 0, "simulated seconds to run, at least (0: until the script's main returns)")
	fs.StringVar(&o.jsonPath, "json", "", "also write the final stats to this JSON file")
	fs.Float64Var(&o.fps, "fps", engine.DefaultFPS, "frames a second: one surface each (per wall second in real time, per simulated second headless)")
	fs.IntVar(&o.frameSteps, "frame-steps", 0, "fixed solver steps per frame, as in the paper's Table 1 (excludes --fps)")
	fs.Float64Var(&o.every, "every", 0, "simulated seconds between progress lines when output is not a terminal (default: a line every 5 wall seconds)")
	fs.BoolVar(&o.preview, "preview", false, "open the preview window (GLFW/OpenGL; needs a display) when the run starts")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the run to this file (for go tool pprof)")
	fs.BoolVar(&o.surface, "surface", false, "build the liquid surface every frame (Table 1's surface column)")
	fs.BoolVar(&o.overlap, "overlap", true, overlapHelp)
	fs.IntVar(&o.export.Every, "export-every", 0, "write the surface mesh every N frames, and the terrain mesh once per terrain (terrain_NAME_0000, ...) (0: never; implies --surface)")
	fs.StringVar(&o.outDir, "out-dir", engine.DefaultOutDir, "folder for what the run writes: the UI's screenshots (c) and recordings (v), and --export-every's meshes unless --export-dir says otherwise (made when first needed)")
	fs.StringVar(&o.export.Dir, "export-dir", "", "folder for --export-every's numbered meshes (default: --out-dir)")
	fs.StringVar(&o.export.Format, "export-format", "obj", `mesh format for --export-every: "obj", "ply" (binary little-endian, with opacity) or "ply-ascii" (the same as text)`)
	o.ckpt.register(fs)
	fs.StringVar(&o.timeline.Path, "timeline", "", "write the run's time series to this file, FILE.csv or FILE.jsonl: a row every --timeline-every simulated seconds (time, steps, volumes, particles, wet columns, frame timings and the script's sim:report values); JSON lines are streamed, a CSV is written when the run ends (Ctrl-C included)")
	fs.Float64Var(&o.timeline.Every, "timeline-every", 0, fmt.Sprintf("simulated seconds between --timeline rows (default: --every when given, else %g)", engine.DefaultTimelineEvery))
	o.given = func(name string) bool { return flagGiven(fs, name) }
}

func (o *runOptions) validate() error {
	if math.IsNaN(o.until) || math.IsInf(o.until, 0) || o.until < 0 {
		return usagef("--until is %v: it must be a number of simulated seconds >= 0", o.until)
	}
	if o.given != nil && o.given("fps") && o.given("frame-steps") {
		return usagef("--fps and --frame-steps exclude each other: --fps %g paces frames by time, --frame-steps %d fixes the steps a frame; give one", o.fps, o.frameSteps)
	}
	if math.IsNaN(o.fps) || math.IsInf(o.fps, 0) || o.fps <= 0 || o.fps > 1000 {
		return usagef("--fps is %v: it must be a number of frames a second in (0, 1000]", o.fps)
	}
	if o.frameSteps < 0 || o.given != nil && o.given("frame-steps") && o.frameSteps < 1 {
		return usagef("--frame-steps is %d: it must be >= 1", o.frameSteps)
	}
	if math.IsNaN(o.every) || math.IsInf(o.every, 0) || o.every < 0 {
		return usagef("--every is %v: it must be a number of simulated seconds > 0 (or 0: a line every 5 wall seconds)", o.every)
	}
	if o.preview && o.headless {
		return usagef("--preview opens a window: drop --headless (sim:screenshot works headless, offscreen)")
	}
	if o.outDir == "" {
		return usagef("--out-dir is empty: give a folder (the default is %s)", engine.DefaultOutDir)
	}
	if o.export.Dir == "" {
		o.export.Dir = o.outDir
	}
	if err := o.export.Validate(); err != nil {
		return usagef("%v", err)
	}
	if err := o.ckpt.validate(); err != nil {
		return err
	}
	if o.timeline.Every == 0 && o.every > 0 {
		o.timeline.Every = o.every // rows where the progress lines fall
	}
	if o.given != nil && o.given("timeline-every") && !(o.timeline.Every > 0) {
		return usagef("--timeline-every is %v: it must be a number of simulated seconds > 0", o.timeline.Every)
	}
	if o.given != nil && o.given("timeline-every") && o.timeline.Path == "" {
		return usagef("--timeline-every needs --timeline FILE.csv or FILE.jsonl")
	}
	if err := o.timeline.Validate(); err != nil {
		return usagef("%v", err)
	}
	if o.export.Every > 0 {
		o.surface = true
	}
	return nil
}

// engineConfig is the run loop's configuration for these options: the scenario at path
// ("" is the built-in demo), with the preview source src (nil: none).
func (o *runOptions) engineConfig(path string, src *preview.Source) engine.Config {
	cfg := engine.Config{
		Path:       path,
		SourceName: "demo.lua",
		Script:     o.options(nil),
		FPS:        o.fps,
		FrameSteps: o.frameSteps,
		Until:      o.until,
		Surface:    o.surface,
		Overlap:    o.overlap,
		Export:     o.export,
		Preview:    src,
		OutDir:     o.outDir,
		Timeline:   o.timeline,
	}
	cfg.Checkpoints = o.ckpt.config()
	if path == "" {
		cfg.Source = demoScript
	}
	if o.host != nil {
		cfg.Shooter = o.host
	}
	return cfg
}

// runCommand is `vpbench run [flags] [scenario.lua]`.
func runCommand(ctx context.Context, p process, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vpbench run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := runOptions{host: p.host}
	o.register(fs)
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

// runScenario loads and runs one scenario to the end, headless and as fast as it can,
// printing its report.
func runScenario(ctx context.Context, path string, o runOptions, stdout, stderr io.Writer) error {
	until := o.until
	if until == 0 {
		until = math.Inf(1)
	}
	prog := newProgress(stderr, stdout, until, o.every)
	link := newPreviewLink(o.host, path)
	cfg := o.engineConfig(path, link.src)
	cfg.Speed, cfg.Headless, cfg.NoMap = engine.Speed{Max: true}, true, true
	cfg.SendInterval = 100 * time.Millisecond
	if o.preview {
		if err := link.open(); err != nil {
			fmt.Fprintf(stderr, "%v (the run goes on without it)\n", err)
		} else {
			defer link.close()
		}
	}
	if math.IsInf(until, 1) {
		name := "demo.lua"
		if path != "" {
			name = filepath.Base(path)
		}
		fmt.Fprintf(stderr, "running %s until its main function returns (Ctrl-C stops it)\n", name)
	}
	res := runHeadless(ctx, cfg, stdout, prog)
	prog.finish()
	if !res.Loaded {
		return res.Err // the load error: file:line and message
	}
	rep := makeReport(res)
	rep.print(stdout)
	if o.jsonPath != "" {
		if err := writeJSON(o.jsonPath, rep); err != nil {
			return err
		}
	}
	if res.Timeline != nil {
		return res.Timeline
	}
	if rep.Interrupted {
		return nil // stopped by the user: what was computed is reported above
	}
	return res.Err
}

// runHeadless runs cfg's scenario on the run loop (package engine) until it stops,
// printing the script's lines to stdout and its progress to prog (nil: none), and
// returns how it ended.
func runHeadless(ctx context.Context, cfg engine.Config, stdout io.Writer, prog *progress) engine.Result {
	print := printer(stdout)
	r := engine.New(cfg, func(msg any) {
		switch m := msg.(type) {
		case engine.Log:
			for _, l := range m.Lines {
				// The script's prints and warnings; the runner's own notes are for the UI,
				// and errors come back in the result.
				if l.Level == engine.LogPrint || l.Level == engine.LogWarn {
					if prog != nil {
						prog.clear() // the script's lines go above the bar, not through it
					}
					print(l.Text)
				}
			}
		case engine.Progress:
			if prog != nil {
				prog.update(m.Time)
			}
		case engine.Checkpoint: // where each checkpoint went (or why not)
			if prog != nil {
				prog.clear()
				if m.Kind == engine.CheckpointResumed {
					prog.resumed(m.Time)
				}
			}
			print(m.String())
		}
	})
	r.Run(ctx)
	return r.Result()
}

// progressWall is the least wall time between two plain progress lines when --every is
// not given.
const progressWall = 5 * time.Second

// progress shows how far a run is: a bar on a terminal, plain lines otherwise.
type progress struct {
	bar   *progressbar.ProgressBar
	lines io.Writer
	every float64 // simulated s between lines; 0: by wall time (progressWall)
	next  float64
	from  float64 // the simulated time the run started from (a resume's checkpoint)
	wall  time.Time
	last  time.Time
}

func newProgress(stderr, stdout io.Writer, until, every float64) *progress {
	p := &progress{every: every, next: every, wall: time.Now(), last: time.Now()}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && !math.IsInf(until, 1) {
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

// resumed starts the progress from a resumed run's time t: its real-time factor counts
// the resumed segment, and its lines fall at the multiples of every after t.
func (p *progress) resumed(t float64) {
	p.from = t
	if p.every > 0 {
		p.next = (math.Floor(t/p.every+1e-9) + 1) * p.every
	}
}

func (p *progress) update(t float64) {
	if p.bar != nil {
		_ = p.bar.Set64(int64(t * 1000))
		return
	}
	now := time.Now()
	if p.every == 0 {
		if now.Sub(p.last) < progressWall {
			return
		}
	} else {
		if t < p.next-1e-9 {
			return
		}
		for p.next <= t+1e-9 {
			p.next += p.every
		}
	}
	p.last = now
	fmt.Fprintf(p.lines, "t = %.3f s (%.1fx real time)\n", t, (t-p.from)/now.Sub(p.wall).Seconds())
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

// previewLink ties one scenario run to the preview host (the process's, served by main
// on the main thread; nil: none): the source the run loop publishes frames into, and the
// window's Toggle and Screenshot for the terminal UI.
type previewLink struct {
	host *preview.Host
	src  *preview.Source
}

// newPreviewLink makes the link of the scenario at path ("" is the built-in demo).
func newPreviewLink(host *preview.Host, path string) *previewLink {
	name := "demo.lua"
	if path != "" {
		name = filepath.Base(path)
	}
	return &previewLink{host: host, src: preview.NewSource(name)}
}

// adapter is what the terminal UI takes: Toggle() for its preview key and Screenshot.
func (l *previewLink) adapter() preview.Adapter {
	return preview.Adapter{Host: l.host, Source: l.src}
}

// open opens the window on the run.
func (l *previewLink) open() error {
	if l.host == nil {
		return preview.ErrNotServing
	}
	return l.host.Open(l.src)
}

// close closes the window if it shows this run.
func (l *previewLink) close() {
	if l.host != nil && l.host.IsOpen() {
		l.host.Close()
	}
}
