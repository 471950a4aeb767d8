// Package ckcodec is the little-endian encoding of checkpoints: an Encoder that appends
// values to a byte slice, and a bounded Decoder whose first read past the end of its
// data, impossible count or flag that is neither 0 nor 1 sets an error, after which every
// read gives zero, so that a reader decodes a whole part and checks the error once.
// liquid3d and region write their checkpoints with it (docs/checkpoints.md, "A 3D
// region"); gpusim keeps its own format.
package ckcodec

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Finite reports whether v is a number a run can hold: neither NaN nor infinite.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Encoder appends little-endian values to B.
type Encoder struct{ B []byte }

func (e *Encoder) U32(v uint32)  { e.B = binary.LittleEndian.AppendUint32(e.B, v) }
func (e *Encoder) U64(v uint64)  { e.B = binary.LittleEndian.AppendUint64(e.B, v) }
func (e *Encoder) F32(v float32) { e.U32(math.Float32bits(v)) }
func (e *Encoder) F64(v float64) { e.U64(math.Float64bits(v)) }

// Bool appends a byte, 1 for true and 0 for false.
func (e *Encoder) Bool(v bool) {
	var b byte
	if v {
		b = 1
	}
	e.B = append(e.B, b)
}

// F64s appends v's length (uint64), then its values.
func (e *Encoder) F64s(v []float64) {
	e.U64(uint64(len(v)))
	for _, x := range v {
		e.F64(x)
	}
}

// Decoder reads little-endian values from a checkpoint's data. The first read past the
// end, count larger than what is left or flag other than 0 and 1 sets Err, naming the
// checkpoint (the prefix) and the part being read (What); after it every read gives
// zero, so a reader checks Err once after a part rather than after every value.
type Decoder struct {
	rest   []byte // the data not yet read
	prefix string // the checkpoint, as its errors name it: "region checkpoint"
	err    error

	// What is the part being read, as the errors name it ("the settings"); the reader
	// sets it before each part.
	What string
}

// NewDecoder reads data; prefix names the checkpoint in the errors ("region
// checkpoint": "region checkpoint is corrupt: the settings run past the end of its
// data").
func NewDecoder(data []byte, prefix string) *Decoder {
	return &Decoder{rest: data, prefix: prefix}
}

// Err is the first error a read met, or nil.
func (d *Decoder) Err() error { return d.err }

// Len is the number of bytes not yet read.
func (d *Decoder) Len() int { return len(d.rest) }

// fail sets the error, unless one is set already: the first names what went wrong,
// the reads after it read zeros.
func (d *Decoder) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(d.prefix+" is corrupt: "+format, a...)
	}
}

// Take reads the next n bytes; they are the data's own, not a copy. Past the end (or
// after an error) it gives n zeros.
func (d *Decoder) Take(n int) []byte {
	if d.err != nil {
		return make([]byte, n)
	}
	if n > len(d.rest) {
		d.fail("%s run past the end of its data", d.What)
		return make([]byte, n)
	}
	p := d.rest[:n]
	d.rest = d.rest[n:]
	return p
}

func (d *Decoder) U32() uint32  { return binary.LittleEndian.Uint32(d.Take(4)) }
func (d *Decoder) U64() uint64  { return binary.LittleEndian.Uint64(d.Take(8)) }
func (d *Decoder) F32() float32 { return math.Float32frombits(d.U32()) }
func (d *Decoder) F64() float64 { return math.Float64frombits(d.U64()) }

// Bool reads a byte that must be 0 or 1.
func (d *Decoder) Bool() bool {
	v := d.Take(1)[0]
	if v > 1 {
		d.fail("%s hold a flag %d", d.What, v)
	}
	return v == 1
}

// Count reads a count (uint64) of values of size bytes each. A count of more values
// than the data left holds is an error and gives 0, so that a reader can make a slice
// of the count read before it reads the values without a corrupt count allocating
// beyond the data.
func (d *Decoder) Count(size int) int {
	n := d.U64()
	if d.err == nil && n > uint64(len(d.rest)/size) {
		d.fail("%s count %d values, more than its data holds", d.What, n)
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

// F64s reads what Encoder.F64s wrote: a count, then its values.
func (d *Decoder) F64s() []float64 {
	v := make([]float64, d.Count(8))
	for i := range v {
		v[i] = d.F64()
	}
	return v
}
