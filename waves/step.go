package waves

import (
	"math"
	"slices"
)

// Blocks of blockSize x blockSize cells let a particle in open water skip the walk
// through the cells it crosses (see blocks below).
const (
	blockShift = 3
	blockSize  = 1 << blockShift
	blockMask  = blockSize - 1
)

// maxTurn bounds the change of a particle's direction vector in one step by refraction
// (|d dir| <= maxTurn before renormalising: at most 26.6 degrees).
const maxTurn = 0.5

const wet32 = float32(WetDepth)

// noFastPath, set by tests, closes every block: every move walks its cells.
var noFastPath bool

// job kinds for the pool
const (
	jobMove = iota
	jobBlocks
	jobField
)

func (c *core) job(kind, w int) {
	switch kind {
	case jobMove:
		c.moveChunk(w)
	case jobBlocks:
		c.blockRows(w)
	case jobField:
		c.fieldBand(w)
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
				c.pool.run(jobBlocks)
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
	c.pool.run(jobMove)
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
	nw := c.pool.n
	lo, hi := c.nJob*w/nw, c.nJob*(w+1)/nw
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
	d00, d10 := float64(H[c00]-base[c00]), float64(H[c10]-base[c10])
	d01, d11 := float64(H[c01]-base[c01]), float64(H[c11]-base[c11])
	depth := (d00*(1-fx)+d10*fx)*(1-fy) + (d01*(1-fx)+d11*fx)*fy
	gradX := ((d10-d00)*(1-fy) + (d11-d01)*fy) * c.invDx
	gradY := ((d01-d00)*(1-fx) + (d11-d10)*fx) * c.invDx
	var vx, vy float64
	if u := c.flow.VX; u != nil {
		v := c.flow.VY
		vx = (float64(u[c00])*(1-fx)+float64(u[c10])*fx)*(1-fy) + (float64(u[c01])*(1-fx)+float64(u[c11])*fx)*fy
		vy = (float64(v[c00])*(1-fx)+float64(v[c10])*fx)*(1-fy) + (float64(v[c01])*(1-fx)+float64(v[c11])*fx)*fy
	}

	r := float64(c.rad[i])
	k := math.Pi / r
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
	mx, my := dt*(cg*dx+vx), dt*(cg*dy+vy)
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
			if rb := c.rowBase[ecy]; rb >= 0 {
				ncol = rb + int32(ecx)
			} else {
				ncol = cols.CellStart[ecy*cols.Nx+ecx]
			}
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

// step is enter for a move from cell (x0, y0) to its neighbour (x, y): when both lie in
// open blocks the answer is known without looking.
func (c *core) step(x0, y0, x, y int, hp, bp float32) int32 {
	if x >= 0 && y >= 0 && x < c.cols.Nx && y < c.cols.Ny &&
		c.blkClear[(y>>blockShift)*c.nbx+x>>blockShift] != 0 &&
		c.blkClear[(y0>>blockShift)*c.nbx+x0>>blockShift] != 0 {
		return c.cols.CellStart[y*c.cols.Nx+x]
	}
	return c.enter(x, y, hp, bp)
}

// trace moves a particle from (x, y) on column col by (mx, my), walking the cells the
// segment crosses (a DDA). Where it would enter a cell it may not (enter), it is
// mirrored about the face: the rest of the segment is reflected and the direction's
// component normal to the face flips (flipX, flipY say which, an odd number of times).
func (c *core) trace(x, y float64, col int32, mx, my float64) (ex, ey float64, ncol int32, ncx, ncy int, flipX, flipY bool) {
	cols := c.cols
	dx := cols.Dx
	cx, cy := int(c.colX[col]), int(c.colY[col])
	hp := min(c.flow.Height[col], cols.Max[col])
	bp := cols.Base[col]
	ex, ey = x+mx, y+my
	guard := 2*int((math.Abs(mx)+math.Abs(my))*c.invDx) + 8
	for range guard {
		x0, x1 := float64(cx)*dx, float64(cx+1)*dx
		y0, y1 := float64(cy)*dx, float64(cy+1)*dx
		tx, ty := 2.0, 2.0
		sx, sy := 0, 0
		var xf, yf float64
		if ex > x1 {
			tx, sx, xf = (x1-x)/(ex-x), 1, x1
		} else if ex < x0 {
			tx, sx, xf = (x0-x)/(ex-x), -1, x0
		}
		if ey > y1 {
			ty, sy, yf = (y1-y)/(ey-y), 1, y1
		} else if ey < y0 {
			ty, sy, yf = (y0-y)/(ey-y), -1, y0
		}
		if sx == 0 && sy == 0 {
			return ex, ey, col, cx, cy, flipX, flipY
		}
		if sx != 0 && (sy == 0 || tx <= ty) {
			t := clamp01(tx)
			yc := y + t*(ey-y)
			if j := c.step(cx, cy, cx+sx, cy, hp, bp); j >= 0 {
				cx += sx
				col, hp, bp = j, min(c.flow.Height[j], cols.Max[j]), cols.Base[j]
			} else {
				ex = 2*xf - ex
				flipX = !flipX
			}
			x, y = xf, yc
		} else {
			t := clamp01(ty)
			xc := x + t*(ex-x)
			if j := c.step(cx, cy, cx, cy+sy, hp, bp); j >= 0 {
				cy += sy
				col, hp, bp = j, min(c.flow.Height[j], cols.Max[j]), cols.Base[j]
			} else {
				ey = 2*yf - ey
				flipY = !flipY
			}
			x, y = xc, yf
		}
	}
	// Out of crossings (a segment bouncing in a one-cell gap): stop where it is.
	return x, y, col, cx, cy, flipX, flipY
}

func clamp01(t float64) float64 {
	if !(t > 0) {
		return 0
	}
	return min(t, 1)
}

// Open blocks. A block is open for this Advance when each of its cells holds one column,
// wet, whose liquid height lies within [max Base, min Max] over the block and its ring of
// neighbour cells. Then a particle may move between any two neighbouring cells of open
// blocks (enter would say yes): in the first cell hp >= every Base and <= every Max of
// the block's ring, which holds the second cell, and the second's liquid height reaches
// above the first's Base the same way. blkClear holds the Chebyshev distance, in blocks,
// to the nearest block that is not open, so a move that stays within margin cells of
// its start crosses no wall, and needs no walk.

// blockRows decides which of worker w's rows of blocks are open, and the lowest and
// highest liquid heights of each open block.
func (c *core) blockRows(w int) {
	cols := c.cols
	nw := c.pool.n
	H, base := c.flow.Height, cols.Base
	for by := c.nby * w / nw; by < c.nby*(w+1)/nw; by++ {
		for bx := range c.nbx {
			b := by*c.nbx + bx
			open := c.blkOK[b] && !noFastPath
			mb, mm := c.blkMaxBase[b], c.blkMinMax[b]
			hmin, hmax := float32(math.Inf(1)), float32(math.Inf(-1))
			for y := by * blockSize; open && y < (by+1)*blockSize; y++ {
				// an open block's cells hold one column each: its row's columns are
				// consecutive (CellStart of the first, then one more a cell)
				c0 := int(cols.CellStart[y*cols.Nx+bx*blockSize])
				hs, bs := (*[blockSize]float32)(H[c0:]), (*[blockSize]float32)(base[c0:])
				for q, h := range hs {
					if !(h-bs[q] > wet32 && h >= mb && h <= mm) {
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
			c.blkHmin[b], c.blkHmax[b] = hmin, hmax
			if open {
				c.blkClear[b] = 1
			} else {
				c.blkClear[b] = 0
			}
		}
	}
}

// openBox reports whether every block holding a cell of [x0, x1] x [y0, y1] is open
// (cells outside the grid are in no open block).
func (c *core) openBox(x0, y0, x1, y1 int) bool {
	if x0 < 0 || y0 < 0 || x1 >= c.cols.Nx || y1 >= c.cols.Ny {
		return false
	}
	for by := y0 >> blockShift; by <= y1>>blockShift; by++ {
		for bx := x0 >> blockShift; bx <= x1>>blockShift; bx++ {
			if c.blkClear[by*c.nbx+bx] == 0 {
				return false
			}
		}
	}
	return true
}

// clearance turns the open flags into Chebyshev distances to the nearest block that is
// not open (outside the grid counts as not open): the two-pass chessboard transform.
func (c *core) clearance() {
	nbx, nby := c.nbx, c.nby
	d := c.blkClear
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
