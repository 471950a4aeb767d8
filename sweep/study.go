package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/vpbench/vpbench/scripts"
)

// MaxTasks bounds the tasks a study may expand to: a typo in a range (a step of 1e-9)
// should be an error, not a million result files.
const MaxTasks = 100000

// Study is a parsed and checked study file.
type Study struct {
	// Path is the study file as given; Dir its folder (scenario paths are relative to it).
	Path, Dir string
	// Scenario is the scenario as written; File its path (relative to the working folder,
	// "" for a library scenario) and Library the library scenario's name ("" for a file).
	Scenario, File, Library string
	// Source is the scenario's text when the study was read (its hash is in Plan).
	Source []byte
	// Until is the simulated seconds each task runs.
	Until float64
	// Mode is "grid" (every combination) or "zip" (the lists side by side).
	Mode    string
	Repeats int
	// Backend, Method ("" the script's) and Workers (-1 the script's) are the run's options.
	Backend, Method string
	Workers         int
	// Outputs are the figures each task's row holds (see outputs.go).
	Outputs []string
	// TaskTimeout is the wall seconds a task may run before it is stopped and booked as
	// failed (0: no limit).
	TaskTimeout float64
	// Pictures are the simulated times, ascending, at which each task draws the preview's
	// picture of its scene (the first frame at or after each), PictureSize its pixels.
	Pictures    []float64
	PictureSize [2]int
	// Params are every parameter in the file's order: swept ones (more than one value)
	// and fixed ones.
	Params []Param
	Slurm  SlurmOptions
	K8s    K8sOptions
	// Tasks are the expanded tasks, Tasks[i].Index == i.
	Tasks []Task

	lines map[string]int // key path -> line in the file ("params.nu.start")
}

// Param is one parameter of the study and its values, as vp.param receives them (text).
type Param struct {
	Name   string
	Values []string
	Line   int
}

// Swept tells whether the parameter takes more than one value.
func (p Param) Swept() bool { return len(p.Values) > 1 }

// Task is one run of the study: a value for every parameter, and which repeat it is.
type Task struct {
	Index  int
	Repeat int
	Params []Value // every parameter, in the file's order
}

// Value is a parameter's value in a task.
type Value struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ParamMap is the task's parameters as --param takes them.
func (t Task) ParamMap() map[string]string {
	m := make(map[string]string, len(t.Params))
	for _, v := range t.Params {
		m[v.Name] = v.Value
	}
	return m
}

// SlurmOptions are the [slurm] table's defaults for `vpbench sweep slurm`; its flags win.
type SlurmOptions struct {
	Partition string `toml:"partition"`
	Time      string `toml:"time"`
	CPUs      int    `toml:"cpus"`
	// MaxParallel is the array's %K: at most K tasks at once (0: Slurm's choice).
	MaxParallel int `toml:"max_parallel"`
	// Sbatch are more #SBATCH lines' options, as written ("--mem=2G").
	Sbatch []string `toml:"sbatch"`
}

// K8sOptions are the [kubernetes] table's defaults for `vpbench sweep k8s`.
type K8sOptions struct {
	Image       string `toml:"image"`
	Namespace   string `toml:"namespace"`
	Parallelism int    `toml:"parallelism"`
	CPUs        string `toml:"cpus"`
	Memory      string `toml:"memory"`
	// Claim is a PersistentVolumeClaim mounted at MountPath, where the study and its
	// folder must be (every pod writes its result there).
	Claim     string `toml:"claim"`
	MountPath string `toml:"mount_path"`
	// Command is vpbench in the image (default "vpbench").
	Command string `toml:"command"`
}

// rawStudy is the file as TOML has it.
type rawStudy struct {
	Scenario    string         `toml:"scenario"`
	Until       float64        `toml:"until"`
	Mode        string         `toml:"mode"`
	Repeats     *int           `toml:"repeats"`
	Backend     string         `toml:"backend"`
	Method      string         `toml:"method"`
	Workers     *int           `toml:"workers"`
	Outputs     []string       `toml:"outputs"`
	TaskTimeout float64        `toml:"task_timeout"`
	Params      map[string]any `toml:"params"`
	Pictures    []float64      `toml:"pictures"`
	PictureSize []int          `toml:"picture_size"`
	Slurm       SlurmOptions   `toml:"slurm"`
	K8s         K8sOptions     `toml:"kubernetes"`
}

// Error is a problem with a study: the file, the line (0: the file as a whole), the task
// (-1: none) and what is wrong.
type Error struct {
	File string
	Line int
	Task int
	// Label is the task's parameters ("nu=4e-05"), with Task >= 0.
	Label string
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Task >= 0 {
		fmt.Fprintf(&b, "task %d", e.Task)
		if e.Label != "" {
			fmt.Fprintf(&b, " (%s)", e.Label)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (s *Study) errf(key string, format string, a ...any) *Error {
	return &Error{File: s.Path, Line: s.lines[key], Task: -1, Msg: fmt.Sprintf(format, a...)}
}

// TaskError is an error of one task, naming the study file, the line of key and the task.
func (s *Study) TaskError(t Task, key string, err error) *Error {
	return &Error{File: s.Path, Line: s.lines[key], Task: t.Index, Label: s.Label(t), Msg: err.Error()}
}

// Line is the line of a key path in the study file ("scenario", "params.nu"); 0 when absent.
func (s *Study) Line(key string) int { return s.lines[key] }

// Load reads and checks a study file and expands its tasks. Every error names the file
// and, where it has one, the line.
func Load(path string) (*Study, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse is Load of a study file's contents (path names it in errors and anchors its
// relative scenario path).
func Parse(path string, data []byte) (*Study, error) {
	s := &Study{Path: path, Dir: filepath.Dir(path), Workers: -1}
	var raw rawStudy
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, decodeError(path, err)
	}
	order, lines, err := keyLines(data)
	if err != nil {
		return nil, decodeError(path, err)
	}
	s.lines = lines
	if err := s.scenario(raw.Scenario); err != nil {
		return nil, err
	}
	if math.IsNaN(raw.Until) || math.IsInf(raw.Until, 0) || raw.Until <= 0 {
		if _, ok := lines["until"]; !ok {
			return nil, s.errf("", "until is missing: give the simulated seconds each task runs (until = 3)")
		}
		return nil, s.errf("until", "until is %v: it must be a number of simulated seconds > 0", raw.Until)
	}
	s.Until = raw.Until
	if err := s.pictures(raw.Pictures, raw.PictureSize); err != nil {
		return nil, err
	}
	switch s.Mode = raw.Mode; s.Mode {
	case "":
		s.Mode = "grid"
	case "grid", "zip":
	default:
		return nil, s.errf("mode", "mode is %q: want \"grid\" (every combination) or \"zip\" (the lists side by side)", raw.Mode)
	}
	s.Repeats = 1
	if raw.Repeats != nil {
		if *raw.Repeats < 1 {
			return nil, s.errf("repeats", "repeats is %d: it must be >= 1", *raw.Repeats)
		}
		s.Repeats = *raw.Repeats
	}
	switch raw.Backend {
	case "", "cpu", "cuda", "auto":
	default:
		return nil, s.errf("backend", "backend is %q: want \"cpu\", \"cuda\" or \"auto\"", raw.Backend)
	}
	switch raw.Method {
	case "", "pipes", "swe":
	default:
		return nil, s.errf("method", "method is %q: want \"pipes\" or \"swe\"", raw.Method)
	}
	s.Backend, s.Method = raw.Backend, raw.Method
	if raw.Workers != nil {
		if *raw.Workers < 0 {
			return nil, s.errf("workers", "workers is %d: want the CPU threads a task uses (0 = all cores)", *raw.Workers)
		}
		s.Workers = *raw.Workers
	}
	if math.IsNaN(raw.TaskTimeout) || raw.TaskTimeout < 0 {
		return nil, s.errf("task_timeout", "task_timeout is %v: want wall seconds > 0 (or 0: no limit)", raw.TaskTimeout)
	}
	s.TaskTimeout = raw.TaskTimeout
	s.Outputs = raw.Outputs
	if s.Outputs == nil {
		s.Outputs = DefaultOutputs
	}
	for _, o := range s.Outputs {
		if err := checkOutputName(o); err != nil {
			return nil, s.errf("outputs", "%v", err)
		}
	}
	if raw.Slurm.CPUs < 0 || raw.Slurm.MaxParallel < 0 {
		return nil, s.errf("slurm", "[slurm] cpus and max_parallel must be >= 0")
	}
	s.Slurm, s.K8s = raw.Slurm, raw.K8s
	if len(raw.Params) == 0 {
		return nil, s.errf("params", "no parameters: a [params] table names vp.param names and their values (nu = [0, 4e-6])")
	}
	for _, name := range order {
		p, err := s.param(name, raw.Params[name])
		if err != nil {
			return nil, err
		}
		s.Params = append(s.Params, p)
	}
	if err := s.expand(); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeError turns go-toml's errors into ours, with the line: a syntax error, a value
// of the wrong type, or a key the study file does not have.
func decodeError(path string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		var msgs []string
		line := 0
		for _, e := range strict.Errors {
			row, _ := e.Position()
			if line == 0 {
				line = row
			}
			msgs = append(msgs, fmt.Sprintf("line %d: unknown key %q", row, strings.Join(e.Key(), ".")))
		}
		msg := strings.Join(msgs, "; ")
		if len(msgs) == 1 {
			msg = fmt.Sprintf("unknown key %q", strings.Join(strict.Errors[0].Key(), "."))
		}
		return &Error{File: path, Line: line, Task: -1, Msg: msg + " (the keys a study takes: docs/sweeps.md)"}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		msg := typeMismatch.ReplaceAllStringFunc(de.Error(), func(m string) string {
			sub := typeMismatch.FindStringSubmatch(m)
			return fmt.Sprintf("the value is a TOML %s, want %s", sub[1], goTypeWords[sub[2]])
		})
		if k := de.Key(); len(k) > 0 {
			msg = fmt.Sprintf("%s: %s", strings.Join(k, "."), msg)
		}
		return &Error{File: path, Line: row, Task: -1, Msg: strings.TrimPrefix(msg, "toml: ")}
	}
	var pe *unstable.ParserError
	if errors.As(err, &pe) {
		return &Error{File: path, Task: -1, Msg: pe.Error()}
	}
	return &Error{File: path, Task: -1, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

// typeMismatch is go-toml's message for a value of the wrong type, which names our Go
// types: the message says it in the study's words.
var typeMismatch = regexp.MustCompile(`(?:toml: )?cannot decode TOML (\w+) into struct field \S+ of type (\S+)`)

var goTypeWords = map[string]string{"float64": "a number", "int": "a whole number", "*int": "a whole number",
	"string": "a string", "[]string": "a list of strings", "map[string]interface {}": "a table", "bool": "true or false"}

// keyLines walks the document for the line of every key (as a dotted path from the
// root) and the order of the keys of [params] (a Go map forgets it, and the order is the
// order of the grid: the first parameter varies slowest).
func keyLines(data []byte) (params []string, lines map[string]int, err error) {
	lines = map[string]int{}
	p := unstable.Parser{KeepComments: false}
	p.Reset(data)
	var table []string
	var walk func(prefix []string, n *unstable.Node)
	keyOf := func(it unstable.Iterator) ([]string, int) {
		var parts []string
		line := 0
		for it.Next() {
			k := it.Node()
			parts = append(parts, string(k.Data))
			if line == 0 && k.Raw.Length > 0 {
				line = p.Shape(k.Raw).Start.Line
			}
		}
		return parts, line
	}
	walk = func(prefix []string, n *unstable.Node) {
		if n.Kind != unstable.KeyValue {
			return
		}
		parts, line := keyOf(n.Key())
		full := append(slices.Clone(prefix), parts...)
		for i := range full {
			path := strings.Join(full[:i+1], ".")
			if _, ok := lines[path]; !ok {
				lines[path] = line
			}
		}
		if len(full) >= 2 && full[0] == "params" && !slices.Contains(params, full[1]) {
			params = append(params, full[1])
		}
		if v := n.Value(); v.Kind == unstable.InlineTable {
			for it := v.Children(); it.Next(); {
				walk(full, it.Node())
			}
		}
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var line int
			table, line = keyOf(e.Key())
			for i := range table {
				path := strings.Join(table[:i+1], ".")
				if _, ok := lines[path]; !ok {
					lines[path] = line
				}
			}
			if len(table) >= 2 && table[0] == "params" && !slices.Contains(params, table[1]) {
				params = append(params, table[1])
			}
		case unstable.KeyValue:
			walk(table, e)
		}
	}
	return params, lines, p.Error()
}

// scenario resolves the scenario: a file relative to the study's folder, else a name of
// the library built into vpbench ("viscosity" or "viscosity.lua").
func (s *Study) scenario(name string) error {
	if name == "" {
		return s.errf("", "scenario is missing: give a Lua file (relative to the study file) or a library name (scenario = \"viscosity\")")
	}
	s.Scenario = name
	file := name
	if !filepath.IsAbs(file) {
		file = filepath.Join(s.Dir, file)
	}
	if st, err := os.Stat(file); err == nil && !st.IsDir() {
		src, err := os.ReadFile(file)
		if err != nil {
			return s.errf("scenario", "scenario %q: %v", name, err)
		}
		s.File, s.Source = file, src
		return nil
	}
	lib := strings.TrimSuffix(name, ".lua")
	if !strings.ContainsAny(name, `/\`) {
		if src, err := fs.ReadFile(scripts.FS, lib+".lua"); err == nil {
			s.Library, s.Source = lib, src
			return nil
		}
	}
	names, _ := fs.Glob(scripts.FS, "*.lua")
	for i := range names {
		names[i] = strings.TrimSuffix(names[i], ".lua")
	}
	return s.errf("scenario", "scenario %q: no file %s and no library scenario of that name (the library: %s)",
		name, file, strings.Join(names, ", "))
}

// param reads one parameter's values: a value (fixed), a list, or a range table
// { start, stop, step } or { start, stop, count [, scale = "log"] }.
func (s *Study) param(name string, v any) (Param, error) {
	key := "params." + name
	p := Param{Name: name, Line: s.lines[key]}
	if name == "" || strings.ContainsAny(name, "= \t") {
		return p, s.errf(key, "parameter name %q: vp.param names have no spaces or '='", name)
	}
	switch v := v.(type) {
	case []any:
		if len(v) == 0 {
			return p, s.errf(key, "parameter %s: the list is empty: give at least one value", name)
		}
		for i, x := range v {
			t, err := valueText(x)
			if err != nil {
				return p, s.errf(key, "parameter %s, value %d: %v", name, i+1, err)
			}
			p.Values = append(p.Values, t)
		}
	case map[string]any:
		vals, err := s.rangeValues(name, v)
		if err != nil {
			return p, err
		}
		p.Values = vals
	default:
		t, err := valueText(v)
		if err != nil {
			return p, s.errf(key, "parameter %s: %v", name, err)
		}
		p.Values = []string{t}
	}
	return p, nil
}

// valueText is a TOML value as vp.param reads it from --param: numbers in Go's shortest
// form, strings as they are, booleans as true/false.
func valueText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", fmt.Errorf("%v is not a finite number", v)
		}
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(v), nil
	}
	return "", fmt.Errorf("a list or table inside a list is not a parameter value: want a number, a string or a boolean")
}

// rangeValues expands a range table. Steps are taken from start (start + i*step, not
// summed) and rounded to 12 significant digits, so that 0.1 + 2*0.1 is 0.3; the stop is
// included when a step lands on it.
func (s *Study) rangeValues(name string, t map[string]any) ([]string, error) {
	key := "params." + name
	num := func(k string) (float64, bool, bool, error) {
		v, ok := t[k]
		if !ok {
			return 0, false, false, nil
		}
		switch v := v.(type) {
		case int64:
			return float64(v), true, true, nil
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, false, true, s.errf(key+"."+k, "parameter %s: %s is %v: it must be a finite number", name, k, v)
			}
			return v, false, true, nil
		}
		return 0, false, true, s.errf(key+"."+k, "parameter %s: %s is %v, want a number", name, k, t[k])
	}
	for k := range t {
		switch k {
		case "start", "stop", "step", "count", "scale":
		default:
			return nil, s.errf(key+"."+k, "parameter %s: unknown range key %q: a range is { start, stop, step } or { start, stop, count [, scale = \"log\"] }", name, k)
		}
	}
	start, startInt, hasStart, err := num("start")
	if err != nil {
		return nil, err
	}
	stop, stopInt, hasStop, err := num("stop")
	if err != nil {
		return nil, err
	}
	step, stepInt, hasStep, err := num("step")
	if err != nil {
		return nil, err
	}
	count, countInt, hasCount, err := num("count")
	if err != nil {
		return nil, err
	}
	if !hasStart || !hasStop {
		return nil, s.errf(key, "parameter %s: a range needs start and stop", name)
	}
	if hasStep == hasCount {
		return nil, s.errf(key, "parameter %s: a range takes step or count (one of them)", name)
	}
	scale := "linear"
	if v, ok := t["scale"]; ok {
		sc, _ := v.(string)
		if sc != "linear" && sc != "log" {
			return nil, s.errf(key+".scale", "parameter %s: scale is %v: want \"linear\" or \"log\"", name, v)
		}
		scale = sc
	}
	var vals []float64
	ints := startInt && stopInt
	if hasStep {
		if scale == "log" {
			return nil, s.errf(key+".scale", "parameter %s: scale = \"log\" goes with count, not step", name)
		}
		ints = ints && stepInt
		if step == 0 || (stop-start)/step < -1e-9 {
			return nil, s.errf(key+".step", "parameter %s: the range from %g to %g by %g is empty", name, start, stop, step)
		}
		n := math.Floor((stop-start)/step+1e-9) + 1
		if n > MaxTasks {
			return nil, s.errf(key+".step", "parameter %s: the range from %g to %g by %g has %.0f values, more than %d", name, start, stop, step, n, MaxTasks)
		}
		for i := 0; i < int(n); i++ {
			vals = append(vals, start+float64(i)*step)
		}
	} else {
		if !countInt || count < 1 {
			return nil, s.errf(key+".count", "parameter %s: count is %v: the range would be empty (want a whole number >= 1)", name, count)
		}
		if count > MaxTasks {
			return nil, s.errf(key+".count", "parameter %s: count is %v, more than %d", name, count, MaxTasks)
		}
		n := int(count)
		if scale == "log" && (start <= 0 || stop <= 0) {
			return nil, s.errf(key+".scale", "parameter %s: a log range needs start and stop > 0 (have %g, %g)", name, start, stop)
		}
		for i := 0; i < n; i++ {
			f := 0.0
			if n > 1 {
				f = float64(i) / float64(n-1)
			}
			if scale == "log" {
				vals = append(vals, start*math.Pow(stop/start, f))
			} else {
				vals = append(vals, start+f*(stop-start))
			}
		}
		ints = false
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		if ints {
			out[i] = strconv.FormatInt(int64(math.Round(v)), 10)
			continue
		}
		r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
		out[i] = strconv.FormatFloat(r, 'g', -1, 64)
	}
	return out, nil
}

// expand makes the tasks: grid, every combination with the first parameter varying
// slowest; zip, the i-th value of every swept parameter together (fixed ones beside).
// Repeats are innermost: a combination's repeats are neighbours.
func (s *Study) expand() error {
	var combos [][]Value
	switch s.Mode {
	case "grid":
		combos = [][]Value{nil}
		total := 1
		for _, p := range s.Params {
			total *= len(p.Values)
			if total*s.Repeats > MaxTasks {
				return s.errf("params", "the grid has more than %d tasks", MaxTasks)
			}
			var next [][]Value
			for _, c := range combos {
				for _, v := range p.Values {
					next = append(next, append(slices.Clone(c), Value{p.Name, v}))
				}
			}
			combos = next
		}
	case "zip":
		n, first := 1, ""
		for _, p := range s.Params {
			if !p.Swept() {
				continue
			}
			if first == "" {
				n, first = len(p.Values), p.Name
			} else if len(p.Values) != n {
				return s.errf("params."+p.Name, "mode = \"zip\" puts the lists side by side: %s has %d values, %s has %d", p.Name, len(p.Values), first, n)
			}
		}
		if n*s.Repeats > MaxTasks {
			return s.errf("params", "the study has more than %d tasks", MaxTasks)
		}
		for i := 0; i < n; i++ {
			var c []Value
			for _, p := range s.Params {
				v := p.Values[0]
				if p.Swept() {
					v = p.Values[i]
				}
				c = append(c, Value{p.Name, v})
			}
			combos = append(combos, c)
		}
	}
	for _, c := range combos {
		for r := 0; r < s.Repeats; r++ {
			s.Tasks = append(s.Tasks, Task{Index: len(s.Tasks), Repeat: r, Params: c})
		}
	}
	return nil
}

// Swept are the names of the parameters that take more than one value.
func (s *Study) Swept() []string {
	var out []string
	for _, p := range s.Params {
		if p.Swept() {
			out = append(out, p.Name)
		}
	}
	return out
}

// Label is a task's swept parameters (and repeat) as text: "nu=4e-05 dx=0.001 #2".
func (s *Study) Label(t Task) string {
	var parts []string
	for _, v := range t.Params {
		if i := slices.IndexFunc(s.Params, func(p Param) bool { return p.Name == v.Name }); i >= 0 && s.Params[i].Swept() {
			parts = append(parts, v.Name+"="+v.Value)
		}
	}
	if s.Repeats > 1 {
		parts = append(parts, fmt.Sprintf("#%d", t.Repeat+1))
	}
	return strings.Join(parts, " ")
}

// Plan is the study's identity: a hash of what decides the tasks' results (the
// scenario's text, the simulated time, the run's options and every task's parameters).
// The outputs, repeats' labels and the cluster options are not in it: changing them
// keeps the results. A study folder holds the results of one plan.
func (s *Study) Plan() string {
	h := sha256.New()
	fmt.Fprintf(h, "vpbench sweep plan 1\n%x\n%v\n%s\n%s\n%d\n", sha256.Sum256(s.Source), s.Until, s.Backend, s.Method, s.Workers)
	if len(s.Pictures) > 0 { // (absent from the plans of studies without: their hashes stay)
		fmt.Fprintf(h, "pictures %v %v\n", s.Pictures, s.PictureSize)
	}
	for _, t := range s.Tasks {
		fmt.Fprintf(h, "%d %d", t.Index, t.Repeat)
		for _, v := range t.Params {
			fmt.Fprintf(h, " %q=%q", v.Name, v.Value)
		}
		fmt.Fprintln(h)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// MaxPictures bounds the pictures a task draws (each is a surface and a render).
const MaxPictures = 100

// pictures checks and sets the pictures' times and size: each time in (0, until], at
// most MaxPictures of them (sorted, repeats dropped); the size two whole numbers of
// pixels, 16 to 8192 each (default 800 x 450).
func (s *Study) pictures(times []float64, size []int) error {
	for _, t := range times {
		if math.IsNaN(t) || t <= 0 || t > s.Until {
			return s.errf("pictures", "a picture at %v s: each time must be in (0, until = %g] simulated seconds", t, s.Until)
		}
	}
	if len(times) > MaxPictures {
		return s.errf("pictures", "%d pictures a task: at most %d", len(times), MaxPictures)
	}
	s.Pictures = slices.Compact(slices.Sorted(slices.Values(times)))
	s.PictureSize = [2]int{800, 450}
	if size != nil {
		if len(size) != 2 || size[0] < 16 || size[1] < 16 || size[0] > 8192 || size[1] > 8192 {
			return s.errf("picture_size", "picture_size is %v: want [width, height], 16 to 8192 pixels each", size)
		}
		s.PictureSize = [2]int{size[0], size[1]}
	}
	return nil
}

// DefaultOut is the study's folder when none is given: next to the study file, its name
// with .out for .toml (study.toml -> study.out).
func DefaultOut(studyPath string) string {
	return strings.TrimSuffix(studyPath, filepath.Ext(studyPath)) + ".out"
}
