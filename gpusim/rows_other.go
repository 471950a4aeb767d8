//go:build !amd64 || purego || cuda

package gpusim

// The row kernels the dense sweep calls, without the AVX2 ones (rows_amd64.go): the Go
// twins of rows.go. The cuda build comes here too (see rows_amd64.go).

// useSIMD is false: there are no vector kernels here.
var useSIMD = false

func rawFluxRow(p *stepParams, dst, prev, ha, hb, ba, bb []float32) {
	rawFluxRowGo(p, dst, prev, ha, hb, ba, bb)
}

// outflowRow is outflowRowGo; mask is unused, and every flagged column is listed.
func outflowRow(p *stepParams, k, s, above, rx, below, h, r, b, top []float32, flags []int32, _ []uint8) (_ []int32, all bool) {
	return outflowRowGo(p, k, s, above, rx, below, h, r, b, top, flags, 0), false
}

// inflowRowVec sets nothing here: the caller computes S column by column.
func inflowRowVec(p *stepParams, s, above, ka, rx, kr, below, kb, top, h, r []float32) int { return 0 }

func finalFluxRow(dst, raw, ki, ko, si, so []float32) { finalFluxRowGo(dst, raw, ki, ko, si, so) }

func heightRow(p *stepParams, h, r, above, fxm, fxp, below, b, top []float32) {
	heightRowGo(p, h, r, above, fxm, fxp, below, b, top)
}

// csrOutflowRun and csrHeightRun are never called here (useSIMD is false): the general
// layout's columns all go through the column loops of kernels_csr.go.
func csrOutflowRun(p *stepParams, lo int, k, s, u, h, r, b, top []float32, ext bool, mask []uint8, flags []int32) []int32 {
	panic("gpusim: no vector kernels in this build")
}

func csrHeightRun(p *stepParams, h, r, u, b, top []float32, ext bool) {
	panic("gpusim: no vector kernels in this build")
}

func gatherStridedRun(u, f []float32, pp []int32, groups, streams int) {
	panic("gpusim: no vector kernels in this build")
}

func gatherPairsRun(da, db, x []float32, pa, pb []int32, groups int) {
	panic("gpusim: no vector kernels in this build")
}
