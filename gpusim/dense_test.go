package gpusim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDenseSweepShapes: the dense layout's single sweep against the general layout on
// grids down to one row or column, for several worker counts (ranges shorter than the
// three halo rows, empty ranges), both cross-sections, viscous and inviscid, from random
// heights with full and dry columns (so inflow scaling and clamps run): the same bits.
func TestDenseSweepShapes(t *testing.T) {
	t.Parallel()
	shapes := [][2]int{{1, 1}, {1, 7}, {7, 1}, {2, 2}, {3, 9}, {9, 3}, {17, 11}, {8, 16}, {33, 40}}
	for _, sh := range shapes {
		for _, film := range []bool{false, true} {
			for _, nu := range []float64{0, 4e-6} {
				var ref []float32
				var refF []float32
				for _, w := range []int{1, 2, 3, 7} {
					for _, general := range []bool{true, false} {
						if general && w > 1 {
							continue
						}
						h, f := denseShapeRun(t, sh[0], sh[1], film, nu, w, general)
						if ref == nil {
							ref, refF = h, f
							continue
						}
						for i := range h {
							if math.Float32bits(h[i]) != math.Float32bits(ref[i]) {
								t.Fatalf("%dx%d film=%v nu=%g workers=%d general=%v: h[%d] = %v, general 1 worker %v",
									sh[0], sh[1], film, nu, w, general, i, h[i], ref[i])
							}
						}
						for p := range f {
							if math.Float32bits(f[p]) != math.Float32bits(refF[p]) {
								t.Fatalf("%dx%d film=%v nu=%g workers=%d general=%v: flux %d = %v, general 1 worker %v",
									sh[0], sh[1], film, nu, w, general, p, f[p], refF[p])
							}
						}
					}
				}
			}
		}
	}
}

func denseShapeRun(t *testing.T, nx, ny int, film bool, nu float64, workers int, general bool) (h, f []float32) {
	c := layeredScene(t, nx, ny, 0.001, 0.006, 1, bumpyFloor, nil)
	st := settings(0.003, nu, workers)
	if film {
		st.CrossSection = CrossFilm
	}
	sim := newSimWith(t, c, st, backendOptions{general: general})
	if got := sim.be.(*cpuBackend).dense != nil; got == general {
		t.Fatalf("general=%v: dense layout in use = %v", general, got)
	}
	rng := rand.New(rand.NewPCG(uint64(nx), uint64(ny)))
	h = make([]float32, c.NumColumns())
	for i := range h {
		switch rng.IntN(4) {
		case 0: // dry
			h[i] = c.Base[i]
		case 1: // full
			h[i] = c.Max[i]
		default:
			h[i] = c.Base[i] + rng.Float32()*(c.Max[i]-c.Base[i])
		}
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.AddEmitter(Emitter{X: 0.0005, Y: 0.0005, Z: 0.05, Radius: 0.0004, Rate: 1e-8}); err != nil {
		t.Fatal(err)
	}
	sim.Step(60)
	return snapshot(sim).Height, sim.Fluxes(nil)
}
