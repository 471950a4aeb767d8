package gpusim

// The sources and sinks on the device: the emitters' upload and their accounting's
// clearing before a frame.

// prepareEmitters uploads the emitters when the set changed since the last upload (an
// upload waits for the device), and clears the per-target accounting (queued).
func (d *deviceBackend) prepareEmitters(em *emitterSet) {
	if em != d.emSet || em.gen != d.emGen {
		d.emThreads = d.uploadEmitters(em)
		d.emSet, d.emGen = em, em.gen
	}
	d.rt.Zero(d.acc.p, 8*accSlots(em))
}

// uploadEmitters copies the emitters' targets, rates and times to the device. It returns
// the threads the emitter kernel needs: one per target and one per open side's drain, or
// one for all when two targets, or a target and a drain, share a column (they must then
// act in order).
func (d *deviceBackend) uploadEmitters(em *emitterSet) int {
	rt := d.rt
	nt, ne := len(em.tCol), len(em.list)
	d.hostI32 = d.hostI32[:0]
	serial := false
	d.stamp++
	for e := range ne {
		for k := em.tStart[e]; k < em.tStart[e+1]; k++ {
			d.hostI32 = append(d.hostI32, int32(e))
			c := em.tCol[k]
			if d.mark[c] == d.stamp {
				serial = true
			}
			d.mark[c] = d.stamp
		}
	}
	// The open sides' drains act after the emitters; where a drain's column is an
	// emitter's target too, one thread applies everything in the CPU's order.
	for _, c := range em.dCol {
		if d.mark[c] == d.stamp {
			serial = true
		}
	}
	d.hostF64 = d.hostF64[:0]
	for _, e := range em.list {
		d.hostF64 = append(d.hostF64, e.Rate)
	}
	for _, e := range em.list {
		d.hostF64 = append(d.hostF64, e.Start)
	}
	for _, e := range em.list {
		d.hostF64 = append(d.hostF64, e.Stop)
	}
	for _, e := range em.list {
		d.hostF64 = append(d.hostF64, e.Level)
	}
	active := d.hostAct[:0]
	for _, a := range em.active {
		active = append(active, boolInt32(a))
	}
	for _, e := range em.list {
		active = append(active, boolInt32(e.Holds))
	}
	d.hostAct = active
	d.grow(&d.tCol, 4*nt)
	d.grow(&d.tEm, 4*nt)
	d.grow(&d.tWeight, 8*nt)
	d.grow(&d.eRate, 8*ne)
	d.grow(&d.eStart, 8*ne)
	d.grow(&d.eStop, 8*ne)
	d.grow(&d.eActive, 4*ne)
	d.grow(&d.eHolds, 4*ne)
	d.grow(&d.eLevel, 8*ne)
	d.grow(&d.acc, 8*accSlots(em))
	nd := len(em.dCol)
	d.grow(&d.dCol, 4*nd)
	d.grow(&d.dCoef, 8*nd)
	upload(rt, d.dCol.p, em.dCol)
	upload(rt, d.dCoef.p, em.dCoef)
	upload(rt, d.tCol.p, em.tCol)
	upload(rt, d.tEm.p, d.hostI32[:nt])
	upload(rt, d.tWeight.p, em.tWeight)
	upload(rt, d.eRate.p, d.hostF64[:ne])
	upload(rt, d.eStart.p, d.hostF64[ne:2*ne])
	upload(rt, d.eStop.p, d.hostF64[2*ne:3*ne])
	upload(rt, d.eActive.p, active[:ne])
	upload(rt, d.eHolds.p, active[ne:2*ne])
	upload(rt, d.eLevel.p, d.hostF64[3*ne:4*ne])
	ea := d.ea
	ea.TCol, ea.TEm, ea.TWeight = d.tCol.p, d.tEm.p, d.tWeight.p
	ea.Holds, ea.Level = d.eHolds.p, d.eLevel.p
	ea.Rate, ea.Start, ea.Stop, ea.Active, ea.Acc = d.eRate.p, d.eStart.p, d.eStop.p, d.eActive.p, d.acc.p
	ea.Nt, ea.Serial = int32(nt), boolInt32(serial)
	ea.DCol, ea.DCoef, ea.Nd = d.dCol.p, d.dCoef.p, int32(nd)
	if serial {
		return 1
	}
	return nt + nd
}
