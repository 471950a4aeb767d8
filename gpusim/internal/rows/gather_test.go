package rows

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vpbench/vpbench/internal/guard"
)

// TestGatherStridedMatchesGo: the AVX2 strided gather puts each stream's fluxes where the
// Go twin does, for groups at any offsets and either number of streams, and writes
// nothing around its output (guard zones; the streams after the four pipes' are left as
// they were, in both).
func TestGatherStridedMatchesGo(t *testing.T) {
	t.Parallel()
	if !New(true).Vector() {
		t.Skip("no AVX2 here")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	f := make([]float32, 4000)
	for i := range f {
		f[i] = edgeValue(rng, 1e-4, 0)
	}
	for _, streams := range []int{4, 6} {
		for _, groups := range []int{1, 2, 3, 7} {
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
			want, got := guard.New[float32](8*streams*groups).Out, guard.New[float32](8*streams*groups)
			for g := range groups {
				gatherStridedGo(want[8*streams*g:], f, pp[32*g:32*g+4])
			}
			GatherStridedRun(got.Out, f, pp, groups, streams)
			if err := got.Check(); err != nil {
				t.Fatalf("%d streams, %d groups: %v", streams, groups, err)
			}
			for i := range want {
				if math.Float32bits(got.Out[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%d streams, %d groups: u[%d] = %v, want %v", streams, groups, i, got.Out[i], want[i])
				}
			}
		}
	}
}

// TestGatherPairsMatchesGo: the AVX2 paired gather puts each end's value where the Go
// twin does, for groups at any offsets, and writes nothing around its outputs (guard
// zones).
func TestGatherPairsMatchesGo(t *testing.T) {
	t.Parallel()
	if !New(true).Vector() {
		t.Skip("no AVX2 here")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, 3000)
	for i := range x {
		x[i] = edgeValue(rng, 1e-2, 0)
	}
	for _, groups := range []int{1, 2, 3, 5} {
		pa, pb := make([]int32, 16*groups), make([]int32, 16*groups)
		for g := range groups {
			a, e, u := rng.Int32N(2990), rng.Int32N(2990), rng.Int32N(2990)
			for k := range int32(8) {
				pa[16*g+int(2*k)], pa[16*g+int(2*k)+1] = a+k, a+k
				pb[16*g+int(2*k)], pb[16*g+int(2*k)+1] = e+k, u+k
			}
		}
		wantA, wantB := make([]float32, 16*groups), make([]float32, 16*groups)
		ga, gb := guard.New[float32](16*groups), guard.New[float32](16*groups)
		gotA, gotB := ga.Out, gb.Out
		for g := range groups {
			gatherPairsGo(wantA[16*g:], wantB[16*g:], x, pa[16*g:], pb[16*g:])
		}
		GatherPairsRun(gotA, gotB, x, pa, pb, groups)
		for _, g := range []guard.Slice[float32]{ga, gb} {
			if err := g.Check(); err != nil {
				t.Fatalf("%d groups: %v", groups, err)
			}
		}
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
