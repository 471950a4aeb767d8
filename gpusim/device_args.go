package gpusim

// The device backend's step parameters: setParams and installArgs put them into the
// kernels' argument blocks.

func (d *deviceBackend) setParams(p stepParams) {
	was := d.p
	d.p = p
	if s := d.swe; s != nil { // as cpuBackend.setParams
		s.full, s.subM = p, 0
		s.setSubsteps(1) // until the first step measures the waves
	}
	d.setCapParams(p.cap, capRestarts(&was, &p))
	d.installArgs(&d.p)
	d.ea.Dt, d.ea.Dx2 = p.dt, p.dx2 // sources and sinks act once a step, with the SWE too
	if d.ext == nil {
		return
	}
	if p.extended != d.ext.mode {
		d.ext.setMode(p.extended) // forgets the old mode's pipes: so does the device
		d.histValid, d.entries = false, 0
		d.xa.NPass, d.xa.NAxis = 0, 0
		d.rt.Do(func() {
			d.rt.Zero(d.extOut, 4*d.n)
			d.rt.Zero(d.extIn, 4*d.n)
			d.rt.Zero(d.extNet, 4*d.n)
		})
	}
	d.extOn = p.extended != ExtendedOff
	d.sa.Ext, d.ea.Ext, d.wa.Ext = boolInt32(d.extOn), boolInt32(d.extOn), boolInt32(d.extOn)
	d.xa.Mode = int32(p.extended)
}

// installArgs puts the step constants of p into the step and extended pipes' argument
// blocks (and the SWE's): the full step's, or with the SWE a substep's.
func (d *deviceBackend) installArgs(p *stepParams) {
	d.lp = p
	film := boolInt32(p.Film)
	sa := d.sa
	sa.CapRecede, sa.CapCorner, sa.CapCoef, sa.CapDamp, sa.CapRippleDx = p.cap.recede, p.cap.corner, p.cap.coef, p.cap.damp, p.cap.rippleDx
	sa.CapDropR, sa.CapDropA, sa.CapAdvance, sa.CapDx = p.cap.dropR, p.cap.dropA, p.cap.advance, p.cap.dx
	sa.DtOverDx2d = p.DtOverDx2d
	sa.Zeta, sa.Accel, sa.Visc3, sa.Dxf = p.Zeta, p.Accel, p.Visc3, p.Dxf
	sa.DtOverDx2, sa.Dx2OverDt, sa.Film = p.DtOverDx2, p.Dx2OverDt, film
	sa.Wet, sa.DryDepth = p.Wet, p.DryDepth
	xa := d.xa
	xa.DtOverDx2d = p.DtOverDx2d
	xa.Zeta, xa.Accel, xa.Visc3, xa.Dxf, xa.Film = p.Zeta, p.Accel, p.Visc3, p.Dxf, film
	if s := d.swe; s != nil {
		wa := d.wa
		wa.Hd = sa.Hd
		wa.Zeta, wa.Dxf, wa.Visc3, wa.Wet, wa.DryDepth = p.Zeta, p.Dxf, p.Visc3, p.Wet, p.DryDepth
		wa.Slip3, wa.DryCut = sweSlipCut(p)
		wa.Recede, wa.Corner = p.cap.recede, p.cap.corner
		// sweState's substep constants, as sweColumns and sweFlux take them.
		wa.Invdx, wa.G, wa.DtDx, wa.GDtDx, wa.Vmax = 1/s.dx, s.g, s.dtDx, s.gDtDx, s.vmax
	}
}
