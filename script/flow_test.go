package script

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestFlowMeterFromScript: sim:flow across a channel reads the pour once steady, its
// total goes on through a checkpoint to the same bits, and bad meters fail naming the
// field.
func TestFlowMeterFromScript(t *testing.T) {
	src := `local sim = vp.sim{ size = {0.06, 0.01}, height = 0.02, dx = 0.001, workers = 1, sides = { plus_x = "open" } }
sim:fill{ at = {0.01, 0.005, 0.0005}, level = 0.003 }
sim:source{ at = {0.002, 0.005, 0.001}, radius = 0.004, rate = 2e-6 }
local m = sim:flow{ from = {0.03, 0}, to = {0.03, 0.01} }
sim:every(0.5, function() print(string.format("%.6e %.9e", m:rate(), m:total())) end)
`
	log := &printLog{}
	a := mustLoad(t, "flow.lua", src, opts(log))
	steps := int64(math.Ceil(3 / a.Scene().Dt()))
	mid := steps / 2
	advanceTo(t, a, mid)
	var cp bytes.Buffer
	if err := a.WriteCheckpoint(&cp); err != nil {
		t.Fatal(err)
	}
	top := len(log.snapshot())
	advanceTo(t, a, steps)
	want := printsOnly(log.snapshot()[top:])
	q, _ := a.Scene().MeterRate(0)
	if math.Abs(q-2e-6) > 0.01*2e-6 {
		t.Errorf("steady, the meter reads %.4g ml/s, the source pours 2", q*1e6)
	}
	log2 := &printLog{}
	b := mustLoad(t, "flow.lua", src, opts(log2))
	if err := b.Resume(bytes.NewReader(cp.Bytes()), "flow.vpc"); err != nil {
		t.Fatal(err)
	}
	top = len(log2.snapshot())
	advanceTo(t, b, steps)
	if got := printsOnly(log2.snapshot()[top:]); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the meter's prints after the checkpoint differ:\nresumed:\n%s\nuninterrupted:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range []struct{ src, want string }{
		{`sim:flow{ from = {0.01, 0}, to = {0.01, 0} }`, "same point"},
		{`sim:flow{ from = {0.01, 0} }`, "to"},
		{`sim:flow{ from = {0.005, 0}, to = {0.005, 0.01}, zmin = 0.5, zmax = 0.6 }`, "no pipe"},
	} {
		_, err := LoadSource("f.lua", []byte(small+c.src+"\n"), opts(nil))
		wantError(t, err, "f.lua", 2, "sim:flow", c.want)
	}
}

// TestHeldLevelFromScript: sim:source{ level = z } holds a basin's liquid at z while a
// sink drains it; a falling source with a level, removes where it has no meaning, and
// source:set{ level } on a source made without one are errors naming them.
func TestHeldLevelFromScript(t *testing.T) {
	s := mustLoad(t, "held.lua", `local sim = vp.sim{ size = {0.04, 0.01}, height = 0.02, dx = 0.001, workers = 1 }
sim:source{ at = {0.003, 0.005, 0.0005}, radius = 0.003, rate = 3e-6, level = 0.004 }
sim:sink{ at = {0.037, 0.005, 0.0005}, radius = 0.002, rate = 1e-6 }
`, opts(nil))
	for s.Scene().Time() < 5 {
		if _, err := s.Advance(50); err != nil {
			t.Fatal(err)
		}
	}
	c := s.Scene().Columns()
	lo, _ := c.Cell(3, 5)
	if h := float64(s.Scene().LiveHeights(nil)[lo]); math.Abs(h-0.004) > 0.001 {
		t.Errorf("the held column stands at %.3f mm, the level is 4", h*1e3)
	}
	for _, c := range []struct{ src, want string }{
		{`sim:sink{ at = {0.005, 0.005, 0.001}, rate = 1e-6, level = 0.004, removes = true }`, "removes is for a source that holds a level"},
		{`sim:source{ at = {0.005, 0.005, 0.001}, rate = 1e-6, removes = false }`, "removes is for a source that holds a level (give level = z)"},
		{`sim:source{ at = {0.005, 0.005, 0.001}, rate = 1e-6, level = 0.004, removes = 1 }`, "removes"},
		{`local s = sim:source{ at = {0.005, 0.005, 0.001}, rate = 1e-6 }; s:set{ level = 0.003 }`, "made without a level"},
		{`local s = sim:source{ at = {0.005, 0.005, 0.001}, rate = 1e-6, level = 0.004 }; s:set{ level = 0/0 }`, "level"},
		{`local s = sim:source{ at = {0.005, 0.005, 0.001}, rate = 1e-6, level = 0.004 }; s:set{ lvl = 0.003 }`, "lvl"},
		{`sim:source{ at = {0.005, 0.005, 0.005}, rate = 1e-6, level = 0.004, falls = true }`, "not one that falls"},
	} {
		_, err := LoadSource("h.lua", []byte(small+c.src+"\n"), opts(nil))
		wantError(t, err, "h.lua", 2, c.want)
	}
}
