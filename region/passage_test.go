package region

// A region in a terrain with overhangs and roofs away from its box (docs/method.md,
// "The coupling to the columns"): the columns' extended pipes through a passage
// upstream, none reaching the held columns.

import (
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// passageBreak is damBreak's channel (60 columns of 1 cm; the gate's side 30 mm deep over
// cells 0 to 14, the rest 10 mm) with a roof 12 mm over the floor over cells 18 to 22
// (a passage the bore floods: the columns' extended pipes) and the region over cells
// 30 to 40, eight cells beyond the roof; it steps until `until`, the volume checked after
// every step, and returns the most extended pipes seen at once.
func passageBreak(t testing.TB, workers int, until float64) (*gpusim.Sim, *Region, int) {
	t.Helper()
	const dx, high = 0.01, 0.08
	cells := make([][]terrain.Interval, 60)
	for i := range cells {
		cells[i] = []terrain.Interval{{Min: 0, Base: 0, Max: high}}
		if i >= 18 && i <= 22 {
			cells[i] = []terrain.Interval{{Min: 0, Base: 0, Max: 0.012}, {Min: 0.016, Base: 0.016, Max: high}}
		}
	}
	c, err := terrain.FromIntervals(60, 1, dx, high, 2, cells)
	if err != nil {
		t.Fatal(err)
	}
	st := gpusim.DefaultSettings()
	st.Workers = workers
	sim := newSim(t, c, st)
	hs := make([]float32, c.NumColumns())
	for x := range 60 {
		lo, hi := c.Cell(x, 0)
		hs[lo] = 0.01
		if x < 15 {
			hs[lo] = 0.03
		}
		for k := lo + 1; k < hi; k++ {
			hs[k] = c.Base[k]
		}
	}
	if err := sim.SetHeights(hs); err != nil {
		t.Fatal(err)
	}
	g := newRegion(t, sim, Settings{X: 30, NX: 10, NY: 1, Refine: 2, NZ: 12, Workers: workers})
	most := 0
	stepChecked(t, g, until, func() { most = max(most, sim.Stats().Extended) })
	return sim, g, most
}

// TestPassageUpstream: a region three cells or more off a roof stands in a terrain with
// capped columns: the bore floods the passage under the roof (extended pipes carry it)
// and runs on through the region, the volume exact after every step; the same bits for
// 1 and 2 workers.
func TestPassageUpstream(t *testing.T) {
	s1, g1, most := passageBreak(t, 1, 1.5)
	in := g1.Liquid().Inflow()
	_, out := g1.Liquid().Accounting()
	t.Logf("%.3g s: at most %d extended pipes; the region took in %.3g m^3 and let out %.3g", s1.Time(), most, in, out)
	if most == 0 || !(in > 1e-6) || !(out > 1e-6) {
		t.Errorf("extended pipes %d, in %.3g m^3, out %.3g: the bore did not run through the passage and the region", most, in, out)
	}
	s2, g2, _ := passageBreak(t, 2, 1.5)
	checkSameBits(t, s1, g1, s2, g2)
}
