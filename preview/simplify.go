package preview

import (
	"math"

	"github.com/vpbench/vpbench/terrain"
)

// Display meshes for software renderers. Mesa's llvmpipe rasterizes on the CPU, sharing
// the cores with the solver: it draws a few million triangles a second on two cores, so
// the surgery scene's terrain (about 240,000 triangles) took 130 ms a draw, a window of
// 7 frames a second. On such a renderer the window draws a simplified copy of the terrain
// (displayMesh): the solver and the liquid surface keep the full one, so the picture's
// liquid lies on the true terrain within the clustering cell (a fraction of a millimetre
// for the library's scenes).

// SoftwareTriangleBudget is the most terrain triangles the preview draws on a software
// renderer: about 10 ms a draw with llvmpipe on two cores.
const SoftwareTriangleBudget = 60000

// isSoftwareRenderer tells from GL_RENDERER whether OpenGL runs on the CPU.
func isSoftwareRenderer(name string) bool {
	for _, s := range []string{"llvmpipe", "softpipe", "SwiftShader", "Software Rasterizer"} {
		if containsFold(name, s) {
			return true
		}
	}
	return false
}

func containsFold(s, sub string) bool {
	lower := func(b byte) byte {
		if 'A' <= b && b <= 'Z' {
			return b + 'a' - 'A'
		}
		return b
	}
outer:
	for i := 0; i+len(sub) <= len(s); i++ {
		for j := 0; j < len(sub); j++ {
			if lower(s[i+j]) != lower(sub[j]) {
				continue outer
			}
		}
		return true
	}
	return false
}

// displayMesh returns m, or when it has more than budget triangles a simplified copy
// with at most budget: vertex clustering on a cubic grid whose cell grows (by 1.5) from
// the mesh's mean edge length until the result fits. budget <= 0 returns m.
func displayMesh(m *terrain.Mesh, budget int) *terrain.Mesh {
	if m == nil || budget <= 0 || m.NumTriangles() <= budget {
		return m
	}
	out, _ := simplify(m, budget)
	return out
}

// simplify returns displayMesh's copy of m and its clustering cell (0 where it keeps m).
func simplify(m *terrain.Mesh, budget int) (*terrain.Mesh, float64) {
	cell := meanEdge(m)
	if !(cell > 0) {
		return m, 0
	}
	var c clusterer
	for range 40 {
		cell *= 1.5
		out := c.cluster(m, cell)
		if out.NumTriangles() <= budget {
			return out, cell
		}
	}
	return m, 0
}

// meanEdge is the mean length of the first edge of up to 4096 triangles spread over m.
func meanEdge(m *terrain.Mesh) float64 {
	n := m.NumTriangles()
	stride := max(n/4096, 1)
	var sum float64
	var k int
	for t := 0; t < n; t += stride {
		a, b := m.Indices[3*t], m.Indices[3*t+1]
		dx := float64(m.Positions[3*a] - m.Positions[3*b])
		dy := float64(m.Positions[3*a+1] - m.Positions[3*b+1])
		dz := float64(m.Positions[3*a+2] - m.Positions[3*b+2])
		sum += math.Sqrt(dx*dx + dy*dy + dz*dz)
		k++
	}
	if k == 0 {
		return 0
	}
	return sum / float64(k)
}

// clusterer merges the vertices in each cell of a cubic grid into one, then keeps the
// triangles whose three vertices fell into three different cells, dropping repeats. The
// merged vertex is where the planes of the cell's triangles meet best (the minimum of
// their quadric error, Lindstrom's out-of-core simplification): on a sharp rim or crease
// it lies on the edge, where the cell's mean position would cut the corner and, cell after
// cell along a rim not aligned with the grid, make a sawtooth. Its normal is the cell's
// normals' normalized sum. Its maps are reused between tries.
type clusterer struct {
	cellOf map[[3]int32]uint32
	seen   map[[3]uint32]struct{}
}

// quadric is the sum over planes n.x = d, each weighted by w, of w (n.x - d)^2: a
// symmetric matrix A (xx, xy, xz, yy, yz, zz), the vector b = sum w d n, and the weight.
type quadric struct {
	a [6]float64
	b [3]float64
	w float64
}

func (q *quadric) add(n [3]float64, d, w float64) {
	q.a[0] += w * n[0] * n[0]
	q.a[1] += w * n[0] * n[1]
	q.a[2] += w * n[0] * n[2]
	q.a[3] += w * n[1] * n[1]
	q.a[4] += w * n[1] * n[2]
	q.a[5] += w * n[2] * n[2]
	for k := range 3 {
		q.b[k] += w * d * n[k]
	}
	q.w += w
}

// minimum returns the point nearest to mean among those where q is least: the planes'
// meeting point where three independent planes meet, a point on their line where two
// do, mean moved onto the plane where one does (directions whose eigenvalue is below a
// tenth of the largest count as flat, so near-parallel planes do not throw the point far).
func (q *quadric) minimum(mean [3]float64) [3]float64 {
	if !(q.w > 0) {
		return mean
	}
	m := [3][3]float64{{q.a[0], q.a[1], q.a[2]}, {q.a[1], q.a[3], q.a[4]}, {q.a[2], q.a[4], q.a[5]}}
	vals, vecs := eigenSym3(m)
	top := max(vals[0], vals[1], vals[2])
	// The residual at mean, r = b - A mean; the step is A's pseudo-inverse applied to r.
	var r [3]float64
	for i := range 3 {
		r[i] = q.b[i] - (m[i][0]*mean[0] + m[i][1]*mean[1] + m[i][2]*mean[2])
	}
	out := mean
	for e := range 3 {
		if !(vals[e] > 0.02*top) {
			continue
		}
		v := vecs[e]
		c := (v[0]*r[0] + v[1]*r[1] + v[2]*r[2]) / vals[e]
		for i := range 3 {
			out[i] += c * v[i]
		}
	}
	return out
}

// eigenSym3 returns the eigenvalues of the symmetric matrix m and unit eigenvectors
// (vecs[e] belongs to vals[e]), by cyclic Jacobi rotations.
func eigenSym3(m [3][3]float64) (vals [3]float64, vecs [3][3]float64) {
	v := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} // columns are the eigenvectors
	for range 16 {
		off := m[0][1]*m[0][1] + m[0][2]*m[0][2] + m[1][2]*m[1][2]
		if off <= 1e-30*(m[0][0]*m[0][0]+m[1][1]*m[1][1]+m[2][2]*m[2][2]) {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, qq := pq[0], pq[1]
			if m[p][qq] == 0 {
				continue
			}
			theta := (m[qq][qq] - m[p][p]) / (2 * m[p][qq])
			t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			c := 1 / math.Sqrt(t*t+1)
			s := t * c
			for k := range 3 { // m = J^T m J
				mkp, mkq := m[k][p], m[k][qq]
				m[k][p], m[k][qq] = c*mkp-s*mkq, s*mkp+c*mkq
			}
			for k := range 3 {
				mpk, mqk := m[p][k], m[qq][k]
				m[p][k], m[qq][k] = c*mpk-s*mqk, s*mpk+c*mqk
			}
			for k := range 3 {
				vkp, vkq := v[k][p], v[k][qq]
				v[k][p], v[k][qq] = c*vkp-s*vkq, s*vkp+c*vkq
			}
		}
	}
	for e := range 3 {
		vals[e] = m[e][e]
		vecs[e] = [3]float64{v[0][e], v[1][e], v[2][e]}
	}
	return vals, vecs
}

func (c *clusterer) cluster(m *terrain.Mesh, cell float64) *terrain.Mesh {
	if c.cellOf == nil {
		c.cellOf = make(map[[3]int32]uint32)
		c.seen = make(map[[3]uint32]struct{})
	}
	clear(c.cellOf)
	clear(c.seen)
	nv := m.NumVertices()
	remap := make([]uint32, nv)
	var pos, nrm []float64
	var count []float64
	for v := range nv {
		p := m.Positions[3*v : 3*v+3]
		key := [3]int32{int32(math.Floor(float64(p[0]) / cell)), int32(math.Floor(float64(p[1]) / cell)), int32(math.Floor(float64(p[2]) / cell))}
		id, ok := c.cellOf[key]
		if !ok {
			id = uint32(len(count))
			c.cellOf[key] = id
			pos = append(pos, 0, 0, 0)
			nrm = append(nrm, 0, 0, 0)
			count = append(count, 0)
		}
		remap[v] = id
		for k := range 3 {
			pos[3*id+uint32(k)] += float64(p[k])
			nrm[3*id+uint32(k)] += float64(m.Normals[3*v+k])
		}
		count[id]++
	}
	// Each triangle's plane, weighted by its area, goes into the quadrics of the cells of
	// its three vertices.
	quads := make([]quadric, len(count))
	at := func(v uint32) [3]float64 {
		return [3]float64{float64(m.Positions[3*v]), float64(m.Positions[3*v+1]), float64(m.Positions[3*v+2])}
	}
	for t := 0; t < m.NumTriangles(); t++ {
		i0, i1, i2 := m.Indices[3*t], m.Indices[3*t+1], m.Indices[3*t+2]
		p0, p1, p2 := at(i0), at(i1), at(i2)
		e1 := [3]float64{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}
		e2 := [3]float64{p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if !(l > 0) {
			continue
		}
		n = [3]float64{n[0] / l, n[1] / l, n[2] / l}
		d := n[0]*p0[0] + n[1]*p0[1] + n[2]*p0[2]
		a, b, e := remap[i0], remap[i1], remap[i2]
		quads[a].add(n, d, l)
		if b != a {
			quads[b].add(n, d, l)
		}
		if e != a && e != b {
			quads[e].add(n, d, l)
		}
	}
	out := &terrain.Mesh{Positions: make([]float32, len(pos)), Normals: make([]float32, len(nrm))}
	for id, n := range count {
		x, y, z := nrm[3*id], nrm[3*id+1], nrm[3*id+2]
		l := math.Sqrt(x*x + y*y + z*z)
		if l == 0 {
			l, z = 1, 1 // opposite normals cancelled: any unit normal will do
		}
		mean := [3]float64{pos[3*id] / n, pos[3*id+1] / n, pos[3*id+2] / n}
		best := quads[id].minimum(mean)
		// The point stays within a cell of the mean: a wild solve (planes nearly
		// meeting far away) keeps the mean.
		if d0, d1, d2 := best[0]-mean[0], best[1]-mean[1], best[2]-mean[2]; d0*d0+d1*d1+d2*d2 > cell*cell {
			best = mean
		}
		for k := range 3 {
			out.Positions[3*id+k] = float32(best[k])
		}
		out.Normals[3*id], out.Normals[3*id+1], out.Normals[3*id+2] = float32(x/l), float32(y/l), float32(z/l)
	}
	for t := 0; t < m.NumTriangles(); t++ {
		a, b, d := remap[m.Indices[3*t]], remap[m.Indices[3*t+1]], remap[m.Indices[3*t+2]]
		if a == b || b == d || a == d {
			continue
		}
		key := [3]uint32{a, b, d} // the same winding rotated is the same triangle
		for key[0] > key[1] || key[0] > key[2] {
			key = [3]uint32{key[1], key[2], key[0]}
		}
		if _, dup := c.seen[key]; dup {
			continue
		}
		c.seen[key] = struct{}{}
		out.Indices = append(out.Indices, a, b, d)
	}
	return splitCreases(out, m, remap)
}

// creaseCos is the cosine of the largest angle between a simplified triangle's normal and
// the normals a corner of it takes from its cell's vertices: 60 degrees.
const creaseCos = 0.866

// splitCreases gives each corner of out's triangles the normalized sum of the normals of
// the vertices of m merged into it (remap) that lie within 60 degrees of the triangle's
// own normal, splitting a merged vertex into one per distinct normal. Where a cell holds
// a sharp rim or crease, the sum of all its normals points between the two faces, by an
// angle that changes from cell to cell with how much of each face the cell holds: the
// shading made a sawtooth of the rim that the positions no longer have.
func splitCreases(out, m *terrain.Mesh, remap []uint32) *terrain.Mesh {
	nc := out.NumVertices()
	start := make([]int32, nc+1)
	for _, id := range remap {
		start[id+1]++
	}
	for i := range nc {
		start[i+1] += start[i]
	}
	members := make([]uint32, len(remap))
	fill := append([]int32(nil), start[:nc]...)
	for v, id := range remap {
		members[fill[id]] = uint32(v)
		fill[id]++
	}
	split := &terrain.Mesh{Indices: make([]uint32, len(out.Indices))}
	type corner struct {
		id      uint32
		x, y, z int16
	}
	index := make(map[corner]uint32, nc)
	at := func(v uint32) [3]float64 {
		return [3]float64{float64(out.Positions[3*v]), float64(out.Positions[3*v+1]), float64(out.Positions[3*v+2])}
	}
	for t := 0; t < out.NumTriangles(); t++ {
		p0, p1, p2 := at(out.Indices[3*t]), at(out.Indices[3*t+1]), at(out.Indices[3*t+2])
		e1 := [3]float64{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}
		e2 := [3]float64{p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]}
		f := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		fl := math.Sqrt(f[0]*f[0] + f[1]*f[1] + f[2]*f[2])
		for c := range 3 {
			id := out.Indices[3*t+c]
			var sum [3]float64
			if fl > 0 {
				for _, v := range members[start[id]:start[id+1]] {
					n := [3]float64{float64(m.Normals[3*v]), float64(m.Normals[3*v+1]), float64(m.Normals[3*v+2])}
					if n[0]*f[0]+n[1]*f[1]+n[2]*f[2] > creaseCos*fl {
						sum[0], sum[1], sum[2] = sum[0]+n[0], sum[1]+n[1], sum[2]+n[2]
					}
				}
			}
			l := math.Sqrt(sum[0]*sum[0] + sum[1]*sum[1] + sum[2]*sum[2])
			switch {
			case l > 0:
			case fl > 0: // no vertex faces the triangle's way (a bevel left across a rim): its own normal
				sum, l = f, fl
			default: // a sliver: the cell's normal
				sum = [3]float64{float64(out.Normals[3*id]), float64(out.Normals[3*id+1]), float64(out.Normals[3*id+2])}
				l = 1
			}
			n := [3]float64{sum[0] / l, sum[1] / l, sum[2] / l}
			key := corner{id, int16(math.Round(n[0] * 4096)), int16(math.Round(n[1] * 4096)), int16(math.Round(n[2] * 4096))}
			v, ok := index[key]
			if !ok {
				v = uint32(split.NumVertices())
				index[key] = v
				split.Positions = append(split.Positions, out.Positions[3*id:3*id+3]...)
				split.Normals = append(split.Normals, float32(n[0]), float32(n[1]), float32(n[2]))
			}
			split.Indices[3*t+c] = v
		}
	}
	return split
}
