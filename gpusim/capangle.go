package gpusim

import "math"

// The contact angle at the line (docs/method.md, "Surface tension": the drop). With the
// capillary pressure on, the pressure carries the liquid's shape, and the puddle's heads
// (the wetting head h_w that a pipe must exceed to enter dry ground, the receding head
// h_r an edge stands at) would count the edge's curvature twice: a small drop's pressure
// (l_c^2 times its curvature, about 3 mm of head for 5 microlitres of water at 30
// degrees) exceeds h_w everywhere in it, so the drop spread into a pancake held by a
// ridge at its rim, where a level closure of the Laplacian made the surface flatten
// towards the edge. So with the pressure the contact line is what it is physically: a
// boundary condition on the surface's slope, the contact angle, and the line's motion
// follows from it.
//
//   - The Laplacian of an edge column reads each dry neighbour below its surface as a
//     ghost (capGhost): the surface continued past the contact line at the angle it
//     makes there. Pinned at the cell's face (the depth 0 half a cell out: a slope of
//     2d/dx) while that slope lies between tan(theta_r) and tan(theta_a); at the
//     receding angle when flatter (the pressure then drives a thin edge back into the
//     liquid until it is dry) and at the advancing angle when steeper.
//   - A dry column beside the liquid is entered (capGate) when the liquid beside it stands
//     more than (dx/2) tan(theta_a) over its floor: the slope to the face steeper than
//     the advancing angle. Its driving height reads its floor plus that depth plus the
//     largest pressure head of its wet neighbours, so that a pipe's head difference into
//     it is the liquid's depth over its floor less that advancing depth, whatever the
//     pressure: the pressure moves liquid to the edge, the angle decides when it goes
//     further. (Of the neighbour standing highest; the others' differ by their heads.)
//
// For a puddle (no curvature inside) the ghost closure gives the meniscus and the
// puddle's height h_w itself; for a drop its spherical cap.

// ContactLine names the contact line's model with settings s at step dt on cells of dx:
// "off" without surface tension, "angle" where the capillary pressure is on and exact (no
// smoothing passes: the contact angle acts at the line), else "heads" (the puddle's
// wetting and receding heads).
func (s Settings) ContactLine(dt, dx float64) string {
	switch {
	case s.CapillaryLength() == 0:
		return "off"
	case s.CapillaryPressure && dt > 0 && dx > 0 && newCapParams(s, dt, dx).dropA > 0:
		return "angle"
	}
	return "heads"
}

// capMaxAngle bounds the angle the ghost reads: the small-slope closure has no meaning
// near a vertical surface, and tan grows without bound there.
const capMaxAngle = 80 * math.Pi / 180

// capSlope is tan(theta) for the ghost, theta at most capMaxAngle.
func capSlope(theta float64) float64 {
	return math.Tan(min(max(theta, 0), capMaxAngle))
}

// capFaceShare is the share 1/sqrt(k) of the contact angle's slope that each of a
// column's k faces onto dry ground takes (k at most 8), as float32 constants that CUDA
// reads alike. The line's normal splits over the faces it crosses: a column at a corner
// of the stair-stepped edge (two dry faces) sees the surface fall tan(theta)/sqrt(2) a
// cell towards each, as a plane at theta across the corner does. With the full slope on
// every face, such corners (most of a round edge on the grid) stood 20 to 40 mm of head
// above the straight stretches and the round drop's edge could not advance.
var capFaceShare = [9]float32{1, 1, 0.70710677, 0.57735026, 0.5, 0.4472136, 0.4082483, 0.37796447, 0.35355338}

// capShare is capFaceShare[k], k bounded by 8.
func capShare(k int) float32 {
	return capFaceShare[min(k, 8)]
}

// capGhost is the Laplacian's term of a dry neighbour of an edge column with k dry faces,
// s_ghost - s_i: the neighbour's floor step db (b_j - b_i, bounded by a cell's width: a
// cliff reads as a 45 degree slope) less the fall of the surface over a cell, 2 ds (ds
// the column's smoothed depth) bounded by dropR and dropA times the face's share.
// (Comparisons as CUDA makes them.)
func capGhost(ds, db, share float32, p *capParams) float32 {
	g := 2 * ds
	if lo := p.dropR * share; !(g > lo) {
		g = lo
	}
	if hi := p.dropA * share; g > hi {
		g = hi
	}
	if db < -p.dx {
		db = -p.dx
	}
	if db > p.dx {
		db = p.dx
	}
	return db - g
}

// capGate is dry column i's driving height with the contact angle at the line: its floor
// plus the largest a_m + X_m of its wet neighbours m that stand deep enough over its
// floor to advance onto it (h_m - b_i > a_m), or of all of them where none does; a_m is
// the advancing depth times the face share of m's dry faces, X_m m's pressure head
// (capHeadLimit'ed, as its own). A pipe's head difference into it, h_m + X_m less that, is
// then h_m - b_i - a_m for the neighbour that sets it, and no more for any other where
// none advances: the contact line holds, whatever the pressures. Its height where it has
// no wet neighbour. (Tried: the neighbour standing highest alone; a thin column beside
// it with more dry faces, and so a higher head, then drained into it, and the drop's edge
// shed specks ahead of itself.)
func capGate(i int, h, b, s []float32, adjStart, adjOther []int32, p *capParams, wet []uint8) float32 {
	var all, adv float32
	anyWet, anyAdv := false, false
	for _, j := range adjOther[adjStart[i]:adjStart[i+1]] {
		dj := h[j] - b[j]
		if dj <= DryDepth {
			continue
		}
		x, k := capPressure(int(j), h, b, s, adjStart, adjOther, p, wet)
		a := float32(p.advance * capShare(k))
		v := a + capHeadLimit(x, dj, p)
		if !anyWet || v > all {
			all, anyWet = v, true
		}
		if k < 3 && h[j]-b[i] > a && (!anyAdv || v < adv) {
			adv, anyAdv = v, true
		}
	}
	switch {
	case anyAdv:
		return b[i] + capGateDepth(adv)
	case anyWet:
		return b[i] + capGateDepth(all)
	}
	return h[i]
}

// capGateDepth is a gated dry column's driving depth v, but at least capHole, so that the
// pipes' kernels read it as wet (else their law, capGateShut, lets nothing in). Raising
// it only lowers the head differences into it: a neighbour that does not advance still
// does not.
func capGateDepth(v float32) float32 {
	if !(v > capHole) {
		return capHole
	}
	return v
}
