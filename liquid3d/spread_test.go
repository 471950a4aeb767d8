package liquid3d

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// packedTank is an 8 x 8 x 16 box of 2 mm cells whose bottom 4 cells hold particles at
// the seeded spacing (2 x 2 x 2 a cell) each of 1.5 times a seeded particle's volume:
// liquid packed 1.5 times, its volume standing 6 cells deep in the room it fills 4 deep.
func packedTank(t *testing.T, packing float64, workers int) *Sim {
	const n, h = 8, 2e-3
	set := DefaultSettings(n, n, 2*n, h)
	set.Packing, set.Workers = packing, workers
	s := newSim(t, set)
	var ps []Particle
	for k := range 8 {
		for j := range 2 * n {
			for i := range 2 * n {
				ps = append(ps, Particle{Pos: v3((float64(i)+0.5)*h/2, (float64(j)+0.5)*h/2, (float64(k)+0.5)*h/2), Volume: 1.5 * h * h * h / 8})
			}
		}
	}
	if err := s.AddParticles(ps); err != nil {
		t.Fatal(err)
	}
	return s
}

// topCells is meanTop in cells.
func topCells(s *Sim) float64 { return meanTop(s) / s.h }

// TestSpreadPacked: liquid packed 1.5 times (packedTank) spreads with the density
// correction until its volume stands about as deep as it is (6 cells: its top particle
// within the dead band, at least 6/1.1 - 0.5 cells and at most 6 + 0.5), and settles (the
// fastest particle under 1 cm/s after 2 s); without it, it stays packed (its top under
// 4.5 cells); the volume is the same bits all along, and the run the same bits with 1,
// 2 and 3 workers.
func TestSpreadPacked(t *testing.T) {
	t.Parallel()
	run := func(packing float64, workers int) *Sim {
		s := packedTank(t, packing, workers)
		v0 := s.Volume()
		packed := 0
		for s.Time() < 2-1e-9 {
			st := step(t, s, 1.0/60)
			packed = max(packed, st.Packed)
			if s.Volume() != v0 {
				t.Fatalf("packing %g: the volume %.17g, was %.17g", packing, s.Volume(), v0)
			}
		}
		t.Logf("packing %g, %d workers: the top particle %.3f cells up on average (the volume's level 6); the fastest %.3g m/s; at most %d cells packed a substep",
			packing, workers, topCells(s), s.MaxSpeed(), packed)
		return s
	}
	off := run(0, 2)
	if top := topCells(off); top > 4.5 {
		t.Errorf("without the correction the top particle stands %.3f cells up: the case is not packed", top)
	}
	on := run(1.1, 2)
	if top := topCells(on); top < 6/1.1-0.5 || top > 6.5 {
		t.Errorf("with the correction the top particle stands %.3f cells up, want %.2f to 6.5", top, 6/1.1-0.5)
	}
	if v := on.MaxSpeed(); v > 0.01 {
		t.Errorf("the fastest particle %.3g m/s after 2 s: not settling", v)
	}
	want := on.Particles(nil)
	for _, w := range []int{1, 3} {
		if got := run(1.1, w).Particles(nil); !slices.Equal(got, want) {
			t.Errorf("%d workers: the particles differ from 2 workers'", w)
		}
	}
}

// TestSpreadRestSameBits: a tank at rest at its seeded density runs the same bits with
// the correction as without (no cell is packed: the dead band), and the settings the
// correction takes are checked.
func TestSpreadRestSameBits(t *testing.T) {
	t.Parallel()
	const n, h = 12, 3e-3
	run := func(packing float64) []Particle {
		set := DefaultSettings(n, n, n, h)
		set.Packing = packing
		s := newSim(t, set)
		fillBox(t, s, v3(0, 0, 0), v3(n*h, n*h, 0.55*n*h), v3(0, 0, 0))
		for s.Time() < 0.5-1e-9 {
			if st := step(t, s, 1.0/60); st.Packed != 0 {
				t.Fatalf("packing %g: %d cells packed at rest", packing, st.Packed)
			}
		}
		return s.Particles(nil)
	}
	if !slices.Equal(run(0), run(1.1)) {
		t.Error("a tank at rest: the correction moved its particles")
	}
	for _, c := range []struct {
		packing, spread float64
		want            string
	}{{0.9, 0.5, "Packing is 0.9"}, {math.Inf(1), 0.5, "Packing is +Inf"}, {1.1, 0, "Spread is 0"}, {1.1, 1.5, "Spread is 1.5"}} {
		set := DefaultSettings(4, 4, 4, h)
		set.Packing, set.Spread = c.packing, c.spread
		if err := set.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("packing %g, spread %g: %v, want an error naming %q", c.packing, c.spread, err, c.want)
		}
	}
	set := DefaultSettings(4, 4, 4, h)
	set.Spread = 0 // unused without Packing
	if err := set.Validate(); err != nil {
		t.Errorf("no packing, spread 0: %v", err)
	}
}
