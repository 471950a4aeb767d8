package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/script"
)

// TestHelpListsEveryFlag: vpbench help (and -h, --help) lists every flag of every
// command, vpbench help COMMAND and COMMAND -h describe each of its flags, all on stdout
// with exit status 0.
func TestHelpListsEveryFlag(t *testing.T) {
	var full []string
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"--plain", "-h"}, {"--until", "1", "--help"}} {
		code, out, errOut := runCLI(t, args...)
		if code != exitOK || errOut != "" || out == "" {
			t.Fatalf("%v: exit %d, stderr %q, %d bytes on stdout", args, code, errOut, len(out))
		}
		full = append(full, out)
	}
	for _, out := range full[1:] {
		if out != full[0] {
			t.Errorf("-h, --help and vpbench help differ:\n%s\n---\n%s", full[0], out)
		}
	}
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		fs := flagSetOf(c)
		if fs == nil {
			t.Fatalf("command %q: no flag set from -h", c.name)
		}
		var own string
		if c.name != "" {
			var code int
			var errOut, dashH string
			code, own, errOut = runCLI(t, "help", c.name)
			if code != exitOK || errOut != "" {
				t.Fatalf("help %s: exit %d, stderr %q", c.name, code, errOut)
			}
			if code, dashH, errOut = runCLI(t, c.name, "-h"); code != exitOK || errOut != "" || dashH != own {
				t.Errorf("%s -h: exit %d, stderr %q; stdout differs from vpbench help %s:\n%s", c.name, code, errOut, c.name, dashH)
			}
		}
		n := 0
		fs.VisitAll(func(f *flag.Flag) {
			n++
			word := regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `\b([^-]|$)`)
			if !word.MatchString(full[0]) {
				t.Errorf("vpbench help lacks %q's --%s", c.name, f.Name)
			}
			if c.name != "" && !strings.Contains(own, "\n  --"+f.Name+" ") && !strings.Contains(own, "\n  --"+f.Name+"\n") {
				t.Errorf("vpbench help %s does not describe --%s:\n%s", c.name, f.Name, own)
			}
			if f.Usage == "" {
				t.Errorf("%q's --%s has no description", c.name, f.Name)
			}
		})
		if n == 0 {
			t.Errorf("command %q has no flags", c.name)
		}
	}
	// The flags the issue found missing.
	for _, f := range []string{"--from", "--to", "--out", "--plain", "--until", "--watch", "--version"} {
		if !strings.Contains(full[0], f) {
			t.Errorf("vpbench help lacks %s", f)
		}
	}
	if code, _, errOut := runCLI(t, "help", "nothere"); code != exitUsage || !strings.Contains(errOut, `no command "nothere"`) {
		t.Errorf("help nothere: exit %d, stderr %q", code, errOut)
	}
}

// TestUsageErrorPrintedOnce: a bad flag is one error line and one line pointing to the
// command's help, on stderr, nothing on stdout.
func TestUsageErrorPrintedOnce(t *testing.T) {
	for _, tc := range []struct {
		args []string
		help string
	}{
		{[]string{"run", "--nope"}, "vpbench help run"},
		{[]string{"bench", "--nope"}, "vpbench help bench"},
		{[]string{"check", "--nope", "x.lua"}, "vpbench help check"},
		{[]string{"render", "--nope"}, "vpbench help render"},
		{[]string{"--nope"}, "vpbench help'"},
	} {
		code, out, errOut := runCLI(t, tc.args...)
		if code != exitUsage || out != "" {
			t.Errorf("%v: exit %d, stdout %q", tc.args, code, out)
		}
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if len(lines) != 2 || strings.Count(errOut, "nope") != 1 || !strings.Contains(lines[1], tc.help) || strings.Contains(errOut, "usage:") {
			t.Errorf("%v: stderr is not the error once and a pointer to %q:\n%s", tc.args, tc.help, errOut)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, out, errOut := runCLI(t, args...)
		if code != exitOK || errOut != "" || !strings.Contains(out, "vpbench "+script.Version) || !strings.Contains(out, runtime.Version()) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	if code, _, _ := runCLI(t, "version", "extra"); code != exitUsage {
		t.Errorf("version extra: exit %d, want %d", code, exitUsage)
	}
}

// TestExitCodes: a missing or unreadable scenario file is a usage error (2) for every
// command; a script that fails is 1.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nothere.lua")
	for _, args := range [][]string{
		{missing}, {"--plain", missing}, {"--watch=false", missing},
		{"run", missing}, {"run", "--headless", "--until", "0.1", missing},
		{"check", missing}, {"render", "--at", "0.1", missing},
		{"run", dir}, // a folder
		{"bench", filepath.Join(dir, "nolib")},
	} {
		if code, out, errOut := runCLI(t, args...); code != exitUsage || !strings.Contains(errOut, "vpbench: ") || out != "" {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr %q", args, code, exitUsage, out, errOut)
		}
	}
	if os.Getuid() != 0 { // root reads any file
		locked := writeScript(t, "locked.lua", pourScript)
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		if code, _, errOut := runCLI(t, "run", locked); code != exitUsage {
			t.Errorf("an unreadable file: exit %d, stderr %q", code, errOut)
		}
	}
	broken := writeScript(t, "broken.lua", "vp.sim{ dx = 0 }\n")
	for _, args := range [][]string{{"run", "--until", "0.1", broken}, {"check", broken}, {"--watch=false", "--until", "0.1", broken}} {
		if code, _, errOut := runCLI(t, args...); code != exitRun || !strings.Contains(errOut, "broken.lua:1") {
			t.Errorf("%v: exit %d (want %d), stderr %q", args, code, exitRun, errOut)
		}
	}
}

// TestBenchSteadyFactor: bench reports the real-time factor without the one-time set-up
// beside the one with it, in its summary and its JSON, and run's report has it too.
func TestBenchSteadyFactor(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "bench.json")
	code, out, errOut := runCLI(t, "bench", "--only", "demo", "--until", "0.05", "--json", jsonPath)
	if code != exitOK {
		t.Fatalf("exit %d, stderr: %s\n%s", code, errOut, out)
	}
	var reps []map[string]any
	b, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(b, &reps); err != nil || len(reps) != 1 {
		t.Fatalf("bench JSON: %v, %d reports", err, len(reps))
	}
	rt, _ := reps[0]["real_time_factor"].(float64)
	steady, ok := reps[0]["steady_real_time_factor"].(float64)
	// The frames are part of the wall time from the end of the load: without the set-up
	// the factor is never lower.
	if !ok || rt <= 0 || steady < rt {
		t.Errorf("real_time_factor %v, steady_real_time_factor %v (present: %v): want steady >= the other > 0", rt, steady, ok)
	}
	m := regexp.MustCompile(`(?m)^demo\S* .* ([0-9.]+) +([0-9.]+)$`).FindStringSubmatch(out)
	if !strings.Contains(out, "x realtime  x steady") || m == nil {
		t.Fatalf("the summary lacks the steady column:\n%s", out)
	}
	if !strings.Contains(out, "x steady, without the set-up") && !strings.Contains(out, "steady, without the set-up") {
		t.Errorf("the report lacks the steady factor:\n%s", out)
	}
}
