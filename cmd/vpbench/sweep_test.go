package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/vpbench/vpbench/sweep"
)

// sweepScene is a small scenario for the sweep tests: a source pouring onto a slope at
// the rate n gives, reporting what it computed with sim:report. It fails to load for
// n > 4 (the tests' bad task), and burns `busy` loop iterations every 10 ms of simulated
// time (the kill test's slow tasks).
const sweepScene = `local n = vp.param("n", 1)
local busy = vp.param("busy", 0)
if n > 4 then error("n = " .. n .. " is too big") end
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, layers = 1, workers = 1, capillarity = "off" }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0.1, 0, 1} })
sim:source{ at = {0.01, 0.01, 0.006}, radius = 0.002, rate = n * 1e-7 }
sim:every(0.01, function()
  local x = 0
  for i = 1, busy do x = x + i end
  sim:report{ vol = sim:volume() * 1e6, n2 = n * n }
end)
`

// writeSweepStudy writes scene.lua and study.toml (with text) into a new folder and
// returns the study's path.
func writeSweepStudy(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "scene.lua"), []byte(sweepScene), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "study.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// deterministicStudy's outputs are the ones that do not depend on timing: a study's
// table is then the same however it ran.
const deterministicStudy = `scenario = "scene.lua"
until = 0.05
outputs = ["volume_ml", "wet_columns", "steps", "reported.*"]
[params]
n = [1, 2, 3, 4]
`

// runBin runs the built vpbench in dir and returns its output and exit status.
func runBin(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(vpbenchBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSweepJobsSameResults: a study run with --jobs 1 and with --jobs 3 gives the same
// table, byte for byte, and the table holds what the tasks computed (sim:report's values
// among them).
func TestSweepJobsSameResults(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	if raceEnabled {
		t.Skip("under -race: subprocesses of a built vpbench (race_on_test.go); the plain pass runs it")
	}
	study := writeSweepStudy(t, deterministicStudy)
	dir := filepath.Dir(study)
	var tables []string
	for _, jobs := range []string{"1", "3"} {
		out, code := runBin(t, dir, nil, "sweep", "run", "study.toml", "--jobs", jobs, "--out", "out"+jobs)
		if code != 0 {
			t.Fatalf("--jobs %s: exit %d:\n%s", jobs, code, out)
		}
		if !strings.Contains(out, "4 tasks: 4 ok, 0 failed, 0 missing") {
			t.Errorf("--jobs %s:\n%s", jobs, out)
		}
		tables = append(tables, readFile(t, filepath.Join(dir, "out"+jobs, "results.csv")))
	}
	if tables[0] != tables[1] {
		t.Errorf("--jobs 1 and 3 differ:\n%s\n%s", tables[0], tables[1])
	}
	lines := strings.Split(strings.TrimSpace(tables[0]), "\n")
	if len(lines) != 5 || lines[0] != "index,repeat,n,status,volume_ml,wet_columns,steps,reported.n2,reported.vol,error" {
		t.Fatalf("table:\n%s", tables[0])
	}
	var prev float64
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		n, _ := strconv.ParseFloat(f[2], 64)
		vol, _ := strconv.ParseFloat(f[4], 64)
		n2, _ := strconv.ParseFloat(f[7], 64)
		if f[0] != strconv.Itoa(i) || f[3] != "ok" || n2 != n*n || !(vol > prev) {
			t.Errorf("row %d: %q (the volume should grow with the rate n)", i, l)
		}
		prev = vol
	}
	// The run's report in each result carries the reports too.
	var r sweep.Result
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "out1", "tasks", "task-000002.json"))), &r); err != nil {
		t.Fatal(err)
	}
	var rep runReport
	if err := json.Unmarshal(r.Report, &rep); err != nil || rep.Reported["n2"] != 9 {
		t.Errorf("the task's report: %v, reported %v", err, rep.Reported)
	}
	for _, f := range []string{"results.json", "summary.md", "plots/volume_ml_vs_n.png", "plots/reported.vol_vs_n.png"} {
		if _, err := os.Stat(filepath.Join(dir, "out1", f)); err != nil {
			t.Errorf("collect: %v", err)
		}
	}
}

// TestSweepResumeAfterKill9 kills `vpbench sweep run` with SIGKILL while its third task
// runs: the task in flight dies with it (it writes no result), and the next run skips the
// finished tasks (their results untouched), redoes the one cut off and runs the rest.
func TestSweepResumeAfterKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	if raceEnabled {
		t.Skip("under -race: subprocesses of a built vpbench (race_on_test.go); the plain pass runs it")
	}
	study := writeSweepStudy(t, strings.Replace(deterministicStudy, "[params]\n", "[params]\nbusy = 1000000\n", 1))
	dir := filepath.Dir(study)
	bin := vpbenchBinary(t)
	cmd := exec.Command(bin, "sweep", "run", "study.toml", "--jobs", "1")
	cmd.Dir = dir
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := sweep.Folder(filepath.Join(dir, "study.out"))
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(out.ResultPath(1)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no second result after 60 s:\n%s", log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // task 2 under way
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	before := map[int]string{}
	for i := range 4 {
		if b, err := os.ReadFile(out.ResultPath(i)); err == nil {
			before[i] = string(b)
		}
	}
	if len(before) < 2 || len(before) == 4 {
		t.Fatalf("at the kill %d tasks had finished, want 2 or 3:\n%s", len(before), log.String())
	}
	cut := len(before) // the task in flight
	// The task in flight was killed with the study: no result appears later.
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(out.ResultPath(cut)); err == nil {
		t.Fatalf("task %d, in flight at the kill, wrote its result afterwards: it outlived the study", cut)
	}
	res, code := runBin(t, dir, nil, "sweep", "run", "study.toml", "--jobs", "1")
	if code != 0 {
		t.Fatalf("resume: exit %d:\n%s", code, res)
	}
	if want := fmt.Sprintf("%d of 4 tasks already have a result (skipped); running %d", cut, 4-cut); !strings.Contains(res, want) {
		t.Errorf("resume does not say %q:\n%s", want, res)
	}
	for i, b := range before {
		if now := readFile(t, out.ResultPath(i)); now != b {
			t.Errorf("task %d's result changed on resume", i)
		}
		if strings.Contains(res, fmt.Sprintf("task %d (", i)) {
			t.Errorf("task %d ran again:\n%s", i, res)
		}
	}
	if !strings.Contains(res, fmt.Sprintf("task %d (n=%d): ok", cut, cut+1)) {
		t.Errorf("the task cut off (%d) was not redone:\n%s", cut, res)
	}
	if !strings.Contains(res, "4 tasks: 4 ok, 0 failed, 0 missing") {
		t.Errorf("resume:\n%s", res)
	}
	// The same table as a study run at once.
	ref, code := runBin(t, dir, nil, "sweep", "run", "study.toml", "--jobs", "2", "--out", "ref")
	if code != 0 {
		t.Fatal(ref)
	}
	if a, b := readFile(t, filepath.Join(string(out), "results.csv")), readFile(t, filepath.Join(dir, "ref", "results.csv")); a != b {
		t.Errorf("the resumed study's table differs from one run at once:\n%s\n%s", a, b)
	}
}

// TestSweepBadStudies: a bad study file, a task whose scenario does not load and a
// folder of another plan give messages naming the file, the line and the task.
func TestSweepBadStudies(t *testing.T) {
	ctx := context.Background()
	run1 := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := run(ctx, testProcess, args, &out, &errb)
		return out.String() + errb.String(), code
	}
	study := writeSweepStudy(t, "scenario = \"scene.lua\"\nuntil = 0.01\n[params]\nn = [1, 3, 5]\n")
	out, code := run1("sweep", "plan", study)
	if code != exitRun || !strings.Contains(out, study+":1: task 2 (n=5): the scenario scene.lua does not load: ") ||
		!strings.Contains(out, "scene.lua:3: n = 5 is too big") {
		t.Errorf("plan of a failing task: exit %d:\n%s", code, out)
	}
	// The tasks that load are listed by plan when all do.
	os.WriteFile(study, []byte("scenario = \"scene.lua\"\nuntil = 0.01\nrepeats = 2\n[params]\nn = [1, 3]\nbusy = 0\n"), 0o644)
	out, code = run1("sweep", "plan", study)
	if code != exitOK || !strings.Contains(out, "4 tasks") || !strings.Contains(out, "n=3 #2") || !strings.Contains(out, "Mcolumn-steps") {
		t.Errorf("plan: exit %d:\n%s", code, out)
	}
	// A swept parameter the scenario never reads is worth a warning, with its line.
	os.WriteFile(study, []byte("scenario = \"scene.lua\"\nuntil = 0.01\n[params]\nn = [1, 2]\nm = [1, 2]\n"), 0o644)
	out, code = run1("sweep", "plan", study)
	if code != exitOK || !strings.Contains(out, "warning: "+study+":5: the scenario does not read parameter m") {
		t.Errorf("plan of an unread parameter: exit %d:\n%s", code, out)
	}
	for _, tc := range []struct{ text, want string }{
		{"scenario = \"scene.lua\"\nuntil = 0.01\nrepeat = 2\n[params]\nn = [1]\n", ":3: unknown key \"repeat\""},
		{"scenario = \"scene.lua\"\nuntil = 0.01\n[params]\nn = { start = 3, stop = 1, step = 1 }\n", ":4: parameter n: the range from 3 to 1 by 1 is empty"},
		{"scenario = \"scene.lua\"\nuntil = 0.01\noutputs = [\"volume\"]\n[params]\nn = [1]\n", ":3: outputs: \"volume\" is not a figure of the run's report"},
		{"scenario = \"gone.lua\"\nuntil = 0.01\n[params]\nn = [1]\n", ":1: scenario \"gone.lua\": no file"},
	} {
		os.WriteFile(study, []byte(tc.text), 0o644)
		for _, sub := range []string{"plan", "run", "task", "slurm"} {
			out, code := run1("sweep", sub, study, "--out", filepath.Join(t.TempDir(), "o"))
			if code != exitRun || !strings.Contains(out, study+tc.want) {
				t.Errorf("sweep %s of %q: exit %d:\n%s", sub, tc.text, code, out)
			}
		}
	}
	// A folder made by another plan is never mixed into.
	os.WriteFile(study, []byte("scenario = \"scene.lua\"\nuntil = 0.01\n[params]\nn = [1, 2]\n"), 0o644)
	dir := filepath.Join(t.TempDir(), "o")
	if out, code := run1("sweep", "task", study, "--out", dir, "--index", "0"); code != exitOK {
		t.Fatalf("task: %d\n%s", code, out)
	}
	os.WriteFile(study, []byte("scenario = \"scene.lua\"\nuntil = 0.02\n[params]\nn = [1, 2]\n"), 0o644)
	out, code = run1("sweep", "task", study, "--out", dir, "--index", "1")
	if code != exitRun || !strings.Contains(out, "holds the results of another plan") {
		t.Errorf("another plan: exit %d:\n%s", code, out)
	}
	// Flags of another subcommand, a missing subcommand.
	if out, code := run1("sweep", "collect", dir, "--jobs", "2"); code != exitUsage || !strings.Contains(out, "does not take --jobs") {
		t.Errorf("collect --jobs: %d\n%s", code, out)
	}
	if out, code := run1("sweep"); code != exitUsage || !strings.Contains(out, "needs a subcommand") {
		t.Errorf("sweep: %d\n%s", code, out)
	}
}

// TestSweepTaskIndexFromEnv: `sweep task` takes its index from JOB_COMPLETION_INDEX (a
// Kubernetes Indexed Job), writes its result, and a second call finds it finished.
func TestSweepTaskIndexFromEnv(t *testing.T) {
	study := writeSweepStudy(t, deterministicStudy)
	out := filepath.Join(t.TempDir(), "o")
	t.Setenv("JOB_COMPLETION_INDEX", "2")
	var so, se bytes.Buffer
	if code := run(context.Background(), testProcess, []string{"sweep", "task", study, "--out", out}, &so, &se); code != exitOK {
		t.Fatalf("exit %d: %s%s", code, so.String(), se.String())
	}
	r, ok, err := sweep.Folder(out).Result(2, mustStudy(t, study).Plan())
	if err != nil || !ok || r.Status != sweep.StatusOK || r.Reported["n2"] != 9 || r.Outputs["reported.n2"] != 9 {
		t.Fatalf("result of task 2: %v %v %+v", ok, err, r)
	}
	so.Reset()
	if code := run(context.Background(), testProcess, []string{"sweep", "task", study, "--out", out}, &so, &se); code != exitOK || !strings.Contains(so.String(), "is finished (ok)") {
		t.Errorf("second call: %d %s", code, so.String())
	}
	if _, err := os.Stat(sweep.Folder(out).ResultPath(1)); err == nil {
		t.Errorf("task 1 ran too")
	}
}

func mustStudy(t *testing.T, path string) *sweep.Study {
	t.Helper()
	st, err := sweep.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSweepK8sManifest: the Indexed Job parses back as one: a Job of every task, Indexed,
// each pod running `vpbench sweep task` of the study into its folder on the claim.
func TestSweepK8sManifest(t *testing.T) {
	study := writeSweepStudy(t, deterministicStudy)
	dir := filepath.Dir(study)
	var so, se bytes.Buffer
	code := run(context.Background(), testProcess, []string{"sweep", "k8s", study, "--image", "registry.example/vpbench:1", "--claim", "studies",
		"--parallelism", "2", "--manifest", filepath.Join(dir, "job.yaml")}, &so, &se)
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, so.String(), se.String())
	}
	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Parallelism    int    `yaml:"parallelism"`
			Template       struct {
				Spec struct {
					RestartPolicy string `yaml:"restartPolicy"`
					Containers    []struct {
						Image        string   `yaml:"image"`
						Command      []string `yaml:"command"`
						VolumeMounts []struct {
							MountPath string `yaml:"mountPath"`
						} `yaml:"volumeMounts"`
					} `yaml:"containers"`
					Volumes []struct {
						PVC struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					} `yaml:"volumes"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	dec := yaml.NewDecoder(strings.NewReader(readFile(t, filepath.Join(dir, "job.yaml"))))
	dec.KnownFields(false)
	if err := dec.Decode(&job); err != nil {
		t.Fatal(err)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || s.CompletionMode != "Indexed" || s.Completions != 4 || s.Parallelism != 2 ||
		s.Template.Spec.RestartPolicy != "Never" || len(s.Template.Spec.Containers) != 1 || job.Metadata.Name != "vpbench-study" {
		t.Fatalf("job: %+v", job)
	}
	c := s.Template.Spec.Containers[0]
	want := []string{"vpbench", "sweep", "task", study, "--out", sweep.DefaultOut(study)}
	if c.Image != "registry.example/vpbench:1" || !slices.Equal(c.Command, want) || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/work" ||
		len(s.Template.Spec.Volumes) != 1 || s.Template.Spec.Volumes[0].PVC.ClaimName != "studies" {
		t.Errorf("container: %+v, volumes %+v", c, s.Template.Spec.Volumes)
	}
	// Without an image there is no Job to write.
	if code := run(context.Background(), testProcess, []string{"sweep", "k8s", study}, &so, &se); code != exitUsage || !strings.Contains(se.String(), "no image") {
		t.Errorf("no image: %d %s", code, se.String())
	}
}

// TestSweepHelp: help lists sweep and its flags.
func TestSweepHelp(t *testing.T) {
	var so, se bytes.Buffer
	if code := run(context.Background(), testProcess, []string{"help", "sweep"}, &so, &se); code != exitOK {
		t.Fatalf("exit %d %s", code, se.String())
	}
	for _, want := range []string{"usage: vpbench sweep plan|run|task|slurm|k8s|collect", "--jobs", "--submit", "--index", "JOB_COMPLETION_INDEX"} {
		if !strings.Contains(so.String(), want) {
			t.Errorf("help sweep lacks %q:\n%s", want, so.String())
		}
	}
}

// freePort is a TCP port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestSweepSlurm runs a study on a real Slurm: munged, slurmctld and slurmd started here
// as plain processes on one node (mk/slurm.mk installs them), `vpbench sweep slurm
// --submit` submits the job array, and once its results are in, `vpbench sweep collect`
// gives the same table as `vpbench sweep run` of the same study. Skipped, saying why,
// only where the daemons are not installed or cannot start.
func TestSweepSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts Slurm")
	}
	if raceEnabled {
		t.Skip("under -race: Slurm runs subprocesses of a built vpbench (race_on_test.go); the plain pass runs it")
	}
	// skip says why Slurm cannot be had here; with VPBENCH_REQUIRE_SLURM set it fails.
	skip := func(format string, a ...any) {
		t.Helper()
		if os.Getenv("VPBENCH_REQUIRE_SLURM") != "" {
			t.Fatalf(format, a...)
		}
		t.Skipf(format, a...)
	}
	daemons := map[string]string{}
	for _, b := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"} {
		p, err := exec.LookPath(b)
		if err != nil {
			if p, err = exec.LookPath("/usr/sbin/" + b); err != nil {
				skip("Slurm is not installed (no %s: make test (or make deps-slurm) installs slurmctld slurmd slurm-client munge, mk/slurm.mk)", b)
			}
		}
		daemons[b] = p
	}
	if os.Geteuid() != 0 {
		skip("slurmd must start as root to run jobs as their user; this test runs as uid %d", os.Geteuid())
	}
	bin := vpbenchBinary(t)
	dir := t.TempDir()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	for _, d := range []string{"state", "spool"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "munge.sock")
	conf := filepath.Join(dir, "slurm.conf")
	cpus := 1
	if out, err := exec.Command("nproc").Output(); err == nil {
		cpus, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	text := fmt.Sprintf(`ClusterName=vpbench-test
SlurmctldHost=%[1]s
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=%[2]s/munge.sock
StateSaveLocation=%[2]s/state
SlurmdSpoolDir=%[2]s/spool
SlurmctldPidFile=%[2]s/slurmctld.pid
SlurmdPidFile=%[2]s/slurmd.pid
SlurmctldLogFile=%[2]s/slurmctld.log
SlurmdLogFile=%[2]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
NodeName=%[1]s CPUs=%[5]d RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, dir, freePort(t), freePort(t), cpus)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "SLURM_CONF="+conf)
	start := func(name string, args ...string) {
		cmd := exec.Command(daemons[name], args...)
		cmd.Env = env
		logf, err := os.Create(filepath.Join(dir, filepath.Base(name)+".out"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			skip("%s cannot start: %v", name, err)
		}
		t.Cleanup(func() { // stopped in reverse order: slurmd, slurmctld, munged
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			logf.Close()
		})
	}
	tail := func(names ...string) string {
		var b strings.Builder
		for _, n := range names {
			data, _ := os.ReadFile(filepath.Join(dir, n))
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			fmt.Fprintf(&b, "\n--- %s:\n%s", n, strings.Join(lines[max(0, len(lines)-8):], "\n"))
		}
		return b.String()
	}
	start("munged", "-F", "-f", "--key-file="+filepath.Join(dir, "munge.key"), "--socket="+sock,
		"--pid-file="+filepath.Join(dir, "munged.pid"), "--log-file="+filepath.Join(dir, "munged.log"), "--seed-file="+filepath.Join(dir, "munged.seed"))
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i == 100 {
			skip("munged did not start (no socket after 10 s): %s", tail("munged.out"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Setenv("SLURM_CONF", conf) // for sinfo and squeue here
	start("slurmctld", "-D", "-f", conf)
	start("slurmd", "-D", "-f", conf)
	for i := 0; ; i++ {
		out, _ := exec.Command(daemons["sinfo"], "-h", "-o", "%T").Output()
		if strings.TrimSpace(string(out)) == "idle" {
			break
		}
		if i == 60 {
			skip("the Slurm daemons did not bring the node up in 30 s (sinfo: %q): %s", out, tail("slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log"))
		}
		time.Sleep(500 * time.Millisecond)
	}

	study := writeSweepStudy(t, deterministicStudy)
	sdir := filepath.Dir(study)
	cmd := exec.Command(bin, "sweep", "slurm", "study.toml", "--submit", "--max-parallel", "2", "--time", "5:00")
	cmd.Dir, cmd.Env = sdir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sweep slurm --submit: %v\n%s%s", err, out, tail("slurmctld.log"))
	}
	var job string
	for _, l := range strings.Split(string(out), "\n") {
		if id, ok := strings.CutPrefix(l, "submitted job "); ok {
			job = id
		}
	}
	if job == "" {
		t.Fatalf("no job id:\n%s", out)
	}
	script := readFile(t, filepath.Join(sdir, "study.out", "sweep.sbatch"))
	if !strings.Contains(script, "#SBATCH --array=0-3%2\n") || !strings.Contains(script, "--index \"$SLURM_ARRAY_TASK_ID\"") || !strings.Contains(script, "#SBATCH --time=5:00\n") {
		t.Errorf("the batch script:\n%s", script)
	}
	folder := sweep.Folder(filepath.Join(sdir, "study.out"))
	deadline := time.Now().Add(3 * time.Minute)
	for {
		q, _ := exec.Command(daemons["squeue"], "-h", "-j", job).Output()
		n := 0
		for i := range 4 {
			if _, err := os.Stat(folder.ResultPath(i)); err == nil {
				n++
			}
		}
		if n == 4 && strings.TrimSpace(string(q)) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the array did not finish in 3 minutes (%d results; squeue: %s)%s", n, q, tail("slurmctld.log", "slurmd.log"))
		}
		time.Sleep(300 * time.Millisecond)
	}
	col, code := runBin(t, sdir, nil, "sweep", "collect", "study.out")
	if code != 0 || !strings.Contains(col, "4 tasks: 4 ok, 0 failed, 0 missing") {
		t.Fatalf("collect: %d\n%s", code, col)
	}
	ref, code := runBin(t, sdir, nil, "sweep", "run", "study.toml", "--jobs", "2", "--out", "local.out")
	if code != 0 {
		t.Fatalf("sweep run: %d\n%s", code, ref)
	}
	if a, b := readFile(t, filepath.Join(sdir, "study.out", "results.csv")), readFile(t, filepath.Join(sdir, "local.out", "results.csv")); a != b {
		t.Errorf("Slurm's table differs from the local run's:\n%s\n%s", a, b)
	}
	logs, _ := filepath.Glob(filepath.Join(sdir, "study.out", "logs", "slurm-"+job+"_*.log"))
	if len(logs) != 4 {
		t.Errorf("array task logs: %v", logs)
	}
}

// TestShippedStudies: the studies in scripts/studies plan without error, and their
// scenarios read every parameter they sweep (no "does not read" warning).
func TestShippedStudies(t *testing.T) {
	for _, name := range []string{"viscosity", "realtime"} {
		var so, se bytes.Buffer
		path := filepath.Join("..", "..", "scripts", "studies", name+".toml")
		if code := run(context.Background(), testProcess, []string{"sweep", "plan", path}, &so, &se); code != exitOK || se.Len() > 0 {
			t.Errorf("%s: exit %d:\n%s%s", name, code, so.String(), se.String())
		}
		if !strings.Contains(so.String(), "estimated cost") {
			t.Errorf("%s: %s", name, so.String())
		}
	}
}

// TestSweepTaskPictures: a study's pictures are drawn at the first frame at or after each
// time (one PNG of picture_size a time, in the folder's pictures/), listed in the task's
// result and embedded in collect's summary.md.
func TestSweepTaskPictures(t *testing.T) {
	study := writeSweepStudy(t, strings.Replace(deterministicStudy, "until = 0.05\n", "until = 0.05\npictures = [0.02, 0.05]\npicture_size = [96, 64]\n", 1))
	out := sweep.DefaultOut(study)
	code, _, errOut := runCLI(t, "sweep", "task", study, "--index", "1")
	if code != exitOK {
		res, _ := os.ReadFile(filepath.Join(out, "tasks", "task-000001.json"))
		skipNoGL(t, errOut+string(res))
		t.Fatalf("exit %d: %s\n%s", code, errOut, res)
	}
	var r sweep.Result
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "tasks", "task-000001.json"))), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Pictures) != 2 {
		t.Fatalf("the result lists pictures %v, want 2", r.Pictures)
	}
	for _, rel := range r.Pictures {
		f, err := os.Open(filepath.Join(out, rel))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != 96 || img.Bounds().Dy() != 64 {
			t.Fatalf("%s: %v, %v", rel, err, img.Bounds())
		}
	}
	if code, _, errOut := runCLI(t, "sweep", "collect", out); code != exitOK {
		t.Fatalf("collect: exit %d: %s", code, errOut)
	}
	if md := readFile(t, filepath.Join(out, "summary.md")); !strings.Contains(md, "](pictures/task-000001-t0.02.png)") {
		t.Errorf("summary.md does not show the task's pictures:\n%s", md)
	}
}
