package sweep

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func loadTest(t *testing.T, text string) *Study {
	t.Helper()
	s, err := Load(writeStudy(t, text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// okResult is what a task writes: its result, with a made-up report.
func okResult(s *Study, i int, vol float64) Result {
	t := s.Tasks[i]
	rep, _ := json.Marshal(map[string]any{"volume_ml": vol, "simulation": map[string]any{"avg_ms": 0.5}})
	return Result{Plan: s.Plan(), Index: i, Repeat: t.Repeat, Params: t.Params, Status: StatusOK, Report: rep,
		Reported: map[string]float64{"front": vol * 2}}
}

// TestPoolFailures: a task's process that ends without writing a result is booked as
// failed with its exit status and its last output lines; one that runs past task_timeout
// is stopped and booked as failed; the others' results are theirs; a second run finds
// every task finished and runs none.
func TestPoolFailures(t *testing.T) {
	s := loadTest(t, "scenario = \"scene.lua\"\nuntil = 1\ntask_timeout = 0.5\n[params]\nn = [0, 1, 2]\n")
	out := Folder(filepath.Join(t.TempDir(), "out"))
	var events []Event
	p := &Pool{Study: s, Out: out, Jobs: 2,
		Command: func(task Task) *exec.Cmd {
			switch task.Index {
			case 0: // a task that works: it writes its result
				if err := out.WriteResult(okResult(s, 0, 1.5)); err != nil {
					t.Error(err)
				}
				return exec.Command("true")
			case 1:
				return exec.Command("sh", "-c", "echo the solver blew up; exit 3")
			}
			return exec.Command("sleep", "30")
		},
		Event: func(e Event) { events = append(events, e) }}
	start := time.Now()
	ran, skipped, err := p.Run(context.Background())
	if err != nil || ran != 3 || skipped != 0 {
		t.Fatalf("ran %d, skipped %d, %v", ran, skipped, err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the timeout did not stop the sleeping task")
	}
	r1, ok, _ := out.Result(1, s.Plan())
	if !ok || r1.Status != StatusFailed || !strings.Contains(r1.Error, "exit status 3") || !strings.Contains(r1.Error, "the solver blew up") ||
		!strings.Contains(r1.Error, "task 1 (n=1)") {
		t.Errorf("task 1: %+v", r1)
	}
	r2, ok, _ := out.Result(2, s.Plan())
	if !ok || r2.Status != StatusFailed || !strings.Contains(r2.Error, "ran past task_timeout = 0.5 s") {
		t.Errorf("task 2: %+v", r2)
	}
	if r0, ok, _ := out.Result(0, s.Plan()); !ok || r0.Status != StatusOK {
		t.Errorf("task 0: %+v", r0)
	}
	if n := len(events); n != 6 || events[n-1].Done != 3 || events[n-1].Total != 3 {
		t.Errorf("events: %+v", events)
	}
	// Everything is finished: nothing runs. --retry-failed runs the two that failed.
	ran, skipped, err = p.Run(context.Background())
	if err != nil || ran != 0 || skipped != 3 {
		t.Errorf("second run: ran %d, skipped %d, %v", ran, skipped, err)
	}
	p.RetryFailed = true
	p.Study.TaskTimeout = 0.1
	ran, skipped, _ = p.Run(context.Background())
	if ran != 2 || skipped != 1 {
		t.Errorf("--retry-failed: ran %d, skipped %d", ran, skipped)
	}
}

// TestPoolCancel: ending the context stops the tasks in flight, which leave no result
// (they run again on resume), and starts no more.
func TestPoolCancel(t *testing.T) {
	s := loadTest(t, "scenario = \"scene.lua\"\nuntil = 1\n[params]\nn = [0, 1, 2, 3]\n")
	out := Folder(filepath.Join(t.TempDir(), "out"))
	ctx, cancel := context.WithCancel(context.Background())
	started := 0
	p := &Pool{Study: s, Out: out, Jobs: 2,
		Command: func(Task) *exec.Cmd { return exec.Command("sleep", "30") },
		Event: func(e Event) {
			if e.Result == nil && !e.Cut {
				started++
				if started == 2 {
					cancel()
				}
			}
		}}
	ran, _, err := p.Run(ctx)
	if ran != 0 || err == nil {
		t.Errorf("ran %d, err %v", ran, err)
	}
	if started != 2 {
		t.Errorf("%d tasks started after the cancel", started-2)
	}
	pending, _ := out.Pending(s, false)
	if len(pending) != 4 {
		t.Errorf("%d tasks pending after the cancel, want 4", len(pending))
	}
}

// TestCollect: the table has a row per task (ok, failed, missing), outputs taken afresh
// from each report; the summary lists the failed task with its error and the missing one.
func TestCollect(t *testing.T) {
	s := loadTest(t, "scenario = \"scene.lua\"\nuntil = 1\noutputs = [\"volume_ml\", \"simulation.avg_ms\", \"reported.*\"]\n[params]\nn = [1, 2, 3]\nfixed = \"x\"\n")
	out := Folder(filepath.Join(t.TempDir(), "out"))
	if err := out.Prepare(s); err != nil {
		t.Fatal(err)
	}
	out.WriteResult(okResult(s, 0, 1.5))
	failed := Result{Plan: s.Plan(), Index: 2, Params: s.Tasks[2].Params, Status: StatusFailed, Error: "study.toml:1: task 2 (n=3): scene.lua:4: boom"}
	out.WriteResult(failed)
	// A leftover of a write cut off, and a result of another plan, are not results.
	os.WriteFile(filepath.Join(string(out), "tasks", ".task-000001.json.123.tmp"), []byte("{"), 0o644)
	tab, err := Collect(out)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "index,repeat,n,fixed,status,volume_ml,simulation.avg_ms,reported.front,error\n" +
		"0,0,1,x,ok,1.5,0.5,3,\n" +
		"1,0,2,x,missing,,,,\n" +
		"2,0,3,x,failed,,,,study.toml:1: task 2 (n=3): scene.lua:4: boom\n"
	if b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
	files, err := tab.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(string(out), "summary.md"))
	for _, w := range []string{"tasks: 3: 1 ok, 1 failed, 1 missing", "- task 2 (n=3): failed: study.toml:1: task 2 (n=3): scene.lua:4: boom",
		"- task 1 (n=2): missing", "![volume_ml_vs_n](plots/volume_ml_vs_n.png)"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("summary.md lacks %q:\n%s", w, md)
		}
	}
	if len(files) != 6 { // csv, json, 3 plots, summary
		t.Errorf("files: %v", files)
	}
}

// TestSlurmScript: the array holds only the given tasks, as ranges, with %K; the script
// runs `vpbench sweep task` with absolute, quoted paths.
func TestSlurmScript(t *testing.T) {
	s := loadTest(t, "scenario = \"scene.lua\"\nuntil = 1\n[params]\nn = { start = 0, stop = 9, step = 1 }\n")
	var some []Task
	for _, i := range []int{0, 1, 2, 5, 7, 8} {
		some = append(some, s.Tasks[i])
	}
	if got := ArraySpec(some, 3); got != "0-2,5,7-8%3" {
		t.Errorf("array %q", got)
	}
	text, err := SbatchScript(s, Folder(filepath.Join(s.Dir, "it's.out")), "/opt/vp bench", some,
		SlurmOptions{Partition: "short", Time: "10:00", CPUs: 2, MaxParallel: 3, Sbatch: []string{"--mem=2G"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"#!/bin/bash\n", "#SBATCH --array=0-2,5,7-8%3\n", "#SBATCH --partition=short\n", "#SBATCH --time=10:00\n",
		"#SBATCH --cpus-per-task=2\n", "#SBATCH --mem=2G\n", "#SBATCH --job-name=vpbench-study\n",
		"exec '/opt/vp bench' sweep task '" + s.Path + "' --out '" + filepath.Join(s.Dir, `it'\''s.out`) + "' --index \"$SLURM_ARRAY_TASK_ID\"\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("script lacks %q:\n%s", w, text)
		}
	}
}
