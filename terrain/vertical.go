package terrain

import (
	"errors"
	"fmt"
	"math"
)

// Solid intervals along lines, exactly.
//
// Extraction needs, for each cell, where the vertical line through its centre is free.
// Marching Dist up the line (extract.go's ray) finds that for any solid, to
// RootTolerance, at the cost of some thirty distance queries a cell for a scanned mesh
// (each a search of its hierarchy). Most solids can say it at once: a plane, box,
// sphere or cylinder in closed form, a closed mesh by the triangles its hierarchy puts
// over the line, a heightfield by one call of its fn; and unions, intersections,
// differences, translations, scalings and rotations of such solids by combining their
// intervals and moving the line into their frame (where a rotation tilts it, a part
// below sees a slanted line, which a heightfield cannot take). alongLine lists these
// solid intervals; canAlong says whether every part of a solid can (MarchReason, why
// not), and extraction marches only where one cannot (a Solid of unknown type, an open
// mesh, a heightfield under a rotation that tilts the vertical).
//
// A line is o + t d, and intervals are of t. An interval is a span{lo, hi} with lo < hi;
// a list is sorted and disjoint, and intervals that touch are joined. Where the surface
// only touches the line (a tangent, a mesh's silhouette edge) an interval can be as thin
// as rounding: extraction ignores solid intervals thinner than RootTolerance*dx, which
// marching could not see either.

// line is the line o + t d. d need not be a unit vector: a scaled part sees o and d
// divided by the factor, and the same t.
type line struct{ o, d Vec3 }

// vertical tells whether the line runs along the z axis.
func (ln line) vertical() bool { return ln.d.X == 0 && ln.d.Y == 0 }

// canAlong reports whether alongLine can list s's solid intervals along vertical lines.
func canAlong(s Solid) bool { return marchReason(s, true) == "" }

// MarchReason says why Extract and SurfaceMesh march s's distance along the rays instead
// of taking s's own intervals along them: the first part of s that cannot list its
// intervals, in words ("" when every part can).
func MarchReason(s Solid) string { return marchReason(s, true) }

// marchReason is MarchReason for lines that are vertical in s's frame (vertical), or
// that may be slanted.
func marchReason(s Solid, vertical bool) string {
	switch s := s.(type) {
	case plane, box, sphere, cylinder:
		return ""
	case heightfield:
		if !vertical {
			return "a heightfield turned about a horizontal axis"
		}
		return ""
	case *columnsSolid:
		if !vertical {
			return "columns (ColumnsSolid) turned about a horizontal axis"
		}
		return ""
	case *meshSolid:
		if s.openEdges > 0 { // inside by parity; an open mesh's winding number varies off the line
			return "an open mesh (inside by its winding number)"
		}
		return ""
	case translated:
		return marchReason(s.s, vertical)
	case scaled:
		return marchReason(s.s, vertical)
	case rotated:
		return marchReason(s.s, vertical && s.inv[0].Z == 0 && s.inv[1].Z == 0)
	case serialized:
		return marchReason(s.s, vertical)
	case union:
		return firstMarchReason(s.s, vertical)
	case intersection:
		return firstMarchReason(s.s, vertical)
	case difference:
		return firstMarchReason([]Solid{s.a, s.b}, vertical)
	}
	return fmt.Sprintf("a solid of type %T", s)
}

func firstMarchReason(solids []Solid, vertical bool) string {
	for _, s := range solids {
		if r := marchReason(s, vertical); r != "" {
			return r
		}
	}
	return ""
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

// alongLine appends s's solid intervals on ln, cut to [lo, hi], to l.buf and returns
// where they start. canAlong(s) must hold for a vertical ln. The errors are errAmbiguous
// and a heightfield's fn returning NaN (a panic in fn goes up to the caller's recover).
func (l *liner) alongLine(s Solid, ln line, lo, hi float64) (int, error) {
	start := len(l.buf)
	if !(lo < hi) {
		return start, nil
	}
	o, d := ln.o, ln.d
	switch s := s.(type) {
	case plane:
		// (p - s.p) . n <= 0 is linear in t.
		l.halfLine(o.Sub(s.p).Dot(s.n), d.Dot(s.n), lo, hi)
	case box:
		l.box(s, ln, lo, hi)
	case sphere:
		w := o.Sub(s.c)
		l.quadratic(d.Dot(d), w.Dot(d), w.Dot(w)-s.r*s.r, math.Inf(-1), math.Inf(1), lo, hi)
	case cylinder:
		// Across the axis |pw + t pd| <= r, along it 0 <= w.a + t d.a <= len.
		a := s.axis
		w := o.Sub(s.base)
		wa, da := w.Dot(a), d.Dot(a)
		pw, pd := w.Sub(a.Scale(wa)), d.Sub(a.Scale(da))
		t0, t1 := math.Inf(-1), math.Inf(1)
		if da != 0 {
			t0, t1 = -wa/da, (s.len-wa)/da
			if t0 > t1 {
				t0, t1 = t1, t0
			}
		} else if wa < 0 || wa > s.len {
			break
		}
		l.quadratic(pd.Dot(pd), pw.Dot(pd), pw.Dot(pw)-s.radius*s.radius, t0, t1, lo, hi)
	case heightfield:
		top := s.fn(o.X, o.Y)
		if top != top {
			return start, fmt.Errorf("the heightfield's fn is NaN at (%g, %g) m", o.X, o.Y)
		}
		l.halfLine(o.Z-top, d.Z, lo, hi) // z - top <= 0
	case *columnsSolid:
		l.columnsAlong(s, ln, lo, hi)
	case *meshSolid:
		if !l.mesh(s, ln, lo, hi) {
			return start, errAmbiguous
		}
	case translated:
		return l.alongLine(s.s, line{o.Sub(s.v), d}, lo, hi)
	case scaled:
		return l.alongLine(s.s, line{o.Scale(1 / s.k), d.Scale(1 / s.k)}, lo, hi)
	case rotated:
		r := s.inv
		return l.alongLine(s.s, line{Vec3{r[0].Dot(o), r[1].Dot(o), r[2].Dot(o)}, Vec3{r[0].Dot(d), r[1].Dot(d), r[2].Dot(d)}}, lo, hi)
	case serialized:
		s.mu.Lock()
		defer s.mu.Unlock()
		return l.alongLine(s.s, ln, lo, hi)
	case union:
		return l.combine(s.s, ln, lo, hi, unionOf)
	case intersection:
		return l.combine(s.s, ln, lo, hi, intersectionOf)
	case difference:
		return l.combine([]Solid{s.a, s.b}, ln, lo, hi, differenceOf)
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

// halfLine appends where a + t b <= 0.
func (l *liner) halfLine(a, b, lo, hi float64) {
	switch {
	case b > 0:
		l.clip(math.Inf(-1), -a/b, lo, hi)
	case b < 0:
		l.clip(-a/b, math.Inf(1), lo, hi)
	case a <= 0:
		l.clip(lo, hi, lo, hi)
	}
}

// quadratic appends where A t^2 + 2 B t + C <= 0 (A >= 0), cut to [t0, t1].
func (l *liner) quadratic(A, B, C, t0, t1, lo, hi float64) {
	if A == 0 { // a line along a cylinder's axis: all or nothing
		if C <= 0 {
			l.clip(t0, t1, lo, hi)
		}
		return
	}
	disc := B*B - A*C
	if disc < 0 {
		return
	}
	r := math.Sqrt(disc)
	l.clip(max(t0, (-B-r)/A), min(t1, (-B+r)/A), lo, hi)
}

// box: the slabs of the three axes, intersected.
func (l *liner) box(b box, ln line, lo, hi float64) {
	t0, t1 := math.Inf(-1), math.Inf(1)
	for axis := range 3 {
		o, d, c, h := ln.o.get(axis), ln.d.get(axis), b.c.get(axis), b.h.get(axis)
		if d == 0 {
			if math.Abs(o-c) > h {
				return
			}
			continue
		}
		a, z := (c-h-o)/d, (c+h-o)/d
		if a > z {
			a, z = z, a
		}
		t0, t1 = max(t0, a), min(t1, z)
	}
	l.clip(t0, t1, lo, hi)
}

// setOp combines two interval lists into out.
type setOp func(out, a, b []span) []span

// combine lists the parts' intervals one after the other and folds them with op; the
// result replaces them on the stack.
func (l *liner) combine(parts []Solid, ln line, lo, hi float64, op setOp) (int, error) {
	start := len(l.buf)
	if _, err := l.alongLine(parts[0], ln, lo, hi); err != nil {
		return start, err
	}
	for _, p := range parts[1:] {
		mid := len(l.buf)
		if _, err := l.alongLine(p, ln, lo, hi); err != nil {
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
// number of crossings. Each triangle whose shadow, seen along the line, holds it is
// crossed once: the coordinates are sheared so that the line becomes an axis, as in the
// watertight ray-triangle test (Woop, Benthin and Wald, 2013), and the triangles are
// seen on the plane across it. On a shadow's edge, the rasterizers' top-left rule picks
// one of the two triangles that share it (the edge's value is a difference of products
// of its ends' coordinates, exactly negated when the ends swap, so the two triangles
// see exactly opposite signs); the rule is that of moving the line by a fixed
// infinitesimal, so at a silhouette, where both triangles lie on one side, both count or
// neither does. The hierarchy's boxes are widened by a billionth of the mesh's size, so
// that rounding in the box test loses no crossing. It returns false when the crossings
// over the whole line are odd in number, which rounding alone can cause.
func (l *liner) mesh(m *meshSolid, ln line, lo, hi float64) bool {
	l.hits = l.hits[:0]
	o, d := ln.o, ln.d
	kz := 2 // a vertical line keeps its axes: (x, y) across it
	if math.Abs(d.X) > math.Abs(d.get(kz)) {
		kz = 0
	}
	if math.Abs(d.Y) > math.Abs(d.get(kz)) {
		kz = 1
	}
	kx, ky := (kz+1)%3, (kz+2)%3
	sh := shear{o: o, kx: kx, ky: ky, kz: kz, sx: d.get(kx) / d.get(kz), sy: d.get(ky) / d.get(kz), sz: 1 / d.get(kz)}
	eps := 1e-9 * m.nodes[0].hi.Sub(m.nodes[0].lo).Len()
	vertical := ln.vertical()
	var stack [64]int32
	sp := 1
	stack[0] = 0
	for sp > 0 {
		sp--
		nd := &m.nodes[stack[sp]]
		if vertical { // the common case, most of a terrain's lines: no shear, no slabs
			if o.X < nd.lo.X-eps || o.X > nd.hi.X+eps || o.Y < nd.lo.Y-eps || o.Y > nd.hi.Y+eps {
				continue
			}
		} else if !lineHitsBox(o, d, nd.lo, nd.hi, eps) {
			continue
		}
		if nd.count == 0 {
			stack[sp], stack[sp+1] = nd.first, nd.first+1
			sp += 2
			continue
		}
		for i := nd.first; i < nd.first+nd.count; i++ {
			if t, ok := sh.cross(&m.tris[i]); ok {
				l.hits = append(l.hits, t)
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

// lineHitsBox tells whether the whole line o + t d meets the box [lo, hi] widened by eps.
func lineHitsBox(o, d, lo, hi Vec3, eps float64) bool {
	t0, t1 := math.Inf(-1), math.Inf(1)
	for axis := range 3 {
		oa, da, a, b := o.get(axis), d.get(axis), lo.get(axis)-eps, hi.get(axis)+eps
		if da == 0 {
			if oa < a || oa > b {
				return false
			}
			continue
		}
		ta, tb := (a-oa)/da, (b-oa)/da
		if ta > tb {
			ta, tb = tb, ta
		}
		t0, t1 = max(t0, ta), min(t1, tb)
	}
	return t0 <= t1
}

// shear maps a point relative to the line's o into coordinates where the line is the kz
// axis: (p[kx] - sx p[kz], p[ky] - sy p[kz], sz p[kz]), the last being t.
type shear struct {
	o          Vec3
	kx, ky, kz int
	sx, sy, sz float64
}

func (s *shear) at(p Vec3) Vec3 {
	q := p.Sub(s.o)
	z := q.get(s.kz)
	return Vec3{q.get(s.kx) - s.sx*z, q.get(s.ky) - s.sy*z, s.sz * z}
}

// cross returns the t at which the line crosses triangle tr, and whether it does (see
// mesh). e0, e1 and e2 are the doubled signed areas the line (the origin of the sheared
// plane) makes with the edges a-b, b-c and c-a, positive on their left.
func (s *shear) cross(tr *triangle) (float64, bool) {
	a, b, c := s.at(tr.a), s.at(tr.b), s.at(tr.c)
	e0, e1, e2 := a.X*b.Y-a.Y*b.X, b.X*c.Y-b.Y*c.X, c.X*a.Y-c.Y*a.X
	var ccw bool
	switch {
	case e0 >= 0 && e1 >= 0 && e2 >= 0:
		ccw = true
	case e0 <= 0 && e1 <= 0 && e2 <= 0:
	default:
		return 0, false
	}
	sum := e0 + e1 + e2
	if sum == 0 { // a triangle seen edge-on: its neighbours are crossed instead
		return 0, false
	}
	if (e0 == 0 && !ownsEdge(a, b, ccw)) || (e1 == 0 && !ownsEdge(b, c, ccw)) || (e2 == 0 && !ownsEdge(c, a, ccw)) {
		return 0, false
	}
	// Barycentric weights: e1 belongs to a (the edge opposite it), e2 to b, e0 to c; the
	// sheared Z is t.
	return (e1*a.Z + e2*b.Z + e0*c.Z) / sum, true
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
