//go:build cgo

package hostkernels

import (
	"testing"
	"unsafe"

	"github.com/vpbench/vpbench/gpusim/kernels"
)

// TestArgLayout checks that the Go mirrors of the kernels' argument blocks have the C
// structs' size and field offsets: a mismatch would hand the kernels garbage.
func TestArgLayout(t *testing.T) {
	var s kernels.StepArgs
	var e kernels.EmitArgs
	var x kernels.ExtArgs
	var w kernels.SWEArgs
	for which, want := range [][7]uintptr{
		{unsafe.Sizeof(s), unsafe.Offsetof(s.Flips), unsafe.Offsetof(s.DtOverDx2d), unsafe.Offsetof(s.FullTol), unsafe.Offsetof(s.Ext), unsafe.Offsetof(s.Halt), unsafe.Offsetof(s.Step)},
		{unsafe.Sizeof(e), unsafe.Offsetof(e.Flips), unsafe.Offsetof(e.T), unsafe.Offsetof(e.FullTol), unsafe.Offsetof(e.Ext), unsafe.Offsetof(e.Halt), unsafe.Offsetof(e.Step)},
		{unsafe.Sizeof(x), unsafe.Offsetof(x.AxF), unsafe.Offsetof(x.DtOverDx2d), unsafe.Offsetof(x.Dxf), unsafe.Offsetof(x.NAxis), unsafe.Offsetof(x.Halt), unsafe.Offsetof(x.Step)},
		{unsafe.Sizeof(w), unsafe.Offsetof(w.Halt), unsafe.Offsetof(w.Invdx), unsafe.Offsetof(w.DryDepth), unsafe.Offsetof(w.N), unsafe.Offsetof(w.Step), unsafe.Offsetof(w.WantSpeed)},
	} {
		if got := Layout(which); got != want {
			t.Errorf("argument block %d: C size and offsets %v, Go %v", which, got, want)
		}
	}
}
