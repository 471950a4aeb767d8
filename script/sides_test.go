package script

import (
	"testing"

	"github.com/vpbench/vpbench/scene"
)

// TestSides: vp.sim's and sim:set's sides key (all four, or a table of some), sim:info's
// sides table and sim:stats' outflow: a pool against an open side drains and books what
// left as outflow; walls (the default) keep it.
func TestSides(t *testing.T) {
	s := mustLoad(t, "sides.lua", `local sim = vp.sim{ size = {0.01, 0.01}, height = 0.01, dx = 0.001, workers = 1, falling = "off" }
assert(sim:info().sides.minus_x == "walls" and sim:info().sides.plus_y == "walls")
sim:fill{ at = {0.005, 0.005, 0.001}, level = 0.003 }
local v0 = sim:volume()
sim:set{ sides = { plus_x = "open" } }
local i = sim:info()
assert(i.sides.plus_x == "open" and i.sides.minus_x == "walls" and i.sides.minus_y == "walls", "info sides")
function main()
  vp.wait(0.2)
  local st = sim:stats()
  assert(st.outflow > 0, "outflow " .. st.outflow)
  assert(math.abs(st.volume - (st.added - st.removed - st.outflow)) <= 1e-12 * st.added, "balance")
  sim:set{ sides = "walls" }
  local out = sim:stats().outflow
  vp.wait(0.1)
  assert(sim:stats().outflow == out, "walls again")
  sim:set{ sides = "open" }
  assert(sim:info().sides.minus_y == "open")
end
`, opts(nil))
	if err := runToEnd(t, s, 1000); err != nil {
		t.Fatal(err)
	}
	if got := s.Scene().Settings().Solver.Sides; got != [4]scene.Side{scene.SideOpen, scene.SideOpen, scene.SideOpen, scene.SideOpen} {
		t.Fatalf("sides after sim:set{ sides = \"open\" }: %v", got)
	}
	for _, tc := range []struct{ src, want string }{
		{`vp.sim{ sides = "leaky" }`, `vp.sim: sides is "leaky": want "walls", "open", or a table`},
		{`vp.sim{ sides = 1 }`, `vp.sim: sides is a number: want "walls", "open"`},
		{`vp.sim{ sides = { left = "open" } }`, `vp.sim: sides: unknown side "left"`},
		{`vp.sim{ sides = { plus_x = true } }`, `vp.sim: sides.plus_x is true: want "walls" or "open"`},
	} {
		_, err := LoadSource("case.lua", []byte(tc.src), opts(nil))
		wantError(t, err, "case.lua", 1, tc.want)
	}
}
