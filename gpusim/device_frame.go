package gpusim

// The device backend's frames: a Step call's steps queued on the device without waiting,
// their result read back into a stage, and the wait that finishes them, which rebuilds
// the passages and queues the rest again when a full flag flips mid-frame.

import (
	"unsafe"

	"github.com/vpbench/vpbench/gpusim/kernels"
)

// stage is where a frame's result is read back while the host goes on: the full-flag
// counters, the heights and residuals, the sources' accounting and, where passages can
// form, the full flags and the extended fluxes, which a rebuild after a flip needs.
type stage struct {
	main, accBuf, histBuf pinned

	ctl   *[2]int32 // the device's fl: flips, halt (see vp_halted)
	h, r  []float32
	full  []byte    // where passages can form
	acc   []float64 // 3 per emitter target
	hist  []float32 // the extended fluxes: uF (unified) or axF (axis)
	histN int       // how many of hist the last read-back filled (-1: none)
	// substeps: the SWE's substeps so far, after the frame's last step (Stats)
	substeps int64
}

// initStage makes st's fixed part: ctl, h, r and, where passages can form, full.
func (d *deviceBackend) initStage(st *stage) error {
	nFull := 0
	if d.ext != nil {
		nFull = d.n
	}
	if err := d.growPinned(&st.main, 8+8*d.n+nFull); err != nil {
		return err
	}
	p := st.main.p
	st.ctl = (*[2]int32)(p)
	st.h = unsafe.Slice((*float32)(unsafe.Add(p, 8)), d.n)
	st.r = unsafe.Slice((*float32)(unsafe.Add(p, 8+4*d.n)), d.n)
	st.full = unsafe.Slice((*byte)(unsafe.Add(p, 8+8*d.n)), nFull)
	st.histN = -1
	return nil
}

// accSlots is the number of float64 accumulators em's kernel books into: 3 per emitter
// target (added, removed, rejected), then 1 per open side's drain (outflow).
func accSlots(em *emitterSet) int { return 3*len(em.tCol) + len(em.dCol) }

// stageAcc makes st's accumulator read-back hold slots values (accSlots).
func (d *deviceBackend) stageAcc(st *stage, slots int) error {
	if err := d.growPinned(&st.accBuf, 8*slots); err != nil {
		return err
	}
	st.acc = unsafe.Slice((*float64)(st.accBuf.p), st.accBuf.bytes/8)
	return nil
}

// stageHist makes st's extended-flux read-back hold m values.
func (d *deviceBackend) stageHist(st *stage, m int) error {
	if err := d.growPinned(&st.histBuf, 4*m); err != nil {
		return err
	}
	st.hist = unsafe.Slice((*float32)(st.histBuf.p), st.histBuf.bytes/4)
	return nil
}

// step runs n steps and copies the heights and residuals after them into height and
// residual: a frame queued and waited for at once.
func (d *deviceBackend) step(n int, t0 float64, em *emitterSet, height, residual []float32) accounting {
	d.queue(n, t0, em)
	a := d.wait()
	d.take(height, residual)
	return a
}

// queue starts n steps from simulated time t0, with em's sources and sinks, and a read-back
// of their result, and returns without waiting for the device (see pipelinedBackend).
func (d *deviceBackend) queue(n int, t0 float64, em *emitterSet) {
	f := &d.frame
	if f.on {
		panic("gpusim: device frame queued while another is in flight")
	}
	f.on, f.n, f.t0, f.em, f.acct = true, n, t0, em, accounting{}
	d.rt.Do(d.queueFn)
}

// wait waits for the frame in flight and finishes it; it returns what its sources and
// sinks moved. The frame's heights stay in its stage until take.
func (d *deviceBackend) wait() accounting {
	if !d.frame.on {
		return accounting{}
	}
	d.rt.Do(d.waitFn)
	d.frame.on, d.frame.em = false, nil
	return d.frame.acct
}

// take copies the heights and residuals of the last finished frame into height and
// residual. It reads host memory only, and may run while the next frame is in flight: that
// one reads back into the other stage.
func (d *deviceBackend) take(height, residual []float32) {
	st := &d.stages[d.cur]
	if d.frame.on {
		st = &d.stages[d.cur^1]
	}
	d.taken = st.substeps
	if height == nil { // the particle phase steps one at a time and publishes itself
		return
	}
	copy(height[:d.n], st.h)
	copy(residual[:d.n], st.r)
}

// inFlight panics when a frame is in flight: the device's state is then not the one
// the host must read or replace (Sim waits for its frame first: Sim.Sync).
func (d *deviceBackend) inFlight(op string) {
	if d.frame.on {
		panic("gpusim: " + op + " on the device with a frame in flight (Sim.Sync first)")
	}
}

// queueFrame is queue's body, on the runtime's thread. Launches are queued without
// waiting; where passages can form, a full flag that flips stops the rest of the frame on
// the device (vp_halted), and waitFrame queues it again after the rebuild.
func (d *deviceBackend) queueFrame() {
	f := &d.frame
	f.emit = f.em != nil && f.em.any()
	slots := 0
	if f.emit {
		slots = accSlots(f.em)
		d.prepareEmitters(f.em)
	}
	d.cur ^= 1
	d.must(d.stageAcc(&d.stages[d.cur], slots))
	if d.swe != nil {
		d.sweSteps()
	} else {
		d.launchSteps(0)
	}
	d.readBack()
}

// launchCSRRest queues the general layout's step after the outflow phase, which the
// pipes and the SWE share: inflow, the extended pipes' final fluxes, final + height, and
// the extended sums cleared.
func (d *deviceBackend) launchCSRRest(sa, xa unsafe.Pointer, ext bool) {
	rt := d.rt
	rt.Launch(kernels.CSRInflow, d.n, sa)
	if ext {
		rt.Launch(kernels.ExtFinal, 1, xa)
	}
	rt.Launch(kernels.CSRFinalHeight, d.n, sa)
	if ext {
		rt.Launch(kernels.ExtClear, d.entries, xa)
	}
}

// rebuildIfFlipped rebuilds the passages when a full flag flipped since the last rebuild
// (from the pending stage's read-back, or from the heights when they were set from
// outside) and tells whether extended pipes are open.
func (d *deviceBackend) rebuildIfFlipped() (ext bool) {
	if d.extOn && d.ext.changed() {
		st := d.pending
		if d.ext.dirty { // heights set from outside, or the mode changed
			st = nil
		}
		d.rebuildExt(st)
	}
	d.pending = nil
	return d.extOn && d.entries > 0
}

// launchSteps queues the frame's steps from step `from` on, after rebuilding the passages
// if a full flag flipped.
func (d *deviceBackend) launchSteps(from int) {
	f := &d.frame
	rt := d.rt
	ext := d.rebuildIfFlipped()
	t := f.t0
	for range from {
		t += d.p.dt // as the CPU backend advances its clock, one addition a step
	}
	sa, xa, ea := unsafe.Pointer(d.sa), unsafe.Pointer(d.xa), unsafe.Pointer(d.ea)
	for i := from; i < f.n; i++ {
		d.sa.Step, d.xa.Step, d.ea.Step = int32(i), int32(i), int32(i)
		if ext {
			rt.Launch(kernels.ExtRaw, 1, xa)
		}
		if d.p.cap.on {
			d.launchCap(sa, d.capFresh)
			d.capFresh = false
		}
		if d.dense {
			rt.Launch(kernels.DenseFluxOutflow, d.n, sa)
			rt.Launch(kernels.DenseInflow, d.n, sa)
			rt.Launch(kernels.DenseFinalHeight, d.n, sa)
		} else {
			rt.Launch(kernels.CSRFluxOutflow, d.n, sa)
			d.launchCSRRest(sa, xa, ext)
		}
		if f.emit {
			d.ea.T = t
			rt.Launch(kernels.Emit, d.emThreads, ea)
		}
		t += d.p.dt
	}
}

// readBack queues the copies of the frame's result into its stage.
func (d *deviceBackend) readBack() {
	f, st, rt := &d.frame, &d.stages[d.cur], d.rt
	d.readBackExt(st)
	if f.emit {
		rt.DownloadAsync(unsafe.Pointer(unsafe.SliceData(st.acc)), d.acc.p, 8*accSlots(f.em))
	}
	rt.DownloadAsync(unsafe.Pointer(unsafe.SliceData(st.h)), d.h, 4*d.n)
	rt.DownloadAsync(unsafe.Pointer(unsafe.SliceData(st.r)), d.r, 4*d.n)
	if d.swe != nil {
		st.substeps = d.swe.substeps
	}
}

// readBackExt queues, where passages can form, the copies a rebuild after a flip needs
// into st: the flip counter and halt, the full flags and the extended fluxes.
func (d *deviceBackend) readBackExt(st *stage) {
	if !d.extOn {
		return
	}
	rt := d.rt
	rt.DownloadAsync(unsafe.Pointer(st.ctl), d.fl, 8)
	rt.DownloadAsync(unsafe.Pointer(unsafe.SliceData(st.full)), d.full, d.n)
	st.histN = -1
	if d.histValid {
		m, src := d.extHist()
		d.must(d.stageHist(st, m))
		rt.DownloadAsync(unsafe.Pointer(unsafe.SliceData(st.hist)), src, 4*m)
		st.histN = m
	}
}

// waitFrame is wait's body, on the runtime's thread. When a full flag flipped at step k
// (halt = k+1), the passages are rebuilt from the read-back and, if steps are left, steps
// k+1.. are queued again: one more wait per change of the passages, none per step.
func (d *deviceBackend) waitFrame() {
	f, st, rt := &d.frame, &d.stages[d.cur], d.rt
	rt.Wait()
	for d.extOn {
		halt := int(st.ctl[1])
		if halt == 0 {
			break
		}
		d.ext.flips[0] += st.ctl[0]
		rt.Zero(d.fl, 8)
		end := f.n // the steps' indices, or with the SWE the last step's substeps'
		if d.swe != nil {
			end = d.swe.subM
		}
		if halt >= end {
			d.pending = st
			break
		}
		d.rebuildExt(st)
		d.resumes++
		if d.swe != nil {
			d.sweLaunch(halt, f.tLast, f.n == 1) // the frame's last step's rest
		} else {
			d.launchSteps(halt)
		}
		d.readBack()
		rt.Wait()
	}
	if f.emit {
		acc := st.acc[:3*len(f.em.tCol)]
		for k := 0; k < len(acc); k += 3 {
			f.acct.added += acc[k]
			f.acct.removed += acc[k+1]
			f.acct.rejected += acc[k+2]
		}
		for _, v := range st.acc[len(acc):accSlots(f.em)] { // the open sides' drains
			f.acct.outflow += v
		}
	}
}
