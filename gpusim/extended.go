package gpusim

import (
	"cmp"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/vpbench/vpbench/gpusim/internal/element"
	"github.com/vpbench/vpbench/terrain"
)

// Extended pipes: flow through fully flooded passages (docs/method.md, "Extended pipes";
// paper Sec. 3.3 and 7). Decisions (docs/solver.md, "Extended pipes"):
//
//   - A column can belong to a passage only if a solid caps it (Max below the domain top):
//     liquid reaching the domain's lid is not in a passage. Full means h >= Max - fullTol (fullFraction of dx).
//   - Axis mode: the pipe joins the two non-full ends of a run of full columns; its length
//     l is the distance between the ends' cell centres ((run + 1) dx), so its head gradient
//     is the one across the passage. Unified mode: each boundary column has one pipe to its
//     passage with l = dx (Eq. 8 as printed), the passage acting as one node at the mean
//     head of its boundary columns.
//   - Viscosity in an extended pipe uses the passage's mean gap (Max - Base over its
//     columns) as H: the flow the pipe stands for runs inside the passage.
//   - Flux history: an axis pipe keeps its flux while the same two ends are joined; a
//     unified opening keeps its flux while it borders the same passage, a passage being
//     known by its first column (the lowest index), so a passage that grows or shrinks
//     elsewhere keeps its flows (Eq. 9's zero-mean correction rebalances them). A column
//     can open onto several passages; each connection has its own flux. New pipes start
//     at zero.
//   - Scaling: extended outflows count in K and extended inflows in S (the hub's side of a
//     unified pipe with K = 1, which can only make S smaller). After scaling, the larger
//     side of each passage (what enters or what leaves) is scaled down to the other, so
//     what enters a passage leaves it in the same step.
//
// The height phase (parallel) keeps each capped column's full flag and counts the flags
// that flipped. The passages and their openings are rebuilt (serially, on worker 0) only
// in a step after a flip; otherwise last step's are reused and only the extended fluxes
// are computed, which touches nothing but the openings. The kernels read the results
// through the per-column sums extOut, extIn (raw outflow and inflow, for K and S) and
// extNet (final net outflow, for the heights).
type extended struct {
	mode    ExtendedPipes
	cols    *terrain.Columns
	topo    *topology
	capped  []int32 // columns a solid caps: the only ones that can be full
	dirY    []bool  // per pipe: true if it joins +y neighbours (else +x)
	fullTol float32

	isCapped []bool
	flips    []int32 // per worker: full flags that flipped in its last height phase
	dirty    bool    // heights were set from outside: recompute every full flag
	rebuilds int     // passage rebuilds so far (tests and benchmarks count them)
	scans    int     // of those, the ones that scanned every capped column

	// Where flags flipped since the last rebuild: one bit per block of 64 columns, set by
	// updateFull (atomically: the workers of a height phase share the boundary words).
	// cappedAt[b] is the first entry of capped in block b or after it.
	marks    []atomic.Uint64
	cappedAt []int32

	// Per column, reused every step.
	full      []bool
	label     []int32 // passage of a full column this step, -1 otherwise
	seen      []int32 // passage stamp, to collect each boundary column once per passage
	isTouched []bool
	extOut    []float32
	extIn     []float32
	extNet    []float32
	touched   []int32 // columns whose ext sums may be non-zero this step

	// Passages of this step.
	members  []int32 // full columns, grouped by passage
	pStart   []int32 // passage p's members: members[pStart[p]:pStart[p+1]]
	fullList []int32 // the full capped columns, ascending, as of the last rebuild
	listed   []bool  // per column: in fullList
	fullNext []int32 // the next fullList, built beside it
	seenMark int32

	// Unified mode: one entry per (opening, passage), for passages with two or more
	// openings. uF holds each entry's flux: raw during a step, final between steps.
	uCol   []int32
	uKey   []uint64  // opening<<32 | the passage's first column: the entry's identity
	uStart []int32   // entries of passage p: uStart[p] .. uStart[p+1]-1
	uGap   []float32 // per passage: its mean gap
	uF     []float32
	// The entries before a rebuild (its history), indexed by opening: hHead[b] is b's
	// last entry if hStamp[b] == hMark, and each entry's next is b's entry before it.
	hist   []histEntry
	hHead  []int32
	hStamp []int32
	hMark  int32

	// Axis mode: pipes sorted by key; last step's final fluxes for history.
	axis     []axisPipe
	aPrev    []axisFlux
	runStack []axisRun
}

type axisPipe struct {
	key   uint64
	a, b  int32
	cells float32 // run length + 1: the pipe's length in cells
	gap   float32
	f     float32
}

type axisFlux struct {
	key uint64
	f   float32
}

type histEntry struct {
	key  uint64
	f    float32
	next int32
}

type axisRun struct {
	col    int32
	cells  int32
	gapSum float32
}

func axisKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func compareAxisPipe(x, y axisPipe) int { return cmp.Compare(x.key, y.key) }
func compareAxisFlux(x, y axisFlux) int { return cmp.Compare(x.key, y.key) }

// fullFraction of a cell size is how close to its ceiling a column must be to count as
// full. The inflow scaling lets a column that drains while it fills approach its ceiling
// only asymptotically (it stays about one step's outflow below), so a tight tolerance
// keeps a flooded passage from counting as flooded: in scripts/passages.lua the tunnels
// counted as flooded between 12 and 13 s with 1e-4, by 8 s with 0.01, while the basin stood above
// their roofs from 6 s on.
const fullFraction = 0.01

// newExtended returns nil when the terrain has no capped column: no passage can form.
func newExtended(t *topology, mode ExtendedPipes) *extended {
	c := t.cols
	var capped []int32
	for i, m := range c.Max {
		if float64(m) < c.Height*(1-1e-6) {
			capped = append(capped, int32(i))
		}
	}
	if len(capped) == 0 {
		return nil
	}
	n := c.NumColumns()
	e := &extended{
		mode: mode, cols: c, topo: t, capped: capped, dirty: true,
		isCapped:  make([]bool, n),
		dirY:      make([]bool, t.numPipes()),
		fullTol:   float32(fullFraction * c.Dx),
		full:      make([]bool, n),
		label:     make([]int32, n),
		seen:      make([]int32, n),
		isTouched: make([]bool, n),
		extOut:    make([]float32, n),
		extIn:     make([]float32, n),
		extNet:    make([]float32, n),
		listed:    make([]bool, n),
		hHead:     make([]int32, n),
		hStamp:    make([]int32, n),
		marks:     make([]atomic.Uint64, (n+1<<12-1)>>12),
		cappedAt:  make([]int32, (n+63)>>6+1),
		pStart:    []int32{0},
	}
	for b := range e.cappedAt {
		k, _ := slices.BinarySearch(capped, int32(b<<6))
		e.cappedAt[b] = int32(k)
	}
	for i := range e.label {
		e.label[i] = -1
	}
	for _, i := range capped {
		e.isCapped[i] = true
	}
	for p := range e.dirY {
		ca, cb := cellOf(c, int(t.pipeA[p])), cellOf(c, int(t.pipeB[p]))
		e.dirY[p] = c.Nx == 1 || cb != ca+1
	}
	return e
}

// cellOf returns the cell index of column i (binary search in CellStart).
func cellOf(c *terrain.Columns, i int) int {
	k, _ := slices.BinarySearch(c.CellStart, int32(i)+1) // the first cell starting after i
	return k - 1
}

// setMode switches mode; fluxes of the old mode are forgotten.
func (e *extended) setMode(m ExtendedPipes) {
	if m == e.mode {
		return
	}
	e.mode = m
	e.aPrev = e.aPrev[:0]
	e.uCol, e.uKey, e.uF = e.uCol[:0], e.uKey[:0], e.uF[:0]
	e.resetSums()
	e.dirty = true
}

// setWorkers sizes the per-worker flip counters.
func (e *extended) setWorkers(n int) {
	// The flips of the last height phase are still to be acted on (the next step's
	// passages): a new number of workers keeps their total.
	var total int32
	for _, f := range e.flips {
		total += f
	}
	e.flips = make([]int32, max(n, 1))
	e.flips[0] = total
}

// counts returns the active extended pipes and passages.
func (e *extended) counts() (pipes, passages int) {
	switch e.mode {
	case ExtendedAxis:
		return len(e.axis), len(e.pStart) - 1
	case ExtendedUnified:
		return len(e.uCol), len(e.pStart) - 1
	}
	return 0, 0
}

// resetSums clears the per-column sums of the last step.
func (e *extended) resetSums() {
	for _, i := range e.touched {
		e.extOut[i], e.extIn[i], e.extNet[i] = 0, 0, 0
		e.isTouched[i] = false
	}
	e.touched = e.touched[:0]
}

// sums is e if a column's extended sums (extOut, extIn, extNet) may be non-zero this
// step, nil if every one is zero: no passage has an opening. The column phases then skip
// the sums, which only added zeros (a -0 made +0, which no factor or height tells apart).
// Valid from the flux phase's barrier (rawFluxes books every column final touches).
func (e *extended) sums() *extended {
	if e == nil || len(e.touched) == 0 {
		return nil
	}
	return e
}

// addRaw books a raw extended flux u leaving column i (u < 0: entering it).
func (e *extended) addRaw(i int32, u float32) {
	if !e.isTouched[i] {
		e.isTouched[i] = true
		e.touched = append(e.touched, i)
	}
	e.extOut[i] += max(u, 0)
	e.extIn[i] += min(u, 0)
}

// updateFull sets the full flag of capped column i from its height and tells whether it
// flipped. The height phase calls it for its columns, concurrently.
func (e *extended) updateFull(i int, h float32) bool {
	f := h >= e.cols.Max[i]-e.fullTol
	if f == e.full[i] {
		return false
	}
	e.full[i] = f
	w, bit := &e.marks[i>>12], uint64(1)<<(uint(i)>>6&63)
	if w.Load()&bit == 0 {
		w.Or(bit)
	}
	return true
}

// refreshTargets updates the full flags of the columns emitters act on (they change
// heights after the height phase). Worker 0 calls it.
func (e *extended) refreshTargets(em *emitterSet, h []float32) {
	for _, i := range em.tCol {
		if e.isCapped[i] && e.updateFull(int(i), h[i]) {
			e.flips[0]++
		}
	}
	for _, i := range em.dCol { // the open sides' drains
		if e.isCapped[i] && e.updateFull(int(i), h[i]) {
			e.flips[0]++
		}
	}
}

// rebuild finds the passages (connected sets of full columns joined by pipes) and their
// openings, from the full flags.
//
// Passages are numbered by their lowest column and their members listed in the order of
// a breadth-first search from it: that order fixes the float sums over a passage (its
// mean gap, its openings' mean head), so the lists must come out the same however they
// are found. What a rebuild saves (docs/solver.md, "Extended pipes"): the full columns
// are kept in a sorted list, updated from the blocks where a flag flipped rather than
// found by a scan of every capped column; the openings and the mean gap are found in the
// same search as the members; the history is looked up by opening rather than sorted.
func (e *extended) rebuild(h []float32) {
	e.rebuilds++
	if e.dirty {
		for _, i := range e.capped {
			e.updateFull(int(i), h[i])
		}
	}
	for w := range e.flips {
		e.flips[w] = 0
	}
	e.updateFullList()
	e.dirty = false
	unified := e.mode == ExtendedUnified
	if unified {
		e.indexHistory()
	}
	for _, i := range e.members {
		e.label[i] = -1
	}
	e.members = e.members[:0]
	e.pStart = append(e.pStart[:0], 0)
	t, c := e.topo, e.cols
	for _, s := range e.fullList {
		if e.label[s] >= 0 {
			continue
		}
		p := int32(len(e.pStart) - 1)
		e.label[s] = p
		first, firstOpening := len(e.members), len(e.uCol)
		e.seenMark++
		var gap float32
		e.members = append(e.members, s)
		for q := first; q < len(e.members); q++ {
			i := e.members[q]
			gap += c.Max[i] - c.Base[i]
			for a := t.adjStart[i]; a < t.adjStart[i+1]; a++ {
				j := t.adjOther[a]
				if e.full[j] {
					if e.label[j] < 0 {
						e.label[j] = p
						e.members = append(e.members, j)
					}
				} else if unified && e.seen[j] != e.seenMark {
					e.seen[j] = e.seenMark
					key := axisKey(j, s)
					e.uCol, e.uKey, e.uF = append(e.uCol, j), append(e.uKey, key), append(e.uF, e.history(j, key))
				}
			}
		}
		e.pStart = append(e.pStart, int32(len(e.members)))
		if unified {
			// Passages with a single opening get none: nothing can flow through them.
			if len(e.uCol)-firstOpening < 2 {
				e.uCol, e.uKey, e.uF = e.uCol[:firstOpening], e.uKey[:firstOpening], e.uF[:firstOpening]
			}
			e.uStart = append(e.uStart, int32(len(e.uCol)))
			e.uGap = append(e.uGap, gap/float32(len(e.members)-first))
		}
	}
	if e.mode == ExtendedAxis {
		e.findRuns()
	}
}

// updateFullList brings fullList up to the full flags. After flips recorded by updateFull
// it checks only the capped columns of the marked blocks and merges the changes in; a
// rebuild with no block marked (the device backend sets the flags from its read-back) or
// after the heights were set scans every capped column.
func (e *extended) updateFullList() {
	marked := false
	for k := range e.marks {
		if e.marks[k].Load() != 0 {
			marked = true
			break
		}
	}
	if e.dirty || !marked {
		e.scans++
		for k := range e.marks {
			e.marks[k].Store(0)
		}
		for _, i := range e.fullList {
			e.listed[i] = false
		}
		e.fullList = e.fullList[:0]
		for _, i := range e.capped {
			if e.full[i] {
				e.fullList = append(e.fullList, i)
				e.listed[i] = true
			}
		}
		return
	}
	// The columns that became full, ascending (blocks in order, capped is sorted), and
	// whether any stopped being full.
	adds, removed := e.fullNext[:0], false
	for k := range e.marks {
		m := e.marks[k].Load()
		if m == 0 {
			continue
		}
		e.marks[k].Store(0)
		for ; m != 0; m &= m - 1 {
			b := k<<6 + bits.TrailingZeros64(m)
			for _, i := range e.capped[e.cappedAt[b]:e.cappedAt[b+1]] {
				if e.full[i] == e.listed[i] {
					continue
				}
				e.listed[i] = e.full[i]
				if e.full[i] {
					adds = append(adds, i)
				} else {
					removed = true
				}
			}
		}
	}
	if len(adds) == 0 && !removed {
		e.fullNext = adds
		return
	}
	// Merge: the listed columns that are still full, and the additions. The merged list
	// is built after the additions in the same buffer, then moved to its start.
	na := len(adds)
	next, a := adds, 0
	for _, i := range e.fullList {
		for a < na && adds[a] < i {
			next = append(next, adds[a])
			a++
		}
		if e.full[i] {
			next = append(next, i)
		}
	}
	next = append(next, adds[a:na]...)
	n := copy(next, next[na:])
	e.fullList, e.fullNext = next[:n], e.fullList
}

// indexHistory keeps the unified entries of the last rebuild (their final fluxes) as
// the history of the next lists and indexes them by opening.
func (e *extended) indexHistory() {
	if e.hMark == 1<<31-1 {
		clear(e.hStamp)
		e.hMark = 0
	}
	e.hMark++
	e.hist = e.hist[:0]
	for k, b := range e.uCol {
		next := int32(-1)
		if e.hStamp[b] == e.hMark {
			next = e.hHead[b]
		}
		e.hist = append(e.hist, histEntry{key: e.uKey[k], f: e.uF[k], next: next})
		e.hHead[b], e.hStamp[b] = int32(k), e.hMark
	}
	e.uCol, e.uKey, e.uF = e.uCol[:0], e.uKey[:0], e.uF[:0]
	e.uStart = append(e.uStart[:0], 0)
	e.uGap = e.uGap[:0]
}

// history is the flux the entry with this key had before the rebuild, or 0 if it is new.
func (e *extended) history(b int32, key uint64) float32 {
	if e.hStamp[b] != e.hMark {
		return 0
	}
	for k := e.hHead[b]; k >= 0; k = e.hist[k].next {
		if e.hist[k].key == key {
			return e.hist[k].f
		}
	}
	return 0
}

// changed tells whether a full flag flipped since the last rebuild.
func (e *extended) changed() bool {
	if e.dirty {
		return true
	}
	for _, f := range e.flips {
		if f != 0 {
			return true
		}
	}
	return false
}

// rawFluxes computes the extended pipes' raw fluxes (Eq. 1 with the pipe's length, or
// Eq. 8 and 9) and their sums per column, rebuilding the passages first if a full flag
// flipped.
func (e *extended) rawFluxes(h []float32, p *stepParams) {
	e.resetSums()
	if e.changed() {
		e.rebuild(h)
	}
	switch e.mode {
	case ExtendedUnified:
		e.unifiedRaw(h, p)
	case ExtendedAxis:
		e.axisRaw(h, p)
	}
}

// unifiedRaw computes the unified pipes' raw fluxes from their last final fluxes (Eq. 8
// and 9).
func (e *extended) unifiedRaw(h []float32, p *stepParams) {
	base := e.cols.Base
	for q := range len(e.uStart) - 1 {
		lo, hi := e.uStart[q], e.uStart[q+1]
		if lo == hi {
			continue
		}
		var hsum float32
		for _, b := range e.uCol[lo:hi] {
			hsum += h[b]
		}
		n := float32(hi - lo)
		mean, gap := hsum/n, e.uGap[q]
		var fsum float32
		for k := lo; k < hi; k++ {
			b := e.uCol[k]
			dh := h[b] - mean
			f := element.FlushFlux(p.Viscous(p.Zeta*e.uF[k]+p.Acceleration(dh, h[b]-base[b], gap)*dh, gap, gap))
			e.uF[k] = f
			fsum += f
		}
		meanF := fsum / n
		for k := lo; k < hi; k++ {
			u := e.uF[k] - meanF // Eq. 9: the fluxes around the passage sum to zero
			e.uF[k] = u
			e.addRaw(e.uCol[k], u)
		}
	}
}

// findRuns lists the axis pipes: along x and y, every run of pipe-connected full columns
// joins the non-full columns at its two ends.
func (e *extended) findRuns() {
	t := e.topo
	e.axis = e.axis[:0]
	for _, s := range e.fullList {
		for a := t.adjStart[s]; a < t.adjStart[s+1]; a++ {
			start := t.adjOther[a]
			if t.adjSign[a] > 0 || e.full[start] {
				continue // s must be the pipe's second end, entered from a non-full column
			}
			e.followRun(start, s, e.dirY[t.adjPipe[a]])
		}
	}
	// Branching runs can join the same ends twice: keep one (the first of a stable sort,
	// so the choice depends on nothing but the terrain and the heights).
	slices.SortStableFunc(e.axis, compareAxisPipe)
	e.axis = slices.CompactFunc(e.axis, func(x, y axisPipe) bool { return x.key == y.key })
	// History: last step's final fluxes, by the pipe's two ends.
	for k := range e.axis {
		ap := &e.axis[k]
		ap.f = 0
		if i, found := slices.BinarySearchFunc(e.aPrev, axisFlux{key: ap.key}, compareAxisFlux); found {
			ap.f = e.aPrev[i].f
		}
	}
}

// axisRaw computes the axis pipes' raw fluxes; each pipe's f holds its last final flux
// (set by final, or by findRuns for a rebuilt list).
func (e *extended) axisRaw(h []float32, p *stepParams) {
	c := e.cols
	for k := range e.axis {
		ap := &e.axis[k]
		a, b := ap.a, ap.b
		dh := h[a] - h[b]
		acc := p.Acceleration(dh, h[a]-c.Base[a], h[b]-c.Base[b]) / ap.cells
		ap.f = element.FlushFlux(p.Viscous(p.Zeta*ap.f+acc*dh, ap.gap, ap.gap))
		e.addRaw(a, ap.f)
		e.addRaw(b, -ap.f)
	}
}

// followRun walks the full columns from first (entered from the non-full start) along one
// axis and adds a pipe from start to every non-full column that ends the run.
func (e *extended) followRun(start, first int32, dirY bool) {
	t, c := e.topo, e.cols
	e.runStack = append(e.runStack[:0], axisRun{col: first, cells: 1, gapSum: c.Max[first] - c.Base[first]})
	for len(e.runStack) > 0 {
		r := e.runStack[len(e.runStack)-1]
		e.runStack = e.runStack[:len(e.runStack)-1]
		for a := t.adjStart[r.col]; a < t.adjStart[r.col+1]; a++ {
			if t.adjSign[a] < 0 || e.dirY[t.adjPipe[a]] != dirY {
				continue // only pipes leaving r.col forward along the axis
			}
			j := t.adjOther[a]
			if e.full[j] {
				e.runStack = append(e.runStack, axisRun{col: j, cells: r.cells + 1, gapSum: r.gapSum + c.Max[j] - c.Base[j]})
				continue
			}
			e.axis = append(e.axis, axisPipe{key: axisKey(start, j), a: start, b: j,
				cells: float32(r.cells + 1), gap: r.gapSum / float32(r.cells)})
		}
	}
}

// final computes the extended pipes' final fluxes from this step's K and S, balances each
// passage, and sums each column's net extended outflow into extNet. The balance is in
// float32, so a passage's fluxes can still sum to a rounding (about 1e-17 m^3/s): that
// leftover is put into the residual r of the passage's first opening, in float64, so that
// the volume, which counts r, is kept exactly.
func (e *extended) final(kk, ss, r []float32, p *stepParams) {
	switch e.mode {
	case ExtendedUnified:
		for q := range len(e.uStart) - 1 {
			lo, hi := e.uStart[q], e.uStart[q+1]
			var in, out float32
			for k := lo; k < hi; k++ {
				u, b := e.uF[k], e.uCol[k]
				if u > 0 {
					u *= kk[b] // leaves b: b's outflow scaling
					in += u
				} else {
					u *= ss[b] // enters b: b's inflow scaling
					out -= u
				}
				e.uF[k] = u
			}
			// What enters the passage leaves it: scale the larger side down.
			var sIn, sOut float32 = 1, 1
			if in > out {
				sIn = out / in
			} else if out > in {
				sOut = in / out
			}
			var left float64 // net outflow of the openings: what the passage would keep
			for k := lo; k < hi; k++ {
				u, b := e.uF[k], e.uCol[k]
				if u > 0 {
					u *= sIn
				} else {
					u *= sOut
				}
				e.uF[k] = u
				e.extNet[b] += u
				left += float64(u)
			}
			if left != 0 && hi > lo {
				b := e.uCol[lo]
				r[b] = float32(float64(r[b]) + left*p.DtOverDx2d)
			}
		}
	case ExtendedAxis:
		e.aPrev = e.aPrev[:0]
		for k := range e.axis {
			ap := &e.axis[k]
			a, b := ap.a, ap.b
			ap.f = element.FinalFlux(ap.f, kk[a], kk[b], ss[a], ss[b])
			e.extNet[a] += ap.f
			e.extNet[b] -= ap.f
			e.aPrev = append(e.aPrev, axisFlux{key: ap.key, f: ap.f}) // e.axis is sorted by key
		}
	}
}
