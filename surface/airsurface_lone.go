package surface

import (
	"math"
	"math/bits"
	"slices"
)

// AirSurface's lone drops (airsurface.go): the drops whose kernel meets no other's,
// found tile by tile, left out of the lattice and drawn from a template.

// lonePrepare readies the search for the lone drops, the drops whose kernel meets no
// other's (boxesMeet and spheresMeet): each is the ellipsoid F = iso on its own, drawn
// from a template (lonePut) and left out of the lattice. Two drops' boxes meet in some
// tile both reach: each tile checks its drops (lonesWorker), a drop is lone when it is
// so in all of its tiles (isLone).
func (a *AirSurface) lonePrepare() {
	n := len(a.drops)
	a.alone = slices.Grow(a.alone[:0], n)[:n]
	a.memberLone = slices.Grow(a.memberLone[:0], len(a.members))[:len(a.members)]
	if a.mcOnly {
		return
	}
	most := 0
	for i := range a.tiles {
		most = max(most, int(a.tiles[i].count))
	}
	hb := max(bits.Len(uint(most)), 5) + 1
	for w := range a.wk {
		k := &a.wk[w]
		k.boxes, k.raw = slices.Grow(k.boxes[:0], most)[:most], slices.Grow(k.raw[:0], most)[:most]
		k.chain = slices.Grow(k.chain[:0], most)[:most]
		k.head = slices.Grow(k.head[:0], 1<<hb)[:1<<hb]
	}
}

// isLone tells whether drop k is lone: so in each of its tiles (lonesWorker).
func (a *AirSurface) isLone(k int32) bool {
	if a.mcOnly {
		return false
	}
	for _, slot := range a.pairSlot[a.pairStart[k]:a.pairStart[k+1]] {
		if !a.memberLone[slot] {
			return false
		}
	}
	return true
}

// aloneChunk sets alone for piece c of the drops (airScanChunk of them), and lists the
// piece's lone drops (in scanned, at the piece's start; loneCollect gathers them).
func (a *AirSurface) aloneChunk(c int) {
	lo := c * airScanChunk
	n := 0
	for k := lo; k < min(lo+airScanChunk, len(a.drops)); k++ {
		lone := a.isLone(int32(k))
		a.alone[k] = lone
		if lone {
			a.scanned[lo+n] = int32(k)
			n++
		}
	}
	a.scanCount[c] = int32(n)
}

// loneCollect lists the lone drops, in order.
func (a *AirSurface) loneCollect() {
	a.lone = a.lone[:0]
	for c := range (len(a.drops) + airScanChunk - 1) / airScanChunk {
		a.lone = append(a.lone, a.scanned[c*airScanChunk:c*airScanChunk+int(a.scanCount[c])]...)
	}
}

// lonesWorker sets memberLone for the drops of tiles until none is left: whether no
// other drop of the tile has a kernel meeting theirs. The drops' boxes are sorted by
// their low x and swept, each looking both ways until it finds a kernel it meets or the
// boxes are too far in x: in a stream, a drop meets the first it looks at.
func (a *AirSurface) lonesWorker(k *airWorker) {
	for {
		i := int(a.next.Add(1)) - 1
		if i >= len(a.order) {
			return
		}
		t := &a.tiles[a.order[i]]
		mem := a.members[t.first : t.first+t.count]
		flags := a.memberLone[t.first : t.first+t.count]
		// The boxes, in the tile's order, then sorted by low x: counting (by comparisons
		// where the lows span more than 255 points: boxes over 200 cells wide, with a
		// MaxStretch above 3).
		raw, boxes := k.raw[:len(mem)], k.boxes[:len(mem)]
		lo0, hi0, width := int32(math.MaxInt32), int32(math.MinInt32), int32(0)
		for j, d := range mem {
			raw[j] = a.kbox[d]
			raw[j].j = int32(j)
			lo0, hi0 = min(lo0, raw[j].lo[0]), max(hi0, raw[j].lo[0])
			width = max(width, raw[j].hi[0]-raw[j].lo[0])
		}
		if span := hi0 - lo0 + 2; span <= int32(len(k.count)) {
			count := k.count[:span]
			clear(count)
			for j := range raw {
				count[raw[j].lo[0]-lo0+1]++
			}
			sum := int32(0)
			for b, n := range count {
				sum += n
				count[b] = sum
			}
			for j := range raw {
				b := raw[j].lo[0] - lo0
				boxes[count[b]] = raw[j]
				count[b]++
			}
		} else {
			copy(boxes, raw)
			slices.SortFunc(boxes, func(x, y airKernelBox) int { return int(x.lo[0] - y.lo[0]) })
		}
		// First the drops whose boxes' low corners share a block of 4^3 points (a hash
		// table of chains, about twice as many slots as drops): most drops of a stream
		// meet one of those.
		hb := uint32(max(bits.Len(uint(len(boxes))), 5) + 1)
		head := k.head[:1<<hb]
		for i := range head {
			head[i] = -1
		}
		chain := k.chain[:len(boxes)]
		for p := range boxes {
			b := airBlockHash(&boxes[p], hb)
			chain[p], head[b] = head[b], int32(p)
		}
		for p := range boxes {
			d := &boxes[p]
			lone := true
			for q, n := head[airBlockHash(d, hb)], 0; lone && q >= 0 && n < 4; q, n = chain[q], n+1 {
				if q != int32(p) && boxesMeet(d, &boxes[q]) {
					lone = !spheresMeet(d, &boxes[q])
				}
			}
			if !lone {
				flags[d.j] = false
				continue
			}
			// Then every box that may meet its own.
			for q := p + 1; lone && q < len(boxes) && boxes[q].lo[0] <= d.hi[0]; q++ {
				if boxesMeet(d, &boxes[q]) {
					lone = !spheresMeet(d, &boxes[q])
				}
			}
			for q := p - 1; lone && q >= 0 && boxes[q].lo[0] >= d.lo[0]-width; q-- {
				if boxesMeet(d, &boxes[q]) {
					lone = !spheresMeet(d, &boxes[q])
				}
			}
			flags[d.j] = lone
		}
	}
}

// airBlockHash is the slot of the block of 4^3 lattice points holding the low corner of
// box d in a hash table of 2^hb slots (lonesWorker).
func airBlockHash(d *airKernelBox, hb uint32) uint32 {
	return (uint32(d.lo[0]>>2)*0x9E3779B1 ^ uint32(d.lo[1]>>2)*0x85EBCA77 ^ uint32(d.lo[2]>>2)*0xC2B2AE3D) >> (32 - hb)
}

// airKernelBox is a drop's kernel's box, centre and reach, for boxesMeet and
// spheresMeet; j: the drop's place in its tile's list.
type airKernelBox struct {
	lo, hi [3]int32
	c      [3]float32
	reach  float32
	j      int32
}

// Two drops' kernels meet (may overlap) where their boxes share a lattice point
// (boxesMeet) and their bounding spheres, of the longest semi-axis, meet (spheresMeet).
// Kernels that do not overlap give no lattice point two drops' values, and no cell
// inside corners of both (an inside point lies at least 0.9 cells within its kernel:
// airMinRadiusCells): the mesh of the one is the same with or without the other.

// boxesMeet tells whether two drops' boxes share a lattice point: no difference of a
// high and a low coordinate is negative (lattice coordinates: no overflow).
func boxesMeet(x, y *airKernelBox) bool {
	return (y.hi[0]-x.lo[0])|(x.hi[0]-y.lo[0])|(y.hi[1]-x.lo[1])|(x.hi[1]-y.lo[1])|(y.hi[2]-x.lo[2])|(x.hi[2]-y.lo[2]) >= 0
}

// spheresMeet tells whether two drops' bounding spheres meet.
func spheresMeet(x, y *airKernelBox) bool {
	var d2 float32
	for ax := range 3 {
		d := float32(x.lo[ax]-y.lo[ax]) + x.c[ax] - y.c[ax]
		d2 += d * d
	}
	return d2 < (x.reach+y.reach)*(x.reach+y.reach)
}

// lonePut writes lone drop i (of a.lone): the template mapped onto the drop's ellipsoid,
// semi-axes r s along its velocity and r / sqrt(s) across (its volume), the normals the
// ellipsoid's.
func (a *AirSurface) lonePut(i int) {
	k := a.lone[i]
	d := &a.drops[k]
	src := &a.src[a.valid[k]]
	m := a.m
	v0 := a.loneV + uint32(i*len(airLoneVerts))
	r := float32(a.h) * d.r * airLoneScale
	ra, rb := r*d.s, r/float32(math.Sqrt(float64(d.s)))
	na, nb := 1/d.s, float32(math.Sqrt(float64(d.s))) // the normal's parts, along and across
	lp := airLoneArgs{x: src.X, y: src.Y, z: src.Z, ra: ra, rb: rb, na: na, nb: nb, u: d.u}
	a.kern.lone(m.Positions[3*v0:3*(v0+uint32(len(airLoneVerts)))], m.Normals[3*v0:3*(v0+uint32(len(airLoneVerts)))], &lp)
	op := m.Opacity[v0 : v0+uint32(len(airLoneVerts))]
	for j := range op {
		op[j] = 1
	}
	idx := m.Indices[a.loneI+uint32(i*3*len(airLoneTris)):][:3*len(airLoneTris)]
	for j, f := range &airLoneTris {
		idx[3*j], idx[3*j+1], idx[3*j+2] = v0+f[0], v0+f[1], v0+f[2]
	}
}

// A lone drop's template: the icosahedron with each face cut in four, its vertices on
// the unit sphere (42 vertices, 80 faces, outward counter-clockwise), and the scale that
// gives it the unit sphere's volume.
var airLoneVerts, airLoneTris, airLoneScale = airLoneTemplate()

func airLoneTemplate() (verts [42][3]float32, tris [80][3]uint32, scale float32) {
	var v [][3]float64
	for _, p := range icoVerts {
		v = append(v, [3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
	}
	mids := map[[2]uint32]uint32{}
	mid := func(i, j uint32) uint32 {
		key := [2]uint32{min(i, j), max(i, j)}
		if m, ok := mids[key]; ok {
			return m
		}
		p, q := v[i], v[j]
		c := [3]float64{p[0] + q[0], p[1] + q[1], p[2] + q[2]}
		l := math.Sqrt(c[0]*c[0] + c[1]*c[1] + c[2]*c[2])
		v = append(v, [3]float64{c[0] / l, c[1] / l, c[2] / l})
		mids[key] = uint32(len(v) - 1)
		return mids[key]
	}
	vol := 0.0
	for k, f := range icoFaces {
		ab, bc, ca := mid(f[0], f[1]), mid(f[1], f[2]), mid(f[2], f[0])
		for j, t := range [4][3]uint32{{f[0], ab, ca}, {f[1], bc, ab}, {f[2], ca, bc}, {ab, bc, ca}} {
			tris[4*k+j] = t
			a, b, c := v[t[0]], v[t[1]], v[t[2]]
			vol += (a[0]*(b[1]*c[2]-b[2]*c[1]) + a[1]*(b[2]*c[0]-b[0]*c[2]) + a[2]*(b[0]*c[1]-b[1]*c[0])) / 6
		}
	}
	for i, p := range v {
		verts[i] = [3]float32{float32(p[0]), float32(p[1]), float32(p[2])}
	}
	return verts, tris, float32(math.Cbrt(4 * math.Pi / 3 / vol))
}
