package main

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"512MiB": 512 << 20, "2GiB": 2 << 30, "1e9": 1e9, "1e9 bytes": 1e9, "1GB": 1e9,
		"64M": 64 << 20, "1.5gib": 3 << 29, "1048576": 1 << 20, "100 MB": 1e8,
	} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "12XB", "-1GiB", "0", "100", "NaN", "GiB", "1e30"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

// TestScriptMemoryFlag runs a string doubled in a loop. It reaches the limit in a few
// steps; where the monitor's samples are starved (a loaded CI machine, -race) the
// watchdog's 2 s may stop it first, and the stop is still named for memory, since what
// the script holds then is over the limit.
func TestScriptMemoryFlag(t *testing.T) {
	path := writeScript(t, "runaway.lua", pourScript+`
sim:at(0.1, function() local s = "x" while true do s = s .. s end end)
`)
	code, out, errOut := runCLI(t, "run", "--headless", "--until", "0.3", "--script-memory", "64MiB", path)
	if code != exitRun {
		t.Fatalf("exit %d, want %d; stderr: %s", code, exitRun, errOut)
	}
	if want := "runaway.lua: the script used more than 64 MiB of memory (--script-memory): stopped"; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
	if !strings.Contains(out, "tenth of a second") || !strings.Contains(out, "volume") {
		t.Errorf("the report of what ran before the stop is missing:\n%s", out)
	}

	// A megabyte more kept at each turn: the heap grows by steps the monitor's samples
	// see, not by doublings that reach gigabytes between two samples (a string doubled
	// in the set-up outran the 2 s watchdog in a fresh-clone CI run, its detection
	// starved by the other test binaries, when the watchdog counted wall time).
	setup := writeScript(t, "setup.lua", "local t = {} while true do t[#t + 1] = string.rep('x', 1e6) end\n")
	code, _, errOut = runCLI(t, "check", "--script-memory", "32MiB", setup)
	if want := "setup.lua: the script used more than 32 MiB of memory (--script-memory): stopped"; code != exitRun || !strings.Contains(errOut, want) {
		t.Errorf("check: exit %d, stderr %q; want %d and %q", code, errOut, exitRun, want)
	}

	for _, args := range [][]string{
		{"run", "--script-memory", "lots", path},
		{"run", "--script-memory", "1KB", path},
		{"--script-memory", "-1GiB", path},
		{"render", "--script-memory", "x", path},
		{"bench", "--script-memory", "0"},
		{"check", "--script-memory", "12XB", path},
	} {
		if code, _, errOut := runCLI(t, args...); code != exitUsage || !strings.Contains(errOut, "script-memory") {
			t.Errorf("%v: exit %d (want %d), stderr %q", args, code, exitUsage, errOut)
		}
	}
}
