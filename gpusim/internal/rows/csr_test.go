package rows

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vpbench/vpbench/gpusim/internal/element"
)

// TestCSRRunsMatchGo: the general layout's AVX2 run kernels give the bits of their Go
// twins here (gpusim's column loops, csrOutflowColumns and csrHeightColumns, for a run's
// gathered streams), with and without extended pipes, at lengths with and without a
// short last group, and write nothing around their outputs (guard zones).
func TestCSRRunsMatchGo(t *testing.T) {
	t.Parallel()
	if !New(true).Vector() {
		t.Skip("no vector row kernels on this machine or build")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	var gs []func() error
	flagged := 0
	for iter := range 240 {
		n := []int{1, 3, 7, 8, 9, 15, 16, 17, 33, 70}[iter%10]
		ext := iter/10%2 == 1
		p := randomParams(rng, iter/20%2 == 1, []float64{0, 1e-3}[iter/40%2])
		name := fmt.Sprintf("iter %d (n %d, ext %v)", iter, n, ext)
		h, r, b, top := randomColumns(rng, n)
		u := make([]float32, CSRGroups(n)*8*CSRStreams(ext))
		for i := range u {
			u[i] = edgeValue(rng, 1e-6, 0)
		}
		lo := rng.IntN(1000)

		k, s := guarded[float32](&gs, true, n), guarded[float32](&gs, true, n)
		mask := guarded[uint8](&gs, true, CSRGroups(n))
		fl := CSROutflowRun(&p, lo, k, s, u, h, r, b, top, ext, mask, nil)
		checkGuards(t, name+" outflow", &gs)
		kg, sg := make([]float32, n), make([]float32, n)
		flg := csrOutflowGo(&p, lo, kg, sg, u, h, r, b, top, ext)
		sameBits(t, name+" K", k, kg)
		sameBits(t, name+" S", s, sg)
		if !slices.Equal(fl, flg) {
			t.Fatalf("%s: flagged columns: vector %v, Go %v", name, fl, flg)
		}
		if len(flg) > 0 {
			flagged++
		}

		hv, rv := guardedCopy(&gs, true, h), guardedCopy(&gs, true, r)
		CSRHeightRun(&p, hv, rv, u, b, top, ext)
		checkGuards(t, name+" height", &gs)
		hg, rg := slices.Clone(h), slices.Clone(r)
		csrHeightGo(&p, hg, rg, u, b, top, ext)
		sameBits(t, name+" h", hv, hg)
		sameBits(t, name+" r", rv, rg)
	}
	if flagged < 24 {
		t.Errorf("only %d of 240 runs had a column that may overflow", flagged)
	}
}

// randomColumns are n columns' heights, residues, floors and ceilings as
// TestRowKernelsSIMDMatchGo draws them: dry, shallow and deep, full and overfull.
func randomColumns(rng *rand.Rand, n int) (h, r, b, top []float32) {
	h, r, b, top = make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for j := range h {
		b[j] = 0.01 * rng.Float32()
		h[j] = b[j] + []float32{0, 1e-6, 0.01, 0.01}[rng.IntN(4)]*rng.Float32()
		top[j] = h[j] + []float32{0, -1e-6, 0.01, 0.01}[rng.IntN(4)]*rng.Float32()
		r[j] = edgeValue(rng, 1e-9, 0)
	}
	return h, r, b, top
}

// stream is column j's value of stream q in u, gathered as CSRStreams(ext) says.
func stream(u []float32, ext bool, j, q int) float32 {
	return u[8*CSRStreams(ext)*(j/8)+8*q+j%8]
}

// csrOutflowGo is gpusim's csrOutflowColumns over a run's gathered raw fluxes: pipes -y,
// -x, +x, +y (the first two seen from the neighbour, so negated), and with extended
// pipes their outflow and inflow added to the halved sums. It returns the flagged
// columns, lo + their index.
func csrOutflowGo(p *element.Params, lo int, k, s, u, h, r, b, top []float32, ext bool) []int32 {
	var flags []int32
	for j := range k {
		var out2, in2 float32
		out2, in2 = element.SplitSum(out2, in2, -stream(u, ext, j, 0))
		out2, in2 = element.SplitSum(out2, in2, -stream(u, ext, j, 1))
		out2, in2 = element.SplitSum(out2, in2, stream(u, ext, j, 2))
		out2, in2 = element.SplitSum(out2, in2, stream(u, ext, j, 3))
		out, in := out2*0.5, in2*0.5
		if ext {
			out += stream(u, ext, j, 4)
			in += stream(u, ext, j, 5)
		}
		k[j] = p.OutflowFactor(out, (h[j]-b[j])+r[j])
		s[j] = 1
		if p.MayOverflow(in, (top[j]-h[j])-r[j]) {
			flags = append(flags, int32(lo+j))
		}
	}
	return flags
}

// csrHeightGo is gpusim's csrHeightColumns over a run's gathered final fluxes, summed in
// float64 in the order -y, -x (negated), +x, +y, and with extended pipes their net
// outflow last.
func csrHeightGo(p *element.Params, h, r, u, b, top []float32, ext bool) {
	for j := range h {
		var out float64
		out += float64(-stream(u, ext, j, 0))
		out += float64(-stream(u, ext, j, 1))
		out += float64(stream(u, ext, j, 2))
		out += float64(stream(u, ext, j, 3))
		if ext {
			out += float64(stream(u, ext, j, 4))
		}
		h[j], r[j] = element.SettleHeight(p.UpdateHeight(out, h[j], r[j]), b[j], top[j])
	}
}
