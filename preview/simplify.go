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
	cell := meanEdge(m)
	if !(cell > 0) {
		return m
	}
	var c clusterer
	for range 40 {
		cell *= 1.5
		out := c.cluster(m, cell)
		if out.NumTriangles() <= budget {
			return out
		}
	}
	return m
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

// clusterer merges the vertices in each cell of a cubic grid into one (their mean
// position, their normals' normalized sum), then keeps the triangles whose three vertices
// fell into three different cells, dropping repeats. Its maps are reused between tries.
type clusterer struct {
	cellOf map[[3]int32]uint32
	seen   map[[3]uint32]struct{}
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
	out := &terrain.Mesh{Positions: make([]float32, len(pos)), Normals: make([]float32, len(nrm))}
	for id, n := range count {
		x, y, z := nrm[3*id], nrm[3*id+1], nrm[3*id+2]
		l := math.Sqrt(x*x + y*y + z*z)
		if l == 0 {
			l, z = 1, 1 // opposite normals cancelled: any unit normal will do
		}
		for k := range 3 {
			out.Positions[3*id+k] = float32(pos[3*id+k] / n)
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
	return out
}
