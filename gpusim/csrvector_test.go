package gpusim

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/gpusim/internal/rows"
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
// (rows.GatherStridedRun), and the scenes together groups gathered pipe by pipe; each
// scene's pipes make paired groups (rows.GatherPairsRun) and pipes gathered one by one,
// and the scenes together paired groups that overlap the one before.
func TestCSRVectorMatchesColumns(t *testing.T) {
	t.Parallel()
	if !rows.New(true).Vector() {
		t.Skip("no AVX2 here: the column loops are the only path")
	}
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
				st := settings(0.003, 4e-6, workers)
				sims[v] = newSimWith(t, sc.cols(t), st, backendOptions{general: true, noSIMD: !on})
				sc.setup(t, sims[v])
				if be := sims[v].be.(*cpuBackend); be.dense != nil || be.rows.Vector() != on {
					t.Fatalf("%s: dense layout %v, vector kernels %v: want false, %v", sc.name, be.dense != nil, be.rows.Vector(), on)
				}
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
				for _, sim := range sims {
					sim.Step(50)
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
