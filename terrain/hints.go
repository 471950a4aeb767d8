package terrain

import "math"

// A probe's queries come in runs of nearby points: a ray's steps up a column, a lattice
// row's points, a column of lattice points layer after layer. Far from a closed mesh
// (beyond its reach, where nothing nearer is searched for) its distance's sign takes
// ray casts through the whole hierarchy; but two points both at least reach from the
// surface and less than twice reach apart have the same sign, since a surface point
// between them would lie within reach of one of them. So a probe remembers, for each
// mesh, the last far point it saw and its sign (hints), and a far point near it takes
// that sign without a ray. The values are those of Dist, bit for bit.

// maxHinted is how many meshes a probe remembers; a scene with more casts rays for the
// rest as Dist does.
const maxHinted = 4

// farStep is the largest distance, as a fraction of twice the reach, over which a far
// point's sign is carried: less than 1, so that rounding cannot matter.
const farStep = 0.9

// hints is one goroutine's memory of the last far point of each mesh.
type hints struct {
	n       int
	slots   [maxHinted]farHint
	carried int // far points whose sign was carried (tests count them)
}

type farHint struct {
	mesh   *meshSolid
	have   bool
	p      Vec3
	inside bool
}

// slot returns m's memory, or nil when every slot is taken by other meshes.
func (h *hints) slot(m *meshSolid) *farHint {
	for i := range h.n {
		if h.slots[i].mesh == m {
			return &h.slots[i]
		}
	}
	if h.n == maxHinted {
		return nil
	}
	h.slots[h.n] = farHint{mesh: m}
	h.n++
	return &h.slots[h.n-1]
}

// hintedSolid is a solid that hands a probe's hints down to the meshes it holds.
type hintedSolid interface {
	distHinted(p Vec3, h *hints) float64
}

// distHinted is s.Dist(p), with h handed to the meshes in s.
func distHinted(s Solid, p Vec3, h *hints) float64 {
	if hs, ok := s.(hintedSolid); ok {
		return hs.distHinted(p, h)
	}
	return s.Dist(p)
}

func (f floorField) distHinted(p Vec3, h *hints) float64 {
	return min(distHinted(f.s, Vec3{p.X, p.Y, min(max(p.Z, 0), f.height)}, h), p.Z)
}

func (u union) distHinted(p Vec3, h *hints) float64 {
	d := distHinted(u.s[0], p, h)
	for _, s := range u.s[1:] {
		d = min(d, distHinted(s, p, h))
	}
	return d
}

func (u intersection) distHinted(p Vec3, h *hints) float64 {
	d := distHinted(u.s[0], p, h)
	for _, s := range u.s[1:] {
		d = max(d, distHinted(s, p, h))
	}
	return d
}

func (d difference) distHinted(p Vec3, h *hints) float64 {
	return max(distHinted(d.a, p, h), -distHinted(d.b, p, h))
}

func (t translated) distHinted(p Vec3, h *hints) float64 { return distHinted(t.s, p.Sub(t.v), h) }

func (r rotated) distHinted(p Vec3, h *hints) float64 {
	return distHinted(r.s, Vec3{r.inv[0].Dot(p), r.inv[1].Dot(p), r.inv[2].Dot(p)}, h)
}

func (t scaled) distHinted(p Vec3, h *hints) float64 {
	return distHinted(t.s, Vec3{p.X / t.k, p.Y / t.k, p.Z / t.k}, h) * t.k
}

func (m *meshSolid) distHinted(p Vec3, h *hints) float64 {
	d2, k := m.nearest2(p, m.reach*m.reach)
	if k >= 0 || m.openEdges > 0 { // near the surface, or an open mesh (its winding number varies off the surface)
		return m.signed(p, d2, k)
	}
	f := h.slot(m)
	if f == nil {
		return m.signed(p, d2, k)
	}
	step := 2 * farStep * m.reach
	if !f.have || dist2(p, f.p) >= step*step {
		f.inside = m.inside(p)
	} else {
		h.carried++
	}
	f.have, f.p = true, p
	d := math.Sqrt(d2)
	if f.inside {
		return -d
	}
	return d
}
