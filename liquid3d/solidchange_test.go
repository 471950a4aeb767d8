package liquid3d

import (
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// TestSetSolid: a block rising from the floor of a box half full of water (SetSolid, as
// a terrain change between steps) moves the liquid it covers to the top of its column:
// every particle the block covers is moved and none is left inside it (by the block's
// own distance, within a tenth of a cell), none is lost (the volume the same bits), the
// liquid over the block stands its volume higher, and as that mound spreads the surface
// beside the block rises and the run settles; taking the block away again leaves the
// particles where they are. The rise beside the block is 0.7 of the block's volume over
// the box's area after 3 s, where it would be all of it: the particles bunch as the
// mound collapses (no density correction: docs/method.md, "The 3D region").
func TestSetSolid(t *testing.T) {
	const n, h = 16, 2e-3
	s := newSim(t, DefaultSettings(n, n, n, h))
	fillBox(t, s, v3(0, 0, 0), v3(n*h, n*h, n*h/2), v3(0, 0, 0))
	for range 6 {
		step(t, s, 1.0/120)
	}
	beside := func() float64 { // the mean top particle over the columns clear of the block, m
		tops := surfaceTops(s)
		sum, m := 0.0, 0
		for j := range n {
			for i := range n {
				if i < 4 || i >= 12 || j < 4 || j >= 12 {
					sum += tops[i+n*j]
					m++
				}
			}
		}
		return sum / float64(m)
	}
	v0, np, l0 := s.Volume(), s.Count(), beside()
	block, err := terrain.Box(v3(4*h, 4*h, -h), v3(12*h, 12*h, 6*h)) // 8 x 8 cells, 6 high, under the surface at 8
	if err != nil {
		t.Fatal(err)
	}
	moved, crowded := s.SetSolid(block)
	ps := s.Particles(nil)
	inside, deepest := 0, 0.0
	for _, p := range ps {
		if d := block.Dist(p.Pos); d < -0.1*h {
			inside++
			deepest = min(deepest, d)
		}
	}
	mound := surfaceTops(s)[8+n*8]
	t.Logf("moved %d of %d particles (%d against the lid); %d more than a tenth of a cell inside the block (deepest %.3g cells); the top particle over the block's middle at %.3f cells, beside it %.3f",
		moved, np, crowded, inside, -deepest/h, mound/h, l0/h)
	if moved != 8*6*64 || crowded != 0 || inside != 0 {
		t.Errorf("moved %d (want the 3,072 particles of the block's 6 x 64 cells), %d against the lid, %d particles left inside the block", moved, crowded, inside)
	}
	if d := mound - l0; d < 5.9*h || d > 6.1*h {
		t.Errorf("the liquid over the block stands %.3f cells above that beside it, want the block's 6", d/h)
	}
	if s.Volume() != v0 || s.Count() != np {
		t.Errorf("the volume %.17g in %d particles, was %.17g in %d", s.Volume(), s.Count(), v0, np)
	}
	var fast1 float64
	for s.Time() < 3 {
		step(t, s, 1.0/120)
		if fast1 == 0 && s.Time() >= 1 {
			fast1 = s.MaxSpeed()
		}
	}
	checkVolume(t, s)
	rise, full := beside()-l0, 6.0*64/float64(n*n)*h // the block's volume over the box's area: 1.5 cells
	t.Logf("after 3 s: the surface beside the block rose %.3f cells (%.2f of %.2f); the fastest particle %.3g m/s (%.3g at 1 s)", rise/h, rise/full, full/h, s.MaxSpeed(), fast1)
	if rise < 0.5*full || rise > full+0.25*h {
		t.Errorf("the surface beside the block rose %.3f cells, want between half of %.2f and a quarter cell more", rise/h, full/h)
	}
	if v := s.MaxSpeed(); v > 0.05 || v > fast1 {
		t.Errorf("the fastest particle moves at %.3g m/s after 3 s (%.3g at 1 s): not settling", v, fast1)
	}
	before := s.Particles(nil)
	if m, _ := s.SetSolid(nil); m != 0 {
		t.Errorf("taking the solid away moved %d particles", m)
	}
	for i, p := range s.Particles(nil) {
		if p != before[i] {
			t.Fatalf("particle %d moved when the solid went away", i)
		}
	}
}
