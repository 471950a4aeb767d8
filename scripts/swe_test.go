package scripts_test

import (
	"fmt"
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
			st := r.scene().Stats()
			if got := r.scene().SolverSettings().Method; got != gpusim.MethodSWE || (st.Substeps < st.Steps && st.Volume > 0) {
				t.Fatalf("method %v, %d substeps for %d steps", got, st.Substeps, st.Steps)
			}
			t.Logf("%.2f substeps a step", float64(st.Substeps)/float64(max(st.Steps, 1)))
		})
	}
}

// TestDamBreak: dambreak.lua's front, as the script prints it, follows Ritter's to 15%
// with water's viscosity (it slows the thin tip) and to 5% inviscid 0.15 s after the gate
// lifts; the pipes' front lags Ritter's by more than half (no momentum, waves at
// sqrt(g dx)). The volume is exact through the gate's lifting (a terrain change mid-run).
func TestDamBreak(t *testing.T) {
	for _, tc := range []struct {
		params   map[string]string
		lo, hi   float64 // the front over Ritter's at 0.15 s
		wantSubs bool
	}{
		{nil, 0.85, 1.05, true},
		{map[string]string{"viscosity": "0"}, 0.95, 1.05, true},
		{map[string]string{"method": "pipes"}, 0, 0.5, false},
	} {
		r := load(t, "dambreak.lua", tc.params)
		r.advance(0.36, nil)
		var front, ritter, since float64
		found := false
		for _, l := range r.out {
			var m string
			if n, _ := fmt.Sscanf(l, "t = %g s after the gate: front %g mm from it, Ritter %g mm (%s)", &since, &front, &ritter, &m); n == 4 && since > 0.14 && since < 0.16 {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("%v: no front printed at 0.15 s after the gate:\n%s", tc.params, strings.Join(r.out, "\n"))
		}
		ratio := front / ritter
		t.Logf("%v: front %.0f mm, Ritter %.0f mm (%.2f)", tc.params, front, ritter, ratio)
		if ratio < tc.lo || ratio > tc.hi {
			t.Errorf("%v: the front is %.2f of Ritter's, want %.2f to %.2f", tc.params, ratio, tc.lo, tc.hi)
		}
		if st := r.scene().Stats(); (st.Substeps > 0) != tc.wantSubs {
			t.Errorf("%v: %d substeps", tc.params, st.Substeps)
		}
	}
}
