package gpusim

// Wetted ground (docs/method.md, "Surface tension": wetted ground): what the capillary
// head pass does with the ground the liquid has covered.
//
// A column that held liquid stays wetted when the flow drains it, until the contact line
// recedes over it: an empty wetted column with dry ground beside it (an empty column that
// is not wetted, whose floor lies no higher than its own) becomes dry itself, one cell a
// pass, from the outside in. Liquid re-enters a wetted column freely (its driving height
// reads b + capHole, as a one-cell hole's does), and a wet column beside it is no edge:
// the receding head does not act there. At a sloping shore a receding edge column is not
// wetted (capShoreFlag): with it wetted, the bowl's shore flickered, an edge column
// receding, emptying, taking the pool back freely as wetted ground and receding again,
// 0.4 mm a step. (Leaving every receding edge unwetted, on flat ground too, tore the
// 60-degree fast pour's rim into 41 pieces and two holes and the coffee's film into
// specks: with one contact angle every rim column thinner than the head counts as
// receding.) The middle of a fast
// pour, which the pour's own outflow drains for a moment (the pipes carry liquid off a
// column by its head alone, without the film a real liquid leaves behind, which no flow
// thins to nothing), is then no dry hole that the liquid around it must climb into again
// at the wetting head: the liquid flows back, and the puddle ends as one disc instead of
// a ring of pieces.
//
// The flags are double-buffered: a pass reads capState.wet and writes capState.wetNext,
// and each worker copies its own columns' new flags back after the pass's barrier (the
// device launches vp_cap_wet), so that a pass's result does not depend on the order of
// its columns. Heights written from outside (SetHeights, Fill, a terrain change, a
// method switch before its restore) start afresh: the wetted ground is then their wet
// columns (markWetted), not ground the old heights had covered.

// markWetted sets the wetted flags of heights h over floors b: mark for a wet column, 0
// for a dry one, as a pass would flag them.
func markWetted(wet []uint8, h, b []float32, mark uint8) {
	for i := range wet {
		wet[i] = 0
		if h[i]-b[i] > DryDepth {
			wet[i] = mark
		}
	}
}

// capWettedDry is dry column i's driving height and new wetted flag from the last pass's
// flags wet: b + capHole and 1 when it is wetted ground that liquid or wetted ground lies
// beside and no dry ground does (an empty, unwetted neighbour whose floor lies no higher
// than its own); else its height, or a one-cell gap's head (capDryHead, when heal), and 0.
func capWettedDry(i int, h, b []float32, adjStart, adjOther []int32, adjDir []uint8, hr float32, heal bool, wet []uint8) (float32, uint8) {
	hi := h[i]
	if wet[i] != 0 {
		near, dry := false, false
		for _, j := range adjOther[adjStart[i]:adjStart[i+1]] {
			if h[j]-b[j] > DryDepth || wet[j] != 0 {
				near = true
			} else if b[j] <= hi {
				dry = true // dry ground beside: the contact line recedes over this column
			}
		}
		if near && !dry {
			return b[i] + capHole, 1
		}
	}
	if heal {
		return capDryHead(i, h, b, adjStart, adjOther, adjDir, hr), 0
	}
	return hi, 0
}

// capShoreFlag is the wetted flag of a wet column of depth d: mark, or 0 at a sloping
// shore (up: dry ground rises beside it, its floor above this column's but below its
// surface) where the column is thinner than hr and so recedes: that ground is left dry
// as it drains.
func capShoreFlag(up bool, d, hr float32, mark uint8) uint8 {
	if up && d < hr {
		return 0
	}
	return mark
}

// capCornerShare is the receding line's corner margin as a share of the receding head h_r
// (docs/method.md, "Surface tension": a receding line goes corner first). An edge column
// recedes while it is thinner than (1 - capCornerShare) h_r, a straight stretch of the
// line (one face onto dry ground) driven by (1 - capCornerShare) h_r - d, a corner (two
// faces or more: a convex corner of the stair-stepped line, or a finger's tip) by the
// whole h_r - d, so it drains into the straight stretch beside it rather than waiting
// for it. With one head for both, a corner whose wet neighbours were edges too read
// their heads exactly and could not drain: as the fast pour's overshoot drew back at 60
// degrees, its corners were left behind as one-cell specks (20 pieces), and a drained
// film shed specks along its line. 0.08 to 0.15 all end both fast pours as one piece;
// 0.1 is the middle (the puddle 6% and 4% under h_w at 30 and 60 degrees: the straight
// line rests down to 0.9 h_r).
const capCornerShare = 0.1

// capRecedeHead is the receding head an edge column of depth d with faces faces onto dry
// ground adds to its height, with receding head hr and corner margin corner, and whether
// it recedes (d under hr - corner): (hr - corner) - d, plus corner where faces > 1. The
// row kernels and the device do the same operations in the same order.
func capRecedeHead(d float32, faces int, hr, corner float32) (float32, bool) {
	lo := hr - corner
	if !(d < lo) {
		return 0, false
	}
	r := lo - d
	if faces > 1 {
		r += corner
	}
	return r, true
}

// capShoreCorner is the corner margin at an edge column: corner, or 0 at a sloping shore
// (up: dry ground rises beside it), where the line recedes down the slope by gravity and
// the margin made the bowl's shore flicker (a column still moved 0.27 mm a step after 30
// s: its corners drained into the stretch beside them, which stood deeper than the
// stretch's threshold, stopped, and took the pool back as the corner dried).
func capShoreCorner(up bool, corner float32) float32 {
	if up {
		return 0
	}
	return corner
}
