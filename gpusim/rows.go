package gpusim

// Row kernels: the dense layout's element arithmetic (element.go) applied along a row,
// element by element, over slices the caller cuts so that element j of every input
// belongs to element j of the output (a pipe's two ends, a column's four pipes). They
// have no dependence between elements, so each has an AVX2 twin (rows_amd64.s, called
// from rows_amd64.go) that computes 8 elements at once with the same IEEE operations in
// the same order and no fused multiply-add, and so the same bits; these Go versions are
// the reference and serve every other machine (and -tags purego builds).
//
// Products that feed a sum are converted explicitly (float32(a*b) + ...): the Go spec
// lets a compiler fuse x*y + z into one FMA unless the product is converted, and the
// vector code does not fuse (nor do the general layout's kernels on the default
// GOAMD64=v1).

// rawFluxRowGo is the flux update (docs/method.md, "One step", 2 and 3) of n pipes from
// columns a to b: dst[j] from the last step's final flux prev[j], the heights ha, hb and
// the floors ba, bb of its ends.
func rawFluxRowGo(p *stepParams, dst, prev, ha, hb, ba, bb []float32) {
	n := len(dst)
	prev, ha, hb, ba, bb = prev[:n], ha[:n], hb[:n], ba[:n], bb[:n]
	for j := range dst {
		a, b := ha[j], hb[j]
		dh, da, db := a-b, a-ba[j], b-bb[j]
		dst[j] = flushFlux(p.viscous(float32(p.zeta*prev[j])+float32(p.acceleration(dh, da, db)*dh), da, db))
	}
}

// outflowRowGo sets K (k[j]) and S = 1 (s[j]) for a row of columns from their raw
// fluxes, summed in the order -y (above, seen from the pipe's first column: negated),
// -x (rx[j], negated), +x (rx[j+1]), +y (below), and appends to flags, as off+j, each
// column whose inflows could overflow it (inflowRow then sets its S).
func outflowRowGo(p *stepParams, k, s, above, rx, below, h, r, b, top []float32, flags []int32, off int) []int32 {
	n := len(k)
	rxm, rxp := rx[:n], rx[1:n+1]
	s, above, below = s[:n], above[:n], below[:n]
	h, r, b, top = h[:n], r[:n], b[:n], top[:n]
	for j := range k {
		var out2, in2 float32
		out2, in2 = splitSum(out2, in2, -above[j])
		out2, in2 = splitSum(out2, in2, -rxm[j])
		out2, in2 = splitSum(out2, in2, rxp[j])
		out2, in2 = splitSum(out2, in2, below[j])
		out, in := out2*0.5, in2*0.5
		k[j] = p.outflowFactor(out, (h[j]-b[j])+r[j])
		s[j] = 1
		if p.mayOverflow(in, (top[j]-h[j])-r[j]) {
			flags = append(flags, int32(off+j))
		}
	}
	return flags
}

// finalFluxRowGo scales n raw fluxes: dst[j] = raw[j]*K[from]*S[to] (finalFlux), ki, si
// the first end's factors, ko, so the second's.
func finalFluxRowGo(dst, raw, ki, ko, si, so []float32) {
	n := len(dst)
	raw, ki, ko, si, so = raw[:n], ki[:n], ko[:n], si[:n], so[:n]
	for j := range dst {
		dst[j] = finalFlux(raw[j], ki[j], ko[j], si[j], so[j])
	}
}

// heightRowGo is the height update of a row of columns from their final fluxes, summed in
// float64 in the order -y (above, negated), -x (fxm, negated), +x (fxp), +y (below).
func heightRowGo(p *stepParams, h, r, above, fxm, fxp, below, b, top []float32) {
	n := len(h)
	r, above, fxm, fxp, below, b, top = r[:n], above[:n], fxm[:n], fxp[:n], below[:n], b[:n], top[:n]
	for j := range h {
		var out float64
		out += float64(-above[j])
		out += float64(-fxm[j])
		out += float64(fxp[j])
		out += float64(below[j])
		h[j], r[j] = settleHeight(p.updateHeight(out, h[j], r[j]), b[j], top[j])
	}
}

// inflowColumn is S (inflowFactor) of column x of a row from its inflows, raw and scaled
// by their source columns' K, summed in the order -y (above, negated), -x (rx[x],
// negated), +x (rx[x+1]), +y (below). ka, kr and kb are the padded K rows ([x+1] is
// column x's) of the rows above, this one and below.
func inflowColumn(p *stepParams, above, ka, rx, kr, below, kb, top, h, r []float32, x int) float32 {
	var in float32
	in += float32(min(-above[x], 0) * ka[x+1])
	in += float32(min(-rx[x], 0) * kr[x])
	in += float32(min(rx[x+1], 0) * kr[x+2])
	in += float32(min(below[x], 0) * kb[x+1])
	return p.inflowFactor(in, (top[x]-h[x])-r[x])
}

// wholeRowInflow: a row with at least 1/wholeRowInflow of its columns flagged gets S from
// the vector inflow kernel for every column (about 30 instructions per 8 columns) rather
// than column by column (inflowColumn, a call and some 30 instructions per column).
const wholeRowInflow = 32
