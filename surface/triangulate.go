package surface

import "slices"

// Quartet corners: a = (x, y), b = (x+1, y), c = (x, y+1), d = (x+1, y+1).
const (
	cornerA = iota
	cornerB
	cornerC
	cornerD
)

// triangulate walks the quartets of cells and emits the triangles of their groups of
// mutually linked nodes (paper Sec. 4.2, 4.3), rows of quartets split over the workers
// and joined in row order. Beside them, on the caller, runs the meniscus (sequential; it
// reads the links and writes only its own state). Every worker, when done with that,
// takes blocks of wet vertices to set their plain normals until none is left, so the
// longer of the two jobs decides the time, not the sum.
func (b *Builder) triangulate() {
	b.mesh.Indices = b.mesh.Indices[:0]
	b.normalsNext.Store(0)
	if b.ny < 2 || b.nx < 2 {
		b.fMeniscus()
		return
	}
	first, end := b.pool.runBeside(b.fMeniscus, b.ny-1, b.rowWet, minHeavy, b.fTri)
	for w := first; w < end; w++ {
		b.mesh.Indices = append(b.mesh.Indices, b.wk[w].idx...)
	}
}

// normalsBlock is the number of wet vertices whose plain normals a worker takes at once.
const normalsBlock = 512

// takePlainNormals sets the plain normals of blocks of wet vertices that no worker has
// taken yet, until none is left. Each normal depends only on its vertex, so which worker
// sets it does not change the result.
func (b *Builder) takePlainNormals() {
	nw := int32(len(b.wetList))
	for {
		lo := (b.normalsNext.Add(1) - 1) * normalsBlock
		if lo >= nw {
			return
		}
		b.plainNormals(int(lo), int(min(lo+normalsBlock, nw)))
	}
}

// triChunk triangulates the quartet rows [lo, hi) into worker w's list, then helps with
// the plain normals.
func (b *Builder) triChunk(w, lo, hi int) {
	b.triRows(w, lo, hi)
	b.takePlainNormals()
}

// triRows triangulates the quartet rows [lo, hi) into worker w's list.
func (b *Builder) triRows(w, lo, hi int) {
	wk := &b.wk[w]
	wk.idx = wk.idx[:0]
	nx := b.nx
	for y := lo; y < hi; y++ {
		row := y * nx
		fresh := false // nodesB holds the nodes of cell ca
		for x := 0; x+1 < nx; x++ {
			ca := int32(row + x)
			cc := ca + int32(nx)
			if b.cellNW[ca]|b.cellNW[ca+1]|b.cellNW[cc]|b.cellNW[cc+1] == 0 {
				fresh = false
				continue
			}
			if b.wetQuad(wk, ca, cc) {
				fresh = false
				continue
			}
			if fresh {
				wk.nodesA, wk.nodesB = wk.nodesB, wk.nodesA
			} else {
				wk.nodesA = b.cellNodes(ca, wk.nodesA[:0])
			}
			wk.nodesB = b.cellNodes(ca+1, wk.nodesB[:0])
			fresh = true
			b.quartet(wk)
		}
	}
}

// wetQuad emits the quartet with corner cells ca (lower left) and cc (upper left) when it
// is the common case, one wet node in each cell and no boundary node, all mutually
// linked: a group of four, as quartet would find it. It reports whether it did.
func (b *Builder) wetQuad(wk *worker, ca, cc int32) bool {
	nw := b.cellNW
	if nw[ca] != 1 || nw[ca+1] != 1 || nw[cc] != 1 || nw[cc+1] != 1 ||
		b.cellDry[ca] || b.cellDry[ca+1] || b.cellDry[cc] || b.cellDry[cc+1] {
		return false
	}
	p := b.cellV0[ca]
	l := b.lk[8*p : 8*p+8 : 8*p+8]
	q, r, s := l[dirE], l[dirN], l[dirNE]
	if q < 0 || r < 0 || s < 0 || b.L(q, dirNW) != r || b.L(q, dirN) != s || b.L(r, dirE) != s {
		return false
	}
	b.quad(wk, p, q, r, s)
	return true
}

// quartet triangulates the quartet whose corner cells a and b hold wk.nodesA and
// wk.nodesB.
//
// Each node has at most one link into each neighbouring cell, so the group of four
// containing a node is unique and the groups of four are disjoint; a node in one has
// all its links inside the quartet to the group's members. The groups of three among the
// other nodes overlap only in pairs that share an axis edge (a third clique sharing it
// would close a group of four); such a pair is resolved by conflict.
func (b *Builder) quartet(wk *worker) {
	wk.cliques = wk.cliques[:0]
	nq := 0 // corner-b nodes of the groups of four, in wk.inQuad[:nq]
	for _, p := range wk.nodesA {
		q, r, s := b.L(p, dirE), b.L(p, dirN), b.L(p, dirNE)
		qr := q >= 0 && r >= 0 && b.L(q, dirNW) == r
		qs := q >= 0 && s >= 0 && b.L(q, dirN) == s
		rs := r >= 0 && s >= 0 && b.L(r, dirE) == s
		switch {
		case qr && qs && rs:
			b.quad(wk, p, q, r, s)
			if nq < len(wk.inQuad) {
				wk.inQuad[nq] = q
			}
			nq++
		default:
			if qr {
				wk.cliques = append(wk.cliques, clique{node: [4]int32{p, q, r, -1}, omit: cornerD})
			}
			if qs {
				wk.cliques = append(wk.cliques, clique{node: [4]int32{p, q, -1, s}, omit: cornerC})
			}
			if rs {
				wk.cliques = append(wk.cliques, clique{node: [4]int32{p, -1, r, s}, omit: cornerB})
			}
		}
	}
	for _, q := range wk.nodesB {
		if nq <= len(wk.inQuad) && slices.Contains(wk.inQuad[:nq], q) {
			continue // part of a group of four
		}
		r, s := b.L(q, dirNW), b.L(q, dirN)
		if r < 0 || s < 0 || b.L(r, dirE) != s {
			continue
		}
		if p := b.L(q, dirW); p >= 0 && b.L(p, dirN) == r && b.L(p, dirNE) == s {
			continue // part of a group of four
		}
		wk.cliques = append(wk.cliques, clique{node: [4]int32{-1, q, r, s}, omit: cornerA})
	}
	if len(wk.cliques) == 0 {
		return
	}
	for k := range wk.cliques {
		wk.cliques[k].keep = true
	}
	for k1 := range wk.cliques {
		for k2 := k1 + 1; k2 < len(wk.cliques); k2++ {
			b.resolve(&wk.cliques[k1], &wk.cliques[k2])
		}
	}
	for _, t := range wk.cliques {
		if !t.keep {
			continue
		}
		p, q, r, s := t.node[0], t.node[1], t.node[2], t.node[3]
		switch t.omit {
		case cornerD:
			b.tri(wk, p, q, r)
		case cornerC:
			b.tri(wk, p, q, s)
		case cornerB:
			b.tri(wk, p, s, r)
		case cornerA:
			b.tri(wk, q, s, r)
		}
	}
}

// axisPair reports whether corners u and v of a quartet are 4-neighbours.
func axisPair(u, v int) bool {
	return u+v != 3 // a-d (0+3) and b-c (1+2) are the diagonals
}

// resolve settles two groups of three that share an axis edge and so overlap: the one
// whose third node is wet wins; if both are wet both stay (the surface folds there: the
// third nodes are not linked); if neither is, the diagonal rule of a group of four picks.
func (b *Builder) resolve(t1, t2 *clique) {
	var shared [2]int
	ns := 0
	for c := range 4 {
		if t1.node[c] >= 0 && t1.node[c] == t2.node[c] {
			if ns < 2 {
				shared[ns] = c
			}
			ns++
		}
	}
	if ns != 2 || !axisPair(shared[0], shared[1]) {
		return
	}
	k1, k2 := third(t1, shared), third(t2, shared)
	w1, w2 := b.isWet(k1), b.isWet(k2)
	switch {
	case w1 && !w2:
		t2.keep = false
	case w2 && !w1:
		t1.keep = false
	case w1 && w2:
	default:
		if b.diagBetter(b.diagEnds(t2), b.diagEnds(t1)) {
			t1.keep = false
		} else {
			t2.keep = false
		}
	}
}

// third returns the node of t at its corner that is not in shared.
func third(t *clique, shared [2]int) int32 {
	for c := range 4 {
		if c != shared[0] && c != shared[1] && t.node[c] >= 0 {
			return t.node[c]
		}
	}
	return -1
}

// diagEnds returns the ends of the diagonal edge of a group of three.
func (b *Builder) diagEnds(t *clique) [2]int32 {
	if t.omit == cornerA || t.omit == cornerD {
		return [2]int32{t.node[cornerB], t.node[cornerC]}
	}
	return [2]int32{t.node[cornerA], t.node[cornerD]}
}

// diagBetter reports whether diagonal x beats diagonal y by the diagonal rule: ends on
// the same side of the wet boundary (both wet or both not) first, then the larger sum
// of the ends' surface heights; false on a tie.
func (b *Builder) diagBetter(x, y [2]int32) bool {
	px := b.isWet(x[0]) == b.isWet(x[1])
	py := b.isWet(y[0]) == b.isWet(y[1])
	if px != py {
		return px
	}
	return float64(b.zv[x[0]])+float64(b.zv[x[1]]) > float64(b.zv[y[0]])+float64(b.zv[y[1]])
}

// quad emits the two triangles of a group of four, split along the diagonal whose ends
// are both inside or both outside the wet boundary, else along the one whose ends have
// the larger height sum (a-d on a tie).
func (b *Builder) quad(wk *worker, p, q, r, s int32) {
	wp, zp, vp := b.nodeInfo(p)
	wq, zq, vq := b.nodeInfo(q)
	wr, zr, vr := b.nodeInfo(r)
	ws, zs, vs := b.nodeInfo(s)
	bc := false // split along b-c
	if sameBC, sameAD := wq == wr, wp == ws; sameBC != sameAD {
		bc = sameBC
	} else {
		bc = float64(zq)+float64(zr) > float64(zp)+float64(zs)
	}
	if bc {
		b.emit(wk, int32(vp), int32(vq), int32(vr))
		b.emit(wk, int32(vq), int32(vs), int32(vr))
	} else {
		b.emit(wk, int32(vp), int32(vq), int32(vs))
		b.emit(wk, int32(vp), int32(vs), int32(vr))
	}
}

// nodeInfo returns whether vertex v is wet, its surface height and its index.
func (b *Builder) nodeInfo(v int32) (bool, float32, uint32) {
	return v < int32(len(b.wetList)), b.zv[v], uint32(v)
}

// tri emits a triangle, counter-clockwise seen from above, if one of its vertices is
// wet, clipped by the contour (emit).
func (b *Builder) tri(wk *worker, u, v, w int32) { b.emit(wk, u, v, w) }

// cellNodes appends the vertices of cell c: its wet ones, then its dry ones and the
// extra vertices standing on its columns, in column order.
func (b *Builder) cellNodes(c int32, dst []int32) []int32 {
	v0 := b.cellV0[c]
	for v := v0; v < v0+int32(b.cellNW[c]); v++ {
		dst = append(dst, v)
	}
	if !b.cellDry[c] {
		return dst
	}
	cs := b.cols.CellStart
	for k := cs[c]; k < cs[c+1]; k++ {
		f := b.flag[k]
		if f&flagBoundary != 0 {
			dst = append(dst, b.vertOf[k])
		}
		if f&flagExtra != 0 {
			dst = append(dst, int32(len(b.wetList)+len(b.dryList))+b.extraOf[k])
		}
	}
	return dst
}
