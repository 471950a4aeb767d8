package gpusim

import (
	"github.com/vpbench/vpbench/gpusim/internal/element"
	"github.com/vpbench/vpbench/gpusim/internal/rows"
)

// The general layout: pipes in topology order, per-column pipe lists (topology.adj*).
// Works for any terrain. In the column phases u = f*sign is a pipe's flux seen from
// column i: > 0 leaves i.
//
// The vector path. Most columns of a multi-layer terrain are regular: exactly four pipes,
// the first two entering them (sign -1) and the last two leaving them (sign +1), as a
// column whose four neighbouring cells hold one column each has them (-y, -x, +x, +y).
// Where the backend runs the AVX2 kernels (rows.Kernels.Vector), the outflow and height
// phases take runs of at least minCSRRun consecutive regular columns through the vector
// twins of their column loops (rows.CSROutflowRun, rows.CSRHeightRun): the run's fluxes
// are gathered into a buffer of groups of 8 columns, stream q of a group holding pipe q's
// flux (gatherCSR), and the kernel does what the column loop does, in the same order,
// with the same bits (TestCSRVectorMatchesColumns). The other columns go through the
// column loops. The flux and final phases gather their pipes' ends in chunks for the
// dense layout's raw-flux and final kernels (csrFlux, csrFinal). Where the layout is
// regular enough, the gathers read stretches instead of pipe indices: strided groups of
// columns and paired groups of pipes (below).

// minCSRRun is the shortest run of regular columns the vector kernels take.
const minCSRRun = 8

// regularColumns marks the regular columns of t (see above).
func regularColumns(t *topology) []bool {
	reg := make([]bool, t.cols.NumColumns())
	for i := range reg {
		e := t.adjStart[i]
		reg[i] = t.adjStart[i+1]-e == 4 && t.adjSign[e] < 0 && t.adjSign[e+1] < 0 && t.adjSign[e+2] > 0 && t.adjSign[e+3] > 0
	}
	return reg
}

// csrRun is a worker's run of columns taken by one path: up to column end (from the
// previous run's end, or the worker's first column), through the vector kernels or not.
type csrRun struct {
	end    int32
	vector bool
}

// csrRuns cuts columns [lo, hi) into runs (nextRun).
func (c *cpuBackend) csrRuns(lo, hi int) []csrRun {
	var runs []csrRun
	for i := lo; i < hi; {
		j, vector := c.nextRun(i, hi)
		runs = append(runs, csrRun{int32(j), vector})
		i = j
	}
	return runs
}

// nextRun returns the end of the run of columns from i that one path takes: a run of
// regular columns (vector: true) of at least minCSRRun, or else the columns up to the
// next such run (at least one).
func (c *cpuBackend) nextRun(i, hi int) (end int, vector bool) {
	j := i
	for j < hi && c.regular[j] {
		j++
	}
	if j-i >= minCSRRun {
		return j, true
	}
	// Column by column up to the next long run.
	for j = max(j, i+1); j < hi; j++ {
		if !c.regular[j] {
			continue
		}
		k := j
		for k < hi && c.regular[k] && k-j < minCSRRun {
			k++
		}
		if k-j >= minCSRRun {
			break
		}
		j = k - 1
	}
	return j, false
}

// A group of 8 regular columns is strided when each of its four pipe streams steps by
// two pipes from one column to the next (and its +y pipe follows its +x pipe): pipes are
// numbered by the column they leave, +x then +y, so in a run of regular columns the +x and
// +y streams always are, the -x stream is unless the group starts the run, and the -y
// stream is where the columns below are regular too, which is most of a multi-layer
// terrain. Such a group's fluxes are read from four stretches of f, no index at all.

// markStrided marks in c.strided the first column of every strided group of runs (a
// worker's runs from column lo).
func (c *cpuBackend) markStrided(lo int, runs []csrRun) {
	if c.strided == nil {
		c.strided = make([]bool, len(c.h))
	}
	for i, run := lo, 0; run < len(runs); run++ {
		j := int(runs[run].end)
		if runs[run].vector {
			for g := i; g < j; g += 8 {
				cols := min(8, j-g) // a run's last group may be short: its lanes past the run are ignored
				c.strided[g] = stridedGroup(c.topo.adjPipe[c.topo.adjStart[g]:c.topo.adjStart[g]+int32(4*cols)], len(c.f))
			}
		}
		i = j
	}
}

// stridedGroup tells whether the four pipes of up to 8 regular columns (p, 4 entries a
// column) step by two from column to column, with each column's +y pipe after its +x
// one, and every stretch read (16 fluxes from each stream's first) lies in npipes.
func stridedGroup(p []int32, npipes int) bool {
	if p[3] != p[2]+1 {
		return false
	}
	for q := range 4 {
		if int(p[q])+16 > npipes {
			return false
		}
		for l := 1; l < len(p)/4; l++ {
			if p[4*l+q] != p[q]+int32(2*l) {
				return false
			}
		}
	}
	return true
}

// gatherCSR gathers, for the regular columns [lo, hi), the fluxes f of their four pipes
// into u (groups of 8 columns, stream q of a group at 8q, streams a column: the layout
// rows.CSRStreams describes), and extra streams 4 and 5 from e4 and e5 (indexed from lo)
// where given. A run of regular columns has its pipes contiguous in the adjacency, four
// a column.
func (c *cpuBackend) gatherCSR(u, f []float32, lo, hi, streams int, e4, e5 []float32) {
	n := hi - lo
	e := int(c.topo.adjStart[lo])
	pp := c.topo.adjPipe[e : e+4*n]
	for g := 0; 8*g < n; {
		if c.strided[lo+8*g] { // this group and the strided ones after it at once
			k := g + 1
			for 8*k < n && c.strided[lo+8*k] {
				k++
			}
			rows.GatherStridedRun(u[8*streams*g:], f, pp[32*g:], k-g, streams)
			g = k
			continue
		}
		q := u[8*streams*g : 8*streams*(g+1)]
		q = q[:32] // the four pipes' streams
		x0 := 8 * g
		cols := min(8, n-x0)
		p := pp[4*x0 : 4*(x0+cols)]
		for lane := range cols {
			pl := p[4*lane : 4*lane+4 : 4*lane+4]
			l := lane & 7
			q[l], q[8+l], q[16+l], q[24+l] = f[pl[0]], f[pl[1]], f[pl[2]], f[pl[3]]
		}
		g++
	}
	if e4 == nil && e5 == nil {
		return
	}
	for g := 0; 8*g < n; g++ {
		x0 := 8 * g
		cols := min(8, n-x0)
		if e4 != nil {
			x := u[8*streams*g+32 : 8*streams*g+40]
			copy(x[:cols], e4[x0:x0+cols])
		}
		if e5 != nil {
			x := u[8*streams*g+40 : 8*streams*g+48]
			copy(x[:cols], e5[x0:x0+cols])
		}
	}
}

// csrStep is one worker's share of a step of the pipes on the general layout: the flux
// phase, then the phases after it (csrAfterFlux), leaving alone the units skipDead found
// dead at the step's start. The SWE's substeps share all but the
// flux (sweStep).
func (c *cpuBackend) csrStep(w int) {
	ext := c.csrExtended(w)
	c.forLive(w, true, func(_, _ int32, lo, hi int) { c.csrFlux(w, lo, hi) }, nil)
	c.bar.wait()
	c.csrAfterFlux(w, ext)
}

// csrExtended is the step's extended pipes (nil when off); worker 0 computes their raw
// fluxes, serially, beside the other workers' share of the flux phase.
func (c *cpuBackend) csrExtended(w int) *extended {
	ext := c.ext
	if ext != nil && ext.mode == ExtendedOff {
		ext = nil
	}
	if ext != nil && w == 0 {
		ext.rawFluxes(c.h, &c.p)
	}
	return ext
}

// csrAfterFlux is one worker's share of the phases after the flux, a barrier after each
// but the last: outflow (K, S), inflow, the final fluxes (and the extended pipes'), the
// heights, leaving the dead units alone (csrskip.go).
func (c *cpuBackend) csrAfterFlux(w int, ext *extended) {
	sums := ext.sums() // nil in a step without openings: the column phases skip the sums
	c.csrOutflow(w, sums)
	c.bar.wait()
	c.csrInflow(w, sums)
	c.bar.wait()
	c.forLive(w, true, func(_, _ int32, lo, hi int) { c.csrFinal(w, lo, hi) }, nil)
	if ext != nil && w == 0 {
		ext.final(c.k, c.s, c.r, &c.p)
	}
	c.bar.wait()
	c.csrHeight(w, ext, sums)
}

// fluxChunk is how many pipes csrFlux and csrFinal gather at a time for the vector
// kernels.
const fluxChunk = 512

// Paired groups. The pipes of 8 consecutive columns that each leave by exactly a +x and
// a +y pipe are 16 consecutive pipes, +x then +y for each column in turn (pipes are
// numbered by the column they leave). Where the columns' +x neighbours are the next 8
// columns and their +y neighbours 8 consecutive columns too (the cells above hold one
// column each, as over most of a multi-layer terrain), the group's ends read as three
// stretches of 8 columns' values: its own (each twice, end a of both pipes) and its +x
// and +y neighbours' (in turn, ends b). gatherPairsAVX2 interleaves them with no pipe
// index read; the flux and final phases use it for their gathers (heights; K and S).

// markPaired sets c.pairAt for pipes [lo, hi), scanning from lo: at the first pipe of
// every paired group 0, and -1 elsewhere. Where a run of paired columns ends less than a
// group after the last group, a group that overlaps the last one covers the rest: its
// entry, at the first pipe it adds, is how many pipes it starts before that (2 to 14).
// The overlap is gathered twice, the same values: the gathers only copy.
func (c *cpuBackend) markPaired(lo, hi int) {
	if c.pairAt == nil {
		c.pairAt = make([]int8, len(c.f))
	}
	n := len(c.h)
	pa, pb := c.topo.pipeA, c.topo.pipeB
	group := func(b int) bool { return b >= lo && b+16 <= hi && pairedGroup(pa[b:b+16], pb[b:b+16], n) }
	last := -1 // the end of the last group marked
	for j := lo; j < hi; {
		shift := -1
		if group(j) {
			shift = 0
		} else if j == last {
			for s := 2; s < 16 && shift < 0; s += 2 {
				if group(j - s) {
					shift = s
				}
			}
		}
		if shift < 0 {
			c.pairAt[j] = -1
			j++
			continue
		}
		c.pairAt[j] = int8(shift)
		end := j - shift + 16
		for x := j + 1; x < end; x++ {
			c.pairAt[x] = -1
		}
		j, last = end, end
	}
}

// pairedGroup tells whether 16 pipes (ends pa, pb) are the +x and +y pipes of 8
// consecutive columns whose +x and +y neighbours are each 8 consecutive columns, all of
// n columns.
func pairedGroup(pa, pb []int32, n int) bool {
	a, e, u := pa[0], pb[0], pb[1]
	if int(a)+8 > n || int(e)+8 > n || int(u)+8 > n {
		return false
	}
	for t := range int32(8) {
		if pa[2*t] != a+t || pa[2*t+1] != a+t || pb[2*t] != e+t || pb[2*t+1] != u+t {
			return false
		}
	}
	return true
}

// chunkEnd is the end of the chunk of pipes from j0 (before hi) that csrFlux and
// csrFinal gather at once: at most fluxChunk pipes, ending before a paired group that
// would straddle the end (a group cut in two is gathered pipe by pipe).
func (c *cpuBackend) chunkEnd(j0, hi int) int {
	j1 := j0 + fluxChunk
	if j1 >= hi {
		return hi
	}
	for x := j1 - 1; x > j1-16 && x > j0; x-- {
		if s := c.pairAt[x]; s >= 0 {
			if x-int(s)+16 > j1 {
				return x
			}
			break
		}
	}
	return j1
}

// gatherEnds puts the values x of the ends of pipes [j0, j1) into da and db (indexed from
// j0): paired groups through rows.GatherPairsRun (runs of them at once), the other pipes
// one by one.
func (c *cpuBackend) gatherEnds(da, db, x []float32, j0, j1 int) {
	pa, pb := c.topo.pipeA, c.topo.pipeB
	for j := j0; j < j1; {
		s := int(c.pairAt[j])
		if s == 0 && j+16 <= j1 {
			k := j + 16
			for k+16 <= j1 && c.pairAt[k] == 0 {
				k += 16
			}
			rows.GatherPairsRun(da[j-j0:k-j0], db[j-j0:k-j0], x, pa[j:k], pb[j:k], (k-j)/16)
			j = k
			continue
		}
		if b := j - s; s > 0 && b >= j0 && b+16 <= j1 { // a group overlapping the last one
			rows.GatherPairsRun(da[b-j0:b-j0+16], db[b-j0:b-j0+16], x, pa[b:b+16], pb[b:b+16], 1)
			j = b + 16
			continue
		}
		da[j-j0], db[j-j0] = x[pa[j]], x[pb[j]]
		j++
	}
}

// csrFlux: the flux update of pipes [lo, hi). With AVX2 the heights of each chunk of
// pipes' ends are gathered (csrFluxBuf, gatherEnds), their floors read from pipeBase,
// and the dense layout's row kernel updates the chunk's fluxes in place: the same
// arithmetic (element's, in the same order), so the same bits, in fewer instructions.
func (c *cpuBackend) csrFlux(w, lo, hi int) {
	if c.rows.Vector() {
		buf := c.csrFluxBuf[w][:4*fluxChunk]
		for j0, j1 := lo, 0; j0 < hi; j0 = j1 {
			j1 = c.chunkEnd(j0, hi)
			n := j1 - j0
			ha, hb := buf[:n], buf[fluxChunk:fluxChunk+n]
			c.gatherEnds(ha, hb, c.driveHeights(), j0, j1)
			f := c.f[j0:j1]
			c.rows.RawFluxRow(&c.p.Params, f, f, ha, hb, c.pipeBase[0][j0:j1], c.pipeBase[1][j0:j1])
		}
		return
	}
	pa, pb := c.topo.pipeA[lo:hi], c.topo.pipeB[lo:hi]
	f := c.f[lo:hi]
	pb = pb[:len(pa)]
	f = f[:len(pa)]
	base, h := c.base, c.driveHeights()
	p := &c.p
	for j, a := range pa {
		b := pb[j]
		ha, hb := h[a], h[b]
		dh, da, db := ha-hb, ha-base[a], hb-base[b]
		t1, acc := float32(p.Zeta*f[j]), p.Acceleration(dh, da, db)
		u := t1 + float32(acc*dh)
		if p.Wet > 0 {
			u = p.Wetting(u, t1, acc, dh, da, db)
		}
		f[j] = element.FlushFlux(p.Viscous(u, da, db))
	}
}

// csrFinal: the scaled fluxes of pipes [lo, hi), raw*K[from]*S[to], in place. With AVX2,
// chunk by chunk as csrFlux: K and S of the ends gathered, the dense layout's final
// kernel (element.FinalFlux's arithmetic).
func (c *cpuBackend) csrFinal(w, lo, hi int) {
	if c.rows.Vector() {
		buf := c.csrFluxBuf[w][:4*fluxChunk]
		for j0, j1 := lo, 0; j0 < hi; j0 = j1 {
			j1 = c.chunkEnd(j0, hi)
			n := j1 - j0
			ka, kb, sa, sb := buf[:n], buf[fluxChunk:fluxChunk+n], buf[2*fluxChunk:2*fluxChunk+n], buf[3*fluxChunk:3*fluxChunk+n]
			c.gatherEnds(ka, kb, c.k, j0, j1)
			c.gatherEnds(sa, sb, c.s, j0, j1)
			f := c.f[j0:j1]
			c.rows.FinalFluxRow(f, f, ka, kb, sa, sb)
		}
		return
	}
	pa, pb := c.topo.pipeA[lo:hi], c.topo.pipeB[lo:hi]
	f := c.f[lo:hi]
	pb = pb[:len(pa)]
	f = f[:len(pa)]
	kk, ss := c.k, c.s
	for j, a := range pa {
		b := pb[j]
		f[j] = element.FinalFlux(f[j], kk[a], kk[b], ss[a], ss[b])
	}
}

// csrOutflow: K for worker w's columns, S = 1 where no overflow is possible, and the
// list of the others, in column order, for csrInflow. A dead unit's K is set to 0 once.
func (c *cpuBackend) csrOutflow(w int, ext *extended) {
	flag := c.flag[w][:0]
	sk := c.skip
	c.forLive(w, false, func(a, b int32, lo, hi int) {
		for u := a; u < b; u++ {
			sk.kZero[u] = false
		}
		c.forRuns(a, lo, hi, func(i, j int, vector bool) {
			if !vector {
				flag = c.csrOutflowColumns(i, j, ext, flag)
				return
			}
			streams := rows.CSRStreams(ext != nil)
			u := c.csrBuf[w][:rows.CSRGroups(j-i)*8*streams]
			if ext != nil {
				c.gatherCSR(u, c.f, i, j, streams, ext.extOut[i:j], ext.extIn[i:j])
			} else {
				c.gatherCSR(u, c.f, i, j, streams, nil, nil)
			}
			flag = rows.CSROutflowRun(&c.p.Params, i, c.k[i:j], c.s[i:j], u, c.h[i:j], c.r[i:j], c.base[i:j], c.top[i:j], ext != nil, c.csrMask[w], flag)
		})
	}, func(u int32) {
		if !sk.kZero[u] {
			clear(c.k[sk.units[u].lo:sk.units[u].hi])
			sk.kZero[u] = true
		}
	})
	c.flag[w] = flag
}

// csrOutflowColumns is csrOutflow for columns [lo, hi) one by one (rows.CSROutflowRun's
// Go twin), appending to flag.
func (c *cpuBackend) csrOutflowColumns(lo, hi int, ext *extended, flag []int32) []int32 {
	as, ap, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjSign
	raw, h, res, base, top, kk, ss := c.f, c.h, c.r, c.base, c.top, c.k, c.s
	p := &c.p
	var extOut, extIn []float32
	if ext != nil {
		extOut, extIn = ext.extOut, ext.extIn
	}
	hold := c.hold
	for i := lo; i < hi; i++ {
		if hold != nil && hold[i] == markHeld {
			flag = c.heldOutflow(i, flag)
			continue
		}
		var out2, in2 float32
		for e := as[i]; e < as[i+1]; e++ {
			out2, in2 = element.SplitSum(out2, in2, raw[ap[e]]*sg[e])
		}
		out, in := out2*0.5, in2*0.5
		if extOut != nil {
			out += extOut[i]
			in += extIn[i]
		}
		kk[i] = p.OutflowFactor(out, (h[i]-base[i])+res[i])
		ss[i] = 1
		if p.MayOverflow(in, (top[i]-h[i])-res[i]) {
			flag = append(flag, int32(i))
		}
	}
	return flag
}

// csrInflow: S for the columns csrOutflow listed. Extended inflows count unscaled (their
// source's K taken as 1), which can only make S smaller.
func (c *cpuBackend) csrInflow(w int, ext *extended) {
	as, ap, ao, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjOther, c.topo.adjSign
	raw, h, top, kk, ss := c.f, c.h, c.top, c.k, c.s
	for _, i := range c.flag[w] {
		var in float32 // <= 0
		// A held column: its border pipes alone (heldOutflow).
		if c.hold != nil && c.hold[i] == markHeld {
			for e := as[i]; e < as[i+1]; e++ {
				if c.hold[ao[e]] != markHeld {
					in += min(raw[ap[e]]*sg[e], 0) * kk[ao[e]]
				}
			}
			ss[i] = c.p.InflowFactor(in, (top[i]-h[i])-c.r[i])
			continue
		}
		for e := as[i]; e < as[i+1]; e++ {
			in += min(raw[ap[e]]*sg[e], 0) * kk[ao[e]]
		}
		if ext != nil {
			in += ext.extIn[i]
		}
		ss[i] = c.p.InflowFactor(in, (top[i]-h[i])-c.r[i])
	}
}

// csrHeight: the height update of worker w's columns, and the full flags of its capped
// columns for the extended pipes (ext). sums is ext when the extended net outflows may be
// non-zero (extended.sums), nil otherwise. Each unit computed is found still or not for
// the next step (stillDue says when).
func (c *cpuBackend) csrHeight(w int, ext, sums *extended) {
	var flips int32
	sk := c.skip
	c.forLive(w, false, func(a, b int32, lo, hi int) {
		c.forRuns(a, lo, hi, func(i, j int, vector bool) {
			if !vector {
				flips += c.csrHeightColumns(i, j, ext, sums)
				return
			}
			streams := rows.CSRStreams(sums != nil)
			u := c.csrBuf[w][:rows.CSRGroups(j-i)*8*streams]
			if sums != nil {
				c.gatherCSR(u, c.f, i, j, streams, sums.extNet[i:j], nil)
			} else {
				c.gatherCSR(u, c.f, i, j, streams, nil, nil)
			}
			rows.CSRHeightRun(&c.p.Params, c.h[i:j], c.r[i:j], u, c.base[i:j], c.top[i:j], sums != nil)
			if ext != nil {
				for x := i; x < j; x++ {
					if ext.isCapped[x] && ext.updateFull(x, c.h[x]) {
						flips++
					}
				}
			}
		})
		for u := a; u < b; u++ {
			if sk.stillDue(w, u) {
				sk.still[u] = !sk.pinned[u] && c.unitStill(&sk.units[u])
			}
		}
	}, nil)
	if ext != nil {
		ext.flips[w] = flips
	}
}

// csrHeightColumns is csrHeight for columns [lo, hi) one by one (rows.CSRHeightRun's Go
// twin); it returns the number of full flags flipped.
func (c *cpuBackend) csrHeightColumns(lo, hi int, ext, sums *extended) int32 {
	as, ap, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjSign
	f, h, res, base, top := c.f, c.h, c.r, c.base, c.top
	p := &c.p
	var extNet []float32
	var capped []bool
	var flips int32
	if ext != nil {
		capped = ext.isCapped
	}
	if sums != nil {
		extNet = sums.extNet
	}
	hold := c.hold
	for i := lo; i < hi; i++ {
		if hold != nil && hold[i] != markFree {
			c.heldHeight(i)
			continue
		}
		var out float64
		for e := as[i]; e < as[i+1]; e++ {
			out += float64(f[ap[e]] * sg[e])
		}
		if extNet != nil {
			out += float64(extNet[i])
		}
		h[i], res[i] = element.SettleHeight(p.UpdateHeight(out, h[i], res[i]), base[i], top[i])
		if capped != nil && capped[i] && ext.updateFull(i, h[i]) {
			flips++
		}
	}
	return flips
}
