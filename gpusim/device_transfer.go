package gpusim

// Copies between host and device: the upload and download helpers, the heights, residuals
// and fluxes read and written from outside (the backend interface), and the particle
// phase's read-back and upload (hostState).

import (
	"unsafe"

	"github.com/vpbench/vpbench/gpusim/kernels"
)

func upload[T any](rt kernelRuntime, dst uint64, src []T) {
	if len(src) > 0 {
		var z T
		rt.Upload(dst, unsafe.Pointer(unsafe.SliceData(src)), len(src)*int(unsafe.Sizeof(z)))
	}
}

func download[T any](rt kernelRuntime, dst []T, src uint64) {
	if len(dst) > 0 {
		var z T
		rt.Download(unsafe.Pointer(unsafe.SliceData(dst)), src, len(dst)*int(unsafe.Sizeof(z)))
	}
}

func (d *deviceBackend) readHeight(dst []float32) {
	d.inFlight("readHeight")
	d.rt.Do(func() { download(d.rt, dst[:d.n], d.h) })
}

func (d *deviceBackend) readResidual(dst []float32) {
	d.inFlight("readResidual")
	d.rt.Do(func() { download(d.rt, dst[:d.n], d.r) })
}

func (d *deviceBackend) writeResidual(src []float32) {
	d.inFlight("writeResidual")
	d.rt.Do(func() { upload(d.rt, d.r, src[:d.n]) })
}

// writeHeight sets every height (Fill, SetHeights); the passages are then recomputed.
func (d *deviceBackend) writeHeight(src []float32) {
	d.inFlight("writeHeight")
	d.rt.Do(func() { upload(d.rt, d.h, src[:d.n]) })
	d.capFresh = true  // a height set from outside is no rise of the surface
	if d.capWet != 0 { // the wetted flags start afresh (contactline.go)
		base := d.hostBase
		if base == nil {
			base = d.topo.cols.Base
		}
		wet := make([]uint8, d.n)
		markWetted(wet, src[:d.n], base, uint8(d.sa.CapMark))
		d.rt.Do(func() { upload(d.rt, d.capWet, wet) })
	}
	if d.ext != nil {
		d.ext.dirty = true
	}
}

// denseFlux returns the host copies of the dense layout's flux arrays.
func (d *deviceBackend) denseFlux() (fx, fy []float32) {
	if d.hostFx == nil {
		d.hostFx, d.hostFy = make([]float32, d.n+1), make([]float32, d.n+d.nx)
	}
	return d.hostFx, d.hostFy
}

// readFlux copies the fluxes, in topology order.
func (d *deviceBackend) readFlux(dst []float32) {
	d.inFlight("readFlux")
	if !d.dense {
		d.rt.Do(func() { download(d.rt, dst[:d.np], d.f) })
		return
	}
	fx, fy := d.denseFlux()
	d.rt.Do(func() {
		download(d.rt, fx, d.fx)
		download(d.rt, fy, d.fy)
	})
	for p := range dst {
		a, b := int(d.topo.pipeA[p]), int(d.topo.pipeB[p])
		if b == a+1 {
			dst[p] = fx[a+1]
		} else {
			dst[p] = fy[a+d.nx]
		}
	}
}

// writeFlux sets the fluxes, in topology order (after the heights: the SWE derives its
// face depths from both, as sweState.fromFluxes).
func (d *deviceBackend) writeFlux(src []float32) {
	d.inFlight("writeFlux")
	if !d.dense {
		d.rt.Do(func() {
			upload(d.rt, d.f, src[:d.np])
			if d.swe != nil {
				d.rt.Launch(kernels.SWEFromFluxes, d.np, unsafe.Pointer(d.wa))
			}
		})
		return
	}
	fx, fy := d.denseFlux()
	clear(fx)
	clear(fy)
	for p, f := range src {
		a, b := int(d.topo.pipeA[p]), int(d.topo.pipeB[p])
		if b == a+1 {
			fx[a+1] = f
		} else {
			fy[a+d.nx] = f
		}
	}
	d.rt.Do(func() {
		upload(d.rt, d.fx, fx)
		upload(d.rt, d.fy, fy)
	})
}

// columns reads the heights and residuals back for the particle phase (hostState): the
// particles run on the host, and while liquid may fall the device backend reads its state
// back after every step (docs/cuda.md, "Particles"). The runtime calls are bound once
// (fallRead, fallWrite): a closure made per step would allocate.
func (d *deviceBackend) columns() (h, r []float32) {
	d.inFlight("columns")
	if len(d.fallH) != d.n {
		d.fallH, d.fallR = make([]float32, d.n), make([]float32, d.n)
		d.fallRead = func() {
			download(d.rt, d.fallH, d.h)
			download(d.rt, d.fallR, d.r)
		}
		d.fallWrite = func() {
			for _, i := range d.fallChanged {
				off := uint64(4 * i)
				upload(d.rt, d.h+off, d.fallH[i:i+1])
				upload(d.rt, d.r+off, d.fallR[i:i+1])
			}
		}
	}
	d.rt.Do(d.fallRead)
	return d.fallH, d.fallR
}

// fluxesOf reads the fluxes back and copies those of pipes into dst (hostState).
func (d *deviceBackend) fluxesOf(pipes []int32, dst []float32) {
	d.inFlight("fluxesOf")
	if d.fallFluxRead == nil {
		if d.dense {
			fx, fy := d.denseFlux()
			d.fallFluxRead = func() {
				download(d.rt, fx, d.fx)
				download(d.rt, fy, d.fy)
			}
		} else {
			d.fallF = make([]float32, d.np)
			d.fallFluxRead = func() { download(d.rt, d.fallF, d.f) }
		}
	}
	d.rt.Do(d.fallFluxRead)
	for k, p := range pipes {
		if !d.dense {
			dst[k] = d.fallF[p]
			continue
		}
		a, b := int(d.topo.pipeA[p]), int(d.topo.pipeB[p])
		if b == a+1 {
			dst[k] = d.hostFx[a+1]
		} else {
			dst[k] = d.hostFy[a+d.nx]
		}
	}
}

// commit uploads the changed columns' heights and residuals from the copies columns
// handed out; a changed capped column makes the passages be found again (hostState).
func (d *deviceBackend) commit(changed []int32) {
	d.inFlight("commit")
	d.fallChanged = changed
	d.rt.Do(d.fallWrite)
	d.fallChanged = nil
	if d.ext == nil {
		return
	}
	for _, i := range changed {
		if d.ext.isCapped[i] {
			d.ext.dirty = true
			return
		}
	}
}

// forEach runs fn over [0, n) on the calling goroutine (hostState).
func (d *deviceBackend) forEach(n int, fn func(lo, hi int)) { fn(0, n) }
