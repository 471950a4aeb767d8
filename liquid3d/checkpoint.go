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
	var e ckEnc
	e.b = make([]byte, 0, 256+(15*4+8)*s.np)
	e.b = append(e.b, checkpointMagic...)
	e.u32(CheckpointVersion)
	e.u64(0) // the payload's length, set below
	s.fingerprint().encode(&e)
	e.u64(uint64(len(s.node)))
	for _, v := range s.node {
		e.f32(v)
	}
	e.f64(s.time)
	e.f32(s.maxSpeed)
	e.f64(s.added)
	e.f64(s.out)
	e.f64(s.in)
	e.u64(uint64(s.np))
	for _, a := range s.particleArrays() {
		for _, v := range a[:s.np] {
			e.f32(v)
		}
	}
	for _, v := range s.vol[:s.np] {
		e.f64(v)
	}
	e.u64(uint64(len(s.outflow)))
	for _, p := range s.outflow {
		for _, v := range [...]float64{p.Pos.X, p.Pos.Y, p.Pos.Z, p.Vel.X, p.Vel.Y, p.Vel.Z, p.Volume} {
			e.f64(v)
		}
	}
	for _, c := range s.cols[:] {
		if c == nil {
			continue
		}
		e.f64s(c.level)
		e.f64s(c.vel)
		e.f64s(c.res)
		e.u64(uint64(len(c.cnt)))
		for _, v := range c.cnt {
			e.u32(v)
		}
		e.f64s(c.took)
	}
	binary.LittleEndian.PutUint64(e.b[ckHeaderLen-8:], uint64(len(e.b)-ckHeaderLen))
	e.u32(crc32.ChecksumIEEE(e.b))
	if _, err := w.Write(e.b); err != nil {
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
	d := ckDec{b: payload}
	fp := decodeFingerprint(&d)
	if d.err != nil {
		return d.err
	}
	here := s.fingerprint()
	if err := fp.check(here); err != nil {
		return err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("liquid3d checkpoint is corrupt: "+format, a...)
	}
	d.what = "the solid"
	node := make([]float32, d.count(4))
	for i := range node {
		node[i] = d.f32()
	}
	d.what = "the clock"
	t, maxSpeed := d.f64(), d.f32()
	d.what = "the books"
	added, out, in := d.f64(), d.f64(), d.f64()
	d.what = "the particles"
	np := d.count(15*4 + 8)
	var arr [15][]float32
	for k := range arr {
		arr[k] = make([]float32, np)
		for p := range arr[k] {
			arr[k][p] = d.f32()
		}
	}
	vol := make([]float64, np)
	for p := range vol {
		vol[p] = d.f64()
	}
	d.what = "the outflow"
	no := d.count(7 * 8)
	outflow := make([]Particle, no)
	for i := range outflow {
		p := &outflow[i]
		p.Pos.X, p.Pos.Y, p.Pos.Z, p.Vel.X, p.Vel.Y, p.Vel.Z, p.Volume = d.f64(), d.f64(), d.f64(), d.f64(), d.f64(), d.f64(), d.f64()
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
		d.what = fmt.Sprintf("the %v side's columns", Side(side))
		x := &sideSaved{level: d.f64s(), vel: d.f64s(), res: d.f64s()}
		x.cnt = make([]uint32, d.count(4))
		for i := range x.cnt {
			x.cnt[i] = d.u32()
		}
		x.took = d.f64s()
		sides[side] = x
	}
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return bad("%d bytes left after the %v", len(d.b), d.what)
	}

	// Check the values: what a run never holds.
	if !finite(t) || t < 0 || !finite(float64(maxSpeed)) || maxSpeed < 0 {
		return bad("time %g s, fastest particle %g m/s", t, maxSpeed)
	}
	for _, v := range [...]float64{added, out, in} {
		if !finite(v) {
			return bad("the books hold %g", v)
		}
	}
	n := [3]float32{float32(s.nx), float32(s.ny), float32(s.nz)}
	for p := range np {
		for k := range arr {
			if !finite(float64(arr[k][p])) {
				return bad("particle %d: value %d is %g", p, k, arr[k][p])
			}
		}
		for a := range 3 {
			if x := arr[a][p]; !(x >= 0 && x < n[a]) {
				return bad("particle %d lies outside the box: at (%g, %g, %g) cells", p, arr[0][p], arr[1][p], arr[2][p])
			}
		}
		if v := vol[p]; !(v > 0) || !finite(v) {
			return bad("particle %d: volume %g", p, v)
		}
	}
	for i, p := range outflow {
		if !p.Pos.IsFinite() || !p.Vel.IsFinite() || !(p.Volume > 0) || !finite(p.Volume) {
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
			if math.IsInf(x.level[i], -1) != before || (!before && !finite(x.level[i])) || !finite(x.vel[i]) || !finite(x.took[i]) || x.took[i] < 0 {
				return bad("the %v side's column %d: level %g, velocity %g, taken %g", Side(side), i, x.level[i], x.vel[i], x.took[i])
			}
		}
		for f, v := range x.res {
			if !finite(v) || v < 0 {
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

func (f fingerprint) encode(e *ckEnc) {
	e.u32(f.nx)
	e.u32(f.ny)
	e.u32(f.nz)
	for _, v := range [...]float64{f.h, f.ox, f.oy, f.oz, f.gravity, f.viscosity, f.cfl, f.tolerance} {
		e.f64(v)
	}
	e.u64(f.maxIterations)
	e.bool(f.noSlip)
	e.b = append(e.b, f.sides[:]...)
	e.u64(f.solid)
}

func decodeFingerprint(d *ckDec) fingerprint {
	d.what = "the fingerprint"
	f := fingerprint{nx: d.u32(), ny: d.u32(), nz: d.u32()}
	f.h, f.ox, f.oy, f.oz, f.gravity, f.viscosity, f.cfl, f.tolerance = d.f64(), d.f64(), d.f64(), d.f64(), d.f64(), d.f64(), d.f64(), d.f64()
	f.maxIterations = d.u64()
	f.noSlip = d.bool()
	copy(f.sides[:], d.take(6))
	f.solid = d.u64()
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

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// ckEnc appends little-endian values to b.
type ckEnc struct{ b []byte }

func (e *ckEnc) u32(v uint32)  { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *ckEnc) u64(v uint64)  { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *ckEnc) f32(v float32) { e.u32(math.Float32bits(v)) }
func (e *ckEnc) f64(v float64) { e.u64(math.Float64bits(v)) }
func (e *ckEnc) bool(v bool) {
	var b byte
	if v {
		b = 1
	}
	e.b = append(e.b, b)
}

func (e *ckEnc) f64s(v []float64) {
	e.u64(uint64(len(v)))
	for _, x := range v {
		e.f64(x)
	}
}

// ckDec reads little-endian values from b; the first read past the end (or a count
// larger than what is left) sets err, after which every read gives zero.
type ckDec struct {
	b    []byte
	err  error
	what string // the part being read, for the error
}

func (d *ckDec) take(n int) []byte {
	if d.err != nil {
		return make([]byte, n)
	}
	if n > len(d.b) {
		d.err = fmt.Errorf("liquid3d checkpoint is corrupt: %s run past the end of its data", d.what)
		return make([]byte, n)
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *ckDec) u32() uint32  { return binary.LittleEndian.Uint32(d.take(4)) }
func (d *ckDec) u64() uint64  { return binary.LittleEndian.Uint64(d.take(8)) }
func (d *ckDec) f32() float32 { return math.Float32frombits(d.u32()) }
func (d *ckDec) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *ckDec) bool() bool {
	v := d.take(1)[0]
	if v > 1 && d.err == nil {
		d.err = fmt.Errorf("liquid3d checkpoint is corrupt: %s hold a flag %d", d.what, v)
	}
	return v == 1
}

// count reads a count of values of size bytes each, no more than what is left.
func (d *ckDec) count(size int) int {
	n := d.u64()
	if d.err == nil && n > uint64(len(d.b)/size) {
		d.err = fmt.Errorf("liquid3d checkpoint is corrupt: %s count %d values, more than its data holds", d.what, n)
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

func (d *ckDec) f64s() []float64 {
	v := make([]float64, d.count(8))
	for i := range v {
		v[i] = d.f64()
	}
	return v
}
