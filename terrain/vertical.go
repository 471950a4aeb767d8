package terrain

import (
	"errors"
	"fmt"
	"math"
)

// Solid intervals along vertical lines, exactly.
//
// Extraction needs, for each cell, where the vertical line through its centre is free.
// Marching Dist up the line (extract.go's ray) finds that for any solid, to
// RootTolerance, at the cost of some thirty distance queries a cell for a scanned mesh
// (each a search of its hierarchy). Most solids can say it at once: a plane, box,
// sphere or cylinder in closed form, a closed mesh by the triangles its hierarchy puts
// over (x, y), a heightfield by one call of its fn; and unions, intersections,
// differences, translations, scalings and rotations about the z axis of such solids by
// combining and mapping their intervals. alongLine lists these solid intervals; canAlong
// says whether every part of a solid can, and extraction marches only where one cannot
// (a Solid of unknown type, an open mesh, a rotation that tilts the vertical).
//
// An interval is a span{lo, hi} with lo < hi; a list is sorted and disjoint, and
// intervals that touch are joined. Where the surface only touches the line (a tangent,
// a mesh's silhouette edge) an interval can be as thin as rounding: extraction ignores
// solid intervals thinner than RootTolerance*dx, which marching could not see either.

// canAlong reports whether alongLine can list s's solid intervals.
func canAlong(s Solid) bool {
	switch s := s.(type) {
	case plane, box, sphere, cylinder, heightfield:
		return true
	case *meshSolid:
		return s.openEdges == 0 // inside by parity; an open mesh's winding number varies off the line
	case translated:
		return canAlong(s.s)
	case scaled:
		return canAlong(s.s)
	case rotated:
		_, ok := s.keepsVertical()
		return ok && canAlong(s.s)
	case serialized:
		return canAlong(s.s)
	case union:
		return allAlong(s.s)
	case intersection:
		return allAlong(s.s)
	case difference:
		return canAlong(s.a) && canAlong(s.b)
	}
	return false
}

func allAlong(solids []Solid) bool {
	for _, s := range solids {
		if !canAlong(s) {
			return false
		}
	}
	return true
}

// keepsVertical returns, for a rotation that keeps vertical lines vertical (about the z
// axis), the factor its inverse applies to z (1 up to rounding), and whether it does.
func (r rotated) keepsVertical() (kz float64, ok bool) {
	if r.inv[0].Z != 0 || r.inv[1].Z != 0 || r.inv[2].X != 0 || r.inv[2].Y != 0 || r.inv[2].Z == 0 {
		return 0, false
	}
	return r.inv[2].Z, true
}

// liner is one goroutine's scratch space for alongLine: the interval lists of a solid's
// parts live on buf as a stack, a mesh's crossings on hits, so that no line allocates
// once they have grown.
type liner struct {
	buf  []span
	hits []float64
}

// errAmbiguous: a closed mesh was crossed an odd number of times along a whole line,
// which only rounding can do (a line through a vertex within rounding of it); the
// caller marches that line instead.
var errAmbiguous = errors.New("terrain: a closed mesh crossed an odd number of times")

// alongLine appends s's solid intervals on the vertical line through (x, y), cut to
// [lo, hi], to l.buf and returns where they start. canAlong(s) must hold. The errors are
// errAmbiguous and a heightfield's fn returning NaN (a panic in fn goes up to the
// caller's recover).
func (l *liner) alongLine(s Solid, x, y, lo, hi float64) (int, error) {
	start := len(l.buf)
	if !(lo < hi) {
		return start, nil
	}
	switch s := s.(type) {
	case plane:
		l.plane(s, x, y, lo, hi)
	case box:
		if math.Abs(x-s.c.X) <= s.h.X && math.Abs(y-s.c.Y) <= s.h.Y {
			l.clip(s.c.Z-s.h.Z, s.c.Z+s.h.Z, lo, hi)
		}
	case sphere:
		dx, dy := x-s.c.X, y-s.c.Y
		if q := s.r*s.r - (dx*dx + dy*dy); q >= 0 {
			h := math.Sqrt(q)
			l.clip(s.c.Z-h, s.c.Z+h, lo, hi)
		}
	case cylinder:
		l.cylinder(s, x, y, lo, hi)
	case heightfield:
		top := s.fn(x, y)
		if top != top {
			return start, fmt.Errorf("the heightfield's fn is NaN at (%g, %g) m", x, y)
		}
		l.clip(math.Inf(-1), top, lo, hi)
	case *meshSolid:
		if !l.mesh(s, x, y, lo, hi) {
			return start, errAmbiguous
		}
	case translated:
		if _, err := l.alongLine(s.s, x-s.v.X, y-s.v.Y, lo-s.v.Z, hi-s.v.Z); err != nil {
			return start, err
		}
		l.mapZ(start, 1, s.v.Z, lo, hi)
	case scaled:
		if _, err := l.alongLine(s.s, x/s.k, y/s.k, lo/s.k, hi/s.k); err != nil {
			return start, err
		}
		l.mapZ(start, s.k, 0, lo, hi)
	case rotated:
		kz, _ := s.keepsVertical()
		px, py := s.inv[0].X*x+s.inv[0].Y*y, s.inv[1].X*x+s.inv[1].Y*y
		clo, chi := kz*lo, kz*hi
		if kz < 0 {
			clo, chi = chi, clo
		}
		if _, err := l.alongLine(s.s, px, py, clo, chi); err != nil {
			return start, err
		}
		l.mapZ(start, 1/kz, 0, lo, hi)
	case serialized:
		s.mu.Lock()
		defer s.mu.Unlock()
		return l.alongLine(s.s, x, y, lo, hi)
	case union:
		return l.combine(s.s, x, y, lo, hi, unionOf)
	case intersection:
		return l.combine(s.s, x, y, lo, hi, intersectionOf)
	case difference:
		return l.combine([]Solid{s.a, s.b}, x, y, lo, hi, differenceOf)
	default:
		panic(fmt.Sprintf("terrain: alongLine of a %T (canAlong is false)", s))
	}
	return start, nil
}

// clip appends [a, b] cut to [lo, hi] when something of it is left.
func (l *liner) clip(a, b, lo, hi float64) {
	a, b = max(a, lo), min(b, hi)
	if a < b {
		l.buf = append(l.buf, span{a, b})
	}
}

// plane: solid where (p - s.p) . s.n <= 0, which along z is one side of one height.
func (l *liner) plane(s plane, x, y, lo, hi float64) {
	a := (x-s.p.X)*s.n.X + (y-s.p.Y)*s.n.Y
	switch {
	case s.n.Z > 0:
		l.clip(math.Inf(-1), s.p.Z-a/s.n.Z, lo, hi)
	case s.n.Z < 0:
		l.clip(s.p.Z-a/s.n.Z, math.Inf(1), lo, hi)
	case a <= 0:
		l.clip(lo, hi, lo, hi)
	}
}

// cylinder: the line meets the infinite cylinder where a quadratic in z is <= 0, and the
// slab between the caps where the axial coordinate, linear in z, lies in [0, len].
func (l *liner) cylinder(c cylinder, x, y, lo, hi float64) {
	a := c.axis
	v0 := Vec3{x - c.base.X, y - c.base.Y, 0} // the line is v0 + s ez, s = z - base.Z
	t0 := v0.Dot(a)
	w := v0.Sub(a.Scale(t0))                       // v0's part across the axis
	q := Vec3{-a.Z * a.X, -a.Z * a.Y, 1 - a.Z*a.Z} // ez's part across the axis
	qq := q.Dot(q)
	sLo, sHi := math.Inf(-1), math.Inf(1)
	if qq > 0 {
		// |w + s q|^2 <= r^2.
		b, cc := w.Dot(q), w.Dot(w)-c.radius*c.radius
		disc := b*b - qq*cc
		if disc < 0 {
			return
		}
		r := math.Sqrt(disc)
		sLo, sHi = (-b-r)/qq, (-b+r)/qq
	} else if w.Dot(w) > c.radius*c.radius {
		return
	}
	// 0 <= t0 + s a.Z <= len.
	if a.Z != 0 {
		s1, s2 := -t0/a.Z, (c.len-t0)/a.Z
		if s1 > s2 {
			s1, s2 = s2, s1
		}
		sLo, sHi = max(sLo, s1), min(sHi, s2)
	} else if t0 < 0 || t0 > c.len {
		return
	}
	l.clip(c.base.Z+sLo, c.base.Z+sHi, lo, hi)
}

// mapZ maps the intervals from start on by z -> k z + d (k != 0), cuts them to [lo, hi]
// and drops what is left empty.
func (l *liner) mapZ(start int, k, d, lo, hi float64) {
	iv := l.buf[start:]
	for i := range iv {
		a, b := k*iv[i].lo+d, k*iv[i].hi+d
		if k < 0 {
			a, b = b, a
		}
		iv[i] = span{a, b}
	}
	if k < 0 {
		for i, j := 0, len(iv)-1; i < j; i, j = i+1, j-1 {
			iv[i], iv[j] = iv[j], iv[i]
		}
	}
	n := start
	for _, v := range iv {
		if a, b := max(v.lo, lo), min(v.hi, hi); a < b {
			l.buf[n] = span{a, b}
			n++
		}
	}
	l.buf = l.buf[:n]
}

// setOp combines two interval lists into out.
type setOp func(out, a, b []span) []span

// combine lists the parts' intervals one after the other and folds them with op; the
// result replaces them on the stack.
func (l *liner) combine(parts []Solid, x, y, lo, hi float64, op setOp) (int, error) {
	start := len(l.buf)
	if _, err := l.alongLine(parts[0], x, y, lo, hi); err != nil {
		return start, err
	}
	for _, p := range parts[1:] {
		mid := len(l.buf)
		if _, err := l.alongLine(p, x, y, lo, hi); err != nil {
			return start, err
		}
		end := len(l.buf)
		l.buf = op(l.buf, l.buf[start:mid], l.buf[mid:end])
		n := copy(l.buf[start:], l.buf[end:])
		l.buf = l.buf[:start+n]
	}
	return start, nil
}

// push appends v to out, joining it to the last interval from base on when they touch
// or overlap.
func push(out []span, base int, v span) []span {
	if n := len(out); n > base && v.lo <= out[n-1].hi {
		out[n-1].hi = max(out[n-1].hi, v.hi)
		return out
	}
	return append(out, v)
}

// unionOf merges two sorted lists. a and b may live on out's array, before its end: the
// result is appended after them.
func unionOf(out, a, b []span) []span {
	base := len(out)
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var v span
		if j == len(b) || (i < len(a) && a[i].lo <= b[j].lo) {
			v, i = a[i], i+1
		} else {
			v, j = b[j], j+1
		}
		out = push(out, base, v)
	}
	return out
}

func intersectionOf(out, a, b []span) []span {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if lo, hi := max(a[i].lo, b[j].lo), min(a[i].hi, b[j].hi); lo < hi {
			out = append(out, span{lo, hi})
		}
		if a[i].hi < b[j].hi {
			i++
		} else {
			j++
		}
	}
	return out
}

// differenceOf: a minus b.
func differenceOf(out, a, b []span) []span {
	j := 0
	for _, v := range a {
		lo := v.lo
		for j < len(b) && b[j].hi <= lo {
			j++
		}
		for k := j; k < len(b) && b[k].lo < v.hi; k++ {
			if b[k].lo > lo {
				out = append(out, span{lo, b[k].lo})
			}
			lo = max(lo, b[k].hi)
		}
		if lo < v.hi {
			out = append(out, span{lo, v.hi})
		}
	}
	return out
}

// mesh lists a closed mesh's solid intervals by parity: the line is inside after an odd
// number of crossings from below. Each triangle whose shadow on the xy plane holds
// (x, y) is crossed once. On a shadow's edge, the rasterizers' top-left rule picks one
// of the two triangles that share it (edgeFn computes a shared edge's value from its
// ends in one order for both, so they see exactly opposite signs); the rule is that of
// moving (x, y) by a fixed infinitesimal, so at a silhouette, where both triangles lie
// on one side, both count or neither does. It returns false when the crossings over the
// whole line are odd in number, which rounding alone can cause.
func (l *liner) mesh(m *meshSolid, x, y, lo, hi float64) bool {
	l.hits = l.hits[:0]
	var stack [64]int32
	sp := 1
	stack[0] = 0
	for sp > 0 {
		sp--
		nd := &m.nodes[stack[sp]]
		if x < nd.lo.X || x > nd.hi.X || y < nd.lo.Y || y > nd.hi.Y {
			continue
		}
		if nd.count == 0 {
			stack[sp], stack[sp+1] = nd.first, nd.first+1
			sp += 2
			continue
		}
		for i := nd.first; i < nd.first+nd.count; i++ {
			if z, ok := crossZ(&m.tris[i], x, y); ok {
				l.hits = append(l.hits, z)
			}
		}
	}
	h := l.hits
	if len(h)%2 != 0 {
		return false
	}
	for i := 1; i < len(h); i++ { // a handful of crossings: insertion sort
		for j := i; j > 0 && h[j] < h[j-1]; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
	base := len(l.buf)
	for i := 0; i < len(h); i += 2 {
		if a, b := max(h[i], lo), min(h[i+1], hi); a < b {
			l.buf = push(l.buf, base, span{a, b})
		}
	}
	return true
}

// crossZ returns the height at which the vertical line through (x, y) crosses t, and
// whether it does (see mesh for the rule on the shadow's edges).
func crossZ(t *triangle, x, y float64) (float64, bool) {
	e0, e1, e2 := edgeFn(t.a, t.b, x, y), edgeFn(t.b, t.c, x, y), edgeFn(t.c, t.a, x, y)
	var ccw bool
	switch {
	case e0 >= 0 && e1 >= 0 && e2 >= 0:
		ccw = true
	case e0 <= 0 && e1 <= 0 && e2 <= 0:
	default:
		return 0, false
	}
	sum := e0 + e1 + e2
	if sum == 0 { // a vertical triangle: its neighbours are crossed instead
		return 0, false
	}
	if (e0 == 0 && !ownsEdge(t.a, t.b, ccw)) || (e1 == 0 && !ownsEdge(t.b, t.c, ccw)) || (e2 == 0 && !ownsEdge(t.c, t.a, ccw)) {
		return 0, false
	}
	// Barycentric weights: e1 belongs to a (the edge opposite it), e2 to b, e0 to c.
	return (e1*t.a.Z + e2*t.b.Z + e0*t.c.Z) / sum, true
}

// edgeFn is twice the signed area of (a, b, (x, y)) on the xy plane, positive when
// (x, y) lies left of a -> b, computed from the edge's ends in a fixed order so that
// edgeFn(b, a, ...) is exactly -edgeFn(a, b, ...).
func edgeFn(a, b Vec3, x, y float64) float64 {
	if b.X < a.X || (b.X == a.X && b.Y < a.Y) {
		return -((a.X-b.X)*(y-b.Y) - (a.Y-b.Y)*(x-b.X))
	}
	return (b.X-a.X)*(y-a.Y) - (b.Y-a.Y)*(x-a.X)
}

// ownsEdge is the top-left rule: a point on the edge a -> b of a triangle counts for it
// when the edge, taken counter-clockwise round the triangle's shadow, points up, or
// points left along the x axis. Of two triangles on either side of an edge exactly one
// owns it.
func ownsEdge(a, b Vec3, ccw bool) bool {
	dx, dy := b.X-a.X, b.Y-a.Y
	if !ccw {
		dx, dy = -dx, -dy
	}
	return dy > 0 || (dy == 0 && dx < 0)
}
