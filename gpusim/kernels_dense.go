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
// nothing to the sums, so the results are bit-identical to the general layout. K carries a
// row of padding on both sides (cpuBackend.kPad) for the same reason.
//
// The phases are fused along rows. A worker walks its rows in order and, in one pass,
// computes a row's raw fluxes and then that row's K: the row's -y fluxes belong to the
// row before, just computed. In a second pass it computes a row's final fluxes and then
// that row's heights. Only a worker's first row needs a row it does not own (the +y pipes
// of the row above); it recomputes those fluxes into a private buffer with the same
// arithmetic, so they are the same bits. Raw fluxes (rx, ry) and final fluxes (fx, fy)
// live in separate arrays, so no worker reads what another is writing. A step is then
// three barriers instead of five, and each row is still in cache between its phases.

// denseGrid holds the dense layout's fluxes: final (the state) and raw.
type denseGrid struct {
	nx, ny int
	fx, rx []float32 // len nx*ny + 1
	fy, ry []float32 // len nx*ny + nx
	edge   [][]float32
}

func newDenseGrid(nx, ny int) *denseGrid {
	n := nx * ny
	return &denseGrid{nx: nx, ny: ny,
		fx: make([]float32, n+1), rx: make([]float32, n+1),
		fy: make([]float32, n+nx), ry: make([]float32, n+nx)}
}

// setWorkers makes each worker's private row buffer.
func (g *denseGrid) setWorkers(n int) {
	g.edge = make([][]float32, n)
	for w := range g.edge {
		g.edge[w] = make([]float32, g.nx)
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
// a+nx).
func (g *denseGrid) pipe(a, b int) *float32 {
	if b == a+1 {
		return &g.fx[a+1]
	}
	return &g.fy[a+g.nx]
}

func (c *cpuBackend) denseStep(w int) {
	rows := c.ranges[w]
	c.denseFluxOutflow(w, rows[0], rows[1])
	c.bar.wait()
	c.denseInflow(w)
	c.bar.wait()
	c.denseFinalHeight(w, rows[0], rows[1])
}

// rawRowX computes the raw fluxes of the +x pipes of row y into rx.
func (c *cpuBackend) rawRowX(y int) {
	g, p := c.dense, &c.p
	lo, hi := y*g.nx, (y+1)*g.nx
	hr, br := c.h[lo:hi], c.base[lo:hi]
	fx, rx := g.fx[lo+1:hi+1], g.rx[lo+1:hi+1]
	fx = fx[:len(hr)]
	rx = rx[:len(hr)]
	for x := 0; x+1 < len(hr); x++ {
		ha, hb := hr[x], hr[x+1]
		dh, da, db := ha-hb, ha-br[x], hb-br[x+1]
		rx[x] = p.viscous(p.zeta*fx[x]+p.acceleration(dh, da, db)*dh, da, db)
	}
}

// rawRowY computes the raw fluxes of the +y pipes of row y (y < ny-1) into dst (nx values).
func (c *cpuBackend) rawRowY(y int, dst []float32) {
	g, p := c.dense, &c.p
	nx := g.nx
	lo, hi := y*nx, (y+1)*nx
	hr, br, hu, bu := c.h[lo:hi], c.base[lo:hi], c.h[hi:hi+nx], c.base[hi:hi+nx]
	fy := g.fy[hi : hi+nx]
	dst, hu, bu, fy = dst[:len(hr)], hu[:len(hr)], bu[:len(hr)], fy[:len(hr)]
	for x := range hr {
		ha, hb := hr[x], hu[x]
		dh, da, db := ha-hb, ha-br[x], hb-bu[x]
		dst[x] = p.viscous(p.zeta*fy[x]+p.acceleration(dh, da, db)*dh, da, db)
	}
}

// denseFluxOutflow: for each row of [y0, y1), the raw fluxes of its pipes, then K for its
// columns, S = 1 where no overflow is possible and the list of the others for denseInflow.
// Pipes are summed in the order -y, -x, +x, +y.
func (c *cpuBackend) denseFluxOutflow(w, y0, y1 int) {
	g, p := c.dense, &c.p
	nx := g.nx
	above := g.ry[y0*nx : y0*nx+nx] // raw -y fluxes of row y0: zeros for row 0
	if y0 > 0 {
		above = g.edge[w]
		c.rawRowY(y0-1, above)
	}
	flag := c.flag[w][:0]
	for y := y0; y < y1; y++ {
		lo, hi := y*nx, (y+1)*nx
		c.rawRowX(y)
		below := g.ry[hi : hi+nx] // raw +y fluxes of row y: stay zero on the last row
		if y+1 < g.ny {
			c.rawRowY(y, below)
		}
		rxm, rxp := g.rx[lo:hi], g.rx[lo+1:hi+1]
		hr, br, tr, kr, sr := c.h[lo:hi], c.base[lo:hi], c.top[lo:hi], c.k[lo:hi], c.s[lo:hi]
		rr := c.r[lo:hi]
		above, below, rxm, rxp = above[:len(hr)], below[:len(hr)], rxm[:len(hr)], rxp[:len(hr)]
		br, tr, kr, sr, rr = br[:len(hr)], tr[:len(hr)], kr[:len(hr)], sr[:len(hr)], rr[:len(hr)]
		for j := range hr {
			var out2, in2 float32
			out2, in2 = splitSum(out2, in2, -above[j])
			out2, in2 = splitSum(out2, in2, -rxm[j])
			out2, in2 = splitSum(out2, in2, rxp[j])
			out2, in2 = splitSum(out2, in2, below[j])
			out, in := out2*0.5, in2*0.5
			kr[j] = p.outflowFactor(out, (hr[j]-br[j])+rr[j])
			sr[j] = 1
			if p.mayOverflow(in, (tr[j]-hr[j])-rr[j]) {
				flag = append(flag, int32(lo+j))
			}
		}
		above = below
	}
	c.flag[w] = flag
}

// denseInflow: S for the columns denseFluxOutflow listed.
func (c *cpuBackend) denseInflow(w int) {
	g := c.dense
	nx := g.nx
	kp := c.kPad // k of column i is kp[i+nx]
	for _, i32 := range c.flag[w] {
		i := int(i32)
		var in float32
		in += min(-g.ry[i], 0) * kp[i]
		in += min(-g.rx[i], 0) * kp[i-1+nx]
		in += min(g.rx[i+1], 0) * kp[i+1+nx]
		in += min(g.ry[i+nx], 0) * kp[i+2*nx]
		c.s[i] = c.p.inflowFactor(in, (c.top[i]-c.h[i])-c.r[i])
	}
}

// finalRowX computes the final fluxes of the +x pipes of row y into fx.
func (c *cpuBackend) finalRowX(y int) {
	g := c.dense
	lo, hi := y*g.nx, (y+1)*g.nx
	kr, sr := c.k[lo:hi], c.s[lo:hi]
	rx, fx := g.rx[lo+1:hi+1], g.fx[lo+1:hi+1]
	rx, fx = rx[:len(kr)], fx[:len(kr)]
	sr = sr[:len(kr)]
	for x := 0; x+1 < len(kr); x++ {
		fx[x] = finalFlux(rx[x], kr[x], kr[x+1], sr[x], sr[x+1])
	}
}

// finalRowY computes the final fluxes of the +y pipes of row y (y < ny-1) into dst.
func (c *cpuBackend) finalRowY(y int, dst []float32) {
	g := c.dense
	nx := g.nx
	lo, hi := y*nx, (y+1)*nx
	kr, sr, ku, su := c.k[lo:hi], c.s[lo:hi], c.k[hi:hi+nx], c.s[hi:hi+nx]
	ry := g.ry[hi : hi+nx]
	dst, ry = dst[:len(kr)], ry[:len(kr)]
	sr, ku, su = sr[:len(kr)], ku[:len(kr)], su[:len(kr)]
	for x := range kr {
		dst[x] = finalFlux(ry[x], kr[x], ku[x], sr[x], su[x])
	}
}

// denseFinalHeight: for each row of [y0, y1), the final fluxes of its pipes, then the
// height update of its columns.
func (c *cpuBackend) denseFinalHeight(w, y0, y1 int) {
	g, p := c.dense, &c.p
	nx := g.nx
	above := g.fy[y0*nx : y0*nx+nx] // final -y fluxes of row y0: zeros for row 0
	if y0 > 0 {
		above = g.edge[w]
		c.finalRowY(y0-1, above)
	}
	for y := y0; y < y1; y++ {
		lo, hi := y*nx, (y+1)*nx
		c.finalRowX(y)
		below := g.fy[hi : hi+nx]
		if y+1 < g.ny {
			c.finalRowY(y, below)
		}
		fxm, fxp := g.fx[lo:hi], g.fx[lo+1:hi+1]
		hr, rr, br, tr := c.h[lo:hi], c.r[lo:hi], c.base[lo:hi], c.top[lo:hi]
		above, below, fxm, fxp = above[:len(hr)], below[:len(hr)], fxm[:len(hr)], fxp[:len(hr)]
		rr, br, tr = rr[:len(hr)], br[:len(hr)], tr[:len(hr)]
		for j := range hr {
			var out float64
			out += float64(-above[j])
			out += float64(-fxm[j])
			out += float64(fxp[j])
			out += float64(below[j])
			hr[j], rr[j] = settleHeight(p.updateHeight(out, hr[j], rr[j]), br[j], tr[j])
		}
		above = below
	}
}
