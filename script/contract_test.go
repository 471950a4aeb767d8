package script

import (
	"math"
	"strings"
	"testing"
)

// TestContract runs testdata/contract.lua, which exercises the whole scripting contract (docs/scripting.md)
// (terrain with an overhang, fill, source and sink with start, stop and set_rate, sim:set
// from sim:at, sim:every, main with vp.wait, the reads, print) and asserts in Lua.
func TestContract(t *testing.T) {
	log := &printLog{}
	o := opts(log)
	o.Params = map[string]string{"nu": "5e-6"}
	s, err := Load("testdata/contract.lua", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Name() != "contract.lua" {
		t.Errorf("Name() = %q", s.Name())
	}
	if got := s.Scene().SolverSettings().Viscosity; got != 5e-6 {
		t.Errorf("viscosity from vp.param = %g, want 5e-6", got)
	}
	if err := runToEnd(t, s, 1000); err != nil {
		t.Fatal(err)
	}
	out := log.text()
	t.Log(out)
	for _, want := range []string{"columns\t2", "main starts at\t0", "t=0.03", "everies=6 ", "false\ttestdata/contract.lua:68: sim:export_mesh: \"../out.obj\" leaves the working folder"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	st := s.Scene().SolverSettings()
	if st.Viscosity != 1e-5 || st.Damping != 0.4 {
		t.Errorf("settings after sim:set = %v", st)
	}
	added, removed, rejected := s.Scene().Accounting()
	if v := s.Scene().Volume(); math.Abs(v-(added-removed-rejected)) > 1e-12*added {
		t.Errorf("volume %g, accounting %g - %g - %g", v, added, removed, rejected)
	}
	if removed <= 0 {
		t.Errorf("the sink removed nothing")
	}
	// A scenario whose main has returned stays done and does not step.
	steps := s.Scene().Steps()
	if adv, err := s.Advance(10); !adv.Done || err != nil || s.Scene().Steps() != steps {
		t.Errorf("Advance after the end: adv.Done %v, err %v, steps %d -> %d", adv.Done, err, steps, s.Scene().Steps())
	}
	in := s.Info()
	if in.Nx != 20 || in.Ny != 20 || in.Layers != 3 || in.Backend != "cpu" || in.Workers != 1 || !in.HasMain {
		t.Errorf("Info = %+v", in)
	}
	if in.Dt <= 0 || in.Dt > in.StableDt || in.MemoryBytes == 0 || in.Columns < 400 || in.Pipes == 0 {
		t.Errorf("Info = %+v", in)
	}
}
