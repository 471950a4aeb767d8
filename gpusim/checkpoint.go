package gpusim

// Checkpoints: the whole solver state written to a byte stream and read back, so that a
// run stopped at any step goes on bit for bit as if it had not stopped (docs/solver.md,
// "Checkpoints").
//
// This file: the format's version and framing, and Sim's WriteCheckpoint and
// ReadCheckpoint. checkpoint_decode.go decodes and checks a payload, checkpoint_restore.go
// saves and restores the backends' own state, checkpoint_codec.go encodes and decodes the
// values.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
)

// CheckpointVersion is the version of the checkpoint format WriteCheckpoint writes.
// ReadCheckpoint reads it and the earlier ones: version 6 has no held columns (a run
// that never held any: Hold), version 5 has no wetted flags (the
// columns wet at the checkpoint are its wetted ground), version 4 has no method (read as the pipes)
// nor the shallow water equations' velocities, version 3 no held levels (Emitter.Holds,
// Level: read as false and 0), version 2 neither those nor lifted floors (a run without
// bodies), version 1 none of those nor the spray fields of its sources and sinks
// (Emitter.Spread, Seed: read as {0, 0} and 0, a version 1 run having no sprays).
const CheckpointVersion = 7

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
//     (position and velocity as float32, volume as float64, column as int32), in order;
//   - (version 3) the lifted floors: their count, each column (uint32) and floor
//     (float32), by column;
//   - (version 5) the method (uint8) and, for the shallow water equations, every pipe's
//     face depth;
//   - (version 7) the held columns (Hold): their count and each column (uint32), in
//     Hold's order (none: nothing is held); the exchanged volume (float64); and the
//     parcels that landed on held columns not yet taken (TakeLanded): their count, each
//     one's position and velocity (float32) and volume (float64).
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
	if version < 7 && (s.held != nil || s.acct.exchanged != 0) {
		return fmt.Errorf("checkpoint: columns are held, or were (Hold): version %d cannot save them", version)
	}
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
	if version >= 7 {
		var held []int32
		if s.held != nil {
			held = s.held.cols
		}
		e.i32s(held)
		e.f64(s.acct.exchanged)
		e.u64(uint64(len(f.heldLanded)))
		for _, p := range f.heldLanded {
			for _, q := range [...]float32{p.X, p.Y, p.Z, p.VX, p.VY, p.VZ} {
				e.f32(q)
			}
			e.f64(p.Volume)
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
	if s.held != nil {
		return fmt.Errorf("checkpoint: columns are held (Hold): let them go before restoring a checkpoint")
	}
	cb, ok := s.be.(checkpointBackend)
	if !ok {
		return fmt.Errorf("checkpoint: the %s backend cannot restore a state", s.be.name())
	}
	payload, err := checkpointPayload(data)
	if err != nil {
		return err
	}
	v := checkpointFormat(data)
	d := ckDec{b: payload, v1: v == 1, lifts: v >= 3, held: v >= 4, method: v >= 5, wetted: v >= 6, holds: v >= 7}
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
	mark, err := s.checkHeldSaved(cp, st, &em)
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
	if mark != nil {
		// Before the fluxes and the particle phase's edges, which the held columns shape:
		// the general layout, the backend's marks, the candidate pipes without them.
		s.restoreHeld(cp.held, mark)
		cb = s.be.(checkpointBackend) // the general layout's backend, made anew
	}
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
	s.fall.heldLanded = append(s.fall.heldLanded[:0], cp.landed...)
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
