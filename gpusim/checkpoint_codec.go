package gpusim

// The checkpoint format's values: the terrain's fingerprint, the settings' fields, and
// the little-endian encoder (ckEnc) and decoder (ckDec).

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/vpbench/vpbench/terrain"
)

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
	// holds: a version 7 payload or later, which ends with the held columns, the
	// exchanged volume and the parcels landed on held columns
	holds bool
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
