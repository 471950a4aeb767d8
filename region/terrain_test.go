package region

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// terrainTank is TestRest's tank filled to 6 mm with its region, stepped 12 times.
func terrainTank(t *testing.T) (*gpusim.Sim, *Region) {
	t.Helper()
	c := flat(t, 16, 8, 4e-3, 0.048)
	st := gpusim.DefaultSettings()
	st.Workers = 2
	sim := newColumns(t, c, st, 0.006)
	g := newRegion(t, sim, Settings{X: 5, Y: 2, NX: 6, NY: 4, Refine: 2, NZ: 24, Workers: 2})
	for range 12 {
		step(t, g)
	}
	return sim, g
}

// tankTerrain is the tank's terrain with the floor raised to base over the cells
// [x0, x1) x [y0, y1) (and a second column in cell two, when given).
func tankTerrain(t *testing.T, x0, y0, x1, y1 int, base float32, two []int) *terrain.Columns {
	t.Helper()
	cells := make([][]terrain.Interval, 16*8)
	layers := 1
	for k := range cells {
		x, y := k%16, k/16
		b := float32(0)
		if x >= x0 && x < x1 && y >= y0 && y < y1 {
			b = base
		}
		cells[k] = []terrain.Interval{{Min: 0, Base: b, Max: 0.048}}
		if two != nil && x == two[0] && y == two[1] {
			cells[k] = []terrain.Interval{{Min: 0, Base: 0, Max: 0.002}, {Min: 0.004, Base: 0.004, Max: 0.048}}
			layers = 2
		}
	}
	c, err := terrain.FromIntervals(16, 8, 4e-3, 0.048, layers, cells)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTerrainChange: the terrain changes under and beside a region in a tank at rest
// (SetTerrain). The same terrain again changes nothing (the same bits over 0.5 s as a
// twin run without the change). A block 2 mm high rising under the box, and a column
// beside the box's -x side filled with solid to a millimetre under the top (its liquid
// finds no room above and goes beside it, part into the held columns): the volume is
// the books' to 1e-9 after the change and after every step of 1 s on, no particle lies
// in the block, the held columns stand on their new floors, the liquid displaced into
// the held columns is in the region, and the run stays bounded. A terrain where a held
// cell holds two columns is refused and nothing changes.
func TestTerrainChange(t *testing.T) {
	const dx = 4e-3
	sim, g := terrainTank(t)
	twinSim, twin := terrainTank(t)
	same := tankTerrain(t, 0, 0, 0, 0, 0, nil)
	if err := g.SetTerrain(same, nil, func() error { _, err := sim.SetTerrain(same); return err }); err != nil {
		t.Fatal(err)
	}
	for sim.Time() < 0.5 {
		step(t, g)
		step(t, twin)
	}
	if !slices.Equal(g.Liquid().Particles(nil), twin.Liquid().Particles(nil)) || !slices.Equal(sim.Heights(nil), twinSim.Heights(nil)) {
		t.Error("the same terrain again changed the run")
	}

	bad := tankTerrain(t, 0, 0, 0, 0, 0, []int{7, 3})
	np, cols := g.Liquid().Count(), sim.Columns()
	if err := g.SetTerrain(bad, nil, func() error { _, err := sim.SetTerrain(bad); return err }); err == nil || !strings.Contains(err.Error(), "holds 2 columns") {
		t.Errorf("a held cell with two columns: %v", err)
	}
	if g.Liquid().Count() != np || sim.Columns() != cols {
		t.Error("refused, yet the region or the columns changed")
	}

	block, err := terrain.Box(terrain.Vec3{X: 6 * dx, Y: 3 * dx, Z: -dx}, terrain.Vec3{X: 8 * dx, Y: 5 * dx, Z: 0.002})
	if err != nil {
		t.Fatal(err)
	}
	nw := tankTerrain(t, 6, 3, 8, 5, 0.002, nil)
	cells := make([][]terrain.Interval, 16*8) // and cell (4, 3), beside the box, solid to 47 mm
	for k := range cells {
		lo, _ := nw.Cell(k%16, k/16)
		cells[k] = []terrain.Interval{{Min: 0, Base: nw.Base[lo], Max: 0.048}}
	}
	cells[4+16*3][0].Base = 0.047
	nw, err = terrain.FromIntervals(16, 8, dx, 0.048, 1, cells)
	if err != nil {
		t.Fatal(err)
	}
	inBefore := g.Liquid().Volume()
	if err := g.SetTerrain(nw, block, func() error { _, err := sim.SetTerrain(nw); return err }); err != nil {
		t.Fatal(err)
	}
	checkVolume(t, g, "after the change")
	took := g.Liquid().Volume() - inBefore
	h := dx / float64(g.set.Refine)
	inside := 0
	for _, p := range g.Liquid().Particles(nil) {
		if block.Dist(p.Pos) < -0.1*h {
			inside++
		}
	}
	for k, col := range g.held {
		if g.heights[k] < float64(nw.Base[col]) {
			t.Errorf("held column %d stands at %g m, under its new floor %g", col, g.heights[k], nw.Base[col])
		}
	}
	t.Logf("the change put %.4g m^3 into the region (the liquid displaced into the held columns); %d particles inside the block", took, inside)
	if inside != 0 {
		t.Errorf("%d particles inside the block after the change", inside)
	}
	if !(took > 0) {
		t.Errorf("the region took %g m^3: the liquid displaced into the held columns is not in it", took)
	}
	worst := 0.0
	for sim.Time() < 1.5 {
		step(t, g)
		worst = max(worst, math.Abs(checkVolume(t, g, "stepped after the change")))
	}
	t.Logf("1 s on: the fastest particle %.3g m/s; volume within %.3g", g.Liquid().MaxSpeed(), worst)
	if v := g.Liquid().MaxSpeed(); !(v < 0.5) {
		t.Errorf("the fastest particle moves at %.3g m/s 1 s after the change", v)
	}
}
