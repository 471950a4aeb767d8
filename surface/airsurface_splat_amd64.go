//go:build !purego

package surface

import "golang.org/x/sys/cpu"

// airHasVector: the processor has what the AVX2 kernels need (AVX2 and BMI2).
var airHasVector = cpu.X86.HasAVX2 && cpu.X86.HasBMI2

// newAirKernels returns the AVX2 kernels if vector is set and the processor has them,
// else the Go twins.
func newAirKernels(vector bool) airKernels { return airKernels{vector: vector && airHasVector} }

// splat is airSplatGo, in AVX2 assembly where ks are the vector kernels.
func (ks airKernels) splat(field []float32, written *[airRowWords]uint64, pl []uint32, a *airSplatArgs) {
	if !ks.vector {
		airSplatGo(field, written, pl, a)
		return
	}
	// The assembly writes only within lo..hi, which splat keeps in the buffer.
	_ = field[airDim*airDim*airDim-1]
	if len(pl) > 0 {
		airSplatAVX2(&field[0], &written[0], &pl[0], len(pl), a)
	}
}

// airSplatAVX2 is airSplatGo in AVX2 assembly (airsurface_splat_amd64.s), on np planes'
// ranges at pl: eight points of a row at a time (the last n%8 with masked loads and
// stores), every operation the IEEE operation Go's code does on the same operands,
// without fusing.
//
//go:noescape
func airSplatAVX2(field *float32, written *uint64, pl *uint32, np int, a *airSplatArgs)

// rowMask is airRowMaskGo, in AVX2 assembly where ks are the vector kernels.
func (ks airKernels) rowMask(field []float32, row int32) uint64 {
	if !ks.vector {
		return airRowMaskGo(field, row)
	}
	return airRowMaskAVX2(&field[row*airDim : row*airDim+airDim+airRowPad][0], airIso)
}

// airRowMaskAVX2 is airRowMaskGo in AVX2 assembly: five compares of eight values (the
// last reads airRowPad values past the row, which it leaves out).
//
//go:noescape
func airRowMaskAVX2(f *float32, iso float32) uint64

// planes is airPlanesGo, in AVX2 assembly where ks are the vector kernels.
func (ks airKernels) planes(dst []uint32, a *airPlanesArgs) {
	if !ks.vector {
		airPlanesGo(dst, a)
		return
	}
	if len(dst) > 0 {
		airPlanesAVX2(&dst[0], len(dst), a)
	}
}

// airPlanesAVX2 is airPlanesGo in AVX2 assembly, eight planes at a time (the last n%8
// with a masked store).
//
//go:noescape
func airPlanesAVX2(dst *uint32, n int, a *airPlanesArgs)

// lone is airLoneGo, in AVX2 assembly where ks are the vector kernels.
func (ks airKernels) lone(pos, nor []float32, p *airLoneArgs) {
	if !ks.vector {
		airLoneGo(pos, nor, p)
		return
	}
	_, _ = pos[3*len(airLoneVerts)-1], nor[3*len(airLoneVerts)-1]
	airLoneAVX2(&pos[0], &nor[0], p, &airLoneSoA)
}

// airLoneAVX2 is airLoneGo in AVX2 assembly, eight vertices at a time (the last two with
// masked stores), their x, y and z interleaved by permutes.
//
//go:noescape
func airLoneAVX2(pos, nor *float32, p *airLoneArgs, t *[3][48]float32)
