package gpusim

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
// One sweep a step. The step is memory-bound once its arithmetic is vectorized (the row
// kernels of rows.go), so it reads the state once and writes it once: about
// BytesPerColumnStep bytes a column. A worker walks its rows in order; at front row y it
// computes
//
//	the raw fluxes of row y's +x and +y pipes (old h of rows y and y+1, old fx, fy),
//	K of row y (raw fluxes of rows y-1 and y),
//	S of row y-1 (K of rows y-2..y), for the few columns that may overflow,
//	the final fluxes of row y-1's +x pipes and row y-2's +y pipes, into fx and fy,
//	the heights of row y-2 (final fluxes of rows y-3..y-2), in place.
//
// Raw fluxes, K and S live in rings of four rows (a few KiB, in L1/L2), never in
// full-size arrays. Updating h, r, fx and fy in place is safe because a row's old values
// are last read at a front row no later than the one that overwrites them.
//
// Workers own contiguous rows. A worker's first rows need K and S of the three rows
// below its range, and its last row's +y pipe needs K and S of the two rows after it:
// those come from the old state of three rows on each side, which the neighbours
// overwrite during their sweeps. So a step is two phases: each worker copies the old h,
// r, fx and fy of its six halo rows into private buffers (denseHalo), a barrier, then the
// sweep (denseSweep), which recomputes the halo rows' raw fluxes, K and S with the same
// arithmetic, so the same bits as their owners. The pipe between two workers is computed
// by both; the worker owning its first row writes it, the other keeps its copy for its
// height update. With the end-of-step barrier that is two barriers a step.

// denseHaloRows is the number of old-state rows a worker copies on each side of its range.
const denseHaloRows = 3

// ringRows is the number of rows each ring holds (row y in slot y&3): three are in use
// at a time.
const ringRows = 4

// denseGrid holds the dense layout's fluxes (the final ones: the state) and the workers'
// private buffers.
type denseGrid struct {
	nx, ny int
	fx     []float32 // len nx*ny + 1
	fy     []float32 // len nx*ny + nx
	zero   []float32 // nx+2 zeros: the raw fluxes and K outside the grid
	work   []*denseWork
}

// denseWork is one worker's rings and halo copies (separate allocations per worker, so
// workers never share a cache line).
type denseWork struct {
	y0, y1 int // rows owned
	// Rings, row y in slot y%ringRows: raw +x fluxes (nx+1 values: [0] and [nx] are the
	// absent pipes, zero; [x+1] is the +x pipe of column x), raw +y fluxes (nx), K (nx+2:
	// [x+1] is column x's, the ends are zero padding) and S (nx).
	rx, ry, k, s [ringRows][]float32
	flags        [ringRows][]int32 // columns of the row (x) whose S inflowRow sets
	mask         []uint8           // outflowRow's scratch: one bit a column
	// Old state of rows y0-3..y0-1 (slots 0..2) and y1..y1+2 (slots 3..5): heights,
	// residuals, +x fluxes (nx: [x] is the +x pipe of column x) and +y fluxes (nx).
	hh, rr, fxh, fyh [2 * denseHaloRows][]float32
	// fyLow is the final flux of the +y pipes of row y0-1, which the worker below writes.
	fyLow []float32
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
		for i := range 2 * denseHaloRows {
			d.hh[i] = make([]float32, nx)
			d.rr[i] = make([]float32, nx)
			d.fxh[i] = make([]float32, nx)
			d.fyh[i] = make([]float32, nx)
		}
		g.work[w] = d
	}
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

// denseStep is worker w's share of one step: its halo, a barrier, its sweep. (The caller's
// end-of-step barrier keeps the next step's halo copies from reading rows still being
// swept.)
func (c *cpuBackend) denseStep(w int) {
	c.denseHalo(w)
	c.bar.wait()
	c.denseSweep(w)
}

// haloSlot is the halo slot of row y for worker d, or -1 for its own rows.
func (d *denseWork) haloSlot(y int) int {
	switch {
	case y < d.y0:
		return y - (d.y0 - denseHaloRows)
	case y >= d.y1:
		return denseHaloRows + y - d.y1
	}
	return -1
}

// denseHalo copies the old state of the (up to) three rows on each side of worker w's
// range that lie in the grid.
func (c *cpuBackend) denseHalo(w int) {
	g := c.dense
	d, nx := g.work[w], g.nx
	if d.y0 == d.y1 {
		return
	}
	for i := range 2 * denseHaloRows {
		y := d.y0 - denseHaloRows + i
		if i >= denseHaloRows {
			y = d.y1 + i - denseHaloRows
		}
		if y < 0 || y >= g.ny {
			continue
		}
		lo := y * nx
		copy(d.hh[i], c.h[lo:lo+nx])
		copy(d.rr[i], c.r[lo:lo+nx])
		copy(d.fxh[i], g.fx[lo+1:lo+1+nx])
		copy(d.fyh[i], g.fy[lo+nx:lo+2*nx])
	}
}

// oldRows returns the old h, r, +x fluxes (nx: [x] is column x's +x pipe) and +y fluxes
// of row y, from the state or, outside the worker's rows, its halo copies.
func (c *cpuBackend) oldRows(d *denseWork, y int) (h, r, fx, fy []float32) {
	g := c.dense
	nx := g.nx
	if i := d.haloSlot(y); i >= 0 {
		return d.hh[i], d.rr[i], d.fxh[i], d.fyh[i]
	}
	lo := y * nx
	return c.h[lo : lo+nx], c.r[lo : lo+nx], g.fx[lo+1 : lo+1+nx], g.fy[lo+nx : lo+2*nx]
}

// rawRows computes the raw fluxes of row y's +x pipes into the ring's rx row and, unless
// y is the last row, of its +y pipes into its ry row.
func (c *cpuBackend) rawRows(d *denseWork, y int) {
	g := c.dense
	nx := g.nx
	lo := y * nx
	h, _, fx, fy := c.oldRows(d, y)
	b := c.base[lo : lo+nx]
	slot := y % ringRows
	if nx > 1 {
		rawFluxRow(&c.p, d.rx[slot][1:nx], fx[:nx-1], h[:nx-1], h[1:], b[:nx-1], b[1:])
	}
	if y+1 < g.ny {
		hu, _, _, _ := c.oldRows(d, y+1)
		rawFluxRow(&c.p, d.ry[slot], fy, h, hu, b, c.base[lo+nx:lo+2*nx])
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
	g, p := c.dense, &c.p
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
			d.flags[slot] = outflowRow(p, d.k[slot][1:nx+1], d.s[slot], g.ryRow(d, y-1), rx,
				g.ryRow(d, y), h, r, c.base[lo:lo+nx], c.top[lo:lo+nx], d.flags[slot][:0], d.mask)
		}
		if ys := y - 1; ys >= y0-1 && ys >= 0 && ys < ny {
			c.inflowRow(d, ys)
		}
		if yx := y - 1; yx >= y0 && yx < y1 && nx > 1 {
			// Final fluxes of row y-1's +x pipes.
			slot, lo := yx%ringRows, yx*nx
			k, s := d.k[slot], d.s[slot]
			finalFluxRow(g.fx[lo+1:lo+nx], d.rx[slot][1:nx], k[1:nx], k[2:nx+1], s[:nx-1], s[1:nx])
		}
		if yy := y - 2; yy >= y0-1 && yy >= 0 && yy < y1 && yy+1 < ny {
			// Final fluxes of row y-2's +y pipes: the state if the worker owns row y-2,
			// else (the row below its range) its private copy.
			dst := d.fyLow
			if yy >= y0 {
				dst = g.fy[(yy+1)*nx : (yy+2)*nx]
			}
			sl, su := yy%ringRows, (yy+1)%ringRows
			finalFluxRow(dst, d.ry[sl], d.k[sl][1:nx+1], d.k[su][1:nx+1], d.s[sl], d.s[su])
		}
		if yh := y - 2; yh >= y0 && yh < y1 {
			// Heights of row y-2.
			lo := yh * nx
			above := g.fy[lo : lo+nx]
			if yh == y0 && y0 > 0 {
				above = d.fyLow
			}
			heightRow(p, c.h[lo:lo+nx], c.r[lo:lo+nx], above, g.fx[lo:lo+nx], g.fx[lo+1:lo+1+nx],
				g.fy[lo+nx:lo+2*nx], c.base[lo:lo+nx], c.top[lo:lo+nx])
		}
	}
}

// inflowRow sets S of the columns of row y that outflowRow flagged, from the inflows
// (raw, outflow-scaled by their sources' K) summed in the order -y, -x, +x, +y.
func (c *cpuBackend) inflowRow(d *denseWork, y int) {
	g := c.dense
	slot := y % ringRows
	flags := d.flags[slot]
	if len(flags) == 0 {
		return
	}
	nx := g.nx
	h, r, _, _ := c.oldRows(d, y)
	top := c.top[y*nx : y*nx+nx]
	above, below := g.ryRow(d, y-1), g.ryRow(d, y)
	ka, kr, kb := g.kRow(d, y-1), d.k[slot], g.kRow(d, y+1)
	rx, s := d.rx[slot], d.s[slot]
	for _, x32 := range flags {
		x := int(x32)
		var in float32
		in += float32(min(-above[x], 0) * ka[x+1])
		in += float32(min(-rx[x], 0) * kr[x])
		in += float32(min(rx[x+1], 0) * kr[x+2])
		in += float32(min(below[x], 0) * kb[x+1])
		s[x] = c.p.inflowFactor(in, (top[x]-h[x])-r[x])
	}
}
