package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// writeStudy writes a study file and a tiny scenario beside it and returns the study's path.
func writeStudy(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "scene.lua"), []byte("local sim = vp.sim{ size = {0.01, 0.01}, height = 0.01, dx = 0.001 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "study.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func labels(s *Study) []string {
	var out []string
	for _, t := range s.Tasks {
		out = append(out, s.Label(t))
	}
	return out
}

// TestGridAndZip: a grid varies the first parameter slowest and puts repeats innermost;
// zip pairs the lists; fixed values go with every task; ranges step from start, include
// the stop and round to 12 digits; integers stay integers.
func TestGridAndZip(t *testing.T) {
	s, err := Load(writeStudy(t, `scenario = "scene.lua"
until = 1
repeats = 2
[params]
a = [1, 2]
b = { start = 0.1, stop = 0.3, step = 0.1 }
fixed = "on"
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a=1 b=0.1 #1", "a=1 b=0.1 #2", "a=1 b=0.2 #1", "a=1 b=0.2 #2", "a=1 b=0.3 #1", "a=1 b=0.3 #2",
		"a=2 b=0.1 #1", "a=2 b=0.1 #2", "a=2 b=0.2 #1", "a=2 b=0.2 #2", "a=2 b=0.3 #1", "a=2 b=0.3 #2"}
	if got := labels(s); !reflect.DeepEqual(got, want) {
		t.Errorf("grid:\n got %q\nwant %q", got, want)
	}
	if got := s.Tasks[5].ParamMap(); !reflect.DeepEqual(got, map[string]string{"a": "1", "b": "0.3", "fixed": "on"}) {
		t.Errorf("task 5's parameters: %v", got)
	}
	if s.Until != 1 || s.File == "" || s.Library != "" {
		t.Errorf("until %v, file %q, library %q", s.Until, s.File, s.Library)
	}

	z, err := Load(writeStudy(t, `scenario = "viscosity"
until = 0.5
mode = "zip"
[params]
nu = { start = 1e-6, stop = 1e-2, count = 5, scale = "log" }
dx = [0.002, 0.001, 0.0005, 0.00025, 0.000125]
n = { start = 1, stop = 9, step = 2 }
flag = true
`))
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"nu=1e-06 dx=0.002 n=1", "nu=1e-05 dx=0.001 n=3", "nu=0.0001 dx=0.0005 n=5", "nu=0.001 dx=0.00025 n=7", "nu=0.01 dx=0.000125 n=9"}
	if got := labels(z); !reflect.DeepEqual(got, want) {
		t.Errorf("zip:\n got %q\nwant %q", got, want)
	}
	if z.Library != "viscosity" || z.File != "" || len(z.Source) == 0 {
		t.Errorf("library %q, file %q", z.Library, z.File)
	}
	if got := z.Tasks[0].ParamMap()["flag"]; got != "true" {
		t.Errorf("flag = %q", got)
	}
	if z.Plan() == s.Plan() || z.Plan() != z.Plan() {
		t.Errorf("plans: %s, %s", z.Plan(), s.Plan())
	}
}

// TestPlanKeepsResults: the plan changes with what decides a result (a value, until, the
// scenario's text) and not with the outputs.
func TestPlanKeepsResults(t *testing.T) {
	base := "scenario = \"scene.lua\"\nuntil = 1\n[params]\nnu = [1, 2]\n"
	path := writeStudy(t, base)
	a, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(text string) string {
		os.WriteFile(path, []byte(text), 0o644)
		s, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return s.Plan()
	}
	if p := plan("outputs = [\"volume_ml\"]\n" + base); p != a.Plan() {
		t.Errorf("outputs changed the plan")
	}
	if p := plan(strings.Replace(base, "until = 1", "until = 2", 1)); p == a.Plan() {
		t.Errorf("until did not change the plan")
	}
	if p := plan(strings.Replace(base, "[1, 2]", "[1, 3]", 1)); p == a.Plan() {
		t.Errorf("a value did not change the plan")
	}
	os.WriteFile(filepath.Join(filepath.Dir(path), "scene.lua"), []byte("-- edited\n"), 0o644)
	if p := plan(base); p == a.Plan() {
		t.Errorf("the scenario's text did not change the plan")
	}
}

// TestStudyErrors: every bad study names the file and the line of the problem.
func TestStudyErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		want       string
	}{
		{"unknown key", "scenario = \"scene.lua\"\nuntil = 1\nrepeat = 2\n[params]\nnu = [1]\n", 3, `unknown key "repeat"`},
		{"unknown key in a table", "scenario = \"scene.lua\"\nuntil = 1\n[slurm]\npartitions = \"x\"\n[params]\nnu = [1]\n", 4, `unknown key "slurm.partitions"`},
		{"wrong type", "scenario = \"scene.lua\"\nuntil = \"long\"\n[params]\nnu = [1]\n", 2, "until"},
		{"syntax", "scenario = \"scene.lua\"\nuntil = 1\n[params]\nnu = [1,\n", 4, ""},
		{"empty step range", "scenario = \"scene.lua\"\nuntil = 1\n[params]\nx = 1\nnu = { start = 1, stop = 0, step = 0.5 }\n", 5, "the range from 1 to 0 by 0.5 is empty"},
		{"zero count", "scenario = \"scene.lua\"\nuntil = 1\n[params]\nnu = { start = 1,\n  stop = 2,\n  count = 0 }\n", 6, "count is 0: the range would be empty"},
		{"range key", "scenario = \"scene.lua\"\nuntil = 1\n[params]\nnu = { start = 1, stop = 2, steps = 3 }\n", 4, `unknown range key "steps"`},
		{"empty list", "scenario = \"scene.lua\"\nuntil = 1\n[params]\n\nnu = []\n", 5, "the list is empty"},
		{"zip lengths", "scenario = \"scene.lua\"\nuntil = 1\nmode = \"zip\"\n[params]\na = [1, 2]\nb = [1, 2, 3]\n", 6, "b has 3 values, a has 2"},
		{"no scenario", "scenario = \"nothere.lua\"\nuntil = 1\n[params]\nnu = [1]\n", 1, `scenario "nothere.lua": no file`},
		{"no until", "scenario = \"scene.lua\"\n[params]\nnu = [1]\n", 0, "until is missing"},
		{"bad until", "scenario = \"scene.lua\"\nuntil = -1\n[params]\nnu = [1]\n", 2, "until is -1"},
		{"mode", "scenario = \"scene.lua\"\nuntil = 1\nmode = \"cross\"\n[params]\nnu = [1]\n", 3, `mode is "cross"`},
		{"no params", "scenario = \"scene.lua\"\nuntil = 1\n", 0, "no parameters"},
		{"log with zero", "scenario = \"scene.lua\"\nuntil = 1\n[params]\nnu = { start = 0, stop = 1, count = 3, scale = \"log\" }\n", 4, "a log range needs start and stop > 0"},
		{"picture after until", "scenario = \"scene.lua\"\nuntil = 1\npictures = [0.5, 2.0]\n[params]\nnu = [1]\n", 3, "each time must be in (0, until = 1]"},
		{"picture at 0", "scenario = \"scene.lua\"\nuntil = 1\npictures = [0]\n[params]\nnu = [1]\n", 3, "each time must be in (0, until = 1]"},
		{"picture size", "scenario = \"scene.lua\"\nuntil = 1\npictures = [1]\npicture_size = [800]\n[params]\nnu = [1]\n", 4, "picture_size is [800]"},
		{"output", "scenario = \"scene.lua\"\nuntil = 1\noutputs = [\"reported\"]\n[params]\nnu = [1]\n", 3, "reported.NAME"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeStudy(t, tc.text)
			_, err := Load(path)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want a *sweep.Error", err, err)
			}
			if e.File != path || e.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q (line %d), want line %d and %q", err, e.Line, tc.line, tc.want)
			}
			if tc.line > 0 && !strings.HasPrefix(err.Error(), path+":"+strconv.Itoa(tc.line)+": ") {
				t.Errorf("the message does not start with file:line: %q", err)
			}
		})
	}
}

// TestCheckOutputs: an output that is not a figure of the report is an error naming the
// outputs line; reported.NAME is always allowed.
func TestCheckOutputs(t *testing.T) {
	s, err := Load(writeStudy(t, "scenario = \"scene.lua\"\nuntil = 1\n\noutputs = [\"volume_ml\", \"reported.front\", \"volumes\"]\n[params]\nnu = [1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = s.CheckOutputs([]string{"volume_ml", "simulation.avg_ms"})
	if err == nil || !strings.Contains(err.Error(), `study.toml:4: outputs: "volumes" is not a figure`) {
		t.Errorf("got %v", err)
	}
}

// TestExtract: dotted paths into the report, one reported name, every reported name.
func TestExtract(t *testing.T) {
	rep := []byte(`{"volume_ml": 2.5, "simulation": {"avg_ms": 0.25}, "scenario": "x", "interrupted": true}`)
	got := Extract([]string{"volume_ml", "simulation.avg_ms", "scenario", "interrupted", "reported.a", "reported.missing", "nothere"},
		rep, map[string]float64{"a": 1, "b": 2})
	want := map[string]float64{"volume_ml": 2.5, "simulation.avg_ms": 0.25, "interrupted": 1, "reported.a": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := Extract([]string{"reported.*"}, nil, map[string]float64{"a": 1, "b": 2}); len(got) != 2 || got["reported.b"] != 2 {
		t.Errorf("reported.*: %v", got)
	}
}
