package gpusim

// Checkpoints: the whole solver state written to a byte stream and read back, so that a
// run stopped at any step goes on bit for bit as if it had not stopped (docs/solver.md,
// "Checkpoints").

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"math"
	"slices"

	"github.com/vpbench/vpbench/terrain"
)

// CheckpointVersion is the version of the checkpoint format WriteCheckpoint writes.
// ReadCheckpoint reads it and the earlier ones: version 5 has no wetted flags (the
// columns wet at the checkpoint are its wetted ground), version 4 has no method (read as the pipes)
// nor the shallow water equations' velocities, version 3 no held levels (Emitter.Holds,
// Level: read as false and 0), version 2 neither those nor lifted floors (a run without
// bodies), version 1 none of those nor the spray fields of its sources and sinks
// (Emitter.Spread, Seed: read as {0, 0} and 0, a version 1 run having no sprays).
const CheckpointVersion = 6

// checkpointMagic opens every checkpoint.
const checkpointMagic = "vpbench-checkpoint"

// checkpointHeader is the bytes before the payload: the magic, the version (uint32) and
// the payload's length (uint64).
const checkpointHeader = len(checkpointMagic) + 4 + 8

// WriteCheckpoint writes the solver's whole state to w: what the next step reads and
// cannot derive from the terrain and the settings. A Sim made with New from the same
// columns that reads it back (ReadCheckpoint) steps on to the same bits as this one,
// with any worker count and on either backend.
//
// The format (docs/solver.md, "Checkpoints"), little-endian throughout: the magic
// "vpbench-checkpoint"; the format version (uint32, CheckpointVersion); the payload's
// length in bytes (uint64); the payload; a CRC-32 (IEEE) of everything before it. The
// payload is, in order:
//
//   - the terrain's fingerprint: columns and pipes (uint64), Nx, Ny, Layers (uint32),
//     Dx and Height (float64), and an FNV-64a hash of the CellStart, Min, Base and Max
//     arrays' bits;
//   - the clock: time (float64), steps (int64), dt (float64);
//   - the settings, field by field (Settings; Backend and Workers are recorded but not
//     restored: they choose how the steps are computed, never what);
//   - the accounting: added, removed, rejected, outflow (float64);
//   - every column's height and residual, every pipe's flux in topology order (float32);
//   - the capillary head, when surface tension is on: its fresh flag, every column's
//     height at the last pass (prev) and (version 6) every column's wetted flag (a byte,
//     contactline.go);
//   - the extended pipes' flux history: the mode it is for, the unified openings
//     (column, key, final flux) and the axis pipes (key, final flux);
//   - the sources and sinks, in id order: every Emitter field (X, Y, Z, Radius, Rate,
//     Start, Stop as float64, Falls, VX, VY, VZ, Spread[0], Spread[1], Seed as uint64)
//     and the active flag;
//   - the particle phase: the dripping edges' pending volumes, idle times, mean rates and
//     this step's takes (float64 per candidate pipe), the count of pending edges, the
//     released, landed and not yet booked outflow totals, and every particle in the air
//     (position and velocity as float32, volume as float64, column as int32), in order.
//
// Counted arrays are a uint64 count and the values. Everything else is derived again on
// reading: the topology, the layout, the candidate pipes, the emitters' target columns,
// the open sides' drains, the per-step constants, the passages (rebuilt in the next step
// from the heights, with the saved history) and every scratch buffer. A frame in flight
// (SetPipelined) is waited for first. Checkpoints are rare: this allocates.
func (s *Sim) WriteCheckpoint(w io.Writer) error {
	return s.writeCheckpoint(w, CheckpointVersion)
}

// writeCheckpoint writes a checkpoint of the given format version: CheckpointVersion, or
// 1 (the tests' old files: its sources have no spray fields, and a spray is refused).
func (s *Sim) writeCheckpoint(w io.Writer, version uint32) error {
	s.Sync()
	if version < 3 && len(s.lift.lifted) > 0 {
		return fmt.Errorf("checkpoint: bodies lift %d columns' floors: version %d cannot save them", len(s.lift.lifted), version)
	}
	if version < 4 {
		for id := range s.em.list {
			if s.em.list[id].Holds {
				return fmt.Errorf("checkpoint: source %d holds a level: version %d cannot save it", id, version)
			}
		}
	}
	if version < 5 && s.settings.Method != MethodPipes {
		return fmt.Errorf("checkpoint: method %q: version %d cannot save it", s.settings.Method, version)
	}
	if version == 1 {
		for id := range s.em.list {
			if s.em.list[id].Spraying() {
				return fmt.Errorf("checkpoint: source %d sprays: version 1 cannot save it", id)
			}
		}
	}
	cb, ok := s.be.(checkpointBackend)
	if !ok {
		return fmt.Errorf("checkpoint: the %s backend cannot save its state", s.be.name())
	}
	n, np := s.cols.NumColumns(), s.topo.numPipes()
	var e ckEnc
	e.b = make([]byte, 0, 256+16*n+4*np+40*len(s.fall.vol)+32*len(s.fall.pend))
	e.b = append(e.b, checkpointMagic...)
	e.u32(version)
	e.u64(0) // the payload's length, set below
	fingerprintOf(s.cols, np).encode(&e)

	e.f64(s.time)
	e.u64(uint64(s.steps))
	e.f64(s.dt)
	encodeSettings(&e, s.settings)
	e.f64(s.acct.added)
	e.f64(s.acct.removed)
	e.f64(s.acct.rejected)
	e.f64(s.acct.outflow)

	col := make([]float32, n)
	s.be.readHeight(col)
	e.f32s(col)
	s.be.readResidual(col)
	e.f32s(col)
	e.f32s(s.Fluxes(nil))

	wet := make([]uint8, n)
	fresh, on := cb.saveCap(col, wet)
	e.bool(on)
	if on {
		e.bool(fresh)
		e.f32s(col)
		if version >= 6 {
			e.u64(uint64(n))
			e.b = append(e.b, wet...)
		}
	}

	x := cb.saveExt()
	e.u8(uint8(x.mode))
	e.i32s(x.uCol)
	e.u64s(x.uKey)
	e.f32s(x.uF)
	e.u64s(x.aKey)
	e.f32s(x.aF)

	e.u64(uint64(len(s.em.list)))
	for id, em := range s.em.list {
		for _, v := range [...]float64{em.X, em.Y, em.Z, em.Radius, em.Rate, em.Start, em.Stop} {
			e.f64(v)
		}
		e.bool(em.Falls)
		e.f64(em.VX)
		e.f64(em.VY)
		e.f64(em.VZ)
		if version >= 2 {
			e.f64(em.Spread[0])
			e.f64(em.Spread[1])
			e.u64(em.Seed)
		}
		if version >= 4 {
			e.bool(em.Holds)
			e.f64(em.Level)
		}
		e.bool(s.em.active[id])
	}

	f := s.fall
	e.f64s(f.pend)
	e.f64s(f.idle)
	e.f64s(f.rate)
	e.f64s(f.took)
	e.u64(uint64(f.npend))
	e.f64(f.released)
	e.f64(f.landed)
	e.f64(f.outflow)
	e.u64(uint64(len(f.vol)))
	for i, v := range f.vol {
		for _, q := range [...]float32{f.x[i], f.y[i], f.z[i], f.vx[i], f.vy[i], f.vz[i]} {
			e.f32(q)
		}
		e.f64(v)
		e.u32(uint32(f.col[i]))
	}
	if version >= 3 {
		lifted := slices.Clone(s.lift.lifted)
		slices.Sort(lifted)
		e.u64(uint64(len(lifted)))
		for _, i := range lifted {
			e.u32(uint32(i))
			e.f32(s.lift.floor[i])
		}
	}
	if version >= 5 {
		e.u8(uint8(s.settings.Method))
		if sw := cb.saveSWE(); sw != nil {
			e.f32s(sw.d)
		}
	}

	binary.LittleEndian.PutUint64(e.b[checkpointHeader-8:], uint64(len(e.b)-checkpointHeader))
	e.u32(crc32.ChecksumIEEE(e.b))
	if _, err := w.Write(e.b); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// ReadCheckpoint replaces the solver's state with the one WriteCheckpoint wrote, from a
// Sim on the same terrain (New with the same columns, or one whose SetTerrain reached
// the same columns). The settings become the checkpoint's, but for Backend and Workers,
// which stay this Sim's. Everything is read and checked before anything changes: a file
// of another format version, for another grid or terrain, truncated or corrupt gives an
// error naming the problem and leaves the Sim as it was.
func (s *Sim) ReadCheckpoint(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("checkpoint: reading: %w", err)
	}
	s.Sync()
	cb, ok := s.be.(checkpointBackend)
	if !ok {
		return fmt.Errorf("checkpoint: the %s backend cannot restore a state", s.be.name())
	}
	payload, err := checkpointPayload(data)
	if err != nil {
		return err
	}
	v := checkpointFormat(data)
	d := ckDec{b: payload, v1: v == 1, lifts: v >= 3, held: v >= 4, method: v >= 5, wetted: v >= 6}
	fp := decodeFingerprint(&d)
	if d.err != nil {
		return d.err
	}
	if err := fp.check(fingerprintOf(s.cols, s.topo.numPipes())); err != nil {
		return err
	}
	cp := decodeCheckpoint(&d)
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("checkpoint is corrupt: %d bytes left after the particles", len(d.b))
	}
	st, em, err := s.checkCheckpoint(cp)
	if err != nil {
		return err
	}

	// Nothing has changed so far; from here on nothing fails.
	s.em = em
	if st.Method != s.settings.Method {
		_ = s.switchMethod(st) // a cpu backend (checked): a new one for the checkpoint's method
		cb = s.be.(checkpointBackend)
	}
	s.apply(st)
	s.restoreLifts(cp.liftCol, cp.liftFloor) // before the heights, which it would move
	s.be.writeHeight(cp.h)
	s.be.writeResidual(cp.r)
	s.be.writeFlux(cp.f)
	if cp.capOn {
		// After writeHeight, which marks it fresh and flags the wet columns as wetted
		// ground: what a checkpoint from before version 6 (cp.capWet nil) keeps.
		cb.restoreCap(cp.capPrev, cp.capWet, cp.capFresh)
	}
	cb.restoreExt(cp.ext) // after writeHeight: the next step rebuilds the passages
	if cp.sweD != nil {
		cb.restoreSWE(cp.sweD)
	}
	s.fall.restore(&cp.fall)
	s.time, s.steps, s.acct = cp.time, cp.steps, cp.acct
	s.publish()
	return nil
}

// checkpointPayload checks a checkpoint's magic, version, length and checksum and returns
// its payload.
func checkpointPayload(data []byte) ([]byte, error) {
	m := len(checkpointMagic)
	if len(data) < m {
		if bytes.HasPrefix([]byte(checkpointMagic), data) {
			return nil, fmt.Errorf("checkpoint is truncated: %d bytes, not even its header", len(data))
		}
		return nil, fmt.Errorf("not a vpbench checkpoint: wrong magic (it must start with %q)", checkpointMagic)
	}
	if string(data[:m]) != checkpointMagic {
		return nil, fmt.Errorf("not a vpbench checkpoint: wrong magic (it must start with %q)", checkpointMagic)
	}
	if len(data) < m+4 {
		return nil, fmt.Errorf("checkpoint is truncated: %d bytes, not even its header", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[m:]); v < 1 || v > CheckpointVersion {
		return nil, fmt.Errorf("checkpoint format version %d: this build reads versions 1 to %d", v, CheckpointVersion)
	}
	if len(data) < checkpointHeader {
		return nil, fmt.Errorf("checkpoint is truncated: %d bytes, not even its header", len(data))
	}
	size := binary.LittleEndian.Uint64(data[checkpointHeader-8:])
	have := uint64(len(data) - checkpointHeader)
	switch {
	case have < 4 || size > have-4:
		return nil, fmt.Errorf("checkpoint is truncated: %d bytes, its header announces %d", len(data), uint64(checkpointHeader)+size+4)
	case size < have-4:
		return nil, fmt.Errorf("checkpoint is corrupt: %d bytes after its end", have-4-size)
	}
	end := checkpointHeader + int(size)
	if crc32.ChecksumIEEE(data[:end]) != binary.LittleEndian.Uint32(data[end:]) {
		return nil, fmt.Errorf("checkpoint is corrupt: checksum mismatch")
	}
	return data[checkpointHeader:end], nil
}

// checkpointFormat is the format version of a checkpoint checkpointPayload accepted.
func checkpointFormat(data []byte) uint32 {
	return binary.LittleEndian.Uint32(data[len(checkpointMagic):])
}

// checkpoint is a checkpoint's state as read, before it is checked against the Sim.
type checkpoint struct {
	time     float64
	steps    int64
	dt       float64
	settings Settings
	acct     accounting
	h, r, f  []float32
	capOn    bool
	capFresh bool
	capPrev  []float32
	capWet   []uint8 // the wetted flags (version 6; contactline.go)
	ext      extSaved
	emitters []Emitter
	active   []bool
	fall     fallSaved
	// liftCol and liftFloor are the columns whose floors bodies lifted and those floors
	// (version 3; floors.go).
	liftCol   []int32
	liftFloor []float32
	// sweD is the shallow water equations' face depth per pipe (version 5; swe.go).
	sweD []float32
}

// extSaved is the extended pipes' flux history: what the next rebuild of the passages
// takes their fluxes from (extended.rebuild; the passages themselves follow from the
// heights). Unified: each opening's column, key and final flux (extended.uCol, uKey,
// uF); axis: each pipe's key and final flux (extended.aPrev), by key.
type extSaved struct {
	mode ExtendedPipes
	uCol []int32
	uKey []uint64
	uF   []float32
	aKey []uint64
	aF   []float32
}

// fallSaved is the particle phase's state: the dripping edges' drops and the particles.
type fallSaved struct {
	pend, idle, rate, took    []float64
	npend                     uint64
	released, landed, outflow float64
	x, y, z, vx, vy, vz       []float32
	vol                       []float64
	col                       []int32
}

// decodeCheckpoint reads the payload after the fingerprint (d.err on a short read).
func decodeCheckpoint(d *ckDec) *checkpoint {
	cp := &checkpoint{}
	d.what = "the clock"
	cp.time, cp.steps, cp.dt = d.f64(), int64(d.u64()), d.f64()
	d.what = "the settings"
	cp.settings = decodeSettings(d)
	d.what = "the accounting"
	cp.acct = accounting{added: d.f64(), removed: d.f64(), rejected: d.f64(), outflow: d.f64()}
	d.what = "the heights"
	cp.h = d.f32s()
	d.what = "the residuals"
	cp.r = d.f32s()
	d.what = "the fluxes"
	cp.f = d.f32s()
	d.what = "the capillary head"
	if cp.capOn = d.bool(); cp.capOn {
		cp.capFresh = d.bool()
		cp.capPrev = d.f32s()
		if d.wetted { // before version 6, none: the resume's writeHeight flags the wet columns
			d.what = "the wetted flags"
			cp.capWet = slices.Clone(d.take(d.count(1)))
		}
	}
	d.what = "the extended pipes"
	cp.ext.mode = ExtendedPipes(d.u8())
	cp.ext.uCol, cp.ext.uKey, cp.ext.uF = d.i32s(), d.u64s(), d.f32s()
	cp.ext.aKey, cp.ext.aF = d.u64s(), d.f32s()
	d.what = "the sources and sinks"
	size := 7*8 + 1 + 3*8 + 3*8 + 1
	if d.v1 {
		size = 7*8 + 1 + 3*8 + 1
	}
	if d.held {
		size += 1 + 8
	}
	ne := d.count(size)
	for range ne {
		var e Emitter
		e.X, e.Y, e.Z, e.Radius, e.Rate, e.Start, e.Stop = d.f64(), d.f64(), d.f64(), d.f64(), d.f64(), d.f64(), d.f64()
		e.Falls = d.bool()
		e.VX, e.VY, e.VZ = d.f64(), d.f64(), d.f64()
		if !d.v1 {
			e.Spread[0], e.Spread[1], e.Seed = d.f64(), d.f64(), d.u64()
		}
		if d.held {
			e.Holds, e.Level = d.bool(), d.f64()
		}
		cp.emitters = append(cp.emitters, e)
		cp.active = append(cp.active, d.bool())
	}
	d.what = "the dripping edges"
	f := &cp.fall
	f.pend, f.idle, f.rate, f.took = d.f64s(), d.f64s(), d.f64s(), d.f64s()
	f.npend = d.u64()
	f.released, f.landed, f.outflow = d.f64(), d.f64(), d.f64()
	d.what = "the particles"
	np := d.count(6*4 + 8 + 4)
	f.x, f.y, f.z = make([]float32, np), make([]float32, np), make([]float32, np)
	f.vx, f.vy, f.vz = make([]float32, np), make([]float32, np), make([]float32, np)
	f.vol, f.col = make([]float64, np), make([]int32, np)
	for i := range np {
		f.x[i], f.y[i], f.z[i], f.vx[i], f.vy[i], f.vz[i] = d.f32(), d.f32(), d.f32(), d.f32(), d.f32(), d.f32()
		f.vol[i] = d.f64()
		f.col[i] = int32(d.u32())
	}
	if d.lifts {
		d.what = "the lifted floors"
		nl := d.count(8)
		cp.liftCol, cp.liftFloor = make([]int32, nl), make([]float32, nl)
		for k := range nl {
			cp.liftCol[k], cp.liftFloor[k] = int32(d.u32()), d.f32()
		}
	}
	if d.method {
		d.what = "the method"
		cp.settings.Method = Method(d.u8())
		if cp.settings.Method == MethodSWE {
			d.what = "the face depths"
			cp.sweD = d.f32s()
		}
	}
	return cp
}

// checkCheckpoint checks a decoded checkpoint against the Sim's terrain and returns the
// settings to apply and the emitter set to install; it changes nothing.
func (s *Sim) checkCheckpoint(cp *checkpoint) (Settings, emitterSet, error) {
	c := s.cols
	n, np := c.NumColumns(), s.topo.numPipes()
	bad := func(format string, a ...any) (Settings, emitterSet, error) {
		return Settings{}, emitterSet{}, fmt.Errorf("checkpoint is corrupt: "+format, a...)
	}
	st := cp.settings
	st.Backend, st.Workers = s.settings.Backend, s.settings.Workers
	if err := st.Validate(); err != nil {
		return bad("settings: %v", err)
	}
	if st.Method != s.settings.Method && s.be.name() != "cpu" {
		return Settings{}, emitterSet{}, fmt.Errorf("checkpoint: it is of a run with method %q: the method changes mid-run on the cpu backend only, not on %s (make this Sim with method %q)",
			st.Method, s.be.name(), st.Method)
	}
	if st.Method == MethodSWE {
		if len(cp.sweD) != np {
			return bad("%d face depths for %d pipes", len(cp.sweD), np)
		}
		for p, d := range cp.sweD {
			if !(d >= 0) || !finite32(d) {
				return bad("pipe %d: face depth %g", p, d)
			}
		}
	}
	dt := st.Dt
	if dt == 0 {
		dt = AutoDt(c.Dx, st.Gravity)
	}
	if math.Float64bits(dt) != math.Float64bits(cp.dt) {
		return bad("dt %g s, its settings give %g s", cp.dt, dt)
	}
	if !finite(cp.time) || cp.steps < 0 {
		return bad("time %g s after %d steps", cp.time, cp.steps)
	}
	for _, v := range [...]float64{cp.acct.added, cp.acct.removed, cp.acct.rejected, cp.acct.outflow} {
		if !finite(v) {
			return bad("accounting holds %v", v)
		}
	}
	if len(cp.h) != n || len(cp.r) != n || len(cp.f) != np {
		return bad("%d heights, %d residuals and %d fluxes for %d columns and %d pipes", len(cp.h), len(cp.r), len(cp.f), n, np)
	}
	floor := c.Base
	if len(cp.liftCol) > 0 {
		floor = slices.Clone(c.Base)
		for k, i := range cp.liftCol {
			if i < 0 || int(i) >= n || !(cp.liftFloor[k] > c.Base[i] && cp.liftFloor[k] < c.Max[i]) {
				return bad("lifted floor %d: column %d, floor %g", k, i, cp.liftFloor[k])
			}
			floor[i] = cp.liftFloor[k]
		}
	}
	for i, h := range cp.h {
		if !(h >= floor[i] && h <= c.Max[i]) || !finite32(cp.r[i]) {
			return bad("column %d: h = %g (residual %g) outside [floor, max] = [%g, %g]", i, h, cp.r[i], floor[i], c.Max[i])
		}
	}
	for p, f := range cp.f {
		if !finite32(f) {
			return bad("pipe %d: flux %g", p, f)
		}
	}
	if on := st.CapillaryLength() > 0; cp.capOn != on || (on && (len(cp.capPrev) != n || (cp.capWet != nil && len(cp.capWet) != n))) {
		return bad("capillary head saved %v (%d columns) with surface tension %g N/m", cp.capOn, len(cp.capPrev), st.SurfaceTension)
	}
	if err := checkExtSaved(&cp.ext, st.ExtendedPipes, c); err != nil {
		return bad("extended pipes: %v", err)
	}

	var em emitterSet
	for id, e := range cp.emitters {
		if err := validateEmitter(e); err != nil {
			return bad("source or sink %d: %v", id, err)
		}
		tg, err := emitterTargets(c, e)
		if err == nil && e.Falls {
			err, tg = fallPoint(c, e), nil
		}
		if err != nil && cp.active[id] {
			return bad("source or sink %d: %v", id, err)
		}
		em.push(e, cp.active[id], tg)
	}

	f := &cp.fall
	cand := fallCandidates(s.topo, fallDrop(st, c.Dx))
	for k, a := range [][]float64{f.pend, f.idle, f.rate, f.took} {
		if len(a) != cand {
			return bad("%d values per dripping edge for %d candidate pipes", len(a), cand)
		}
		for _, v := range a {
			if !finite(v) || (v < 0 && k != 2) { // the mean rate (k 2) may round below 0
				return bad("dripping edge value %g", v)
			}
		}
	}
	if f.npend > uint64(cand) {
		return bad("%d pending edges of %d", f.npend, cand)
	}
	for _, v := range [...]float64{f.released, f.landed, f.outflow} {
		if !finite(v) {
			return bad("particle totals hold %v", v)
		}
	}
	for i, v := range f.vol {
		p := [...]float32{f.x[i], f.y[i], f.z[i], f.vx[i], f.vy[i], f.vz[i]}
		if !(v > 0 && v <= math.MaxFloat64) || !finite32(p[0]) || !finite32(p[1]) || !finite32(p[2]) ||
			!finite32(p[3]) || !finite32(p[4]) || !finite32(p[5]) || f.col[i] < -1 || int(f.col[i]) >= n {
			return bad("particle %d: at (%g, %g, %g), velocity (%g, %g, %g), volume %g, column %d", i, p[0], p[1], p[2], p[3], p[4], p[5], v, f.col[i])
		}
	}
	return st, em, nil
}

// checkExtSaved checks the extended pipes' history against the mode and the columns.
func checkExtSaved(x *extSaved, mode ExtendedPipes, c *terrain.Columns) error {
	n := uint64(c.NumColumns())
	if len(x.uCol) != len(x.uKey) || len(x.uCol) != len(x.uF) || len(x.aKey) != len(x.aF) {
		return fmt.Errorf("%d, %d and %d unified values, %d and %d axis values", len(x.uCol), len(x.uKey), len(x.uF), len(x.aKey), len(x.aF))
	}
	if len(x.uCol) > 0 && mode != ExtendedUnified || len(x.aKey) > 0 && mode != ExtendedAxis {
		return fmt.Errorf("history for extended pipes %v, the settings say %v", x.mode, mode)
	}
	if (len(x.uCol) > 0 || len(x.aKey) > 0) && !anyCapped(c) {
		return fmt.Errorf("history for a terrain without passages")
	}
	for k, b := range x.uCol {
		key := x.uKey[k]
		if b < 0 || uint64(b) >= n || key>>32 != uint64(b) || key&(1<<32-1) >= n || !finite32(x.uF[k]) {
			return fmt.Errorf("unified opening %d: column %d, key %#x, flux %g", k, b, key, x.uF[k])
		}
	}
	for k, key := range x.aKey {
		if key>>32 >= n || key&(1<<32-1) >= n || (k > 0 && key <= x.aKey[k-1]) || !finite32(x.aF[k]) {
			return fmt.Errorf("axis pipe %d: key %#x, flux %g", k, key, x.aF[k])
		}
	}
	return nil
}

// anyCapped tells whether some column of c is capped by a solid (newExtended's test):
// only then can passages form.
func anyCapped(c *terrain.Columns) bool {
	for _, m := range c.Max {
		if float64(m) < c.Height*(1-1e-6) {
			return true
		}
	}
	return false
}

// fallCandidates is the number of pipes that may release falling liquid at threshold d
// (fallState.configure's candidates).
func fallCandidates(t *topology, d float64) int {
	base := t.cols.Base
	n := 0
	for p := range t.pipeA {
		if math.Abs(float64(base[t.pipeA[p]])-float64(base[t.pipeB[p]])) > d {
			n++
		}
	}
	return n
}

func finite(v float64) bool   { return !math.IsNaN(v) && !math.IsInf(v, 0) }
func finite32(v float32) bool { return finite(float64(v)) }

// restore puts a checked checkpoint's particles and dripping edges in place (after
// configure has sized the edges' arrays for the settings).
func (f *fallState) restore(x *fallSaved) {
	f.x, f.y, f.z = slices.Clone(x.x), slices.Clone(x.y), slices.Clone(x.z)
	f.vx, f.vy, f.vz = slices.Clone(x.vx), slices.Clone(x.vy), slices.Clone(x.vz)
	f.vol, f.col = slices.Clone(x.vol), slices.Clone(x.col)
	f.land = make([]int32, len(x.vol))
	for i := range f.land {
		f.land[i] = -1
	}
	copy(f.pend, x.pend)
	copy(f.idle, x.idle)
	copy(f.rate, x.rate)
	copy(f.took, x.took)
	f.npend = int(x.npend)
	f.released, f.landed, f.outflow = x.released, x.landed, x.outflow
}

// checkpointBackend is what a backend adds for checkpoints: its state beyond heights,
// residuals and fluxes (which the backend interface reads and writes).
type checkpointBackend interface {
	// saveCap copies the capillary head's prev (each column's height at the last pass)
	// into prev and its wetted flags into wet, and returns its fresh flag; on is false
	// when the head is off.
	saveCap(prev []float32, wet []uint8) (fresh, on bool)
	// restoreCap sets prev, the wetted flags (nil: those writeHeight set) and fresh
	// (after writeHeight, which sets fresh).
	restoreCap(prev []float32, wet []uint8, fresh bool)
	// saveExt returns the extended pipes' flux history (extSaved).
	saveExt() extSaved
	// restoreExt installs a history for the next rebuild (after setParams and
	// writeHeight: the next step rebuilds the passages from the heights).
	restoreExt(x extSaved)
	// saveSWE returns the shallow water equations' state (nil for the pipes); restoreSWE
	// sets its velocities and face depths.
	saveSWE() *sweState
	restoreSWE(d []float32)
}

func (c *cpuBackend) saveCap(prev []float32, wet []uint8) (fresh, on bool) {
	if !c.p.cap.on {
		return false, false
	}
	copy(prev, c.capSt.prev)
	copy(wet, c.capSt.wet)
	return c.capSt.fresh, true
}

func (c *cpuBackend) restoreCap(prev []float32, wet []uint8, fresh bool) {
	copy(c.capSt.prev, prev)
	if wet != nil {
		copy(c.capSt.wet, wet)
	}
	c.capSt.fresh = fresh
}

func (c *cpuBackend) saveExt() extSaved { return c.ext.saved() }

func (c *cpuBackend) restoreExt(x extSaved) { c.ext.restore(x) }

func (d *deviceBackend) saveCap(prev []float32, wet []uint8) (fresh, on bool) {
	d.inFlight("checkpoint")
	if !d.p.cap.on || d.capPrev == 0 {
		return false, false
	}
	d.rt.Do(func() {
		download(d.rt, prev[:d.n], d.capPrev)
		download(d.rt, wet[:d.n], d.capWet)
	})
	return d.capFresh, true
}

func (d *deviceBackend) restoreCap(prev []float32, wet []uint8, fresh bool) {
	d.inFlight("checkpoint")
	d.rt.Do(func() {
		upload(d.rt, d.capPrev, prev[:d.n])
		if wet != nil {
			upload(d.rt, d.capWet, wet[:d.n])
		}
	})
	d.capFresh = fresh
}

// saveExt reads the extended fluxes of the current lists back from the device: the host's
// copies of them are those of the last rebuild.
func (d *deviceBackend) saveExt() extSaved {
	d.inFlight("checkpoint")
	e := d.ext
	if e == nil || e.mode == ExtendedOff || !d.histValid {
		return e.saved() // a history restored and not yet rebuilt, or none
	}
	m, src := d.extHist()
	fs := make([]float32, m)
	d.rt.Do(func() { download(d.rt, fs, src) })
	x := extSaved{mode: e.mode}
	switch e.mode {
	case ExtendedUnified:
		x.uCol, x.uKey, x.uF = slices.Clone(e.uCol), slices.Clone(e.uKey), fs
	case ExtendedAxis:
		for _, ap := range e.axis {
			x.aKey = append(x.aKey, ap.key)
		}
		x.aF = fs
	}
	return x
}

// saveSWE reads the SWE's face depths back from the device (nil for the pipes): with the
// fluxes they are its state.
func (d *deviceBackend) saveSWE() *sweState {
	d.inFlight("checkpoint")
	if d.swe == nil {
		return nil
	}
	dd := make([]float32, d.np)
	d.rt.Do(func() { download(d.rt, dd, d.sweD) })
	return &sweState{d: dd}
}

// restoreSWE sets the face depths (after writeFlux, which derives them from the fluxes).
func (d *deviceBackend) restoreSWE(dd []float32) {
	d.inFlight("checkpoint")
	if d.swe == nil {
		return
	}
	d.rt.Do(func() { upload(d.rt, d.sweD, dd[:d.np]) })
}

func (d *deviceBackend) restoreExt(x extSaved) {
	d.inFlight("checkpoint")
	if d.ext == nil {
		return
	}
	d.histValid, d.pending = false, nil // the device's lists are no one's history now
	d.ext.restore(x)
}

// saved returns the flux history of the lists in use (nil-safe). On the CPU they hold the
// last step's final fluxes.
func (e *extended) saved() extSaved {
	if e == nil {
		return extSaved{}
	}
	x := extSaved{mode: e.mode}
	switch e.mode {
	case ExtendedUnified:
		x.uCol, x.uKey, x.uF = slices.Clone(e.uCol), slices.Clone(e.uKey), slices.Clone(e.uF)
	case ExtendedAxis:
		for _, a := range e.aPrev {
			x.aKey = append(x.aKey, a.key)
			x.aF = append(x.aF, a.f)
		}
	}
	return x
}

// restore makes x the history the next rebuild takes the fluxes from, and marks the
// passages for a rebuild from the heights (nil-safe). Until that step the counts of
// extended pipes and passages read 0.
func (e *extended) restore(x extSaved) {
	if e == nil {
		return
	}
	e.uCol, e.uKey, e.uF = e.uCol[:0], e.uKey[:0], e.uF[:0]
	e.aPrev, e.axis = e.aPrev[:0], e.axis[:0]
	e.pStart = e.pStart[:1]
	switch e.mode {
	case ExtendedUnified:
		e.uCol, e.uKey, e.uF = append(e.uCol, x.uCol...), append(e.uKey, x.uKey...), append(e.uF, x.uF...)
	case ExtendedAxis:
		for k, key := range x.aKey {
			e.aPrev = append(e.aPrev, axisFlux{key: key, f: x.aF[k]})
		}
	}
	e.dirty = true
}

// fingerprint identifies a terrain's columns: a checkpoint is read only on the terrain
// it was written on.
type fingerprint struct {
	columns, pipes uint64
	nx, ny, layers uint32
	dx, height     float64
	hash           uint64 // FNV-64a of CellStart, Min, Base and Max, little-endian bits
}

func fingerprintOf(c *terrain.Columns, pipes int) fingerprint {
	h := fnv.New64a()
	buf := make([]byte, 0, 4*len(c.CellStart))
	for _, v := range c.CellStart {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
	}
	h.Write(buf)
	for _, a := range [][]float32{c.Min, c.Base, c.Max} {
		buf = buf[:0]
		for _, v := range a {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
		h.Write(buf)
	}
	return fingerprint{columns: uint64(c.NumColumns()), pipes: uint64(pipes),
		nx: uint32(c.Nx), ny: uint32(c.Ny), layers: uint32(c.Layers), dx: c.Dx, height: c.Height, hash: h.Sum64()}
}

func (f fingerprint) encode(e *ckEnc) {
	e.u64(f.columns)
	e.u64(f.pipes)
	e.u32(f.nx)
	e.u32(f.ny)
	e.u32(f.layers)
	e.f64(f.dx)
	e.f64(f.height)
	e.u64(f.hash)
}

func decodeFingerprint(d *ckDec) fingerprint {
	d.what = "the terrain's fingerprint"
	return fingerprint{columns: d.u64(), pipes: d.u64(), nx: d.u32(), ny: d.u32(), layers: d.u32(),
		dx: d.f64(), height: d.f64(), hash: d.u64()}
}

// grid describes the fingerprint's grid for the errors.
func (f fingerprint) grid() string {
	return fmt.Sprintf("a %dx%dx%d grid of %d columns (dx %g m, height %g m, %d pipes)", f.nx, f.ny, f.layers, f.columns, f.dx, f.height, f.pipes)
}

// check tells whether a checkpoint written on terrain f can be read on terrain here.
func (f fingerprint) check(here fingerprint) error {
	g := f
	g.hash = here.hash
	if g != here {
		return fmt.Errorf("checkpoint is for %s, this scenario has %s", f.grid(), here.grid())
	}
	if f.hash != here.hash {
		return fmt.Errorf("checkpoint is for another terrain: %s like this scenario's, but with other floors, ceilings or cells (terrain hash %016x, this scenario's %016x)",
			f.grid(), f.hash, here.hash)
	}
	return nil
}

// encodeSettings writes every field of st, in declaration order.
func encodeSettings(e *ckEnc, st Settings) {
	e.f64(st.Dt)
	e.f64(st.Viscosity)
	e.f64(st.Damping)
	e.f64(st.Gravity)
	e.u64(uint64(st.CrossSection))
	e.u64(uint64(st.ExtendedPipes))
	e.u64(uint64(st.Falling))
	e.f64(st.FallDrop)
	e.u64(uint64(st.Workers))
	e.str(st.Backend)
	e.f64(st.SurfaceTension)
	e.f64(st.Density)
	e.f64(st.ContactAngle)
	for _, sd := range st.Sides {
		e.u8(uint8(sd))
	}
	e.f64(st.ContactHysteresis)
	e.bool(st.CapillaryPressure)
}

func decodeSettings(d *ckDec) Settings {
	var st Settings
	st.Dt, st.Viscosity, st.Damping, st.Gravity = d.f64(), d.f64(), d.f64(), d.f64()
	st.CrossSection, st.ExtendedPipes, st.Falling = CrossSection(d.u64()), ExtendedPipes(d.u64()), Falling(d.u64())
	st.FallDrop = d.f64()
	st.Workers = int(d.u64())
	st.Backend = d.str()
	st.SurfaceTension, st.Density, st.ContactAngle = d.f64(), d.f64(), d.f64()
	for k := range st.Sides {
		st.Sides[k] = Side(d.u8())
	}
	st.ContactHysteresis = d.f64()
	st.CapillaryPressure = d.bool()
	return st
}

// ckEnc appends little-endian values to b.
type ckEnc struct{ b []byte }

func (e *ckEnc) u8(v uint8)    { e.b = append(e.b, v) }
func (e *ckEnc) u32(v uint32)  { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *ckEnc) u64(v uint64)  { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *ckEnc) f32(v float32) { e.u32(math.Float32bits(v)) }
func (e *ckEnc) f64(v float64) { e.u64(math.Float64bits(v)) }
func (e *ckEnc) str(s string)  { e.u64(uint64(len(s))); e.b = append(e.b, s...) }
func (e *ckEnc) bool(v bool)   { e.u8(boolByte(v)) }
func boolByte(v bool) uint8    { return uint8(boolInt32(v)) }
func (e *ckEnc) f32s(v []float32) {
	e.u64(uint64(len(v)))
	for _, x := range v {
		e.f32(x)
	}
}

func (e *ckEnc) f64s(v []float64) {
	e.u64(uint64(len(v)))
	for _, x := range v {
		e.f64(x)
	}
}

func (e *ckEnc) i32s(v []int32) {
	e.u64(uint64(len(v)))
	for _, x := range v {
		e.u32(uint32(x))
	}
}

func (e *ckEnc) u64s(v []uint64) {
	e.u64(uint64(len(v)))
	for _, x := range v {
		e.u64(x)
	}
}

// ckDec reads little-endian values from b; the first read past the end (or a count
// larger than what is left) sets err, after which every read gives zero.
type ckDec struct {
	b    []byte
	err  error
	what string // the part being read, for the error
	v1   bool   // a version 1 payload: sources and sinks without the spray fields
	// lifts: a version 3 payload or later, which ends with the lifted floors
	lifts bool
	// held: a version 4 payload or later, whose sources have Holds and Level
	held bool
	// method: a version 5 payload or later, which ends with the method and, for the
	// shallow water equations, the pipes' face depths
	method bool
	// wetted: a version 6 payload or later, whose capillary head has the wetted flags
	wetted bool
}

func (d *ckDec) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.err = fmt.Errorf("checkpoint is corrupt: %s run past the end of its data", d.what)
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *ckDec) u8() uint8 {
	if p := d.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *ckDec) u32() uint32 {
	if p := d.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *ckDec) u64() uint64 {
	if p := d.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *ckDec) f32() float32 { return math.Float32frombits(d.u32()) }
func (d *ckDec) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *ckDec) bool() bool {
	v := d.u8()
	if v > 1 && d.err == nil {
		d.err = fmt.Errorf("checkpoint is corrupt: %s hold a flag %d", d.what, v)
	}
	return v == 1
}

// count reads a count of values of size bytes each, no more than what is left.
func (d *ckDec) count(size int) int {
	n := d.u64()
	if d.err == nil && n > uint64(len(d.b)/size) {
		d.err = fmt.Errorf("checkpoint is corrupt: %s count %d values, more than its data holds", d.what, n)
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

func (d *ckDec) str() string { return string(d.take(d.count(1))) }

func (d *ckDec) f32s() []float32 {
	v := make([]float32, d.count(4))
	for i := range v {
		v[i] = d.f32()
	}
	return v
}

func (d *ckDec) f64s() []float64 {
	v := make([]float64, d.count(8))
	for i := range v {
		v[i] = d.f64()
	}
	return v
}

func (d *ckDec) i32s() []int32 {
	v := make([]int32, d.count(4))
	for i := range v {
		v[i] = int32(d.u32())
	}
	return v
}

func (d *ckDec) u64s() []uint64 {
	v := make([]uint64, d.count(8))
	for i := range v {
		v[i] = d.u64()
	}
	return v
}
