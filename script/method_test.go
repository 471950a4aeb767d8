package script

import (
	"strings"
	"testing"

	"github.com/vpbench/vpbench/scene"
)

// TestMethodFromScript: vp.sim{ method = "swe" } runs the shallow water equations (with
// substeps) and sim:info() says so; sim:set{ method = ... } changes it mid-run with the
// liquid kept; Options.Method (--method) overrides both; bad values are errors naming
// the field.
func TestMethodFromScript(t *testing.T) {
	src := `local sim = vp.sim{ size = {0.04, 0.01}, height = 0.02, dx = 0.001, workers = 1, method = "swe" }
sim:fill{ at = {0.005, 0.005, 0.0005}, level = 0.004 }
print(sim:info().method)
sim:at(0.05, function() sim:set{ method = "pipes" }; print(sim:info().method) end)
`
	log := &printLog{}
	s := mustLoad(t, "m.lua", src, opts(log))
	sim := s.Scene()
	if sim.SolverSettings().Method != scene.MethodSWE {
		t.Fatalf("method %v, want swe", sim.SolverSettings().Method)
	}
	v0 := sim.Volume()
	advanceTo(t, s, 10)
	if st := sim.Stats(); st.Substeps < 10 {
		t.Errorf("%d substeps for 10 steps", st.Substeps)
	}
	advanceTo(t, s, 40)
	sim = s.Scene()
	if sim.SolverSettings().Method != scene.MethodPipes || sim.Volume()-v0 > 1e-15 || v0-sim.Volume() > 1e-15 {
		t.Errorf("after sim:set: method %v, volume %g (was %g)", sim.SolverSettings().Method, sim.Volume(), v0)
	}
	if got := strings.Join(printsOnly(log.snapshot()), " "); got != "swe pipes" {
		t.Errorf("prints %q, want \"swe pipes\"", got)
	}

	o := opts(nil)
	o.Method = "swe"
	over := mustLoad(t, "o.lua", small+`sim:set{ method = "pipes" }`+"\n", o)
	if m := over.Scene().SolverSettings().Method; m != scene.MethodSWE {
		t.Errorf("--method swe over the script's pipes: %v", m)
	}
	o.Method = "lattice"
	if _, err := LoadSource("o.lua", []byte(small), o); err == nil || !strings.Contains(err.Error(), `method "lattice"`) {
		t.Errorf("a bad --method: %v", err)
	}

	_, err := LoadSource("b.lua", []byte(`local sim = vp.sim{ size = {0.01, 0.01}, height = 0.01, dx = 0.001, method = "sph" }`+"\n"), opts(nil))
	wantError(t, err, "b.lua", 1, "vp.sim", "method", "pipes", "swe")
}

// TestNamesIgnoreCase: a script's named choices read in any case and come back in the
// table's lower case ("SWE" is "swe"); a name that is none is still an error listing them.
func TestNamesIgnoreCase(t *testing.T) {
	src := `local sim = vp.sim{ size = {0.02, 0.01}, height = 0.02, dx = 0.001, workers = 1, method = "SWE",
  capillarity = "ON", falling = "Off" }
print(sim:info().method)
`
	log := &printLog{}
	s := mustLoad(t, "c.lua", src, opts(log))
	defer s.Close()
	if m := s.Scene().SolverSettings().Method; m != scene.MethodSWE || !strings.Contains(log.text(), "swe") {
		t.Errorf("method %v, printed %q: want swe", m, log.text())
	}
	if !s.Scene().Settings().Capillarity {
		t.Error(`capillarity = "ON" did not turn it on`)
	}
	_, err := LoadSource("bad.lua", []byte(`vp.sim{ size = {0.02, 0.01}, dx = 0.001, method = "sw" }`), opts(&printLog{}))
	if err == nil || !strings.Contains(err.Error(), `"pipes", "swe"`) {
		t.Errorf("method = \"sw\": error %v, want one listing the names", err)
	}
}
