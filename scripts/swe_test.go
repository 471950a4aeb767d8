package scripts_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/scripts"
)

// TestLibrarySWE: every scenario of the library runs with the shallow water equations
// (--method swe, over what the script says), its callbacks and all: for 0.5 s of
// simulated time (0.2 s with -short), every height within its column's bounds after every
// chunk of steps and the volume equal to added - removed - outflow to 1e-9 relative (the
// run's checks), the solver running the SWE with substeps.
func TestLibrarySWE(t *testing.T) {
	names, err := fs.Glob(scripts.FS, "*.lua")
	if err != nil {
		t.Fatal(err)
	}
	until := 0.5
	if testing.Short() {
		until = 0.2
	}
	for _, name := range names {
		t.Run(strings.TrimSuffix(name, ".lua"), func(t *testing.T) {
			r := loadMethod(t, name, nil, "swe")
			r.advance(until, nil)
			st := r.sim().Stats()
			if got := r.sim().Settings().Method; got != gpusim.MethodSWE || (st.Substeps < st.Steps && st.Volume > 0) {
				t.Fatalf("method %v, %d substeps for %d steps", got, st.Substeps, st.Steps)
			}
			t.Logf("%.2f substeps a step", float64(st.Substeps)/float64(max(st.Steps, 1)))
		})
	}
}
