package gpusim

import (
	"math"
	"testing"
)

// TestDenseLayoutMatchesGeneral runs a single-layer scene with the dense layout and with
// the general one and requires the same bits: both layouts share the element arithmetic
// and sum each column's pipes in the same order.
func TestDenseLayoutMatchesGeneral(t *testing.T) {
	t.Parallel()
	for _, film := range []bool{false, true} {
		run := func(general bool) (*Sim, []float32, []float32) {
			c := inclineScene(t, 37, 23, 0.0005, 8*math.Pi/180)
			s := settings(0.003, 4e-6, 2)
			if film {
				s.CrossSection = CrossFilm
			}
			sim := newSimWith(t, c, s, backendOptions{general: general})
			if got := sim.be.(*cpuBackend).dense != nil; got == general {
				t.Fatalf("general=%v: dense layout in use = %v", general, got)
			}
			if _, err := sim.AddEmitter(Emitter{X: 0.015, Y: 0.005, Z: 0.05, Radius: 0.002, Rate: 2e-6}); err != nil {
				t.Fatal(err)
			}
			if _, err := sim.AddEmitter(Emitter{X: 0.002, Y: 0.008, Z: 0.05, Radius: 0.001, Rate: -1e-6, Start: 0.2}); err != nil {
				t.Fatal(err)
			}
			sim.Step(400)
			var snap Snapshot
			sim.Snapshot(&snap)
			return sim, snap.Height, sim.Fluxes(nil)
		}
		_, hd, fd := run(false)
		_, hg, fg := run(true)
		for i := range hd {
			if math.Float32bits(hd[i]) != math.Float32bits(hg[i]) {
				t.Fatalf("film=%v: column %d: dense h = %v, general h = %v", film, i, hd[i], hg[i])
			}
		}
		for p := range fd {
			if math.Float32bits(fd[p]) != math.Float32bits(fg[p]) {
				t.Fatalf("film=%v: pipe %d: dense f = %v, general f = %v", film, p, fd[p], fg[p])
			}
		}
		nonzero := 0
		for _, f := range fd {
			if f != 0 {
				nonzero++
			}
		}
		if nonzero < len(fd)/4 {
			t.Fatalf("film=%v: only %d of %d pipes carry flux: the scene does not exercise the kernels", film, nonzero, len(fd))
		}
	}
}
