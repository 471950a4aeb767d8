package rows

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim/internal/element"
	"github.com/vpbench/vpbench/internal/guard"
)

// edgeValue is a float32 drawn from a pool that mixes ordinary values of the magnitudes
// the solver sees (heights of mm to m, fluxes of 1e-12 to 1e-3, either sign) with the
// edges: both zeros, subnormals, large values, and ref itself (ties).
func edgeValue(rng *rand.Rand, scale, ref float32) float32 {
	switch rng.IntN(12) {
	case 0:
		return 0
	case 1:
		return float32(math.Copysign(0, -1))
	case 2:
		return math.Float32frombits(rng.Uint32N(1 << 23)) // subnormal
	case 3:
		return ref
	case 4:
		return ref + scale*1e-6*(rng.Float32()-0.5)
	case 5:
		return -ref
	case 6:
		return scale * 1e6 * (rng.Float32() - 0.5)
	}
	return scale * float32(math.Pow(10, -4*rng.Float64())) * (rng.Float32()*2 - 1)
}

// randomParams are step parameters like Sim's (dx 0.1 to 2 mm, dt 0.5 to 10 ms) for a
// cross-section and a viscosity (0 = inviscid).
func randomParams(rng *rand.Rand, film bool, nu float64) element.Params {
	dx := 1e-4 * (1 + 19*rng.Float64())
	dt := 5e-4 * (1 + 19*rng.Float64())
	p := element.Params{Dxf: float32(dx),
		Zeta: float32(math.Pow(0.99, dt)), Visc3: float32(3 * dt * nu), Film: film,
		DtOverDx2: float32(dt / (dx * dx)), DtOverDx2d: dt / (dx * dx), Dx2OverDt: float32(dx * dx / dt)}
	p.Accel = float32(dt * 9.81 * dx)
	if film {
		p.Accel = float32(dt * 9.81)
	}
	return p
}

func sameBits(t *testing.T, what string, a, b []float32) {
	t.Helper()
	for j := range a {
		if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
			t.Fatalf("%s[%d]: vector %v (%#x), Go %v (%#x)", what, j, a[j], math.Float32bits(a[j]), b[j], math.Float32bits(b[j]))
		}
	}
}

// guarded is an output of n elements: the vector kernel's (vector) between guard zones
// (guard.Slice), noted in gs to be checked after it ran; the Go twin's a plain slice.
func guarded[T guard.Elem](gs *[]func() error, vector bool, n int) []T {
	if !vector {
		return make([]T, n)
	}
	g := guard.New[T](n)
	*gs = append(*gs, g.Check)
	return g.Out
}

// guardedCopy is guarded holding a copy of src (an output the kernel also reads).
func guardedCopy[T guard.Elem](gs *[]func() error, vector bool, src []T) []T {
	o := guarded[T](gs, vector, len(src))
	copy(o, src)
	return o
}

// checkGuards fails if a vector kernel wrote outside an output of gs, and empties gs.
func checkGuards(t *testing.T, what string, gs *[]func() error) {
	t.Helper()
	for _, check := range *gs {
		if err := check(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	*gs = (*gs)[:0]
}

// TestRowKernelsSIMDMatchGo: each row kernel gives the same bits with the vector code as
// with the Go code, on random and edge inputs (dry, full and overfull columns, zero and
// signed-zero fluxes of either sign, subnormals, ties), for both cross-sections, viscous
// and inviscid, and lengths with and without a tail; and the vector code writes nothing
// around its outputs (guard zones, docs/kernels.md).
func TestRowKernelsSIMDMatchGo(t *testing.T) {
	t.Parallel()
	if !New(true).Vector() {
		t.Skip("no vector row kernels on this machine or build")
	}
	rng := rand.New(rand.NewPCG(7, 11))
	flagged, wetted := 0, 0
	defer func() {
		if flagged < 100 {
			t.Errorf("only %d of 400 rows had a column that may overflow", flagged)
		}
		if wetted < 100 {
			t.Errorf("the contact-line law changed only %d fluxes", wetted)
		}
	}()
	var gs []func() error
	for iter := range 400 {
		n := []int{8, 16, 31, 64, 203, 1, 3, 7, 9, 17}[iter%10]
		film, nu := iter/8%2 == 1, []float64{0, 4e-6, 1e-3}[iter/16%3]
		p := randomParams(rng, film, nu)
		name := fmt.Sprintf("iter %d (n %d, film %v, nu %g)", iter, n, film, nu)
		vec := func(scale float32) []float32 {
			v := make([]float32, n+1)
			for j := range v {
				v[j] = edgeValue(rng, scale, 0)
			}
			return v
		}
		// Heights over floors: dry (h = b), shallow, deep; top at, above or below h.
		b, h, top, r := make([]float32, n+1), make([]float32, n+1), make([]float32, n+1), make([]float32, n+1)
		for j := range h {
			b[j] = 0.01 * rng.Float32()
			switch rng.IntN(4) {
			case 0:
				h[j] = b[j]
			case 1:
				h[j] = b[j] + 1e-6*rng.Float32()
			default:
				h[j] = b[j] + 0.01*rng.Float32()
			}
			switch rng.IntN(4) {
			case 0:
				top[j] = h[j]
			case 1:
				top[j] = h[j] - 1e-6*rng.Float32()
			default:
				top[j] = h[j] + 0.01*rng.Float32()
			}
			r[j] = edgeValue(rng, 1e-9, 0)
			switch rng.IntN(10) { // zero-height columns at 0, with both signs of zero
			case 0:
				b[j], h[j], top[j] = 0, float32(math.Copysign(0, -1)), 0
			case 1:
				b[j], h[j], top[j] = 0, 0, float32(math.Copysign(0, -1))
			}
		}
		ha, hb := h[:n], h[1:]
		ba, bb := b[:n], b[1:]
		prev := vec(1e-6)

		var raw [2][]float32
		for k, on := range []bool{true, false} {
			raw[k] = guarded[float32](&gs, on, n)
			New(on).RawFluxRow(&p, raw[k], prev, ha, hb, ba, bb)
		}
		checkGuards(t, name+" raw flux", &gs)
		sameBits(t, name+" raw flux", raw[0], raw[1])
		// The contact-line law: wetting heads from a tie with a head difference of the row to
		// larger than every one, dry depths around the shallow columns' 1e-6 m.
		pw := p
		pw.Wet = []float32{1e-4, 2e-3, abs32(ha[0] - hb[0]), 0.05}[iter%4]
		pw.DryDepth = []float32{0, 5e-7, 1e-6}[iter/4%3]
		var wet [2][]float32
		for k, on := range []bool{true, false} {
			wet[k] = guarded[float32](&gs, on, n)
			New(on).RawFluxRow(&pw, wet[k], prev, ha, hb, ba, bb)
		}
		checkGuards(t, name+" raw flux with wetting", &gs)
		sameBits(t, name+" raw flux with wetting", wet[0], wet[1])
		for j := range wet[1] {
			if wet[1][j] != raw[1][j] {
				wetted++
			}
		}

		above, rx, below := vec(1e-6), vec(1e-6), vec(1e-6)
		for j := range rx {
			if rng.IntN(8) == 0 {
				rx[j] = raw[0][j%n] // fluxes of the step itself
			}
		}
		var k2, s2 [2][]float32
		var fl [2][]int32
		var all [2]bool
		for k, on := range []bool{true, false} {
			k2[k], s2[k] = guarded[float32](&gs, on, n), guarded[float32](&gs, on, n)
			fl[k], all[k] = New(on).OutflowRow(&p, k2[k], s2[k], above, rx, below, h[:n], r, b, top, make([]int32, 0, n), guarded[uint8](&gs, on, (n+7)/8))
		}
		checkGuards(t, name+" outflow", &gs)
		if all[1] {
			t.Fatalf("%s: the Go path asks for the whole row", name)
		}
		sameBits(t, name+" K", k2[0], k2[1])
		sameBits(t, name+" S", s2[0], s2[1])
		if all[0] { // the vector path listed none: the whole row is computed
			if len(fl[0]) != 0 {
				t.Fatalf("%s: whole row, and flagged columns listed: %v", name, fl[0])
			}
			if WholeRowInflow*len(fl[1]) < n {
				t.Fatalf("%s: whole row for %d flagged columns of %d", name, len(fl[1]), n)
			}
		} else if fmt.Sprint(fl[0]) != fmt.Sprint(fl[1]) {
			t.Fatalf("%s: flagged columns: vector %v, Go %v", name, fl[0], fl[1])
		}

		// S: the flagged columns one by one (the Go path) against every column by the
		// vector kernel, with K rows from the kernel above (padded) and random ones.
		kpad := func(k []float32) []float32 {
			p := make([]float32, n+2)
			copy(p[1:], k)
			return p
		}
		ka, kr, kb := kpad(vec(1)), kpad(k2[1]), kpad(vec(1))
		for j := range ka {
			ka[j], kb[j] = min(abs32(ka[j]), 1), min(abs32(kb[j]), 1)
		}
		sGo := append([]float32(nil), s2[1]...)
		for _, x := range fl[1] {
			sGo[x] = InflowColumn(&p, above, ka, rx, kr, below, kb, top, h, r, int(x))
		}
		sVec := guardedCopy(&gs, true, s2[1])
		done := New(true).InflowRowVec(&p, sVec, above, ka[1:], rx, kr, below, kb[1:], top, h, r)
		checkGuards(t, name+" inflow", &gs)
		for _, x := range fl[1] {
			if int(x) >= done {
				sVec[x] = InflowColumn(&p, above, ka, rx, kr, below, kb, top, h, r, int(x))
			}
		}
		sameBits(t, name+" S (inflow)", sVec, sGo)
		if len(fl[1]) > 0 {
			flagged++
		}

		ki, ko, si, so := vec(1), vec(1), vec(1), vec(1)
		for j := range ki {
			ki[j], ko[j] = abs32(ki[j]), abs32(ko[j])
			if rng.IntN(3) == 0 {
				ki[j] = 1
			}
		}
		var fin [2][]float32
		for k, on := range []bool{true, false} {
			fin[k] = guarded[float32](&gs, on, n)
			New(on).FinalFluxRow(fin[k], raw[0], ki, ko, si, so)
		}
		checkGuards(t, name+" final flux", &gs)
		sameBits(t, name+" final flux", fin[0], fin[1])

		fxm := vec(1e-6)
		for j := range fxm {
			if rng.IntN(4) == 0 {
				fxm[j] = fin[0][j%n]
			}
		}
		var hh, rr [2][]float32
		for k, on := range []bool{true, false} {
			hh[k], rr[k] = guardedCopy(&gs, on, h[:n]), guardedCopy(&gs, on, r[:n])
			New(on).HeightRow(&p, hh[k], rr[k], above, fxm, fxm[1:], below, b, top)
		}
		checkGuards(t, name+" height", &gs)
		sameBits(t, name+" h", hh[0], hh[1])
		sameBits(t, name+" r", rr[0], rr[1])
	}
}

// TestRawFluxFlushesSubnormals: a raw flux below the smallest normal float32 becomes +0
// in the Go and the vector kernels alike; the smallest normal flux is kept.
func TestRawFluxFlushesSubnormals(t *testing.T) {
	t.Parallel()
	minNormal := math.Float32frombits(element.MinNormalBits)
	for _, c := range []struct {
		prev float32
		want float32
	}{
		{1e-40, 0}, {-1e-40, 0}, {float32(math.Copysign(0, -1)), 0},
		{minNormal / 0.5, minNormal / 0.5 * 0.5}, // zeta 0.5 halves it to the smallest normal: kept
		{-2 * minNormal, -minNormal},
	} {
		for _, simd := range []bool{false, true} {
			n := 13 // a vector and a masked tail
			p := element.Params{Zeta: 0.5, Accel: 1}
			dst, prev := make([]float32, n), make([]float32, n)
			level := make([]float32, n)
			for i := range n {
				prev[i], level[i] = c.prev, 0.01
			}
			New(simd).RawFluxRow(&p, dst, prev, level, level, make([]float32, n), make([]float32, n))
			for i, v := range dst {
				if math.Float32bits(v) != math.Float32bits(c.want) {
					t.Fatalf("simd %v: prev %g: dst[%d] = %g (bits %#x), want %g", simd, c.prev, i, v, math.Float32bits(v), c.want)
				}
			}
		}
	}
}

// abs32 is |u|: the sign bit cleared (element's, for drawing K factors).
func abs32(u float32) float32 {
	return math.Float32frombits(math.Float32bits(u) &^ (1 << 31))
}

// TestAssemblyAVX2Only: the generated assembly names no register that only AVX-512 has
// (X16-X31, Y16-Y31, Z0-Z31, K0-K7). avo allocates them when a kernel's body needs more
// than 16 vector registers, and some instructions then assemble (EVEX-encoded) into code
// that faults on a processor with AVX2 alone.
func TestAssemblyAVX2Only(t *testing.T) {
	src, err := os.ReadFile("rows_amd64.s")
	if err != nil {
		t.Skip(err)
	}
	re := regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)
	for n, line := range strings.Split(string(src), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		if m := re.FindString(line); m != "" {
			t.Fatalf("rows_amd64.s:%d: %s: %s", n+1, m, strings.TrimSpace(line))
		}
	}
}
