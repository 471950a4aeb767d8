package gpusim

import "github.com/vpbench/vpbench/gpusim/internal/rows"

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
// those come from the old state of three rows on each side, which their owners overwrite
// during their own sweeps. So each worker, at the end of its sweep, publishes copies of
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

// denseHaloRows is the number of old-state rows a worker reads on each side of its range.
const denseHaloRows = 3

// ringRows is the number of rows each ring holds (row y in slot y%ringRows): three are in
// use at a time.
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
	_       [64]byte // flags and all change every row: keep another worker's struct off the line
}

func newDenseGrid(nx, ny int) *denseGrid {
	n := nx * ny
	return &denseGrid{nx: nx, ny: ny,
		fx: make([]float32, n+1), fy: make([]float32, n+nx), zero: make([]float32, nx+2)}
}

// setWorkers gives each of the n workers its rows (ranges) and private buffers.
func (g *denseGrid) setWorkers(ranges [][2]int) {
	nx := g.nx
	g.work = make([]*denseWork, len(ranges))
	for w, r := range ranges {
		d := &denseWork{y0: r[0], y1: r[1], fyLow: make([]float32, nx), mask: make([]uint8, nx/8+1)}
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
	for k := range n {
		if c.p.cap.on {
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
		d.targets = d.targets[:0]
	}
	for e := range em.list {
		for k := em.tStart[e]; k < em.tStart[e+1]; k++ {
			g.em.emOf[k] = int32(e)
			y := int(em.tCol[k]) / g.nx
			for _, d := range g.work {
				if y >= d.y0 && y < d.y1 {
					d.targets = append(d.targets, k)
				}
			}
		}
	}
	for j, c := range em.dCol {
		y := int(c) / g.nx
		for _, d := range g.work {
			if y >= d.y0 && y < d.y1 {
				d.targets = append(d.targets, int32(n+j))
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
	for _, k := range g.work[w].targets {
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

// rawRows computes the raw fluxes of row y's +x pipes into the ring's rx row and, unless
// y is the last row, of its +y pipes into its ry row.
func (c *cpuBackend) rawRows(d *denseWork, y int) {
	g := c.dense
	nx := g.nx
	lo := y * nx
	h, _, fx, fy := c.oldRows(d, y)
	if c.p.cap.on { // the driving heights h + X (capillary.go): a full array nobody writes in the sweep
		h = c.capSt.drive[lo : lo+nx]
	}
	b := c.base[lo : lo+nx]
	slot := y % ringRows
	if nx > 1 {
		c.rows.RawFluxRow(&c.p.Params, d.rx[slot][1:nx], fx[:nx-1], h[:nx-1], h[1:], b[:nx-1], b[1:])
	}
	if y+1 < g.ny {
		hu, _, _, _ := c.oldRows(d, y+1)
		if c.p.cap.on {
			hu = c.capSt.drive[lo+nx : lo+2*nx]
		}
		c.rows.RawFluxRow(&c.p.Params, d.ry[slot], fy, h, hu, b, c.base[lo+nx:lo+2*nx])
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

// denseSweep is worker w's sweep over its rows (see the file comment): front rows from
// two before its range (their K and S) to one after it (K of the row after, for S of
// the first row after, for the final flux of its last row's +y pipes), and two more
// to finish when its range ends the grid.
func (c *cpuBackend) denseSweep(w int) {
	g, p := c.dense, &c.p.Params
	d, nx, ny := g.work[w], g.nx, g.ny
	y0, y1 := d.y0, d.y1
	if y0 == y1 {
		return
	}
	first := max(y0-2, 0)
	if first > 0 { // the raw +y fluxes of the row above the first front row
		c.rawRows(d, first-1)
	}
	for y := first; y <= y1+1; y++ {
		if y < ny {
			// Raw fluxes and K of front row y.
			c.rawRows(d, y)
			slot := y % ringRows
			lo := y * nx
			h, r, _, _ := c.oldRows(d, y)
			rx := d.rx[slot]
			d.flags[slot], d.all[slot] = c.rows.OutflowRow(p, d.k[slot][1:nx+1], d.s[slot], g.ryRow(d, y-1), rx,
				g.ryRow(d, y), h, r, c.base[lo:lo+nx], c.top[lo:lo+nx], d.flags[slot][:0], d.mask)
		}
		if ys := y - 1; ys >= y0-1 && ys >= 0 && ys < ny {
			c.inflowRow(d, ys)
		}
		if yx := y - 1; yx >= y0 && yx < y1 && nx > 1 {
			// Final fluxes of row y-1's +x pipes.
			slot, lo := yx%ringRows, yx*nx
			k, s := d.k[slot], d.s[slot]
			c.rows.FinalFluxRow(g.fx[lo+1:lo+nx], d.rx[slot][1:nx], k[1:nx], k[2:nx+1], s[:nx-1], s[1:nx])
		}
		if yy := y - 2; yy >= y0-1 && yy >= 0 && yy < y1 && yy+1 < ny {
			// Final fluxes of row y-2's +y pipes: the state if the worker owns row y-2,
			// else (the row below its range) its private copy.
			dst := d.fyLow
			if yy >= y0 {
				dst = g.fy[(yy+1)*nx : (yy+2)*nx]
			}
			sl, su := yy%ringRows, (yy+1)%ringRows
			c.rows.FinalFluxRow(dst, d.ry[sl], d.k[sl][1:nx+1], d.k[su][1:nx+1], d.s[sl], d.s[su])
		}
		if yh := y - 2; yh >= y0 && yh < y1 {
			// Heights of row y-2.
			lo := yh * nx
			above := g.fy[lo : lo+nx]
			if yh == y0 && y0 > 0 {
				above = d.fyLow
			}
			c.rows.HeightRow(p, c.h[lo:lo+nx], c.r[lo:lo+nx], above, g.fx[lo:lo+nx], g.fx[lo+1:lo+1+nx],
				g.fy[lo+nx:lo+2*nx], c.base[lo:lo+nx], c.top[lo:lo+nx])
		}
	}
}

// inflowRow sets S of the columns of row y that OutflowRow flagged. Where many are (a
// flooded row), the vector kernel computes S for the whole row instead: it gives exactly
// 1 for the others (docs/solver.md, "Skipping inflow scaling where it cannot bind").
func (c *cpuBackend) inflowRow(d *denseWork, y int) {
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
	done := 0
	if all || rows.WholeRowInflow*len(flags) >= nx {
		done = c.rows.InflowRowVec(&c.p.Params, s, above, ka[1:], rx, kr, below, kb[1:], top, h, r)
	}
	for _, x32 := range flags {
		if x := int(x32); x >= done {
			s[x] = rows.InflowColumn(&c.p.Params, above, ka, rx, kr, below, kb, top, h, r, x)
		}
	}
}
