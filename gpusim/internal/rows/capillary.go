package rows

// The capillary head on the dense layout's rows (gpusim/capillary.go, "the contact line
// alone": surface tension on, the capillary pressure off, as by default). Each column's
// driving height (the height the raw fluxes read, h + X) and its next wetted flag
// (gpusim/contactline.go) from the heights, floors and wetted flags of the column and of
// its four neighbours at the step's start, and its height at the last step's start
// (prev, for the ripple damping's rise). These are the Go twins of capHeadAVX2,
// capRiseAVX2 and drySpanAVX2 and the reference: gpusim's scalar pass (capEdges, and
// capHeadColumn with no capillary pressure) computes the same operations in the same
// order, and TestCapRowsMatchScalar (gpusim) checks it on random states.
//
// The head of a column of depth d = h - b:
//
//	dry (d <= Dry):
//	    wetted ground that liquid or wetted ground lies beside and no dry ground does
//	                                        b + Hole, flag 1 (capWettedDry)
//	    Heal, and no neighbour dry (of at least two), or a strip (both sides along
//	    one axis wet at least Recede deep)
//	                                        b + Hole, flag 0 (capDryHead)
//	    else                                h, flag 0
//	wet:
//	    x = (Recede - Corner) - d where d < Recede - Corner, plus Corner where two or
//	        more neighbours are such, else +0, at the contact line (a dry, unwetted
//	        neighbour whose floor lies below h); float32(Damp * (h - prev)) elsewhere
//	    drive = h + max(x, -0.5*d) where x != 0 (capLimit), else h
//	    flag 0 at a sloping shore (such a neighbour's floor above b) where d < Recede,
//	        else Mark
//
// A neighbour that does not exist (the grid's border) reads h = b = +Inf and flag 0: its
// depth is NaN, so no test takes it for dry, wet or wetted, and its floor is below or at
// no height. (The scalar passes list only the neighbours a column has; with finite
// heights the tests give the same answers.)

import "math"

// CapParams are the capillary head's constants for CapHeadRow.
type CapParams struct {
	Dry    float32 // the dry depth: a column no deeper than this is dry (gpusim.DryDepth)
	Hole   float32 // the depth a one-cell hole or wetted ground reads as (capHole)
	Recede float32 // the receding head h_r, m (0: edges do not recede)
	// Corner is the receding line's corner margin, m: an edge column recedes below
	// Recede - Corner, driven by (Recede - Corner) - d, plus Corner where two or more of
	// its faces are onto dry ground (gpusim's capRecedeHead). 0: no margin.
	Corner float32
	// Damp is the ripple damping's head per metre the column rose since the last step's
	// start (0: none, and on the first step after heights were set from outside).
	Damp float32
	Heal bool  // a dry gap one cell wide (a hole, a strip) reads b + Hole
	Mark uint8 // the wetted flag a wet column takes (0 or 1)
}

// Absent is the height and floor a neighbour outside the grid reads (see the file
// comment).
var Absent = float32(math.Inf(1))

// CapHeadColumn is the driving height and next wetted flag of a column of height h, floor
// b, wetted flag w and last-pass height prev, with neighbours of heights nh, floors nb and
// flags nw (absent ones as Absent, 0). heal is p.Heal where the column has at least two
// neighbours, else false.
func CapHeadColumn(p *CapParams, heal bool, h, b float32, w uint8, prev float32, nh, nb *[4]float32, nw *[4]uint8) (float32, uint8) {
	if !(h-b <= p.Dry || nh[0]-nb[0] <= p.Dry || nh[1]-nb[1] <= p.Dry || nh[2]-nb[2] <= p.Dry || nh[3]-nb[3] <= p.Dry) {
		// No dry column here or beside: no edge, no hole, the flag the mark; the ripple
		// damping alone (as below).
		if x := float32(p.Damp * (h - prev)); x != 0 {
			return h + capLimit(x, h-b), p.Mark
		}
		return h, p.Mark
	}
	edge, up, near, dryBeside, anyDry := false, false, false, false, false
	faces := 0
	for q := range 4 {
		dq := nh[q] - nb[q]
		dry, wet, wetted := dq <= p.Dry, dq > p.Dry, nw[q] != 0
		e := dry && !wetted && nb[q] < h // dry ground below the surface: the contact line
		if e {
			faces++
		}
		edge = edge || e
		up = up || (e && nb[q] > b) // ... rising: a sloping shore
		n := wet || wetted
		near = near || n
		dryBeside = dryBeside || (!n && nb[q] <= h) // dry ground no higher than the column
		anyDry = anyDry || dry
	}
	d := h - b
	if d <= p.Dry {
		if w != 0 && near && !dryBeside {
			return b + p.Hole, 1 // wetted ground (capWettedDry)
		}
		if heal && (!anyDry || strip(p.Dry, p.Recede, nh, nb)) {
			return b + p.Hole, 0 // a gap one cell wide: a hole or a strip (capDryHead)
		}
		return h, 0
	}
	var x float32
	corner := p.Corner
	if up {
		corner = 0 // a sloping shore (gpusim's capShoreCorner)
	}
	if edge {
		if lo := p.Recede - corner; d < lo {
			x = lo - d
			if faces > 1 {
				x += corner
			}
		}
	} else {
		x = float32(p.Damp * (h - prev))
	}
	flag := p.Mark
	if up && d < p.Recede-corner {
		flag = 0
	}
	if x != 0 {
		return h + capLimit(x, d), flag
	}
	return h, flag
}

// strip tells whether a dry column whose neighbours are nh, nb (-y, -x, +x, +y) is a strip
// one cell wide (gpusim's capDryHead): both sides along one axis wet at least hr deep. An
// absent neighbour (NaN depth) is not.
func strip(dry, hr float32, nh, nb *[4]float32) bool {
	var wet [4]bool
	for q := range 4 {
		dq := nh[q] - nb[q]
		wet[q] = dq > dry && dq >= hr
	}
	return (wet[1] && wet[2]) || (wet[0] && wet[3])
}

// capLimit is x, but no less than -d/2 (gpusim's capLimit: the comparison, not Go's max).
func capLimit(x, d float32) float32 {
	if lim := -0.5 * d; !(x > lim) {
		return lim
	}
	return x
}

// capHeadRowGo is CapHeadColumn for n = len(drive) columns with both x neighbours: column
// j's height, floor and flag are h[j+1], b[j+1], w[j+1] (its -x neighbour's at j, its +x
// neighbour's at j+2), its -y neighbour's hm[j], bm[j], wm[j], its +y neighbour's hp[j],
// bp[j], wp[j]. It writes drive[j], next[j] and keep[j] = h[j+1] (the next step's prev),
// and tells whether some driving depth drive[j] - b[j+1] is at most p.Dry (LowDrive) and
// whether some +y neighbour is dry (hp[j] - bp[j] <= p.Dry: the next row's columns but
// its first and last).
func capHeadRowGo(p *CapParams, drive []float32, next []uint8, keep, h, b []float32, w []uint8, hm, bm []float32, wm []uint8, hp, bp []float32, wp []uint8, prev []float32) (low, nextDry bool) {
	n := len(drive)
	next, keep, prev = next[:n], keep[:n], prev[:n]
	h, b, w = h[:n+2], b[:n+2], w[:n+2]
	hm, bm, wm, hp, bp, wp = hm[:n], bm[:n], wm[:n], hp[:n], bp[:n], wp[:n]
	for j := range drive {
		nh := [4]float32{hm[j], h[j], h[j+2], hp[j]}
		nb := [4]float32{bm[j], b[j], b[j+2], bp[j]}
		nw := [4]uint8{wm[j], w[j], w[j+2], wp[j]}
		drive[j], next[j] = CapHeadColumn(p, p.Heal, h[j+1], b[j+1], w[j+1], prev[j], &nh, &nb, &nw)
		keep[j] = h[j+1]
		low = low || LowDrive(drive[j], b[j+1], p.Dry)
		nextDry = nextDry || hp[j]-bp[j] <= p.Dry
	}
	return low, nextDry
}

// LowDrive tells whether a column of driving height drive and floor b reads as dry to the
// contact-line law (element.Params.Wetting: an end's depth drive - b at most dry). Where
// no column of a row does, the law changes none of the row's fluxes, and the raw flux
// kernels without it give the same bits (gpusim's rawRows).
func LowDrive(drive, b, dry float32) bool { return drive-b <= dry }

// capRiseRowGo is CapHeadColumn for n = len(drive) wet columns with no dry neighbour:
// the ripple damping alone, drive[j] from h[j], b[j] and prev[j]; next[j] = mark (the
// wetted flag of a wet column with no dry neighbour); keep[j] = h[j]. It tells whether
// some driving depth is at most dry (LowDrive), and whether the next row, of heights hn
// and floors bn, holds a dry column (hn[j] - bn[j] <= dry: what the caller needs to know
// before it takes the next row this way; where the caller takes several rows as one,
// hn and bn are the same rows one row on).
func capRiseRowGo(damp, dry float32, mark uint8, drive []float32, next []uint8, keep, h, b, prev, hn, bn []float32) (low, nextDry bool) {
	n := len(drive)
	next, keep, h, b, prev, hn, bn = next[:n], keep[:n], h[:n], b[:n], prev[:n], hn[:n], bn[:n]
	for j, v := range hn {
		nextDry = nextDry || v-bn[j] <= dry
	}
	for j, hk := range h {
		drive[j] = hk
		if x := float32(damp * (hk - prev[j])); x != 0 {
			drive[j] = hk + capLimit(x, hk-b[j])
		}
		keep[j] = hk
		next[j] = mark
		low = low || LowDrive(drive[j], b[j], dry)
	}
	return low, nextDry
}

// drySpanGo is the first and last column of the row that is dry (h[j] - b[j] <= dry),
// -1 and -1 where none is.
func drySpanGo(h, b []float32, dry float32) (first, last int) {
	b = b[:len(h)]
	first, last = -1, -1
	for j, hk := range h {
		if hk-b[j] <= dry {
			if first < 0 {
				first = j
			}
			last = j
		}
	}
	return first, last
}
