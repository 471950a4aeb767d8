package waves

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vpbench/vpbench/internal/guard"
)

// addFoots (SSE2 assembly on amd64) and addFootsGo give the same bits, and so does a sum
// with axisWeights' weights, row by row; the assembly writes nothing around dst (guard
// zones), whose first and last elements the footprints reach, on rows of several
// widths.
func TestAddFoots(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	jobs := make([]foot6, 0, 8)
	for trial := range 5000 {
		n := []int{6, 7, 9, 13, 40}[trial%5] // row width, cells
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
				p.offs[q] = int32(q*n + rng.IntN(n-5))
			}
			if rng.IntN(4) == 0 { // the footprint's corners at dst's ends
				p.r0, p.r1 = 0, 6
				p.offs[0], p.offs[5] = 0, int32(6*n-6)
			}
			jobs = append(jobs, p)
		}
		a := make([]float32, 6*n)
		for i := range a {
			a[i] = float32(rng.NormFloat64() * 1e-4)
		}
		b, c := append([]float32(nil), a...), append([]float32(nil), a...)
		ga := guard.From(a)
		a = ga.Out
		addFoots(foot6Asm, a, jobs)
		if err := ga.Check(); err != nil {
			t.Fatalf("trial %d, %+v: %v", trial, jobs, err)
		}
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

// The field is the same with addFoots' assembly as with its Go twin (the System's
// choice, core.vector), over the busy test scene.
func TestFieldVectorSameAsGo(t *testing.T) {
	if !foot6Asm {
		t.Skip("no assembly for addFoots in this build")
	}
	var d [2][]float32
	for k, vector := range []bool{true, false} {
		cols, f, ims := scene(t)
		st := Water()
		st.MinAmplitude = 1e-8
		st.Workers = 2
		s := newSystem(t, cols, st)
		s.c.vector = vector
		for _, im := range ims {
			s.Impact(im)
		}
		s.Advance(0.2, f)
		d[k] = s.Displacement(nil, f)
	}
	moved := 0
	for i := range d[0] {
		if math.Float32bits(d[0][i]) != math.Float32bits(d[1][i]) {
			t.Fatalf("column %d: %g with the assembly, %g with addFootsGo", i, d[0][i], d[1][i])
		}
		if d[0][i] != 0 {
			moved++
		}
	}
	if moved < len(d[0])/10 {
		t.Fatalf("only %d of %d columns displaced", moved, len(d[0]))
	}
}
