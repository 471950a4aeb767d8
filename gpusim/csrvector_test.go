package gpusim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// TestCSRVectorMatchesColumns: the general layout's vector path (runs of regular columns
// through the AVX2 kernels, and the flux update of gathered chunks of pipes through the
// dense layout's, kernels_csr.go) gives the bits of its scalar loops, on an
// incline wet all over (long runs, no extended pipes), the five-layer scene flooded over
// its slabs (short runs between multi-column cells, extended pipes through passages that
// fill and flip full flags) and the four flooded passages, for 1, 2 and 3 workers (runs
// cut at the workers' ranges). Heights, residuals and fluxes are compared bit for bit
// after every chunk of steps. Each scene's runs have groups read as strided stretches
// (gatherStridedRun), and the scenes together groups gathered pipe by pipe; each scene's
// pipes make paired groups (gatherPairsRun) and pipes gathered one by one, and the
// scenes together paired groups that overlap the one before.
func TestCSRVectorMatchesColumns(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX2 here: the column loops are the only path")
	}
	forceGeneralLayout = true
	defer func() { forceGeneralLayout = false }()
	type scene struct {
		name  string
		cols  func(t *testing.T) *terrain.Columns
		setup func(t *testing.T, sim *Sim)
	}
	scenes := []scene{
		{"incline", func(t *testing.T) *terrain.Columns { return inclineScene(t, 61, 43, 0.0005, 10*math.Pi/180) },
			func(t *testing.T, sim *Sim) {
				filmEverywhere(t, sim, 0.0005)
				if _, err := sim.AddEmitter(Emitter{X: 0.025, Y: 0.01, Z: 0.05, Radius: 0.003, Rate: 5e-6}); err != nil {
					t.Fatal(err)
				}
			}},
		{"five layers", func(t *testing.T) *terrain.Columns { return fiveLayerScene(t, 60, 60, 0.0005) },
			func(t *testing.T, sim *Sim) {
				if _, err := sim.Fill(0.015, 0.015, 0.004, 0.02); err != nil {
					t.Fatal(err)
				}
				if _, err := sim.AddEmitter(Emitter{X: 0.015, Y: 0.015, Z: 0.05, Radius: 0.003, Rate: 1e-5}); err != nil {
					t.Fatal(err)
				}
			}},
		{"four passages", func(t *testing.T) *terrain.Columns { c, _, _ := fourPassages(t); return c },
			func(t *testing.T, sim *Sim) {
				if _, err := sim.Fill(0.005, 0.005, 0.001, 0.006); err != nil {
					t.Fatal(err)
				}
				if _, err := sim.AddEmitter(Emitter{X: 0.05, Y: 0.05, Z: 0.03, Radius: 0.01, Rate: 1e-5}); err != nil {
					t.Fatal(err)
				}
			}},
	}
	// Groups of the vector runs gathered pipe by pipe, and paired groups that overlap the
	// one before, in every scene.
	allGathered, allOverlapping := 0, 0
	defer func() {
		if (allGathered == 0 || allOverlapping == 0) && !t.Failed() {
			t.Errorf("%d groups gathered pipe by pipe and %d overlapping paired groups in all the scenes: a path goes untested", allGathered, allOverlapping)
		}
	}()
	for _, sc := range scenes {
		for _, workers := range []int{1, 2, 3} {
			var sims [2]*Sim
			for v, on := range []bool{false, true} {
				withSIMD(on, func() {
					st := settings(0.003, 4e-6, workers)
					sims[v] = newSim(t, sc.cols(t), st)
					sc.setup(t, sims[v])
				})
			}
			runs, strided, gathered := 0, 0, 0 // vector runs, and their groups of 8 by path
			be := sims[1].be.(*cpuBackend)
			for w, wr := range be.runs {
				i := be.ranges[w][0]
				for _, r := range wr {
					if r.vector {
						runs++
						for g := i; g < int(r.end); g += 8 {
							if be.strided[g] {
								strided++
							} else {
								gathered++
							}
						}
					}
					i = int(r.end)
				}
			}
			if runs == 0 || strided == 0 {
				t.Fatalf("%s: %d runs of regular columns for the vector kernels, %d strided groups: want some of each",
					sc.name, runs, strided)
			}
			allGathered += gathered
			paired, single := 0, 0 // pipes in paired groups, and the others
			for _, pr := range be.pipes {
				for j := pr[0]; j < pr[1]; j++ {
					if s := int(be.pairAt[j]); s >= 0 {
						paired += 16 - s
						if s > 0 {
							allOverlapping++
						}
					}
				}
				single += pr[1] - pr[0]
			}
			single -= paired
			if paired == 0 || single == 0 {
				t.Fatalf("%s: %d pipes in paired groups, %d others: want some of each", sc.name, paired, single)
			}
			for chunk := range 6 {
				for v, on := range []bool{false, true} {
					withSIMD(on, func() { sims[v].Step(50) })
				}
				var a, b Snapshot
				sims[0].Snapshot(&a)
				sims[1].Snapshot(&b)
				fa, fb := sims[0].Fluxes(nil), sims[1].Fluxes(nil)
				ra, rb := sims[0].be.(*cpuBackend).r, sims[1].be.(*cpuBackend).r
				for i := range a.Height {
					if math.Float32bits(a.Height[i]) != math.Float32bits(b.Height[i]) || math.Float32bits(ra[i]) != math.Float32bits(rb[i]) {
						t.Fatalf("%s, %d workers, after %d steps: column %d: columns h %v r %v, vector h %v r %v",
							sc.name, workers, 50*(chunk+1), i, a.Height[i], ra[i], b.Height[i], rb[i])
					}
				}
				for p := range fa {
					if math.Float32bits(fa[p]) != math.Float32bits(fb[p]) {
						t.Fatalf("%s, %d workers, after %d steps: pipe %d: columns %v, vector %v", sc.name, workers, 50*(chunk+1), p, fa[p], fb[p])
					}
				}
			}
		}
	}
}

// TestGatherStridedMatchesGo: the AVX2 strided gather puts each stream's fluxes where the
// Go twin does, for groups at any offsets and either number of streams.
func TestGatherStridedMatchesGo(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX2 here")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	f := make([]float32, 4000)
	for i := range f {
		f[i] = edgeValue(rng, 1e-4, 0)
	}
	for _, streams := range []int{4, 6} {
		for _, groups := range []int{1, 2, 7} {
			pp := make([]int32, 32*groups)
			for g := range groups {
				var base [4]int32
				base[0], base[1], base[2] = rng.Int32N(3900), rng.Int32N(3900), rng.Int32N(3900)
				base[3] = base[2] + 1
				for l := range 8 {
					for q := range 4 {
						pp[32*g+4*l+q] = base[q] + int32(2*l)
					}
				}
			}
			want := make([]float32, 8*streams*groups)
			got := make([]float32, len(want))
			for g := range groups {
				gatherStridedGo(want[8*streams*g:], f, pp[32*g:32*g+4])
			}
			gatherStridedRun(got, f, pp, groups, streams)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%d streams, %d groups: u[%d] = %v, want %v", streams, groups, i, got[i], want[i])
				}
			}
		}
	}
}

// TestGatherPairsMatchesGo: the AVX2 paired gather puts each end's value where the Go
// twin does, for groups at any offsets.
func TestGatherPairsMatchesGo(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX2 here")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, 3000)
	for i := range x {
		x[i] = edgeValue(rng, 1e-2, 0)
	}
	for _, groups := range []int{1, 2, 5} {
		pa, pb := make([]int32, 16*groups), make([]int32, 16*groups)
		for g := range groups {
			a, e, u := rng.Int32N(2990), rng.Int32N(2990), rng.Int32N(2990)
			for k := range int32(8) {
				pa[16*g+int(2*k)], pa[16*g+int(2*k)+1] = a+k, a+k
				pb[16*g+int(2*k)], pb[16*g+int(2*k)+1] = e+k, u+k
			}
		}
		wantA, wantB := make([]float32, 16*groups), make([]float32, 16*groups)
		gotA, gotB := make([]float32, 16*groups), make([]float32, 16*groups)
		for g := range groups {
			gatherPairsGo(wantA[16*g:], wantB[16*g:], x, pa[16*g:], pb[16*g:])
		}
		gatherPairsRun(gotA, gotB, x, pa, pb, groups)
		for i := range wantA {
			if math.Float32bits(gotA[i]) != math.Float32bits(wantA[i]) || math.Float32bits(gotB[i]) != math.Float32bits(wantB[i]) {
				t.Fatalf("%d groups: element %d: got %v %v, want %v %v", groups, i, gotA[i], gotB[i], wantA[i], wantB[i])
			}
		}
	}
}

// gatherStridedGo, gatherStridedAVX2's Go twin, fills the four streams q[0:32] of a
// strided group from f (its first column's pipes at base).
func gatherStridedGo(q, f []float32, base []int32) {
	q = q[:32]
	s, w, e := f[base[0]:base[0]+16], f[base[1]:base[1]+16], f[base[2]:base[2]+16]
	for l := range 8 {
		q[l], q[8+l], q[16+l], q[24+l] = s[2*l], w[2*l], e[2*l], e[2*l+1]
	}
}

// gatherPairsGo, gatherPairsAVX2's Go twin, puts the values x of the ends of the 16
// pipes of a paired group (ends pa, pb) into da and db.
func gatherPairsGo(da, db, x []float32, pa, pb []int32) {
	own, e, u := x[pa[0]:pa[0]+8], x[pb[0]:pb[0]+8], x[pb[1]:pb[1]+8]
	for t := range 8 {
		da[2*t], da[2*t+1] = own[t], own[t]
		db[2*t], db[2*t+1] = e[t], u[t]
	}
}
