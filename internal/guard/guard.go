// Package guard checks that an assembly kernel writes its output and nothing beside it,
// in the style of gonum's assembly tests: the output slice is cut from a longer buffer
// whose guard zones, Len elements before and after it, hold a sentinel NaN pattern; the
// kernel runs on the interior, then Check says whether a guard changed. The tests compare
// the interior with the kernel's Go twin bit for bit (docs/kernels.md). Only tests use it.
package guard

import (
	"fmt"
	"unsafe"
)

// Len is the guard elements on each side of an output: two AVX2 vectors of float32, so
// that a whole vector stored before or past either end lands in a guard.
const Len = 16

// Sentinels: NaNs with a payload no arithmetic makes (a quiet NaN's payload would
// survive a copy, but an operation gives the default NaN); bytes 0xa5.
const (
	sentinel32 = 0x7fa5a5a5
	sentinel64 = 0x7ff5a5a5a5a5a5a5
	sentinel8  = 0xa5
	sentinel16 = 0xa5a5
)

// Elem is an element type of a kernel's output.
type Elem interface {
	~float32 | ~float64 | ~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64
}

// Slice is an output of n elements (Out, of capacity n) between two guard zones.
type Slice[T Elem] struct {
	buf []T
	// Out is the output: the kernel's to write.
	Out []T
}

// New returns an output of n elements, every element (the output's and the guards')
// the sentinel.
func New[T Elem](n int) Slice[T] {
	buf := make([]T, n+2*Len)
	for i := range buf {
		setSentinel(&buf[i])
	}
	return Slice[T]{buf: buf, Out: buf[Len : Len+n : Len+n]}
}

// From returns an output that holds a copy of src (an argument the kernel reads and
// writes), between sentinel guards.
func From[T Elem](src []T) Slice[T] {
	s := New[T](len(src))
	copy(s.Out, src)
	return s
}

// Check returns nil if every guard element still holds the sentinel, else an error that
// names the first that does not (before or past the output, and how far).
func (s Slice[T]) Check() error {
	n := len(s.buf) - 2*Len
	for i := range s.buf {
		if i >= Len && i < Len+n {
			continue
		}
		if !isSentinel(&s.buf[i]) {
			if i < Len {
				return fmt.Errorf("guard %d elements before the output (of %d) was written: %v", Len-i, n, s.buf[i])
			}
			return fmt.Errorf("guard %d elements past the output's end (of %d) was written: %v", i-Len-n+1, n, s.buf[i])
		}
	}
	return nil
}

func setSentinel[T Elem](p *T) {
	switch unsafe.Sizeof(*p) {
	case 1:
		*(*uint8)(unsafe.Pointer(p)) = sentinel8
	case 2:
		*(*uint16)(unsafe.Pointer(p)) = sentinel16
	case 4:
		*(*uint32)(unsafe.Pointer(p)) = sentinel32
	case 8:
		*(*uint64)(unsafe.Pointer(p)) = sentinel64
	}
}

func isSentinel[T Elem](p *T) bool {
	switch unsafe.Sizeof(*p) {
	case 1:
		return *(*uint8)(unsafe.Pointer(p)) == sentinel8
	case 2:
		return *(*uint16)(unsafe.Pointer(p)) == sentinel16
	case 4:
		return *(*uint32)(unsafe.Pointer(p)) == sentinel32
	default:
		return *(*uint64)(unsafe.Pointer(p)) == sentinel64
	}
}
