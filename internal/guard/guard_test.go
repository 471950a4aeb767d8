package guard

import (
	"math"
	"testing"
)

// A write just before or just past the output is caught, one inside is not; the guards
// of every element type hold the sentinel, NaN for the floats.
func TestCheck(t *testing.T) {
	s := New[float32](5)
	if len(s.Out) != 5 || cap(s.Out) != 5 {
		t.Fatalf("output of length %d, capacity %d", len(s.Out), cap(s.Out))
	}
	for i := range s.Out {
		s.Out[i] = float32(i)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(s.buf[0])) || !math.IsNaN(New[float64](1).buf[0]) {
		t.Fatal("the float sentinels are not NaN")
	}
	for _, i := range []int{Len - 1, Len + 5, 0, len(s.buf) - 1} {
		f := From(s.Out)
		f.buf[i] = 0
		if f.Check() == nil {
			t.Fatalf("a write to element %d of the buffer went unseen", i)
		}
	}
	b := New[uint8](3)
	b.buf[Len+3] = 0
	if b.Check() == nil {
		t.Fatal("a byte past the end went unseen")
	}
	u := New[uint32](0)
	if err := u.Check(); err != nil {
		t.Fatal(err)
	}
}
