package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestDemoRunsAndConserves(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"--until", "0.3", "--every", "0.1", "--dx", "0.001"}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d, stderr: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{"grid 100x100", "summary", "steps", "real time", "volume"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	// 5 ml/s for 0.3 s: about 1.5 ml added (whole steps), none rejected.
	m := regexp.MustCompile(`volume\s+([0-9.]+) ml \(added ([0-9.]+), removed ([0-9.]+), rejected ([0-9.]+)\)`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no volume line:\n%s", s)
	}
	vol, _ := strconv.ParseFloat(m[1], 64)
	added, _ := strconv.ParseFloat(m[2], 64)
	if added < 1.45 || added > 1.55 || vol < added-1e-3 || vol > added+1e-3 {
		t.Errorf("volume %g ml, added %g ml: want about 1.5 ml, volume == added", vol, added)
	}
}

func TestBadArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dx", "0"}, "--dx"},
		{[]string{"--until", "-1"}, "--until"},
		{[]string{"--viscosity", "NaN"}, "--viscosity"},
		{[]string{"--workers", "-2"}, "--workers"},
		{[]string{"--cross-section", "foo"}, "--cross-section"},
		{[]string{"--extended-pipes", "some"}, "--extended-pipes"},
		{[]string{"--nope"}, "nope"},
		{[]string{"scene.lua"}, "scene.lua"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitUsage)
		}
		if !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: stderr %q does not name %q", tc.args, errb.String(), tc.want)
		}
	}
}
