package gpusim

import (
	"math"
	"math/rand/v2"
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

// TestCapEdgesRangeSameBits: the contact-line head over a worker's columns cut into
// pieces at arbitrary columns (capEdgesRange, as a step that leaves dead units alone
// calls it: the stretches cut at the pieces' ends, each piece from the stretch the last
// one left off at) gives the bits of the head over the whole range (capEdges), on a
// bumpy floor with liquid over much of it, the row kernel's stretches cut anywhere.
func TestCapEdgesRangeSameBits(t *testing.T) {
	t.Parallel()
	st := wettingSettings(30*math.Pi/180, 1)
	st.ContactHysteresis = 10 * math.Pi / 180
	sim := newSimWith(t, layeredScene(t, 61, 43, 0.0005, 0.03, 1, bumpyFloor, nil), st, backendOptions{general: true})
	if _, err := sim.Fill(0.01, 0.01, 0.006, 0.0045); err != nil {
		t.Fatal(err)
	}
	sim.Step(40)
	c := sim.be.(*cpuBackend)
	if len(c.capRuns) == 0 || len(c.capRuns[0]) == 0 {
		t.Skip("no stretches for the row kernel here (no AVX2)")
	}
	cs := &c.capSt
	lo, hi := c.ranges[0][0], c.ranges[0][1]
	save := func() [][]float32 {
		return [][]float32{append([]float32(nil), cs.drive...), append([]float32(nil), cs.prev...)}
	}
	wetSave := append([]uint8(nil), cs.wetNext...)
	before := save()
	c.capEdges(lo, hi, false)
	want, wantWet := save(), append([]uint8(nil), cs.wetNext...)
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := range 20 {
		copy(cs.drive, before[0])
		copy(cs.prev, before[1])
		copy(cs.wetNext, wetSave)
		next, from := 0, lo
		for from < hi {
			to := min(hi, from+1+rng.IntN(150))
			next = c.capEdgesRange(0, from, to, next, false)
			from = to
		}
		got := save()
		for k := range got {
			for i := range got[k] {
				if math.Float32bits(got[k][i]) != math.Float32bits(want[k][i]) {
					t.Fatalf("trial %d: array %d, column %d: %g, the whole range's %g", trial, k, i, got[k][i], want[k][i])
				}
			}
		}
		for i := range cs.wetNext {
			if cs.wetNext[i] != wantWet[i] {
				t.Fatalf("trial %d: column %d's wetted flag %d, the whole range's %d", trial, i, cs.wetNext[i], wantWet[i])
			}
		}
	}
}
