//go:build cgo

package hostkernels

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/vpbench/vpbench/gpusim/kernels"
)

// TestArgLayout checks that the kernels' argument blocks have the same size and every
// field the same offset and size in Go (the structs argsgen generates from vp_args.h) as
// the C compiler gives them (vp_args_layout.h): a mismatch would hand the kernels
// garbage. (gpusim/kernels' TestArgsLayout checks the Go structs against argsgen's own
// layout, kernels.ArgLayouts, without cgo.)
func TestArgLayout(t *testing.T) {
	var want []uintptr
	var what []string
	for _, l := range kernels.ArgLayouts {
		typ := reflect.TypeOf(l.Value)
		if typ.Kind() != reflect.Struct || typ.NumField() != len(l.Fields) {
			t.Fatalf("%s: Go %v, with %d fields in kernels.ArgLayouts: run go generate ./gpusim/kernels/", l.C, typ, len(l.Fields))
		}
		want = append(want, typ.Size())
		what = append(what, fmt.Sprintf("sizeof(%s)", l.C))
		for i, f := range l.Fields {
			sf := typ.Field(i)
			want = append(want, sf.Offset, sf.Type.Size())
			what = append(what, fmt.Sprintf("offsetof(%s, %s) (Go %s.%s)", l.C, f.C, l.Go, sf.Name),
				fmt.Sprintf("sizeof(%s.%s) (Go %s.%s)", l.C, f.C, l.Go, sf.Name))
		}
	}
	got := Layout()
	if len(got) != len(want) {
		t.Fatalf("vp_args_layout.h has %d entries, the Go structs %d: run go generate ./gpusim/kernels/", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: C %d, Go %d", what[i], got[i], want[i])
		}
	}
}
