package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runCLI runs the command line and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), testProcess, args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeScript writes a scenario into a temporary folder and returns its path.
func writeScript(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const pourScript = `
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, layers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} })
sim:source{ at = {0.01, 0.01, 0.01}, radius = 0.002, rate = 1e-6, stop = 0.2 }
sim:at(0.1, function() print("tenth of a second"); sim:report{ tenth = 0.1, ml = sim:stats().added * 1e6 } end)
sim:at(0.2, function() sim:report{ tenth = 2 } end)
`

func TestRunHeadlessReportsTable1AndVolume(t *testing.T) {
	path := writeScript(t, "pour.lua", pourScript)
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	code, out, errOut := runCLI(t, "run", "--headless", "--until", "0.3", path, "--json", jsonPath)
	if code != exitOK {
		t.Fatalf("exit %d, stderr: %s", code, errOut)
	}
	for _, want := range []string{"tenth of a second", "simulation", "surface", "render", "total", "real time", "volume", "conservation"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var rep runReport
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, b)
	}
	// sim:report's names with each one's latest value.
	if rep.Reported["tenth"] != 2 || !(rep.Reported["ml"] > 0.09 && rep.Reported["ml"] < 0.11) || len(rep.Reported) != 2 {
		t.Errorf("reported %v: want tenth 2 and ml about 0.1", rep.Reported)
	}
	// 1 ml/s for 0.2 s (whole steps): about 0.2 ml, all of it kept.
	if rep.AddedMl < 0.19 || rep.AddedMl > 0.21 || rep.RejectedMl != 0 {
		t.Errorf("added %g ml, rejected %g ml: want about 0.2 ml added, none rejected", rep.AddedMl, rep.RejectedMl)
	}
	if rep.ConservationError > 1e-9 || rep.ConservationError < -1e-9 {
		t.Errorf("conservation error %g", rep.ConservationError)
	}
	if rep.Simulation.Frames == 0 || rep.Simulation.AvgMs <= 0 || rep.Simulation.MaxMs < rep.Simulation.AvgMs {
		t.Errorf("simulation timings %+v", rep.Simulation)
	}
	if rep.SimulatedS < 0.299 || rep.Steps == 0 || rep.RealTimeFactor <= 0 {
		t.Errorf("simulated %g s in %d steps, real-time factor %g", rep.SimulatedS, rep.Steps, rep.RealTimeFactor)
	}
}

func TestDemoRuns(t *testing.T) {
	code, out, errOut := runCLI(t, "--until", "0.2", "--every", "0.1")
	if code != exitOK {
		t.Fatalf("exit %d, stderr: %s", code, errOut)
	}
	if !strings.Contains(out, "demo.lua") || !strings.Contains(out, "volume") {
		t.Errorf("demo output:\n%s", out)
	}
	m := regexp.MustCompile(`added ([0-9.]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no volume line:\n%s", out)
	}
	if added, _ := strconv.ParseFloat(m[1], 64); added < 0.9 || added > 1.1 { // 5 ml/s for 0.2 s
		t.Errorf("demo added %g ml in 0.2 s, want about 1 ml", added)
	}
}

func TestScriptErrorExitsOneWithFileLine(t *testing.T) {
	path := writeScript(t, "broken.lua", "local sim = vp.sim{ dx = 0.001, size = {0.01, 0.01} }\nsim:at(0.01, function()\n  error(\"boom\")\nend)\n")
	code, out, errOut := runCLI(t, "run", "--headless", "--until", "0.1", path)
	if code != exitRun {
		t.Fatalf("exit %d, want %d; stderr: %s", code, exitRun, errOut)
	}
	if !strings.Contains(errOut, "broken.lua:3") || !strings.Contains(errOut, "boom") {
		t.Errorf("stderr %q does not name broken.lua:3 and the message", errOut)
	}
	if !strings.Contains(out, "volume") {
		t.Errorf("the report of what ran before the error is missing:\n%s", out)
	}
}

func TestCheck(t *testing.T) {
	path := writeScript(t, "pour.lua", pourScript)
	code, out, errOut := runCLI(t, "check", path)
	if code != exitOK {
		t.Fatalf("exit %d, stderr: %s", code, errOut)
	}
	for _, want := range []string{"20 x 20 cells", "columns", "terrain     each ray's intervals from the solids themselves", "memory", "stability limit"} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	tilted := writeScript(t, "tilted.lua", `local sim = vp.sim{ size = {0.01, 0.01}, height = 0.01, dx = 0.001 }
sim:terrain(vp.heightfield(function(x, y) return 0.002 + 0.1 * x end):rotate{ axis = {1, 0, 0}, angle = 0.1 })
`)
	code, out, errOut = runCLI(t, "check", tilted)
	if want := "terrain     marched up each ray (slower to load): a heightfield turned about a horizontal axis"; code != exitOK || !strings.Contains(out, want) {
		t.Errorf("check of a tilted heightfield: exit %d, output lacks %q:\n%s%s", code, want, out, errOut)
	}
	bad := writeScript(t, "bad.lua", "vp.sim{ dx = 0 }\n")
	if code, _, errOut := runCLI(t, "check", bad); code != exitRun || !strings.Contains(errOut, "bad.lua:1") || !strings.Contains(errOut, "dx") {
		t.Errorf("check of dx = 0: exit %d, stderr %q", code, errOut)
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--until", "-1"},
		{"run", "--until", "NaN"},
		{"run", "--frame-steps", "0"},
		{"run", "--nope"},
		{"run", "a.lua", "b.lua"},
		{"check"},
		{"bench", "--until", "0"},
		{"bench", "--only", "no_such_scene"},
		{"--param", "novalue"},
	} {
		if code, _, errOut := runCLI(t, args...); code != exitUsage || errOut == "" {
			t.Errorf("%v: exit %d (want %d), stderr %q", args, code, exitUsage, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "run", "--until", "0.1", "/no/such/file.lua"); code != exitUsage || !strings.Contains(errOut, "file.lua") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}

func TestBenchAndPlot(t *testing.T) {
	dir := t.TempDir()
	plotPath := filepath.Join(dir, "steps.png")
	jsonPath := filepath.Join(dir, "bench.json")
	code, out, errOut := runCLI(t, "bench", "--only", "demo,viscosity", "--until", "0.03", "--json", jsonPath,
		"--plot", plotPath, "--plot-dx", "0.004,0.002", "--plot-scenario", "viscosity")
	if code != exitOK {
		t.Fatalf("exit %d, stderr: %s\n%s", code, errOut, out)
	}
	var reps []runReport
	b, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(b, &reps); err != nil || len(reps) != 2 {
		t.Fatalf("bench JSON: %v, %d reports", err, len(reps))
	}
	st, err := os.Stat(plotPath)
	if err != nil || st.Size() < 1000 {
		t.Fatalf("plot: %v", err)
	}
	png, _ := os.ReadFile(plotPath)
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatal("the plot is not a PNG")
	}
	if !strings.Contains(out, "x realtime") {
		t.Errorf("no summary:\n%s", out)
	}
}

func TestWatchReloads(t *testing.T) {
	path := writeScript(t, "w.lua", strings.Replace(pourScript, "tenth of a second", "first version", 1))
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb safeBuffer
	done := make(chan int)
	go func() { done <- run(ctx, testProcess, []string{"--until", "0.2", path}, &out, &errb) }()
	waitFor(t, &out, "first version")
	time.Sleep(50 * time.Millisecond)
	if err := os.WriteFile(path, []byte(strings.Replace(pourScript, "tenth of a second", "second version", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &out, "second version")
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d after Ctrl-C, stderr: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "reloading") {
		t.Errorf("no reload message: %s", errb.String())
	}
}

func TestSurfaceTimingsAndExport(t *testing.T) {
	path := writeScript(t, "pour.lua", pourScript)
	dir := filepath.Join(t.TempDir(), "meshes")
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	code, out, errOut := runCLI(t, "run", "--headless", "--until", "0.2", "--export-every", "10", "--export-dir", dir,
		"--export-format", "ply", "--json", jsonPath, path)
	if code != exitOK {
		t.Fatalf("exit %d, stderr: %s", code, errOut)
	}
	var rep runReport
	b, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Surface.Frames != rep.Simulation.Frames || rep.Surface.AvgMs <= 0 {
		t.Errorf("surface timings %+v for %d simulation frames:\n%s", rep.Surface, rep.Simulation.Frames, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "pour_*.ply"))
	if want := rep.Simulation.Frames / 10; len(files) != want {
		t.Errorf("%d meshes written for %d frames, want %d", len(files), rep.Simulation.Frames, want)
	}
	if code, _, errOut := runCLI(t, "run", "--export-format", "stl", path); code != exitUsage {
		t.Errorf("--export-format stl: exit %d, stderr %q", code, errOut)
	}
}

func TestCPUProfile(t *testing.T) {
	path := writeScript(t, "pour.lua", pourScript)
	prof := filepath.Join(t.TempDir(), "run.prof")
	code, _, errs := runCLI(t, "run", "--headless", "--until", "0.05", "--cpuprofile", prof, path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(prof)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b { // pprof profiles are gzipped
		t.Fatalf("profile %s: %d bytes, %v: want a gzipped pprof profile", prof, len(b), err)
	}
	code, _, errs = runCLI(t, "run", "--headless", "--cpuprofile", filepath.Join(prof, "x"), path)
	if code != exitUsage || !strings.Contains(errs, "--cpuprofile") {
		t.Errorf("a profile path below a file: exit %d, %q: want 2 naming --cpuprofile", code, errs)
	}
}

// TestBenchCPUProfile: `vpbench bench --cpuprofile` profiles the whole bench (the run
// command's flag, which bench did not take), and a path it cannot write is a usage error
// before anything runs.
func TestBenchCPUProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "bench.prof")
	code, _, errs := runCLI(t, "bench", "--until", "0.05", "--only", "passages", "--cpuprofile", prof)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(prof)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("profile %s: %d bytes, %v: want a gzipped pprof profile", prof, len(b), err)
	}
	code, out, errs := runCLI(t, "bench", "--until", "0.05", "--only", "passages", "--cpuprofile", filepath.Join(prof, "x"))
	if code != exitUsage || !strings.Contains(errs, "--cpuprofile") || strings.Contains(out, "passages.lua") {
		t.Errorf("a profile path below a file: exit %d, %q, stdout %q: want 2 naming --cpuprofile, no scenario run", code, errs, out)
	}
}
