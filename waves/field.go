package waves

import (
	"math"

	"github.com/vpbench/vpbench/internal/parallel"
)

// The field. Column i's displacement is the sum, over the particles on its layer, of
// amplitude * w((x_i - x_p) / R) * w((y_i - y_p) / R), with (x_i, y_i) its cell's centre,
// R the particle's radius and w the raised cosine (kernel). A particle is on column i's
// layer when i is its own column, or i's free interval [Base, Max] holds the particle's
// liquid height and i's liquid reaches down to the particle's Base (as enter, without
// the wetness: dry columns get 0 at the end).

// Displacement writes the surface displacement of every column, m, into dst (resized to
// NumColumns, its storage reused) and returns it; dry columns get 0. The particles are
// where the last wave step left them (Time). Each worker sums a band of rows, taking
// the particles that reach it in particle order, so a column's sum does not depend on
// the number of workers. f must fit the columns, as for Advance.
func (s *System) Displacement(dst []float32, f Flow) []float32 {
	c := s.c
	c.checkFlow(f)
	dst = resize(dst, c.cols.NumColumns())
	c.flow, c.dst = f, dst
	if nw, ny := c.pool.Workers(), c.cols.Ny; c.rowBandN != nw || len(c.rowBand) != ny {
		c.rowBand = resize(c.rowBand, ny)
		for j := range c.rowBand {
			c.rowBand[j] = int32(((j+1)*nw - 1) / ny) // the b whose parallel.Chunk(ny, nw, b) holds j
		}
		c.rowBandN = nw
	}
	c.run(jobFoot)
	c.fieldOpen()
	c.run(jobField)
	c.flow, c.dst = Flow{}, nil
	return dst
}

// footMax is the widest footprint, in cells along an axis, whose weights fieldBand keeps
// on its stack (a radius under 4 dx; the default 3 dx covers 6 cells); wider ones use the
// worker's scratch.
const footMax = 8

// bandLists lists worker w's share of the particles (a contiguous range), in order, under
// each band of rows their footprint reaches, so that a band visits only its particles.
func (c *core) bandLists(w int) {
	sc := &c.ws[w]
	for b := range sc.bands {
		sc.bands[b] = sc.bands[b][:0]
	}
	inv, fyMax := c.invDx, float64(c.cols.Ny-1)
	lo, hi := parallel.Chunk(len(c.px), c.pool.Workers(), w)
	for i := lo; i < hi; i++ {
		rr := float64(c.rad[i]) * inv
		gy := c.py[i]*inv - 0.5
		jlo, jhi := math.Ceil(gy-rr), math.Floor(gy+rr)
		if jlo < 0 {
			jlo = 0
		}
		if jhi > fyMax {
			jhi = fyMax
		}
		if !(jlo <= jhi) {
			continue
		}
		for b := c.rowBand[int(jlo)]; b <= c.rowBand[int(jhi)]; b++ {
			sc.bands[b] = append(sc.bands[b], int32(i))
		}
	}
}

// fieldBand computes worker w's band of rows from the particles that reach it, in
// particle order.
func (c *core) fieldBand(w int) {
	cols := c.cols
	nx, ny := cols.Nx, cols.Ny
	y0, y1 := parallel.Chunk(ny, c.pool.Workers(), w)
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
	lastR, s, twoCos, twoCos2 := 0.0, 0.0, 0.0, 0.0
	var wxa, wya [footMax]float32
	// consecutive particles of addFoots' case wait in jobs, to be added at once
	jobs := sc.jobs[:0]
	nx32 := int32(nx)
	px, py, rad, amp := c.px, c.py, c.rad, c.amp
	pcxs, pcys, blkField, nbx, flat := c.pcx, c.pcy, c.blkField, c.nbx, c.flat
	for v := range c.ws {
		for _, pi := range c.ws[v].bands[w] {
			i := int(pi)
			r := float64(rad[i])
			rr := r * inv
			// rows j whose centre is within r: |j - gy| < rr
			gy := py[i]*inv - 0.5
			jlo, jhi := math.Ceil(gy-rr), math.Floor(gy+rr)
			// The weights start from the footprint's first row in the grid, whatever the
			// band, so that they are the same numbers for every worker.
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
			gx := px[i]*inv - 0.5
			ilo, ihi := math.Ceil(gx-rr), math.Floor(gx+rr)
			if ilo < 0 {
				ilo = 0
			}
			if ihi > fxMax {
				ihi = fxMax
			}
			if !(ilo <= ihi && jlo <= jhi) {
				continue
			}
			i0, i1, j0, j1 := int(ilo), int(ihi), int(jlo), int(jhi)
			nq := i1 - i0 + 1
			jw0 := int(jw)
			nr := j1 - jw0 + 1
			if r != lastR {
				lastR, s = r, dx/r
				twoCos, twoCos2 = 2*math.Cos(math.Pi*s), 2*math.Cos(2*math.Pi*s)
			}
			ux, uy := (ilo-gx)*s, (jw-gy)*s
			a := amp[i]
			pcx, pcy := int(pcxs[i]), int(pcys[i])
			own := (pcy>>blockShift)*nbx + pcx>>blockShift
			open, K, k := rr <= blockSize && blkField[own], 1, 0
			if !open {
				if !flat {
					k = int(c.pcol[i] - cs[pcy*nx+pcx]) // the particle's column is the k-th of its cell
				}
				open, K = c.openFootprint(pcx, pcy, k, i0, j0, i1, j1), int(c.blkK[own])
			}
			if open && K == 1 && nq == 6 && nr <= 6 && ux > -1 && uy > -1 {
				// the default radius, 3 dx: every cell holds one column of this layer,
				// consecutive columns, no tests
				if len(jobs) == cap(jobs) {
					addFoots(c.vector, dst, jobs)
					jobs = jobs[:0]
				}
				jobs = jobs[:len(jobs)+1]
				f6 := &jobs[len(jobs)-1]
				f6.ux, f6.uy, f6.s, f6.twoCos, f6.twoCos2, f6.a = ux, uy, s, twoCos, twoCos2, a
				f6.r0, f6.r1 = int32(j0-jw0), int32(j1-jw0+1)
				if flat {
					c0 := int32(jw0*nx + i0)
					o := &f6.offs // (element by element: an array literal is built on the stack and copied)
					o[0], o[1], o[2], o[3], o[4], o[5] = c0, c0+nx32, c0+2*nx32, c0+3*nx32, c0+4*nx32, c0+5*nx32
				} else {
					for q := f6.r0; q < f6.r1; q++ {
						j := jw0 + int(q)
						c0 := int(c.rowBase[j]) + i0
						if c0 < i0 {
							c0 = int(cs[j*nx+i0])
						}
						f6.offs[q] = int32(c0)
					}
				}
				continue
			}
			// another case: first the waiting jobs, so that the sums keep particle order
			addFoots(c.vector, dst, jobs)
			jobs = jobs[:0]
			wx, wy := wxa[:], wya[:]
			if nq > footMax || nr > footMax {
				if cap(sc.wx) < nq {
					sc.wx = make([]float32, nq)
				}
				if cap(sc.wy) < nr {
					sc.wy = make([]float32, nr)
				}
				wx, wy = sc.wx, sc.wy
			}
			wx, wy = wx[:nq], wy[:nr]
			axisWeights(wx, ux, s, twoCos, twoCos2)
			axisWeights(wy, uy, s, twoCos, twoCos2)
			wy = wy[j0-jw0:]
			if open && K > 1 {
				// every cell holds K columns, the k-th of this layer: no tests
				for q, wj := range wy {
					wj *= a
					c0 := int(cs[(j0+q)*nx+i0]) + k
					ds := dst[c0 : c0+(nq-1)*K+1]
					for q, v := range wx {
						ds[q*K] += float32(wj * v)
					}
				}
				continue
			}
			if open {
				// every cell holds one column of this layer: consecutive columns, no tests
				for q, wj := range wy {
					wj *= a
					j := j0 + q
					c0 := int(c.rowBase[j]) + i0
					if c0 < i0 {
						c0 = int(cs[j*nx+i0])
					}
					ds := dst[c0 : c0+nq]
					for q, v := range wx {
						ds[q] += float32(wj * v)
					}
				}
				continue
			}
			col := c.pcol[i]
			hp, bp := min(H[col], top[col]), base[col]
			for q, wj := range wy {
				wj *= a
				j := j0 + q
				row := j * nx
				if p := j * (nx + 1); c.rowNS[p+i1+1] == c.rowNS[p+i0] {
					// one column a cell all along: consecutive columns
					c0 := int(cs[row+i0])
					bs, ts, hs, ds := base[c0:c0+nq], top[c0:c0+nq], H[c0:c0+nq], dst[c0:c0+nq]
					for q, v := range wx {
						if bs[q] <= hp && hp <= ts[q] && hs[q] >= bp {
							ds[q] += float32(wj * v)
						}
					}
					continue
				}
				for q, v := range wx {
					k := row + i0 + q
					for jj := cs[k]; jj < cs[k+1]; jj++ {
						if base[jj] <= hp && hp <= top[jj] {
							if jj == col || H[jj] >= bp {
								dst[jj] += float32(wj * v)
							}
							break
						}
					}
				}
			}
		}
	}
	addFoots(c.vector, dst, jobs)
	// dry columns get 0: all but those of blocks open within with one column a cell
	// (every column wet), where the columns are the cells
	if !c.flat {
		for j := lo; j < hi; j++ {
			if !(H[j]-base[j] > wet32) {
				dst[j] = 0
			}
		}
		return
	}
	for y := y0; y < y1; y++ {
		brow := c.blkSelf[(y>>blockShift)*c.nbx:][:c.nbx]
		for bx, m := range brow {
			if m != 0 {
				continue
			}
			for j := y*nx + bx*blockSize; j < y*nx+min((bx+1)*blockSize, nx); j++ {
				if !(H[j]-base[j] > wet32) {
					dst[j] = 0
				}
			}
		}
	}
}

// axisWeights sets w[q] = kernel(u0 + q s), q < len(w), for u0 >= -1 and u0 + (len(w)-1) s
// <= 1, given twoCos = 2 cos(pi s) and twoCos2 = 2 cos(2 pi s): with cos(pi u) =
// 2 kernel(u) - 1, two values from the polynomial and the rest by the recurrences
// cos(a + (q+1) b) = 2 cos(b) cos(a + q b) - cos(a + (q-1) b) for q = 2, 3, and
// cos(a + q b) = 2 cos(2b) cos(a + (q-2) b) - cos(a + (q-4) b) beyond (a shorter chain of
// dependent operations). Products are rounded explicitly, as in kernelPoly: addFoots
// computes the same numbers.
func axisWeights(w []float32, u0, s, twoCos, twoCos2 float64) {
	if len(w) == 0 {
		return
	}
	k := kernel(u0)
	w[0] = float32(k)
	if len(w) == 1 {
		return
	}
	var c [4]float64 // c[q&3] = cos(pi (u0 + q s))
	c[0] = float64(2*k) - 1
	k = kernel(u0 + s)
	w[1] = float32(k)
	c[1] = float64(2*k) - 1
	for q := 2; q < len(w); q++ {
		var cq float64
		if q < 4 {
			cq = float64(twoCos*c[(q-1)&3]) - c[(q-2)&3]
		} else {
			cq = float64(twoCos2*c[(q-2)&3]) - c[q&3] // c[q&3] holds term q-4
		}
		c[q&3] = cq
		w[q] = float32(0.5 + float64(0.5*cq))
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
// open with one column a cell and each neighbour takes any liquid height of the block
// (as openFootprint), so that a particle in it whose radius is at most blockSize cells
// may skip openFootprint.
func (c *core) fieldOpen() {
	all := c.openBlocks() // (then any two open blocks take each other's heights)
	const L = blockLayers
	for by := range c.nby {
		for bx := range c.nbx {
			b := by*c.nbx + bx
			ok := c.blkClear[b] != 0 && bx > 0 && by > 0 && bx < c.nbx-1 && by < c.nby-1
			lo, hi, mb := c.blkHmin[b*L], c.blkHmax[b*L], c.blkMaxBase[b*L]
			for y := by - 1; ok && y <= by+1; y++ {
				for x := bx - 1; x <= bx+1; x++ {
					k := y*c.nbx + x
					if c.blkClear[k] == 0 || !all && !(lo >= c.blkMaxBase[k*L] && hi <= c.blkMinMax[k*L] && c.blkHmin[k*L] >= mb) {
						ok = false
						break
					}
				}
			}
			c.blkField[b] = ok
		}
	}
}

// openFootprint reports whether every cell of [x0, x1] x [y0, y1] lies in a block open
// on layer k, as many columns a cell as the particle's, and the k-th column of each is
// the one the field's test picks for a particle on the k-th column of cell (px, py): then
// the test would say yes for it and no for the cell's other columns. It reads blocks
// only: the particle's block is open on layer k, so its liquid height lies in [hmin,
// hmax] of the layer and its Base is at most the layer's max Base; each footprint block
// must take any such height on its layer k (its max Base below hmin, its min Max above
// hmax, the column below under hmin) and its liquid must reach down to that Base.
func (c *core) openFootprint(px, py, k, x0, y0, x1, y1 int) bool {
	const L = blockLayers
	own := (py>>blockShift)*c.nbx + px>>blockShift
	if c.blkMask[own]>>k&1 == 0 {
		return false
	}
	K := c.blkK[own]
	o := own*L + k
	lo, hi, b := c.blkHmin[o], c.blkHmax[o], c.blkMaxBase[o]
	for by := y0 >> blockShift; by <= y1>>blockShift; by++ {
		for bx := x0 >> blockShift; bx <= x1>>blockShift; bx++ {
			q := by*c.nbx + bx
			if c.blkMask[q]>>k&1 == 0 || c.blkK[q] != K {
				return false
			}
			if q = q*L + k; !(lo >= c.blkMaxBase[q] && hi <= c.blkMinMax[q] && lo > c.blkMaxLow[q] && c.blkHmin[q] >= b) {
				return false
			}
		}
	}
	return true
}
