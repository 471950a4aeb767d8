package gpusim

import (
	"fmt"
	"math"
	"testing"

	"github.com/vpbench/vpbench/gpusim/internal/element"
	"github.com/vpbench/vpbench/gpusim/internal/rows"
)

func sameBits(t *testing.T, what string, a, b []float32) {
	t.Helper()
	for j := range a {
		if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
			t.Fatalf("%s[%d]: vector %v (%#x), Go %v (%#x)", what, j, a[j], math.Float32bits(a[j]), b[j], math.Float32bits(b[j]))
		}
	}
}

// TestStepSIMDMatchGo: whole dense steps (both cross-sections, viscous and inviscid, a
// source and a sink, 1 and 2 workers) give the same bits with the vector row kernels and
// without.
func TestStepSIMDMatchGo(t *testing.T) {
	t.Parallel()
	if !rows.New(true).Vector() {
		t.Skip("no vector row kernels on this machine or build")
	}
	for _, film := range []bool{false, true} {
		for _, nu := range []float64{0, 4e-6} {
			var ref, refF []float32
			for _, on := range []bool{false, true} {
				for _, w := range []int{1, 2} {
					st := settings(0.003, nu, w)
					if film {
						st.CrossSection = CrossFilm
					}
					c := layeredScene(t, 61, 45, 0.001, 0.03, 1, bumpyFloor, nil)
					sim := fillAndRun(t, newSimWith(t, c, st, backendOptions{noSIMD: !on}), 200)
					if sim.be.(*cpuBackend).dense == nil {
						t.Fatal("not the dense layout")
					}
					if got := sim.be.(*cpuBackend).rows.Vector(); got != on {
						t.Fatalf("vector row kernels in use = %v, want %v", got, on)
					}
					h, f := snapshot(sim).Height, sim.Fluxes(nil)
					if ref == nil {
						ref, refF = h, f
						continue
					}
					name := fmt.Sprintf("film %v, nu %g, SIMD %v, %d workers", film, nu, on, w)
					sameBits(t, name+": h", h, ref)
					sameBits(t, name+": flux", f, refF)
				}
			}
		}
	}
}

// TestNoSubnormalFluxes: on a draining viscous film, where fluxes decay towards zero
// step after step, no flux is ever left subnormal.
func TestNoSubnormalFluxes(t *testing.T) {
	// BenchmarkStepIncline200's scene: without the flush, 30 to 150 of its 79,600 fluxes
	// are subnormal after 400 to 2,000 steps.
	c := inclineScene(t, 200, 200, 0.0005, 15*math.Pi/180)
	sim := newSim(t, c, settings(0.003, 4e-6, 2))
	filmEverywhere(t, sim, 0.001)
	if _, err := sim.AddEmitter(Emitter{X: 0.09, Y: 0.05, Z: 0.05, Radius: 0.005, Rate: 1e-5}); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		sim.Step(400)
		for i, f := range sim.Fluxes(nil) {
			if f != 0 && math.Float32bits(f)&0x7fffffff < element.MinNormalBits {
				t.Fatalf("after %d steps flux %d is subnormal: %g", 400*(round+1), i, f)
			}
		}
	}
}
