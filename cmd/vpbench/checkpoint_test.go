package main

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vpbench/vpbench/script"
)

// ckScript pours for 0.4 s and prints from timers, some after the checkpoints.
const ckScript = `
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, layers = 1, workers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0.2, 0, 1} })
sim:source{ at = {0.01, 0.01, 0.008}, radius = 0.002, rate = 1e-6, stop = 0.4 }
sim:every(0.05, function(t) print(string.format("t=%.3f volume=%.17g wet=%d", t, sim:volume(), sim:stats().wet)) end)
sim:at(0.22, function() sim:set{ viscosity = 1e-5 } print("thicker") end)
`

// readReport reads a --json report.
func readReport(t *testing.T, path string) runReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep runReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// scriptLines keeps the script's prints of a run's output (the t= and thicker lines).
func scriptLines(out string) []string {
	var l []string
	for _, s := range strings.Split(out, "\n") {
		if strings.HasPrefix(s, "t=") || s == "thicker" {
			l = append(l, s)
		}
	}
	return l
}

// TestRunCheckpointAndResume: vpbench run --checkpoint --checkpoint-every writes
// checkpoints and says where; --resume from one goes on to the same prints and volume as
// the run that was not stopped; a refused checkpoint exits 1 naming it.
func TestRunCheckpointAndResume(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pour.lua")
	if err := os.WriteFile(path, []byte(ckScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "pour.vpc")
	fullJSON := filepath.Join(dir, "full.json")
	code, full, errOut := runCLI(t, "run", "--headless", "--until", "0.35", "--checkpoint", cp, "--checkpoint-every", "0.1", "--json", fullJSON, path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"checkpoint written to " + cp + " (t = 0.1", "checkpoint written to " + cp + " (t = 0.3", "final checkpoint written to " + cp + " (t = 0.35"} {
		if !strings.Contains(full, want) {
			t.Errorf("output lacks %q:\n%s", want, full)
		}
	}

	// Stop at 0.15 s (the final checkpoint), resume to 0.35 s.
	half := filepath.Join(dir, "half.vpc")
	if code, out, errOut := runCLI(t, "run", "--headless", "--until", "0.15", "--checkpoint", half, path); code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	resJSON := filepath.Join(dir, "resumed.json")
	code, resumed, errOut := runCLI(t, "run", "--headless", "--until", "0.35", "--resume", half, "--json", resJSON, path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(resumed, "resumed from "+half+" at t = 0.15") {
		t.Errorf("output lacks the resume:\n%s", resumed)
	}
	want := scriptLines(full)
	for len(want) > 0 && !strings.HasPrefix(want[0], "t=0.2") {
		want = want[1:]
	}
	if got := scriptLines(resumed); strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) < 4 {
		t.Errorf("prints after the checkpoint:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	a, b := readReport(t, fullJSON), readReport(t, resJSON)
	if a.VolumeMl != b.VolumeMl || a.SimulatedS != b.SimulatedS || a.Wet != b.Wet || a.AirborneMl != b.AirborneMl {
		t.Errorf("resumed run: volume %v ml, t %v s, wet %d; uninterrupted: %v, %v, %d", b.VolumeMl, b.SimulatedS, b.Wet, a.VolumeMl, a.SimulatedS, a.Wet)
	}

	// Another script, other parameters, bad flags.
	other := filepath.Join(dir, "other.lua")
	if err := os.WriteFile(other, []byte(ckScript+"-- edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "run", "--headless", "--until", "0.35", "--resume", half, other); code != exitRun || !strings.Contains(errOut, "half.vpc was written by pour.lua, not other.lua") {
		t.Errorf("resume of another script: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "run", "--headless", "--until", "0.35", "--resume", half, "--param", "x=1", path); code != exitRun || !strings.Contains(errOut, "other parameters") {
		t.Errorf("resume with other params: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "run", "--headless", "--checkpoint-every", "0.1", path); code != exitUsage || !strings.Contains(errOut, "needs --checkpoint") {
		t.Errorf("--checkpoint-every alone: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "run", "--headless", "--checkpoint", cp, "--checkpoint-every", "-1", path); code != exitUsage || !strings.Contains(errOut, "--checkpoint-every is -1") {
		t.Errorf("--checkpoint-every -1: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "run", "--headless", "--resume", filepath.Join(dir, "none.vpc"), path); code != exitUsage || !strings.Contains(errOut, "none.vpc") {
		t.Errorf("--resume of a missing file: exit %d, %s", code, errOut)
	}
}

// ckRegionScript runs a channel through a 3D region placed by its set-up, printing the
// volume and the region's figures.
const ckRegionScript = `
local sim = vp.sim{ size = {0.06, 0.01}, height = 0.03, dx = 0.002, workers = 1, capillarity = "off" }
sim:fill{ at = {0.001, 0.001, 0.001}, level = 0.008, velocity = {0.1, 0} }
sim:source{ at = {0.005, 0.005, 0.001}, radius = 0.002, rate = 2e-7 }
sim:sink{ at = {0.055, 0.005, 0.001}, radius = 0.002, rate = 1e-7 }
local r = sim:region{ min = {0.021, 0, 0}, max = {0.039, 0.01, 0.02}, refine = 2 }
sim:every(0.05, function(t)
  local i = r:info()
  print(string.format("t=%.3f volume=%.17g particles=%d in=%.17g out=%.17g", t, sim:volume(), i.particles, i.inflow, i.outflow))
end)
`

// TestRunCheckpointRegion: vpbench run --checkpoint of a scenario with a 3D region, then
// --resume, goes on to the same prints (the volume and the region's figures through its
// handle) and the same volume in the report as the run that was not stopped.
func TestRunCheckpointRegion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "region.lua")
	if err := os.WriteFile(path, []byte(ckRegionScript), 0o644); err != nil {
		t.Fatal(err)
	}
	fullJSON, resJSON := filepath.Join(dir, "full.json"), filepath.Join(dir, "resumed.json")
	code, full, errOut := runCLI(t, "run", "--headless", "--until", "0.3", "--json", fullJSON, path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	half := filepath.Join(dir, "half.vpc")
	if code, out, errOut := runCLI(t, "run", "--headless", "--until", "0.12", "--checkpoint", half, path); code != exitOK || !strings.Contains(out, "final checkpoint written to "+half) {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	code, resumed, errOut := runCLI(t, "run", "--headless", "--until", "0.3", "--resume", half, "--json", resJSON, path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := scriptLines(full)
	for len(want) > 0 && !strings.HasPrefix(want[0], "t=0.15") {
		want = want[1:]
	}
	if got := scriptLines(resumed); strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) < 3 {
		t.Errorf("prints after the checkpoint:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	a, b := readReport(t, fullJSON), readReport(t, resJSON)
	if a.VolumeMl != b.VolumeMl || a.SimulatedS != b.SimulatedS || a.Region == nil || b.Region == nil || a.Region.Particles != b.Region.Particles {
		t.Errorf("resumed run: volume %v ml, t %v s, region %+v; uninterrupted: %v, %v, %+v", b.VolumeMl, b.SimulatedS, b.Region, a.VolumeMl, a.SimulatedS, a.Region)
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// vpbenchBinary builds the command once for the tests that run it as a process.
func vpbenchBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			binErr = err
			return
		}
		dir, err := os.MkdirTemp("", "vpbench-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "vpbench")
		if out, err := exec.Command(gobin, "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = &exec.Error{Name: "go build", Err: err}
			t.Logf("%s", out)
		}
	})
	if binErr != nil {
		t.Fatalf("building vpbench: %v", binErr)
	}
	return binPath
}

// TestCheckpointKill9 kills `vpbench run --checkpoint f --checkpoint-every 0.01` with
// SIGKILL at random moments while it writes checkpoints: the file at the real name is
// always a complete checkpoint that resumes, and the temporary files a kill leaves
// behind do not disturb a later run, which resumes and writes checkpoints to the same
// name.
func TestCheckpointKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	bin := vpbenchBinary(t)
	dir := t.TempDir()
	src := `local sim = vp.sim{ size = {0.04, 0.04}, height = 0.01, dx = 0.0005, layers = 2, workers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0.1, 0.05, 1} })
sim:source{ at = {0.02, 0.02, 0.008}, radius = 0.003, rate = 1e-6 }
sim:every(0.1, function(t) print(string.format("t=%.2f", t)) end)
`
	if err := os.WriteFile(filepath.Join(dir, "kill.lua"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for round := range 3 {
		args := []string{"run", "--headless", "--until", "1000", "--checkpoint", "cp/kill.vpc", "--checkpoint-every", "0.01", "kill.lua"}
		if round > 0 {
			args = append(args, "--resume", "cp/kill.vpc") // a later run, beside the leftovers
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for a few checkpoints, then kill at a random moment.
		written := make(chan int, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			n := 0
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "checkpoint written to") {
					n++
					if n == 3 {
						written <- n
					}
				}
			}
			close(written)
		}()
		select {
		case _, ok := <-written:
			if !ok {
				_ = cmd.Wait()
				t.Fatalf("round %d: the run ended before 3 checkpoints: %s", round, stderr.String())
			}
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("round %d: no 3 checkpoints in 60 s: %s", round, stderr.String())
		}
		time.Sleep(time.Duration(rng.IntN(40000)) * time.Microsecond)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		_ = cmd.Wait()

		entries, _ := os.ReadDir(filepath.Join(dir, "cp"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Logf("round %d: after kill -9: %v", round, names)
		sc, err := script.Load(filepath.Join(dir, "kill.lua"), script.Options{Workers: -1})
		if err != nil {
			t.Fatal(err)
		}
		err = sc.ResumeFile(filepath.Join(dir, "cp", "kill.vpc"))
		tm := sc.Scene().Time()
		sc.Close()
		if err != nil {
			t.Fatalf("round %d: the checkpoint left by kill -9 does not resume: %v", round, err)
		}
		if tm <= 0 {
			t.Fatalf("round %d: the checkpoint is at t = %g", round, tm)
		}
	}
	// A last run resumes from the file beside any leftovers and ends normally.
	// (--until below the checkpoint's time: it stops at once, with a final checkpoint.)
	cmd := exec.Command(bin, "run", "--headless", "--until", "0.001", "--checkpoint", "cp/kill.vpc", "--resume", "cp/kill.vpc", "kill.lua")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "resumed from cp/kill.vpc") || !strings.Contains(string(out), "final checkpoint written to cp/kill.vpc") {
		t.Fatalf("resume after the kills: %v\n%s", err, out)
	}
}

// TestCheckpointInterrupt: Ctrl-C (SIGINT) on a headless run with --checkpoint writes a
// final checkpoint before the process exits, and says so.
func TestCheckpointInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	bin := vpbenchBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pour.lua"), []byte(ckScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--headless", "--until", "1e6", "--checkpoint", "int.vpc", "pour.lua")
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after Ctrl-C: %v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("no exit 30 s after Ctrl-C:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "final checkpoint written to int.vpc") {
		t.Fatalf("no final checkpoint after Ctrl-C:\n%s", out.String())
	}
	sc, err := script.Load(filepath.Join(dir, "pour.lua"), script.Options{Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if err := sc.ResumeFile(filepath.Join(dir, "int.vpc")); err != nil {
		t.Fatal(err)
	}
	if sc.Scene().Time() <= 0 {
		t.Errorf("the final checkpoint is at t = %g", sc.Scene().Time())
	}
}
