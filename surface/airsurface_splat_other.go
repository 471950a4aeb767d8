//go:build !amd64 || purego

package surface

// There are no vector kernels in this build: airKernels are always the Go twins.

// newAirKernels returns the Go twins.
func newAirKernels(vector bool) airKernels { return airKernels{} }

// splat is airSplatGo.
func (ks airKernels) splat(field []float32, written *[airRowWords]uint64, pl []uint32, a *airSplatArgs) {
	airSplatGo(field, written, pl, a)
}

// rowMask is airRowMaskGo.
func (ks airKernels) rowMask(field []float32, row int32) uint64 { return airRowMaskGo(field, row) }

// planes is airPlanesGo.
func (ks airKernels) planes(dst []uint32, a *airPlanesArgs) { airPlanesGo(dst, a) }

// lone is airLoneGo.
func (ks airKernels) lone(pos, nor []float32, p *airLoneArgs) { airLoneGo(pos, nor, p) }
