package terrain

import (
	"fmt"
	"math"
	"runtime"
)

// Mesh is an indexed triangle mesh.
type Mesh struct {
	Positions []float32 // xyz triples, m
	Normals   []float32 // xyz triples, unit, pointing out of the solid (into free space)
	Indices   []uint32  // triangles, counter-clockwise seen from outside the solid
}

// NumVertices returns the number of vertices.
func (m *Mesh) NumVertices() int { return len(m.Positions) / 3 }

// NumTriangles returns the number of triangles.
func (m *Mesh) NumTriangles() int { return len(m.Indices) / 3 }

// mcColumnBytes is the marching-cubes workspace per lattice column: two layers of
// values, flags and edge vertices, the vertical edges and the tracing state.
const mcColumnBytes = 2*(8+1+1+4+4) + 4 + 4 + 8

// SurfaceMesh returns the terrain's surface by marching cubes of s over domain d.
//
// The lattice points are the cell centres, (i+0.5)*dx, horizontally and (k+0.5)*dx
// vertically, plus one point beyond the domain on every side. What is meshed is the
// terrain as the simulation sees it, closed into a diorama: the solid joined with a floor
// slab from z = -dx to z = 0 (the domain floor, so it shows where no solid covers it),
// cut to the domain [0, Nx*dx] x [0, Ny*dx] x [-dx, Height]. The mesh is therefore
// closed (every edge shared by exactly two triangles) and consistently wound; it has
// vertical walls where the solid meets the domain's sides and a cap at Height where it
// reaches the top. s.Dist is called only at points inside the domain (points beyond it
// are clamped onto its boundary), so a heightfield need not be defined outside.
//
// Vertices lie on the lattice edges the surface crosses, shared between the triangles
// that use them, placed by linear interpolation of Dist; normals come from the
// gradient of the clipped field by central differences. Where the surface passes exactly
// through a lattice point, triangles of zero area can occur. When s has a VerticalBound
// or better, lattice points far from the surface are not evaluated: their sign follows
// from the last value in their column.
//
// Errors: an invalid domain, a lattice too large for memory, a NaN distance or a panic
// in s.Dist (naming the point). Work is spread over runtime.GOMAXPROCS goroutines; the
// mesh does not depend on their number.
func SurfaceMesh(s Solid, d Domain) (*Mesh, error) {
	return surfaceMesh(s, d, runtime.GOMAXPROCS(0), true)
}

// clipped is the field SurfaceMesh meshes: (s joined with the floor) cut to the box.
type clipped struct {
	s      Solid
	hi     Vec3 // domain top corner (Nx*dx, Ny*dx, Height); the low corner is the origin
	box    box  // [0, hi.X] x [0, hi.Y] x [-dx, hi.Z]
	bound  Bound
	inside Vec3 // scratch-free clamp bounds: same as hi
}

func (c *clipped) Dist(p Vec3) float64 {
	q := Vec3{min(max(p.X, 0), c.hi.X), min(max(p.Y, 0), c.hi.Y), min(max(p.Z, 0), c.hi.Z)}
	return max(min(c.s.Dist(q), p.Z), c.box.Dist(p))
}

func (c *clipped) Bound() Bound { return c.bound }

// mcLayer is one horizontal layer of lattice points.
type mcLayer struct {
	val   []float64 // field value; exact only where exact is set
	solid []bool    // val <= 0
	exact []bool    // val was evaluated, not inferred from a bound
	xe    []int32   // vertex on the x edge starting at the point; -1 if none yet
	ye    []int32   // vertex on the y edge starting at the point; -1 if none yet
}

func newMCLayer(n int) *mcLayer {
	return &mcLayer{make([]float64, n), make([]bool, n), make([]bool, n), make([]int32, n), make([]int32, n)}
}

func surfaceMesh(s Solid, d Domain, workers int, skip bool) (*Mesh, error) {
	if s == nil {
		return nil, fmt.Errorf("terrain: surface mesh: solid is nil")
	}
	nx, ny, err := grid(d)
	if err != nil {
		return nil, err
	}
	if d.Height/d.Dx > maxAxisCells {
		return nil, fmt.Errorf("terrain: the domain is %.3g cells tall: at most %d", d.Height/d.Dx, maxAxisCells)
	}
	nz := int(math.Ceil(d.Height / d.Dx))
	NX, NY, NZ := nx+2, ny+2, nz+3
	plane := NX * NY
	if err := checkBytes(fmt.Sprintf("a surface mesh of a %d x %d x %d lattice", NX, NY, NZ), mulSat(uint64(plane), mcColumnBytes)); err != nil {
		return nil, err
	}
	dx := d.Dx
	hi := Vec3{float64(nx) * dx, float64(ny) * dx, d.Height}
	f := &clipped{s: s, hi: hi, bound: BoundOf(s)}
	f.box = box{c: Vec3{hi.X / 2, hi.Y / 2, (hi.Z - dx) / 2}, h: Vec3{hi.X / 2, hi.Y / 2, (hi.Z + dx) / 2}}
	skip = skip && f.bound >= VerticalBound
	workers = max(1, min(workers, NY))
	probes := make([]probe, workers)
	for w := range probes {
		probes[w].s = f
	}
	at := func(i, j, k int) Vec3 {
		return Vec3{(float64(i) - 0.5) * dx, (float64(j) - 0.5) * dx, (float64(k) - 1.5) * dx}
	}
	wrap := func(err error) error { return fmt.Errorf("terrain: surface mesh: %w", err) }

	// Tracing state per lattice column: the latest evaluated layer and its value.
	lastK := make([]int32, plane)
	lastV := make([]float64, plane)
	for i := range lastK {
		lastK[i] = -1
	}
	margin := dx / 16
	eval := func(pr *probe, L *mcLayer, idx, i, j, k int) error {
		v, err := pr.dist(at(i, j, k))
		if err != nil {
			return err
		}
		L.val[idx], L.exact[idx] = v, true
		if int32(k) > lastK[idx] {
			lastK[idx], lastV[idx] = int32(k), v
		}
		return nil
	}
	// fill sets the signs of layer k: from the column's latest value where the bound
	// settles it, by evaluation elsewhere.
	fill := func(L *mcLayer, k int) error {
		return forRows(NY, workers, func(w, j int) (err error) {
			pr := &probes[w]
			defer pr.catch(&err)
			for i := range NX {
				idx := j*NX + i
				L.xe[idx], L.ye[idx], L.exact[idx] = -1, -1, false
				if lk := lastK[idx]; skip && lk >= 0 {
					if math.Abs(lastV[idx])-float64(k-int(lk))*dx > margin {
						L.val[idx], L.solid[idx] = lastV[idx], lastV[idx] <= 0
						continue
					}
				}
				if err := eval(pr, L, idx, i, j, k); err != nil {
					return err
				}
				L.solid[idx] = L.val[idx] <= 0
			}
			return nil
		})
	}
	// exact evaluates the points of layers a (k) and b (k+1) that end a lattice edge
	// crossing the surface, whose values interpolation needs. Signs do not change.
	exact := func(a, b *mcLayer, k int) error {
		return forRows(NY, workers, func(w, j int) (err error) {
			pr := &probes[w]
			defer pr.catch(&err)
			for i := range NX {
				idx := j*NX + i
				for l, L := range [2]*mcLayer{a, b} {
					if L.exact[idx] {
						continue
					}
					other := b
					if l == 1 {
						other = a
					}
					s := L.solid[idx]
					if other.solid[idx] != s ||
						i > 0 && L.solid[idx-1] != s || i+1 < NX && L.solid[idx+1] != s ||
						j > 0 && L.solid[idx-NX] != s || j+1 < NY && L.solid[idx+NX] != s {
						if err := eval(pr, L, idx, i, j, k+l); err != nil {
							return err
						}
					}
				}
			}
			return nil
		})
	}

	var pos []float64 // vertex positions, float64 until the normals are done
	var tris []uint32
	A, B := newMCLayer(plane), newMCLayer(plane)
	ze := make([]int32, plane) // vertex on the z edge from each point of A
	if err := fill(A, 0); err != nil {
		return nil, wrap(err)
	}
	var layers [2]*mcLayer
	for k := 0; k+1 < NZ; k++ {
		if err := fill(B, k+1); err != nil {
			return nil, wrap(err)
		}
		if err := exact(A, B, k); err != nil {
			return nil, wrap(err)
		}
		for i := range ze {
			ze[i] = -1
		}
		layers = [2]*mcLayer{A, B}
		for j := 0; j+1 < NY; j++ {
			for i := 0; i+1 < NX; i++ {
				cfg := 0
				for c := range 8 {
					if layers[c>>2].solid[(j+c>>1&1)*NX+i+c&1] {
						cfg |= 1 << c
					}
				}
				for _, e := range mcCases[cfg] {
					c0, c1 := int(mcEdgeCorners[e][0]), int(mcEdgeCorners[e][1])
					L0, L1 := layers[c0>>2], layers[c1>>2]
					i0, j0 := i+c0&1, j+c0>>1&1
					idx0, idx1 := j0*NX+i0, (j+c1>>1&1)*NX+i+c1&1
					var slot *int32
					switch axis := e / 4; axis {
					case 0:
						slot = &L0.xe[idx0]
					case 1:
						slot = &L0.ye[idx0]
					default:
						slot = &ze[idx0]
					}
					if *slot < 0 {
						if len(pos)/3 >= math.MaxUint32 {
							return nil, fmt.Errorf("terrain: surface mesh: more than %d vertices", uint32(math.MaxUint32))
						}
						*slot = int32(len(pos) / 3)
						p := at(i0, j0, k+c0>>2)
						t := edgeFraction(L0.val[idx0], L1.val[idx1])
						switch e / 4 {
						case 0:
							p.X += t * dx
						case 1:
							p.Y += t * dx
						default:
							p.Z += t * dx
						}
						pos = append(pos, p.X, p.Y, p.Z)
					}
					tris = append(tris, uint32(*slot))
				}
			}
		}
		A, B = B, A
	}

	normals, err := meshNormals(f, pos, tris, probes, dx)
	if err != nil {
		return nil, wrap(err)
	}
	m := &Mesh{Positions: make([]float32, len(pos)), Normals: normals, Indices: tris}
	for i, v := range pos {
		m.Positions[i] = float32(v)
	}
	return m, nil
}

// edgeFraction is where along an edge the field crosses zero, from its end values a and
// b of opposite signs; clamped, in case a solid breaks its declared bound.
func edgeFraction(a, b float64) float64 {
	if a == b {
		return 0.5
	}
	return min(max(a/(a-b), 0), 1)
}

// meshNormals returns the unit gradient of f at each vertex (central differences, step
// dx/1000). Where the gradient vanishes (a symmetric kink) it falls back to the
// area-weighted normals of the vertex's triangles, then to +z.
func meshNormals(f Solid, pos []float64, tris []uint32, probes []probe, dx float64) ([]float32, error) {
	n := len(pos) / 3
	out := make([]float32, len(pos))
	h := dx * 1e-3
	const chunk = 1024
	var degenerate []bool
	err := forRows((n+chunk-1)/chunk, len(probes), func(w, c int) (err error) {
		pr := &probes[w]
		defer pr.catch(&err)
		for v := c * chunk; v < min(n, (c+1)*chunk); v++ {
			p := Vec3{pos[3*v], pos[3*v+1], pos[3*v+2]}
			var g [3]float64
			for a := range 3 {
				var e Vec3
				switch a {
				case 0:
					e.X = h
				case 1:
					e.Y = h
				default:
					e.Z = h
				}
				d1, err := pr.dist(p.Add(e))
				if err != nil {
					return err
				}
				d0, err := pr.dist(p.Sub(e))
				if err != nil {
					return err
				}
				g[a] = d1 - d0
			}
			u := Vec3{g[0], g[1], g[2]}.Unit()
			out[3*v], out[3*v+1], out[3*v+2] = float32(u.X), float32(u.Y), float32(u.Z)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for v := range n {
		if out[3*v] == 0 && out[3*v+1] == 0 && out[3*v+2] == 0 {
			if degenerate == nil {
				degenerate = make([]bool, n)
			}
			degenerate[v] = true
		}
	}
	if degenerate == nil {
		return out, nil
	}
	acc := make(map[uint32]Vec3)
	for t := 0; t+2 < len(tris); t += 3 {
		a, b, c := tris[t], tris[t+1], tris[t+2]
		if !degenerate[a] && !degenerate[b] && !degenerate[c] {
			continue
		}
		pa := Vec3{pos[3*a], pos[3*a+1], pos[3*a+2]}
		pb := Vec3{pos[3*b], pos[3*b+1], pos[3*b+2]}
		pc := Vec3{pos[3*c], pos[3*c+1], pos[3*c+2]}
		fn := pb.Sub(pa).Cross(pc.Sub(pa))
		for _, v := range [3]uint32{a, b, c} {
			if degenerate[v] {
				acc[v] = acc[v].Add(fn)
			}
		}
	}
	for v, isDeg := range degenerate {
		if !isDeg {
			continue
		}
		u := acc[uint32(v)].Unit()
		if u == (Vec3{}) {
			u.Z = 1
		}
		out[3*v], out[3*v+1], out[3*v+2] = float32(u.X), float32(u.Y), float32(u.Z)
	}
	return out, nil
}
