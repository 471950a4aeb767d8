package kernels

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestArgsLayout checks the Go structs of args_gen.go against ArgLayouts, the C layout
// argsgen computed from vp_args.h: size, and each field's name, type, offset and size.
// gpusim/internal/hostkernels' TestArgLayout checks the C compiler against the same table
// (with cgo); this needs none. (internal/argsgen's TestArgsGenUpToDate checks that the
// generated files are vp_args.h's.)
func TestArgsLayout(t *testing.T) {
	if len(ArgLayouts) == 0 {
		t.Fatal("no argument blocks in ArgLayouts")
	}
	var names []string
	for _, l := range ArgLayouts {
		names = append(names, l.Go)
		typ := reflect.TypeOf(l.Value)
		if typ.Name() != l.Go || typ.Kind() != reflect.Struct {
			t.Errorf("%s: its Value is a %v", l.C, typ)
			continue
		}
		if typ.Size() != l.Size {
			t.Errorf("%s: Go size %d, C %d", l.Go, typ.Size(), l.Size)
		}
		if typ.NumField() != len(l.Fields) {
			t.Errorf("%s: %d Go fields, %d C fields", l.Go, typ.NumField(), len(l.Fields))
			continue
		}
		for i, f := range l.Fields {
			sf := typ.Field(i)
			if sf.Name != f.Go || sf.Type.String() != f.GoType || sf.Offset != f.Offset || sf.Type.Size() != f.Size {
				t.Errorf("%s field %d: Go %s %v at %d (%d bytes), C %s %s (%s) at %d (%d bytes)",
					l.Go, i, sf.Name, sf.Type, sf.Offset, sf.Type.Size(), f.CType, f.C, f.Go, f.Offset, f.Size)
			}
			if strings.HasSuffix(f.CType, "*") && (f.GoType != "uint64" || f.Size != 8) {
				t.Errorf("%s.%s: a C %s as a Go %s", l.Go, f.Go, f.CType, f.GoType)
			}
		}
	}
	for k := range NumKernels {
		if !slices.Contains(names, k.Args()) {
			t.Errorf("kernel %s takes %s, not an argument block of vp_args.h", Names[k], k.Args())
		}
	}
}
