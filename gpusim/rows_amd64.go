//go:build !purego && !cuda

package gpusim

// The row kernels the dense sweep calls, on amd64: the AVX2 kernels of rows_amd64.s
// (written by internal/asmgen with avo), one call a row (the last n%8 elements with masked
// loads and stores), or their Go twins (rows.go) on a processor without AVX2. Both give
// the same bits (TestRowKernelsSIMDMatchGo), so the choice, made at run time, changes only
// the speed.
//
// The cuda build (-tags cuda) uses cgo, and the go command assembles a cgo package's .s
// files with the C toolchain, which cannot read Go assembly: that build takes the Go row
// kernels (rows_other.go) for its CPU backend.
//
// The wrappers cut every slice to the kernel's length, so the assembly never reads or
// writes past one (a short slice panics here instead).

import (
	"math/bits"

	"golang.org/x/sys/cpu"
)

//go:generate sh -c "cd internal/asmgen && go run . -out ../../rows_amd64.s -stubs ../../rows_stubs_amd64.go -pkg gpusim"

// useSIMD tells whether the AVX2 kernels run; tests turn it off to compare.
var useSIMD = cpu.X86.HasAVX2

func rawFluxRow(p *stepParams, dst, prev, ha, hb, ba, bb []float32) {
	n := len(dst)
	if !useSIMD || n == 0 {
		rawFluxRowGo(p, dst, prev, ha, hb, ba, bb)
		return
	}
	f, a, b, fa, fb := prev[:n], ha[:n], hb[:n], ba[:n], bb[:n]
	switch {
	case p.film && p.visc3 > 0:
		rawFluxFilmViscAVX2(dst, f, a, b, fa, fb, p.zeta, p.accel, p.dxf, p.visc3)
	case p.film:
		rawFluxFilmAVX2(dst, f, a, b, fa, fb, p.zeta, p.accel, p.dxf, p.visc3)
	case p.visc3 > 0:
		rawFluxPaperViscAVX2(dst, f, a, b, fa, fb, p.zeta, p.accel, p.dxf, p.visc3)
	default:
		rawFluxPaperAVX2(dst, f, a, b, fa, fb, p.zeta, p.accel, p.dxf, p.visc3)
	}
}

// outflowRow is outflowRowGo; mask is scratch of at least (len(k)+7)/8 bytes. When many
// columns are flagged (a flooded row) it returns all = true and lists none: the caller
// then computes S for the whole row (inflowRowVec), which is cheaper than listing them.
func outflowRow(p *stepParams, k, s, above, rx, below, h, r, b, top []float32, flags []int32, mask []uint8) (_ []int32, all bool) {
	n := len(k)
	if !useSIMD || n == 0 {
		return outflowRowGo(p, k, s, above, rx, below, h, r, b, top, flags, 0), false
	}
	mask = mask[:(n+7)/8]
	c := outflowAVX2(k, s[:n], above[:n], rx[:n+1], below[:n], h[:n], r[:n], b[:n], top[:n], mask,
		p.dx2OverDt, p.dtOverDx2)
	if wholeRowInflow*c >= n {
		return flags, true
	}
	if c > 0 {
		for g, bs := range mask {
			for ; bs != 0; bs &= bs - 1 {
				flags = append(flags, int32(8*g+bits.TrailingZeros8(bs)))
			}
		}
	}
	return flags, false
}

// inflowRowVec sets S of every column of a row with the vector kernel and returns how
// many it set (len(s), or 0 without AVX2): s[x] is inflowColumn(p, above, ka, rx, kr,
// below, kb, top, h, r, x) with ka and kb here unpadded (ka[x] is column x's).
func inflowRowVec(p *stepParams, s, above, ka, rx, kr, below, kb, top, h, r []float32) int {
	n := len(s)
	if !useSIMD || n == 0 {
		return 0
	}
	inflowAVX2(s, above[:n], ka[:n], rx[:n+1], kr[:n+2], below[:n], kb[:n], top[:n], h[:n], r[:n], p.dtOverDx2)
	return n
}

func finalFluxRow(dst, raw, ki, ko, si, so []float32) {
	n := len(dst)
	if !useSIMD || n == 0 {
		finalFluxRowGo(dst, raw, ki, ko, si, so)
		return
	}
	finalFluxAVX2(dst, raw[:n], ki[:n], ko[:n], si[:n], so[:n])
}

func heightRow(p *stepParams, h, r, above, fxm, fxp, below, b, top []float32) {
	n := len(h)
	if !useSIMD || n == 0 {
		heightRowGo(p, h, r, above, fxm, fxp, below, b, top)
		return
	}
	heightAVX2(h, r[:n], above[:n], fxm[:n], fxp[:n], below[:n], b[:n], top[:n], p.dtOverDx2d)
}

// csrOutflowRun is csrOutflowColumns's vector twin for the run's len(k) columns: u holds
// their raw fluxes gathered by gatherCSR (streams csrStreams(ext)), mask is scratch of
// (len(k)+7)/8 bytes. It appends the flagged columns (lo + their index) to flags.
func csrOutflowRun(p *stepParams, lo int, k, s, u, h, r, b, top []float32, ext bool, mask []uint8, flags []int32) []int32 {
	n := len(k)
	s, h, r, b, top = s[:n], h[:n], r[:n], b[:n], top[:n]
	u, mask = u[:csrGroups(n)*8*csrStreams(ext)], mask[:csrGroups(n)]
	var c int
	if ext {
		c = csrOutflowExtAVX2(k, s, u, h, r, b, top, mask, p.dx2OverDt, p.dtOverDx2)
	} else {
		c = csrOutflowAVX2(k, s, u, h, r, b, top, mask, p.dx2OverDt, p.dtOverDx2)
	}
	if c > 0 {
		for g, bs := range mask {
			for ; bs != 0; bs &= bs - 1 {
				flags = append(flags, int32(lo+8*g+bits.TrailingZeros8(bs)))
			}
		}
	}
	return flags
}

// csrHeightRun is csrHeightColumns's vector twin for the run's len(h) columns: u holds
// their final fluxes gathered by gatherCSR (streams csrStreams(ext)).
func csrHeightRun(p *stepParams, h, r, u, b, top []float32, ext bool) {
	n := len(h)
	r, b, top, u = r[:n], b[:n], top[:n], u[:csrGroups(n)*8*csrStreams(ext)]
	if ext {
		csrHeightExtAVX2(h, r, u, b, top, p.dtOverDx2d)
	} else {
		csrHeightAVX2(h, r, u, b, top, p.dtOverDx2d)
	}
}

// gatherStridedRun is gatherStridedGo for groups consecutive strided groups of a run:
// group g's first column's pipes are pp[32g:32g+4], its streams go to u[8*streams*g:]
// (all 8 lanes, also those of a short last group, which the kernels ignore). Every
// group's stretches lie in f (markStrided checked).
func gatherStridedRun(u, f []float32, pp []int32, groups, streams int) {
	if groups == 0 {
		return
	}
	_ = u[8*streams*(groups-1)+31]
	_ = pp[32*(groups-1)+3] // a group's first column's pipes: the last group may be short
	gatherStridedAVX2(u, f, pp, groups, 8*streams)
}

// gatherPairsRun is gatherPairsGo for groups consecutive paired groups: group g's pipes
// are pa and pb[16g:16g+16], their ends' values go to da and db[16g:16g+16]. Every
// group's reads lie in x (markPaired checked).
func gatherPairsRun(da, db, x []float32, pa, pb []int32, groups int) {
	if groups == 0 {
		return
	}
	_, _ = da[16*groups-1], db[16*groups-1]
	_, _ = pa[16*groups-1], pb[16*groups-1]
	gatherPairsAVX2(da, db, x, pa, pb, groups)
}
