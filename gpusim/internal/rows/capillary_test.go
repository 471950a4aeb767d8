package rows

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// capRow is a random row for the capillary head's kernels: n columns with both x
// neighbours (h, b and w hold n+2), the rows before and after (n each), the last pass's
// heights. Depths are drawn around the thresholds the head tests (dry at, just below and
// above the dry depth; wet just below, at and above the receding head), floors tie with
// the neighbours' heights and floors, neighbours are absent (the grid's border), flags
// are 0 or 1, heights equal their last pass's or moved by an ulp or a millimetre, and
// zeros of both signs appear.
type capRow struct {
	h, b, hm, bm, hp, bp, prev []float32
	w, wm, wp                  []uint8
}

func randomCapRow(rng *rand.Rand, n int, p *CapParams) capRow {
	wetRow := rng.IntN(3) == 0 // nearly every column wet: the kernels' groups without a dry column
	r := capRow{h: make([]float32, n+2), b: make([]float32, n+2), w: make([]uint8, n+2),
		hm: make([]float32, n), bm: make([]float32, n), wm: make([]uint8, n),
		hp: make([]float32, n), bp: make([]float32, n), wp: make([]uint8, n), prev: make([]float32, n)}
	depth := func() float32 {
		if wetRow && rng.IntN(40) != 0 {
			return p.Dry + 0.004*rng.Float32()
		}
		switch rng.IntN(10) {
		case 0:
			return 0
		case 1:
			return p.Dry
		case 2:
			return p.Dry * (1 - 1e-6*float32(rng.IntN(3)))
		case 3:
			return math.Nextafter32(p.Dry, 1)
		case 4:
			return p.Recede
		case 5:
			return p.Recede * rng.Float32()
		case 6:
			return float32(math.Copysign(0, -1))
		case 7:
			return p.Recede - p.Corner // a straight stretch's receding threshold
		}
		return 0.004 * rng.Float32()
	}
	floor := func(near []float32) float32 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			if len(near) > 0 {
				return near[rng.IntN(len(near))] // a floor at a neighbour's height or floor
			}
		}
		return 0.003 * rng.Float32()
	}
	col := func(hs, bs []float32, ws []uint8, j int, near []float32) {
		bs[j] = floor(near)
		hs[j] = bs[j] + depth()
		if rng.IntN(12) == 0 { // zero-height columns on a zero floor, both signs
			bs[j], hs[j] = 0, float32(math.Copysign(0, -1))
		}
		ws[j] = uint8(rng.IntN(2))
	}
	for j := range r.h {
		col(r.h, r.b, r.w, j, r.h[:j])
	}
	for j := range n {
		near := []float32{r.h[j+1], r.b[j+1], r.h[j], r.b[j+2]}
		col(r.hm, r.bm, r.wm, j, near)
		col(r.hp, r.bp, r.wp, j, near)
		switch rng.IntN(4) {
		case 0:
			r.prev[j] = r.h[j+1]
		case 1:
			r.prev[j] = math.Nextafter32(r.h[j+1], 1)
		default:
			r.prev[j] = r.h[j+1] + 0.002*(rng.Float32()-0.5)
		}
	}
	absent := rng.IntN(4) // whole rows absent (the grid's first or last row)
	for j := range n {
		if absent == 1 || (absent == 0 && rng.IntN(16) == 0) {
			r.hm[j], r.bm[j], r.wm[j] = Absent, Absent, 0
		}
		if absent == 2 {
			r.hp[j], r.bp[j], r.wp[j] = Absent, Absent, 0
		}
	}
	return r
}

// TestCapRowsSIMDMatchGo: the capillary head's kernels give the same bits (and flags) with
// the vector code as with the Go twins on random rows around every threshold, with and
// without healing and damping, for both marks, at lengths with and without a tail; and the
// vector code writes nothing around its outputs (guard zones, docs/kernels.md).
func TestCapRowsSIMDMatchGo(t *testing.T) {
	t.Parallel()
	if !New(true).Vector() {
		t.Skip("no vector row kernels on this machine or build")
	}
	rng := rand.New(rand.NewPCG(3, 17))
	var gs []func() error
	kinds := map[string]int{}
	lows := map[bool]int{}
	spans := map[bool]int{}
	for iter := range 1200 {
		n := []int{8, 16, 31, 64, 203, 1, 3, 7, 9, 17, 2, 5}[iter%12]
		p := CapParams{Dry: 1e-6, Hole: 2e-6, Recede: []float32{0, 0.00094, 0.0014}[iter%3],
			Damp: []float32{0, 0.35, 1e-3}[iter/3%3], Heal: iter/9%2 == 0, Mark: uint8(iter / 18 % 2)}
		if iter/36%2 == 1 {
			p.Corner = 0.1 * p.Recede // the pipes' corner margin (gpusim's capCornerShare)
		}
		row := randomCapRow(rng, n, &p)
		name := fmt.Sprintf("iter %d (n %d, %+v)", iter, n, p)
		var drive, keep [2][]float32
		var next [2][]uint8
		var low, below [2]bool
		for k, on := range []bool{true, false} {
			drive[k], keep[k], next[k] = guarded[float32](&gs, on, n), guarded[float32](&gs, on, n), guarded[uint8](&gs, on, n)
			low[k], below[k] = New(on).CapHeadRow(&p, drive[k], next[k], keep[k], row.h, row.b, row.w, row.hm, row.bm, row.wm, row.hp, row.bp, row.wp, row.prev)
		}
		checkGuards(t, name+" head", &gs)
		if low[0] != low[1] || below[0] != below[1] {
			t.Fatalf("%s: low driving depth, dry +y neighbour: vector %v %v, Go %v %v", name, low[0], below[0], low[1], below[1])
		}
		lows[low[1]]++
		sameBits(t, name+" drive", drive[0], drive[1])
		sameBits(t, name+" keep", keep[0], keep[1])
		for j := range next[0] {
			if next[0][j] != next[1][j] {
				t.Fatalf("%s: next[%d]: vector %d, Go %d", name, j, next[0][j], next[1][j])
			}
		}
		for j := range drive[1] {
			h, b := row.h[j+1], row.b[j+1]
			switch {
			case h-b <= p.Dry && drive[1][j] != h:
				kinds[fmt.Sprintf("dry raised, flag %d", next[1][j])]++
			case h-b <= p.Dry:
				kinds["dry"]++
			case drive[1][j] != h && next[1][j] != p.Mark:
				kinds["receding shore"]++
			case drive[1][j] != h:
				kinds["wet moved"]++
			default:
				kinds["wet at h"]++
			}
		}

		// The rise alone, and the dry test, on the row's columns.
		var nextDry [2]bool
		for k, on := range []bool{true, false} {
			drive[k], keep[k], next[k] = guarded[float32](&gs, on, n), guarded[float32](&gs, on, n), guarded[uint8](&gs, on, n)
			low[k], nextDry[k] = New(on).CapRiseRow(p.Damp, p.Dry, p.Mark, drive[k], next[k], keep[k], row.h[1:n+1], row.b[1:n+1], row.prev, row.hp, row.bp)
		}
		checkGuards(t, name+" rise", &gs)
		if string(next[0]) != string(next[1]) {
			t.Fatalf("%s: rise: flags: vector %v, Go %v", name, next[0], next[1])
		}
		if low[0] != low[1] || nextDry[0] != nextDry[1] {
			t.Fatalf("%s: rise: low driving depth, next row dry: vector %v %v, Go %v %v", name, low[0], nextDry[0], low[1], nextDry[1])
		}
		lows[nextDry[1]]++
		lows[low[1]]++
		sameBits(t, name+" rise drive", drive[0], drive[1])
		sameBits(t, name+" rise keep", keep[0], keep[1])
		for m := 1; m <= n; m++ {
			for _, hs := range [][]float32{row.h[1 : m+1], row.hp[:m], row.hm[:m]} {
				bs := map[*float32][]float32{&row.h[1]: row.b[1 : m+1], &row.hp[0]: row.bp[:m], &row.hm[0]: row.bm[:m]}[&hs[0]]
				f0, l0 := New(true).DrySpan(hs, bs, p.Dry)
				f1, l1 := New(false).DrySpan(hs, bs, p.Dry)
				if f0 != f1 || l0 != l1 {
					t.Fatalf("%s: DrySpan of %d columns: vector %d-%d, Go %d-%d", name, m, f0, l0, f1, l1)
				}
				spans[f1 >= 0]++
			}
		}
	}
	if spans[false] < 50 || spans[true] < 50 {
		t.Errorf("rows with and without a dry column: %v", spans)
	}
	if lows[false] < 50 || lows[true] < 50 {
		t.Errorf("rows with and without a low driving depth: %v", lows)
	}
	for _, k := range []string{"dry", "dry raised, flag 0", "dry raised, flag 1", "receding shore", "wet moved", "wet at h"} {
		if kinds[k] < 20 {
			t.Errorf("only %d columns of kind %q: %v", kinds[k], k, kinds)
		}
	}
}
