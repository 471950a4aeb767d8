package waves

import "math"

// The field. Column i's displacement is the sum, over the particles on its layer, of
// amplitude * w((x_i - x_p) / R) * w((y_i - y_p) / R), with (x_i, y_i) its cell's centre,
// R the particle's radius and w the raised cosine (kernel). A particle is on column i's
// layer when i is its own column, or i's free interval [Base, Max] holds the particle's
// liquid height and i's liquid reaches down to the particle's Base (as enter, without
// the wetness: dry columns get 0 at the end).

// Displacement writes the surface displacement of every column, m, into dst (resized to
// NumColumns, its storage reused) and returns it; dry columns get 0. The particles are
// where the last wave step left them (Time). Each worker sums a band of rows, taking
// every particle in the same order, so a column's sum does not depend on the number of
// workers. f must fit the columns, as for Advance.
func (s *System) Displacement(dst []float32, f Flow) []float32 {
	c := s.c
	c.checkFlow(f)
	dst = resize(dst, c.cols.NumColumns())
	c.flow, c.dst = f, dst
	c.pool.run(jobBlocks)
	c.fieldOpen()
	c.pool.run(jobField)
	c.flow, c.dst = Flow{}, nil
	return dst
}

// fieldBand computes worker w's band of rows.
func (c *core) fieldBand(w int) {
	cols := c.cols
	nx, ny := cols.Nx, cols.Ny
	nw := c.pool.n
	y0, y1 := ny*w/nw, ny*(w+1)/nw
	if y0 >= y1 {
		return
	}
	cs := cols.CellStart
	H, base, top := c.flow.Height, cols.Base, cols.Max
	lo, hi := int(cs[y0*nx]), int(cs[y1*nx])
	dst := c.dst
	clear(dst[lo:hi])
	sc := &c.ws[w]
	dx, inv := cols.Dx, c.invDx
	fy0, fy1, fxMax := float64(y0), float64(y1-1), float64(nx-1)
	lastR, s, twoCos := 0.0, 0.0, 0.0
	for i := range c.px {
		r := float64(c.rad[i])
		rr := r * inv
		// rows j whose centre is within r: |j - gy| < rr
		gy := c.py[i]*inv - 0.5
		jlo, jhi := math.Ceil(gy-rr), math.Floor(gy+rr)
		if jhi < fy0 || jlo > fy1 {
			continue
		}
		// The weights start from the footprint's first row in the grid, whatever the band,
		// so that they are the same numbers for every worker.
		jw := jlo
		if jw < 0 {
			jw = 0
		}
		if jlo < fy0 {
			jlo = fy0
		}
		if jhi > fy1 {
			jhi = fy1
		}
		gx := c.px[i]*inv - 0.5
		ilo, ihi := math.Ceil(gx-rr), math.Floor(gx+rr)
		if ilo < 0 {
			ilo = 0
		}
		if ihi > fxMax {
			ihi = fxMax
		}
		if ilo > ihi {
			continue
		}
		i0, i1, j0, j1 := int(ilo), int(ihi), int(jlo), int(jhi)
		nq := i1 - i0 + 1
		if cap(sc.wx) < nq {
			sc.wx = make([]float32, nq)
		}
		wx := sc.wx[:nq]
		if r != lastR {
			lastR, s = r, dx/r
			twoCos = 2 * math.Cos(math.Pi*s)
		}
		jw0 := int(jw)
		nr := j1 - jw0 + 1
		if cap(sc.wy) < nr {
			sc.wy = make([]float32, nr)
		}
		wy := sc.wy[:nr]
		axisWeights(wx, (float64(i0)-gx)*s, s, twoCos)
		axisWeights(wy, (jw-gy)*s, s, twoCos)
		a := c.amp[i]
		px, py := int(c.pcx[i]), int(c.pcy[i])
		if (rr <= blockSize && c.blkField[(py>>blockShift)*c.nbx+px>>blockShift]) || c.openFootprint(px, py, i0, j0, i1, j1) {
			// every cell holds one column of this layer: consecutive columns, no tests
			for j := j0; j <= j1; j++ {
				wy := a * wy[j-jw0]
				c0 := int(c.rowBase[j]) + i0
				if c0 < i0 {
					c0 = int(cs[j*nx+i0])
				}
				ds := dst[c0 : c0+nq]
				if nq == 6 { // the default radius, 3 dx
					d, w := (*[6]float32)(ds), (*[6]float32)(wx)
					d[0] += wy * w[0]
					d[1] += wy * w[1]
					d[2] += wy * w[2]
					d[3] += wy * w[3]
					d[4] += wy * w[4]
					d[5] += wy * w[5]
					continue
				}
				for q, v := range wx {
					ds[q] += wy * v
				}
			}
			continue
		}
		col := c.pcol[i]
		hp, bp := min(H[col], top[col]), base[col]
		for j := j0; j <= j1; j++ {
			wy := a * wy[j-jw0]
			row := j * nx
			if p := j * (nx + 1); c.rowNS[p+i1+1] == c.rowNS[p+i0] {
				// one column a cell all along: consecutive columns
				c0 := int(cs[row+i0])
				bs, ts, hs, ds := base[c0:c0+nq], top[c0:c0+nq], H[c0:c0+nq], dst[c0:c0+nq]
				for q, v := range wx {
					if bs[q] <= hp && hp <= ts[q] && hs[q] >= bp {
						ds[q] += wy * v
					}
				}
				continue
			}
			for q, v := range wx {
				k := row + i0 + q
				for jj := cs[k]; jj < cs[k+1]; jj++ {
					if base[jj] <= hp && hp <= top[jj] {
						if jj == col || H[jj] >= bp {
							dst[jj] += wy * v
						}
						break
					}
				}
			}
		}
	}
	for j := lo; j < hi; j++ {
		if !(H[j]-base[j] > wet32) {
			dst[j] = 0
		}
	}
}

// axisWeights sets w[q] = kernel(u0 + q s), q < len(w), for u0 >= -1 and u0 + (len(w)-1) s
// <= 1, given twoCos = 2 cos(pi s): with cos(pi u) = 2 kernel(u) - 1, two values from the
// polynomial and the rest by the recurrence cos(a + (q+1) b) = 2 cos(b) cos(a + q b) -
// cos(a + (q-1) b), two operations a weight.
func axisWeights(w []float32, u0, s, twoCos float64) {
	if len(w) == 0 {
		return
	}
	k := kernel(u0)
	w[0] = float32(k)
	if len(w) == 1 {
		return
	}
	c0 := 2*k - 1
	k = kernel(u0 + s)
	w[1] = float32(k)
	c1 := 2*k - 1
	for q := 2; q < len(w); q++ {
		c0, c1 = c1, twoCos*c1-c0
		w[q] = float32(0.5 + 0.5*c1)
	}
}

// HeightAt returns the displacement, m, at the point (x, y) on the column of its cell
// whose free interval holds z (as Columns.ColumnAt): the same sum as Displacement, at
// the point instead of the cell's centre. It is 0 outside the grid and on a dry column.
// It visits every particle: use Displacement for the whole grid.
func (s *System) HeightAt(x, y, z float64, f Flow) float64 {
	c := s.c
	c.checkFlow(f)
	cols := c.cols
	ix, iy, ok := cols.CellAt(x, y)
	if !ok {
		return 0
	}
	col := cols.ColumnAt(ix, iy, z)
	H, base, top := f.Height, cols.Base, cols.Max
	if col < 0 || !(H[col]-base[col] > wet32) {
		return 0
	}
	sum := 0.0
	for i := range c.px {
		r := float64(c.rad[i])
		u, v := (x-c.px[i])/r, (y-c.py[i])/r
		if !(u > -1 && u < 1 && v > -1 && v < 1) {
			continue
		}
		pc := int(c.pcol[i])
		hp, bp := min(H[pc], top[pc]), base[pc]
		if pc == col || (base[col] <= hp && hp <= top[col] && H[col] >= bp) {
			sum += float64(c.amp[i]) * kernel(u) * kernel(v)
		}
	}
	return sum
}

// fieldOpen sets blkField: a block is field-open when it and its eight neighbours are
// open and each neighbour takes any liquid height of the block (as openFootprint), so
// that a particle in it whose radius is at most blockSize cells may skip openFootprint.
func (c *core) fieldOpen() {
	for by := range c.nby {
		for bx := range c.nbx {
			b := by*c.nbx + bx
			ok := c.blkClear[b] != 0 && bx > 0 && by > 0 && bx < c.nbx-1 && by < c.nby-1
			lo, hi, mb := c.blkHmin[b], c.blkHmax[b], c.blkMaxBase[b]
			for y := by - 1; ok && y <= by+1; y++ {
				for x := bx - 1; x <= bx+1; x++ {
					k := y*c.nbx + x
					if c.blkClear[k] == 0 || !(lo >= c.blkMaxBase[k] && hi <= c.blkMinMax[k] && c.blkHmin[k] >= mb) {
						ok = false
						break
					}
				}
			}
			c.blkField[b] = ok
		}
	}
}

// openFootprint reports whether every cell of [x0, x1] x [y0, y1] lies in an open block
// and holds the layer of a particle in cell (px, py): then the field's test for each cell
// would say yes, and the footprint's columns are the cells' only ones. It reads blocks
// only: the particle's block is open, so its liquid height lies in [hmin, hmax] of its
// block and its Base is at most the block's max Base; each footprint block must take
// any such height (its max Base below hmin, its min Max above hmax) and its liquid must
// reach down to that Base.
func (c *core) openFootprint(px, py, x0, y0, x1, y1 int) bool {
	own := (py>>blockShift)*c.nbx + px>>blockShift
	if c.blkClear[own] == 0 {
		return false
	}
	lo, hi, b := c.blkHmin[own], c.blkHmax[own], c.blkMaxBase[own]
	for by := y0 >> blockShift; by <= y1>>blockShift; by++ {
		for bx := x0 >> blockShift; bx <= x1>>blockShift; bx++ {
			k := by*c.nbx + bx
			if c.blkClear[k] == 0 || !(lo >= c.blkMaxBase[k] && hi <= c.blkMinMax[k] && c.blkHmin[k] >= b) {
				return false
			}
		}
	}
	return true
}
