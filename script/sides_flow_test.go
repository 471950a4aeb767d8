package script

// Issue 41 from Lua: a river off an open side, a held level both ways changed mid-run
// (source:set), a fill that starts moving (sim:fill{ velocity }), and a floating body
// that leaves through an open side (a warning, sim:stats().bodies_left).

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// creek is a flat channel 60 x 20 mm (dx 1 mm) filled 6 mm deep moving at 0.1 m/s along
// +x, fed at its -x end by a source that holds the level at 7 mm (both ways), and a cork
// (density 240) let go at x = 20 mm. SIDE is the +x side: "open" or "walls".
const creek = `local sim = vp.sim{ size = {0.06, 0.02}, height = 0.03, dx = 0.001, workers = 1,
  viscosity = 1e-6, sides = { plus_x = "SIDE" } }
local v = sim:fill{ at = {0.03, 0.01, 0.001}, level = 0.006, velocity = {0.1, 0} }
local inlet = sim:source{ at = {0.0015, 0.01, 0.001}, radius = 0.0015, rate = 2e-5, level = 0.007 }
local cork = sim:body{ solid = vp.box{ min = {-0.003, -0.003, -0.002}, max = {0.003, 0.003, 0.002} },
  density = 240, at = {0.02, 0.01, 0.008} }
sim:at(0.05, function()
  local vx, vy = sim:velocity(0.03, 0.01)
  print(string.format("moving %.6f %.6f", vx, vy))
end)
sim:at(2.5, function() inlet:set{ level = 0.005 } end)
sim:every(0.5, function()
  local st = sim:stats()
  local x = -1
  if #sim:bodies() > 0 then x = cork:position() end
  print(string.format("t %.2f bodies %d left %d x %.6f out %.6g removed %.6g", sim:time(), st.bodies, st.bodies_left, x, st.outflow, st.removed))
end)
`

// TestCreekOffOpenSide: with the +x side open, the creek runs off it (outflow), the cork
// is carried along and leaves through it (removed, a warning naming the body and the side,
// sim:stats().bodies = 0 and bodies_left = 1) while with a wall there it stays in the
// domain. The fill starts the water at 0.1 m/s (sim:velocity reads it at 0.05 s), and
// when the inlet's level is lowered to 5 mm (source:set{ level }) at 2.5 s the inlet
// takes water out (removed grows) with the side walled. The volume balance holds.
func TestCreekOffOpenSide(t *testing.T) {
	for _, side := range []string{"open", "walls"} {
		t.Run(side, func(t *testing.T) {
			var log printLog
			s := mustLoad(t, "creek.lua", strings.Replace(creek, "SIDE", side, 1), opts(&log))
			var removedAt25 float64
			for s.Scene().Time() < 4 {
				if _, err := s.Advance(20); err != nil {
					t.Fatal(err)
				}
				if st := s.Scene().Stats(); st.Time < 2.5 {
					removedAt25 = st.Removed
				}
			}
			out := log.text()
			t.Logf("%s:\n%s", side, out)
			var vx, vy float64
			if _, err := fmt.Sscanf(out[strings.Index(out, "moving"):], "moving %g %g", &vx, &vy); err != nil {
				t.Fatalf("no velocity line: %v", err)
			}
			if !(vx > 0.05) || math.Abs(vy) > 0.1*vx {
				t.Errorf("the filled water moves at (%g, %g) m/s at 0.05 s: it should run along +x near 0.1", vx, vy)
			}
			st := s.Scene().Stats()
			if e := math.Abs(st.Volume - (st.Added - st.Removed - st.Outflow)); e > 1e-12*st.Added {
				t.Errorf("volume %g, added %g - removed %g - outflow %g: off by %g", st.Volume, st.Added, st.Removed, st.Outflow, e)
			}
			left := s.Scene().BodiesLeft()
			warned := strings.Contains(out, "warning: body 1 left the domain through the open plus_x side")
			switch side {
			case "open":
				if st.Outflow <= 0 || left != 1 || s.Scene().BodyCount() != 0 || !warned {
					t.Errorf("open: outflow %g, %d bodies left, %d in the world, warned %v", st.Outflow, left, s.Scene().BodyCount(), warned)
				}
			case "walls":
				b := s.Scene().Bodies()
				if left != 0 || len(b) != 1 || warned || st.Outflow != 0 {
					t.Fatalf("walls: %d bodies left, %d in the world, warned %v, outflow %g", left, len(b), warned, st.Outflow)
				}
				if x, _, _ := b[0].Position(); x > 0.06 {
					t.Errorf("walls: the cork is at x = %g m, beyond the wall at 0.06", x)
				}
				if st.Removed <= removedAt25 {
					t.Errorf("walls: the inlet lowered to 5 mm removed nothing (removed %g, %g before)", st.Removed, removedAt25)
				}
			}
		})
	}
}
