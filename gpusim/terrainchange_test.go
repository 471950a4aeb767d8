package gpusim

import (
	"math"
	"runtime"
	"testing"
	"weak"

	"github.com/vpbench/vpbench/terrain"
)

// boxInPool is a 40x40 pool at dx = 1 mm, 30 mm deep, with a 12x12 mm box whose bottom
// is at z0 (above the domain's top: no box). Cells under the box keep the space below it.
func boxInPool(t testing.TB, z0 float64) *terrain.Columns {
	const w = 0.040
	inBox := func(x, y float64) bool { return math.Abs(x-w/2) < 0.006 && math.Abs(y-w/2) < 0.006 }
	return layeredScene(t, 40, 40, 0.001, 0.03, 2, func(float64, float64) float64 { return 0 },
		[]slab{{z0, 0.05, func(x, y float64) bool { return !inBox(x, y) }}})
}

// TestBoxPushedIntoPool: a box pushed down into a pool step by step, between solver steps,
// raises the level around it and keeps the volume to float rounding.
func TestBoxPushedIntoPool(t *testing.T) {
	sim := newSim(t, boxInPool(t, 0.03), settings(0, 4e-6, 2))
	if _, err := sim.Fill(0.002, 0.002, 0.001, 0.010); err != nil {
		t.Fatal(err)
	}
	var s Snapshot
	level := func() float64 { // mean height of the pool's corner, far from the box
		sim.Snapshot(&s)
		c := sim.Columns()
		var sum float64
		n := 0
		for y := range 6 {
			for x := range 6 {
				lo, _ := c.Cell(x, y)
				sum += float64(s.Height[lo])
				n++
			}
		}
		return sum / float64(n)
	}
	l0 := level()
	for mm := 28; mm >= 2; mm-- {
		z := float64(mm) * 1e-3
		rej, err := sim.SetTerrain(boxInPool(t, z))
		if err != nil {
			t.Fatal(err)
		}
		if rej != 0 {
			t.Fatalf("box at %.0f mm: %g m^3 rejected, though the pool has room", z*1e3, rej)
		}
		stepChecked(t, sim, 10)
	}
	stepChecked(t, sim, 2000) // settle (8.6 s)
	l1 := level()
	sim.Snapshot(&s)
	// The box's 144 mm^2 footprint now holds 2 mm of liquid instead of 10 mm: 8 mm over
	// 144 of 1600 cells' area moved into the remaining 1456 mm^2.
	want := 0.010 + 0.008*144/1456
	t.Logf("level %.4f mm before, %.4f mm after (about %.4f expected); volume %.6g ml, added %.6g",
		l0*1e3, l1*1e3, want*1e3, s.Volume*1e6, s.Added*1e6)
	if math.Abs(l1-want) > 0.05e-3 {
		t.Errorf("level %.4f mm after pushing the box in, want %.4f mm", l1*1e3, want*1e3)
	}
	if d := math.Abs(s.Volume-s.Added) / s.Added; d > 1e-9 {
		t.Errorf("volume %.10g m^3, added %.10g: off by %.2g", s.Volume, s.Added, d)
	}
}

// TestSetTerrainErrors: a different grid is refused and nothing changes.
func TestSetTerrainErrors(t *testing.T) {
	sim := newSim(t, boxInPool(t, 0.03), settings(0, 4e-6, 1))
	if _, err := sim.Fill(0.002, 0.002, 0.001, 0.010); err != nil {
		t.Fatal(err)
	}
	before := sim.Volume()
	other := layeredScene(t, 30, 40, 0.001, 0.03, 1, func(float64, float64) float64 { return 0 }, nil)
	if _, err := sim.SetTerrain(other); err == nil {
		t.Fatal("a 30x40 terrain was accepted for a 40x40 simulation")
	}
	if _, err := sim.SetTerrain(nil); err == nil {
		t.Fatal("nil terrain accepted")
	}
	if v := sim.Volume(); v != before || sim.Columns().Nx != 40 {
		t.Fatalf("a refused terrain changed the simulation: volume %g -> %g", before, v)
	}
	sim.Step(5)
}

// TestTerrainChangeFreesOldBackend: the backend and topology a terrain change replaces
// are released (a cleanup registered per install once kept every one alive: 9.5 MB a
// change on the surgery grid).
func TestTerrainChangeFreesOldBackend(t *testing.T) {
	c := flatScene(t, 30, 30, 0.0005)
	sim := newSim(t, c, settings(0, 1e-6, 2))
	old := weak.Make(sim.topo)
	oldBe := weak.Make(sim.be.(*cpuBackend))
	for range 3 {
		if _, err := sim.SetTerrain(flatScene(t, 30, 30, 0.0005)); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		runtime.GC()
	}
	if old.Value() != nil || oldBe.Value() != nil {
		t.Errorf("the first terrain's topology (%v) or backend (%v) is still alive after three changes", old.Value() != nil, oldBe.Value() != nil)
	}
	runtime.KeepAlive(sim)
}
