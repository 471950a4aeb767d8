// Package rows holds the CPU backend's row kernels: the element arithmetic
// (gpusim/internal/element) applied along a row, element by element, over slices the
// caller cuts so that element j of every input belongs to element j of the output (a
// pipe's two ends, a column's four pipes). They have no dependence between elements, so
// each has an AVX2 twin (rows_amd64.s, called from rows_amd64.go) that computes 8
// elements at once with the same IEEE operations in the same order and no fused
// multiply-add, and so the same bits; the Go versions (this file) are the reference and
// serve every other machine (and -tags purego builds). Kernels is the choice between the
// two, made once by whoever owns the state (gpusim's CPU backend), not by a global: tests
// run both side by side.
//
// The general layout's vector path (gpusim/kernels_csr.go) also takes its runs of regular
// columns through AVX2 kernels here (CSROutflowRun, CSRHeightRun, and the gathers that
// feed them); their Go twins are that layout's own column loops.
//
// Products that feed a sum are converted explicitly (float32(a*b) + ...): the Go spec
// lets a compiler fuse x*y + z into one FMA unless the product is converted, and the
// vector code does not fuse (nor do the general layout's kernels on the default
// GOAMD64=v1).
package rows

import "github.com/vpbench/vpbench/gpusim/internal/element"

// Kernels is a choice of row kernels: the AVX2 ones or their Go twins (New). The zero
// value is the Go twins. Its methods dispatch once a row, never per element.
type Kernels struct {
	vector bool
}

// Vector tells whether ks are the AVX2 kernels. The run kernels (CSROutflowRun and the
// others without a Go twin here) may be called only where they are.
func (ks Kernels) Vector() bool { return ks.vector }

// rawFluxRowGo is the flux update (docs/method.md, "One step", 2 and 3) of n pipes from
// columns a to b: dst[j] from the last step's final flux prev[j], the heights ha, hb and
// the floors ba, bb of its ends.
func rawFluxRowGo(p *element.Params, dst, prev, ha, hb, ba, bb []float32) {
	n := len(dst)
	prev, ha, hb, ba, bb = prev[:n], ha[:n], hb[:n], ba[:n], bb[:n]
	for j := range dst {
		a, b := ha[j], hb[j]
		dh, da, db := a-b, a-ba[j], b-bb[j]
		t1, acc := float32(p.Zeta*prev[j]), p.Acceleration(dh, da, db)
		f := t1 + float32(acc*dh)
		if p.Wet > 0 {
			f = p.Wetting(f, t1, acc, dh, da, db)
		}
		dst[j] = element.FlushFlux(p.Viscous(f, da, db))
	}
}

// outflowRowGo sets K (k[j]) and S = 1 (s[j]) for a row of columns from their raw
// fluxes, summed in the order -y (above, seen from the pipe's first column: negated),
// -x (rx[j], negated), +x (rx[j+1]), +y (below), and appends to flags, as off+j, each
// column whose inflows could overflow it (InflowColumn then sets its S).
func outflowRowGo(p *element.Params, k, s, above, rx, below, h, r, b, top []float32, flags []int32, off int) []int32 {
	n := len(k)
	rxm, rxp := rx[:n], rx[1:n+1]
	s, above, below = s[:n], above[:n], below[:n]
	h, r, b, top = h[:n], r[:n], b[:n], top[:n]
	for j := range k {
		var out2, in2 float32
		out2, in2 = element.SplitSum(out2, in2, -above[j])
		out2, in2 = element.SplitSum(out2, in2, -rxm[j])
		out2, in2 = element.SplitSum(out2, in2, rxp[j])
		out2, in2 = element.SplitSum(out2, in2, below[j])
		out, in := out2*0.5, in2*0.5
		k[j] = p.OutflowFactor(out, (h[j]-b[j])+r[j])
		s[j] = 1
		if p.MayOverflow(in, (top[j]-h[j])-r[j]) {
			flags = append(flags, int32(off+j))
		}
	}
	return flags
}

// finalFluxRowGo scales n raw fluxes: dst[j] = raw[j]*K[from]*S[to] (element.FinalFlux),
// ki, si the first end's factors, ko, so the second's.
func finalFluxRowGo(dst, raw, ki, ko, si, so []float32) {
	n := len(dst)
	raw, ki, ko, si, so = raw[:n], ki[:n], ko[:n], si[:n], so[:n]
	for j := range dst {
		dst[j] = element.FinalFlux(raw[j], ki[j], ko[j], si[j], so[j])
	}
}

// heightRowGo is the height update of a row of columns from their final fluxes, summed in
// float64 in the order -y (above, negated), -x (fxm, negated), +x (fxp), +y (below).
func heightRowGo(p *element.Params, h, r, above, fxm, fxp, below, b, top []float32) {
	n := len(h)
	r, above, fxm, fxp, below, b, top = r[:n], above[:n], fxm[:n], fxp[:n], below[:n], b[:n], top[:n]
	for j := range h {
		var out float64
		out += float64(-above[j])
		out += float64(-fxm[j])
		out += float64(fxp[j])
		out += float64(below[j])
		h[j], r[j] = element.SettleHeight(p.UpdateHeight(out, h[j], r[j]), b[j], top[j])
	}
}

// InflowColumn is S (element.Params.InflowFactor) of column x of a row from its inflows,
// raw and scaled by their source columns' K, summed in the order -y (above, negated), -x
// (rx[x], negated), +x (rx[x+1]), +y (below). ka, kr and kb are the padded K rows ([x+1]
// is column x's) of the rows above, this one and below.
func InflowColumn(p *element.Params, above, ka, rx, kr, below, kb, top, h, r []float32, x int) float32 {
	var in float32
	in += float32(min(-above[x], 0) * ka[x+1])
	in += float32(min(-rx[x], 0) * kr[x])
	in += float32(min(rx[x+1], 0) * kr[x+2])
	in += float32(min(below[x], 0) * kb[x+1])
	return p.InflowFactor(in, (top[x]-h[x])-r[x])
}

// WholeRowInflow: a row with at least 1/WholeRowInflow of its columns flagged gets S from
// the vector inflow kernel for every column (about 30 instructions per 8 columns) rather
// than column by column (InflowColumn, a call and some 30 instructions per column).
const WholeRowInflow = 32

// The general layout's vector runs read their columns' fluxes gathered into groups of 8
// columns, stream q of a group (8 floats) holding the columns' pipe q's flux, and the
// streams after the four pipes' holding what the extended pipes add.

// CSRMaxStreams is the most streams a gathered column has (CSRStreams(true)).
const CSRMaxStreams = 6

// CSRStreams is the streams a gathered column has: its four pipes' fluxes, and with
// extended pipes their outflow and inflow (outflow phase) or net outflow and a spare
// (height phase).
func CSRStreams(ext bool) int {
	if ext {
		return CSRMaxStreams
	}
	return 4
}

// CSRGroups is the groups of 8 that n columns take.
func CSRGroups(n int) int { return (n + 7) / 8 }
