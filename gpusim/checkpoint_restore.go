package gpusim

// What checkpoints save and restore beside the Sim's own fields: the backends' state
// (checkpointBackend, on the CPU and the device), the extended pipes' flux history and the
// particle phase.

import "slices"

// restore puts a checked checkpoint's particles and dripping edges in place (after
// configure has sized the edges' arrays for the settings).
func (f *fallState) restore(x *fallSaved) {
	f.x, f.y, f.z = slices.Clone(x.x), slices.Clone(x.y), slices.Clone(x.z)
	f.vx, f.vy, f.vz = slices.Clone(x.vx), slices.Clone(x.vy), slices.Clone(x.vz)
	f.vol, f.col = slices.Clone(x.vol), slices.Clone(x.col)
	f.land = make([]int32, len(x.vol))
	for i := range f.land {
		f.land[i] = -1
	}
	copy(f.pend, x.pend)
	copy(f.idle, x.idle)
	copy(f.rate, x.rate)
	copy(f.took, x.took)
	f.npend = int(x.npend)
	f.released, f.landed, f.outflow = x.released, x.landed, x.outflow
}

// checkpointBackend is what a backend adds for checkpoints: its state beyond heights,
// residuals and fluxes (which the backend interface reads and writes).
type checkpointBackend interface {
	// saveCap copies the capillary head's prev (each column's height at the last pass)
	// into prev and its wetted flags into wet, and returns its fresh flag; on is false
	// when the head is off.
	saveCap(prev []float32, wet []uint8) (fresh, on bool)
	// restoreCap sets prev, the wetted flags (nil: those writeHeight set) and fresh
	// (after writeHeight, which sets fresh).
	restoreCap(prev []float32, wet []uint8, fresh bool)
	// saveExt returns the extended pipes' flux history (extSaved).
	saveExt() extSaved
	// restoreExt installs a history for the next rebuild (after setParams and
	// writeHeight: the next step rebuilds the passages from the heights).
	restoreExt(x extSaved)
	// saveSWE returns the shallow water equations' state (nil for the pipes); restoreSWE
	// sets its velocities and face depths.
	saveSWE() *sweState
	restoreSWE(d []float32)
}

func (c *cpuBackend) saveCap(prev []float32, wet []uint8) (fresh, on bool) {
	if !c.p.cap.on {
		return false, false
	}
	copy(prev, c.capSt.prev)
	copy(wet, c.capSt.wet)
	return c.capSt.fresh, true
}

func (c *cpuBackend) restoreCap(prev []float32, wet []uint8, fresh bool) {
	c.stillReset() // the still rows' last-step heights and flags (kernels_dense.go)
	copy(c.capSt.prev, prev)
	if wet != nil {
		copy(c.capSt.wet, wet)
	}
	c.capSt.fresh = fresh
}

func (c *cpuBackend) saveExt() extSaved { return c.ext.saved() }

func (c *cpuBackend) restoreExt(x extSaved) { c.ext.restore(x) }

func (d *deviceBackend) saveCap(prev []float32, wet []uint8) (fresh, on bool) {
	d.inFlight("checkpoint")
	if !d.p.cap.on || d.capPrev == 0 {
		return false, false
	}
	d.rt.Do(func() {
		download(d.rt, prev[:d.n], d.capPrev)
		download(d.rt, wet[:d.n], d.capWet)
	})
	return d.capFresh, true
}

func (d *deviceBackend) restoreCap(prev []float32, wet []uint8, fresh bool) {
	d.inFlight("checkpoint")
	d.rt.Do(func() {
		upload(d.rt, d.capPrev, prev[:d.n])
		if wet != nil {
			upload(d.rt, d.capWet, wet[:d.n])
		}
	})
	d.capFresh = fresh
}

// saveExt reads the extended fluxes of the current lists back from the device: the host's
// copies of them are those of the last rebuild.
func (d *deviceBackend) saveExt() extSaved {
	d.inFlight("checkpoint")
	e := d.ext
	if e == nil || e.mode == ExtendedOff || !d.histValid {
		return e.saved() // a history restored and not yet rebuilt, or none
	}
	m, src := d.extHist()
	fs := make([]float32, m)
	d.rt.Do(func() { download(d.rt, fs, src) })
	x := extSaved{mode: e.mode}
	switch e.mode {
	case ExtendedUnified:
		x.uCol, x.uKey, x.uF = slices.Clone(e.uCol), slices.Clone(e.uKey), fs
	case ExtendedAxis:
		for _, ap := range e.axis {
			x.aKey = append(x.aKey, ap.key)
		}
		x.aF = fs
	}
	return x
}

// saveSWE reads the SWE's face depths back from the device (nil for the pipes): with the
// fluxes they are its state.
func (d *deviceBackend) saveSWE() *sweState {
	d.inFlight("checkpoint")
	if d.swe == nil {
		return nil
	}
	dd := make([]float32, d.np)
	d.rt.Do(func() { download(d.rt, dd, d.sweD) })
	return &sweState{d: dd}
}

// restoreSWE sets the face depths (after writeFlux, which derives them from the fluxes).
func (d *deviceBackend) restoreSWE(dd []float32) {
	d.inFlight("checkpoint")
	if d.swe == nil {
		return
	}
	d.rt.Do(func() { upload(d.rt, d.sweD, dd[:d.np]) })
}

func (d *deviceBackend) restoreExt(x extSaved) {
	d.inFlight("checkpoint")
	if d.ext == nil {
		return
	}
	d.histValid, d.pending = false, nil // the device's lists are no one's history now
	d.ext.restore(x)
}

// saved returns the flux history of the lists in use (nil-safe). On the CPU they hold the
// last step's final fluxes.
func (e *extended) saved() extSaved {
	if e == nil {
		return extSaved{}
	}
	x := extSaved{mode: e.mode}
	switch e.mode {
	case ExtendedUnified:
		x.uCol, x.uKey, x.uF = slices.Clone(e.uCol), slices.Clone(e.uKey), slices.Clone(e.uF)
	case ExtendedAxis:
		for _, a := range e.aPrev {
			x.aKey = append(x.aKey, a.key)
			x.aF = append(x.aF, a.f)
		}
	}
	return x
}

// restore makes x the history the next rebuild takes the fluxes from, and marks the
// passages for a rebuild from the heights (nil-safe). Until that step the counts of
// extended pipes and passages read 0.
func (e *extended) restore(x extSaved) {
	if e == nil {
		return
	}
	e.uCol, e.uKey, e.uF = e.uCol[:0], e.uKey[:0], e.uF[:0]
	e.aPrev, e.axis = e.aPrev[:0], e.axis[:0]
	e.pStart = e.pStart[:1]
	switch e.mode {
	case ExtendedUnified:
		e.uCol, e.uKey, e.uF = append(e.uCol, x.uCol...), append(e.uKey, x.uKey...), append(e.uF, x.uF...)
	case ExtendedAxis:
		for k, key := range x.aKey {
			e.aPrev = append(e.aPrev, axisFlux{key: key, f: x.aF[k]})
		}
	}
	e.dirty = true
}
