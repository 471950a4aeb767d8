//go:build !amd64 || purego || cuda

package rows

// The row kernels without the AVX2 ones (rows_amd64.go): the Go twins of rows.go. The
// cuda build comes here too (see rows_amd64.go).

import "github.com/vpbench/vpbench/gpusim/internal/element"

// New returns the Go twins: there are no vector kernels in this build.
func New(vector bool) Kernels { return Kernels{} }

// RawFluxRow is rawFluxRowGo.
func (ks Kernels) RawFluxRow(p *element.Params, dst, prev, ha, hb, ba, bb []float32) {
	rawFluxRowGo(p, dst, prev, ha, hb, ba, bb)
}

// OutflowRow is outflowRowGo; mask is unused, and every flagged column is listed.
func (ks Kernels) OutflowRow(p *element.Params, k, s, above, rx, below, h, r, b, top []float32, flags []int32, _ []uint8) (_ []int32, all bool) {
	return outflowRowGo(p, k, s, above, rx, below, h, r, b, top, flags, 0), false
}

// InflowRowVec sets nothing here: the caller computes S column by column.
func (ks Kernels) InflowRowVec(p *element.Params, s, above, ka, rx, kr, below, kb, top, h, r []float32) int {
	return 0
}

// FinalFluxRow is finalFluxRowGo.
func (ks Kernels) FinalFluxRow(dst, raw, ki, ko, si, so []float32) {
	finalFluxRowGo(dst, raw, ki, ko, si, so)
}

// HeightRow is heightRowGo.
func (ks Kernels) HeightRow(p *element.Params, h, r, above, fxm, fxp, below, b, top []float32) {
	heightRowGo(p, h, r, above, fxm, fxp, below, b, top)
}

// CapHeadRow is capHeadRowGo.
func (ks Kernels) CapHeadRow(p *CapParams, drive []float32, next []uint8, keep, h, b []float32, w []uint8, hm, bm []float32, wm []uint8, hp, bp []float32, wp []uint8, prev []float32) (low, nextDry bool) {
	return capHeadRowGo(p, drive, next, keep, h, b, w, hm, bm, wm, hp, bp, wp, prev)
}

// CapRiseRow is capRiseRowGo.
func (ks Kernels) CapRiseRow(damp, dry float32, mark uint8, drive []float32, next []uint8, keep, h, b, prev, hn, bn []float32) (low, nextDry bool) {
	return capRiseRowGo(damp, dry, mark, drive, next, keep, h, b, prev, hn, bn)
}

// DrySpan is drySpanGo.
func (ks Kernels) DrySpan(h, b []float32, dry float32) (first, last int) { return drySpanGo(h, b, dry) }

// The run kernels are never called here (Kernels.Vector is false): the general layout's
// columns all go through its column loops.

func CSROutflowRun(p *element.Params, lo int, k, s, u, h, r, b, top []float32, ext bool, mask []uint8, flags []int32) []int32 {
	panic("rows: no vector kernels in this build")
}

func CSRHeightRun(p *element.Params, h, r, u, b, top []float32, ext bool) {
	panic("rows: no vector kernels in this build")
}

func GatherStridedRun(u, f []float32, pp []int32, groups, streams int) {
	panic("rows: no vector kernels in this build")
}

func GatherPairsRun(da, db, x []float32, pa, pb []int32, groups int) {
	panic("rows: no vector kernels in this build")
}
