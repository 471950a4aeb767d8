package gpusim

import "github.com/vpbench/vpbench/gpusim/internal/rows"

// The general layout's capillary head through the dense layout's row kernel. Most columns
// of a multi-layer terrain lie in stretches that look like a piece of a dense row: each
// column regular (its four neighbours -y, -x, +x, +y, kernels_csr.go), its -x and +x
// neighbours the columns before and after it, and the -y (and +y) neighbours of
// consecutive columns consecutive columns too. There capEdges hands the stretch to
// rows.CapHeadRow (the AVX2 kernel where the backend runs them), with the heights, floors
// and wetted flags of the stretch and its x ends as the row, and the stretches of its -y
// and +y neighbours as the rows beside it: the same operations as its column loop in
// the same order (the row kernels' twin is that loop's arithmetic, TestCapRowsMatchScalar),
// so the same bits (TestCapEdgesVectorMatchesScalar). The columns between stretches go
// through the column loop. capEdges was a third of coffee's step (a neighbour loop for
// every wet column that moved, to tell an edge from the liquid's inside).

// minCapStretch is the shortest stretch the row kernel takes.
const minCapStretch = 8

// capStretch is a stretch of columns [s, e) the row kernel takes: the -y neighbours of
// its columns are m, m+1, ..., and the +y neighbours p, p+1, ....
type capStretch struct{ s, e, m, p int32 }

// capStretches finds the stretches of columns [lo, hi) (see above), in order.
func (c *cpuBackend) capStretches(lo, hi int) []capStretch {
	t := c.topo
	rowLike := func(i int) bool {
		e := t.adjStart[i]
		return c.regular[i] && int(t.adjOther[e+1]) == i-1 && int(t.adjOther[e+2]) == i+1
	}
	var out []capStretch
	for i := lo; i < hi; {
		if !rowLike(i) {
			i++
			continue
		}
		e0 := t.adjStart[i]
		m, p := t.adjOther[e0], t.adjOther[e0+3]
		j := i + 1
		for j < hi && rowLike(j) {
			e := t.adjStart[j]
			if int(t.adjOther[e]) != int(m)+j-i || int(t.adjOther[e+3]) != int(p)+j-i {
				break
			}
			j++
		}
		if j-i >= minCapStretch {
			out = append(out, capStretch{int32(i), int32(j), m, p})
		}
		i = j
	}
	return out
}

// capStretchesFor is the stretches of worker range [lo, hi) (made with the workers), or
// nil where there are none or the range is not a worker's.
func (c *cpuBackend) capStretchesFor(lo, hi int) []capStretch {
	for w, r := range c.ranges {
		if r[0] == lo && r[1] == hi && w < len(c.capRuns) {
			return c.capRuns[w]
		}
	}
	return nil
}

// capStretchRow computes the head of stretch st (capEdges' columns [st.s, st.e)) with the
// row kernel; damp is the ripple damping's (0 on a fresh pass).
func (c *cpuBackend) capStretchRow(st capStretch, damp float32) {
	p := &c.p.cap
	cs := &c.capSt
	prm := rows.CapParams{Dry: DryDepth, Hole: capHole, Recede: p.recede, Corner: p.corner, Damp: damp, Heal: p.heal, Mark: p.mark}
	s, e, n := int(st.s), int(st.e), int(st.e-st.s)
	m, q := int(st.m), int(st.p)
	h, b, w := c.h, c.base, cs.wet
	// keep is prev itself: the kernel reads each column's prev before it writes its
	// height there. It writes every column's drive: no copy of the heights first.
	c.rows.CapHeadRow(&prm, cs.drive[s:e], cs.wetNext[s:e], cs.prev[s:e], h[s-1:e+1], b[s-1:e+1], w[s-1:e+1],
		h[m:m+n], b[m:m+n], w[m:m+n], h[q:q+n], b[q:q+n], w[q:q+n], cs.prev[s:e])
}
