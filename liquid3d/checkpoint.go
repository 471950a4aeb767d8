package liquid3d

// Checkpoints of a region: its whole state between two steps written to a byte stream
// and read back into a Sim made with New from the same settings, which then steps on to
// the same bits as the one that wrote it (docs/checkpoints.md, "A 3D region").

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"math"
	"slices"

	"github.com/vpbench/vpbench/internal/ckcodec"
)

// CheckpointVersion is the version of the format WriteCheckpoint writes; ReadCheckpoint
// reads it alone.
const CheckpointVersion = 1

// checkpointMagic opens every region checkpoint.
const checkpointMagic = "vpbench-liquid3d-checkpoint"

// ckHeaderLen is the bytes before the payload: the magic, the version (uint32) and the
// payload's length (uint64).
const ckHeaderLen = len(checkpointMagic) + 4 + 8

// WriteCheckpoint writes the region's state to w: what the next Step reads and cannot
// derive from the settings. The format, little-endian: the magic
// "vpbench-liquid3d-checkpoint"; the version (uint32, CheckpointVersion); the payload's
// length (uint64); the payload; a CRC-32 (IEEE) of everything before it. The payload:
//
//   - the fingerprint: NX, NY, NZ (uint32), H, the origin, gravity, viscosity, CFL and
//     the tolerance (float64), MaxIterations (uint64), NoSlip and the six sides (a byte
//     each), and an FNV-64a hash of the solid as sampled (the corners' distances and the
//     faces' open shares, float32 bits);
//   - the solid as sampled: the corners' distances (their count, then float32 each), so
//     that a region whose terrain changed mid-run (SetSolid) resumes on the solid it ran
//     on whatever solid the reader was made with (a resumed scene's terrain is its
//     columns' outline: scene.SetColumns);
//   - the clock (float64) and the fastest particle at the last sort (float32);
//   - the books: added, out, in (float64);
//   - the particles: their count, then per particle array (positions, velocities, the
//     nine affine components as float32; volumes as float64), each whole, in particle
//     order;
//   - the particles that left and are not yet taken (TakeOutflow): their count, each
//     one's position, velocity and volume (float64);
//   - each Columns side, in side order: its columns' levels and velocities (float64; the
//     last SetSideColumns', -Inf before any), its faces' reservoirs (float64) and
//     seeding counters (uint32), and its columns' inflow not yet taken (TakeSideInflow,
//     float64).
//
// The grid's velocities and weights, the pressure solve's arrays, the sort's keys and
// buffers and the side columns' derived shares and seeding places are not saved: each
// substep rebuilds the grid from the particles, the reader sorts at its next Step (a
// run's particles lie in its last sort's order, or a sort was pending, and the sort
// keeps that order), and the rest follows from the settings and the side levels. Checkpoints are rare: this allocates.
func (s *Sim) WriteCheckpoint(w io.Writer) error {
	var e ckcodec.Encoder
	e.B = make([]byte, 0, 256+(15*4+8)*s.np)
	e.B = append(e.B, checkpointMagic...)
	e.U32(CheckpointVersion)
	e.U64(0) // the payload's length, set below
	s.fingerprint().encode(&e)
	e.U64(uint64(len(s.node)))
	for _, v := range s.node {
		e.F32(v)
	}
	e.F64(s.time)
	e.F32(s.maxSpeed)
	e.F64(s.added)
	e.F64(s.out)
	e.F64(s.in)
	e.U64(uint64(s.np))
	for _, a := range s.particleArrays() {
		for _, v := range a[:s.np] {
			e.F32(v)
		}
	}
	for _, v := range s.vol[:s.np] {
		e.F64(v)
	}
	e.U64(uint64(len(s.outflow)))
	for _, p := range s.outflow {
		for _, v := range [...]float64{p.Pos.X, p.Pos.Y, p.Pos.Z, p.Vel.X, p.Vel.Y, p.Vel.Z, p.Volume} {
			e.F64(v)
		}
	}
	for _, c := range s.cols[:] {
		if c == nil {
			continue
		}
		e.F64s(c.level)
		e.F64s(c.vel)
		e.F64s(c.res)
		e.U64(uint64(len(c.cnt)))
		for _, v := range c.cnt {
			e.U32(v)
		}
		e.F64s(c.took)
	}
	binary.LittleEndian.PutUint64(e.B[ckHeaderLen-8:], uint64(len(e.B)-ckHeaderLen))
	e.U32(crc32.ChecksumIEEE(e.B))
	if _, err := w.Write(e.B); err != nil {
		return fmt.Errorf("liquid3d checkpoint: %w", err)
	}
	return nil
}

// particleArrays is the particles' float32 arrays in the checkpoint's order.
func (s *Sim) particleArrays() [15][]float32 {
	return [15][]float32{s.px, s.py, s.pz, s.vx, s.vy, s.vz,
		s.cm[0], s.cm[1], s.cm[2], s.cm[3], s.cm[4], s.cm[5], s.cm[6], s.cm[7], s.cm[8]}
}

// ReadCheckpoint replaces the region's state with the one WriteCheckpoint wrote, from a
// Sim made with New from the same settings (but Workers: the results are the same bits
// for any number). Everything is read and checked before anything changes: a blob that
// is not a region checkpoint, of another version, truncated or corrupt, or written with
// other settings or another solid gives an error naming the problem and leaves the Sim
// as it was.
func (s *Sim) ReadCheckpoint(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("liquid3d checkpoint: reading: %w", err)
	}
	payload, err := ckPayload(data)
	if err != nil {
		return err
	}
	d := ckcodec.NewDecoder(payload, "liquid3d checkpoint")
	fp := decodeFingerprint(d)
	if d.Err() != nil {
		return d.Err()
	}
	here := s.fingerprint()
	if err := fp.check(here); err != nil {
		return err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("liquid3d checkpoint is corrupt: "+format, a...)
	}
	d.What = "the solid"
	node := make([]float32, d.Count(4))
	for i := range node {
		node[i] = d.F32()
	}
	d.What = "the clock"
	t, maxSpeed := d.F64(), d.F32()
	d.What = "the books"
	added, out, in := d.F64(), d.F64(), d.F64()
	d.What = "the particles"
	np := d.Count(15*4 + 8)
	var arr [15][]float32
	for k := range arr {
		arr[k] = make([]float32, np)
		for p := range arr[k] {
			arr[k][p] = d.F32()
		}
	}
	vol := make([]float64, np)
	for p := range vol {
		vol[p] = d.F64()
	}
	d.What = "the outflow"
	no := d.Count(7 * 8)
	outflow := make([]Particle, no)
	for i := range outflow {
		p := &outflow[i]
		p.Pos.X, p.Pos.Y, p.Pos.Z, p.Vel.X, p.Vel.Y, p.Vel.Z, p.Volume = d.F64(), d.F64(), d.F64(), d.F64(), d.F64(), d.F64(), d.F64()
	}
	type sideSaved struct {
		level, vel, res, took []float64
		cnt                   []uint32
	}
	var sides [4]*sideSaved
	for side, c := range s.cols {
		if c == nil {
			continue
		}
		d.What = fmt.Sprintf("the %v side's columns", Side(side))
		x := &sideSaved{level: d.F64s(), vel: d.F64s(), res: d.F64s()}
		x.cnt = make([]uint32, d.Count(4))
		for i := range x.cnt {
			x.cnt[i] = d.U32()
		}
		x.took = d.F64s()
		sides[side] = x
	}
	if d.Err() != nil {
		return d.Err()
	}
	if d.Len() != 0 {
		return bad("%d bytes left after the %v", d.Len(), d.What)
	}

	// Check the values: what a run never holds.
	if !ckcodec.Finite(t) || t < 0 || !ckcodec.Finite(float64(maxSpeed)) || maxSpeed < 0 {
		return bad("time %g s, fastest particle %g m/s", t, maxSpeed)
	}
	for _, v := range [...]float64{added, out, in} {
		if !ckcodec.Finite(v) {
			return bad("the books hold %g", v)
		}
	}
	n := [3]float32{float32(s.nx), float32(s.ny), float32(s.nz)}
	for p := range np {
		for k := range arr {
			if !ckcodec.Finite(float64(arr[k][p])) {
				return bad("particle %d: value %d is %g", p, k, arr[k][p])
			}
		}
		for a := range 3 {
			if x := arr[a][p]; !(x >= 0 && x < n[a]) {
				return bad("particle %d lies outside the box: at (%g, %g, %g) cells", p, arr[0][p], arr[1][p], arr[2][p])
			}
		}
		if v := vol[p]; !(v > 0) || !ckcodec.Finite(v) {
			return bad("particle %d: volume %g", p, v)
		}
	}
	for i, p := range outflow {
		if !p.Pos.IsFinite() || !p.Vel.IsFinite() || !(p.Volume > 0) || !ckcodec.Finite(p.Volume) {
			return bad("particle %d that left: at %v, velocity %v, volume %g", i, p.Pos, p.Vel, p.Volume)
		}
	}
	for side, x := range sides {
		if x == nil {
			continue
		}
		c := s.cols[side]
		nf := c.n * s.nz
		if len(x.level) != c.n || len(x.vel) != c.n || len(x.took) != c.n || len(x.res) != nf || len(x.cnt) != nf {
			return bad("the %v side has %d levels, %d velocities, %d takes for %d columns, %d reservoirs and %d counters for %d faces",
				Side(side), len(x.level), len(x.vel), len(x.took), c.n, len(x.res), len(x.cnt), nf)
		}
		before := math.IsInf(x.level[0], -1) // no SetSideColumns yet: every level -Inf, every velocity 0
		for i := range x.level {
			if math.IsInf(x.level[i], -1) != before || (!before && !ckcodec.Finite(x.level[i])) || !ckcodec.Finite(x.vel[i]) || !ckcodec.Finite(x.took[i]) || x.took[i] < 0 {
				return bad("the %v side's column %d: level %g, velocity %g, taken %g", Side(side), i, x.level[i], x.vel[i], x.took[i])
			}
		}
		for f, v := range x.res {
			if !ckcodec.Finite(v) || v < 0 {
				return bad("the %v side's face %d: reservoir %g", Side(side), f, v)
			}
		}
	}

	if len(node) != len(s.node) {
		return bad("the solid has %d corners, the grid %d", len(node), len(s.node))
	}
	if fp.solid == here.solid && !slices.Equal(node, s.node) {
		return bad("the solid's corners differ from those its hash says")
	}
	if fp.solid != here.solid { // the solid the region ran on (SetSolid), not the reader's
		old := slices.Clone(s.node)
		copy(s.node, node)
		s.solidShares()
		if s.fingerprint().solid != fp.solid {
			copy(s.node, old)
			s.solidShares()
			return bad("the solid's corners do not give its hash")
		}
	}

	// Nothing else has changed so far; from here on nothing fails.
	s.px, s.py, s.pz, s.vx, s.vy, s.vz = arr[0], arr[1], arr[2], arr[3], arr[4], arr[5]
	for c := range s.cm {
		s.cm[c] = arr[6+c]
	}
	s.vol, s.np = vol, np
	// The sort's keys and cells are not saved: the next Step sorts first. A run's
	// particles between steps are in its sort's order already (or it was pending), and
	// the sort keeps that order: the same bits.
	s.sortPending = true
	s.maxSpeed = maxSpeed
	s.time, s.added, s.out, s.in = t, added, out, in
	s.outflow = outflow
	for side, x := range sides {
		if x == nil {
			continue
		}
		c := s.cols[side]
		if math.IsInf(x.level[0], -1) {
			for i := range c.level {
				c.level[i], c.lvl[i] = math.Inf(-1), math.Inf(-1)
			}
			clear(c.vel)
			clear(c.share)
			clear(c.wet)
			clear(c.nplace)
		} else {
			_ = s.SetSideColumns(Side(side), x.level, x.vel) // checked: finite, one per column
		}
		copy(c.res, x.res)
		copy(c.cnt, x.cnt)
		copy(c.took, x.took)
	}
	if s.rhoOut != nil {
		s.columnsLiquid()
	}
	s.lastStats, s.cur = StepStats{}, StepStats{}
	return nil
}

// fingerprint identifies a region's grid, physics and solid: a checkpoint is read only
// into a region made with the same.
type fingerprint struct {
	nx, ny, nz                        uint32
	h, ox, oy, oz, gravity, viscosity float64
	cfl, tolerance                    float64
	maxIterations                     uint64
	noSlip                            bool
	sides                             [6]uint8
	solid                             uint64 // FNV-64a of the corners' distances and the faces' open shares
}

func (s *Sim) fingerprint() fingerprint {
	st := s.set
	f := fingerprint{nx: uint32(s.nx), ny: uint32(s.ny), nz: uint32(s.nz), h: st.H, ox: st.Origin.X, oy: st.Origin.Y, oz: st.Origin.Z,
		gravity: st.Gravity, viscosity: st.Viscosity, cfl: st.CFL, tolerance: st.Tolerance, maxIterations: uint64(st.MaxIterations), noSlip: st.NoSlip}
	for k, v := range st.Sides {
		f.sides[k] = uint8(v)
	}
	h := fnv.New64a()
	var buf []byte
	for _, a := range [][]float32{s.node, s.au, s.av, s.aw} {
		buf = buf[:0]
		for _, v := range a {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
		h.Write(buf)
	}
	f.solid = h.Sum64()
	return f
}

func (f fingerprint) encode(e *ckcodec.Encoder) {
	e.U32(f.nx)
	e.U32(f.ny)
	e.U32(f.nz)
	for _, v := range [...]float64{f.h, f.ox, f.oy, f.oz, f.gravity, f.viscosity, f.cfl, f.tolerance} {
		e.F64(v)
	}
	e.U64(f.maxIterations)
	e.Bool(f.noSlip)
	e.B = append(e.B, f.sides[:]...)
	e.U64(f.solid)
}

func decodeFingerprint(d *ckcodec.Decoder) fingerprint {
	d.What = "the fingerprint"
	f := fingerprint{nx: d.U32(), ny: d.U32(), nz: d.U32()}
	f.h, f.ox, f.oy, f.oz, f.gravity, f.viscosity, f.cfl, f.tolerance = d.F64(), d.F64(), d.F64(), d.F64(), d.F64(), d.F64(), d.F64(), d.F64()
	f.maxIterations = d.U64()
	f.noSlip = d.Bool()
	copy(f.sides[:], d.Take(6))
	f.solid = d.U64()
	return f
}

// check names the first difference between a checkpoint's fingerprint f and the
// region's here, but the solid's (the checkpoint carries its own: ReadCheckpoint).
func (f fingerprint) check(here fingerprint) error {
	mismatch := func(what string, saved, now any) error {
		return fmt.Errorf("liquid3d checkpoint is for another region: %s %v, this region's %v", what, saved, now)
	}
	switch {
	case f.nx != here.nx || f.ny != here.ny || f.nz != here.nz:
		return mismatch("a grid of", fmt.Sprintf("%d x %d x %d cells", f.nx, f.ny, f.nz), fmt.Sprintf("%d x %d x %d", here.nx, here.ny, here.nz))
	case f.h != here.h:
		return mismatch("cells of", fmt.Sprintf("%g m", f.h), fmt.Sprintf("%g m", here.h))
	case f.ox != here.ox || f.oy != here.oy || f.oz != here.oz:
		return mismatch("the origin", fmt.Sprintf("(%g, %g, %g) m", f.ox, f.oy, f.oz), fmt.Sprintf("(%g, %g, %g) m", here.ox, here.oy, here.oz))
	case f.sides != here.sides:
		return mismatch("sides", sidesString(f.sides), sidesString(here.sides))
	case f.gravity != here.gravity:
		return mismatch("gravity", f.gravity, here.gravity)
	case f.viscosity != here.viscosity:
		return mismatch("viscosity", f.viscosity, here.viscosity)
	case f.cfl != here.cfl || f.tolerance != here.tolerance || f.maxIterations != here.maxIterations || f.noSlip != here.noSlip:
		return mismatch("CFL, tolerance, max iterations, no-slip", fmt.Sprint(f.cfl, f.tolerance, f.maxIterations, f.noSlip),
			fmt.Sprint(here.cfl, here.tolerance, here.maxIterations, here.noSlip))
	}
	return nil
}

func sidesString(s [6]uint8) string {
	var b bytes.Buffer
	for k, v := range s {
		if k > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%v %v", Side(k), SideKind(v))
	}
	return b.String()
}

// ckPayload checks a checkpoint's magic, version, length and checksum and returns its
// payload.
func ckPayload(data []byte) ([]byte, error) {
	m := len(checkpointMagic)
	switch {
	case len(data) < m && bytes.HasPrefix([]byte(checkpointMagic), data):
		return nil, fmt.Errorf("liquid3d checkpoint is truncated: %d bytes, not even its header", len(data))
	case len(data) < m || string(data[:m]) != checkpointMagic:
		return nil, fmt.Errorf("not a liquid3d checkpoint: wrong magic (it must start with %q)", checkpointMagic)
	case len(data) < m+4:
		return nil, fmt.Errorf("liquid3d checkpoint is truncated: %d bytes, not even its header", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[m:]); v != CheckpointVersion {
		return nil, fmt.Errorf("liquid3d checkpoint format version %d: this build reads version %d", v, CheckpointVersion)
	}
	if len(data) < ckHeaderLen {
		return nil, fmt.Errorf("liquid3d checkpoint is truncated: %d bytes, not even its header", len(data))
	}
	size := binary.LittleEndian.Uint64(data[ckHeaderLen-8:])
	have := uint64(len(data) - ckHeaderLen)
	switch {
	case have < 4 || size > have-4:
		return nil, fmt.Errorf("liquid3d checkpoint is truncated: %d bytes, its header announces %d", len(data), uint64(ckHeaderLen)+size+4)
	case size < have-4:
		return nil, fmt.Errorf("liquid3d checkpoint is corrupt: %d bytes after its end", have-4-size)
	}
	end := ckHeaderLen + int(size)
	if crc32.ChecksumIEEE(data[:end]) != binary.LittleEndian.Uint32(data[end:]) {
		return nil, fmt.Errorf("liquid3d checkpoint is corrupt: checksum mismatch")
	}
	return slices.Clip(data[ckHeaderLen:end]), nil
}
