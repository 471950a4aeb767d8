package engine

import (
	"testing"

	"github.com/vpbench/vpbench/script"
)

// TestSurfacePrepIsLeftOut checks that the frame work reports the one-time surface
// preparation (terrain mesh, minimum heights) on the first frame only, so that the run
// leaves it out of Table 1's surface and total columns.
func TestSurfacePrepIsLeftOut(t *testing.T) {
	sc, err := script.LoadSource("small.lua", []byte(small), script.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	f := frameWork{surface: true}
	for frame := 1; frame <= 3; frame++ {
		if _, err := sc.Advance(1); err != nil {
			t.Fatal(err)
		}
		d, err := f.do(sc.Scene(), frame)
		if err != nil {
			t.Fatal(err)
		}
		if d <= 0 {
			t.Errorf("frame %d: no surface time", frame)
		}
		if (f.prep > 0) != (frame == 1) {
			t.Errorf("frame %d: prep %v: want it on the first frame only", frame, f.prep)
		}
	}
}
