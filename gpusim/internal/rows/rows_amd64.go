//go:build !purego && !cuda

package rows

// The row kernels on amd64: the AVX2 kernels of rows_amd64.s (written by
// gpusim/internal/asmgen with avo), one call a row (the last n%8 elements with masked
// loads and stores), or their Go twins (rows.go) on a processor without AVX2 or where
// the caller asks for them. Both give the same bits (TestRowKernelsSIMDMatchGo), so the
// choice changes only the speed.
//
// The cuda build (-tags cuda) takes the Go twins (rows_other.go), as it had to while
// these kernels lived in gpusim: that package uses cgo, and the go command assembles a
// cgo package's .s files with the C toolchain, which cannot read Go assembly. This
// package has no cgo, so the cuda build could assemble them now; it keeps the Go twins
// so that moving the kernels changed no build's code.
//
// The wrappers cut every slice to the kernel's length, so the assembly never reads or
// writes past one (a short slice panics here instead).

import (
	"math/bits"

	"github.com/vpbench/vpbench/gpusim/internal/element"
	"golang.org/x/sys/cpu"
)

//go:generate sh -c "cd ../asmgen && go run . -out ../rows/rows_amd64.s -stubs ../rows/rows_stubs_amd64.go -pkg rows"

// New returns the AVX2 kernels if vector is set and the processor has AVX2, else the Go
// twins.
func New(vector bool) Kernels { return Kernels{vector: vector && cpu.X86.HasAVX2} }

// RawFluxRow is the flux update of len(dst) pipes (rawFluxRowGo).
func (ks Kernels) RawFluxRow(p *element.Params, dst, prev, ha, hb, ba, bb []float32) {
	n := len(dst)
	if !ks.vector || n == 0 {
		rawFluxRowGo(p, dst, prev, ha, hb, ba, bb)
		return
	}
	f, a, b, fa, fb := prev[:n], ha[:n], hb[:n], ba[:n], bb[:n]
	if p.Wet > 0 {
		switch {
		case p.Film && p.Visc3 > 0:
			rawFluxFilmViscWetAVX2(dst, f, a, b, fa, fb, p.Zeta, p.Accel, p.Dxf, p.Visc3, p.Wet, p.DryDepth)
		case p.Film:
			rawFluxFilmWetAVX2(dst, f, a, b, fa, fb, p.Zeta, p.Accel, p.Dxf, p.Visc3, p.Wet, p.DryDepth)
		case p.Visc3 > 0:
			rawFluxPaperViscWetAVX2(dst, f, a, b, fa, fb, p.Zeta, p.Accel, p.Dxf, p.Visc3, p.Wet, p.DryDepth)
		default:
			rawFluxPaperWetAVX2(dst, f, a, b, fa, fb, p.Zeta, p.Accel, p.Dxf, p.Visc3, p.Wet, p.DryDepth)
		}
		return
	}
	switch {
	case p.Film && p.Visc3 > 0:
		rawFluxFilmViscAVX2(dst, f, a, b, fa, fb, p.Zeta, p.Accel, p.Dxf, p.Visc3)
	case p.Film:
		rawFluxFilmAVX2(dst, f, a, b, fa, fb, p.Zeta, p.Accel, p.Dxf, p.Visc3)
	case p.Visc3 > 0:
		rawFluxPaperViscAVX2(dst, f, a, b, fa, fb, p.Zeta, p.Accel, p.Dxf, p.Visc3)
	default:
		rawFluxPaperAVX2(dst, f, a, b, fa, fb, p.Zeta, p.Accel, p.Dxf, p.Visc3)
	}
}

// OutflowRow is outflowRowGo; mask is scratch of at least (len(k)+7)/8 bytes. When many
// columns are flagged (a flooded row) it returns all = true and lists none: the caller
// then computes S for the whole row (InflowRowVec), which is cheaper than listing them.
func (ks Kernels) OutflowRow(p *element.Params, k, s, above, rx, below, h, r, b, top []float32, flags []int32, mask []uint8) (_ []int32, all bool) {
	n := len(k)
	if !ks.vector || n == 0 {
		return outflowRowGo(p, k, s, above, rx, below, h, r, b, top, flags, 0), false
	}
	mask = mask[:(n+7)/8]
	c := outflowAVX2(k, s[:n], above[:n], rx[:n+1], below[:n], h[:n], r[:n], b[:n], top[:n], mask,
		p.Dx2OverDt, p.DtOverDx2)
	if WholeRowInflow*c >= n {
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

// InflowRowVec sets S of every column of a row with the vector kernel and returns how
// many it set (len(s), or 0 with the Go twins): s[x] is InflowColumn(p, above, ka, rx,
// kr, below, kb, top, h, r, x) with ka and kb here unpadded (ka[x] is column x's).
func (ks Kernels) InflowRowVec(p *element.Params, s, above, ka, rx, kr, below, kb, top, h, r []float32) int {
	n := len(s)
	if !ks.vector || n == 0 {
		return 0
	}
	inflowAVX2(s, above[:n], ka[:n], rx[:n+1], kr[:n+2], below[:n], kb[:n], top[:n], h[:n], r[:n], p.DtOverDx2)
	return n
}

// FinalFluxRow scales len(dst) raw fluxes (finalFluxRowGo).
func (ks Kernels) FinalFluxRow(dst, raw, ki, ko, si, so []float32) {
	n := len(dst)
	if !ks.vector || n == 0 {
		finalFluxRowGo(dst, raw, ki, ko, si, so)
		return
	}
	finalFluxAVX2(dst, raw[:n], ki[:n], ko[:n], si[:n], so[:n])
}

// HeightRow is the height update of len(h) columns (heightRowGo).
func (ks Kernels) HeightRow(p *element.Params, h, r, above, fxm, fxp, below, b, top []float32) {
	n := len(h)
	if !ks.vector || n == 0 {
		heightRowGo(p, h, r, above, fxm, fxp, below, b, top)
		return
	}
	heightAVX2(h, r[:n], above[:n], fxm[:n], fxp[:n], below[:n], b[:n], top[:n], p.DtOverDx2d)
}

// CSROutflowRun is the vector twin of the general layout's outflow column loop for the
// run's len(k) columns: u holds their raw fluxes gathered as CSRStreams(ext) says, mask
// is scratch of CSRGroups(len(k)) bytes. It appends the flagged columns (lo + their
// index) to flags. Only where Kernels.Vector.
func CSROutflowRun(p *element.Params, lo int, k, s, u, h, r, b, top []float32, ext bool, mask []uint8, flags []int32) []int32 {
	n := len(k)
	s, h, r, b, top = s[:n], h[:n], r[:n], b[:n], top[:n]
	u, mask = u[:CSRGroups(n)*8*CSRStreams(ext)], mask[:CSRGroups(n)]
	var c int
	if ext {
		c = csrOutflowExtAVX2(k, s, u, h, r, b, top, mask, p.Dx2OverDt, p.DtOverDx2)
	} else {
		c = csrOutflowAVX2(k, s, u, h, r, b, top, mask, p.Dx2OverDt, p.DtOverDx2)
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

// CSRHeightRun is the vector twin of the general layout's height column loop for the
// run's len(h) columns: u holds their final fluxes gathered as CSRStreams(ext) says. Only
// where Kernels.Vector.
func CSRHeightRun(p *element.Params, h, r, u, b, top []float32, ext bool) {
	n := len(h)
	r, b, top, u = r[:n], b[:n], top[:n], u[:CSRGroups(n)*8*CSRStreams(ext)]
	if ext {
		csrHeightExtAVX2(h, r, u, b, top, p.DtOverDx2d)
	} else {
		csrHeightAVX2(h, r, u, b, top, p.DtOverDx2d)
	}
}

// GatherStridedRun gathers groups consecutive strided groups of a run (gatherStridedGo in
// the tests): group g's first column's pipes are pp[32g:32g+4], its streams go to
// u[8*streams*g:] (all 8 lanes, also those of a short last group, which the kernels
// ignore). Every group's stretches lie in f (the caller checked). Only where
// Kernels.Vector.
func GatherStridedRun(u, f []float32, pp []int32, groups, streams int) {
	if groups == 0 {
		return
	}
	_ = u[8*streams*(groups-1)+31]
	_ = pp[32*(groups-1)+3] // a group's first column's pipes: the last group may be short
	gatherStridedAVX2(u, f, pp, groups, 8*streams)
}

// GatherPairsRun gathers groups consecutive paired groups (gatherPairsGo in the tests):
// group g's pipes are pa and pb[16g:16g+16], their ends' values go to da and
// db[16g:16g+16]. Every group's reads lie in x (the caller checked). Only where
// Kernels.Vector.
func GatherPairsRun(da, db, x []float32, pa, pb []int32, groups int) {
	if groups == 0 {
		return
	}
	_, _ = da[16*groups-1], db[16*groups-1]
	_, _ = pa[16*groups-1], pb[16*groups-1]
	gatherPairsAVX2(da, db, x, pa, pb, groups)
}

// CapHeadRow is the capillary head of len(drive) columns with both x neighbours
// (capHeadRowGo: h, b and w hold len(drive)+2 columns, the others len(drive)), whether
// some driving depth is at most p.Dry (LowDrive) and whether some +y neighbour is dry.
func (ks Kernels) CapHeadRow(p *CapParams, drive []float32, next []uint8, keep, h, b []float32, w []uint8, hm, bm []float32, wm []uint8, hp, bp []float32, wp []uint8, prev []float32) (low, nextDry bool) {
	n := len(drive)
	if !ks.vector || n == 0 {
		return capHeadRowGo(p, drive, next, keep, h, b, w, hm, bm, wm, hp, bp, wp, prev)
	}
	var heal, mark uint32
	if p.Heal {
		heal = ^uint32(0)
	}
	if p.Mark != 0 {
		mark = 1
	}
	r := capHeadAVX2(drive, next[:n], keep[:n], h[:n+2], b[:n+2], w[:n+2], hm[:n], bm[:n], wm[:n], hp[:n], bp[:n], wp[:n], prev[:n],
		p.Dry, p.Hole, p.Recede, p.Corner, p.Damp, heal, mark)
	return r&1 != 0, r&2 != 0
}

// CapRiseRow is the capillary head of len(drive) wet columns with no dry neighbour (their
// flags the mark), and whether some driving depth is at most dry and whether the next row
// (hn, bn) holds a dry column (capRiseRowGo).
func (ks Kernels) CapRiseRow(damp, dry float32, mark uint8, drive []float32, next []uint8, keep, h, b, prev, hn, bn []float32) (low, nextDry bool) {
	n := len(drive)
	if !ks.vector || n == 0 {
		return capRiseRowGo(damp, dry, mark, drive, next, keep, h, b, prev, hn, bn)
	}
	r := capRiseAVX2(drive, next[:n], keep[:n], h[:n], b[:n], prev[:n], hn[:n], bn[:n], damp, dry, 0x0101010101010101*uint64(mark))
	return r&1 != 0, r&2 != 0
}

// DrySpan is the first and last column of the row that is dry (h[j] - b[j] <= dry), -1
// and -1 where none is (drySpanGo).
func (ks Kernels) DrySpan(h, b []float32, dry float32) (first, last int) {
	n := len(h)
	if !ks.vector || n == 0 {
		return drySpanGo(h, b, dry)
	}
	return drySpanAVX2(h, b[:n], dry)
}
