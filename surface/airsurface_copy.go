package surface

import (
	"slices"
)

// AirSurface's copy (airsurface.go): the mesh sized for the tiles' parts, the lone drops
// and the ropes, which the workers then write into it, each tile's foreign edges
// resolved to the vertices the tiles that own them made.

// sizes places the tiles' parts of the mesh and the lone drops in it, grows it to hold
// them, and lets every worker's arena hold the whole frame's (which worker meshes which
// tile varies from frame to frame: the next frame of this size allocates nothing).
func (a *AirSurface) sizes() {
	var nPos, nIdx, nLow, nFor int
	for w := range a.wk {
		k := &a.wk[w]
		nPos, nIdx, nLow, nFor = nPos+len(k.pos), nIdx+len(k.idx), nLow+len(k.low), nFor+len(k.foreign)
	}
	for w := range a.wk {
		k := &a.wk[w]
		k.pos, k.nor = slices.Grow(k.pos, nPos-len(k.pos)), slices.Grow(k.nor, nPos-len(k.nor))
		k.idx, k.low = slices.Grow(k.idx, nIdx-len(k.idx)), slices.Grow(k.low, nLow-len(k.low))
		k.foreign = slices.Grow(k.foreign, nFor-len(k.foreign))
	}
	m := a.m
	nv, ni := uint32(m.NumVertices()), uint32(len(m.Indices))
	nf, nvt := int32(0), int32(0)
	for i := range a.tiles {
		t := &a.tiles[i]
		nf, nvt = max(nf, t.nf), max(nvt, t.nv)
		t.base, t.first3 = nv, ni
		nv += uint32(t.nv)
		ni += uint32(t.ni)
	}
	for w := range a.wk {
		a.wk[w].res = slices.Grow(a.wk[w].res[:0], int(nf))
		a.wk[w].pend = slices.Grow(a.wk[w].pend[:0], int(nvt)) // the largest tile's, whichever worker meshes it
	}
	a.loneV, a.loneI = nv, ni // the lone drops follow the tiles
	nv += uint32(len(a.lone) * len(airLoneVerts))
	ni += uint32(len(a.lone) * 3 * len(airLoneTris))
	a.st.v0, a.st.i0 = nv, ni // the ropes follow them
	nv += uint32(a.st.nv)
	ni += uint32(a.st.ni)
	nv0 := m.NumVertices()
	grow(&m.Positions, 3*(int(nv)-nv0))
	grow(&m.Normals, 3*(int(nv)-nv0))
	grow(&m.Opacity, int(nv)-nv0)
	grow(&m.Indices, int(ni)-len(m.Indices))
}

// copyWorker writes tiles' parts of the mesh, pieces of the lone drops and pieces of the
// ropes into it until none is left.
func (a *AirSurface) copyWorker(k *airWorker) {
	nl := (len(a.lone) + airLoneChunk - 1) / airLoneChunk
	nr := (len(a.st.chains) + airRopeChunk - 1) / airRopeChunk
	for {
		i := int(a.next.Add(1)) - 1
		switch {
		case i < len(a.order):
			a.copyTile(&a.tiles[a.order[i]], k.res)
		case i < len(a.order)+nl:
			lo := (i - len(a.order)) * airLoneChunk
			for j := lo; j < min(lo+airLoneChunk, len(a.lone)); j++ {
				a.lonePut(j)
			}
		case i < len(a.order)+nl+nr:
			lo := (i - len(a.order) - nl) * airRopeChunk
			for j := lo; j < min(lo+airRopeChunk, len(a.st.chains)); j++ {
				a.ropePut(&a.st.chains[j])
			}
		default:
			return
		}
	}
}

// copyTile writes tile t's part of the mesh into it (res: scratch, for the vertices of
// its foreign corners).
func (a *AirSurface) copyTile(t *airTileRec, res []uint32) {
	m := a.m
	k := &a.wk[t.w]
	// Its foreign edges' vertices, each looked up once.
	fr := res[:t.nf] // sizes made room
	for j, key := range k.foreign[t.f0 : t.f0+t.nf] {
		fr[j] = a.resolve(key, t.base)
	}
	copy(m.Positions[3*t.base:], k.pos[3*t.v0:3*(t.v0+t.nv)])
	copy(m.Normals[3*t.base:], k.nor[3*t.v0:3*(t.v0+t.nv)])
	op := m.Opacity[t.base : t.base+uint32(t.nv)]
	for j := range op {
		op[j] = 1
	}
	dst := m.Indices[t.first3 : t.first3+uint32(t.ni)]
	for j, v := range k.idx[t.i0 : t.i0+t.ni] {
		if v&airForeign == 0 {
			dst[j] = t.base + v
			continue
		}
		dst[j] = fr[v&^airForeign]
	}
}

// resolve returns the mesh index of the vertex on the edge of key, made by the tile that
// owns the edge's start.
func (a *AirSurface) resolve(key uint64, fallback uint32) uint32 {
	const mask = 1<<airCoordBits - 1
	var tc [3]int32
	for ax := range 3 {
		tc[ax] = int32(key>>(2+airCoordBits*ax)&mask) / airTile
	}
	if ti := a.dir[a.dirIndex(tc)]; ti >= 0 {
		o := &a.tiles[ti]
		refs := a.wk[o.w].low[o.l0 : o.l0+o.nl]
		// The last ref with a key <= key (a search without branches to mispredict).
		lo := 0
		for n := len(refs); n > 1; {
			half := n / 2
			if refs[lo+half].key <= key {
				lo += half
			}
			n -= half
		}
		if lo < len(refs) && refs[lo].key == key {
			return o.base + refs[lo].idx
		}
	}
	a.lost.Add(1)
	return fallback
}
