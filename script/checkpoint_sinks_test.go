package script

import (
	"math"
	"os"
	"slices"
	"testing"
)

// sinksScript adds a sink in the set-up and another in a callback at 0.01 s, which
// stops the first for good, and saves a checkpoint at 0.02 s.
const sinksScript = `
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, layers = 1 }
sim:terrain(vp.box{ min = {0, 0, 0}, max = {0.02, 0.02, 0.002} })
local first = sim:sink{ at = {0.005, 0.005, 0.003}, radius = 0.002, rate = 1e-9 }
sim:at(0.01, function()
  sim:sink{ at = {0.015, 0.015, 0.003}, radius = 0.003, rate = 1e-9 }
  first:stop()
end)
sim:at(0.02, function() sim:save("cp/sinks.vpc") end)
`

// TestCheckpointKeepsSinks: the sinks' marks (scene.Scene.Sinks) of a resumed run are
// the uninterrupted run's: the sink a callback added is marked, the one it stopped is
// not, though the set-up that the resume runs again adds it.
func TestCheckpointKeepsSinks(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("sinks.lua", []byte(sinksScript), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Load("sinks.lua", opts(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	advanceTo(t, a, int64(math.Ceil(0.03/a.Scene().Dt())))
	want := slices.Clone(a.Scene().Sinks())
	if len(want) != 1 || want[0].X != 0.015 || want[0].Radius != 0.003 {
		t.Fatalf("the uninterrupted run's marks: %+v, want the callback's sink only", want)
	}
	b, err := Load("sinks.lua", opts(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := b.Scene().Sinks(); len(got) != 1 || got[0].X != 0.005 {
		t.Fatalf("after the set-up: marks %+v, want the set-up's sink", got)
	}
	if err := b.ResumeFile("cp/sinks.vpc"); err != nil {
		t.Fatal(err)
	}
	if got := b.Scene().Sinks(); !slices.Equal(got, want) {
		t.Errorf("resumed: marks %+v, want %+v", got, want)
	}
}
