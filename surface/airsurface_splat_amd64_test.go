//go:build !purego

package surface

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vpbench/vpbench/internal/guard"
)

// The AVX2 kernels give airSplatGo's, airPlanesGo's, airRowMaskGo's and airLoneGo's
// bits, on random drops cut by random tiles (planes of up to 40 points and 35 rows,
// clipped at either side) and random lone drops, and the whole mesh is the same with
// and without them. They write nothing around their outputs (guard zones: the tile's
// buffer, the planes' ranges, of lengths 2 to some 50, and the lone drop's vertices).
func TestAirSplatAVX2MatchesGo(t *testing.T) {
	vk := newAirKernels(true)
	if !vk.vector {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	n := airDim*airDim*airDim + airRowPad
	gfa := guard.New[float32](n)
	fa, fg := gfa.Out, make([]float32, n)
	clear(fa)
	for trial := range 3000 {
		// A kernel: radius 0.9-12 cells, stretch 1-3 along a random direction.
		r := 0.9 + rng.Float64()*rng.Float64()*11
		s := 1 + 2*rng.Float64()
		ra, rb := 2*r*s, 2*r/math.Sqrt(s)
		u := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		l := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
		for ax := range u {
			u[ax] /= l
		}
		ib, dd := 1/(rb*rb), 1/(ra*ra)-1/(rb*rb)
		dn := ra*ra - rb*rb
		var d airDrop
		d.m = [6]float32{float32(ib + dd*u[0]*u[0]), float32(ib + dd*u[1]*u[1]), float32(ib + dd*u[2]*u[2]),
			float32(dd * u[0] * u[1]), float32(dd * u[0] * u[2]), float32(dd * u[1] * u[2])}
		nn := [3]float64{rb*rb + dn*u[0]*u[0], rb*rb + dn*u[1]*u[1], rb*rb + dn*u[2]*u[2]}
		var w [3]int32
		for ax := range 3 {
			e := math.Sqrt(nn[ax])
			p := e + rng.Float64() // the centre from the box's low corner
			d.c[ax] = float32(p)
			w[ax] = int32(math.Floor(p + e))
		}
		inzz := 1 / nn[2]
		nxz, nyz := dn*u[0]*u[2]*inzz, dn*u[1]*u[2]*inzz
		d.pk = [5]float32{float32(inzz), float32(nxz), float32(nyz),
			float32(math.Sqrt(nn[0] - dn*u[0]*u[2]*nxz)), float32(math.Sqrt(nn[1] - dn*u[1]*u[2]*nyz))}
		pa := airPlanesArgs{c: d.c, pk: d.pk, wx: w[0], wy: w[1]}
		gpl := guard.New[uint32](int(w[2] + 1))
		pla, plg := gpl.Out, make([]uint32, w[2]+1)
		vk.planes(pla, &pa)
		if err := gpl.Check(); err != nil {
			t.Fatalf("trial %d: planes: %v", trial, err)
		}
		airPlanesGo(plg, &pa)
		for z := range pla {
			if pla[z] != plg[z] {
				t.Fatalf("trial %d: plane %d: range %#x, Go %#x", trial, z, pla[z], plg[z])
			}
		}
		// The box at a random place against a tile's buffer.
		var a airSplatArgs
		a.m, a.c = d.m, d.c
		empty := false
		for ax := range 3 {
			a.o[ax] = int32(rng.IntN(int(airDim+w[ax]))) - w[ax]
			a.lo[ax], a.hi[ax] = max(a.o[ax], 0), min(a.o[ax]+w[ax], airDim-1)
			empty = empty || a.lo[ax] > a.hi[ax]
		}
		if empty {
			continue
		}
		pl := pla[a.lo[2]-a.o[2] : a.hi[2]-a.o[2]+1]
		var wa, wg [airRowWords]uint64
		vk.splat(fa, &wa, pl, &a)
		if err := gfa.Check(); err != nil {
			t.Fatalf("trial %d: splat: %v", trial, err)
		}
		airSplatGo(fg, &wg, pl, &a)
		if wa != wg {
			t.Fatalf("trial %d: rows written %x, Go %x", trial, wa, wg)
		}
		for i := range fa {
			if math.Float32bits(fa[i]) != math.Float32bits(fg[i]) {
				t.Fatalf("trial %d: point %d: %g, Go %g", trial, i, fa[i], fg[i])
			}
		}
		for row := range int32(airDim * airDim) {
			if m, mg := vk.rowMask(fa, row), airRowMaskGo(fg, row); m != mg {
				t.Fatalf("trial %d: row %d: mask %x, Go %x", trial, row, m, mg)
			}
		}
		if trial%64 == 0 { // the buffers start empty again now and then
			clear(fa)
			clear(fg)
		}
	}

	// The lone drops' template, on random drops at rest and moving.
	for trial := range 1000 {
		s := float32(1)
		var u [3]float32
		if trial%4 != 0 {
			s = 1 + 2*rng.Float32()
			v := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
			u = [3]float32{float32(v[0] / l), float32(v[1] / l), float32(v[2] / l)}
		}
		r := 0.0001 + 0.001*rng.Float32()
		p := airLoneArgs{x: rng.Float32() * 0.1, y: rng.Float32() * 0.1, z: rng.Float32() * 0.05,
			ra: r * s, rb: r / float32(math.Sqrt(float64(s))), na: 1 / s, nb: float32(math.Sqrt(float64(s))), u: u}
		n := 3 * len(airLoneVerts)
		gpa, gna := guard.New[float32](n), guard.New[float32](n)
		pa, na, pg, ng := gpa.Out, gna.Out, make([]float32, n), make([]float32, n)
		vk.lone(pa, na, &p)
		airLoneGo(pg, ng, &p)
		for _, g := range []guard.Slice[float32]{gpa, gna} {
			if err := g.Check(); err != nil {
				t.Fatalf("lone trial %d: %v", trial, err)
			}
		}
		for i := range n {
			if math.Float32bits(pa[i]) != math.Float32bits(pg[i]) || math.Float32bits(na[i]) != math.Float32bits(ng[i]) {
				t.Fatalf("lone trial %d, value %d: position %g normal %g, Go %g %g", trial, i, pa[i], na[i], pg[i], ng[i])
			}
		}
	}

	drops := airBenchDrops(2000)
	vec, _ := airMesh(t, 2, drops...)
	s := DefaultAirSettings()
	s.Workers = 2
	a := NewAirSurface(s)
	a.kern = newAirKernels(false)
	ref := a.Append(&Mesh{}, drops, airBox)
	if !sameMesh(ref, vec) {
		t.Fatal("the AVX2 kernels give another mesh than the Go ones")
	}
}
