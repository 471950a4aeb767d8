package liquid3d

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSplatInteriorSameBits: splat's and splatWeight's interior paths give the bits of
// splatClipped, the loop with its bounds tests, for particles inside, on the border and
// beyond it, with negative affine parts (a zero's sign) included.
func TestSplatInteriorSameBits(t *testing.T) {
	const n0, n1, n2 = 7, 6, 5
	r := rand.New(rand.NewPCG(1, 2))
	f, m := make([]float32, n0*n1*n2), make([]float32, n0*n1*n2)
	g, q := make([]float32, n0*n1*n2), make([]float32, n0*n1*n2)
	w1, w2 := make([]float32, n0*n1*n2), make([]float32, n0*n1*n2)
	for range 20000 {
		tx := float32(r.Float64()*(n0+1) - 1)
		ty := float32(r.Float64()*(n1+1) - 1)
		tz := float32(r.Float64()*(n2+1) - 1)
		vol := float32(r.Float64() * 1e-9)
		val, cx, cy, cz := float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())
		if r.IntN(8) == 0 {
			cx, cy, cz = float32(math.Copysign(0, -1)), 0, float32(math.Copysign(0, -1))
		}
		splat(f, m, n0, n1, n2, tx, ty, tz, vol, val, cx, cy, cz)
		splatClipped(g, q, n0, n1, n2, tx, ty, tz, vol, val, cx, cy, cz)
		splatWeight(w1, n0, n1, n2, tx, ty, tz, vol)
		splatClipped(make([]float32, n0*n1*n2), w2, n0, n1, n2, tx, ty, tz, vol, 0, 0, 0, 0)
	}
	for i := range f {
		if math.Float32bits(f[i]) != math.Float32bits(g[i]) || math.Float32bits(m[i]) != math.Float32bits(q[i]) {
			t.Fatalf("node %d: splat %v, %v; the loop %v, %v", i, f[i], m[i], g[i], q[i])
		}
		if math.Float32bits(w1[i]) != math.Float32bits(w2[i]) {
			t.Fatalf("node %d: splatWeight %v, the loop %v", i, w1[i], w2[i])
		}
	}
}
