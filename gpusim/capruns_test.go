package gpusim

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/gpusim/internal/rows"
	"github.com/vpbench/vpbench/terrain"
)

// TestCapEdgesVectorMatchesScalar: the general layout's capillary head through the row
// kernel on its row-like stretches (capruns.go) gives the bits of its column loop, with
// surface tension on (hysteresis, the ripple damping, the receding line's corner margin),
// on a bumpy floor where a puddle spreads and a film recedes, and on the three-layer scene
// flooded over its slabs (short stretches between multi-column cells), with the pipes and
// with the shallow water equations, for 1, 2 and 3 workers. Heights are compared bit for
// bit every few steps, and the stretches must hold most columns and columns whose head
// acted (the line, and the ripples).
func TestCapEdgesVectorMatchesScalar(t *testing.T) {
	t.Parallel()
	if !rows.New(true).Vector() {
		t.Skip("no AVX2 here: the column loop is the only path")
	}
	type scene struct {
		name  string
		cols  func(t *testing.T) *terrain.Columns
		setup func(t *testing.T, sim *Sim)
	}
	scenes := []scene{
		{"bumpy floor", func(t *testing.T) *terrain.Columns {
			return layeredScene(t, 61, 43, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, func(t *testing.T, sim *Sim) {
			if _, err := sim.Fill(0.01, 0.01, 0.002, 0.0045); err != nil {
				t.Fatal(err)
			}
			if _, err := sim.AddEmitter(Emitter{X: 0.02, Y: 0.012, Z: 0.05, Radius: 0.002, Rate: 4e-6, Stop: 0.06}); err != nil {
				t.Fatal(err)
			}
		}},
		{"three layers", func(t *testing.T) *terrain.Columns { return overhangScene(t, 60, 60, 0.0005) },
			func(t *testing.T, sim *Sim) {
				if _, err := sim.Fill(0.015, 0.015, 0.004, 0.02); err != nil {
					t.Fatal(err)
				}
				if _, err := sim.AddEmitter(Emitter{X: 0.015, Y: 0.015, Z: 0.05, Radius: 0.003, Rate: 1e-5}); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, sc := range scenes {
		for _, method := range []Method{MethodPipes, MethodSWE} {
			for _, workers := range []int{1, 2, 3} {
				var sims [2]*Sim
				for v, on := range []bool{false, true} {
					st := wettingSettings(30*math.Pi/180, workers)
					st.ContactHysteresis = 10 * math.Pi / 180
					st.Method = method
					sims[v] = newSimWith(t, sc.cols(t), st, backendOptions{general: true, noSIMD: !on})
					sc.setup(t, sims[v])
				}
				be := sims[1].be.(*cpuBackend)
				inStretch, total := 0, len(be.h)
				for _, runs := range be.capRuns {
					for _, st := range runs {
						inStretch += int(st.e - st.s)
					}
				}
				if sc.name == "bumpy floor" && inStretch < total/2 {
					t.Fatalf("%s: %d of %d columns in row-like stretches, want most", sc.name, inStretch, total)
				}
				if inStretch == 0 {
					t.Fatalf("%s: no row-like stretch", sc.name)
				}
				t.Logf("%s: %d of %d columns in row-like stretches", sc.name, inStretch, total)
				acted := 0
				n := len(be.h)
				a, b := make([]float32, n), make([]float32, n)
				for step := 0; step < 60; step += 5 {
					for _, s := range sims {
						s.Step(5)
					}
					sims[0].be.readHeight(a)
					sims[1].be.readHeight(b)
					if i := firstDiffBits(a, b); i >= 0 {
						t.Fatalf("%s, %v, %d workers, after %d steps: height %d: column loop %g, row kernel %g", sc.name, method, workers, step+5, i, a[i], b[i])
					}
					for _, runs := range be.capRuns {
						for _, st := range runs {
							for i := st.s; i < st.e; i++ {
								if be.capSt.drive[i] != be.h[i] {
									acted++
								}
							}
						}
					}
				}
				if acted == 0 {
					t.Errorf("%s, %v, %d workers: no column of a stretch had a head of its own: the kernel's arithmetic went untested", sc.name, method, workers)
				}
			}
		}
	}
}
