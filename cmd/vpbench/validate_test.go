package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vpbench validate: a quick case writes its rows, report.md and its plots; bad flags are
// usage errors (exit 2) that say what is wrong.
func TestValidateCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "nested")
	code, out, errOut := runCLI(t, "validate", "--short", "--only", "ballistic,vessels", "--method", "pipes", "--out", dir)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	for _, want := range []string{"case", "measured", "expected", "fall time", "range of the throw", "vessels", "pipes",
		"every result expected to pass passed", "report written to"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "swe") {
		t.Errorf("--method pipes ran swe:\n%s", out)
	}
	rep, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| case | method |", "| ballistic | - | fall time |", "| vessels | pipes |",
		"![", "ballistic_all.png", "vessels_pipes.png", "not expected to pass ritter"} {
		if !strings.Contains(string(rep), want) {
			t.Errorf("report.md lacks %q:\n%s", want, rep)
		}
	}
	for _, f := range []string{"ballistic_all.png", "vessels_pipes.png"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 1000 || string(b[1:4]) != "PNG" {
			t.Errorf("%s: %d bytes, not a PNG", f, len(b))
		}
	}
}

func TestValidateUsageErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"validate", "--only", "ritter,nope"}, []string{`no validation case "nope"`, "ritter", "stoker", "thacker", "wave_ring"}},
		{[]string{"validate", "--method", "lbm"}, []string{`--method "lbm"`, "pipes", "swe", "both"}},
		{[]string{"validate", "--only", "ballistic", "--out", filepath.Join(file, "sub")}, []string{"--out", "a-file"}},
		{[]string{"validate", "extra"}, []string{"takes no arguments"}},
		{[]string{"validate", "--workers", "-1"}, []string{"--workers"}},
		{[]string{"validate", "--bogus"}, []string{"bogus"}},
	} {
		code, out, errOut := runCLI(t, tc.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stdout %q, stderr %q)", tc.args, code, exitUsage, out, errOut)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, errOut, w)
			}
		}
		if !strings.Contains(errOut, "vpbench help validate") {
			t.Errorf("%v: stderr %q does not name the help to read", tc.args, errOut)
		}
	}
}

func TestValidateHelp(t *testing.T) {
	code, out, errOut := runCLI(t, "help", "validate")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"usage: vpbench validate", "--only", "--method", "--short", "--out", "--workers", "ritter, stoker"} {
		if !strings.Contains(out, want) {
			t.Errorf("help validate lacks %q:\n%s", want, out)
		}
	}
	if mayDraw([]string{"validate"}) {
		t.Error("validate may draw: it should not start the preview host")
	}
}
