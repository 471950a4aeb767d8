//go:build !purego

package gpusim

// The row kernels the dense sweep calls, on amd64: the AVX2 kernels of rows_amd64.s
// (written by internal/asmgen with avo) over the longest multiple of 8 elements, their Go
// twins (rows.go) over the rest, and the Go ones alone on a processor without AVX2. Both
// give the same bits (TestRowKernelsSIMDMatchGo), so the choice, made at run time, changes
// only the speed.

import (
	"math/bits"

	"golang.org/x/sys/cpu"
)

//go:generate sh -c "cd internal/asmgen && go run . -out ../../rows_amd64.s -stubs ../../rows_stubs_amd64.go -pkg gpusim"

// useSIMD tells whether the AVX2 kernels run; tests turn it off to compare.
var useSIMD = cpu.X86.HasAVX2

func rawFluxRow(p *stepParams, dst, prev, ha, hb, ba, bb []float32) {
	if m := len(dst) &^ 7; useSIMD && m > 0 {
		d, f, a, b, fa, fb := dst[:m], prev[:m], ha[:m], hb[:m], ba[:m], bb[:m]
		switch {
		case p.film && p.visc3 > 0:
			rawFluxFilmViscAVX2(d, f, a, b, fa, fb, p.zeta, p.accel, p.dxf, p.visc3)
		case p.film:
			rawFluxFilmAVX2(d, f, a, b, fa, fb, p.zeta, p.accel, p.dxf, p.visc3)
		case p.visc3 > 0:
			rawFluxPaperViscAVX2(d, f, a, b, fa, fb, p.zeta, p.accel, p.dxf, p.visc3)
		default:
			rawFluxPaperAVX2(d, f, a, b, fa, fb, p.zeta, p.accel, p.dxf, p.visc3)
		}
		if m == len(dst) {
			return
		}
		dst, prev, ha, hb, ba, bb = dst[m:], prev[m:], ha[m:], hb[m:], ba[m:], bb[m:]
	}
	rawFluxRowGo(p, dst, prev, ha, hb, ba, bb)
}

// outflowRow is outflowRowGo; mask is scratch of at least len(k)/8 bytes. When many
// columns are flagged (a flooded row) it returns all = true and lists only those past
// the vector part (the columns inflowRowVec does not cover): the caller then computes S
// for the whole row (inflowRowVec), which is cheaper than listing them.
func outflowRow(p *stepParams, k, s, above, rx, below, h, r, b, top []float32, flags []int32, mask []uint8) (_ []int32, all bool) {
	off := 0
	if m := len(k) &^ 7; useSIMD && m > 0 {
		mask = mask[:m/8]
		n := outflowAVX2(k[:m], s[:m], above[:m], rx[:m+1], below[:m], h[:m], r[:m], b[:m], top[:m], mask,
			p.dx2OverDt, p.dtOverDx2)
		all = 16*n >= len(k)
		if n > 0 && !all {
			for g, bs := range mask {
				for ; bs != 0; bs &= bs - 1 {
					flags = append(flags, int32(8*g+bits.TrailingZeros8(bs)))
				}
			}
		}
		if m == len(k) {
			return flags, all
		}
		k, s, above, rx, below, h, r, b, top = k[m:], s[m:], above[m:], rx[m:], below[m:], h[m:], r[m:], b[m:], top[m:]
		off = m
	}
	return outflowRowGo(p, k, s, above, rx, below, h, r, b, top, flags, off), all
}

// inflowRowVec sets S of the first columns of a row, the longest multiple of 8 of them,
// with the vector kernel, and returns how many it set (0 without AVX2): for x below it, s[x]
// is inflowColumn(p, above, ka, rx, kr, below, kb, top, h, r, x) with ka and kb here
// unpadded (ka[x] is column x's).
func inflowRowVec(p *stepParams, s, above, ka, rx, kr, below, kb, top, h, r []float32) int {
	m := len(s) &^ 7
	if !useSIMD || m == 0 {
		return 0
	}
	inflowAVX2(s[:m], above[:m], ka[:m], rx[:m+1], kr[:m+2], below[:m], kb[:m], top[:m], h[:m], r[:m], p.dtOverDx2)
	return m
}

func finalFluxRow(dst, raw, ki, ko, si, so []float32) {
	if m := len(dst) &^ 7; useSIMD && m > 0 {
		finalFluxAVX2(dst[:m], raw[:m], ki[:m], ko[:m], si[:m], so[:m])
		if m == len(dst) {
			return
		}
		dst, raw, ki, ko, si, so = dst[m:], raw[m:], ki[m:], ko[m:], si[m:], so[m:]
	}
	finalFluxRowGo(dst, raw, ki, ko, si, so)
}

func heightRow(p *stepParams, h, r, above, fxm, fxp, below, b, top []float32) {
	if m := len(h) &^ 7; useSIMD && m > 0 {
		heightAVX2(h[:m], r[:m], above[:m], fxm[:m], fxp[:m], below[:m], b[:m], top[:m], p.dtOverDx2d)
		if m == len(h) {
			return
		}
		h, r, above, fxm, fxp, below, b, top = h[m:], r[m:], above[m:], fxm[m:], fxp[m:], below[m:], b[m:], top[m:]
	}
	heightRowGo(p, h, r, above, fxm, fxp, below, b, top)
}
