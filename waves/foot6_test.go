package waves

import (
	"math"
	"math/rand/v2"
	"testing"
)

// addFoots (SSE2 assembly on amd64) and addFootsGo give the same bits, and so does a sum
// with axisWeights' weights, row by row.
func TestAddFoots(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 40
	jobs := make([]foot6, 0, 8)
	for trial := range 5000 {
		jobs = jobs[:0]
		for range 1 + rng.IntN(7) {
			rr := 3.0
			if trial%3 == 1 {
				rr = 2.6 + rng.Float64()*0.8 // other radii whose footprint can be 6 wide
			}
			s := 1 / rr
			var p foot6
			p.ux, p.uy = -1+rng.Float64()*s, -1+rng.Float64()*s
			if trial%7 == 0 {
				p.uy = -1 + rng.Float64()*1.1 // a first row clipped by the grid's side
			}
			if !(p.ux > -1 && p.uy > -1) {
				continue
			}
			p.s, p.twoCos, p.twoCos2 = s, 2*math.Cos(math.Pi*s), 2*math.Cos(2*math.Pi*s)
			p.a = float32(rng.NormFloat64() * 1e-4)
			p.r0 = int32(rng.IntN(6))
			p.r1 = p.r0 + 1 + int32(rng.IntN(6-int(p.r0)))
			for q := range p.offs {
				p.offs[q] = int32(q*n + rng.IntN(n-6))
			}
			jobs = append(jobs, p)
		}
		a := make([]float32, 6*n)
		for i := range a {
			a[i] = float32(rng.NormFloat64() * 1e-4)
		}
		b, c := append([]float32(nil), a...), append([]float32(nil), a...)
		addFoots(a, jobs)
		addFootsGo(b, jobs)
		for _, p := range jobs {
			var wx, wy [6]float32
			axisWeights(wx[:], p.ux, p.s, p.twoCos, p.twoCos2)
			axisWeights(wy[:p.r1], p.uy, p.s, p.twoCos, p.twoCos2)
			for q := p.r0; q < p.r1; q++ {
				wj := wy[q] * p.a
				for k, v := range wx {
					c[int(p.offs[q])+k] += float32(wj * v)
				}
			}
		}
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) || math.Float32bits(a[i]) != math.Float32bits(c[i]) {
				t.Fatalf("trial %d, %+v: element %d: addFoots %g, addFootsGo %g, axisWeights %g", trial, jobs, i, a[i], b[i], c[i])
			}
		}
	}
}
