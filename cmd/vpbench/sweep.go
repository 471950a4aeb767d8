package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/internal/fileout"
	"github.com/vpbench/vpbench/preview"
	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/scripts"
	"github.com/vpbench/vpbench/sweep"
)

// sweepOptions are the flags of `vpbench sweep SUBCOMMAND`: one flag set for all of
// them (help lists it once); each subcommand refuses the flags that are not its own.
type sweepOptions struct {
	proc        process // the preview host (task's pictures) and the binary that runs tasks
	out         string
	jobs        int
	index       int
	retryFailed bool
	force       bool
	measure     bool
	submit      bool
	partition   string
	time        string
	cpus        int
	maxParallel int
	script      string
	image       string
	namespace   string
	parallelism int
	claim       string
	mount       string
	manifest    string
	fs          *flag.FlagSet
}

// sweepFlags are the flags each subcommand takes (besides --out, which all take).
var sweepFlags = map[string][]string{
	"plan":    {"measure"},
	"run":     {"jobs", "retry-failed"},
	"task":    {"index", "force"},
	"slurm":   {"submit", "partition", "time", "cpus", "max-parallel", "script", "retry-failed"},
	"k8s":     {"image", "namespace", "parallelism", "claim", "mount", "manifest"},
	"collect": {},
}

func (o *sweepOptions) register(fs *flag.FlagSet) {
	o.fs = fs
	fs.StringVar(&o.out, "out", "", "the study's folder (default: next to the study file, study.toml -> study.out; collect takes it as its argument)")
	fs.IntVar(&o.jobs, "jobs", 1, "run: tasks at once on this machine, each a subprocess")
	fs.IntVar(&o.index, "index", -1, "task: the task to run (default: $JOB_COMPLETION_INDEX of a Kubernetes Indexed Job, else $SLURM_ARRAY_TASK_ID)")
	fs.BoolVar(&o.retryFailed, "retry-failed", false, "run and slurm: run the tasks that failed again (by default a failed task is finished: its error is in its result)")
	fs.BoolVar(&o.force, "force", false, "task: run the task even if it has a result (the new result replaces it)")
	fs.BoolVar(&o.measure, "measure", false, "plan: time a short run of the costliest task and estimate the study's wall time from it")
	fs.BoolVar(&o.submit, "submit", false, "slurm: submit the batch script with sbatch and print the job id")
	fs.StringVar(&o.partition, "partition", "", "slurm: the partition (default: the study's [slurm] partition, else the cluster's default)")
	fs.StringVar(&o.time, "time", "", "slurm: each array task's time limit, as sbatch takes it (10:00, 1-00:00:00)")
	fs.IntVar(&o.cpus, "cpus", 0, "slurm: CPUs per array task (--cpus-per-task)")
	fs.IntVar(&o.maxParallel, "max-parallel", 0, "slurm: at most this many array tasks at once (--array=...%K; 0: Slurm's choice)")
	fs.StringVar(&o.script, "script", "", "slurm: where to write the batch script (default: OUT/sweep.sbatch)")
	fs.StringVar(&o.image, "image", "", "k8s: the container image, with vpbench on its PATH")
	fs.StringVar(&o.namespace, "namespace", "", "k8s: the Job's namespace")
	fs.IntVar(&o.parallelism, "parallelism", 0, "k8s: pods at once (default: the study's, else up to 10)")
	fs.StringVar(&o.claim, "claim", "", "k8s: a PersistentVolumeClaim holding the study and its folder, mounted in every pod")
	fs.StringVar(&o.mount, "mount", "", "k8s: where the claim is mounted, the pods' working folder (default /work)")
	fs.StringVar(&o.manifest, "manifest", "", "k8s: where to write the Job manifest (default: OUT/job.yaml)")
}

// sweepCommand is `vpbench sweep plan|run|task|slurm|k8s|collect`.
func sweepCommand(ctx context.Context, p process, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vpbench sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := sweepOptions{proc: p}
	o.register(fs)
	if len(args) == 0 {
		return usagef("vpbench sweep needs a subcommand: plan, run, task, slurm, k8s or collect")
	}
	sub := args[0]
	if strings.HasPrefix(sub, "-") {
		if _, err := parseInterspersed(fs, args); err != nil {
			return err // -h: the help
		}
		return usagef("vpbench sweep needs a subcommand before its flags: plan, run, task, slurm, k8s or collect")
	}
	own, ok := sweepFlags[sub]
	if !ok {
		mean := ""
		if n, ok := closest(sub, []string{"plan", "run", "task", "slurm", "k8s", "collect"}); ok {
			mean = fmt.Sprintf(" (did you mean %s?)", n)
		}
		return usagef("vpbench sweep: no subcommand %q%s: have plan, run, task, slurm, k8s, collect", sub, mean)
	}
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	var stray []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "out" && !slices.Contains(own, f.Name) {
			stray = append(stray, "--"+f.Name)
		}
	})
	if len(stray) > 0 {
		return usagef("vpbench sweep %s does not take %s", sub, strings.Join(stray, ", "))
	}
	if len(pos) != 1 {
		what := "study file"
		if sub == "collect" {
			what = "study folder"
		}
		return usagef("vpbench sweep %s takes one %s, got %d arguments", sub, what, len(pos))
	}
	if sub == "collect" {
		if o.out != "" {
			return usagef("vpbench sweep collect takes the folder as its argument, not --out")
		}
		return sweepCollect(sweep.Folder(pos[0]), stdout)
	}
	if _, err := os.Stat(pos[0]); err != nil {
		return usagef("study file: %v", err)
	}
	st, err := loadStudy(pos[0])
	if err != nil {
		return err
	}
	out := sweep.Folder(o.out)
	if out == "" {
		out = sweep.Folder(sweep.DefaultOut(pos[0]))
	}
	switch sub {
	case "plan":
		return sweepPlan(ctx, st, o, stdout, stderr)
	case "run":
		if o.jobs < 1 {
			return usagef("--jobs is %d: it must be >= 1", o.jobs)
		}
		return sweepRun(ctx, st, out, o, stdout, stderr)
	case "task":
		return sweepTask(ctx, st, out, o, stdout, stderr)
	case "slurm":
		return sweepSlurm(ctx, st, out, o, stdout)
	case "k8s":
		return sweepK8s(st, out, o, stdout)
	}
	return nil
}

// loadStudy reads a study and checks its outputs against the report's figures.
func loadStudy(path string) (*sweep.Study, error) {
	st, err := sweep.Load(path)
	if err != nil {
		return nil, err
	}
	if err := st.CheckOutputs(reportFigures()); err != nil {
		return nil, err
	}
	return st, nil
}

// reportFigures are the numbers of a run's JSON report as dotted paths, read from
// runReport's fields so that they cannot go stale.
func reportFigures() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch ft.Kind() {
			case reflect.Struct:
				walk(ft, prefix+name+".")
			case reflect.Int, reflect.Int64, reflect.Float64, reflect.Bool:
				out = append(out, prefix+name)
			}
		}
	}
	walk(reflect.TypeOf(runReport{}), "")
	return out
}

// taskScenario is the engine's scenario of a task: the file, or the library's script.
func taskScenario(st *sweep.Study, t sweep.Task, print func(string)) engine.Config {
	opt := script.Options{Print: print, Params: t.ParamMap(), Backend: st.Backend, Method: st.Method, Workers: st.Workers}
	cfg := engine.Config{Script: opt, FPS: engine.DefaultFPS, Until: st.Until,
		Speed: engine.Speed{Max: true}, Headless: true, NoMap: true}
	if st.File != "" {
		cfg.Path = st.File
	} else {
		cfg.Source, cfg.SourceName = st.Source, st.Library+".lua"
		cfg.Script.Files = scripts.FS
	}
	return cfg
}

// loadTask loads a task's scenario (its scene set up, nothing run): the caller closes it.
func loadTask(st *sweep.Study, t sweep.Task) (*script.Scenario, error) {
	cfg := taskScenario(st, t, nil)
	var sc *script.Scenario
	var err error
	if cfg.Path != "" {
		sc, err = script.Load(cfg.Path, cfg.Script)
	} else {
		sc, err = script.LoadSource(cfg.SourceName, cfg.Source, cfg.Script)
	}
	if err != nil {
		return nil, st.TaskError(t, "scenario", fmt.Errorf("the scenario %s does not load: %w", st.Scenario, err))
	}
	return sc, nil
}

// distinct are the tasks of the first repeat: the combinations of parameters.
func distinct(st *sweep.Study) []sweep.Task {
	var out []sweep.Task
	for _, t := range st.Tasks {
		if t.Repeat == 0 {
			out = append(out, t)
		}
	}
	return out
}

// executable is the vpbench binary that runs the tasks (os.Executable; tests may give
// another).
func (o *sweepOptions) executable() (string, error) {
	if o.proc.executable == nil {
		return os.Executable()
	}
	return o.proc.executable()
}

// sweepPlan is `vpbench sweep plan`: every task and its cost, each combination's scene
// built (not run) for its grid and time step. The cost is the solver's work, columns x
// steps (steps = until / dt at the load; an adaptive step may take more); --measure times
// a short run of the costliest task and turns the work into wall time.
func sweepPlan(ctx context.Context, st *sweep.Study, o sweepOptions, stdout, stderr io.Writer) error {
	type cost struct {
		grid    string
		columns int
		dt      float64
		steps   int64
	}
	costs := map[int]cost{} // by the index of the combination's first task
	swept := st.Swept()
	warned := map[string]bool{}
	for _, t := range distinct(st) {
		sc, err := loadTask(st, t)
		if err != nil {
			return err
		}
		in := sc.Info()
		sc.Close()
		for _, p := range swept {
			if !slices.Contains(in.Params, p) && !warned[p] {
				warned[p] = true
				fmt.Fprintf(stderr, "warning: %s:%d: the scenario does not read parameter %s (vp.param): its values change nothing\n", st.Path, st.Line("params."+p), p)
			}
		}
		steps := int64(math.Ceil(st.Until/in.Dt - 1e-9))
		costs[t.Index] = cost{fmt.Sprintf("%dx%dx%d", in.Nx, in.Ny, in.Layers), in.Columns, in.Dt, steps}
	}
	fmt.Fprintf(stdout, "%s: %s, until %g s, %s of %d parameter(s), %d repeat(s): %d tasks\n",
		st.Path, st.Scenario, st.Until, st.Mode, len(st.Params), st.Repeats, len(st.Tasks))
	var total float64
	costliest := -1
	fmt.Fprintf(stdout, "%6s  %-32s %12s %9s %9s %8s %14s\n", "task", "parameters", "grid", "columns", "dt ms", "steps", "Mcolumn-steps")
	first := 0
	for _, t := range st.Tasks {
		if t.Repeat == 0 {
			first = t.Index
		}
		c := costs[first]
		work := float64(c.columns) * float64(c.steps)
		total += work
		if costliest < 0 || work > float64(costs[costliest].columns)*float64(costs[costliest].steps) {
			costliest = first
		}
		label := st.Label(t)
		if label == "" {
			label = "(no swept parameter)"
		}
		fmt.Fprintf(stdout, "%6d  %-32s %12s %9d %9.3g %8d %14.2f\n", t.Index, label, c.grid, c.columns, c.dt*1e3, c.steps, work/1e6)
	}
	fmt.Fprintf(stdout, "estimated cost: %.1f M column-steps in all (columns x steps at the load's dt; the solver's work, not the set-up)\n", total/1e6)
	if !o.measure {
		fmt.Fprintf(stdout, "(--measure times a short run of the costliest task for a wall-time estimate)\n")
		return nil
	}
	t := st.Tasks[costliest]
	c := costs[costliest]
	cfg := taskScenario(st, t, func(string) {})
	cfg.Until = min(st.Until, math.Max(50*c.dt, 0.05))
	res := runHeadless(ctx, cfg, io.Discard, nil)
	if !res.Loaded || res.Err != nil {
		return st.TaskError(t, "scenario", fmt.Errorf("the timing run failed: %v", res.Err))
	}
	rep := makeReport(res)
	if rep.SimulationStepMs <= 0 || rep.Columns == 0 {
		fmt.Fprintf(stdout, "the timing run took no step: no estimate\n")
		return nil
	}
	perColStep := rep.SimulationStepMs / 1e3 / float64(rep.Columns)
	wall := total * perColStep
	fmt.Fprintf(stdout, "measured: task %d, %.3f ms a step over %d columns (%.1f M column-steps/s): the study's solver time about %s on one job\n",
		t.Index, rep.SimulationStepMs, rep.Columns, 1e-6/perColStep, time.Duration(wall*float64(time.Second)).Round(10*time.Millisecond))
	return nil
}

// sweepRun is `vpbench sweep run`: the tasks without a result, --jobs at a time, each a
// subprocess `vpbench sweep task`, then the table (collect).
func sweepRun(ctx context.Context, st *sweep.Study, out sweep.Folder, o sweepOptions, stdout, stderr io.Writer) error {
	exe, err := o.executable()
	if err != nil {
		return fmt.Errorf("sweep run: the vpbench executable: %w", err)
	}
	// A scenario that does not load fails every task: say so once, before any starts.
	if sc, err := loadTask(st, st.Tasks[0]); err != nil {
		return err
	} else {
		sc.Close()
	}
	// The tasks run in this folder: the paths as given, so that their messages name the
	// study as the user did.
	study, dir := st.Path, string(out)
	bar := newSweepProgress(stderr, stdout, len(st.Tasks))
	var failed []string
	pool := &sweep.Pool{Study: st, Out: out, Jobs: o.jobs, RetryFailed: o.retryFailed,
		Command: func(t sweep.Task) *exec.Cmd {
			return exec.Command(exe, "sweep", "task", study, "--out", dir, "--index", strconv.Itoa(t.Index))
		},
		Event: func(e sweep.Event) {
			if e.Result != nil && e.Result.Status != sweep.StatusOK {
				failed = append(failed, e.Result.Error)
			}
			bar.event(st, e)
		}}
	pending, err := out.Pending(st, o.retryFailed)
	if err == nil && len(pending) < len(st.Tasks) {
		fmt.Fprintf(stdout, "%s: %d of %d tasks already have a result (skipped); running %d\n", string(out), len(st.Tasks)-len(pending), len(st.Tasks), len(pending))
	}
	bar.start(len(st.Tasks) - len(pending))
	ran, _, runErr := pool.Run(ctx)
	bar.finish()
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stdout, "stopped: %d tasks ran; the tasks cut off have no result and run again on the next `vpbench sweep run` (the results so far are in %s)\n", ran, string(out))
		return nil
	}
	if err := sweepCollect(out, stdout); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d task(s) failed:\n  %s", len(failed), strings.Join(failed, "\n  "))
	}
	return nil
}

// sweepProgress shows a study's progress: a bar on a terminal, a line a task otherwise.
type sweepProgress struct {
	bar   *progressbar.ProgressBar
	lines io.Writer
	total int
}

func newSweepProgress(stderr, stdout io.Writer, total int) *sweepProgress {
	p := &sweepProgress{total: total}
	if isTerminal(stderr) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("tasks"), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
		return p
	}
	p.lines = stdout
	return p
}

func (p *sweepProgress) start(done int) {
	if p.bar != nil {
		_ = p.bar.Set(done)
	}
}

func (p *sweepProgress) event(st *sweep.Study, e sweep.Event) {
	if e.Result == nil {
		return // a start, or a task cut off with the study
	}
	if p.bar != nil {
		_ = p.bar.Set(e.Done)
		return
	}
	status := fmt.Sprintf("ok in %.2f s", e.Result.WallS)
	if e.Result.Status != sweep.StatusOK {
		status = "failed: " + e.Result.Error
	}
	label := st.Label(e.Task)
	if label == "" {
		label = "no swept parameter"
	}
	fmt.Fprintf(p.lines, "[%d/%d] task %d (%s): %s\n", e.Done, e.Total, e.Task.Index, label, status)
}

func (p *sweepProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// sweepTask is `vpbench sweep task STUDY --index I`: one task, its result written
// atomically into the study's folder. A task with a result returns at once (--force runs
// it again), so an array or Job may be run again to finish a study. A failed scenario is
// a result too (exit status 1); a task interrupted writes nothing.
func sweepTask(ctx context.Context, st *sweep.Study, out sweep.Folder, o sweepOptions, stdout, stderr io.Writer) error {
	index := o.index
	if index < 0 {
		for _, env := range []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"} {
			if v := os.Getenv(env); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil {
					return usagef("$%s is %q: not a task index", env, v)
				}
				index = n
				break
			}
		}
	}
	if index < 0 {
		return usagef("vpbench sweep task needs --index I (or $JOB_COMPLETION_INDEX, $SLURM_ARRAY_TASK_ID)")
	}
	if index >= len(st.Tasks) {
		return usagef("--index %d: the study %s has tasks 0 to %d", index, st.Path, len(st.Tasks)-1)
	}
	if err := out.Prepare(st); err != nil {
		return err
	}
	t := st.Tasks[index]
	if r, ok, err := out.Result(index, st.Plan()); err == nil && ok && !o.force {
		fmt.Fprintf(stdout, "task %d (%s) is finished (%s): %s\n", index, st.Label(t), r.Status, out.ResultPath(index))
		return nil
	}
	fmt.Fprintf(stdout, "task %d of %s: %s\n", index, st.Path, st.Label(t))
	r, err := runSweepTask(ctx, o.proc.host, st, t, out, stdout)
	if err != nil {
		return err // interrupted: no result, the task runs again
	}
	if err := out.WriteResult(r); err != nil {
		return err
	}
	if r.Status != sweep.StatusOK {
		return errors.New(r.Error)
	}
	fmt.Fprintf(stdout, "task %d: ok in %.2f s: %s\n", index, r.WallS, out.ResultPath(index))
	return nil
}

// runSweepTask runs a task's scenario headless to the study's until and makes its
// result. The error is only for a run interrupted (ctx): a scenario that fails is a
// failed result.
func runSweepTask(ctx context.Context, host *preview.Host, st *sweep.Study, t sweep.Task, out sweep.Folder, stdout io.Writer) (sweep.Result, error) {
	r := sweep.Result{Plan: st.Plan(), Index: t.Index, Repeat: t.Repeat, Params: t.Params}
	r.Host, _ = os.Hostname()
	cfg := taskScenario(st, t, nil)
	if len(st.Pictures) > 0 {
		if host == nil {
			r.Status = sweep.StatusFailed
			r.Error = st.TaskError(t, "pictures", errors.New("pictures need the preview (OpenGL), which this vpbench has not got (a build without it, or a command that does not draw)")).Error()
			return r, nil
		}
		cfg.Shooter, cfg.OnFrame = host, taskPictures(host, st, t, out, &r)
	}
	start := time.Now()
	res := runHeadless(ctx, cfg, stdout, nil)
	r.WallS = time.Since(start).Seconds()
	if ctx.Err() != nil {
		return r, fmt.Errorf("task %d interrupted: no result written (it runs again on resume)", t.Index)
	}
	r.Status = sweep.StatusOK
	switch {
	case !res.Loaded:
		r.Status = sweep.StatusFailed
		r.Error = st.TaskError(t, "scenario", fmt.Errorf("the scenario %s does not load: %v", st.Scenario, res.Err)).Error()
		return r, nil
	case res.Err != nil:
		r.Status = sweep.StatusFailed
		r.Error = st.TaskError(t, "scenario", res.Err).Error()
	}
	rep := makeReport(res) // with the script's sim:report values (engine.Result.Reported)
	reported := rep.Reported
	b, err := json.Marshal(rep)
	if err != nil {
		return r, err
	}
	r.Report, r.Reported = b, reported
	r.Outputs = sweep.Extract(st.Outputs, b, reported)
	return r, nil
}

// taskPictures is the run loop's frame hook that draws task t's pictures (Study.Pictures)
// at the first frame at or after each time, into the study's folder (written whole, then
// renamed: a task cut off leaves no half picture), and lists them in r.
func taskPictures(host *preview.Host, st *sweep.Study, t sweep.Task, out sweep.Folder, r *sweep.Result) func(*scene.Scene) error {
	pm := &pictureMaker{host: host, view: "default", width: st.PictureSize[0], height: st.PictureSize[1], meniscus: true}
	next := 0
	return func(sc *scene.Scene) error {
		for next < len(st.Pictures) && sc.Time() >= st.Pictures[next]-1e-9 {
			img, err := pm.picture(sc)
			if err != nil {
				return fmt.Errorf("the picture at %g s: %w", st.Pictures[next], err)
			}
			path, rel := out.PicturePath(t.Index, st.Pictures[next])
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			tmp := path + ".tmp"
			if err := preview.WritePNG(tmp, img); err != nil {
				return err
			}
			if err := os.Rename(tmp, path); err != nil {
				return err
			}
			r.Pictures = append(r.Pictures, rel)
			next++
		}
		return nil
	}
}

// sweepSlurm is `vpbench sweep slurm`: a batch script for a job array of the tasks
// without a result, submitted with --submit.
func sweepSlurm(ctx context.Context, st *sweep.Study, out sweep.Folder, o sweepOptions, stdout io.Writer) error {
	so := st.Slurm
	if o.partition != "" {
		so.Partition = o.partition
	}
	if o.time != "" {
		so.Time = o.time
	}
	if o.cpus > 0 {
		so.CPUs = o.cpus
	}
	if o.maxParallel > 0 {
		so.MaxParallel = o.maxParallel
	}
	if o.cpus < 0 || o.maxParallel < 0 {
		return usagef("--cpus and --max-parallel must be >= 0")
	}
	exe, err := o.executable()
	if err != nil {
		return fmt.Errorf("sweep slurm: the vpbench executable: %w", err)
	}
	if err := out.Prepare(st); err != nil {
		return err
	}
	pending, err := out.Pending(st, o.retryFailed)
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		fmt.Fprintf(stdout, "every task of %s has a result in %s: nothing to submit (vpbench sweep collect %s)\n", st.Path, string(out), string(out))
		return nil
	}
	text, err := sweep.SbatchScript(st, out, exe, pending, so)
	if err != nil {
		return err
	}
	path := o.script
	if path == "" {
		path = filepath.Join(string(out), "sweep.sbatch")
	}
	if err := fileout.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: a job array of %d tasks (--array=%s)\n", path, len(pending), sweep.ArraySpec(pending, so.MaxParallel))
	if !o.submit {
		fmt.Fprintf(stdout, "submit it with: sbatch %s (or vpbench sweep slurm --submit)\n", path)
		return nil
	}
	id, err := sweep.Submit(ctx, path)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "submitted job %s\nresults go to %s; when the array is done: vpbench sweep collect %s\n", id, filepath.Join(string(out), "tasks"), string(out))
	return nil
}

// sweepK8s is `vpbench sweep k8s`: a Kubernetes Indexed Job manifest of the study.
func sweepK8s(st *sweep.Study, out sweep.Folder, o sweepOptions, stdout io.Writer) error {
	ko := st.K8s
	for _, f := range []struct {
		v   string
		dst *string
	}{{o.image, &ko.Image}, {o.namespace, &ko.Namespace}, {o.claim, &ko.Claim}, {o.mount, &ko.MountPath}} {
		if f.v != "" {
			*f.dst = f.v
		}
	}
	if o.parallelism > 0 {
		ko.Parallelism = o.parallelism
	}
	b, err := sweep.K8sJob(st, out, ko)
	if err != nil {
		return usagef("%v", err)
	}
	if err := out.Prepare(st); err != nil {
		return err
	}
	path := o.manifest
	if path == "" {
		path = filepath.Join(string(out), "job.yaml")
	}
	if err := fileout.Write(path, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: an Indexed Job of %d tasks; kubectl apply -f %s, then vpbench sweep collect %s\n", path, len(st.Tasks), path, string(out))
	return nil
}

// sweepCollect is `vpbench sweep collect FOLDER`: the table, plots and summary of every
// task's result; what failed or is missing is listed with why.
func sweepCollect(dir sweep.Folder, stdout io.Writer) error {
	if st, err := os.Stat(string(dir)); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a folder")
		}
		return usagef("study folder %s: %v", string(dir), err)
	}
	tab, err := sweep.Collect(dir)
	if err != nil {
		return err
	}
	files, err := tab.Write(dir)
	if err != nil {
		return err
	}
	ok, failed, missing := tab.Counts()
	fmt.Fprintf(stdout, "%s: %d tasks: %d ok, %d failed, %d missing\n", string(dir), len(tab.Rows), ok, failed, missing)
	for _, r := range tab.Rows {
		switch r.Status {
		case sweep.StatusFailed:
			fmt.Fprintf(stdout, "  failed: %s\n", r.Error)
		case sweep.StatusMissing:
			fmt.Fprintf(stdout, "  missing: task %d (no result yet)\n", r.Task.Index)
		}
	}
	for _, f := range files {
		fmt.Fprintf(stdout, "wrote %s\n", f)
	}
	return nil
}
