package gpusim

// The capillary head on the device (capillary.go, contactline.go): its constants, its
// buffers (made when surface tension is first on) and its launches.

import (
	"unsafe"

	"github.com/vpbench/vpbench/gpusim/kernels"
)

// setCapParams installs the capillary head's constants, making its buffers (and, on the
// dense layout, the neighbour lists its kernels walk) the first time it is on.
func (d *deviceBackend) setCapParams(p capParams, restart bool) {
	sa := d.sa
	sa.Hd = d.h
	sa.CapRecede, sa.CapCorner, sa.CapCoef, sa.CapDamp, sa.CapMark = p.recede, p.corner, p.coef, p.damp, int32(p.mark)
	sa.CapRippleDx = p.rippleDx
	sa.CapDropR, sa.CapDropA, sa.CapAdvance, sa.CapDx = p.dropR, p.dropA, p.advance, p.dx
	if !p.on {
		return
	}
	if restart || d.capDrive == 0 { // cpuBackend.setParams
		d.capFresh = true
	}
	if d.capDrive == 0 {
		var err error
		d.rt.Do(func() {
			d.capDrive, d.capPrev = d.alloc(4*d.n, &err), d.alloc(4*d.n, &err)
			d.capS[0], d.capS[1] = d.alloc(4*d.n, &err), d.alloc(4*d.n, &err)
			d.capWet, d.capWetNext = d.alloc(d.n, &err), d.alloc(d.n, &err)
			if d.dense && err == nil {
				d.adjStart, d.adjOther, d.adjDir = d.alloc(4*(d.n+1), &err), d.alloc(8*d.np, &err), d.alloc(2*d.np, &err)
				if err == nil {
					upload(d.rt, d.adjStart, d.topo.adjStart)
					upload(d.rt, d.adjOther, d.topo.adjOther)
					upload(d.rt, d.adjDir, d.topo.adjDir)
				}
			}
		})
		d.must(err)
		sa.AdjStart, sa.AdjOther, sa.AdjDir = d.adjStart, d.adjOther, d.adjDir
	}
	sa.Hd, sa.CapPrev = d.capDrive, d.capPrev
	sa.CapWet, sa.CapWetNext = d.capWet, d.capWetNext
}

// launchCap queues the capillary head: the smoothing passes, then the driving heights;
// fresh: the pass takes no rise (capPrev is not the last pass's heights).
func (d *deviceBackend) launchCap(sa unsafe.Pointer, fresh bool) {
	d.sa.CapFresh = boolInt32(fresh)
	in := d.h
	for k := range d.lp.cap.passes {
		d.sa.CapIn, d.sa.CapOut = in, d.capS[k%2]
		d.rt.Launch(kernels.CapSmooth, d.n, sa)
		in = d.capS[k%2]
	}
	d.sa.CapIn = in
	d.rt.Launch(kernels.CapHead, d.n, sa)
	d.rt.Launch(kernels.CapWet, d.n, sa)
}
