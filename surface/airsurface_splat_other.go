//go:build !amd64 || purego

package surface

// airVector: there are no vector kernels in this build.
const airVector = false

// airSplat is airSplatGo.
func airSplat(field []float32, written *[airRowWords]uint64, pl []uint32, a *airSplatArgs) {
	airSplatGo(field, written, pl, a)
}

// airRowMask is airRowMaskGo.
func airRowMask(field []float32, row int32) uint64 { return airRowMaskGo(field, row) }

// airPlanes is airPlanesGo.
func airPlanes(dst []uint32, a *airPlanesArgs) { airPlanesGo(dst, a) }

// airLone is airLoneGo.
func airLone(pos, nor []float32, p *airLoneArgs) { airLoneGo(pos, nor, p) }
