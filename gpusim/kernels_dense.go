package gpusim

// The dense layout, for terrains with exactly one column per cell and every pair of
// neighbours joined by a pipe (a single-layer terrain with no fully solid cell): column i
// is cell i = y*nx + x, and its pipes are found by index arithmetic instead of lists,
// which makes every access sequential.
//
// The raw flux of the +x pipe of column i is fx[i+1] and that of its +y pipe fy[i+nx]:
// both arrays carry one leading row (fy) or entry (fx) of zeros, so the -x pipe of i is
// fx[i] and its -y pipe fy[i], with no edge test. Pipes that do not exist (the +x pipe of
// the last column of a row, the +y pipes of the last row) stay zero; a zero flux adds
// exactly nothing to the sums, so the results are bit-identical to the general layout.
// K carries a row of padding on both sides (cpuBackend.kPad) for the same reason.

// denseGrid holds the dense layout's fluxes.
type denseGrid struct {
	nx, ny int
	fx     []float32 // len nx*ny + 1
	fy     []float32 // len nx*ny + nx
}

func newDenseGrid(nx, ny int) *denseGrid {
	return &denseGrid{nx: nx, ny: ny, fx: make([]float32, nx*ny+1), fy: make([]float32, nx*ny+nx)}
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

// pipe returns the flux slot of the pipe from column a to column b (b = a+1 or a+nx).
func (g *denseGrid) pipe(a, b int) *float32 {
	if b == a+1 {
		return &g.fx[a+1]
	}
	return &g.fy[a+g.nx]
}

func (c *cpuBackend) denseStep(w int) {
	rows := c.ranges[w]
	c.denseFlux(rows[0], rows[1])
	c.bar.wait()
	c.denseOutflow(w, rows[0], rows[1])
	c.bar.wait()
	c.denseInflow(w)
	c.bar.wait()
	c.denseFinal(rows[0], rows[1])
	c.bar.wait()
	c.denseHeight(rows[0], rows[1])
}

// denseFlux: the flux update of the +x and +y pipes of the columns of rows [y0, y1).
func (c *cpuBackend) denseFlux(y0, y1 int) {
	g := c.dense
	nx := g.nx
	base, h := c.base, c.h
	p := &c.p
	for y := y0; y < y1; y++ {
		lo, hi := y*nx, (y+1)*nx
		// +x pipes: a = i, b = i+1, slot fx[i+1].
		hr, br := h[lo:hi], base[lo:hi]
		fx := g.fx[lo+1 : hi+1]
		for x := 0; x+1 < len(hr); x++ {
			ha, hb := hr[x], hr[x+1]
			dh, da, db := ha-hb, ha-br[x], hb-br[x+1]
			fx[x] = p.viscous(p.zeta*fx[x]+p.acceleration(dh, da, db)*dh, da, db)
		}
		if y+1 == g.ny {
			continue
		}
		// +y pipes: a = i, b = i+nx, slot fy[i+nx].
		hu, bu := h[hi:hi+nx], base[hi:hi+nx]
		fy := g.fy[hi : hi+nx]
		for x := range hr {
			ha, hb := hr[x], hu[x]
			dh, da, db := ha-hb, ha-br[x], hb-bu[x]
			fy[x] = p.viscous(p.zeta*fy[x]+p.acceleration(dh, da, db)*dh, da, db)
		}
	}
}

// denseFinal: the scaled fluxes raw*K[from]*S[to] of the +x and +y pipes of rows [y0, y1).
func (c *cpuBackend) denseFinal(y0, y1 int) {
	g := c.dense
	nx := g.nx
	kk, ss := c.k, c.s
	for y := y0; y < y1; y++ {
		lo, hi := y*nx, (y+1)*nx
		kr, sr := kk[lo:hi], ss[lo:hi]
		fx := g.fx[lo+1 : hi+1]
		for x := 0; x+1 < len(kr); x++ {
			fx[x] = finalFlux(fx[x], kr[x], kr[x+1], sr[x], sr[x+1])
		}
		if y+1 == g.ny {
			continue
		}
		ku, su := kk[hi:hi+nx], ss[hi:hi+nx]
		fy := g.fy[hi : hi+nx]
		for x := range kr {
			fy[x] = finalFlux(fy[x], kr[x], ku[x], sr[x], su[x])
		}
	}
}

// denseOutflow: K for the columns of rows [y0, y1), S = 1 where no overflow is possible,
// and the list of the others for denseInflow. Pipes in the order -y, -x, +x, +y.
func (c *cpuBackend) denseOutflow(w, y0, y1 int) {
	g := c.dense
	nx := g.nx
	h, base, top, kk, ss := c.h, c.base, c.top, c.k, c.s
	p := &c.p
	flag := c.flag[w][:0]
	lo, hi := y0*nx, y1*nx
	fym, fyp := g.fy[lo:hi], g.fy[lo+nx:hi+nx] // -y and +y pipe of column lo+j
	fxm, fxp := g.fx[lo:hi], g.fx[lo+1:hi+1]   // -x and +x
	hr, br, tr, kr, sr := h[lo:hi], base[lo:hi], top[lo:hi], kk[lo:hi], ss[lo:hi]
	for j := range hr {
		var out2, in2 float32
		out2, in2 = splitSum(out2, in2, -fym[j])
		out2, in2 = splitSum(out2, in2, -fxm[j])
		out2, in2 = splitSum(out2, in2, fxp[j])
		out2, in2 = splitSum(out2, in2, fyp[j])
		out, in := out2*0.5, in2*0.5
		kr[j] = p.outflowFactor(out, hr[j]-br[j])
		sr[j] = 1
		if p.mayOverflow(in, hr[j], tr[j]) {
			flag = append(flag, int32(lo+j))
		}
	}
	c.flag[w] = flag
}

// denseInflow: S for the columns denseOutflow listed.
func (c *cpuBackend) denseInflow(w int) {
	g := c.dense
	nx := g.nx
	kp := c.kPad // k of column i is kp[i+nx]
	for _, i32 := range c.flag[w] {
		i := int(i32)
		var in float32
		in += min(-g.fy[i], 0) * kp[i]
		in += min(-g.fx[i], 0) * kp[i-1+nx]
		in += min(g.fx[i+1], 0) * kp[i+1+nx]
		in += min(g.fy[i+nx], 0) * kp[i+2*nx]
		c.s[i] = c.p.inflowFactor(in, c.h[i], c.top[i])
	}
}

// denseHeight: the height update of the columns of rows [y0, y1).
func (c *cpuBackend) denseHeight(y0, y1 int) {
	g := c.dense
	nx := g.nx
	p := &c.p
	lo, hi := y0*nx, y1*nx
	fym, fyp := g.fy[lo:hi], g.fy[lo+nx:hi+nx]
	fxm, fxp := g.fx[lo:hi], g.fx[lo+1:hi+1]
	hr, rr, br, tr := c.h[lo:hi], c.r[lo:hi], c.base[lo:hi], c.top[lo:hi]
	fym, fyp, fxm, fxp = fym[:len(hr)], fyp[:len(hr)], fxm[:len(hr)], fxp[:len(hr)]
	for j := range hr {
		var out float32
		out += -fym[j]
		out += -fxm[j]
		out += fxp[j]
		out += fyp[j]
		hr[j], rr[j] = p.updateHeight(out, hr[j], rr[j], br[j], tr[j])
	}
}
