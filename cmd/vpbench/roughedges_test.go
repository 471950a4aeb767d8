package main

import (
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The command line's rough edges (issue 41): enumerated names in any case, bad values
// and unknown flags or commands as usage errors that say what was meant, render's
// picture format by its extension, and check's listing of the scene.

// TestNamesAnyCaseOnTheCommandLine: --method and --backend take their names in any case
// and the run uses the canonical name.
func TestNamesAnyCaseOnTheCommandLine(t *testing.T) {
	path := writeScript(t, "pour.lua", pourScript)
	for _, args := range [][]string{
		{"check", "--method", "SWE", "--backend", "CPU", path},
		{"check", "--method=Swe", path},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != exitOK || !strings.Contains(out, "method=swe") {
			t.Errorf("%q: exit %d, stderr %q; want 0 and method=swe in:\n%s", args, code, errOut, out)
		}
	}
	if code, _, errOut := runCLI(t, "check", "--method", "PIPES", path); code != exitOK {
		t.Errorf("--method PIPES: exit %d, stderr %q", code, errOut)
	}
}

// TestBadFlagValuesExit2: a bad --method or --backend is a usage error (exit status 2)
// for every command that takes the flag, before anything loads, naming the flag, the
// value and the names it takes, with the pointer to the command's help.
func TestBadFlagValuesExit2(t *testing.T) {
	path := writeScript(t, "pour.lua", pourScript)
	type tc struct {
		args []string
		want []string
		help string
	}
	var cases []tc
	for _, cmd := range []string{"", "run", "check", "render", "bench"} {
		pre, help := []string{cmd}, "vpbench help "+cmd
		if cmd == "" {
			pre, help = nil, "vpbench help'"
		}
		args := func(more ...string) []string { return append(append(append([]string{}, pre...), more...), path) }
		if cmd == "bench" { // bench takes a library folder, not a scenario
			args = func(more ...string) []string { return append(append([]string{}, pre...), more...) }
		}
		cases = append(cases,
			tc{args("--method", "bogus"), []string{`invalid value "bogus" for --method`, `"pipes" or "swe"`}, help},
			tc{args("--method=Bogus"), []string{`invalid value "Bogus" for --method`, `"pipes" or "swe"`}, help},
			tc{args("--backend", "bogus"), []string{`invalid value "bogus" for --backend`, `"auto", "cpu" or "cuda"`}, help},
		)
	}
	cases = append(cases,
		tc{[]string{"validate", "--method", "bogus"}, []string{`--method "bogus"`, `"pipes", "swe" or "both"`}, "vpbench help validate"},
		tc{[]string{"run", "--until", "soon", path}, []string{`invalid value "soon" for --until: want a number`}, "vpbench help run"},
		tc{[]string{"run", "--workers", "1.5", path}, []string{`invalid value "1.5" for --workers: want a whole number`}, "vpbench help run"},
		tc{[]string{"run", "--headless=maybe", path}, []string{`invalid value "maybe" for --headless: want true or false`}, "vpbench help run"},
		tc{[]string{"run", path, "--until"}, []string{`--until needs a value`}, "vpbench help run"},
	)
	for _, c := range cases {
		code, out, errOut := runCLI(t, c.args...)
		if code != exitUsage || out != "" {
			t.Errorf("%q: exit %d (want %d), stdout %q, stderr %q", c.args, code, exitUsage, out, errOut)
			continue
		}
		for _, w := range append(c.want, c.help) {
			if !strings.Contains(errOut, w) {
				t.Errorf("%q: stderr lacks %q:\n%s", c.args, w, errOut)
			}
		}
		if strings.Contains(errOut, " -method") || strings.Contains(errOut, " -backend") || strings.Contains(errOut, "flag -") {
			t.Errorf("%q: stderr has Go's one-dash wording:\n%s", c.args, errOut)
		}
	}
	// validate's --method takes any case too.
	if code, _, errOut := runCLI(t, "validate", "--method", "Both", "--only", "nothere"); code != exitUsage || strings.Contains(errOut, "--method") {
		t.Errorf("validate --method Both: exit %d, stderr %q (want the --only error alone)", code, errOut)
	}
}

// TestUnknownFlagSuggests: an unknown flag names the command and the nearest defined
// flag, when one is near.
func TestUnknownFlagSuggests(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--untill", "1", "x.lua"}, "unknown flag --untill for vpbench run (did you mean --until?)"},
		{[]string{"run", "-untill=1", "x.lua"}, "unknown flag -untill for vpbench run (did you mean --until?)"},
		{[]string{"check", "--metod", "swe", "x.lua"}, "unknown flag --metod for vpbench check (did you mean --method?)"},
		{[]string{"render", "--pgn", "a.png", "x.lua"}, "(did you mean --png?)"},
		{[]string{"--plian", "x.lua"}, "unknown flag --plian for vpbench (did you mean --plain?)"},
		{[]string{"bench", "--jsno", "a.json"}, "(did you mean --json?)"},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, errOut, exitUsage, c.want)
		}
	}
	code, _, errOut := runCLI(t, "run", "--zzzzzz", "x.lua")
	if code != exitUsage || !strings.Contains(errOut, "unknown flag --zzzzzz") || strings.Contains(errOut, "did you mean") {
		t.Errorf("--zzzzzz: exit %d, stderr %q; want no suggestion", code, errOut)
	}
}

// TestUnknownCommandSuggests: a first word that is no command and no file lists every
// command and proposes the nearest; a scenario file still runs as the default mode.
func TestUnknownCommandSuggests(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rn", "x.lua"}, `unknown command "rn" (did you mean run?)`},
		{[]string{"chek"}, `unknown command "chek" (did you mean check?)`},
		{[]string{"--plain", "rendr", "x.lua"}, `unknown command "rendr" (did you mean render?)`},
		{[]string{"frobnicate", "x.lua"}, `unknown command "frobnicate": the commands are`},
		{[]string{"help", "rnu"}, `no command "rnu" (did you mean run?)`},
		{[]string{"sweep", "pln", "x.toml"}, `no subcommand "pln" (did you mean plan?)`},
	} {
		code, out, errOut := runCLI(t, c.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", c.args, code, out, errOut, exitUsage, c.want)
		}
		if c.args[0] == "sweep" {
			continue
		}
		for _, name := range commandNames() {
			if !strings.Contains(errOut, name) {
				t.Errorf("%q: stderr does not list the command %s:\n%s", c.args, name, errOut)
			}
		}
	}
	if len(commandNames()) != 8 {
		t.Errorf("commandNames() = %v", commandNames())
	}
	// Two files: the error lists every command too.
	code, _, errOut := runCLI(t, "a.lua", "b.lua")
	if code != exitUsage || !strings.Contains(errOut, "validate, sweep, help, version") {
		t.Errorf("a.lua b.lua: exit %d, stderr %q", code, errOut)
	}
	// A scenario file without an extension is a scenario, not a command.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pour"), []byte(pourScript), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if code, _, errOut := runCLI(t, "--watch=false", "--until", "0.05", "pour"); code != exitOK {
		t.Errorf("a scenario file named pour: exit %d, stderr %q", code, errOut)
	}
}

// TestRenderPictureFormat: render writes a JPEG for .jpg and .jpeg (either flag, any
// case), a PNG for .png, and refuses another extension before it runs anything.
func TestRenderPictureFormat(t *testing.T) {
	dir := t.TempDir()
	path := writeScript(t, "pour.lua", pourScript)
	for _, c := range []struct {
		flag, name string
		jpeg       bool
	}{{"--png", "a.jpg", true}, {"--out", "b.JPEG", true}, {"--out", "c.png", false}} {
		out := filepath.Join(dir, c.name)
		code, stdout, errOut := runCLI(t, "render", "--at", "0.05", "--width", "64", "--height", "48", c.flag, out, path)
		if code != exitOK {
			skipNoGL(t, errOut)
			t.Fatalf("%s %s: exit %d: %s", c.flag, c.name, code, errOut)
		}
		if !strings.Contains(stdout, "wrote "+out) {
			t.Errorf("%s %s: output %q", c.flag, c.name, stdout)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		var w, h int
		if c.jpeg {
			img, err := jpeg.Decode(f)
			if err != nil {
				t.Fatalf("%s: not a JPEG: %v", c.name, err)
			}
			w, h = img.Bounds().Dx(), img.Bounds().Dy()
		} else {
			img, err := png.Decode(f)
			if err != nil {
				t.Fatalf("%s: not a PNG: %v", c.name, err)
			}
			w, h = img.Bounds().Dx(), img.Bounds().Dy()
		}
		f.Close()
		if w != 64 || h != 48 {
			t.Errorf("%s is %dx%d, want 64x48", c.name, w, h)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"render", "--png", "x.bmp", path}, `--png "x.bmp": a picture is written as PNG (FILE.png) or JPEG (FILE.jpg, FILE.jpeg)`},
		{[]string{"render", "--out", "x", path}, `--out "x": a picture is written as PNG`},
		{[]string{"render", "--png", "a.png", "--out", "b.jpg", path}, "both name the picture"},
		{[]string{"render", "--out", "clip.mp4", path}, "a clip needs --to"},
		{[]string{"render", "--out", "f_%04d.png", path}, "a clip needs --to"},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, errOut, exitUsage, c.want)
		}
	}
	if _, err := os.Stat("x.bmp"); err == nil {
		t.Error("a refused picture was written")
	}
}

// TestCheckListsScene: check lists the sources and sinks with their place, radius, rate,
// schedule and kind (a spray), the sprays, the floating bodies, the flow meters' lines,
// the 3D region and whether waves run.
func TestCheckListsScene(t *testing.T) {
	path := writeScript(t, "things.lua", `
local sim = vp.sim{ size = {0.04, 0.04}, height = 0.02, dx = 0.001, layers = 1, waves = "on" }
sim:terrain(vp.plane{ point = {0, 0, 0.002}, normal = {0, 0, 1} })
sim:fill{ at = {0.02, 0.02, 0.003}, level = 0.006 }
sim:source{ at = {0.01, 0.01, 0.01}, radius = 0.002, rate = 2e-6, start = 0.5, stop = 1.5 }
sim:spray{ at = {0.02, 0.02, 0.012}, direction = {0, 0, 1}, speed = 0.3, spread = 0.2, rate = 1e-6 }
sim:sink{ at = {0.03, 0.03, 0.003}, radius = 0.003, rate = 1e-6 }
sim:body{ solid = vp.sphere{ center = {0, 0, 0}, radius = 0.003 }, density = 500, at = {0.02, 0.01, 0.006} }
sim:flow{ from = {0.005, 0.02}, to = {0.035, 0.02} }
sim:flow{ from = {0.02, 0.005}, to = {0.02, 0.035} }
`)
	code, out, errOut := runCLI(t, "check", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"  sources     2\n",
		"    source 1: at (10, 10, 10) mm, radius 2 mm, 2 ml/s, t = 0.5 to 1.5 s\n",
		"    source 2: at (20, 20, 12) mm, radius 0 mm, 1 ml/s, from the start, sprays at 0.3 m/s within ",
		"  sinks       1\n",
		"    sink 1: at (30, 30, 3) mm, radius 3 mm, 1 ml/s, from the start\n",
		"  sprays      1 (among the sources)\n",
		"  bodies      1\n",
		"    body 1: density 500 kg/m^3 (floats: the liquid's is 1000), ",
		" ml (", " g), at (20, 10, 6) mm\n",
		"  meters      2\n",
		"    meter 1: from (5, 20) to (35, 20) mm, at every height (sim:flow)\n",
		"    meter 2: from (20, 5) to (20, 35) mm, at every height (sim:flow)\n",
		"  waves       on\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check's report lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, "check", writeScript(t, "bare.lua", pourScript))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"  sinks       none\n", "  sprays      none\n", "  bodies      none\n", "  meters      none\n", "  region      none\n", "  waves       off\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("check's report of a bare scene lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, "check", writeScript(t, "region.lua", `
local sim = vp.sim{ size = {0.06, 0.01}, height = 0.03, dx = 0.002, capillarity = "off" }
sim:fill{ at = {0.001, 0.001, 0.001}, level = 0.008 }
sim:region{ min = {0.021, 0, 0}, max = {0.039, 0.01, 0.02}, refine = 2 }
`))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "  region      [20, 40] x [0, 10] x [0, 20] mm, 20 x 10 x 20 cells of 1 mm (refine 2), 13600 particles (sim:region)\n"; !strings.Contains(out, want) {
		t.Errorf("check's report of a scene with a region lacks %q:\n%s", want, out)
	}
}

// TestMakeRunInstallsOnlyRunDeps: `make run` installs what building and running vpbench
// needs, not what only the tests need (Slurm's daemons, tmux, ffmpeg, Xvfb); `make test`
// installs both. Read from `make -n`, which runs nothing.
func TestMakeRunInstallsOnlyRunDeps(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	dryRun := func(target string) string {
		out, err := exec.Command("make", "-n", "--no-print-directory", "-C", "../..", target).CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, out)
		}
		return string(out)
	}
	run, test := dryRun("run"), dryRun("test")
	testOnly := []string{"slurmctld", "munge", "tmux", "ffmpeg", "xvfb"}
	for _, pkg := range testOnly {
		if strings.Contains(run, pkg) {
			t.Errorf("make run would install %s", pkg)
		}
		if !strings.Contains(test, pkg) {
			t.Errorf("make test would not install %s", pkg)
		}
	}
	for _, pkg := range []string{"g++", "libgl1-mesa-dev", "go build"} { // cgo (the preview, the host kernels) needs them
		if !strings.Contains(run, pkg) {
			t.Errorf("make run lacks %s:\n%s", pkg, run)
		}
	}
}
