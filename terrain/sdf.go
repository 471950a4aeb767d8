package terrain

import (
	"fmt"
	"math"
	"sync"
)

// Solid is a solid given by a signed distance field, in metres: Dist is negative inside
// the solid, positive in free space (where liquid may be), and changes sign on the
// solid's surface; a point where Dist is exactly 0 counts as solid. Dist must be
// continuous, must not return NaN, and must be safe to call from several goroutines at
// once (Extract and SurfaceMesh split their work across cores; see Serialized).
type Solid interface {
	Dist(p Vec3) float64
}

// Bound says how much a solid's Dist tells beyond its sign. Extraction steps further
// along a ray, and skips more lattice points, the stronger the bound.
type Bound int

const (
	// SignOnly: Dist has the right sign and is continuous; its magnitude bounds nothing.
	SignOnly Bound = iota
	// VerticalBound: |Dist(p) - Dist(q)| <= |p.Z - q.Z| for p and q on one vertical line,
	// so a point is at least |Dist| away from the surface straight up and straight down.
	// Heightfield's vertical distance has it.
	VerticalBound
	// Lipschitz: |Dist(p) - Dist(q)| <= |p - q| everywhere, so |Dist| never exceeds the
	// distance to the surface. Exact distances (box, sphere, cylinder, plane, mesh) and
	// their unions, intersections, differences, translations, rotations and scalings have
	// it.
	Lipschitz
)

func (b Bound) String() string {
	switch b {
	case SignOnly:
		return "sign only"
	case VerticalBound:
		return "vertical bound"
	case Lipschitz:
		return "Lipschitz"
	}
	return fmt.Sprintf("Bound(%d)", int(b))
}

// Bounded is implemented by solids that know their Bound. Every solid of this package
// implements it.
type Bounded interface {
	Bound() Bound
}

// BoundOf returns the bound a solid declares; SignOnly for a solid that does not
// implement Bounded, the only safe assumption about a Dist of unknown origin.
func BoundOf(s Solid) Bound {
	if b, ok := s.(Bounded); ok {
		return b.Bound()
	}
	return SignOnly
}

// IsLipschitz reports whether |s.Dist| is a lower bound of the distance to s's surface
// everywhere (BoundOf(s) == Lipschitz): false for Heightfield and anything containing it.
func IsLipschitz(s Solid) bool { return BoundOf(s) == Lipschitz }

func checkVec(what string, v Vec3) error {
	if !v.IsFinite() {
		return fmt.Errorf("terrain: %s is %v: every coordinate must be a finite number of metres", what, v)
	}
	return nil
}

func checkPositive(what string, x float64) error {
	if !finite(x) || x <= 0 {
		return fmt.Errorf("terrain: %s is %g: it must be a finite number > 0", what, x)
	}
	return nil
}

func checkDirection(what string, v Vec3) error {
	if !v.IsFinite() {
		return fmt.Errorf("terrain: %s is %v: every component must be finite", what, v)
	}
	if v.Len() == 0 {
		return fmt.Errorf("terrain: %s is %v: it must not be the zero vector", what, v)
	}
	return nil
}

// box is an axis-aligned box, stored as centre and half extents.
type box struct{ c, h Vec3 }

// Box returns the axis-aligned box [min, max]: its Dist is the exact signed distance.
func Box(min, max Vec3) (Solid, error) {
	if err := checkVec("box min", min); err != nil {
		return nil, err
	}
	if err := checkVec("box max", max); err != nil {
		return nil, err
	}
	for a, name := range []string{"x", "y", "z"} {
		if !(max.get(a) > min.get(a)) {
			return nil, fmt.Errorf("terrain: box max.%s (%g) must be greater than min.%s (%g)", name, max.get(a), name, min.get(a))
		}
	}
	return box{c: min.Add(max).Scale(0.5), h: max.Sub(min).Scale(0.5)}, nil
}

func (b box) Dist(p Vec3) float64 {
	qx := math.Abs(p.X-b.c.X) - b.h.X
	qy := math.Abs(p.Y-b.c.Y) - b.h.Y
	qz := math.Abs(p.Z-b.c.Z) - b.h.Z
	out := Vec3{max(qx, 0), max(qy, 0), max(qz, 0)}.Len()
	return out + min(max(qx, qy, qz), 0)
}

func (box) Bound() Bound { return Lipschitz }

type sphere struct {
	c Vec3
	r float64
}

// Sphere returns the ball of the given centre and radius (> 0): exact signed distance.
func Sphere(center Vec3, radius float64) (Solid, error) {
	if err := checkVec("sphere center", center); err != nil {
		return nil, err
	}
	if err := checkPositive("sphere radius", radius); err != nil {
		return nil, err
	}
	return sphere{center, radius}, nil
}

func (s sphere) Dist(p Vec3) float64 { return p.Sub(s.c).Len() - s.r }
func (sphere) Bound() Bound          { return Lipschitz }

type cylinder struct {
	base, axis  Vec3 // axis is a unit vector
	radius, len float64
}

// Cylinder returns the capped cylinder of the given radius whose axis runs from base
// along axis (any non-zero length; only its direction counts) for length metres: exact
// signed distance, flat caps.
func Cylinder(base, axis Vec3, radius, length float64) (Solid, error) {
	if err := checkVec("cylinder base", base); err != nil {
		return nil, err
	}
	if err := checkDirection("cylinder axis", axis); err != nil {
		return nil, err
	}
	if err := checkPositive("cylinder radius", radius); err != nil {
		return nil, err
	}
	if err := checkPositive("cylinder length", length); err != nil {
		return nil, err
	}
	return cylinder{base, axis.Unit(), radius, length}, nil
}

func (c cylinder) Dist(p Vec3) float64 {
	v := p.Sub(c.base)
	t := v.Dot(c.axis)
	dr := v.Sub(c.axis.Scale(t)).Len() - c.radius
	da := math.Abs(t-0.5*c.len) - 0.5*c.len
	return min(max(dr, da), 0) + math.Hypot(max(dr, 0), max(da, 0))
}

func (cylinder) Bound() Bound { return Lipschitz }

type plane struct{ p, n Vec3 } // n is a unit vector

// Plane returns the half-space below the plane through point with the given normal: the
// solid lies on the side opposite the normal, so normal (0, 0, 1) makes a floor. Exact
// signed distance.
func Plane(point, normal Vec3) (Solid, error) {
	if err := checkVec("plane point", point); err != nil {
		return nil, err
	}
	if err := checkDirection("plane normal", normal); err != nil {
		return nil, err
	}
	return plane{point, normal.Unit()}, nil
}

func (s plane) Dist(p Vec3) float64 { return p.Sub(s.p).Dot(s.n) }
func (plane) Bound() Bound          { return Lipschitz }

type heightfield struct{ fn func(x, y float64) float64 }

// Heightfield returns the solid below the surface z = fn(x, y). Its Dist is the vertical
// distance z - fn(x, y): right in sign and continuous when fn is, exact along vertical
// lines (VerticalBound), but NOT a bound on the true distance where the surface slopes,
// so combinations containing a heightfield are not Lipschitz.
//
// fn is called from several goroutines at once; wrap the heightfield in Serialized when
// fn cannot be (a Lua callback). fn may fail: Extract and SurfaceMesh report a NaN it
// returns, or a panic it raises, as an error naming the point, and do not crash.
func Heightfield(fn func(x, y float64) float64) (Solid, error) {
	if fn == nil {
		return nil, fmt.Errorf("terrain: heightfield fn is nil")
	}
	return heightfield{fn}, nil
}

func (h heightfield) Dist(p Vec3) float64 { return p.Z - h.fn(p.X, p.Y) }
func (heightfield) Bound() Bound          { return VerticalBound }

// checkSolids rejects an empty list or a nil solid, naming it (1-based) for op.
func checkSolids(op string, solids []Solid, least int) error {
	if len(solids) < least {
		return fmt.Errorf("terrain: %s needs at least %d solids, got %d", op, least, len(solids))
	}
	for i, s := range solids {
		if s == nil {
			return fmt.Errorf("terrain: %s: solid %d is nil", op, i+1)
		}
	}
	return nil
}

func minBound(solids []Solid) Bound {
	b := Lipschitz
	for _, s := range solids {
		b = min(b, BoundOf(s))
	}
	return b
}

type union struct {
	s     []Solid
	bound Bound
}

// Union returns the solid made of all the given ones (at least one): the minimum of
// their distances.
func Union(solids ...Solid) (Solid, error) {
	if err := checkSolids("union", solids, 1); err != nil {
		return nil, err
	}
	s := append([]Solid(nil), solids...)
	return union{s, minBound(s)}, nil
}

func (u union) Dist(p Vec3) float64 {
	d := u.s[0].Dist(p)
	for _, s := range u.s[1:] {
		d = min(d, s.Dist(p))
	}
	return d
}

func (u union) Bound() Bound { return u.bound }

type intersection struct {
	s     []Solid
	bound Bound
}

// Intersection returns the solid common to all the given ones (at least one): the
// maximum of their distances.
func Intersection(solids ...Solid) (Solid, error) {
	if err := checkSolids("intersection", solids, 1); err != nil {
		return nil, err
	}
	s := append([]Solid(nil), solids...)
	return intersection{s, minBound(s)}, nil
}

func (u intersection) Dist(p Vec3) float64 {
	d := u.s[0].Dist(p)
	for _, s := range u.s[1:] {
		d = max(d, s.Dist(p))
	}
	return d
}

func (u intersection) Bound() Bound { return u.bound }

type difference struct {
	a, b  Solid
	bound Bound
}

// Difference returns a minus b: the part of a outside b.
func Difference(a, b Solid) (Solid, error) {
	if err := checkSolids("difference", []Solid{a, b}, 2); err != nil {
		return nil, err
	}
	return difference{a, b, min(BoundOf(a), BoundOf(b))}, nil
}

func (d difference) Dist(p Vec3) float64 { return max(d.a.Dist(p), -d.b.Dist(p)) }
func (d difference) Bound() Bound        { return d.bound }

type translated struct {
	s Solid
	v Vec3
}

// Translate returns s moved by v metres.
func Translate(s Solid, v Vec3) (Solid, error) {
	if s == nil {
		return nil, fmt.Errorf("terrain: translate: solid is nil")
	}
	if err := checkVec("translation", v); err != nil {
		return nil, err
	}
	return translated{s, v}, nil
}

func (t translated) Dist(p Vec3) float64 { return t.s.Dist(p.Sub(t.v)) }
func (t translated) Bound() Bound        { return BoundOf(t.s) }

type rotated struct {
	s     Solid
	inv   [3]Vec3 // rows of the inverse rotation
	bound Bound
}

// Rotate returns s rotated about the origin by angle radians around axis (right-hand
// rule; any non-zero length). Translate first to rotate about another point.
func Rotate(s Solid, axis Vec3, angle float64) (Solid, error) {
	if s == nil {
		return nil, fmt.Errorf("terrain: rotate: solid is nil")
	}
	if err := checkDirection("rotation axis", axis); err != nil {
		return nil, err
	}
	if !finite(angle) {
		return nil, fmt.Errorf("terrain: rotation angle is %g: it must be a finite number of radians", angle)
	}
	k := axis.Unit()
	// Rodrigues' formula for the rotation by -angle, the inverse applied to p.
	c, sn := math.Cos(angle), -math.Sin(angle)
	t := 1 - c
	inv := [3]Vec3{
		{c + t*k.X*k.X, t*k.X*k.Y - sn*k.Z, t*k.X*k.Z + sn*k.Y},
		{t*k.Y*k.X + sn*k.Z, c + t*k.Y*k.Y, t*k.Y*k.Z - sn*k.X},
		{t*k.Z*k.X - sn*k.Y, t*k.Z*k.Y + sn*k.X, c + t*k.Z*k.Z},
	}
	b := BoundOf(s)
	// A rotation keeps distances, but a vertical bound survives only when vertical lines
	// stay exactly vertical (a rotation about the z axis).
	if b == VerticalBound && (inv[0].Z != 0 || inv[1].Z != 0) {
		b = SignOnly
	}
	return rotated{s, inv, b}, nil
}

func (r rotated) Dist(p Vec3) float64 {
	return r.s.Dist(Vec3{r.inv[0].Dot(p), r.inv[1].Dot(p), r.inv[2].Dot(p)})
}

func (r rotated) Bound() Bound { return r.bound }

type scaled struct {
	s Solid
	k float64
}

// Scale returns s scaled uniformly by k about the origin: Dist(p) = s.Dist(p/k) * k,
// exact for an exact distance, and it keeps s's Bound. k must be a finite number > 0.
// Translate afterwards to scale about another point.
func Scale(s Solid, k float64) (Solid, error) {
	if s == nil {
		return nil, fmt.Errorf("terrain: scale: solid is nil")
	}
	if err := checkPositive("scale factor", k); err != nil {
		return nil, err
	}
	return scaled{s, k}, nil
}

func (t scaled) Dist(p Vec3) float64 {
	return t.s.Dist(Vec3{p.X / t.k, p.Y / t.k, p.Z / t.k}) * t.k
}

func (t scaled) Bound() Bound { return BoundOf(t.s) }

type serialized struct {
	mu *sync.Mutex
	s  Solid
}

// Serialized returns s with its Dist calls made one at a time, for a solid whose Dist is
// not safe for concurrent use (a heightfield whose fn calls into a Lua state). A panic
// in s.Dist still releases the lock. Combine only the unsafe part: the rest of a scene
// keeps evaluating in parallel.
func Serialized(s Solid) (Solid, error) {
	if s == nil {
		return nil, fmt.Errorf("terrain: serialized: solid is nil")
	}
	return serialized{new(sync.Mutex), s}, nil
}

func (s serialized) Dist(p Vec3) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.s.Dist(p)
}

func (s serialized) Bound() Bound { return BoundOf(s.s) }
