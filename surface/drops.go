package surface

import (
	"math"
	"slices"
)

// Drop is liquid in the air (gpusim.Particle): a sphere of its volume, moving at a
// velocity (AirSurface stretches it along the velocity; AppendDrops ignores it, and a
// zero velocity is a drop at rest).
type Drop struct {
	X, Y, Z    float32 // centre, m
	Radius     float32 // m
	VX, VY, VZ float32 // velocity, m/s
}

// Liquid in the air is drawn and exported as small spheres after the surface's own
// vertices and triangles: each drop is an icosahedron (12 vertices, 20 triangles) of its
// radius, with radial normals and counter-clockwise faces seen from outside. Its opacity
// is Radius / DepthMax (at most 1): a renderer that draws both faces, as the preview does,
// sees light through the drop's diameter.
var icoVerts, icoFaces = icosahedron()

// icosahedron returns the unit icosahedron's vertices and its faces, outward
// counter-clockwise.
func icosahedron() ([12][3]float32, [20][3]uint32) {
	p := (1 + math.Sqrt(5)) / 2
	raw := [12][3]float64{
		{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0},
		{0, -1, p}, {0, 1, p}, {0, -1, -p}, {0, 1, -p},
		{p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1},
	}
	var v [12][3]float32
	for i, r := range raw {
		n := math.Sqrt(r[0]*r[0] + r[1]*r[1] + r[2]*r[2])
		v[i] = [3]float32{float32(r[0] / n), float32(r[1] / n), float32(r[2] / n)}
	}
	f := [20][3]uint32{
		{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
		{1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
		{3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
		{4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1},
	}
	return v, f
}

// AppendDrops adds drops to m as spheres (see Drop) and returns m. depthMax is the
// surface's Settings.DepthMax. Once m's arrays have grown, it allocates nothing.
func (m *Mesh) AppendDrops(drops []Drop, depthMax float64) *Mesh {
	if len(drops) == 0 {
		return m
	}
	// Grown once, then written in place: a stream of thousands of drops is rebuilt every
	// frame, and appending value by value took 1.4-1.5 times as long (BenchmarkAppendDrops).
	nv := m.NumVertices()
	pos := grow(&m.Positions, 3*len(icoVerts)*len(drops))
	nor := grow(&m.Normals, 3*len(icoVerts)*len(drops))
	opa := grow(&m.Opacity, len(icoVerts)*len(drops))
	idx := grow(&m.Indices, 3*len(icoFaces)*len(drops))
	for k, d := range drops {
		first := uint32(nv + k*len(icoVerts))
		op := float32(min(float64(d.Radius)/depthMax, 1))
		p := pos[3*len(icoVerts)*k : 3*len(icoVerts)*(k+1)]
		n := nor[3*len(icoVerts)*k : 3*len(icoVerts)*(k+1)]
		for j, v := range &icoVerts {
			p[3*j], p[3*j+1], p[3*j+2] = d.X+d.Radius*v[0], d.Y+d.Radius*v[1], d.Z+d.Radius*v[2]
			n[3*j], n[3*j+1], n[3*j+2] = v[0], v[1], v[2]
		}
		o := opa[len(icoVerts)*k : len(icoVerts)*(k+1)]
		for j := range o {
			o[j] = op
		}
		ix := idx[3*len(icoFaces)*k : 3*len(icoFaces)*(k+1)]
		for j, f := range &icoFaces {
			ix[3*j], ix[3*j+1], ix[3*j+2] = first+f[0], first+f[1], first+f[2]
		}
	}
	return m
}

// grow lengthens *s by n elements (contents unset) and returns the new ones.
func grow[T any](s *[]T, n int) []T {
	l := len(*s)
	*s = slices.Grow(*s, n)[:l+n]
	return (*s)[l:]
}
