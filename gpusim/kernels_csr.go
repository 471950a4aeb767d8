package gpusim

// The general layout: pipes in topology order, per-column pipe lists (topology.adj*).
// Works for any terrain. In the column phases u = f*sign is a pipe's flux seen from
// column i: > 0 leaves i.

func (c *cpuBackend) csrStep(w int) {
	cr, pr := c.ranges[w], c.pipes[w]
	ext := c.ext
	if ext != nil && ext.mode == ExtendedOff {
		ext = nil
	}
	if ext != nil && w == 0 { // serial, beside the other workers' share of the flux phase
		ext.rawFluxes(c.h, &c.p)
	}
	c.csrFlux(pr[0], pr[1])
	c.bar.wait()
	c.csrOutflow(w, cr[0], cr[1], ext)
	c.bar.wait()
	c.csrInflow(w, ext)
	c.bar.wait()
	c.csrFinal(pr[0], pr[1])
	if ext != nil && w == 0 {
		ext.final(c.k, c.s, c.r, &c.p)
	}
	c.bar.wait()
	c.csrHeight(w, cr[0], cr[1], ext)
}

// csrFlux: the flux update of pipes [lo, hi).
func (c *cpuBackend) csrFlux(lo, hi int) {
	pa, pb := c.topo.pipeA[lo:hi], c.topo.pipeB[lo:hi]
	f := c.f[lo:hi]
	pb = pb[:len(pa)]
	f = f[:len(pa)]
	base, h := c.base, c.h
	p := &c.p
	for j, a := range pa {
		b := pb[j]
		ha, hb := h[a], h[b]
		dh, da, db := ha-hb, ha-base[a], hb-base[b]
		f[j] = flushFlux(p.viscous(p.zeta*f[j]+p.acceleration(dh, da, db)*dh, da, db))
	}
}

// csrFinal: the scaled fluxes of pipes [lo, hi), raw*K[from]*S[to], in place.
func (c *cpuBackend) csrFinal(lo, hi int) {
	pa, pb := c.topo.pipeA[lo:hi], c.topo.pipeB[lo:hi]
	f := c.f[lo:hi]
	pb = pb[:len(pa)]
	f = f[:len(pa)]
	kk, ss := c.k, c.s
	for j, a := range pa {
		b := pb[j]
		f[j] = finalFlux(f[j], kk[a], kk[b], ss[a], ss[b])
	}
}

// csrOutflow: K for columns [lo, hi), S = 1 where no overflow is possible, and the list
// of the others for csrInflow.
func (c *cpuBackend) csrOutflow(w, lo, hi int, ext *extended) {
	as, ap, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjSign
	raw, h, res, base, top, kk, ss := c.f, c.h, c.r, c.base, c.top, c.k, c.s
	p := &c.p
	flag := c.flag[w][:0]
	var extOut, extIn []float32
	if ext != nil {
		extOut, extIn = ext.extOut, ext.extIn
	}
	for i := lo; i < hi; i++ {
		var out2, in2 float32
		for e := as[i]; e < as[i+1]; e++ {
			out2, in2 = splitSum(out2, in2, raw[ap[e]]*sg[e])
		}
		out, in := out2*0.5, in2*0.5
		if extOut != nil {
			out += extOut[i]
			in += extIn[i]
		}
		kk[i] = p.outflowFactor(out, (h[i]-base[i])+res[i])
		ss[i] = 1
		if p.mayOverflow(in, (top[i]-h[i])-res[i]) {
			flag = append(flag, int32(i))
		}
	}
	c.flag[w] = flag
}

// csrInflow: S for the columns csrOutflow listed. Extended inflows count unscaled (their
// source's K taken as 1), which can only make S smaller.
func (c *cpuBackend) csrInflow(w int, ext *extended) {
	as, ap, ao, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjOther, c.topo.adjSign
	raw, h, top, kk, ss := c.f, c.h, c.top, c.k, c.s
	for _, i := range c.flag[w] {
		var in float32 // <= 0
		for e := as[i]; e < as[i+1]; e++ {
			in += min(raw[ap[e]]*sg[e], 0) * kk[ao[e]]
		}
		if ext != nil {
			in += ext.extIn[i]
		}
		ss[i] = c.p.inflowFactor(in, (top[i]-h[i])-c.r[i])
	}
}

// csrHeight: the height update of columns [lo, hi), and the full flags of its capped
// columns for the extended pipes.
func (c *cpuBackend) csrHeight(w, lo, hi int, ext *extended) {
	as, ap, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjSign
	f, h, res, base, top := c.f, c.h, c.r, c.base, c.top
	p := &c.p
	var extNet []float32
	var capped []bool
	var flips int32
	if ext != nil {
		extNet, capped = ext.extNet, ext.isCapped
	}
	for i := lo; i < hi; i++ {
		var out float64
		for e := as[i]; e < as[i+1]; e++ {
			out += float64(f[ap[e]] * sg[e])
		}
		if extNet != nil {
			out += float64(extNet[i])
		}
		h[i], res[i] = settleHeight(p.updateHeight(out, h[i], res[i]), base[i], top[i])
		if capped != nil && capped[i] && ext.updateFull(i, h[i]) {
			flips++
		}
	}
	if ext != nil {
		ext.flips[w] = flips
	}
}
