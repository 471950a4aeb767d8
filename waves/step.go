package waves

import (
	"math"
	"slices"

	"github.com/vpbench/vpbench/internal/parallel"
)

// Blocks of blockSize x blockSize cells let a particle in open water skip the walk
// through the cells it crosses (see blocks below).
const (
	blockShift  = 3
	blockSize   = 1 << blockShift
	blockMask   = blockSize - 1
	blockLayers = 4 // the most columns a cell of an open block may hold
)

// maxTurn bounds the change of a particle's direction vector in one step by refraction
// (|d dir| <= maxTurn before renormalising: at most 26.6 degrees).
const maxTurn = 0.5

const wet32 = float32(WetDepth)

// job kinds for the pool
const (
	jobMove = iota
	jobBlocks
	jobField
	jobFoot // jobBlocks, then bandLists
	jobKinds
)

func (c *core) job(kind, w int) {
	switch kind {
	case jobMove:
		c.moveChunk(w)
	case jobBlocks:
		c.blockRows(w)
	case jobField:
		c.fieldBand(w)
	case jobFoot:
		c.blockRows(w)
		c.bandLists(w)
	}
}

// stepOne results
const (
	stepLive = iota
	stepDead
	stepSplit
)

// Advance steps the particles at the fixed wave step up to simulated time to: every
// step whose end is at most to (within 1e-9 of a step) runs, so Advance(a) then
// Advance(b) equals Advance(b). Queued impacts and launches start at the step that
// holds their time; their particles move only for the part of that step after it.
// f must have one height per column (and velocities, if given); Advance panics if not.
func (s *System) Advance(to float64, f Flow) {
	c := s.c
	c.checkFlow(f)
	if math.IsNaN(to) || math.IsInf(to, 0) {
		return
	}
	c.flow = f
	blocksReady := false
	if len(c.queue) > 1 {
		c.sortQueue()
	}
	dt := c.p.dt
	for {
		tn := c.time()
		tNext := c.t0 + float64(c.steps+1)*dt
		if !(tNext <= to+1e-9*dt) {
			break
		}
		due := len(c.queue) > 0 && !(c.queue[0].time > tNext)
		if len(c.px) == 0 && !due {
			// Nothing to move: jump over the idle steps (all but the last two before
			// to or the next queued time, which the loop then takes one by one).
			limit := to
			if len(c.queue) > 0 {
				limit = min(limit, c.queue[0].time)
			}
			if n := int64(min(math.Floor((limit-c.t0)/dt), 1<<52)) - c.steps - 2; n > 0 {
				c.steps += n
				c.stats.Steps += n
				continue
			}
		}
		// pz, the liquid height each particle saw, is only read by SetColumns: write it
		// in the last step of the call.
		c.lastStep = !(c.t0+float64(c.steps+2)*dt <= to+1e-9*dt)
		if len(c.px) > 0 || due {
			if !blocksReady {
				c.run(jobBlocks)
				c.clearance()
				blocksReady = true
			}
			c.stepAll(dt)
			if due {
				c.spawnDue(tn, tNext)
			}
		}
		c.steps++
		c.stats.Steps++
	}
	c.flow = Flow{}
}

// stepAll moves every particle by one step dt, in parallel, then applies the
// subdivisions and removals in particle order.
func (c *core) stepAll(dt float64) {
	n := len(c.px)
	if n == 0 {
		return
	}
	c.dtJob, c.nJob = dt, n
	// No subdivision can succeed this step when the cap is reached already (only they
	// add particles): then the workers count them instead of listing them.
	c.full = n+2 > c.p.maxP
	c.run(jobMove)
	dead := 0
	for w := range c.ws {
		dead += c.ws[w].dead
		c.stats.Unsplit += c.ws[w].unsplit
	}
	for w := range c.ws {
		for _, i := range c.ws[w].splits {
			c.split(int(i))
		}
	}
	if dead > 0 {
		c.compact()
		c.stats.Removed += dead
	}
}

// moveChunk steps worker w's share of the particles: a contiguous range, so that the
// subdivisions it records, taken worker by worker, come in particle order.
func (c *core) moveChunk(w int) {
	sc := &c.ws[w]
	sc.splits = sc.splits[:0]
	sc.dead, sc.unsplit = 0, 0
	lo, hi := parallel.Chunk(c.nJob, c.pool.Workers(), w)
	for i := lo; i < hi; i++ {
		switch c.stepOne(sc, i, c.dtJob) {
		case stepDead:
			sc.dead++
		case stepSplit:
			if c.full {
				sc.unsplit++
			} else {
				sc.splits = append(sc.splits, int32(i))
			}
		}
	}
}

// stepOne moves particle i by one step of dt: refraction, advection by the flow, the
// move with reflections, damping. It marks a particle to remove with amplitude 0.
func (c *core) stepOne(sc *scratch, i int, dt float64) int {
	cols := c.cols
	H, base := c.flow.Height, cols.Base
	col := c.pcol[i]
	cx, cy := int(c.pcx[i]), int(c.pcy[i])
	m := c.margin(cx, cy)
	x, y := c.px[i], c.py[i]
	// In an open block the column is wet and every neighbour within m may be entered;
	// elsewhere look at the column itself.
	var hp, b0 float32
	if m < 1 {
		h0 := H[col]
		b0 = base[col]
		if !(h0-b0 > wet32) {
			c.amp[i] = 0
			return stepDead
		}
		hp = min(h0, cols.Max[col])
	}

	// Depth, its gradient and the flow, bilinear over the four cell centres around
	// (x, y), each the column of its cell on the particle's layer (own column where none).
	gx, gy := x*c.invDx-0.5, y*c.invDx-0.5
	fbx, fby := math.Floor(gx), math.Floor(gy)
	fx, fy := gx-fbx, gy-fby
	bx, by := int(fbx), int(fby)
	var c00, c10, c01, c11 int32
	if m >= 1 {
		if r0, r1 := c.rowBase[by], c.rowBase[by+1]; r0 >= 0 && r1 >= 0 {
			c00, c01 = r0+int32(bx), r1+int32(bx)
			c10, c11 = c00+1, c01+1
		} else {
			nx := cols.Nx
			k := by*nx + bx
			cs := cols.CellStart
			c00, c10, c01, c11 = cs[k], cs[k+1], cs[k+nx], cs[k+nx+1]
		}
	} else {
		c00 = c.sampleCol(bx, by, cx, cy, col, hp, b0)
		c10 = c.sampleCol(bx+1, by, cx, cy, col, hp, b0)
		c01 = c.sampleCol(bx, by+1, cx, cy, col, hp, b0)
		c11 = c.sampleCol(bx+1, by+1, cx, cy, col, hp, b0)
	}
	var d00, d10, d01, d11 float64
	if m >= 1 {
		// blockRows wrote the depths of open blocks' columns
		D := c.depth
		d00, d10, d01, d11 = float64(D[c00]), float64(D[c10]), float64(D[c01]), float64(D[c11])
	} else {
		d00, d10 = float64(H[c00]-base[c00]), float64(H[c10]-base[c10])
		d01, d11 = float64(H[c01]-base[c01]), float64(H[c11]-base[c11])
	}
	depth, gradX, gradY := d00, 0.0, 0.0
	if d10 != d00 || d01 != d00 || d11 != d00 { // (else uniform depth: exact, and no gradient)
		depth = (d00*(1-fx)+d10*fx)*(1-fy) + (d01*(1-fx)+d11*fx)*fy
		gradX = ((d10-d00)*(1-fy) + (d11-d01)*fy) * c.invDx
		gradY = ((d01-d00)*(1-fx) + (d11-d10)*fx) * c.invDx
	}
	var vx, vy float64
	if u := c.flow.VX; u != nil {
		v := c.flow.VY
		vx = (float64(u[c00])*(1-fx)+float64(u[c10])*fx)*(1-fy) + (float64(u[c01])*(1-fx)+float64(u[c11])*fx)*fy
		vy = (float64(v[c00])*(1-fx)+float64(v[c10])*fx)*(1-fy) + (float64(v[c01])*(1-fx)+float64(v[c11])*fx)*fy
	}

	r := float64(c.rad[i])
	if r != sc.kr {
		sc.kr, sc.kk = r, math.Pi/r
	}
	k := sc.kk
	if !(depth >= WetDepth) {
		depth = WetDepth
	}
	// one-entry caches (particles of one ring share k and, in still liquid of uniform
	// depth, the depth): the same inputs give the same outputs
	if k != sc.ck || depth != sc.ch {
		sc.ccg, sc.cdc = dispersion(k, depth, c.p.g, c.p.s)
		sc.ck, sc.ch = k, depth
	}
	cg, dcdh := sc.ccg, sc.cdc

	// Refraction: d(dir)/dt = -(grad c - (grad c . dir) dir), c the phase speed (the ray
	// equation dk/dt = -grad omega at fixed k), grad c = dc/dh grad h.
	dx, dy := float64(c.dirx[i]), float64(c.diry[i])
	if dcdh != 0 && (gradX != 0 || gradY != 0) {
		gcx, gcy := dcdh*gradX, dcdh*gradY
		dot := gcx*dx + gcy*dy
		tx, ty := -(gcx-dot*dx)*dt, -(gcy-dot*dy)*dt
		if l2 := tx*tx + ty*ty; l2 > maxTurn*maxTurn {
			f := maxTurn / math.Sqrt(l2)
			tx, ty = tx*f, ty*f
		}
		dx, dy = dx+tx, dy+ty
		l := math.Sqrt(dx*dx + dy*dy)
		dx, dy = dx/l, dy/l
	}

	// The move: the wave's own speed along dir plus the flow.
	// (rounded as products: the end x+mx must be the same whether trace or the fast path
	// below adds it, also where the compiler fuses multiply-adds)
	mx, my := float64(dt*(cg*dx+vx)), float64(dt*(cg*dy+vy))
	if mx-mx != 0 || my-my != 0 { // NaN or infinite
		c.amp[i] = 0
		return stepDead
	}
	ex, ey := x+mx, y+my
	ncol := col
	fex, fey := math.Floor(ex*c.invDx), math.Floor(ey*c.invDx)
	fast := false
	if m >= 0 {
		if fex >= 0 && fey >= 0 && fex < float64(cols.Nx) && fey < float64(cols.Ny) {
			ecx, ecy := int(fex), int(fey)
			if ecx-cx <= m && cx-ecx <= m && ecy-cy <= m && cy-ecy <= m {
				fast = true
			} else {
				fast = c.openBox(min(cx, ecx), min(cy, ecy), max(cx, ecx), max(cy, ecy))
			}
		} else if ok, fx, fy, flipX, flipY := c.fold(cx, cy, ex, ey); ok {
			// The move leaves the grid through open water: its image in the grid's sides.
			fast = true
			ex, ey = fx, fy
			fex, fey = math.Floor(ex*c.invDx), math.Floor(ey*c.invDx)
			if flipX {
				dx = -dx
			}
			if flipY {
				dy = -dy
			}
		}
	}
	ncx, ncy := cx, cy
	if fast {
		// Every cell the move can cross lies in open blocks: no wall on the way.
		if ecx, ecy := int(fex), int(fey); ecx != cx || ecy != cy {
			ncx, ncy = ecx, ecy
			ncol = c.cellColumn(ecx, ecy)
		}
	} else {
		var flipX, flipY bool
		ex, ey, ncol, ncx, ncy, flipX, flipY = c.trace(x, y, col, mx, my)
		if flipX {
			dx = -dx
		}
		if flipY {
			dy = -dy
		}
	}
	c.px[i], c.py[i], c.pcol[i] = ex, ey, ncol
	c.pcx[i], c.pcy[i] = int32(ncx), int32(ncy)
	c.dirx[i], c.diry[i] = float32(dx), float32(dy)
	if c.lastStep {
		c.pz[i] = H[ncol]
	}

	dist := c.dist[i] + float32(cg*dt)
	c.dist[i] = dist
	if k != sc.dk || dt != sc.ddt {
		sc.dfac = float32(math.Exp(-2 * c.p.nu * k * k * dt))
		sc.dk, sc.ddt = k, dt
	}
	a := c.amp[i] * sc.dfac
	if !(a >= c.p.minAmp || -a >= c.p.minAmp) {
		c.amp[i] = 0
		return stepDead
	}
	c.amp[i] = a
	if float64(c.ang[i])*float64(dist) > r/2 {
		return stepSplit
	}
	return stepLive
}

// cellColumn returns the column of cell (x, y), which holds one.
func (c *core) cellColumn(x, y int) int32 {
	if rb := c.rowBase[y]; rb >= 0 {
		return rb + int32(x)
	}
	return c.cols.CellStart[y*c.cols.Nx+x]
}

// sampleCol returns the column of cell (x, y) a particle on column col (liquid height hp,
// base bp) in cell (cx, cy) samples: its own column in its own cell, the column it could
// move to (enter) in another, and its own column where there is none.
func (c *core) sampleCol(x, y, cx, cy int, col int32, hp, bp float32) int32 {
	if x == cx && y == cy {
		return col
	}
	if j := c.enter(x, y, hp, bp); j >= 0 {
		return j
	}
	return col
}

// enter returns the column of cell (x, y) a particle whose column has liquid height hp
// and base bp may move to, or -1 for a wall: the column whose free interval [Base, Max]
// holds hp, if it is wet and its liquid reaches down to bp (the two columns' liquids
// touch, so a pool above a slab never leaks onto the pool below).
func (c *core) enter(x, y int, hp, bp float32) int32 {
	cols := c.cols
	if x < 0 || y < 0 || x >= cols.Nx || y >= cols.Ny {
		return -1
	}
	k := y*cols.Nx + x
	for j := cols.CellStart[k]; j < cols.CellStart[k+1]; j++ {
		if cols.Base[j] <= hp && hp <= cols.Max[j] {
			if h := c.flow.Height[j]; h-cols.Base[j] > wet32 && h >= bp {
				return j
			}
			return -1
		}
	}
	return -1
}

// fold mirrors the end (ex, ey) of a move from cell (cx, cy) that leaves the grid about
// the sides it crosses, as trace would (the same arithmetic), and reports whether every
// cell the move and its image can pass lies in open blocks, so that the sides are the
// only walls met.
func (c *core) fold(cx, cy int, ex, ey float64) (ok bool, fx, fy float64, flipX, flipY bool) {
	cols := c.cols
	nx, ny := cols.Nx, cols.Ny
	x0, x1, y0, y1 := cx, cx, cy, cy // the cells to check
	fx, fy = ex, ey
	if w := float64(nx) * cols.Dx; ex > w {
		fx, flipX, x1 = 2*w-ex, true, nx-1
	} else if ex < 0 {
		fx, flipX, x0 = 2*0-ex, true, 0
	}
	if h := float64(ny) * cols.Dx; ey > h {
		fy, flipY, y1 = 2*h-ey, true, ny-1
	} else if ey < 0 {
		fy, flipY, y0 = 2*0-ey, true, 0
	}
	efx, efy := math.Floor(fx*c.invDx), math.Floor(fy*c.invDx)
	if !(efx >= 0 && efy >= 0 && efx < float64(nx) && efy < float64(ny)) {
		return false, ex, ey, false, false
	}
	ecx, ecy := int(efx), int(efy)
	return c.openBox(min(x0, ecx), min(y0, ecy), max(x1, ecx), max(y1, ecy)), fx, fy, flipX, flipY
}

// trace moves a particle from (x, y) on column col by (mx, my), walking the cells the
// segment crosses (a DDA). Where it would enter a cell it may not (enter), it is
// mirrored about the face: the rest of the segment is reflected and the direction's
// component normal to the face flips (flipX, flipY say which, an odd number of times).
//
// Whether a crossing is left along an axis comes from the end point (mirrored at each
// reflection) and the current cell's faces; which axis crosses first, from the times of
// the next crossings along the segment, t in [0, 1]: the first is a division, each next
// one dx / |m| later, whether the particle crossed the face or was mirrored at it (either
// way the next face along that axis is a cell away). So a crossing costs no division.
func (c *core) trace(x, y float64, col int32, mx, my float64) (ex, ey float64, ncol int32, ncx, ncy int, flipX, flipY bool) {
	cols := c.cols
	dx := cols.Dx
	cx, cy := int(c.colX[col]), int(c.colY[col])
	cs, H, top := cols.CellStart, c.flow.Height, cols.Max
	k := int(col - cs[cy*cols.Nx+cx]) // col is the k-th column of its cell
	ex, ey = x+mx, y+my
	// times of the next crossing along x and y, and between two
	tnx, tny, tdx, tdy := math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
	if mx > 0 {
		tnx, tdx = (float64(cx+1)*dx-x)/mx, dx/mx
	} else if mx < 0 {
		tnx, tdx = (float64(cx)*dx-x)/mx, -dx/mx
	}
	if my > 0 {
		tny, tdy = (float64(cy+1)*dx-y)/my, dx/my
	} else if my < 0 {
		tny, tdy = (float64(cy)*dx-y)/my, -dx/my
	}
	guard := 2*int((math.Abs(mx)+math.Abs(my))*c.invDx) + 8
	nx := cols.Nx
	blk := -1 // the block of the last look ahead
	for range guard {
		b := (cy>>blockShift)*c.nbx + cx>>blockShift // the current cell's block
		if b != blk && k == 0 && c.blkClear[b] != 0 {
			// Entering an open block (one column a cell): if the rest of the segment lies
			// in open blocks, no wall is left on the way, and it ends in the cell of its
			// end, as the fast path of stepOne (whose look is the same at the start).
			blk = b
			fex, fey := math.Floor(ex*c.invDx), math.Floor(ey*c.invDx)
			if fex >= 0 && fey >= 0 && fex < float64(cols.Nx) && fey < float64(cols.Ny) {
				ecx, ecy := int(fex), int(fey)
				if c.openBox(min(cx, ecx), min(cy, ecy), max(cx, ecx), max(cy, ecy)) {
					return ex, ey, c.cellColumn(ecx, ecy), ecx, ecy, flipX, flipY
				}
			}
		}
		x0, x1 := float64(cx)*dx, float64(cx+1)*dx
		y0, y1 := float64(cy)*dx, float64(cy+1)*dx
		sx, sy := 0, 0
		var xf, yf float64
		if ex > x1 {
			sx, xf = 1, x1
		} else if ex < x0 {
			sx, xf = -1, x0
		}
		if ey > y1 {
			sy, yf = 1, y1
		} else if ey < y0 {
			sy, yf = -1, y0
		}
		if sx == 0 && sy == 0 {
			return ex, ey, col, cx, cy, flipX, flipY
		}
		alongX := sx != 0 && (sy == 0 || tnx <= tny)
		tx, ty := cx+sx, cy // the cell to enter
		if !alongX {
			tx, ty = cx, cy+sy
		}
		// The column entered: known without looking when both cells lie in blocks open
		// on layer k with as many columns a cell (see "Open blocks"), else enter's (which
		// reads the current column's liquid height and Base).
		j := int32(-1)
		if tx >= 0 && ty >= 0 && tx < nx && ty < cols.Ny {
			a := (ty>>blockShift)*c.nbx + tx>>blockShift
			if (c.blkMask[a]&c.blkMask[b])>>k&1 != 0 && c.blkK[a] == c.blkK[b] {
				j = cs[ty*nx+tx] + int32(k)
			} else if j = c.enter(tx, ty, lowest(H[col], top[col]), cols.Base[col]); j >= 0 {
				k = int(j - cs[ty*nx+tx])
			}
		}
		if alongX {
			if j >= 0 {
				cx, col = tx, j
			} else {
				ex = 2*xf - ex
				flipX = !flipX
			}
			x = xf // (x, y: only for the stop below; y(t) = ey - (1-t) my, mirrored as ey)
			if y = ey - (1-clamp01(tnx))*my; flipY {
				y = ey + (1-clamp01(tnx))*my
			}
			tnx += tdx
		} else {
			if j >= 0 {
				cy, col = ty, j
			} else {
				ey = 2*yf - ey
				flipY = !flipY
			}
			if x, y = ex-(1-clamp01(tny))*mx, yf; flipX {
				x = ex + (1-clamp01(tny))*mx
			}
			tny += tdy
		}
	}
	// Out of crossings (a segment bouncing in a one-cell gap): stop where it is.
	return x, y, col, cx, cy, flipX, flipY
}

func clamp01(t float64) float64 {
	if !(t > 0) {
		return 0
	}
	if t > 1 {
		return 1
	}
	return t
}

// lowest is min(h, top) for a liquid height h (NaN stays NaN) and a column's top, without
// the builtin's handling of NaN in both and of signed zeros.
func lowest(h, top float32) float32 {
	if top < h {
		return top
	}
	return h
}

// Open blocks. Every cell of a block holding the same number K of columns (blkK), layer
// k < K is open within the block for this Advance (blkSelf) when the k-th column of each
// of its cells is wet, and its liquid height lies within [max Base, min Max] of the k-th
// columns of the block's cells and above every Max of their (k-1)-th columns. The block
// is open on layer k (blkMask) when besides, for each of its eight neighbour blocks with
// as many columns a cell and layer k open within, each block's liquid heights on layer k
// lie within the other's bounds that way (openBlocks). Then a particle on the k-th column
// of a cell may move to a neighbouring cell's k-th column, both cells in blocks open on
// layer k with the same K (enter would say yes): its hp is >= every Base and <= every Max
// of those columns in the second cell's block, and above the column below, so the second
// cell's k-th column is the one whose free interval holds hp; and the second's liquid
// height reaches above the first's Base the same way. Blocks that are not open within,
// such as those holding a dry cell or a wall, constrain no neighbour: a move into them
// walks (enter). With K = 1 (one column a cell, most of a scene) blkClear holds the
// Chebyshev distance, in blocks, to the nearest block not so open, so a move that stays
// within margin cells of its start crosses no wall, and needs no walk; with more (and
// with one), trace skips enter.

// blockRows decides which of worker w's rows of blocks are open, and on which layers,
// and the lowest and highest liquid heights of each open layer; for Advance, it writes
// the depths of the columns of open blocks (one column a cell) for stepOne.
func (c *core) blockRows(w int) {
	cols := c.cols
	H, base := c.flow.Height, cols.Base
	advance := c.dst == nil // (only Advance reads the depths)
	by0, by1 := parallel.Chunk(c.nby, c.pool.Workers(), w)
	for by := by0; by < by1; by++ {
		for bx := range c.nbx {
			b := by*c.nbx + bx
			c.blkSelf[b] = 0
			K := int(c.blkK[b])
			if K > 1 && !c.walkAll {
				c.layerRows(b, bx, by, K)
				continue
			}
			open := K == 1 && !c.walkAll
			mb, mm := c.blkMaxBase[b*blockLayers], c.blkMinMax[b*blockLayers]
			hmin, hmax := float32(math.Inf(1)), float32(math.Inf(-1))
			for y := by * blockSize; open && y < (by+1)*blockSize; y++ {
				// an open block's cells hold one column each: its row's columns are
				// consecutive (CellStart of the first, then one more a cell)
				c0 := int(cols.CellStart[y*cols.Nx+bx*blockSize])
				hs, bs := (*[blockSize]float32)(H[c0:]), (*[blockSize]float32)(base[c0:])
				ds := (*[blockSize]float32)(c.depth[c0:])
				for q, h := range hs {
					d := h - bs[q]
					if advance {
						ds[q] = d
					}
					if !(d > wet32 && h >= mb && h <= mm) {
						open = false
						break
					}
					if h < hmin {
						hmin = h
					}
					if h > hmax {
						hmax = h
					}
				}
			}
			c.blkHmin[b*blockLayers], c.blkHmax[b*blockLayers] = hmin, hmax
			if open {
				c.blkSelf[b] = 1
			}
		}
	}
}

// layerRows is blockRows for block b, at (bx, by), whose cells hold K > 1 columns each.
func (c *core) layerRows(b, bx, by, K int) {
	cols := c.cols
	H, base := c.flow.Height, cols.Base
	o := b * blockLayers
	mb, mm, ml := c.blkMaxBase[o:o+K], c.blkMinMax[o:o+K], c.blkMaxLow[o:o+K]
	hmin, hmax := c.blkHmin[o:o+K], c.blkHmax[o:o+K]
	for k := range K {
		hmin[k], hmax[k] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	mask := uint8(1)<<K - 1
	for y := by * blockSize; mask != 0 && y < (by+1)*blockSize; y++ {
		// K columns a cell: the row's columns are consecutive, K a cell
		c0 := int(cols.CellStart[y*cols.Nx+bx*blockSize])
		hs, bs := H[c0:c0+K*blockSize], base[c0:c0+K*blockSize]
		for q := range blockSize {
			for k := range K {
				h := hs[q*K+k]
				if !(h-bs[q*K+k] > wet32 && h >= mb[k] && h <= mm[k] && h > ml[k]) {
					mask &^= 1 << k
				}
				if h < hmin[k] {
					hmin[k] = h
				}
				if h > hmax[k] {
					hmax[k] = h
				}
			}
		}
	}
	c.blkSelf[b] = mask
}

// openBlocks sets blkMask (and blkClear's open flags) from blkSelf: a block stays open
// on layer k when each neighbour open within on layer k, with as many columns a cell,
// takes its liquid heights on the layer and gives heights it takes (compatible). Each
// pair of neighbours is looked at once. It reports whether every two blocks open within
// on a layer are compatible.
func (c *core) openBlocks() (all bool) {
	const L = blockLayers
	nbx, nby := c.nbx, c.nby
	copy(c.blkMask, c.blkSelf)
	// Over all the blocks open within: when the lowest liquid height of each layer lies
	// above every Base and every lower column's Max, and the highest below every Max,
	// every pair is compatible (a pool of even depth on an even floor: most open water).
	var lo, hi, bmax, lmax, tmin [L]float32
	for k := range L {
		lo[k], tmin[k] = float32(math.Inf(1)), float32(math.Inf(1))
		hi[k], bmax[k], lmax[k] = float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))
	}
	for b, m := range c.blkSelf {
		for k := 0; m != 0; k, m = k+1, m>>1 {
			if m&1 != 0 {
				q := b*L + k
				lo[k], hi[k] = min(lo[k], c.blkHmin[q]), max(hi[k], c.blkHmax[q])
				bmax[k], lmax[k], tmin[k] = max(bmax[k], c.blkMaxBase[q]), max(lmax[k], c.blkMaxLow[q]), min(tmin[k], c.blkMinMax[q])
			}
		}
	}
	all = true
	for k := range L {
		all = all && lo[k] >= bmax[k] && hi[k] <= tmin[k] && lo[k] > lmax[k]
	}
	for by := 0; !all && by < nby; by++ {
		for bx := range nbx {
			b := by*nbx + bx
			mb := c.blkSelf[b]
			if mb == 0 {
				continue
			}
			// the neighbours after b: right, and the three below
			for _, d := range [4][2]int{{1, 0}, {-1, 1}, {0, 1}, {1, 1}} {
				x, y := bx+d[0], by+d[1]
				if x < 0 || x >= nbx || y >= nby {
					continue
				}
				a := y*nbx + x
				both := mb & c.blkSelf[a]
				if both == 0 || c.blkK[a] != c.blkK[b] {
					continue
				}
				for k := range blockLayers {
					if both>>k&1 != 0 && !c.compatible(a, b, k) {
						c.blkMask[a] &^= 1 << k
						c.blkMask[b] &^= 1 << k
					}
				}
			}
		}
	}
	for b, m := range c.blkMask {
		c.blkClear[b] = 0
		if m&1 != 0 && c.blkK[b] == 1 {
			c.blkClear[b] = 1
		}
	}
	return all
}

// compatible reports whether blocks a and b, both open within on layer k, each take the
// other's liquid heights on the layer: within its Base and Max bounds, above its lower
// columns' Max.
func (c *core) compatible(a, b, k int) bool {
	p, q := a*blockLayers+k, b*blockLayers+k
	return c.blkHmin[p] >= c.blkMaxBase[q] && c.blkHmax[p] <= c.blkMinMax[q] && c.blkHmin[p] > c.blkMaxLow[q] &&
		c.blkHmin[q] >= c.blkMaxBase[p] && c.blkHmax[q] <= c.blkMinMax[p] && c.blkHmin[q] > c.blkMaxLow[p]
}

// openBox reports whether every block holding a cell of [x0, x1] x [y0, y1] is open
// (cells outside the grid are in no open block): no block of the box is counted in
// blkShut.
func (c *core) openBox(x0, y0, x1, y1 int) bool {
	if x0 < 0 || y0 < 0 || x1 >= c.cols.Nx || y1 >= c.cols.Ny {
		return false
	}
	w := c.nbx + 1
	bx0, by0 := x0>>blockShift, (y0>>blockShift)*w
	bx1, by1 := x1>>blockShift+1, (y1>>blockShift+1)*w
	t := c.blkShut
	return t[by1+bx1]-t[by0+bx1]-t[by1+bx0]+t[by0+bx0] == 0
}

// clearance turns the open flags into Chebyshev distances to the nearest block that is
// not open (outside the grid counts as not open): the two-pass chessboard transform. It
// also counts the blocks that are not open in blkShut, a summed-area table: blkShut[y *
// (nbx+1) + x] is the number in the blocks [0, x) x [0, y).
func (c *core) clearance() {
	c.openBlocks()
	nbx, nby := c.nbx, c.nby
	d := c.blkClear
	t := c.blkShut
	for y := range nby {
		row := int32(0)
		for x := range nbx {
			if d[y*nbx+x] == 0 {
				row++
			}
			t[(y+1)*(nbx+1)+x+1] = t[y*(nbx+1)+x+1] + row
		}
	}
	at := func(x, y int) int32 {
		if x < 0 || y < 0 || x >= nbx || y >= nby {
			return 0
		}
		return d[y*nbx+x]
	}
	for y := range nby {
		for x := range nbx {
			if d[y*nbx+x] != 0 {
				d[y*nbx+x] = 1 + min(at(x-1, y), at(x-1, y-1), at(x, y-1), at(x+1, y-1))
			}
		}
	}
	for y := nby - 1; y >= 0; y-- {
		for x := nbx - 1; x >= 0; x-- {
			if v := d[y*nbx+x]; v != 0 {
				d[y*nbx+x] = min(v, 1+min(at(x+1, y), at(x+1, y+1), at(x, y+1), at(x-1, y+1)))
			}
		}
	}
}

// margin returns how many cells around (x, y) (Chebyshev distance) are sure to lie in
// open blocks; -1 when its own block is not open.
func (c *core) margin(x, y int) int {
	cl := c.blkClear[(y>>blockShift)*c.nbx+(x>>blockShift)]
	if cl == 0 {
		return -1
	}
	lx, ly := x&blockMask, y&blockMask
	return int(cl-1)*blockSize + min(lx, blockMask-lx, ly, blockMask-ly)
}

// split subdivides particle i (Yuksel et al.) and, as long as they need it, the particles
// it makes: each splits in three, the dispersion angle and the amplitude in thirds, the
// side ones turned by +-angle/3 and placed on the arc about the ring's centre. The stack
// order is fixed, so the result is too.
func (c *core) split(i int) {
	stack := append(c.stack[:0], int32(i))
	for len(stack) > 0 {
		j := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		r := float64(c.rad[j])
		if !(float64(c.ang[j])*float64(c.dist[j]) > r/2) {
			continue
		}
		if len(c.px)+2 > c.p.maxP {
			c.stats.Unsplit++
			continue
		}
		a3 := c.ang[j] / 3
		amp := c.amp[j] / 3
		c.ang[j], c.amp[j] = a3, amp
		d := float64(c.dist[j])
		x, y := c.px[j], c.py[j]
		dx, dy := float64(c.dirx[j]), float64(c.diry[j])
		ox, oy := x-d*dx, y-d*dy
		sn, cs := math.Sincos(float64(a3))
		stack = append(stack, int32(j))
		for _, s := range [2]float64{1, -1} {
			ndx, ndy := dx*cs-dy*s*sn, dx*s*sn+dy*cs
			nx, ny, ncol, ncx, ncy, fx, fy := c.trace(x, y, c.pcol[j], ox+d*ndx-x, oy+d*ndy-y)
			if fx {
				ndx = -ndx
			}
			if fy {
				ndy = -ndy
			}
			n := c.grow()
			c.px[n], c.py[n], c.pcol[n] = nx, ny, ncol
			c.pcx[n], c.pcy[n] = int32(ncx), int32(ncy)
			c.dirx[n], c.diry[n] = float32(ndx), float32(ndy)
			c.amp[n], c.rad[n], c.ang[n], c.dist[n] = amp, c.rad[j], a3, c.dist[j]
			c.pz[n] = c.flow.Height[ncol]
			stack = append(stack, int32(n))
		}
	}
	c.stack = stack
}

// spawnDue starts the queued impacts and launches whose time is at most tNext (the end
// of the step from tn), each moved for the part of the step after its time.
func (c *core) spawnDue(tn, tNext float64) {
	n := 0
	for n < len(c.queue) && !(c.queue[n].time > tNext) {
		q := &c.queue[n]
		n++
		if math.IsNaN(q.time) {
			c.stats.Missed++
			continue
		}
		first := len(c.px)
		if q.impact {
			c.spawnImpact(q.im)
		} else {
			c.spawnLaunch(q.p)
		}
		c.stepNew(first, tNext-max(q.time, tn))
	}
	c.queue = slices.Delete(c.queue, 0, n)
}

// stepNew moves the particles from first on by dt, sequentially.
func (c *core) stepNew(first int, dt float64) {
	end := len(c.px)
	if first == end {
		return
	}
	last := c.lastStep
	c.lastStep = true
	defer func() { c.lastStep = last }()
	sc := &c.ws[0]
	dead := 0
	for i := first; i < end; i++ {
		switch c.stepOne(sc, i, dt) {
		case stepDead:
			dead++
		case stepSplit:
			c.split(i)
		}
	}
	if dead > 0 {
		c.compact()
		c.stats.Removed += dead
	}
}

// startColumn returns the wet column of cell (x, y) whose free interval holds z, or -1.
func (c *core) startColumn(x, y, z float64) int32 {
	cols := c.cols
	if math.IsNaN(x + y + z) {
		return -1
	}
	ix, iy, ok := cols.CellAt(x, y)
	if !ok {
		return -1
	}
	col := cols.ColumnAt(ix, iy, z)
	if col < 0 || !(c.flow.Height[col]-cols.Base[col] > wet32) {
		return -1
	}
	return int32(col)
}

// spawnImpact starts an impact's rings: RingParticles particles moving outward on a
// ring of radius Radius about the point (placed by walking out from it, so a wall
// within Radius reflects them), and as many of opposite amplitude at the point itself
// (the trough that trails the crest by half a wavelength), unless CrestOnly.
func (c *core) spawnImpact(im Impact) {
	col := c.startColumn(im.X, im.Y, im.Z)
	r := im.Radius
	if r == 0 {
		r = c.p.radius
	}
	A := im.Amplitude * c.p.ampScale
	if col < 0 || !(r > 0) || math.IsInf(r, 0) || math.IsNaN(A) || math.IsInf(A, 0) {
		c.stats.Missed++
		return
	}
	if A == 0 {
		return
	}
	need := RingParticles
	if c.p.trough {
		need *= 2
	}
	if len(c.px)+need > c.p.maxP {
		c.stats.Dropped++
		return
	}
	c.stats.Impacts++
	a := float32(A / ringPeak(c.p.trough))
	angle := float32(2 * math.Pi / RingParticles)
	for ring := range need / RingParticles {
		for q := range RingParticles {
			dx, dy := ringX[q], ringY[q]
			x, y, pc, d, amp := im.X, im.Y, col, float32(0), -a
			pcx, pcy := int(c.colX[col]), int(c.colY[col])
			if ring == 0 {
				var fx, fy bool
				x, y, pc, pcx, pcy, fx, fy = c.trace(im.X, im.Y, col, r*dx, r*dy)
				if fx {
					dx = -dx
				}
				if fy {
					dy = -dy
				}
				d, amp = float32(r), a
			}
			n := c.grow()
			c.px[n], c.py[n], c.pcol[n] = x, y, pc
			c.pcx[n], c.pcy[n] = int32(pcx), int32(pcy)
			c.dirx[n], c.diry[n] = float32(dx), float32(dy)
			c.amp[n], c.rad[n], c.ang[n], c.dist[n] = amp, float32(r), angle, d
			c.pz[n] = c.flow.Height[pc]
		}
	}
}

// spawnLaunch starts one particle as Launch describes.
func (c *core) spawnLaunch(p Particle) {
	col := c.startColumn(p.X, p.Y, p.Z)
	r := p.Radius
	if r == 0 {
		r = c.p.radius
	}
	l := math.Hypot(p.DirX, p.DirY)
	if col < 0 || !(r > 0) || math.IsInf(r, 0) || !(l > 0) || math.IsInf(l, 0) ||
		math.IsNaN(p.Amplitude+p.Angle+p.Distance) || math.IsInf(p.Amplitude+p.Angle+p.Distance, 0) {
		c.stats.Missed++
		return
	}
	if len(c.px)+1 > c.p.maxP {
		c.stats.Dropped++
		return
	}
	c.stats.Impacts++
	n := c.grow()
	c.px[n], c.py[n], c.pcol[n] = p.X, p.Y, col
	c.pcx[n], c.pcy[n] = c.colX[col], c.colY[col]
	c.dirx[n], c.diry[n] = float32(p.DirX/l), float32(p.DirY/l)
	c.amp[n], c.rad[n] = float32(p.Amplitude), float32(r)
	c.ang[n], c.dist[n] = float32(max(p.Angle, 0)), float32(max(p.Distance, 0))
	c.pz[n] = c.flow.Height[col]
}
