package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vpbench/vpbench/internal/fileout"
)

// The study's folder (docs/sweeps.md, "The study's folder"):
//
//	OUT/plan.json              the study as run: its plan, tasks and outputs (Manifest)
//	OUT/tasks/task-000003.json each task's result, written atomically by the task itself
//	OUT/logs/task-000003.log   a local task's output (Slurm: OUT/logs/slurm-JOB_TASK.log)
//	OUT/results.csv, .json     every task's parameters and outputs (collect)
//	OUT/summary.md, OUT/plots/ the summary and a plot of each output against each parameter
//
// A task's result file exists only once the task has finished (ok or failed): the file
// is written under a temporary name and renamed, so a task cut off (the study killed, a
// node lost) leaves no result and is run again on resume.

// Task statuses.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Result is one task's result file.
type Result struct {
	Plan   string  `json:"plan"`
	Index  int     `json:"index"`
	Repeat int     `json:"repeat"`
	Params []Value `json:"params"`
	Status string  `json:"status"`
	Error  string  `json:"error,omitempty"`
	// Outputs are the study's outputs when the task ran; collect takes them afresh from
	// Report and Reported, so a study's outputs may change after its tasks ran.
	Outputs  map[string]float64 `json:"outputs,omitempty"`
	Reported map[string]float64 `json:"reported,omitempty"`
	// Report is the run's whole `vpbench run --json` report.
	Report json.RawMessage `json:"report,omitempty"`
	// Pictures are the task's pictures (Study.Pictures), relative to the study's folder.
	Pictures []string `json:"pictures,omitempty"`
	WallS    float64  `json:"wall_s"`
	Host     string   `json:"host,omitempty"`
	Finished string   `json:"finished,omitempty"`
}

// Manifest is OUT/plan.json: what collect needs to know of the study without the study
// file (which a cluster's folder may not have beside it).
type Manifest struct {
	Study    string   `json:"study"`
	Plan     string   `json:"plan"`
	Scenario string   `json:"scenario"`
	Until    float64  `json:"until"`
	Mode     string   `json:"mode"`
	Repeats  int      `json:"repeats"`
	Outputs  []string `json:"outputs"`
	Params   []string `json:"params"`
	Swept    []string `json:"swept"`
	Tasks    []Task   `json:"tasks"`
}

// MarshalJSON writes a task as {"index", "repeat", "params"}.
func (t Task) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Index  int     `json:"index"`
		Repeat int     `json:"repeat"`
		Params []Value `json:"params"`
	}{t.Index, t.Repeat, t.Params})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Task) UnmarshalJSON(b []byte) error {
	var v struct {
		Index  int     `json:"index"`
		Repeat int     `json:"repeat"`
		Params []Value `json:"params"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	t.Index, t.Repeat, t.Params = v.Index, v.Repeat, v.Params
	return nil
}

// Manifest is the study's plan.json.
func (s *Study) Manifest() Manifest {
	abs, err := filepath.Abs(s.Path)
	if err != nil {
		abs = s.Path
	}
	m := Manifest{Study: abs, Plan: s.Plan(), Scenario: s.Scenario, Until: s.Until, Mode: s.Mode, Repeats: s.Repeats,
		Outputs: s.Outputs, Swept: s.Swept(), Tasks: s.Tasks}
	for _, p := range s.Params {
		m.Params = append(m.Params, p.Name)
	}
	return m
}

// Folder is a study's output folder.
type Folder string

// ResultPath is the result file of task i.
func (f Folder) ResultPath(i int) string {
	return filepath.Join(string(f), "tasks", fmt.Sprintf("task-%06d.json", i))
}

// PicturePath is task i's picture at simulated time t, and rel that path relative to
// the folder.
func (f Folder) PicturePath(i int, t float64) (path, rel string) {
	rel = filepath.Join("pictures", fmt.Sprintf("task-%06d-t%g.png", i, t))
	return filepath.Join(string(f), rel), rel
}

// LogPath is the log of local task i.
func (f Folder) LogPath(i int) string {
	return filepath.Join(string(f), "logs", fmt.Sprintf("task-%06d.log", i))
}

// ManifestPath is the folder's plan.json.
func (f Folder) ManifestPath() string { return filepath.Join(string(f), "plan.json") }

// Prepare makes the folder for the study, or checks that the folder holds this study's
// plan (results of another plan are never mixed in, nor overwritten: the error says what
// to do), and writes plan.json (atomically: concurrent tasks of an array may all do it).
func (f Folder) Prepare(s *Study) error {
	m := s.Manifest()
	if old, err := f.Manifest(); err == nil {
		if old.Plan != m.Plan {
			return fmt.Errorf("%s holds the results of another plan of a study (%s, plan %s; this study's plan is %s): the scenario, until, "+
				"backend, method, workers or parameters differ. Give --out another folder, or remove %s to start again",
				string(f), old.Study, old.Plan, m.Plan, string(f))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, d := range []string{"tasks", "logs"} {
		if err := os.MkdirAll(filepath.Join(string(f), d), 0o755); err != nil {
			return err
		}
	}
	return writeJSONFile(f.ManifestPath(), m)
}

// Manifest reads the folder's plan.json.
func (f Folder) Manifest() (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(f.ManifestPath())
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %v", f.ManifestPath(), err)
	}
	return m, nil
}

// Result reads task i's result: ok false when there is none (the task has not finished)
// or it belongs to another plan; an error when the file is there but unreadable.
func (f Folder) Result(i int, plan string) (Result, bool, error) {
	var r Result
	b, err := os.ReadFile(f.ResultPath(i))
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, false, fmt.Errorf("%s: %v", f.ResultPath(i), err)
	}
	if r.Plan != plan || r.Index != i {
		return r, false, nil
	}
	return r, true, nil
}

// WriteResult writes a task's result atomically.
func (f Folder) WriteResult(r Result) error {
	if r.Finished == "" {
		r.Finished = time.Now().UTC().Format(time.RFC3339)
	}
	return writeJSONFile(f.ResultPath(r.Index), r)
}

// Pending are the tasks without a result, and with retryFailed those that failed.
func (f Folder) Pending(s *Study, retryFailed bool) ([]Task, error) {
	plan := s.Plan()
	var out []Task
	for _, t := range s.Tasks {
		r, ok, err := f.Result(t.Index, plan)
		if err != nil {
			return nil, err
		}
		if !ok || retryFailed && r.Status != StatusOK {
			out = append(out, t)
		}
	}
	return out, nil
}

// cleanTemp removes the temporary files of result writes cut off (a task killed in its
// last milliseconds): those older than a minute, so that a task writing right now on
// another node keeps its own.
func (f Folder) cleanTemp() {
	dir := filepath.Join(string(f), "tasks")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Minute {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return fileout.Write(path, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err })
}
