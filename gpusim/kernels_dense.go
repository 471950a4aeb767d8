package gpusim

import (
	"math"

	"github.com/vpbench/vpbench/gpusim/internal/element"
	"github.com/vpbench/vpbench/gpusim/internal/rows"
)

// The dense layout, for terrains with exactly one column per cell and every pair of
// neighbours joined by a pipe (a single-layer terrain with no fully solid cell): column i
// is cell i = y*nx + x, and its pipes are found by index arithmetic instead of lists,
// which makes every access sequential.
//
// The flux of the +x pipe of column i is fx[i+1] and that of its +y pipe fy[i+nx]: both
// arrays carry one leading row (fy) or entry (fx) of zeros, so the -x pipe of i is fx[i]
// and its -y pipe fy[i], with no edge test. Pipes that do not exist (the +x pipe of the
// last column of a row, the +y pipes of the last row) stay zero; a zero flux adds exactly
// nothing to the sums, so the results are bit-identical to the general layout.
//
// One sweep a step. Once its arithmetic is vectorized (the row kernels of internal/rows,
// in AVX2 on amd64) a large grid's step is bound by memory traffic, so it reads the
// state once and writes it once: about BytesPerColumnStep bytes a column, against 92 for
// the two sweeps through full-size arrays of raw fluxes, K and S that it replaced. A
// worker walks its rows in order; at front row y it computes
//
//	the raw fluxes of row y's +x and +y pipes (old h of rows y and y+1, old fx, fy),
//	K of row y (raw fluxes of rows y-1 and y),
//	S of row y-1 (K of rows y-2..y), for the few columns that may overflow (for every
//	column of a row where many may: inflowRow),
//	the final fluxes of row y-1's +x pipes and row y-2's +y pipes, into fx and fy,
//	the heights of row y-2 (final fluxes of rows y-3..y-2), in place.
//
// Raw fluxes, K and S live in rings of four rows (a few KiB, in L1/L2), never in
// full-size arrays. Updating h, r, fx and fy in place is safe because a row's old values
// are last read at a front row no later than the one that overwrites them.
//
// Workers own contiguous rows. A worker's first rows need K and S of the three rows
// below its range, and its last row's +y pipe needs K and S of the two rows after it:
// those come from the old state of three rows on each side (four with the capillary head
// in the sweep: capRow reads the rows beside the outermost it computes), which their
// owners overwrite during their own sweeps. So each worker, at the end of its sweep, publishes copies of
// the rows its neighbours read (h, r, fx, fy) into one of two buffers, used in turn by
// step parity; its neighbours' next sweep reads them there and recomputes those rows' raw
// fluxes, K and S with the same arithmetic, so the same bits as their owners. The pipe
// between two workers is computed by both; the worker owning its first row writes it, the
// other keeps its copy for its height update. A step is then one barrier (plus one per
// Step call, before the first sweep, to publish the state as it was set).
//
// Sources and sinks act on a column right after its owner's sweep, in the emitters'
// order, with the arithmetic of emitterSet.apply (denseEmit; the general layout calls
// apply itself, and TestDenseLayoutMatchesGeneral compares the two); each target's
// booked volumes are kept and worker 0 adds them up in the emitters' order, so the
// accounting has the same bits as apply's, with no barrier and no serial section.

// capRing is the number of rows of the ring of driving heights (a power of two): two are
// read at a time, and capAhead writes up to capBlock more ahead of them.
const capRing = 8

// capBlock is the most rows capAhead takes in one call.
const capBlock = 4

// drvRow is row y of the ring of driving heights (rows nx wide).
func (d *denseWork) drvRow(y, nx int) []float32 {
	k := y % capRing * nx
	return d.drv[k : k+nx]
}

// denseHaloRows is the number of old-state rows a worker reads on each side of its range:
// three for the fluxes, K and S, and one more for the capillary head of the outermost
// (capRow: a column's head reads its neighbours' heights).
const denseHaloRows = 4

// ringRows is the number of rows each ring holds (row y in slot y%ringRows, or
// y&(ringRows-1): a power of two): three are in use at a time.
const ringRows = 4

// denseGrid holds the dense layout's fluxes (the final ones: the state) and the workers'
// private buffers.
type denseGrid struct {
	nx, ny int
	fx     []float32 // len nx*ny + 1
	fy     []float32 // len nx*ny + nx
	zero   []float32 // nx+2 zeros: the raw fluxes and K outside the grid
	work   []*denseWork
	// pubSlot[y] is row y's slot in pub, -1 for a row no neighbour reads; pub[parity][slot]
	// holds the row's h, r, +x fluxes (nx: [x] is the +x pipe of column x) and +y fluxes.
	pubSlot []int32
	pub     [2][][4][]float32
	em      denseEmitters
	// absent is nx floats of +Inf and noFlags nx zeros: the row before the first and after
	// the last for the capillary head (rows.Absent).
	absent  []float32
	noFlags []uint8
	// span and spanNext hold, for row y at [2y] and [2y+1], the first and last column of
	// the row that is not still (stillSpan) at the start of the next step, -1 and -1 where
	// every column is; a step reads one and its sweep writes the other for its workers'
	// rows, in turn by step parity (denseSwap swaps them after an odd number of steps),
	// and anything that changes the state from outside the sweep widens them (stillReset,
	// stillColumns). skip is false where every column is swept (tests:
	// backendOptions.noSkip).
	span, spanNext []int32
	skip           bool
	// poison makes denseRange fill its rings with NaN before it starts (tests: a value
	// read that the range did not compute shows in the results).
	poison bool
}

// denseEmitters is the emitter set the workers' target lists were made for, the lists,
// and per target what it booked in the last two steps (by step parity).
type denseEmitters struct {
	set  *emitterSet
	gen  uint64
	emOf []int32 // target k's emitter
	kind [2][]uint8
	v    [2][][2]float64
}

// Kinds of what a target booked (denseEmit).
const (
	bookNone    = iota // inactive
	bookFull           // a source filled the column: added v[0], rejected v[1]
	bookEmptied        // a sink emptied the column: removed v[0]
	bookAdded          // added v[0]
	bookRemoved        // removed -v[0]
)

// denseWork is one worker's rings and scratch (separate allocations per worker, so
// workers never share a cache line).
type denseWork struct {
	y0, y1 int // rows owned
	// Rings, row y in slot y%ringRows: raw +x fluxes (nx+1 values: [0] and [nx] are the
	// absent pipes, zero; [x+1] is the +x pipe of column x), raw +y fluxes (nx), K (nx+2:
	// [x+1] is column x's, the ends are zero padding) and S (nx).
	rx, ry, k, s [ringRows][]float32
	flags        [ringRows][]int32 // columns of the row (x) whose S inflowRow sets
	all          [ringRows]bool    // inflowRow sets S for the whole row (and flags)
	mask         []uint8           // OutflowRow's scratch: one bit a column
	// halo is the pub buffer the sweep in progress reads the other workers' rows from.
	halo [][4][]float32
	// fyLow is the final flux of the +y pipes of row y0-1, which the worker below writes.
	fyLow []float32
	// targets are the emitter targets (indices into emitterSet.tCol) in the worker's rows,
	// in the emitters' order.
	targets []int32
	// tgtYX is each target's row and column in the row (of the columns of emitterSet.tCol
	// and dCol, in targets' order, two int32 each), for denseEmit's spans.
	tgtYX []int32
	// The capillary head in the sweep (capRow), with surface tension on and no capillary
	// pressure: cap says so for the step in progress, capP are its constants, drv the
	// ring of driving heights (row y in slot y%ringRows), wetA and prevA the wetted flags
	// and heights at the last step's start that the step reads, wetB and prevB those it
	// writes for the next step (capState's, in turn by step parity), dryY, dryF and dryL
	// which rows hold a dry column and where (row dryY[y%4]: the cache of capDryRow), scrNext and scrKeep
	// what capRow writes for a row the worker does not own.
	cap  bool
	capP rows.CapParams
	drv  []float32 // capRing rows, row y at (y%capRing)*nx (drvRow)
	// drvLow says which rows of the ring have a driving depth the contact-line law reads
	// as dry; where neither end of a row's pipes does, the law changes none of their
	// fluxes and the raw fluxes are computed without it (dryP: the step's parameters,
	// Wet 0), which gives the same bits.
	drvLow [capRing]bool
	dryP   element.Params
	// drvDone is the last row whose driving heights the ring holds for this step; fast
	// says the last row's head took the fast way (capAhead then tries several rows at once).
	drvDone int
	fast    bool
	// spanA and spanB are the spans the step reads and those it writes (denseGrid);
	// skipped counts the rows denseSweep left alone (tests and benchmarks read it). xa
	// and xe are the driving heights' columns [xa, xe) the range being swept computes
	// (capRow).
	spanA, spanB []int32
	live         []int32 // row y's live columns [live[2y], live[2y+1]] (denseLive), for denseRange
	skipped      int64
	swept        int64 // the columns denseRange swept (rows times columns of its ranges)
	narrow       int64 // the ranges denseRange swept over fewer than all columns
	xa, xe       int
	wetA, wetB   []uint8
	prevA, prevB []float32
	dryY         [4]int
	dryF, dryL   [4]int // row dryY[k]'s first and last dry column (-1: none)
	scrNext      []uint8
	scrKeep      []float32
	_            [64]byte // flags and all change every row: keep another worker's struct off the line
}

func newDenseGrid(nx, ny int) *denseGrid {
	n := nx * ny
	g := &denseGrid{nx: nx, ny: ny,
		fx: make([]float32, n+1), fy: make([]float32, n+nx), zero: make([]float32, nx+2),
		absent: make([]float32, nx), noFlags: make([]uint8, nx)}
	for x := range nx {
		g.absent[x] = rows.Absent
	}
	return g
}

// setWorkers gives each of the n workers its rows (ranges) and private buffers.
func (g *denseGrid) setWorkers(ranges [][2]int) {
	nx := g.nx
	g.work = make([]*denseWork, len(ranges))
	for w, r := range ranges {
		d := &denseWork{y0: r[0], y1: r[1], fyLow: make([]float32, nx), mask: make([]uint8, nx/8+1),
			scrNext: make([]uint8, nx), scrKeep: make([]float32, nx), live: make([]int32, 2*g.ny)}
		d.drv = make([]float32, capRing*nx)
		for i := range ringRows {
			d.rx[i] = make([]float32, nx+1)
			d.ry[i] = make([]float32, nx)
			d.k[i] = make([]float32, nx+2)
			d.s[i] = make([]float32, nx)
			d.flags[i] = make([]int32, 0, nx)
		}
		g.work[w] = d
	}
	// Publish the rows some worker reads outside its range: the three on each side of it.
	g.pubSlot = make([]int32, g.ny)
	for y := range g.pubSlot {
		g.pubSlot[y] = -1
	}
	for _, r := range ranges {
		if r[0] == r[1] {
			continue
		}
		for y := r[0] - denseHaloRows; y < r[1]+denseHaloRows; y++ {
			if y >= 0 && y < g.ny && (y < r[0] || y >= r[1]) {
				g.pubSlot[y] = 0
			}
		}
	}
	slots := int32(0)
	for y, p := range g.pubSlot {
		if p == 0 {
			g.pubSlot[y] = slots
			slots++
		}
	}
	for p := range g.pub {
		g.pub[p] = make([][4][]float32, slots)
		for i := range g.pub[p] {
			for a := range 4 {
				g.pub[p][i][a] = make([]float32, nx)
			}
		}
	}
	g.em = denseEmitters{}
	g.span, g.spanNext = make([]int32, 2*g.ny), make([]int32, 2*g.ny)
	g.widen(g.span, 0, g.nx-1)
	g.widen(g.spanNext, 0, g.nx-1)
}

// isDense tells whether a topology can use the dense layout.
func isDense(t *topology) bool {
	c := t.cols
	for k, s := range c.CellStart {
		if int(s) != k {
			return false
		}
	}
	return t.numPipes() == (c.Nx-1)*c.Ny+c.Nx*(c.Ny-1)
}

// pipe returns the (final) flux slot of the pipe from column a to column b (b = a+1 or
// a+nx; with nx = 1 both, and the pipe is a +y one).
func (g *denseGrid) pipe(a, b int) *float32 {
	if b == a+1 && b%g.nx != 0 {
		return &g.fx[a+1]
	}
	return &g.fy[a+g.nx]
}

// runDense is worker w's share of n steps in the dense layout: publish its boundary
// rows, a barrier, then per step its sweep, its sources and sinks, its boundary rows
// published for the next step, and a barrier.
func (c *cpuBackend) runDense(w, n int) {
	g := c.dense
	d := g.work[w]
	emit := c.em != nil && c.em.any()
	t := c.t
	c.densePublish(w, 0)
	c.bar.wait()
	fused := c.capFused()
	d.cap = fused
	for k := range n {
		d.spanA, d.spanB = g.span, g.spanNext
		if k%2 == 1 {
			d.spanA, d.spanB = d.spanB, d.spanA
		}
		if fused {
			c.capStep(d, k)
		} else if c.p.cap.on { // with the capillary pressure: its own pass, before the sweep
			c.capColumns(d.y0*g.nx, d.y1*g.nx, k == 0 && c.capSt.fresh)
		}
		d.halo = g.pub[k%2]
		if emit && w == 0 && k > 0 {
			c.denseBook((k - 1) % 2)
		}
		c.denseSweep(w)
		if emit {
			c.denseEmit(w, t, k%2)
		}
		c.densePublish(w, (k+1)%2)
		t += c.p.dt
		c.bar.wait()
	}
	if w == 0 {
		if emit && n > 0 {
			c.denseBook((n - 1) % 2)
		}
		c.t = t
	}
}

// densePublish copies worker w's boundary rows into pub[parity].
func (c *cpuBackend) densePublish(w, parity int) {
	g := c.dense
	d, nx := g.work[w], g.nx
	for y := d.y0; y < d.y1; y++ {
		i := g.pubSlot[y]
		if i < 0 {
			continue
		}
		lo := y * nx
		b := &g.pub[parity][i]
		copy(b[0], c.h[lo:lo+nx])
		copy(b[1], c.r[lo:lo+nx])
		copy(b[2], g.fx[lo+1:lo+1+nx])
		copy(b[3], g.fy[lo+nx:lo+2*nx])
	}
}

// oldRows returns the old h, r, +x fluxes (nx: [x] is column x's +x pipe) and +y fluxes
// of row y, from the state or, outside the worker's rows, the rows their owners published.
func (c *cpuBackend) oldRows(d *denseWork, y int) (h, r, fx, fy []float32) {
	g := c.dense
	nx := g.nx
	if y < d.y0 || y >= d.y1 {
		b := &d.halo[g.pubSlot[y]]
		return b[0], b[1], b[2], b[3]
	}
	lo := y * nx
	return c.h[lo : lo+nx], c.r[lo : lo+nx], g.fx[lo+1 : lo+1+nx], g.fy[lo+nx : lo+2*nx]
}

// prepareEmitters makes the workers' target lists for em, if they are not made for it
// yet (this allocates, once per change of the emitters; Step then does not).
func (g *denseGrid) prepareEmitters(em *emitterSet) {
	if em == nil || (g.em.set == em && g.em.gen == em.gen) {
		return
	}
	// Targets n.. are the open sides' drains (target n+j is drain j), after every
	// emitter's: apply's order.
	n := len(em.tCol)
	g.em = denseEmitters{set: em, gen: em.gen, emOf: make([]int32, n)}
	for p := range 2 {
		g.em.kind[p] = make([]uint8, n+len(em.dCol))
		g.em.v[p] = make([][2]float64, n+len(em.dCol))
	}
	for _, d := range g.work {
		d.targets, d.tgtYX = d.targets[:0], d.tgtYX[:0]
	}
	for e := range em.list {
		for k := em.tStart[e]; k < em.tStart[e+1]; k++ {
			g.em.emOf[k] = int32(e)
			y := int(em.tCol[k]) / g.nx
			for _, d := range g.work {
				if y >= d.y0 && y < d.y1 {
					d.targets, d.tgtYX = append(d.targets, k), append(d.tgtYX, int32(y), em.tCol[k]-int32(y*g.nx))
				}
			}
		}
	}
	for j, c := range em.dCol {
		y := int(c) / g.nx
		for _, d := range g.work {
			if y >= d.y0 && y < d.y1 {
				d.targets, d.tgtYX = append(d.targets, int32(n+j)), append(d.tgtYX, int32(y), c-int32(y*g.nx))
			}
		}
	}
}

// denseEmit applies the sources and sinks active at time t to worker w's target columns,
// after its sweep: emitterSet.apply's arithmetic, column by column in the same order; what
// each target books is kept (in parity's slots) for denseBook.
func (c *cpuBackend) denseEmit(w int, t float64, parity int) {
	g := c.dense
	s, dt, dx2 := g.em.set, c.p.dt, c.p.dx2
	kinds, vs := g.em.kind[parity], g.em.v[parity]
	h, r, base, top := c.h, c.r, c.base, c.top
	nt := int32(len(s.tCol))
	d := g.work[w]
	for _, k := range d.targets {
		if k >= nt { // an open side's drain (emitterSet.applyDrains)
			kinds[k] = bookNone
			if v, ok := s.drain(int(k-nt), dx2, h, r, base); ok {
				kinds[k], vs[k] = bookOutflow, [2]float64{v}
			}
			continue
		}
		e := g.em.emOf[k]
		em := &s.list[e]
		d := em.overlap(t, dt)
		if !s.active[e] || em.Rate == 0 || d == 0 {
			kinds[k] = bookNone
			continue
		}
		v := em.Rate * d
		i := s.tCol[k]
		want := v * s.tWeight[k]
		old := float64(h[i]) + float64(r[i])
		if em.Holds {
			want = em.held(want, old, dx2)
		}
		target := old + want/dx2
		switch {
		case want > 0 && target >= float64(top[i]):
			put := (float64(top[i]) - old) * dx2
			h[i], r[i] = top[i], 0
			kinds[k], vs[k] = bookFull, [2]float64{put, want - put}
		case want < 0 && target <= float64(base[i]):
			kinds[k], vs[k] = bookEmptied, [2]float64{(old - float64(base[i])) * dx2}
			h[i], r[i] = base[i], 0
		default:
			nh := float32(target)
			h[i], r[i] = nh, float32(target-float64(nh))
			if want > 0 {
				kinds[k], vs[k] = bookAdded, [2]float64{want}
			} else {
				kinds[k], vs[k] = bookRemoved, [2]float64{want}
			}
		}
	}
	sp, yx := d.spanB, d.tgtYX[:2*len(d.targets)]
	for t, k := range d.targets { // a column a target changed is no longer still (denseSweep)
		if kinds[k] != bookNone {
			y, x := int(yx[2*t]), yx[2*t+1]
			if f := sp[2*y]; f < 0 || x < f || x > sp[2*y+1] {
				g.widenRow(sp, y, int(x), int(x))
			}
		}
	}
}

// denseBook adds what the targets booked in a step (parity's slots) to the accounting, in
// the emitters' order: the same additions in the same order as emitterSet.apply's.
func (c *cpuBackend) denseBook(parity int) {
	em := &c.dense.em
	a := &c.acct
	for k, kind := range em.kind[parity] {
		v := em.v[parity][k]
		switch kind {
		case bookFull:
			a.added += v[0]
			a.rejected += v[1]
		case bookEmptied:
			a.removed += v[0]
		case bookAdded:
			a.added += v[0]
		case bookRemoved:
			a.removed -= v[0]
		case bookOutflow:
			a.outflow += v[0]
		}
	}
}

// rawRows computes the raw fluxes of row y's +x pipes [ra, re) (pipe x joins columns x
// and x+1) into the ring's rx row and, unless y is the last row, of its +y pipes of
// columns [ka, ke) into its ry row.
func (c *cpuBackend) rawRows(d *denseWork, y, ra, re, ka, ke int) {
	g := c.dense
	nx := g.nx
	lo := y * nx
	h, _, fx, fy := c.oldRows(d, y)
	p := &c.p.Params
	if d.cap { // the driving heights h + X (capRow): the ring's rows y and y+1
		h = d.drvRow(y, nx)
		if !d.drvLow[y%capRing] {
			p = &d.dryP // no end dry: the contact-line law changes nothing
		}
	} else if c.p.cap.on { // with the capillary pressure: a full array nobody writes in the sweep
		h = c.capSt.drive[lo : lo+nx]
	}
	b := c.base[lo : lo+nx]
	slot := y % ringRows
	full := ra == 0 && re == nx-1 && ka == 0 && ke == nx
	switch {
	case full && nx > 1: // the whole row (the same call, fewer slice expressions)
		c.rows.RawFluxRow(p, d.rx[slot][1:nx], fx[:nx-1], h[:nx-1], h[1:], b[:nx-1], b[1:])
	case ra < re:
		c.rows.RawFluxRow(p, d.rx[slot][1+ra:1+re], fx[ra:re], h[ra:re], h[ra+1:re+1], b[ra:re], b[ra+1:re+1])
	}
	if y+1 < g.ny {
		var hu []float32
		switch {
		case d.cap:
			hu = d.drvRow(y+1, nx)
			if d.drvLow[(y+1)%capRing] {
				p = &c.p.Params
			}
		case c.p.cap.on:
			hu = c.capSt.drive[lo+nx : lo+2*nx]
		default:
			hu, _, _, _ = c.oldRows(d, y+1)
		}
		bu := c.base[lo+nx : lo+2*nx]
		if full {
			c.rows.RawFluxRow(p, d.ry[slot], fy, h, hu, b, bu)
		} else {
			c.rows.RawFluxRow(p, d.ry[slot][ka:ke], fy[ka:ke], h[ka:ke], hu[ka:ke], b[ka:ke], bu[ka:ke])
		}
	}
}

// ryRow is the ring's raw +y flux row y, zeros outside the grid's pipes.
func (g *denseGrid) ryRow(d *denseWork, y int) []float32 {
	if y < 0 || y >= g.ny-1 {
		return g.zero[:g.nx]
	}
	return d.ry[y%ringRows]
}

// kRow is the ring's padded K row y, zeros outside the grid.
func (g *denseGrid) kRow(d *denseWork, y int) []float32 {
	if y < 0 || y >= g.ny {
		return g.zero
	}
	return d.k[y%ringRows]
}

// denseSweep is worker w's sweep over its rows. Where every column is swept (noSkip) it
// is denseRange over them all. Else the columns that are dead (a column still at the
// step's start with its neighbours still: denseDead) are left alone, and the others are
// swept in ranges of rows, each over the columns from the first to the last one of its
// rows that is not dead (denseRange with an x-range): a range reads the old state of the
// rows and columns beside it (four rows on each side, four columns), which are dead and
// so unchanged. Two ranges are kept apart by more than that: a run of four dead rows or
// fewer between rows that are not is swept too.
func (c *cpuBackend) denseSweep(w int) {
	g := c.dense
	d := g.work[w]
	if d.y0 == d.y1 {
		return
	}
	if !g.skip {
		c.denseRange(d, d.y0, d.y1, 0, g.nx)
		return
	}
	for y := d.y0; y < d.y1; y++ {
		lo, hi := c.denseLive(d, y)
		d.live[2*y], d.live[2*y+1] = int32(lo), int32(hi)
	}
	for y := d.y0; y < d.y1; {
		if d.live[2*y] > d.live[2*y+1] { // a dead row: unchanged, and still
			d.spanB[2*y], d.spanB[2*y+1] = -1, -1
			d.skipped++
			y++
			continue
		}
		y0, last := y, y
		a, e := g.nx, -1
		for r := y; r < d.y1 && r-last <= denseHaloRows; r++ {
			if lo, hi := int(d.live[2*r]), int(d.live[2*r+1]); lo <= hi {
				last, a, e = r, min(a, lo), max(e, hi)
			}
		}
		c.denseRange(d, y0, last+1, a, e+1)
		y = last + 1
	}
}

// denseLive is the first and last column of row y that is not dead (lo > hi where every
// column is). A column is dead where it and its neighbours were still at the step's start
// (their spans, denseGrid.span): every pipe of it then joins two columns of depth exactly
// 0, whose outflow factor is 0 wherever the pipe's flux leaves them, so its final fluxes
// are +0 (as stored) and its height and residual stay as they are; with the capillary
// head in the sweep its wetted flag stays 0 and its last-step height h. The sweep would
// write exactly what is there.
func (c *cpuBackend) denseLive(d *denseWork, y int) (lo, hi int) {
	g := c.dense
	a := d.spanA
	if a[2*y] == 0 && int(a[2*y+1]) == g.nx-1 { // a row that is not still at either end
		return 0, g.nx - 1
	}
	lo, hi = g.nx, -1
	if f := int(a[2*y]); f >= 0 {
		lo, hi = f-1, int(a[2*y+1])+1
	}
	for _, r := range [2]int{y - 1, y + 1} {
		if r >= 0 && r < g.ny {
			if f := int(a[2*r]); f >= 0 {
				lo, hi = min(lo, f), max(hi, int(a[2*r+1]))
			}
		}
	}
	return max(lo, 0), min(hi, g.nx-1)
}

// denseRange is the sweep of worker d over its rows [y0, y1) and their columns [xa, xe)
// (see the file comment): front rows from two before the range (their K and S) to one
// after it (K of the row after, for S of the first row after, for the final flux of its
// last row's +y pipes), and two more to finish when the range ends the grid; along a
// row, the driving heights of three columns on each side of [xa, xe), the raw fluxes and
// K of two, S of one, the final fluxes of the pipes of [xa, xe)'s columns and their
// heights. Rows and columns outside the range are read as they were at the step's start:
// the worker's own there are dead (denseSweep) or beyond its rows (published: oldRows).
// Over whole rows ([0, nx)) it is the sweep of the worker's rows.
func (c *cpuBackend) denseRange(d *denseWork, y0, y1, xa, xe int) {
	g, p := c.dense, &c.p.Params
	nx, ny := g.nx, g.ny
	// The columns of each stage (clamped to the row): K and the +y raw fluxes [ka, ke),
	// the +x raw fluxes' pipes [ra, re) (pipe x joins columns x and x+1), S [sa, se), the
	// final +x fluxes' pipes [fa, fe).
	ka, ke := max(xa-2, 0), min(xe+2, nx)
	ra, re := max(xa-3, 0), min(xe+2, nx-1)
	sa, se := max(xa-1, 0), min(xe+1, nx)
	fa, fe := max(xa-1, 0), min(xe, nx-1)
	full := xa == 0 && xe == nx
	d.xa, d.xe = max(xa-3, 0), min(xe+3, nx)
	d.swept += int64((y1 - y0) * (xe - xa))
	if xe-xa < nx {
		d.narrow++
	}
	if g.poison {
		nan := float32(math.NaN())
		for i := range ringRows {
			for _, v := range [][]float32{d.rx[i][1:nx], d.ry[i], d.k[i][1 : nx+1], d.s[i], d.fyLow} {
				for j := range v {
					v[j] = nan
				}
			}
		}
		for j := range d.drv {
			d.drv[j] = nan
		}
	}
	first := max(y0-2, 0)
	if d.cap { // the driving heights the first raw fluxes read
		d.fast = false
		if first > 0 {
			c.capRow(d, first-1)
		}
		c.capRow(d, first)
		d.drvDone = first
	}
	if first > 0 { // the raw +y fluxes of the row above the first front row
		c.rawRows(d, first-1, ra, re, ka, ke)
	}
	for y := first; y <= y1+1; y++ {
		if y < ny {
			if d.cap && y+1 < ny && d.drvDone < y+1 { // the driving heights row y's +y pipes read
				c.capAhead(d, y+1)
			}
			// Raw fluxes and K of front row y.
			c.rawRows(d, y, ra, re, ka, ke)
			slot := y % ringRows
			lo := y * nx
			h, r, _, _ := c.oldRows(d, y)
			rx := d.rx[slot]
			if full { // the whole row (the same calls, fewer slice expressions)
				d.flags[slot], d.all[slot] = c.rows.OutflowRow(p, d.k[slot][1:nx+1], d.s[slot], g.ryRow(d, y-1), rx,
					g.ryRow(d, y), h, r, c.base[lo:lo+nx], c.top[lo:lo+nx], d.flags[slot][:0], d.mask)
			} else {
				flags, all := c.rows.OutflowRow(p, d.k[slot][1+ka:1+ke], d.s[slot][ka:ke], g.ryRow(d, y-1)[ka:ke], rx[ka:ke+1],
					g.ryRow(d, y)[ka:ke], h[ka:ke], r[ka:ke], c.base[lo+ka:lo+ke], c.top[lo+ka:lo+ke], d.flags[slot][:0], d.mask)
				for i := range flags {
					flags[i] += int32(ka) // the row's columns
				}
				d.flags[slot], d.all[slot] = flags, all
			}
		}
		if ys := y - 1; ys >= y0-1 && ys >= 0 && ys < ny {
			c.inflowRow(d, ys, sa, se)
		}
		if yx := y - 1; yx >= y0 && yx < y1 && fa < fe {
			// Final fluxes of row y-1's +x pipes.
			slot, lo := yx%ringRows, yx*nx
			k, s := d.k[slot], d.s[slot]
			if full {
				c.rows.FinalFluxRow(g.fx[lo+1:lo+nx], d.rx[slot][1:nx], k[1:nx], k[2:nx+1], s[:nx-1], s[1:nx])
			} else {
				c.rows.FinalFluxRow(g.fx[lo+1+fa:lo+1+fe], d.rx[slot][1+fa:1+fe], k[1+fa:1+fe], k[2+fa:2+fe], s[fa:fe], s[fa+1:fe+1])
			}
		}
		if yy := y - 2; yy >= y0-1 && yy >= 0 && yy < y1 && yy+1 < ny {
			// Final fluxes of row y-2's +y pipes: the state if the worker owns row y-2,
			// else (the row below its range) its private copy.
			dst := d.fyLow
			if yy >= y0 {
				dst = g.fy[(yy+1)*nx : (yy+2)*nx]
			}
			sl, su := yy%ringRows, (yy+1)%ringRows
			if full {
				c.rows.FinalFluxRow(dst, d.ry[sl], d.k[sl][1:nx+1], d.k[su][1:nx+1], d.s[sl], d.s[su])
			} else {
				c.rows.FinalFluxRow(dst[xa:xe], d.ry[sl][xa:xe], d.k[sl][1+xa:1+xe], d.k[su][1+xa:1+xe], d.s[sl][xa:xe], d.s[su][xa:xe])
			}
		}
		if yh := y - 2; yh >= y0 && yh < y1 {
			// Heights of row y-2.
			lo := yh * nx
			above := g.fy[lo : lo+nx]
			if yh == y0 && y0 > 0 {
				above = d.fyLow
			}
			if full {
				c.rows.HeightRow(p, c.h[lo:lo+nx], c.r[lo:lo+nx], above, g.fx[lo:lo+nx], g.fx[lo+1:lo+1+nx],
					g.fy[lo+nx:lo+2*nx], c.base[lo:lo+nx], c.top[lo:lo+nx])
			} else {
				c.rows.HeightRow(p, c.h[lo+xa:lo+xe], c.r[lo+xa:lo+xe], above[xa:xe], g.fx[lo+xa:lo+xe], g.fx[lo+1+xa:lo+1+xe],
					g.fy[lo+nx+xa:lo+nx+xe], c.base[lo+xa:lo+xe], c.top[lo+xa:lo+xe])
			}
			if g.skip { // a column that was dead is unchanged: only the live ones may have changed
				if lo, hi := int(d.live[2*yh]), int(d.live[2*yh+1]); lo <= hi {
					d.spanB[2*yh], d.spanB[2*yh+1] = c.stillSpan(d, yh, above, lo, hi+1)
				} else {
					d.spanB[2*yh], d.spanB[2*yh+1] = -1, -1
				}
			}
		}
	}
}

// stillSpan is the first and last column of row y, just swept, that is not still, of the
// columns [xa, xe) that may have changed (-1 and -1 where every one is; the others were
// dead, and are still: a column changes only through its pipes, which join it to its
// neighbours, and the sources and other changes outside the sweep widen the spans
// themselves). A column is still when it is dry to the bit (h == b, h not -0, whose sum with a
// residual of +0 would be +0; r +0) and the final fluxes of its pipes are +0 (above: the
// row's -y pipes' as its height update read them), and with the capillary head in the
// sweep its wetted flags are 0 and its last-step heights h in both buffers (a dead column
// writes neither: both must hold what it would write).
func (c *cpuBackend) stillSpan(d *denseWork, y int, above []float32, xa, xe int) (first, last int32) {
	g := c.dense
	nx := g.nx
	lo := y * nx
	if c.h[lo+xa] != c.base[lo+xa] && c.h[lo+xe-1] != c.base[lo+xe-1] {
		return int32(xa), int32(xe - 1) // wet at both ends (the usual row where liquid is)
	}
	still := func(x int) bool {
		i := lo + x
		hx := c.h[i]
		if hx != c.base[i] || math.Float32bits(hx) == 1<<31 || math.Float32bits(c.r[i]) != 0 ||
			math.Float32bits(g.fx[i])|math.Float32bits(g.fx[i+1])|math.Float32bits(above[x])|math.Float32bits(g.fy[i+nx]) != 0 {
			return false
		}
		return !d.cap || (d.wetA[i] == 0 && d.wetB[i] == 0 &&
			math.Float32bits(d.prevA[i]) == math.Float32bits(hx) && math.Float32bits(d.prevB[i]) == math.Float32bits(hx))
	}
	a := xa
	for a < xe && still(a) {
		a++
	}
	if a == xe {
		return -1, -1
	}
	e := xe - 1
	for still(e) {
		e--
	}
	return int32(a), int32(e)
}

// denseSwap makes the spans the last of n steps wrote the current ones.
func (c *cpuBackend) denseSwap(n int) {
	if g := c.dense; g != nil && n%2 == 1 {
		g.span, g.spanNext = g.spanNext, g.span
	}
}

// widen makes every row's span in sp (denseGrid.span) reach columns [lo, hi].
func (g *denseGrid) widen(sp []int32, lo, hi int) {
	for y := range g.ny {
		g.widenRow(sp, y, lo, hi)
	}
}

// widenRow makes row y's span in sp reach columns [lo, hi].
func (g *denseGrid) widenRow(sp []int32, y, lo, hi int) {
	if sp[2*y] < 0 {
		sp[2*y], sp[2*y+1] = int32(lo), int32(hi)
		return
	}
	sp[2*y], sp[2*y+1] = min(sp[2*y], int32(lo)), max(sp[2*y+1], int32(hi))
}

// stillReset forgets which columns are still: the state was changed from outside the
// sweep (heights, residuals, fluxes or floors written, settings changed, a checkpoint
// restored).
func (c *cpuBackend) stillReset() {
	if c.skip != nil {
		clear(c.skip.still)
	}
	if g := c.dense; g != nil {
		g.widen(g.span, 0, g.nx-1)
		g.widen(g.spanNext, 0, g.nx-1)
	}
}

// stillColumns forgets that the columns cols are still (the particle phase or a lift
// changed them).
func (c *cpuBackend) stillColumns(cols []int32) {
	if sk := c.skip; sk != nil {
		for _, i := range cols {
			sk.still[sk.unitOf[i]] = false
		}
	}
	if g := c.dense; g != nil {
		for _, i := range cols {
			y, x := int(i)/g.nx, int(i)%g.nx
			g.widenRow(g.span, y, x, x)
			g.widenRow(g.spanNext, y, x, x)
		}
	}
}

// inflowRow sets S of the columns [sa, se) of row y that OutflowRow flagged. Where many are
// (a flooded row), the vector kernel computes S for all of them instead: it gives exactly
// 1 for the others (docs/solver.md, "Skipping inflow scaling where it cannot bind").
func (c *cpuBackend) inflowRow(d *denseWork, y, sa, se int) {
	g := c.dense
	slot := y % ringRows
	flags, all := d.flags[slot], d.all[slot]
	if len(flags) == 0 && !all {
		return
	}
	nx := g.nx
	h, r, _, _ := c.oldRows(d, y)
	top := c.top[y*nx : y*nx+nx]
	above, below := g.ryRow(d, y-1), g.ryRow(d, y)
	ka, kr, kb := g.kRow(d, y-1), d.k[slot], g.kRow(d, y+1)
	rx, s := d.rx[slot], d.s[slot]
	done := sa
	if all || rows.WholeRowInflow*len(flags) >= se-sa {
		done = sa + c.rows.InflowRowVec(&c.p.Params, s[sa:se], above[sa:se], ka[1+sa:1+se], rx[sa:se+1], kr[sa:se+2],
			below[sa:se], kb[1+sa:1+se], top[sa:se], h[sa:se], r[sa:se])
	}
	for _, x32 := range flags {
		if x := int(x32); x >= done && x < se {
			s[x] = rows.InflowColumn(&c.p.Params, above, ka, rx, kr, below, kb, top, h, r, x)
		}
	}
}
