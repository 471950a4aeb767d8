package gpusim

// The extended pipes on the device: the passages rebuilt on the host, their fluxes'
// history carried over, and the new lists uploaded; the host scratch the rebuild uses.

import "unsafe"

// rebuildExt finds the passages again on the host, carrying the extended fluxes'
// history over, and uploads the new openings or axis pipes. After a flip it reads the
// full flags and the history from st, the frame's read-back, and queues the uploads
// through page-locked memory: no wait. When the heights were set from outside (st ==
// nil) it downloads what it needs and waits.
func (d *deviceBackend) rebuildExt(st *stage) {
	d.rebuilds++
	e, rt := d.ext, d.rt
	dirty := e.dirty
	switch {
	case dirty:
		if cap(d.hostH) < d.n {
			d.hostH = make([]float32, d.n)
		}
		d.hostH = d.hostH[:d.n]
		download(rt, d.hostH, d.h)
	case st != nil:
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(e.full))), len(e.full)), st.full)
	default:
		download(rt, e.full, d.full)
	}
	if d.histValid {
		m, src := d.extHist()
		var fs []float32
		if st != nil && st.histN == m {
			fs = st.hist[:m]
		} else {
			fs = d.f32(m)
			download(rt, fs, src)
		}
		switch e.mode {
		case ExtendedUnified:
			copy(e.uF, fs)
		case ExtendedAxis:
			e.aPrev = e.aPrev[:0]
			for k := range e.axis {
				e.aPrev = append(e.aPrev, axisFlux{key: e.axis[k].key, f: fs[k]})
			}
		}
	}
	e.rebuild(d.hostH)
	if dirty {
		upload(rt, d.full, e.full)
	}
	xa := d.xa
	switch e.mode {
	case ExtendedUnified:
		d.entries = len(e.uCol)
		d.grow(&d.uCol, 4*len(e.uCol))
		d.grow(&d.uStart, 4*len(e.uStart))
		d.grow(&d.uGap, 4*len(e.uGap))
		d.grow(&d.uF, 4*len(e.uF))
		d.must(d.growPinned(&d.up, 4*(len(e.uCol)+len(e.uStart)+len(e.uGap)+len(e.uF))))
		off := 0
		off = uploadAsync(d, off, d.uCol.p, e.uCol)
		off = uploadAsync(d, off, d.uStart.p, e.uStart)
		off = uploadAsync(d, off, d.uGap.p, e.uGap)
		uploadAsync(d, off, d.uF.p, e.uF)
		xa.UCol, xa.UStart, xa.UGap, xa.UF = d.uCol.p, d.uStart.p, d.uGap.p, d.uF.p
		xa.NPass = int32(len(e.uStart) - 1)
	case ExtendedAxis:
		na := len(e.axis)
		d.entries = na
		d.grow(&d.axA, 4*na)
		d.grow(&d.axB, 4*na)
		d.grow(&d.axCells, 4*na)
		d.grow(&d.axGap, 4*na)
		d.grow(&d.axF, 4*na)
		d.must(d.growPinned(&d.up, 4*5*na))
		ia, ib := d.i32(2 * na)[:na], d.hostI32[na:2*na]
		cells, gaps, fluxes := d.f32(3 * na)[:na], d.hostF32[na:2*na], d.hostF32[2*na:3*na]
		for k, ap := range e.axis {
			ia[k], ib[k], cells[k], gaps[k], fluxes[k] = ap.a, ap.b, ap.cells, ap.gap, ap.f
		}
		off := 0
		off = uploadAsync(d, off, d.axA.p, ia)
		off = uploadAsync(d, off, d.axB.p, ib)
		off = uploadAsync(d, off, d.axCells.p, cells)
		off = uploadAsync(d, off, d.axGap.p, gaps)
		uploadAsync(d, off, d.axF.p, fluxes)
		xa.AxA, xa.AxB, xa.AxCells, xa.AxGap, xa.AxF = d.axA.p, d.axB.p, d.axCells.p, d.axGap.p, d.axF.p
		xa.NAxis = int32(na)
	}
	d.histValid = true
}

// extHist returns how many extended fluxes the device holds for the current lists and
// where: uF per opening (unified) or axF per axis pipe.
func (d *deviceBackend) extHist() (m int, src uint64) {
	if d.ext.mode == ExtendedAxis {
		return len(d.ext.axis), d.axF.p
	}
	return len(d.ext.uF), d.uF.p
}

// uploadAsync copies src into d.up at byte offset off and queues its upload to dst; it
// returns the offset after it.
func uploadAsync[T any](d *deviceBackend, off int, dst uint64, src []T) int {
	var z T
	bytes := len(src) * int(unsafe.Sizeof(z))
	if bytes == 0 {
		return off
	}
	buf := unsafe.Add(d.up.p, off)
	copy(unsafe.Slice((*byte)(buf), bytes), unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(src))), bytes))
	d.rt.UploadAsync(dst, buf, bytes)
	return off + bytes
}

// f32 and i32 return host scratch of n values.
func (d *deviceBackend) f32(n int) []float32 {
	if cap(d.hostF32) < n {
		d.hostF32 = make([]float32, n)
	}
	return d.hostF32[:n]
}

func (d *deviceBackend) i32(n int) []int32 {
	if cap(d.hostI32) < n {
		d.hostI32 = make([]int32, n)
	}
	return d.hostI32[:n]
}
