package script

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/timing"
)

// Version is the scripting API's version, vp.version in scripts.
const Version = "1.0"

// DefaultCallbackTimeout is how long one entry into Lua may run when
// Options.CallbackTimeout is 0.
const DefaultCallbackTimeout = 2 * time.Second

// Options tune how a scenario is loaded and run.
type Options struct {
	// Print receives print() output and warnings (prefixed "warning: "; they are also in
	// Info().Warnings), one message a call, without a trailing newline; nil discards them.
	// Calls never overlap, but a print inside a heightfield fn comes from a terrain
	// extraction goroutine while the runner waits.
	Print func(msg string)
	// Params are the values vp.param(name, default) returns (from the command line:
	// --param nu=4e-5), converted to the default's type.
	Params map[string]string
	// MaxCells, when > 0, bounds the grid vp.sim accepts (its cells), failing the script
	// with the grid it asked for: a host that runs generated or fuzzed scripts keeps a dx
	// from making a grid that fits in memory but takes minutes to build.
	MaxCells int
	// Backend "" keeps the script's backend; "auto", "cpu" or "cuda" override vp.sim's
	// for the whole run.
	Backend string
	// Method "" keeps the script's method; "pipes" or "swe" override vp.sim's and
	// sim:set's for the whole run (docs/solver.md, "The shallow water equations").
	Method string
	// Workers < 0 keeps the script's worker count; >= 0 overrides vp.sim's and sim:set's
	// for the whole run (0 = all cores). Note that the zero Options override it with 0.
	Workers int
	// CallbackTimeout bounds each entry into Lua (the top level, a sim:at or sim:every
	// callback, a resume of main, a heightfield fn call); 0 = DefaultCallbackTimeout (2 s).
	// A longer run is cancelled with a "callback ran longer than" *Error. The time is the
	// CPU time of the thread running Lua (wall time where threads have no CPU clock), so a
	// busy machine or a wait does not use it; time spent in terrain extraction and
	// building the solver does not count.
	CallbackTimeout time.Duration
	// MemoryLimit bounds the memory the script uses, in bytes; 0 = DefaultMemoryLimit (1
	// GiB). A script that grows the Go heap by more than this while it runs is stopped
	// with a "the script used more than ... of memory" *Error (see memory.go for how it
	// is measured, and what cannot be caught).
	MemoryLimit int64
	// Timings, if set, reports the run loop's Table 1 clocks for sim:stats() (the sim,
	// surface and render rows). It runs on the runner goroutine. nil: sim:stats() reports
	// each Advance call that stepped as one simulation frame, and no surface or render.
	Timings func() timing.Timings
	// Screenshot renders the preview's view of the scene to a PNG file for
	// sim:screenshot(path) (the path is checked first: relative, inside the working
	// folder, ending in .png). It runs on the runner goroutine, inside the script's call,
	// and may build the scene's surface. nil: sim:screenshot raises an error saying the
	// preview is needed.
	Screenshot func(sc *scene.Scene, path string) error
	// Record starts a recording of the preview's view into path (checked first:
	// relative, inside the working folder) at fps pictures a simulated second, for
	// sim:record{}; stop ends it (the video file appears then). It runs on the runner
	// goroutine, inside the script's call. nil: sim:record raises an error saying the
	// preview is needed.
	Record func(path string, fps float64) (stop func() error, err error)
	// Files, if set, is where the script's relative file names (vp.mesh's models) are
	// read, relative to the script's name in it: the built-in scenario library runs from
	// the binary's embedded copy (scripts.FS), whose models are there too. nil: the disk,
	// relative to the script's folder.
	Files fs.FS
	// Resume, if set, is a scenario checkpoint (WriteCheckpoint's file) the load resumes
	// from once the set-up has run (ResumeFile): a refused checkpoint is a load error.
	Resume string
}

// Scenario is a loaded script and the scene it set up: Advance runs it, firing the
// script's callbacks between the scene's steps.
//
// A Scenario is driven by one goroutine (the runner): Advance, Info, Close and the
// scene's methods must not be called concurrently. Name may be called from any
// goroutine, and so may the scene's Time, CopySnapshot and Stats.
type Scenario struct {
	opt     Options
	name    string // Name()
	file    string // the script's chunk name (error messages)
	dir     string // the script's folder: modules and meshes
	chunks  []string
	timeout time.Duration

	L      *lua.LState
	ctx    context.Context
	cancel context.CancelFunc
	wd     watchdog
	mem    memMonitor
	rng    *rand.Rand
	mt     metatables
	vpMod  *lua.LTable

	scene    *scene.Scene // nil until vp.sim
	simPlace place        // the vp.sim call
	regionAt place        // the last sim:region call (its step's errors are placed there)
	simUD    *lua.LUserData

	events    eventQueue
	seq       int64
	mainTh    *lua.LState
	mainFn    *lua.LFunction
	mainDef   place
	mainWait  *event // set by vp.wait while main runs
	resuming  bool   // resumeMain is running main (not a script's coroutine.resume)
	mainBegun bool   // main has been resumed once: later resumes return from its vp.wait
	started   bool
	done      bool
	closed    bool
	err       *Error
	raised    *Error // the last *Error raised into Lua with its own place (call.raise)

	hf heightfieldState

	modules    map[string]lua.LValue
	loading    map[string]bool
	paramsUsed map[string]bool
	warnings   []string

	// advances is the solver's time per Advance call that stepped, and the steps: what
	// sim:stats() reports as the sim row when no run loop supplies Options.Timings.
	advances timing.PhaseClock
	stepped  int64

	ck checkpointState // what checkpoints need beside the Lua state (checkpoint.go)

	reports reportState // sim:report's names and latest values (sim_report.go)
}

// Load reads and compiles the file, runs its top level (the scene set-up) and returns
// the scenario, ready to run. Errors the script causes are *Error; a file that cannot be
// read, or bad Options, give other errors.
func Load(path string, opt Options) (*Scenario, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	return load(path, filepath.Base(path), src, opt)
}

// LoadSource does what Load does for an in-memory script (the command's embedded demo);
// name is used in error messages and as Name(). Modules (require) and meshes are looked
// up in name's folder: the current directory for a plain name.
func LoadSource(name string, src []byte, opt Options) (*Scenario, error) {
	return load(name, name, src, opt)
}

func checkOptions(opt Options) error {
	if !scene.HasBackend(opt.Backend) { // (tests may add the host-kernel backends)
		return fmt.Errorf("script: backend %q: want \"auto\", \"cpu\" or \"cuda\"", opt.Backend)
	}
	if _, err := scene.ParseMethod(opt.Method); opt.Method != "" && err != nil {
		return fmt.Errorf("script: %v", err)
	}
	if opt.Workers > maxWorkers {
		return fmt.Errorf("script: workers is %d: at most %d", opt.Workers, maxWorkers)
	}
	if opt.MemoryLimit < 0 {
		return fmt.Errorf("script: memory limit is %d bytes: want > 0 (0 = the default, %s)", opt.MemoryLimit, FormatBytes(DefaultMemoryLimit))
	}
	for k := range opt.Params {
		if k == "" {
			return errors.New("script: a parameter has an empty name")
		}
	}
	return nil
}

func load(file, name string, src []byte, opt Options) (*Scenario, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	if file == "" {
		file = "script"
		name = file
	}
	s := &Scenario{
		opt:        opt,
		name:       name,
		file:       file,
		dir:        filepath.Dir(file),
		chunks:     []string{file},
		timeout:    opt.CallbackTimeout,
		modules:    map[string]lua.LValue{},
		loading:    map[string]bool{},
		paramsUsed: map[string]bool{},
	}
	s.initCheckpoint(src) // the source's hash and the random generator
	if s.timeout <= 0 {
		s.timeout = DefaultCallbackTimeout
	}
	s.newState()
	fn, err := compile(s.L, src, file)
	if err != nil {
		s.Close()
		return nil, syntaxError(err, file, src)
	}
	if e := s.enter(place{file, 1}, "in the script's set-up", func() error {
		s.L.Push(fn)
		return s.L.PCall(0, 0, nil)
	}); e != nil {
		s.Close()
		return nil, e
	}
	if e := s.finishLoad(); e != nil {
		s.Close()
		return nil, e
	}
	if opt.Resume != "" {
		if err := s.ResumeFile(opt.Resume); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// compile parses and compiles a chunk. A panic inside gopher-lua's compiler (it
// re-raises what is not a CompileError) becomes an error rather than a crash.
func compile(L *lua.LState, src []byte, name string) (fn *lua.LFunction, err error) {
	defer func() {
		if r := recover(); r != nil {
			fn, err = nil, fmt.Errorf("%s:1: cannot compile the script: %v", name, r)
		}
	}()
	return L.Load(bytes.NewReader(prepareSource(src)), name)
}

// prepareSource drops a UTF-8 byte order mark and blanks a first line starting with '#'
// (a shebang), as Lua's own loader does; line numbers are kept.
func prepareSource(src []byte) []byte {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if len(src) > 0 && src[0] == '#' {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return nil
		}
		return src[i:]
	}
	return src
}

// finishLoad checks what the top level left: one vp.sim, a solver (the empty domain if
// the script set no terrain), and main.
func (s *Scenario) finishLoad() *Error {
	if s.scene == nil {
		return &Error{File: s.file, Msg: "the script never calls vp.sim{...}: every scenario needs one (see docs/scripting.md)"}
	}
	if !s.scene.HasSolver() {
		if _, err := s.setTerrain(nil); err != nil {
			return s.placeErr(err, s.simPlace, "vp.sim")
		}
	}
	// A raw read: a script may give _G an __index that errors, and this is not inside a
	// protected call.
	switch m := s.L.G.Global.RawGetString("main").(type) {
	case *lua.LFunction:
		if m.IsG { // (gopher-lua cannot run a Go function as a coroutine: odd errors, or none)
			return &Error{File: s.file, Msg: "main is a built-in function: it must be a function written in Lua (function main() ... end), run as a coroutine beside the solver"}
		}
		s.mainFn = m
		s.mainDef = s.funcPlace(m)
		s.mainTh, _ = s.L.NewThread()
		s.schedule(&event{t: 0, main: true, what: "main"})
	default:
		if m != lua.LNil {
			return &Error{File: s.file, Msg: fmt.Sprintf("main is %s: it must be a function (run as a coroutine beside the solver) or nil", typeName(m))}
		}
	}
	for _, k := range sortedKeys(s.opt.Params) {
		if !s.paramsUsed[k] {
			s.warn(fmt.Sprintf("parameter %s=%s is not read by the script's set-up (vp.param(%q, default))", k, s.opt.Params[k], k))
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// placeErr makes err an *Error at p (or keeps its own place if it has one).
func (s *Scenario) placeErr(err error, p place, fn string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{File: p.file, Line: p.line, Msg: fn + ": " + err.Error()}
}

// funcPlace is where a Lua function is defined.
func (s *Scenario) funcPlace(f *lua.LFunction) place {
	if f.Proto == nil {
		return place{s.file, 0}
	}
	return place{f.Proto.SourceName, f.Proto.LineDefined}
}

// enter runs one entry into Lua under the watchdog and turns what goes wrong into an
// *Error; the Lua stack is reset afterwards.
func (s *Scenario) enter(fallback place, context string, run func() error) *Error {
	if s.scene != nil {
		s.scene.Sync() // a script reads and changes the state now, not a pipelined frame's
	}
	s.raised = nil
	s.wd.arm(s.timeout)
	s.mem.enter()
	err := run()
	memFired := s.mem.leave()
	_, fired := s.wd.disarm()
	s.L.SetTop(0)
	if memFired {
		return s.memoryError()
	}
	if e := s.raisedError(err); e != nil {
		return e
	}
	if fired {
		return s.timeoutError(err, fallback, context)
	}
	if err != nil {
		return s.luaError(err, fallback, context)
	}
	return nil
}

// raisedError returns the *Error that err carries if it is one call.raise raised (a
// heightfield fn's failure, with its own place and context), unchanged by the way out.
func (s *Scenario) raisedError(err error) *Error {
	var ae *lua.ApiError
	if s.raised == nil || err == nil || !errors.As(err, &ae) {
		return nil
	}
	if str, ok := ae.Object.(lua.LString); ok && string(str) == s.raised.Error() {
		e := *s.raised
		return &e
	}
	return nil
}

// timeoutError is the error of an entry the watchdog stopped, placed where Lua was
// running when it stopped.
func (s *Scenario) timeoutError(err error, fallback place, context string) *Error {
	e := &Error{File: fallback.file, Line: fallback.line}
	if err != nil {
		le := s.luaError(err, fallback, "")
		e.File, e.Line = le.File, le.Line
	}
	e.Msg = fmt.Sprintf("callback ran longer than %v (endless loop?)", s.timeout)
	if context != "" {
		e.Msg += " (" + context + ")"
	}
	return e
}

// Advanced is what one Advance call did.
type Advanced struct {
	// Steps are the solver steps it took (fewer than asked where a callback was due).
	Steps int64
	// Solver is the wall time it spent in the solver, Waves in the waves (not part of
	// Solver): the run loop's Table 1 clocks add them up. Both 0 when it took no step.
	Solver, Waves time.Duration
	// Done is true once main has returned (a scenario with no main never finishes by
	// itself); later calls then do nothing.
	Done bool
}

// Advance runs the scenario forward by up to maxSteps solver steps, stopping early at
// the first step boundary where a callback (sim:at, sim:every) or main's vp.wait is due;
// it fires those and returns what it did. The first call first fires what is due at time
// 0 (main starts then). After an error (a callback error or timeout) the scenario is
// stopped: this and every later call return the same *Error, and the solver keeps its
// last state (callbacks run only between steps).
func (s *Scenario) Advance(maxSteps int) (Advanced, error) {
	if s.closed {
		return Advanced{Done: s.done}, errors.New("script: the scenario is closed")
	}
	if s.err != nil {
		return Advanced{}, s.err
	}
	if s.done {
		return Advanced{Done: true}, nil
	}
	if !s.started {
		s.started = true
		s.fireDue()
		if s.err != nil {
			return Advanced{}, s.err
		}
		if s.done {
			return Advanced{Done: true}, nil
		}
	}
	if maxSteps <= 0 {
		return Advanced{}, nil
	}
	n := s.stepsToNext(maxSteps)
	t0 := time.Now()
	s.scene.Step(n)
	s.warnAll(s.scene.Warnings()) // a body that left through an open side
	if err := s.scene.RegionError(); err != nil {
		s.err = &Error{File: s.regionAt.file, Line: s.regionAt.line, Msg: "sim:region: " + err.Error()}
		return Advanced{Steps: int64(n)}, s.err
	}
	a := Advanced{Steps: int64(n), Waves: s.scene.LastWaves()}
	a.Solver = time.Since(t0) - a.Waves
	s.advances.Add(a.Solver)
	s.stepped += int64(n)
	s.fireDue()
	if s.err != nil {
		return a, s.err
	}
	a.Done = s.done
	return a, nil
}

// Err is the error that stopped the scenario, or nil.
func (s *Scenario) Err() error {
	if s.err == nil {
		return nil
	}
	return s.err
}

// Done reports whether main has returned.
func (s *Scenario) Done() bool { return s.done }

// Name is the file's base name, or LoadSource's name.
func (s *Scenario) Name() string { return s.name }

// Info describes a loaded scenario, for `vpbench check`: its scene, and what the
// script adds.
type Info struct {
	scene.Info
	Warnings  []string // every warning so far (dt above the limit, ...)
	HasMain   bool     // the script defines main
	Callbacks int      // sim:at and sim:every callbacks scheduled
	Params    []string // the parameters the script read with vp.param
}

// Info describes the scenario: grid, columns, time step, backend and warnings.
func (s *Scenario) Info() Info {
	in := Info{Info: s.scene.Info(), Warnings: append([]string(nil), s.warnings...), HasMain: s.mainFn != nil}
	for _, e := range s.events {
		if !e.done && !e.main {
			in.Callbacks++
		}
	}
	for k := range s.paramsUsed {
		in.Params = append(in.Params, k)
	}
	sort.Strings(in.Params)
	return in
}

// Scene is the simulated world the script set up (nil only while vp.sim has not run:
// never after Load).
func (s *Scenario) Scene() *scene.Scene { return s.scene }

// Close stops the scene's solver and the Lua state. It is safe to call more than once.
func (s *Scenario) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.wd.disarm()
	s.mem.stop()
	if s.cancel != nil {
		s.cancel()
	}
	if s.scene != nil {
		s.scene.Close()
	}
	if s.L != nil {
		s.L.Close()
	}
}

// warn records a warning and sends it to Options.Print.
func (s *Scenario) warn(msg string) {
	s.warnings = append(s.warnings, msg)
	s.print("warning: " + msg)
}

// warnAll records the warnings the scene returned (a dt above the stability limit, ...).
func (s *Scenario) warnAll(warnings []string) {
	for _, w := range warnings {
		s.warn(w)
	}
}

func (s *Scenario) print(msg string) {
	if s.opt.Print != nil {
		s.opt.Print(msg)
	}
}

// typeName names a Lua value's type with an article, for messages.
func typeName(v lua.LValue) string {
	switch v.Type() {
	case lua.LTNil:
		return "nil"
	case lua.LTUserData:
		if ud, ok := v.(*lua.LUserData); ok {
			switch ud.Value.(type) {
			case *solidVal:
				return "a solid"
			case *Scenario:
				return "the sim"
			case *emitterVal:
				return "a source or sink"
			case *event:
				return "a timer"
			case *regionVal:
				return "a region"
			}
		}
		return "a userdata"
	case lua.LTNumber:
		return "a number"
	case lua.LTString:
		return "a string"
	case lua.LTBool:
		return "a boolean"
	case lua.LTTable:
		return "a table"
	case lua.LTFunction:
		return "a function"
	case lua.LTThread:
		return "a coroutine"
	}
	return "a " + strings.ToLower(v.Type().String())
}
