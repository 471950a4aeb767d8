package gpusim

// The device backend's steps with the shallow water equations: sweSteps, sweMeasure and
// sweLaunch, as the comment below describes.

import (
	"math"
	"unsafe"

	"github.com/vpbench/vpbench/gpusim/kernels"
)

// The shallow water equations (swe.go) on the device. A step is cut into m substeps by
// the fastest wave, which the host must know before it queues them: each step starts with
// vp_swe_columns measuring it (an atomic max on the device), whose result the host reads
// back, waiting for the device: one wait per step. The substeps then run the SWE's
// column, sides and flux kernels and the general layout's outflow, inflow and final +
// height kernels with the substep's parameters (sweState.setSubsteps), the emitters once
// after the last (the full step's dt), as cpuBackend.sweStep and runGeneral do. Where
// passages can form, a full flag that flips in substep k stops the rest (vp_halted, with
// the substep's index); the wait at the next step's start (or the frame's) sees it, and
// the host rebuilds the passages and queues substeps k+1.. again, as the CPU rebuilds
// before the substep after a flip.

// sweSteps queues and runs the frame's steps with the SWE (queueFrame's body).
func (d *deviceBackend) sweSteps() {
	f, s, rt := &d.frame, d.swe, d.rt
	st := &d.stages[d.cur]
	f.fresh = d.capFresh
	t := f.t0
	for i := range f.n {
		d.sweMeasure(st)
		rt.Wait()
		for i > 0 && d.extOn { // the previous step's flips
			halt := int(st.ctl[1])
			if halt == 0 {
				break
			}
			d.ext.flips[0] += st.ctl[0]
			rt.Zero(d.fl, 8)
			if halt >= s.subM { // after its last substep: rebuilt before the next one
				d.pending = st
				break
			}
			d.rebuildExt(st)
			d.resumes++
			d.sweLaunch(halt, f.tLast, i == 1) // the previous step's rest
			d.sweMeasure(st)
			rt.Wait()
		}
		v := math.Float32frombits(*(*uint32)(d.sweHost.p))
		s.setSubsteps(substepsFor(float64(v), s.full.dt, s.full.dx))
		s.substeps += int64(s.subM)
		d.installArgs(&s.sub)
		f.tLast = t
		d.sweLaunch(0, t, i == 0)
		t += d.p.dt // as the CPU backend advances its clock, one addition a step
	}
	if f.n > 0 {
		d.capFresh = false // cpuBackend.step: the rise is known from here on
	}
}

// sweMeasure queues the fastest wave's measure (vp_swe_columns of a step's first
// substep) and its read-back, with the passages' read-back (readBackExt) into st.
func (d *deviceBackend) sweMeasure(st *stage) {
	rt := d.rt
	rt.Zero(d.sweSpeed, 4)
	d.wa.Step, d.wa.WantSpeed = 0, 1
	rt.Launch(kernels.SWEColumns, d.n, unsafe.Pointer(d.wa))
	d.wa.WantSpeed = 0
	rt.DownloadAsync(d.sweHost.p, d.sweSpeed, 4)
	d.readBackExt(st)
}

// sweLaunch queues substeps from..subM-1 of a step that starts at time t, then the
// step's sources and sinks, after rebuilding the passages if a full flag flipped. Substep
// 0's column kernel is sweMeasure's.
func (d *deviceBackend) sweLaunch(from int, t float64, first bool) {
	rt := d.rt
	ext := d.rebuildIfFlipped()
	m := d.swe.subM
	sa, xa, wa, ea := unsafe.Pointer(d.sa), unsafe.Pointer(d.xa), unsafe.Pointer(d.wa), unsafe.Pointer(d.ea)
	for k := from; k < m; k++ {
		d.sa.Step, d.xa.Step, d.wa.Step = int32(k), int32(k), int32(k)
		if k > 0 {
			rt.Launch(kernels.SWEColumns, d.n, wa)
		}
		rt.Launch(kernels.SWESides, d.n, wa)
		if d.lp.cap.on {
			// cpuBackend.sweStep: the first substep of the call's first step takes the
			// call's fresh flag.
			d.launchCap(sa, first && k == 0 && d.frame.fresh)
		}
		if ext {
			rt.Launch(kernels.ExtRaw, 1, xa)
		}
		rt.Launch(kernels.SWEFlux, d.np, wa)
		rt.Launch(kernels.CSROutflow, d.n, sa)
		d.launchCSRRest(sa, xa, ext)
	}
	if d.frame.emit {
		d.ea.Step = int32(m - 1) // a flip here halts as one in the last substep
		d.ea.T = t
		rt.Launch(kernels.Emit, d.emThreads, ea)
	}
}
