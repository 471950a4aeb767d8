package bodies

import (
	"errors"
	"fmt"
	"math"

	"github.com/vpbench/vpbench/terrain"
)

// Box is an axis-aligned box, m.
type Box struct{ Min, Max vec }

// Shape is a solid sampled for a rigid body: a lattice of points in the body's frame
// (the centre of mass at the origin, the solid's own axes), each a lattice cell inside
// the solid with the cell's volume. Immutable once made; bodies share it.
type Shape struct {
	// Solid is the solid as given; Offset is where the body frame's origin (the centre
	// of mass) lies in the solid's coordinates: a body-frame point p is the solid's
	// point p + Offset.
	Solid  terrain.Solid
	Offset vec

	X, Y, Z []float32 // the points, body frame, m
	// Surface lists the points on the boundary (a lattice neighbour outside the solid
	// or outside the lattice): the ones contacts test, at Contact: each one moved by
	// half a cell towards every side its cell's neighbour is outside (a box's corners
	// and faces are its own), body frame, m.
	Surface []int32
	Contact [][3]float32
	Cell    vec     // the lattice's spacing along the body's axes, m
	Volume  float64 // the points' volume, m^3 (the solid's, to the lattice)
	// Inertia is the inertia tensor per unit density about the centre of mass, body
	// frame, m^5 (times the density: kg m^2).
	Inertia mat3
	Radius  float64 // the farthest corner of a point's cell from the origin, m
	Min     vec     // the points' cells' bounds, body frame, m
	Max     vec
}

// MaxPoints is about the most points a shape is sampled with: the update's cost is
// proportional to it (docs/bodies.md, "Cost").
const MaxPoints = 160

// NewShape finds the solid inside the box search (the domain: a body must lie within
// it) and samples it. The solid must be bounded and inside search, and at least one
// lattice cell must lie inside it; minCell is the least spacing (the grid's cell size
// over 4: finer buys nothing the columns can see).
func NewShape(solid terrain.Solid, search Box, minCell float64) (*Shape, error) {
	if solid == nil {
		return nil, fmt.Errorf("body: no solid")
	}
	lo, hi, err := bounds(solid, search)
	if err != nil {
		return nil, err
	}
	ext := hi.Sub(lo)
	// Spacing: about MaxPoints cells in the bounding box, at least 2 along each axis
	// (a thin body keeps two layers), never finer than minCell.
	vol := ext.X * ext.Y * ext.Z
	s := math.Cbrt(vol / MaxPoints)
	n := [3]int{}
	e := [3]float64{ext.X, ext.Y, ext.Z}
	var cell [3]float64
	for a := range 3 {
		n[a] = max(2, int(math.Round(e[a]/max(s, minCell))))
		n[a] = min(n[a], 64)
		cell[a] = e[a] / float64(n[a])
	}
	sh := &Shape{Solid: solid, Cell: vec{X: cell[0], Y: cell[1], Z: cell[2]}}
	inside := make([]bool, n[0]*n[1]*n[2])
	idx := func(i, j, k int) int { return (k*n[1]+j)*n[0] + i }
	var pts []vec
	var com vec
	for k := range n[2] {
		for j := range n[1] {
			for i := range n[0] {
				p := vec{X: lo.X + (float64(i)+0.5)*cell[0], Y: lo.Y + (float64(j)+0.5)*cell[1], Z: lo.Z + (float64(k)+0.5)*cell[2]}
				d := solid.Dist(p)
				if math.IsNaN(d) {
					return nil, fmt.Errorf("body: the solid's distance is NaN at %v", p)
				}
				if d < 0 {
					inside[idx(i, j, k)] = true
					pts = append(pts, p)
					com = com.Add(p)
				}
			}
		}
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("body: the solid is thinner than its sampling (%.3g x %.3g x %.3g mm cells): no cell centre lies inside it",
			cell[0]*1e3, cell[1]*1e3, cell[2]*1e3)
	}
	com = com.Scale(1 / float64(len(pts)))
	sh.Offset = com
	cv := cell[0] * cell[1] * cell[2]
	sh.Volume = cv * float64(len(pts))
	self := mat3{ // a cell's own inertia per unit density
		{cv * (cell[1]*cell[1] + cell[2]*cell[2]) / 12, 0, 0},
		{0, cv * (cell[0]*cell[0] + cell[2]*cell[2]) / 12, 0},
		{0, 0, cv * (cell[0]*cell[0] + cell[1]*cell[1]) / 12},
	}
	half := vec{X: cell[0] / 2, Y: cell[1] / 2, Z: cell[2] / 2}
	sh.Min = vec{X: math.Inf(1), Y: math.Inf(1), Z: math.Inf(1)}
	sh.Max = vec{X: math.Inf(-1), Y: math.Inf(-1), Z: math.Inf(-1)}
	k := 0
	for kk := range n[2] {
		for j := range n[1] {
			for i := range n[0] {
				if !inside[idx(i, j, kk)] {
					continue
				}
				r := pts[k].Sub(com)
				k++
				sh.X = append(sh.X, float32(r.X))
				sh.Y = append(sh.Y, float32(r.Y))
				sh.Z = append(sh.Z, float32(r.Z))
				sh.Inertia.addPoint(r, cv)
				sh.Inertia = sh.Inertia.add(self)
				corner := vec{X: math.Abs(r.X) + half.X, Y: math.Abs(r.Y) + half.Y, Z: math.Abs(r.Z) + half.Z}
				sh.Radius = max(sh.Radius, corner.Len())
				sh.Min = vec{X: min(sh.Min.X, r.X-half.X), Y: min(sh.Min.Y, r.Y-half.Y), Z: min(sh.Min.Z, r.Z-half.Z)}
				sh.Max = vec{X: max(sh.Max.X, r.X+half.X), Y: max(sh.Max.Y, r.Y+half.Y), Z: max(sh.Max.Z, r.Z+half.Z)}
				edge := false
				var out [3]float64 // towards the outside along each axis: -1, 0 or +1
				for a, o := range [6][3]int{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}} {
					x, y, z := i+o[0], j+o[1], kk+o[2]
					if x < 0 || y < 0 || z < 0 || x >= n[0] || y >= n[1] || z >= n[2] || !inside[idx(x, y, z)] {
						edge = true
						out[a/2] += float64(2*(a%2) - 1)
					}
				}
				if edge {
					sh.Surface = append(sh.Surface, int32(len(sh.X)-1))
					sh.Contact = append(sh.Contact, [3]float32{
						float32(r.X + out[0]*half.X), float32(r.Y + out[1]*half.Y), float32(r.Z + out[2]*half.Z)})
				}
			}
		}
	}
	return sh, nil
}

// Dist is the solid's signed distance at a body-frame point.
func (sh *Shape) Dist(p vec) float64 { return sh.Solid.Dist(p.Add(sh.Offset)) }

// bounds finds the box around the solid inside search: the solid is sampled on a
// lattice of about 96 cells along the longest side, and every lattice point whose
// distance is under the half-diagonal of a cell (a Lipschitz distance cannot hide the
// solid from it; for a solid whose distance is a sign only, a mesh, the points inside)
// counts, then the box is refined on a lattice about 8x finer around it. A solid that
// reaches search's sides is unbounded there (a plane, a heightfield): an error.
func bounds(solid terrain.Solid, search Box) (lo, hi vec, err error) {
	ext := search.Max.Sub(search.Min)
	if !(ext.X > 0 && ext.Y > 0 && ext.Z > 0) {
		return lo, hi, fmt.Errorf("body: the domain box %v - %v is empty", search.Min, search.Max)
	}
	// A lower bound of the distance may be weak (a mesh's is a few of its cells) and then
	// every lattice point seems near the solid: then the points inside alone.
	var out error
	for _, signOnly := range []bool{!terrain.IsLipschitz(solid), true} {
		lo, hi, err := boundsBy(solid, search, signOnly)
		if err == nil || errors.Is(err, errNotInDomain) {
			return lo, hi, err
		}
		out = err
		if signOnly {
			break
		}
	}
	return lo, hi, out
}

// errNotInDomain is bounds' error for a solid with no part in the search box.
var errNotInDomain = errors.New("body: the solid does not reach into the domain: place it inside, or give `at`")

// boundsBy is bounds with the lattice points counted by their distance (signOnly false)
// or by being inside.
func boundsBy(solid terrain.Solid, search Box, signOnly bool) (lo, hi vec, err error) {
	ext := search.Max.Sub(search.Min)
	h := max(ext.X, ext.Y, ext.Z) / 96
	lo, hi, ok, err := scan(solid, search, h, signOnly)
	if err != nil {
		return lo, hi, err
	}
	if !ok {
		return lo, hi, errNotInDomain
	}
	// Refine around what was found, one coarse cell of margin.
	margin := vec{X: h, Y: h, Z: h}
	fine := Box{Min: maxVec(lo.Sub(margin), search.Min), Max: minVec(hi.Add(margin), search.Max)}
	fext := fine.Max.Sub(fine.Min)
	lo2, hi2, ok, err := scan(solid, fine, max(fext.X, fext.Y, fext.Z)/96, signOnly)
	if err != nil || !ok {
		return lo, hi, err
	}
	const eps = 1e-12
	if lo2.X <= search.Min.X+eps || lo2.Y <= search.Min.Y+eps || lo2.Z <= search.Min.Z+eps ||
		hi2.X >= search.Max.X-eps || hi2.Y >= search.Max.Y-eps || hi2.Z >= search.Max.Z-eps {
		return lo, hi, fmt.Errorf("body: the solid reaches the domain's side (%.4g..%.4g, %.4g..%.4g, %.4g..%.4g m): a body must be a bounded solid inside the domain",
			lo2.X, hi2.X, lo2.Y, hi2.Y, lo2.Z, hi2.Z)
	}
	lo, hi = tighten(solid, lo2, hi2)
	return lo, hi, nil
}

// tighten moves each face of the box [lo, hi] onto the solid: for each side, bisection
// for the outermost plane whose 32 x 32 samples find some of the solid (exact for
// convex solids; a feature finer than the samples may be cut).
func tighten(solid terrain.Solid, lo, hi vec) (vec, vec) {
	const m = 32
	get := func(v vec, a int) float64 { return [3]float64{v.X, v.Y, v.Z}[a] }
	set := func(v *vec, a int, x float64) {
		switch a {
		case 0:
			v.X = x
		case 1:
			v.Y = x
		default:
			v.Z = x
		}
	}
	hits := func(a int, c float64) bool {
		b, d := (a+1)%3, (a+2)%3
		for i := range m {
			for j := range m {
				var p vec
				set(&p, a, c)
				set(&p, b, get(lo, b)+(float64(i)+0.5)*(get(hi, b)-get(lo, b))/m)
				set(&p, d, get(lo, d)+(float64(j)+0.5)*(get(hi, d)-get(lo, d))/m)
				if solid.Dist(p) < 0 {
					return true
				}
			}
		}
		return false
	}
	nlo, nhi := lo, hi
	for a := range 3 {
		mid := (get(lo, a) + get(hi, a)) / 2
		// Some plane between the faces holds solid (the scan found it): start there.
		in := mid
		if !hits(a, in) {
			found := false
			for k := 1; k < 16 && !found; k++ {
				if c := get(lo, a) + (get(hi, a)-get(lo, a))*float64(k)/16; hits(a, c) {
					in, found = c, true
				}
			}
			if !found {
				continue
			}
		}
		for side, face := range []float64{get(lo, a), get(hi, a)} {
			out, inside := face, in
			for range 30 {
				c := (out + inside) / 2
				if hits(a, c) {
					inside = c
				} else {
					out = c
				}
			}
			if side == 0 {
				set(&nlo, a, out)
			} else {
				set(&nhi, a, out)
			}
		}
	}
	return nlo, nhi
}

// scan samples solid on a lattice of spacing about h over b and returns the box of the
// cells that may hold some of it (see bounds), clipped to b.
func scan(solid terrain.Solid, b Box, h float64, signOnly bool) (lo, hi vec, ok bool, err error) {
	ext := b.Max.Sub(b.Min)
	nx, ny, nz := max(1, int(math.Ceil(ext.X/h))), max(1, int(math.Ceil(ext.Y/h))), max(1, int(math.Ceil(ext.Z/h)))
	hx, hy, hz := ext.X/float64(nx), ext.Y/float64(ny), ext.Z/float64(nz)
	reach := 0.5 * math.Sqrt(hx*hx+hy*hy+hz*hz)
	if signOnly {
		reach = 0 // the points inside
	}
	lo = vec{X: math.Inf(1), Y: math.Inf(1), Z: math.Inf(1)}
	hi = vec{X: math.Inf(-1), Y: math.Inf(-1), Z: math.Inf(-1)}
	for k := range nz {
		for j := range ny {
			for i := range nx {
				p := vec{X: b.Min.X + (float64(i)+0.5)*hx, Y: b.Min.Y + (float64(j)+0.5)*hy, Z: b.Min.Z + (float64(k)+0.5)*hz}
				d := solid.Dist(p)
				if math.IsNaN(d) {
					return lo, hi, false, fmt.Errorf("body: the solid's distance is NaN at %v", p)
				}
				if d < reach {
					ok = true
					lo = minVec(lo, vec{X: p.X - hx/2, Y: p.Y - hy/2, Z: p.Z - hz/2})
					hi = maxVec(hi, vec{X: p.X + hx/2, Y: p.Y + hy/2, Z: p.Z + hz/2})
				}
			}
		}
	}
	if ok {
		lo, hi = maxVec(lo, b.Min), minVec(hi, b.Max)
	}
	return lo, hi, ok, nil
}

func minVec(a, b vec) vec { return vec{X: min(a.X, b.X), Y: min(a.Y, b.Y), Z: min(a.Z, b.Z)} }
func maxVec(a, b vec) vec { return vec{X: max(a.X, b.X), Y: max(a.Y, b.Y), Z: max(a.Z, b.Z)} }
