package script

// Checkpoints of a whole scenario: the solver's state (gpusim's checkpoint) with what the
// script adds to it, the timers, the random generator, the scene's own settings, and
// the scenario's identity, so that a run stopped at a step boundary goes on, from a fresh
// load of the same script, to the same bits (docs/checkpoints.md).

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/bodies"
	"github.com/vpbench/vpbench/internal/fileout"
	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/terrain"
)

// CheckpointVersion is the version of the scenario checkpoint format WriteCheckpoint
// writes. Resume reads it and version 1, whose header has no Columns (version 1 files of
// runs that changed the terrain mid-run are refused).
const CheckpointVersion = 2

// CheckpointMagic opens every scenario checkpoint.
const CheckpointMagic = "vpbench-scenario-checkpoint"

// solverMagic opens gpusim's checkpoints (a solver's alone, not a scenario's).
const solverMagic = "vpbench-checkpoint"

// checkpointState is what a Scenario keeps for its checkpoints beside the Lua state.
type checkpointState struct {
	srcHash [32]byte  // SHA-256 of the script's source
	pcg     *rand.PCG // math.random's generator (s.rng draws from it)
	// timers are the sim:at and sim:every timers the set-up (the top level) registered, in
	// registration order: a fresh load registers the same ones, so a resume matches them
	// by their place in this list.
	timers []*event
	// terrainChanged is set when sim:terrain ran after the set-up (at terrainAt).
	terrainChanged bool
	terrainAt      float64
}

// initCheckpoint records the source's hash and makes the random generator.
func (s *Scenario) initCheckpoint(src []byte) {
	s.ck.srcHash = sha256.Sum256(src)
	s.ck.pcg = rand.NewPCG(0, 0)
	s.rng = rand.New(s.ck.pcg)
}

// register records e, just scheduled, if the set-up registers it (a timer, not main).
func (c *checkpointState) register(s *Scenario, e *event) {
	if !s.started && !e.main {
		c.timers = append(c.timers, e)
	}
}

// terrainSet records a terrain set after the set-up: its checkpoints save the solver's
// columns, which the fresh load does not build.
func (c *checkpointState) terrainSet(s *Scenario) {
	if s.started && !c.terrainChanged {
		c.terrainChanged, c.terrainAt = true, s.now()
	}
}

// checkpointMethods are the sim methods of checkpoints.
func (s *Scenario) checkpointMethods() []decl {
	return []decl{
		{"save", s.simSave, "sim:save(path): writes a checkpoint of the whole scenario, to resume with vpbench run --resume"},
	}
}

func (s *Scenario) simSave(L *lua.LState) int {
	c := s.simCall(L, "save")
	path := c.pathArg(2)
	if err := safeOutputPath(path); err != nil {
		c.fail("%v", err)
	}
	if !s.started {
		c.fail("a checkpoint is of a running scenario: call sim:save from a callback (sim:at, sim:every) or main, not from the set-up")
	}
	resume := s.pauseWatchdog() // writing the file is Go work, not the script's
	err := s.SaveCheckpoint(path)
	resume()
	if err != nil {
		c.fail("%v", err)
	}
	return 0
}

// ckTimer is a timer's state in a checkpoint.
type ckTimer struct {
	What   string // "sim:at(1)", "sim:every(0.5)": checked on resume
	Seq    int64
	T      float64 // next due
	Period float64
	T0, K  float64
	Done   bool // fired (sim:at) or cancelled
}

// ckHeader is the checkpoint's description of the scenario beside the solver's state,
// gob-encoded (docs/checkpoints.md, "Format").
type ckHeader struct {
	Script       string            // the script's name (Name())
	SourceSHA256 [32]byte          // of the script's source
	ParamsSHA256 [32]byte          // of the --param values, sorted, "name=value\n" each
	Params       map[string]string // the same values, for the messages
	Time         float64           // simulated time, s
	Steps        int64
	// Settings are the scene's settings: the surface's and the liquid's are restored from
	// here; the solver's are those gpusim's checkpoint restores (Backend and Workers stay
	// the resumed run's). Surface.Camera is the viewer's and is not saved.
	Settings scene.Settings
	Timers   []ckTimer // the set-up's timers, in registration order
	Seq      int64     // the scheduler's sequence counter
	// Later describes the timers registered after the set-up (by callbacks or main) that
	// were still pending: their functions are Lua closures, which are not saved.
	Later []string
	// HasMain, MainStarted, MainDone: the script defines main; the first Advance ran (and
	// main started); main returned.
	HasMain, MainStarted, MainDone bool
	RNG                            []byte // math.random's generator (rand.PCG's binary form)
	TerrainChanged                 bool   // sim:terrain ran after the set-up ...
	TerrainAt                      float64
	// Columns are the solver's columns when TerrainChanged (nil otherwise): the resume
	// sets them (scene.SetColumns) before it reads the solver's state. Version 2.
	Columns *terrain.Columns
	// Bodies are the floating bodies' state (scene.Scene.BodyStates; nil: none): every
	// body made, in order, and the columns' lifts. The resume's set-up makes the set-up's
	// bodies again and they take their saved state; bodies a callback made are not made
	// again (their solids are Lua's) and are warned. Absent before the bodies existed
	// (gob leaves it nil).
	Bodies *bodies.State
	// Meters are the flow meters' totals (gpusim.Sim.MeterTotals), in the order made: the
	// resume's set-up makes its meters again and they take their totals; meters a
	// callback made are not made again and are warned.
	Meters []float64
	// Emitters are the sources and sinks the scene keeps for the sinks' marks
	// (scene.Scene.EmitterStates), those callbacks added too: the solver's state brings
	// its own emitters back, and the scene's record follows (nil in a checkpoint from
	// before the marks: the set-up's stand).
	Emitters []scene.EmitterState
	// Region is the 3D region in place (scene.WorldRegion: its id and state; nil: none),
	// RegionCount the regions placed so far: the resume takes out a region the set-up
	// placed and places this one again. Absent before regions were saved (gob leaves
	// them nil and 0).
	Region      *scene.WorldRegion
	RegionCount int
}

// paramsHash is the SHA-256 of the parameters, sorted by name, "name=value\n" each.
func paramsHash(p map[string]string) [32]byte {
	var b strings.Builder
	for _, k := range sortedKeys(p) {
		b.WriteString(k + "=" + p[k] + "\n")
	}
	return sha256.Sum256([]byte(b.String()))
}

// SaveCheckpoint writes the scenario's checkpoint (WriteCheckpoint) to path, atomically:
// a temporary file in the same folder replaces path only once it is complete
// (internal/fileout), so path always holds a whole checkpoint or none.
func (s *Scenario) SaveCheckpoint(path string) error {
	return fileout.Write(path, s.WriteCheckpoint)
}

// WriteCheckpoint writes a checkpoint of the scenario at the current step boundary: its
// identity (the script's name, the SHA-256 of its source and of its parameters), the
// set-up's timers, the scheduler's counter, main's progress and the random generator;
// beside them the world's half, which the scene writes (scene.Scene.SaveWorld: the
// settings, the solver's columns if the terrain changed after the set-up, the bodies,
// the meters, and the solver's whole state). The format,
// little-endian: the magic CheckpointMagic, the version (uint32, CheckpointVersion), the
// header's length (uint64) and the gob-encoded header, the solver checkpoint's length
// (uint64) and its bytes, then a CRC-32 (IEEE) of everything before it.
//
// Call it between Advance calls, or from a callback (sim:save); not after an error.
func (s *Scenario) WriteCheckpoint(w io.Writer) error {
	if s.closed {
		return errors.New("checkpoint: the scenario is closed")
	}
	if s.err != nil {
		return fmt.Errorf("checkpoint: the scenario stopped on an error: %v", s.err)
	}
	world, err := s.scene.SaveWorld(s.ck.terrainChanged) // after the steps in flight
	if err != nil {
		return err
	}
	h := ckHeader{Script: s.name, SourceSHA256: s.ck.srcHash, ParamsSHA256: paramsHash(s.opt.Params), Params: s.opt.Params,
		Time: s.scene.Time(), Steps: s.scene.Steps(), Seq: s.seq,
		HasMain: s.mainFn != nil, MainStarted: s.started, MainDone: s.done,
		TerrainChanged: s.ck.terrainChanged, TerrainAt: s.ck.terrainAt,
		Settings: world.Settings, Columns: world.Columns, Bodies: world.Bodies, Meters: world.Meters, Emitters: world.Emitters,
		Region: world.Region, RegionCount: world.RegionCount}
	top := map[*event]bool{}
	for _, e := range s.ck.timers {
		top[e] = true
		h.Timers = append(h.Timers, ckTimer{What: e.what, Seq: e.seq, T: e.t, Period: e.period, T0: e.t0, K: e.k, Done: e.done})
	}
	for _, e := range s.events {
		if !e.done && !e.main && !top[e] {
			h.Later = append(h.Later, fmt.Sprintf("%s defined at %s:%d, due at t = %.6g s", e.what, e.def.file, e.def.line, e.t))
		}
	}
	sort.Strings(h.Later)
	rng, err := s.ck.pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("checkpoint: the random generator: %w", err)
	}
	h.RNG = rng
	var hb bytes.Buffer
	if err := gob.NewEncoder(&hb).Encode(&h); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	sb := world.Solver
	b := make([]byte, 0, len(CheckpointMagic)+4+8+hb.Len()+8+len(sb)+4)
	b = append(b, CheckpointMagic...)
	b = binary.LittleEndian.AppendUint32(b, CheckpointVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(hb.Len()))
	b = append(b, hb.Bytes()...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(sb)))
	b = append(b, sb...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// ResumeFile resumes the scenario from the checkpoint at path (Resume), naming the file
// by its base name in the errors.
func (s *Scenario) ResumeFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	return s.Resume(bytes.NewReader(b), filepath.Base(path))
}

// Resume brings a freshly loaded scenario (Load: the top level has run; no Advance yet)
// to the state of a checkpoint WriteCheckpoint wrote: the world's half through the scene
// (scene.Scene.RestoreWorld: the settings, the columns, the solver's state, the meters
// and the bodies), then the script's: the set-up's timers (matched by registration
// order), the scheduler's counter and the random generator.
// From there Advance goes on to the same bits as the run that wrote the checkpoint.
//
// It refuses, naming the file (name) and the reason, a file that is not a scenario
// checkpoint, of another format version, truncated or corrupt; one written by another
// script (another source: "checkpoint.vpc was written by surgery.lua with another
// content") or with other parameters; a version 1 file whose run changed the terrain
// after the set-up; timers that do not match; and what gpusim refuses (another terrain).
// A refused checkpoint leaves the scenario as it was loaded (after a terrain change, with
// the loaded terrain set again, the liquid carried over).
//
// A run that changed the terrain after the set-up resumes on the checkpoint's columns
// (scene.SetColumns, before the solver's state, whose fingerprint they match); the
// terrain's picture is then their blocky outline (terrain.ColumnsSolid), until the script
// sets a terrain again. That is warned.
//
// What cannot be restored is warned: main's coroutine (if main was running at the
// checkpoint it does not run again; the timers and the solver go on), and timers
// registered after the set-up.
func (s *Scenario) Resume(r io.Reader, name string) error {
	if s.closed {
		return errors.New("resume: the scenario is closed")
	}
	if s.started {
		return errors.New("resume: the scenario has already run: resume right after loading it")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("resume %s: %w", name, err)
	}
	h, solver, err := decodeCheckpoint(data)
	if err != nil {
		return fmt.Errorf("resume %s: %v", name, err)
	}
	if err := s.checkIdentity(h, name); err != nil {
		return err
	}
	if h.TerrainChanged && h.Columns == nil {
		return fmt.Errorf("resume %s: the script changed the terrain (sim:terrain) at t = %.6g s, after its set-up, and this version 1 checkpoint lacks the terrain's columns: version 1 cannot resume a terrain changed mid-run, version %d (this build's) can (docs/checkpoints.md)", name, h.TerrainAt, CheckpointVersion)
	}
	if len(h.Timers) != len(s.ck.timers) {
		return fmt.Errorf("resume %s: the set-up registered %d timers (sim:at, sim:every) when the checkpoint was written, %d now", name, len(h.Timers), len(s.ck.timers))
	}
	for i, t := range h.Timers {
		if e := s.ck.timers[i]; t.What != e.what || t.Period != e.period {
			return fmt.Errorf("resume %s: timer %d of the set-up is %s in the checkpoint, %s now", name, i+1, t.What, e.what)
		}
	}
	if h.HasMain != (s.mainFn != nil) {
		return fmt.Errorf("resume %s: main is defined %v in the checkpoint, %v now", name, h.HasMain, s.mainFn != nil)
	}
	pcg := &rand.PCG{}
	if err := pcg.UnmarshalBinary(h.RNG); err != nil {
		return fmt.Errorf("resume %s: checkpoint is corrupt: the random generator: %v", name, err)
	}

	// The world's half: the scene's settings, columns, solver state, meters and bodies.
	world := scene.World{Settings: h.Settings, Bodies: h.Bodies, Meters: h.Meters, Emitters: h.Emitters, Solver: solver,
		Region: h.Region, RegionCount: h.RegionCount}
	if h.TerrainChanged {
		world.Columns = h.Columns // the solver's columns at the checkpoint, which its state is for
	}
	resume := s.pauseWatchdog() // Go work (and a heightfield's extraction if it is undone)
	restored, err := s.scene.RestoreWorld(world)
	resume()
	if err != nil {
		return fmt.Errorf("resume %s: %v", name, err)
	}
	if n := restored.DroppedMeters; n > 0 {
		s.warn(fmt.Sprintf("%d flow meters made after the set-up (by callbacks) are not made again: they are gone from the resumed run", n))
	}
	if n := restored.DroppedBodies; n > 0 {
		s.warn(fmt.Sprintf("%d floating bodies made after the set-up (by callbacks) are not made again: they are gone from the resumed run (the liquid they displaced flows back)", n))
	}
	if h.TerrainChanged {
		s.ck.terrainChanged, s.ck.terrainAt = true, h.TerrainAt // the next checkpoints save the columns too
		s.warn(fmt.Sprintf("the script changed the terrain (sim:terrain) after its set-up (first at t = %.6g s): the solver resumes on the checkpoint's columns; the terrain's picture is rebuilt from them (blocky) until the script sets a terrain again", h.TerrainAt))
	}

	// The timers, the scheduler, main and the random generator.
	var q eventQueue
	for i, t := range h.Timers {
		e := s.ck.timers[i]
		e.t, e.seq, e.period, e.t0, e.k, e.done = t.T, t.Seq, t.Period, t.T0, t.K, t.Done
		if !e.done {
			q = append(q, e)
		}
	}
	for _, e := range s.events {
		if e.main && !h.MainStarted {
			q = append(q, e) // main starts with the first Advance, as it would have
		}
	}
	s.events = nil
	for _, e := range q {
		s.events.Push(e)
	}
	sortQueue(s.events)
	s.seq = h.Seq
	s.ck.pcg = pcg
	s.rng = rand.New(pcg)
	switch {
	case h.MainDone:
		s.started, s.done = true, true
	case h.HasMain && h.MainStarted:
		s.warn(fmt.Sprintf("main was running at the checkpoint (t = %.6g s): it cannot resume; the timers and the solver do", h.Time))
	}
	if len(h.Later) > 0 {
		s.warn(fmt.Sprintf("%d timer(s) registered after the set-up were pending at the checkpoint and do not resume: %s", len(h.Later), strings.Join(h.Later, "; ")))
	}
	// started stays false: the first Advance fires what is due at the checkpoint's time
	// (the rest of a batch a sim:save interrupted) before it steps.
	return nil
}

// sortQueue makes q a heap (container/heap's Init, without the import here).
func sortQueue(q eventQueue) {
	sort.Sort(q) // a sorted slice is a min-heap
	for i, e := range q {
		e.index = i
	}
}

// checkIdentity refuses a checkpoint of another script or other parameters.
func (s *Scenario) checkIdentity(h *ckHeader, name string) error {
	if h.SourceSHA256 != s.ck.srcHash {
		if h.Script != s.name {
			return fmt.Errorf("resume: %s was written by %s, not %s (and with another content)", name, h.Script, s.name)
		}
		return fmt.Errorf("resume: %s was written by %s with another content (SHA-256 %x..., this one's %x...)", name, h.Script, h.SourceSHA256[:6], s.ck.srcHash[:6])
	}
	if h.ParamsSHA256 != paramsHash(s.opt.Params) {
		return fmt.Errorf("resume: %s was written by %s with other parameters (%s; this run: %s)", name, h.Script, formatParams(h.Params), formatParams(s.opt.Params))
	}
	return nil
}

// formatParams writes parameters as the command line gives them.
func formatParams(p map[string]string) string {
	if len(p) == 0 {
		return "no --param"
	}
	var parts []string
	for _, k := range sortedKeys(p) {
		parts = append(parts, "--param "+k+"="+p[k])
	}
	return strings.Join(parts, " ")
}

// decodeCheckpoint checks a scenario checkpoint's magic, version, lengths and checksum and
// returns its header and the solver's checkpoint.
func decodeCheckpoint(data []byte) (*ckHeader, []byte, error) {
	m := len(CheckpointMagic)
	switch {
	case bytes.HasPrefix(data, []byte(CheckpointMagic)):
	case bytes.HasPrefix([]byte(CheckpointMagic), data):
		return nil, nil, fmt.Errorf("checkpoint is truncated: %d bytes, not even its header", len(data))
	case bytes.HasPrefix(data, []byte(solverMagic)):
		return nil, nil, fmt.Errorf("this is a solver checkpoint (gpusim's), not a scenario's: write one with sim:save or vpbench run --checkpoint")
	default:
		return nil, nil, fmt.Errorf("not a vpbench scenario checkpoint: wrong magic (it must start with %q)", CheckpointMagic)
	}
	if len(data) < m+4 {
		return nil, nil, fmt.Errorf("checkpoint is truncated: %d bytes, not even its header", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[m:]); v != 1 && v != CheckpointVersion {
		return nil, nil, fmt.Errorf("checkpoint format version %d: this build reads versions 1 and %d", v, CheckpointVersion)
	}
	rest := data[m+4:]
	part := func(what string) ([]byte, error) {
		if len(rest) < 8 {
			return nil, fmt.Errorf("checkpoint is truncated: it ends before %s", what)
		}
		n := binary.LittleEndian.Uint64(rest)
		rest = rest[8:]
		if n > uint64(len(rest)) {
			return nil, fmt.Errorf("checkpoint is truncated: %s announces %d bytes, %d are left", what, n, len(rest))
		}
		p := rest[:n]
		rest = rest[n:]
		return p, nil
	}
	hb, err := part("the header")
	if err != nil {
		return nil, nil, err
	}
	sb, err := part("the solver's state")
	if err != nil {
		return nil, nil, err
	}
	if len(rest) < 4 {
		return nil, nil, fmt.Errorf("checkpoint is truncated: its checksum is missing")
	}
	if len(rest) > 4 {
		return nil, nil, fmt.Errorf("checkpoint is corrupt: %d bytes after its end", len(rest)-4)
	}
	end := len(data) - 4
	if crc32.ChecksumIEEE(data[:end]) != binary.LittleEndian.Uint32(data[end:]) {
		return nil, nil, fmt.Errorf("checkpoint is corrupt: checksum mismatch")
	}
	var h ckHeader
	if err := gob.NewDecoder(bytes.NewReader(hb)).Decode(&h); err != nil {
		return nil, nil, fmt.Errorf("checkpoint is corrupt: its header: %v", err)
	}
	return &h, sb, nil
}
