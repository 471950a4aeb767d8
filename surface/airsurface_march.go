package surface

import (
	"math"
	"math/bits"
	"slices"
)

// AirSurface's marching cubes (airsurface.go): a tile's drops splatted into a worker's
// buffer, the rows' masks, the vertices on the edges that cross the surface and the
// cells' triangles; and the cube's tables, the triangles of each of the 256 cases.

// tilesWorker meshes tiles until none is left, then takes pieces of the drops for
// aloneChunk.
func (a *AirSurface) tilesWorker(k *airWorker, w int32) {
	nc := (len(a.drops) + airScanChunk - 1) / airScanChunk
	for {
		i := int(a.next.Add(1)) - 1
		switch {
		case i < len(a.order):
			a.meshTile(k, w, &a.tiles[a.order[i]])
		case i < len(a.order)+nc:
			a.aloneChunk(i - len(a.order))
		default:
			return
		}
	}
}

const airDim2 = airDim * airDim

// airEdge is a cube edge: its start corner, axis, the offset in a tile's buffer of its
// start point from the cell's, and its entry in vidx less 3 times the cell's point.
type airEdge struct {
	d             [3]int32
	ax, off, slot int32
}

// meshTile splats the tile's drops into the worker's buffer, meshes the cells the tile
// owns that have a corner inside, and leaves the buffer clean.
func (a *AirSurface) meshTile(k *airWorker, w int32, t *airTileRec) {
	var g0 [3]int32 // the lattice point at the buffer's (0, 0, 0)
	for ax := range 3 {
		g0[ax] = t.t[ax]*airTile - 1
	}
	for _, di := range a.members[t.first : t.first+t.count] {
		if a.isLone(di) {
			continue // drawn from the template
		}
		d := &a.drops[di]
		k.splat(a.kern, d, a.wk[d.pc].planes[max(d.po, 0):], g0)
	}

	// Each written row's inside points (F >= iso) as a bit mask, the rows with one.
	field, mask := k.field, k.mask
	var inside [airRowWords + 2]uint64 // two more: zero, for airShift
	for wi, word := range &k.written {
		for word != 0 {
			row := int32(wi<<6 + bits.TrailingZeros64(word))
			word &= word - 1
			m := a.kern.rowMask(field, row)
			mask[row] = m
			if m != 0 {
				inside[row>>6] |= 1 << (row & 63)
			}
		}
	}
	// The row quads (the cells between rows q, q + 1, q + airDim and q + airDim + 1)
	// with an inside corner, among those of the cells the tile owns (buffer coordinates
	// 1..airTile).
	var quads [airRowWords]uint64
	for i := range quads {
		quads[i] = (inside[i] | airShift(&inside, i, 1) | airShift(&inside, i, airDim) | airShift(&inside, i, airDim+1)) &
			airQuadBits[i]
	}

	t.w, t.v0, t.i0, t.l0, t.f0 = w, int32(len(k.pos)/3), int32(len(k.idx)), int32(len(k.low)), int32(len(k.foreign))
	// First the vertices: each edge that crosses the surface starting at a point of
	// the cells the tile owns is numbered by the cell it starts (the cell's +x, +y and
	// +z edges); then the triangles, which find them in vidx.
	for qi, word := range &quads {
		for word != 0 {
			q := int32(qi<<6 + bits.TrailingZeros64(word))
			word &= word - 1
			a.quadVertices(k, q, g0)
		}
	}
	idx := k.idx
	for qi, word := range &quads {
		for word != 0 {
			q := int32(qi<<6 + bits.TrailingZeros64(word))
			word &= word - 1
			a.meshQuad(k, t, q, g0, &idx)
		}
	}
	k.idx = idx
	// The vertices, from the field, in the order they were numbered.
	n := len(k.pos)
	k.pos, k.nor = slices.Grow(k.pos, 3*len(k.pend))[:n+3*len(k.pend)], slices.Grow(k.nor, 3*len(k.pend))[:n+3*len(k.pend)]
	a.vertices(k, k.pos[n:], k.nor[n:], g0)
	k.pend = k.pend[:0]
	t.nv, t.ni, t.nl, t.nf = int32(len(k.pos)/3)-t.v0, int32(len(k.idx))-t.i0, int32(len(k.low))-t.l0, int32(len(k.foreign))-t.f0
	slices.SortFunc(k.low[t.l0:], cmpAirRef)

	for _, s := range k.slots {
		k.vidx[s] = -1
	}
	for wi, word := range &k.written {
		for word != 0 {
			row := int32(wi<<6 + bits.TrailingZeros64(word))
			word &= word - 1
			clear(field[row*airDim : row*airDim+airDim])
			mask[row] = 0
		}
	}
	k.written = [airRowWords]uint64{}
	k.slots = k.slots[:0]
}

// quadVertices numbers the vertices on the +x, +y and +z edges of the cells of row
// quad q (their corner 0 on row q) that cross the surface (their two ends' masks
// differ), in that order, each by x.
func (a *AirSurface) quadVertices(k *airWorker, q int32, g0 [3]int32) {
	cz, cy := q/airDim, q%airDim
	m00 := k.mask[q]
	low := cy == 1 || cz == 1 // the row lies on a low face: its vertices are referred to from below
	for ax, cross := range [3]uint64{m00 ^ m00>>1, m00 ^ k.mask[q+1], m00 ^ k.mask[q+airDim]} {
		cross &= airCellBits
		for cross != 0 {
			x := int32(bits.TrailingZeros64(cross))
			cross &= cross - 1
			p := q*airDim + x
			slot := 3*p + int32(ax)
			idx := int32(len(k.pend))
			k.pend = append(k.pend, p<<2|int32(ax))
			k.vidx[slot] = idx
			k.slots = append(k.slots, slot)
			if low || x == 1 {
				key := ((uint64(cz+g0[2])<<airCoordBits|uint64(cy+g0[1]))<<airCoordBits|uint64(x+g0[0]))<<2 | uint64(ax)
				k.low = append(k.low, airRef{key, uint32(idx)})
			}
		}
	}
}

// meshQuad meshes the cells of row quad q (the cells between rows q, q + 1, q + airDim
// and q + airDim + 1) that have a corner inside and one outside, appending their
// triangles' corners to idx.
func (a *AirSurface) meshQuad(k *airWorker, t *airTileRec, q int32, g0 [3]int32, pidx *[]uint32) {
	idx := *pidx
	cz, cy := q/airDim, q%airDim
	m00, m10, m01, m11 := k.mask[q], k.mask[q+1], k.mask[q+airDim], k.mask[q+airDim+1]
	// The cells with a corner inside and one outside: cell x has its corners at x and
	// x + 1.
	or, and := m00|m10|m01|m11, m00&m10&m01&m11
	cells := (or | or>>1) &^ (and & (and >> 1)) & airCellBits
	for cells != 0 {
		x := int32(bits.TrailingZeros64(cells))
		cells &= cells - 1
		c := uint8(m00>>x&3) | uint8(m10>>x&3)<<2 | uint8(m01>>x&3)<<4 | uint8(m11>>x&3)<<6
		cell := q*airDim + x
		for _, e := range airTris[airTriStart[c]:airTriStart[c+1]] {
			if v := k.vidx[3*cell+airEdges[e].slot]; v >= 0 { // numbered already (all but the foreign)
				idx = append(idx, uint32(v))
				continue
			}
			idx = append(idx, a.edgeVertex(k, t, cell, e, [3]int32{x, cy, cz}, g0))
		}
	}
	*pidx = idx
}

// airRowWords is the number of words of a bit set of a tile buffer's rows.
const airRowWords = (airDim*airDim + 63) / 64

// airShift returns word i of the bit set b shifted down by n bits (bit j of the result
// is bit j + n of b), n < 64; b has a zero word past the set's.
func airShift(b *[airRowWords + 2]uint64, i, n int) uint64 {
	return b[i]>>n | b[i+1]<<(64-n)
}

// airQuadBits is the bit set of the row quads of the cells a tile owns: z and y in
// 1..airTile.
var airQuadBits = func() (b [airRowWords]uint64) {
	for z := 1; z <= airTile; z++ {
		for y := 1; y <= airTile; y++ {
			q := z*airDim + y
			b[q>>6] |= 1 << (q & 63)
		}
	}
	return b
}()

// airCellBits are the cells a tile owns along a row, buffer x 1..airTile.
const airCellBits = (1<<airTile - 1) << 1

func cmpAirRef(x, y airRef) int {
	switch {
	case x.key < y.key:
		return -1
	case x.key > y.key:
		return 1
	}
	return 0
}

// edgeVertex returns the tile's vertex on edge e of the cell at buffer point cell
// (buffer coordinates c) that vidx does not hold: for an edge starting in the next
// tile, a foreign reference, resolved when the mesh is joined; else (none:
// quadVertices numbered every edge that crosses the surface and starts in the tile's
// cells) a vertex numbered now.
func (a *AirSurface) edgeVertex(k *airWorker, t *airTileRec, cell int32, e uint8, c [3]int32, g0 [3]int32) uint32 {
	ed := &airEdges[e]
	p := cell + ed.off
	slot := 3*p + ed.ax
	if v := k.vidx[slot]; v != -1 {
		if v >= 0 {
			return uint32(v)
		}
		return airForeign | uint32(-2-v)
	}
	k.slots = append(k.slots, slot)
	s := [3]int32{c[0] + ed.d[0], c[1] + ed.d[1], c[2] + ed.d[2]}
	foreign := s[0] > airTile || s[1] > airTile || s[2] > airTile
	if foreign || s[0] == 1 || s[1] == 1 || s[2] == 1 {
		g := [3]int32{s[0] + g0[0], s[1] + g0[1], s[2] + g0[2]}
		key := ((uint64(g[2])<<airCoordBits|uint64(g[1]))<<airCoordBits|uint64(g[0]))<<2 | uint64(ed.ax)
		if foreign {
			j := int32(len(k.foreign)) - t.f0
			k.foreign = append(k.foreign, key)
			k.vidx[slot] = -2 - j
			return airForeign | uint32(j)
		}
		k.low = append(k.low, airRef{key, uint32(len(k.pend))})
	}
	idx := int32(len(k.pend))
	k.pend = append(k.pend, p<<2|ed.ax)
	k.vidx[slot] = idx
	return uint32(idx)
}

// vertices makes the tile's vertices listed in k.pend (an edge's start, buffer index
// p, and axis: p<<2 | axis), into pos and nor: where the field crosses the iso-level
// along the edge, linearly interpolated; the normal minus the central-difference
// gradient interpolated along the edge.
func (a *AirSurface) vertices(k *airWorker, pos, nor []float32, g0 [3]int32) {
	f := k.field
	h := a.h
	for i, pe := range k.pend {
		p, ax := pe>>2, pe&3
		q := p + [3]int32{1, airDim, airDim2}[ax]
		v0, v1 := f[p], f[q]
		u := (airIso - v0) / (v1 - v0)
		if !(u > 0) {
			u = 0
		} else if u > 1 {
			u = 1
		}
		ga := [3]float32{f[p+1] - f[p-1], f[p+airDim] - f[p-airDim], f[p+airDim2] - f[p-airDim2]}
		gb := [3]float32{f[q+1] - f[q-1], f[q+airDim] - f[q-airDim], f[q+airDim2] - f[q-airDim2]}
		n := [3]float32{-(ga[0] + u*(gb[0]-ga[0])), -(ga[1] + u*(gb[1]-ga[1])), -(ga[2] + u*(gb[2]-ga[2]))}
		l := float32(math.Sqrt(float64(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])))
		if l > 0 {
			il := 1 / l
			n[0], n[1], n[2] = n[0]*il, n[1]*il, n[2]*il
		} else { // a flat spot: along the edge, towards its lower end
			n = [3]float32{}
			n[ax] = 1
			if v1 > v0 {
				n[ax] = -1
			}
		}
		// The start's lattice coordinates.
		z := p / airDim2
		y := (p - z*airDim2) / airDim
		g := [3]int32{p - z*airDim2 - y*airDim + g0[0], y + g0[1], z + g0[2]}
		pt := [3]float64{float64(a.o[0]+int64(g[0])) * h, float64(a.o[1]+int64(g[1])) * h, float64(a.o[2]+int64(g[2])) * h}
		pt[ax] += float64(u) * h
		pos[3*i], pos[3*i+1], pos[3*i+2] = float32(pt[0]), float32(pt[1]), float32(pt[2])
		nor[3*i], nor[3*i+1], nor[3*i+2] = n[0], n[1], n[2]
	}
}

// splat adds drop d's kernel to the worker's buffer, whose point (0, 0, 0) is lattice
// point g0, with the kernels ks, and marks the rows it writes. Only the planes, rows and
// columns the kernel reaches (pl, its planes' ranges) are evaluated; the values are from
// the points' lattice coordinates alone: a point gets the same bits in every tile whose
// buffer holds it.
func (k *airWorker) splat(ks airKernels, d *airDrop, pl []uint32, g0 [3]int32) {
	a := airSplatArgs{m: d.m, c: d.c}
	for ax := range 3 {
		a.o[ax] = d.lo[ax] - g0[ax] // the buffer's coordinates of the box's low corner
		a.lo[ax], a.hi[ax] = max(a.o[ax], 0), min(d.hi[ax]-g0[ax], airDim-1)
		if a.lo[ax] > a.hi[ax] {
			return
		}
	}
	if d.po < 0 { // a box too wide for its planes' ranges: the box's
		for z := a.lo[2]; z <= a.hi[2]; z++ {
			airSplatPlane(k.field, &k.written, z, a.lo[1], a.hi[1], a.lo[0], a.hi[0], &a)
		}
		return
	}
	ks.splat(k.field, &k.written, pl[a.lo[2]-a.o[2]:a.hi[2]-a.o[2]+1], &a)
}

// The cube: corner c at (c&1, c>>1&1, c>>2&1); edge e = 4 axis + u + 2 v runs along axis
// from the corner whose other two coordinates (in axis order) are u and v.
var airEdges, airTriStart, airTris = airTables()

// airTables builds the edges and, for each of the 256 cases (bit c set: corner c inside),
// its triangles as edge triples, counter-clockwise seen from outside. Each face of the
// cube is cut on its own: its crossing edges paired by segments, the two inside corners
// of an ambiguous face (diagonal corners inside) each cut off by a segment of its own;
// the segments are oriented by the face (the inside on their left, seen from outside the
// liquid), chained into loops and each loop fanned into triangles. A face shared by two
// cells is cut the same way from both, its segments walked in opposite directions: the
// mesh has no cracks and every edge has one triangle on each side.
func airTables() (edges [12]airEdge, start [257]uint16, tris []uint8) {
	other := [3][2]int{{1, 2}, {0, 2}, {0, 1}}
	var ec [12][2]int // an edge's corners
	for e := range 12 {
		ax, u, v := e/4, e&1, e>>1&1
		c0 := u<<other[ax][0] | v<<other[ax][1]
		ec[e] = [2]int{c0, c0 | 1<<ax}
		d := [3]int32{int32(c0 & 1), int32(c0 >> 1 & 1), int32(c0 >> 2 & 1)}
		off := d[0] + d[1]*airDim + d[2]*airDim2
		edges[e] = airEdge{d: d, ax: int32(ax), off: off, slot: 3*off + int32(ax)}
	}
	corner := func(c int) [3]float64 { return [3]float64{float64(c & 1), float64(c >> 1 & 1), float64(c >> 2 & 1)} }
	mid := func(e int) [3]float64 {
		p, q := corner(ec[e][0]), corner(ec[e][1])
		return [3]float64{(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2}
	}
	sub := func(p, q [3]float64) [3]float64 { return [3]float64{p[0] - q[0], p[1] - q[1], p[2] - q[2]} }
	cross := func(p, q [3]float64) [3]float64 {
		return [3]float64{p[1]*q[2] - p[2]*q[1], p[2]*q[0] - p[0]*q[2], p[0]*q[1] - p[1]*q[0]}
	}
	dot := func(p, q [3]float64) float64 { return p[0]*q[0] + p[1]*q[1] + p[2]*q[2] }
	var faces [12]uint8 // bit 2 axis + side: the two faces an edge lies on
	for e := range 12 {
		for ax := range 3 {
			if ax != e/4 {
				faces[e] |= 1 << (2*ax + ec[e][0]>>ax&1)
			}
		}
	}
	for cs := range 256 {
		start[cs] = uint16(len(tris))
		in := func(c int) bool { return cs>>c&1 == 1 }
		crosses := func(e int) bool { return in(ec[e][0]) != in(ec[e][1]) }
		next := [12]int{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
		for ax := range 3 {
			for side := range 2 {
				var nf [3]float64
				nf[ax] = float64(2*side - 1)
				var fe []int // the face's crossing edges
				var fc []int // its corners
				for e := range 12 {
					if e/4 != ax && ec[e][0]>>ax&1 == side && crosses(e) {
						fe = append(fe, e)
					}
				}
				for c := range 8 {
					if c>>ax&1 == side {
						fc = append(fc, c)
					}
				}
				var segs [][2]int
				switch len(fe) {
				case 0:
					continue
				case 2:
					segs = [][2]int{{fe[0], fe[1]}}
				case 4: // ambiguous: each inside corner cut off alone
					for _, c := range fc {
						if !in(c) {
							continue
						}
						var s []int
						for _, e := range fe {
							if ec[e][0] == c || ec[e][1] == c {
								s = append(s, e)
							}
						}
						segs = append(segs, [2]int{s[0], s[1]})
					}
				default:
					panic("surface: a cube face with an odd number of crossings")
				}
				for _, sg := range segs {
					m1, m2 := mid(sg[0]), mid(sg[1])
					m := [3]float64{(m1[0] + m2[0]) / 2, (m1[1] + m2[1]) / 2, (m1[2] + m2[2]) / 2}
					var tv [3]float64 // in the face, from inside to outside
					shared := -1
					for _, c := range ec[sg[0]] {
						if c == ec[sg[1]][0] || c == ec[sg[1]][1] {
							shared = c
						}
					}
					if shared >= 0 {
						if in(shared) {
							tv = sub(m, corner(shared))
						} else {
							tv = sub(corner(shared), m)
						}
					} else {
						for _, c := range fc {
							p := corner(c)
							if in(c) {
								p = [3]float64{-p[0], -p[1], -p[2]}
							}
							tv = [3]float64{tv[0] + p[0], tv[1] + p[1], tv[2] + p[2]}
						}
					}
					if dot(sub(m2, m1), cross(tv, nf)) < 0 {
						sg[0], sg[1] = sg[1], sg[0]
					}
					if next[sg[0]] != -1 {
						panic("surface: a cube edge starts two segments")
					}
					next[sg[0]] = sg[1]
				}
			}
		}
		var done [12]bool
		for e := range 12 {
			if !crosses(e) || done[e] {
				continue
			}
			var loop []int
			for f := e; f < 0 || !done[f]; f = next[f] {
				if f < 0 {
					panic("surface: an open loop")
				}
				done[f] = true
				loop = append(loop, f)
			}
			tris = airTriangulate(tris, loop, faces)
		}
	}
	start[256] = uint16(len(tris))
	return edges, start, tris
}

// airTriangulate appends a triangulation of loop (a polygon of cube edges, in order) to
// tris. Its diagonals join no two edges that lie on one face of the cube: such a
// diagonal would lie in the face, where the cell across it may draw the same one, and
// four triangles would share an edge. Among the triangulations without such diagonals
// it takes the first a fan from the earliest corner gives, else the first a search
// finds; a loop that has none (none of the 256 cases) is fanned.
func airTriangulate(tris []uint8, loop []int, faces [12]uint8) []uint8 {
	n := len(loop)
	ok := func(i, j int) bool { // loop[i] and loop[j] may be joined
		if (i+1)%n == j || (j+1)%n == i {
			return true
		}
		return faces[loop[i]]&faces[loop[j]] == 0
	}
	// Triangulate the chain i..j (the polygon loop[i], ..., loop[j], closed by the
	// diagonal i-j): a triangle (i, k, j) with valid diagonals, the two sides recursively.
	var tri func(i, j int, out []uint8) ([]uint8, bool)
	tri = func(i, j int, out []uint8) ([]uint8, bool) {
		if j-i < 2 {
			return out, true
		}
		for k := i + 1; k < j; k++ {
			if !ok(i, k) || !ok(k, j) {
				continue
			}
			o := append(out, uint8(loop[i]), uint8(loop[k]), uint8(loop[j]))
			o, good := tri(i, k, o)
			if !good {
				continue
			}
			if o, good = tri(k, j, o); good {
				return o, true
			}
		}
		return out, false
	}
	for r := range n { // rotate the loop so that a fan or search from its corner r works
		rot := append(append([]int(nil), loop[r:]...), loop[:r]...)
		loop = rot
		if out, good := tri(0, n-1, nil); good {
			return append(tris, out...)
		}
		loop = append(rot[n-r:], rot[:n-r]...)
	}
	for j := 1; j+1 < n; j++ {
		tris = append(tris, uint8(loop[0]), uint8(loop[j]), uint8(loop[j+1]))
	}
	return tris
}
