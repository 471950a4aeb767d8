package ckcodec

import (
	"math"
	"slices"
	"testing"
)

// TestRoundTrip: every value the Encoder writes reads back the same bits, and the data
// is used up exactly.
func TestRoundTrip(t *testing.T) {
	var e Encoder
	e.U32(0xdeadbeef)
	e.U64(1<<63 | 12345)
	e.F32(float32(math.Inf(-1)))
	e.F32(-0.1)
	e.F64(math.Pi)
	e.F64(math.Copysign(0, -1))
	e.Bool(true)
	e.Bool(false)
	floats := []float64{1.5, -2, math.MaxFloat64, math.SmallestNonzeroFloat64}
	e.F64s(floats)
	e.F64s(nil)
	e.B = append(e.B, "tail"...)
	if want := 4 + 8 + 4 + 4 + 8 + 8 + 1 + 1 + (8 + 4*8) + 8 + 4; len(e.B) != want {
		t.Fatalf("encoded %d bytes, want %d", len(e.B), want)
	}

	d := NewDecoder(e.B, "test checkpoint")
	d.What = "the values"
	if v := d.U32(); v != 0xdeadbeef {
		t.Errorf("U32 = %#x", v)
	}
	if v := d.U64(); v != 1<<63|12345 {
		t.Errorf("U64 = %#x", v)
	}
	if v := d.F32(); !math.IsInf(float64(v), -1) {
		t.Errorf("F32 = %g, want -Inf", v)
	}
	if v := d.F32(); math.Float32bits(v) != math.Float32bits(-0.1) {
		t.Errorf("F32 = %g, want -0.1", v)
	}
	if v := d.F64(); v != math.Pi {
		t.Errorf("F64 = %g, want pi", v)
	}
	if v := d.F64(); math.Float64bits(v) != math.Float64bits(math.Copysign(0, -1)) {
		t.Errorf("F64 = %g, want -0 (its sign bit kept)", v)
	}
	if a, b := d.Bool(), d.Bool(); !a || b {
		t.Errorf("Bool, Bool = %v, %v, want true, false", a, b)
	}
	if v := d.F64s(); !slices.Equal(v, floats) {
		t.Errorf("F64s = %v, want %v", v, floats)
	}
	if v := d.F64s(); v == nil || len(v) != 0 {
		t.Errorf("F64s of none = %#v, want an empty slice, not nil", v)
	}
	if d.Len() != 4 {
		t.Errorf("Len = %d before the tail, want 4", d.Len())
	}
	if v := string(d.Take(4)); v != "tail" {
		t.Errorf("Take(4) = %q, want \"tail\"", v)
	}
	if d.Err() != nil || d.Len() != 0 {
		t.Errorf("after reading everything: Err %v, Len %d, want nil and 0", d.Err(), d.Len())
	}
}

// TestPastTheEnd: the first read past the end sets the error, naming the checkpoint and
// the part being read, and every read after it gives zero, even where data is left.
func TestPastTheEnd(t *testing.T) {
	var e Encoder
	e.U32(7)
	e.U32(9)
	d := NewDecoder(e.B[:6], "region checkpoint")
	d.What = "the settings"
	if v := d.U32(); v != 7 || d.Err() != nil {
		t.Fatalf("U32 = %d, Err %v: want 7 and no error", v, d.Err())
	}
	if v := d.U32(); v != 0 {
		t.Errorf("U32 past the end = %d, want 0", v)
	}
	want := "region checkpoint is corrupt: the settings run past the end of its data"
	if d.Err() == nil || d.Err().Error() != want {
		t.Fatalf("Err = %v, want %q", d.Err(), want)
	}
	if d.Len() != 2 {
		t.Errorf("Len = %d after the failed read, want 2 (a read that fails takes nothing)", d.Len())
	}
	d.What = "the timing"
	if v := d.Take(1); len(v) != 1 || v[0] != 0 {
		t.Errorf("Take(1) after the error = %v, want [0]", v)
	}
	if v, b, f := d.U64(), d.Bool(), d.F64s(); v != 0 || b || len(f) != 0 {
		t.Errorf("after the error: U64 %d, Bool %v, F64s %v, want zeros", v, b, f)
	}
	if d.Err().Error() != want {
		t.Errorf("Err = %v after later reads, want the first error %q", d.Err(), want)
	}
}

// TestFlag: a flag other than 0 or 1 is an error that names the byte; the reads go on
// giving zero.
func TestFlag(t *testing.T) {
	d := NewDecoder([]byte{1, 0, 2, 5}, "liquid3d checkpoint")
	d.What = "the fingerprint"
	if a, b := d.Bool(), d.Bool(); !a || b || d.Err() != nil {
		t.Fatalf("Bool, Bool = %v, %v, Err %v: want true, false, nil", a, b, d.Err())
	}
	if d.Bool() {
		t.Errorf("Bool of a flag 2 = true, want false")
	}
	want := "liquid3d checkpoint is corrupt: the fingerprint hold a flag 2"
	if d.Err() == nil || d.Err().Error() != want {
		t.Fatalf("Err = %v, want %q", d.Err(), want)
	}
	if v := d.Take(1); v[0] != 0 {
		t.Errorf("Take(1) after the error = %v, want [0], not the data's 5", v)
	}
	if d.Err().Error() != want {
		t.Errorf("Err = %v after a later read, want the first error", d.Err())
	}
}

// TestCount: a count of more values than the data left holds is an error and gives 0,
// so that no corrupt count makes a reader allocate beyond its data; one that fits is
// read as it is.
func TestCount(t *testing.T) {
	var e Encoder
	e.U64(2)
	e.F64(1)
	e.F64(2)
	d := NewDecoder(e.B, "region checkpoint")
	d.What = "the held columns"
	if n := d.Count(8); n != 2 || d.Err() != nil {
		t.Fatalf("Count(8) = %d, Err %v: want 2, nil", n, d.Err())
	}

	e = Encoder{}
	e.U64(3)
	e.F64(1)
	e.F64(2)
	d = NewDecoder(e.B, "region checkpoint")
	d.What = "the held columns"
	if n := d.Count(8); n != 0 {
		t.Errorf("Count(8) of 3 values in 16 bytes = %d, want 0", n)
	}
	want := "region checkpoint is corrupt: the held columns count 3 values, more than its data holds"
	if d.Err() == nil || d.Err().Error() != want {
		t.Fatalf("Err = %v, want %q", d.Err(), want)
	}

	e = Encoder{}
	e.U64(math.MaxUint64) // would overflow an int, and any allocation
	d = NewDecoder(e.B, "liquid3d checkpoint")
	d.What = "the side's columns"
	if v := d.F64s(); len(v) != 0 {
		t.Errorf("F64s of a count of 2^64-1 = %d values, want none", len(v))
	}
	want = "liquid3d checkpoint is corrupt: the side's columns count 18446744073709551615 values, more than its data holds"
	if d.Err() == nil || d.Err().Error() != want {
		t.Errorf("Err = %v, want %q", d.Err(), want)
	}
}

func TestFinite(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want bool
	}{{0, true}, {-1e308, true}, {math.MaxFloat64, true}, {math.SmallestNonzeroFloat64, true},
		{math.NaN(), false}, {math.Inf(1), false}, {math.Inf(-1), false}} {
		if got := Finite(c.v); got != c.want {
			t.Errorf("Finite(%g) = %v, want %v", c.v, got, c.want)
		}
	}
}
