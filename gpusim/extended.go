package gpusim

import (
	"cmp"
	"slices"

	"github.com/vpbench/vpbench/terrain"
)

// Extended pipes: flow through fully flooded passages (METHOD.md, "Extended pipes";
// paper Sec. 3.3 and 7). Decisions (docs/solver.md, "Extended pipes"):
//
//   - A column can belong to a passage only if a solid caps it (Max below the domain top):
//     liquid reaching the domain's lid is not in a passage. Full means h >= Max - fullTol.
//   - Axis mode: the pipe joins the two non-full ends of a run of full columns; its length
//     l is the distance between the ends' cell centres ((run + 1) dx), so its head gradient
//     is the one across the passage. Unified mode: each boundary column has one pipe to its
//     passage with l = dx (Eq. 8 as printed), the passage acting as one node at the mean
//     head of its boundary columns.
//   - Viscosity in an extended pipe uses the passage's mean gap (Max - Base over its
//     columns) as H: the flow the pipe stands for runs inside the passage.
//   - Flux history: an axis pipe keeps its flux while the same two ends are joined; a
//     unified boundary column keeps its flux while it borders a passage, even when the
//     passage grows, shrinks or merges (Eq. 9's zero-mean correction then rebalances), so
//     openings appearing elsewhere do not reset the flow. New pipes start at zero.
//   - Scaling: extended outflows count in K and extended inflows in S (the hub's side of a
//     unified pipe with K = 1, which can only make S smaller). After scaling, the larger
//     side of each passage (what enters or what leaves) is scaled down to the other, so
//     what enters a passage leaves it in the same step.
//
// The work is serial (worker 0) and touches only capped columns, passages and their
// boundaries; the kernels read the results through the per-column sums extOut, extIn
// (raw outflow and inflow, for K and S) and extNet (final net outflow, for the heights).
type extended struct {
	mode    ExtendedPipes
	cols    *terrain.Columns
	topo    *topology
	capped  []int32 // columns a solid caps: the only ones that can be full
	dirY    []bool  // per pipe: true if it joins +y neighbours (else +x)
	fullTol float32
	step    int32 // counts rawFluxes calls; stamps history

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
	queue    []int32
	fullList []int32
	seenMark int32

	// Unified mode: one entry per (boundary column, passage) with two or more openings.
	uCol   []int32
	uStart []int32 // entries of passage p: uStart[p] .. uStart[p+1]-1
	uF     []float32
	uPrev  []float32 // per column: last step's final flux of its unified pipe(s)
	uAt    []int32   // per column: the step uPrev was written

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

type axisRun struct {
	col    int32
	cells  int32
	gapSum float32
}

func axisKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func compareAxisPipe(x, y axisPipe) int { return cmp.Compare(x.key, y.key) }
func compareAxisFlux(x, y axisFlux) int { return cmp.Compare(x.key, y.key) }

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
		mode: mode, cols: c, topo: t, capped: capped,
		dirY:      make([]bool, t.numPipes()),
		fullTol:   float32(1e-4 * c.Dx),
		full:      make([]bool, n),
		label:     make([]int32, n),
		seen:      make([]int32, n),
		isTouched: make([]bool, n),
		extOut:    make([]float32, n),
		extIn:     make([]float32, n),
		extNet:    make([]float32, n),
		uPrev:     make([]float32, n),
		uAt:       make([]int32, n),
		pStart:    []int32{0},
	}
	for i := range e.label {
		e.label[i] = -1
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
	e.step += 2 // no unified history matches
	e.aPrev = e.aPrev[:0]
	e.reset()
	e.uCol, e.uStart, e.axis = e.uCol[:0], e.uStart[:0], e.axis[:0]
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

// reset clears the per-column sums and labels of the last step.
func (e *extended) reset() {
	for _, i := range e.touched {
		e.extOut[i], e.extIn[i], e.extNet[i] = 0, 0, 0
		e.isTouched[i] = false
	}
	e.touched = e.touched[:0]
	for _, i := range e.members {
		e.label[i] = -1
	}
	e.members = e.members[:0]
	e.pStart = append(e.pStart[:0], 0)
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

// detect finds this step's passages: connected sets of full columns joined by pipes.
func (e *extended) detect(h []float32) {
	e.reset()
	top := e.cols.Max
	e.fullList = e.fullList[:0]
	for _, i := range e.capped {
		f := h[i] >= top[i]-e.fullTol
		e.full[i] = f
		if f {
			e.fullList = append(e.fullList, i)
		}
	}
	t := e.topo
	for _, s := range e.fullList {
		if e.label[s] >= 0 {
			continue
		}
		p := int32(len(e.pStart) - 1)
		e.label[s] = p
		e.queue = append(e.queue[:0], s)
		for q := 0; q < len(e.queue); q++ {
			i := e.queue[q]
			e.members = append(e.members, i)
			for a := t.adjStart[i]; a < t.adjStart[i+1]; a++ {
				if j := t.adjOther[a]; e.full[j] && e.label[j] < 0 {
					e.label[j] = p
					e.queue = append(e.queue, j)
				}
			}
		}
		e.pStart = append(e.pStart, int32(len(e.members)))
	}
}

// gapOf is the mean gap (Max - Base) of passage p, m.
func (e *extended) gapOf(p int) float32 {
	var s float32
	ms := e.members[e.pStart[p]:e.pStart[p+1]]
	for _, i := range ms {
		s += e.cols.Max[i] - e.cols.Base[i]
	}
	return s / float32(len(ms))
}

// rawFluxes detects the passages and computes the extended pipes' raw fluxes (Eq. 1 with
// the pipe's length, or Eq. 8 and 9) and their sums per column.
func (e *extended) rawFluxes(h []float32, p *stepParams) {
	e.step++
	e.detect(h)
	switch e.mode {
	case ExtendedUnified:
		e.unifiedRaw(h, p)
	case ExtendedAxis:
		e.axisRaw(h, p)
	}
}

func (e *extended) unifiedRaw(h []float32, p *stepParams) {
	t, base := e.topo, e.cols.Base
	e.uCol, e.uF = e.uCol[:0], e.uF[:0]
	e.uStart = append(e.uStart[:0], 0)
	for q := range len(e.pStart) - 1 {
		e.seenMark++
		first := len(e.uCol)
		var hsum float32
		for _, i := range e.members[e.pStart[q]:e.pStart[q+1]] {
			for a := t.adjStart[i]; a < t.adjStart[i+1]; a++ {
				b := t.adjOther[a]
				if e.full[b] || e.seen[b] == e.seenMark {
					continue
				}
				e.seen[b] = e.seenMark
				e.uCol = append(e.uCol, b)
				hsum += h[b]
			}
		}
		n := len(e.uCol) - first
		if n < 2 { // a single opening: nothing can flow through
			e.uCol = e.uCol[:first]
			e.uStart = append(e.uStart, int32(first))
			continue
		}
		gap := e.gapOf(q)
		mean := hsum / float32(n)
		var fsum float32
		for _, b := range e.uCol[first:] {
			var prev float32
			if e.uAt[b] == e.step-1 {
				prev = e.uPrev[b]
			}
			dh := h[b] - mean
			f := p.viscous(p.zeta*prev+p.acceleration(dh, h[b]-base[b], gap)*dh, gap, gap)
			e.uF = append(e.uF, f)
			fsum += f
		}
		meanF := fsum / float32(n)
		for k := first; k < len(e.uCol); k++ {
			e.uF[k] -= meanF // Eq. 9: the fluxes around the passage sum to zero
			e.addRaw(e.uCol[k], e.uF[k])
		}
		e.uStart = append(e.uStart, int32(len(e.uCol)))
	}
}

func (e *extended) axisRaw(h []float32, p *stepParams) {
	t, c := e.topo, e.cols
	e.axis = e.axis[:0]
	// Every non-full column with a pipe in +x or +y into a full column starts a run.
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
	// so the choice does not depend on anything but the terrain and the heights).
	slices.SortStableFunc(e.axis, compareAxisPipe)
	e.axis = slices.CompactFunc(e.axis, func(x, y axisPipe) bool { return x.key == y.key })
	for k := range e.axis {
		ap := &e.axis[k]
		var prev float32
		if i, found := slices.BinarySearchFunc(e.aPrev, axisFlux{key: ap.key}, compareAxisFlux); found {
			prev = e.aPrev[i].f
		}
		a, b := ap.a, ap.b
		dh := h[a] - h[b]
		acc := p.acceleration(dh, h[a]-c.Base[a], h[b]-c.Base[b]) / ap.cells
		ap.f = p.viscous(p.zeta*prev+acc*dh, ap.gap, ap.gap)
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
// passage, and sums each column's net extended outflow into extNet.
func (e *extended) final(kk, ss []float32) {
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
			for k := lo; k < hi; k++ {
				u, b := e.uF[k], e.uCol[k]
				if u > 0 {
					u *= sIn
				} else {
					u *= sOut
				}
				e.uF[k] = u
				e.extNet[b] += u
				if e.uAt[b] != e.step {
					e.uAt[b], e.uPrev[b] = e.step, 0
				}
				e.uPrev[b] += u
			}
		}
	case ExtendedAxis:
		e.aPrev = e.aPrev[:0]
		for k := range e.axis {
			ap := &e.axis[k]
			a, b := ap.a, ap.b
			ap.f = finalFlux(ap.f, kk[a], kk[b], ss[a], ss[b])
			e.extNet[a] += ap.f
			e.extNet[b] -= ap.f
			e.aPrev = append(e.aPrev, axisFlux{key: ap.key, f: ap.f}) // e.axis is sorted by key
		}
	}
}
