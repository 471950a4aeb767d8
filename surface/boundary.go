package surface

// Boundaries (paper Sec. 4.3): dry vertices, extra vertices, links between boundary
// vertices.

// boundary sets the dry vertices: their links (the wet vertices linked to them), their
// height (the mean surface height of those), base, cell, position and opacity 0.
func (b *Builder) boundary() {
	b.resize(len(b.wetList) + len(b.dryList))
	b.pool.run(len(b.dryList), minLight, b.fBoundary)
}

// boundaryChunk does boundary for dryList[lo:hi]. A dry vertex is a corner of the
// surface only where it walls a wet vertex (its floor at or above that one's surface:
// contour.go); elsewhere a contact vertex stands in for it. Its height is the mean
// surface height of the wet vertices it walls, or of all its wet vertices when it walls
// none (then no triangle reaches it), so that a column walling the liquid at a wall's
// foot does not take the height of the liquid on its own top.
func (b *Builder) boundaryChunk(_, lo, hi int) {
	nw := len(b.wetList)
	m := &b.mesh
	for k := lo; k < hi; k++ {
		j := b.dryList[k]
		v := int32(nw + k)
		cell := b.cellIndex(j)
		mask := b.cellMask[cell]
		hj := b.st[j].hc
		var sum, wallSum float64
		var cnt, wallCnt int
		for d := range 8 {
			l := int32(-1)
			if mask&(1<<d) != 0 {
				if i := b.find(cell+b.dOff[d], hj); i >= 0 && b.flag[i]&flagWet != 0 {
					if vi := b.vertOf[i]; b.lk[8*vi+int32(opp(d))] == v {
						l = vi
						sum += float64(b.zv[vi])
						cnt++
						if hj >= b.st[i].hc {
							wallSum += float64(b.zv[vi])
							wallCnt++
						}
					}
				}
			}
			b.lk[8*v+int32(d)] = l
		}
		if wallCnt > 0 {
			sum, cnt = wallSum, wallCnt
		}
		z := float32(sum / float64(cnt))
		b.zv[v] = z
		b.basev[v] = b.st[j].base
		x, y := b.cellOf(j)
		b.vxy[v] = b.colXY[j]
		b.edge[v] = false
		m.Positions[3*v] = float32((float64(x) + 0.5) * b.dx)
		m.Positions[3*v+1] = float32((float64(y) + 0.5) * b.dx)
		m.Positions[3*v+2] = z
		m.Opacity[v] = 0
	}
}

// extras adds the extra vertices where a wet column faces the wall of a neighbour it is
// not linked to (paper Sec. 4.3), links them to the facing columns and to the facing
// columns' linked wet neighbours, and sets their heights.
func (b *Builder) extras() {
	if len(b.facing) == 0 {
		return
	}
	first := int32(len(b.wetList) + len(b.dryList))
	for f := 0; f < len(b.facing); f += 2 {
		v, d := b.facing[f], int(b.facing[f+1])
		i := b.wetList[v]
		j := b.find(b.cellIndex(i)+b.dOff[d], b.st[i].hc)
		e := b.extraFor(j)
		ev := first + e
		od := opp(d)
		if b.lk[8*ev+int32(od)] != -1 {
			continue // another column of v's cell already faces j
		}
		b.lk[8*ev+int32(od)] = v
		b.extraFacing[e] |= 1 << od
		b.lk[8*v+int32(d)] = ev
		b.setEdge(v)
	}
	m := &b.mesh
	for e := range int32(len(b.extraCol)) {
		ev := first + e
		xc, yc := b.vcell(ev)
		for od := range 8 {
			if b.extraFacing[e]&(1<<od) == 0 {
				continue
			}
			i := b.lk[8*ev+int32(od)]
			for d2 := range 8 {
				k := b.lk[8*i+int32(d2)]
				if k < 0 || !b.isWet(k) {
					continue
				}
				xk, yk := b.vcell(k)
				sx, sy := xc-xk, yc-yk
				if sx < -1 || sx > 1 || sy < -1 || sy > 1 || (sx == 0 && sy == 0) {
					continue
				}
				dk := dirOf(sx, sy)
				if b.lk[8*k+int32(dk)] != -1 || b.lk[8*ev+int32(opp(dk))] != -1 {
					continue
				}
				b.lk[8*k+int32(dk)] = ev
				b.lk[8*ev+int32(opp(dk))] = k
				b.setEdge(k)
			}
		}
		var sum float64
		var cnt int
		for d := range 8 {
			if k := b.lk[8*ev+int32(d)]; k >= 0 {
				sum += float64(b.zv[k])
				cnt++
			}
		}
		z := float32(sum / float64(cnt))
		b.zv[ev] = z
		m.Positions[3*ev+2] = z
	}
}

// setEdge puts wet vertex v in the first ring.
func (b *Builder) setEdge(v int32) {
	if !b.edge[v] {
		b.edge[v] = true
		b.ring = append(b.ring, v)
	}
}

// extraFor returns the extra vertex (counted from 0) of wall column j, creating it.
func (b *Builder) extraFor(j int32) int32 {
	if b.flag[j]&flagExtra != 0 {
		return b.extraOf[j]
	}
	e := int32(len(b.extraCol))
	b.flag[j] |= flagExtra
	b.cellDry[b.cellIndex(j)] = true
	b.extraOf[j] = e
	b.extraCol = append(b.extraCol, j)
	b.extraFacing = append(b.extraFacing, 0)
	v := b.numVertices() - 1
	b.resize(v + 1)
	for d := range 8 {
		b.lk[8*v+d] = -1
	}
	b.basev[v] = b.st[j].base
	x, y := b.cellOf(j)
	b.vxy[v] = b.colXY[j]
	b.edge[v] = false
	m := &b.mesh
	m.Positions[3*v] = float32((float64(x) + 0.5) * b.dx)
	m.Positions[3*v+1] = float32((float64(y) + 0.5) * b.dx)
	m.Opacity[v] = 0
	return e
}

// linkBoundaryPairs links boundary vertices (dry columns linked to a wet one, extra
// vertices) to each other (see boundaryLinks and doc.go). false gives the literal
// "wet-wet and wet-dry pairs only".
const linkBoundaryPairs = true

// boundaryLinks links neighbouring boundary vertices that share a linked wet column:
// two dry columns when they also pass the link test, an extra vertex and a dry column or
// another extra vertex on the common wet neighbour alone. A vertex keeps at most one
// link into each neighbouring cell (dry pairs first, then the extra vertices in order).
func (b *Builder) boundaryLinks() {
	b.pool.run(len(b.dryList), minLight, b.fBLinks)
	first := int32(len(b.wetList) + len(b.dryList))
	cs := b.cols.CellStart
	for e := range int32(len(b.extraCol)) {
		u := first + e
		cell := b.cellIndex(b.extraCol[e])
		mask := b.cellMask[cell]
		for d := range 8 {
			if b.lk[8*u+int32(d)] != -1 || mask&(1<<d) == 0 {
				continue
			}
			nc := cell + b.dOff[d]
			od := int32(opp(d))
			for k := cs[nc]; k < cs[nc+1]; k++ {
				w := int32(-1)
				f := b.flag[k]
				switch {
				case f&flagBoundary != 0 && b.lk[8*b.vertOf[k]+od] == -1:
					w = b.vertOf[k]
				case f&flagExtra != 0 && b.lk[8*(first+b.extraOf[k])+od] == -1:
					w = first + b.extraOf[k]
				}
				if w < 0 || !b.commonWet(u, w) {
					continue
				}
				b.lk[8*u+int32(d)] = w
				b.lk[8*w+od] = u
				break
			}
		}
	}
}

// boundaryLinksChunk links the dry vertices of dryList[lo:hi] to their neighbouring
// dry vertices.
func (b *Builder) boundaryLinksChunk(_, lo, hi int) {
	nw := len(b.wetList)
	for k := lo; k < hi; k++ {
		j := b.dryList[k]
		v := int32(nw + k)
		cell := b.cellIndex(j)
		mask := b.cellMask[cell]
		sj := b.st[j]
		for d := range 8 {
			if b.lk[8*v+int32(d)] != -1 || mask&(1<<d) == 0 {
				continue
			}
			c := b.find(cell+b.dOff[d], sj.hc)
			if c < 0 || b.flag[c]&flagBoundary == 0 {
				continue
			}
			if hc := b.st[c].hc; sj.lo < hc && hc < sj.max {
				if w := b.vertOf[c]; b.commonWet(v, w) {
					b.lk[8*v+int32(d)] = w
				}
			}
		}
	}
}

// commonWet reports whether some wet vertex is linked to both u and w.
func (b *Builder) commonWet(u, w int32) bool {
	wx, wy := b.vcell(w)
	for d := range 8 {
		x := b.lk[8*u+int32(d)]
		if x < 0 || !b.isWet(x) {
			continue
		}
		xx, xy := b.vcell(x)
		sx, sy := wx-xx, wy-xy
		if sx < -1 || sx > 1 || sy < -1 || sy > 1 || (sx == 0 && sy == 0) {
			continue
		}
		if b.lk[8*x+int32(dirOf(sx, sy))] == w {
			return true
		}
	}
	return false
}

// nodeOfVertex returns the node of vertex v: its column for a wet or dry vertex,
// NumColumns + e for extra vertex e; for a contact vertex (contour.go), the node of the
// boundary vertex it stands in for.
func (b *Builder) nodeOfVertex(v int) int32 {
	nw, nd := len(b.wetList), len(b.dryList)
	switch {
	case v < nw:
		return b.wetList[v]
	case v < nw+nd:
		return b.dryList[v-nw]
	case v >= int(b.nodes):
		return b.nodeOfVertex(int(b.lk[b.ctSlot[v-int(b.nodes)]]))
	}
	return int32(b.n + v - nw - nd)
}

// vertexOfNode returns the vertex of a node (see nodeOfVertex), or -1.
func (b *Builder) vertexOfNode(node int32) int32 {
	if node >= int32(b.n) {
		e := node - int32(b.n)
		if e >= int32(len(b.extraCol)) {
			return -1
		}
		return int32(len(b.wetList)+len(b.dryList)) + e
	}
	if b.flag[node]&(flagWet|flagBoundary) == 0 {
		return -1
	}
	return b.vertOf[node]
}
