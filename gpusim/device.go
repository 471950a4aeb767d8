package gpusim

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/vpbench/vpbench/gpusim/kernels"
)

// kernelRuntime is what the device backend needs of a device: memory, copies and kernel
// launches. The cuda build provides one over a CUDA context (cuda.go); the tests use
// internal/hostkernels, which runs the same kernel source on the host, so that the code
// that drives the GPU is checked in CI without one.
//
// Every call but Do must come from inside Do: a CUDA context is current on one OS thread.
type kernelRuntime interface {
	// Name describes the device, e.g. "cuda (NVIDIA H100 80GB HBM3)".
	Name() string
	// Do runs fn on the runtime's thread and returns when it is done.
	Do(fn func())
	Alloc(bytes int) (uint64, error)
	Free(p uint64)
	// AllocHost and FreeHost give and take back host memory that DownloadAsync may copy
	// into (page-locked on a GPU).
	AllocHost(bytes int) (unsafe.Pointer, error)
	FreeHost(p unsafe.Pointer)
	// Upload waits for the work queued before it, then copies.
	Upload(dst uint64, src unsafe.Pointer, bytes int)
	// UploadAsync queues a copy from memory from AllocHost, which must not change until
	// the host has waited (Wait, Download or Upload) after it.
	UploadAsync(dst uint64, src unsafe.Pointer, bytes int)
	// Download waits for the work queued before it, then copies.
	Download(dst unsafe.Pointer, src uint64, bytes int)
	// DownloadAsync queues a copy into memory from AllocHost; it is there after Wait.
	DownloadAsync(dst unsafe.Pointer, src uint64, bytes int)
	// Wait waits for everything queued.
	Wait()
	Zero(dst uint64, bytes int)
	// Launch queues kernel k over n threads; args points to its argument block (copied
	// before Launch returns).
	Launch(k kernels.ID, n int, args unsafe.Pointer)
	// Close releases the runtime (a shared device runtime may stay open).
	Close()
}

// ErrNoCUDA is what asking for the cuda backend gives in a build without it.
var ErrNoCUDA = errors.New("the cuda backend is not in this build: build with `make cuda` (bin/vpbench-cuda), or use backend \"cpu\"")

// runtimes are the kernel runtimes by backend name: "cuda" (cuda.go or cuda_off.go), and
// those tests register.
var runtimes = map[string]func() (kernelRuntime, error){
	"cuda": newCUDARuntime,
}

// CUDAAvailable tells whether this build has the cuda backend and a usable GPU; the
// error says what is missing. It is what backend "auto" asks.
func CUDAAvailable() (device string, err error) {
	rt, err := newCUDARuntime()
	if err != nil {
		return "", err
	}
	return rt.Name(), nil
}

// devBuf is a device allocation that grows on demand (capacity in bytes).
type devBuf struct {
	p   uint64
	cap int
}

// deviceBackend steps the methods (the pipes, and the SWE: sweSteps) with the kernels of
// gpusim/kernels on a kernelRuntime.
// The state lives on the device; the host holds the passage finder of the extended
// pipes (extended.go, the CPU backend's own), which runs only in a step after a full
// flag flipped. See docs/cuda.md.
type deviceBackend struct {
	rt     kernelRuntime
	topo   *topology
	n, np  int
	nx, ny int
	dense  bool
	p      stepParams
	// lp is the parameters the kernels' argument blocks hold: &p, or with the SWE the
	// substep's (swe.sub) while a step runs.
	lp *stepParams

	// The shallow water equations (swe.go; nil for the pipes): the host keeps sweState for
	// the substeps' parameters and count (its per-pipe and per-column arrays live on the
	// device: sweD, sweQ, ...). taken is the substeps of the frames taken (Stats).
	swe                               *sweState
	sweD, sweQ, sweUs, sweCuv, sweSd  uint64
	pipeA, pipeB, side8, regular, axs uint64
	sweSpeed                          uint64 // the fastest wave's bits (vp_swe_columns)
	sweHost                           pinned // its read-back
	taken                             int64

	ext       *extended // nil when no column is capped
	extOn     bool      // ext != nil and its mode is not off
	histValid bool      // the device's extended fluxes belong to ext's current lists
	entries   int       // extended openings (unified) or pipes (axis) on the device

	bufs []uint64 // fixed allocations, freed by close

	h, r, k, s, base, top                   uint64
	adjStart, adjPipe, adjOther, adjSign    uint64
	f, raw, fx, fy, rx, ry                  uint64
	extOut, extIn, extNet, capped, full, fl uint64
	// The capillary head (capillary.go): driving heights and smoothing buffers, made when
	// surface tension is first on (the dense layout then uploads its neighbour lists too).
	capDrive uint64
	capS     [2]uint64
	capPrev  uint64
	// capWet, capWetNext: the wetted flags (contactline.go), a byte a column
	capWet, capWetNext uint64
	// capFresh: capPrev is not the last pass's heights (set from outside, or the law just
	// turned on): the next step's pass takes no rise.
	capFresh bool

	uCol, uStart, uGap, uF, axA, axB, axCells, axGap, axF  devBuf
	tCol, tEm, tWeight, eRate, eStart, eStop, eActive, acc devBuf
	dCol, dCoef                                            devBuf // the open sides' drains

	// The kernels' argument blocks, each its own allocation: cgo may be handed a pointer
	// to memory holding no Go pointers only.
	sa *kernels.StepArgs
	xa *kernels.ExtArgs
	ea *kernels.EmitArgs
	wa *kernels.SWEArgs

	// Host scratch, reused.
	hostH            []float32
	hostFx, hostFy   []float32
	hostBase         []float32 // the floors as lifted (liftFloors); nil until a body lifts one
	hostI32, hostAct []int32
	hostF32          []float32
	hostF64          []float64
	// The particle phase's copies of the state and its bound read-back and upload
	// (hostState); fallChanged is commit's list while fallWrite runs.
	fallH, fallR, fallF []float32
	fallRead, fallWrite func()
	fallFluxRead        func()
	fallChanged         []int32
	mark                []int32
	stamp               int32

	// Emitters on the device: the set and version last uploaded, and the emitter
	// kernel's threads.
	emSet     *emitterSet
	emGen     uint64
	emThreads int

	// A Step call's steps on the device: a frame. queue starts one, wait finishes it.
	frame struct {
		on   bool // queued and not yet waited for
		n    int
		t0   float64
		em   *emitterSet
		emit bool
		acct accounting // set by wait
		// With the SWE: the start time of the frame's last step queued, and whether the
		// capillary head took no rise at the frame's start (cpuBackend's capSt.fresh).
		tLast float64
		fresh bool
	}
	stages [2]stage // the frames' read-back buffers, used in turn
	cur    int      // the stage of the frame in flight, or of the last one
	// up is where a rebuild's lists are put for their asynchronous upload.
	up pinned
	// pending is the stage of a frame whose last step flipped a full flag: the next frame
	// rebuilds from it first (not at once: the counts of the extended pipes that Stats
	// reports are those of the last step taken).
	pending *stage
	// queueFn and waitFn are queueFrame and waitFrame, bound once: a closure per Step
	// would allocate.
	queueFn, waitFn func()
	closed          bool

	// For the tests: passage rebuilds, and frames resumed after a halt (vp_halted).
	rebuilds, resumes int
}

// pinned is host memory from the runtime's AllocHost (page-locked on a GPU).
type pinned struct {
	p     unsafe.Pointer
	bytes int
}

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

func newDeviceBackend(t *topology, rt kernelRuntime, mode ExtendedPipes, method Method, o backendOptions) (*deviceBackend, error) {
	c := t.cols
	d := &deviceBackend{rt: rt, topo: t, n: c.NumColumns(), np: t.numPipes(), nx: c.Nx, ny: c.Ny}
	d.lp = &d.p
	d.ext = newExtended(t, mode)
	d.dense = d.ext == nil && isDense(t) && !o.general && method != MethodSWE // the SWE: the general layout
	if d.ext != nil {
		d.ext.setWorkers(1)
	}
	if method == MethodSWE {
		d.swe = newSWEState(t)
	}
	d.sa, d.xa, d.ea, d.wa = new(kernels.StepArgs), new(kernels.ExtArgs), new(kernels.EmitArgs), new(kernels.SWEArgs)
	d.mark = make([]int32, d.n)
	d.queueFn, d.waitFn = d.queueFrame, d.waitFrame
	var err error
	rt.Do(func() { err = d.allocate() })
	if err != nil {
		d.close()
		return nil, fmt.Errorf("%s: %w", rt.Name(), err)
	}
	return d, nil
}

// alloc returns a zeroed device array of bytes, freed by close.
func (d *deviceBackend) alloc(bytes int, err *error) uint64 {
	if *err != nil {
		return 0
	}
	p, e := d.rt.Alloc(max(bytes, 4))
	if e != nil {
		*err = e
		return 0
	}
	d.rt.Zero(p, max(bytes, 4))
	d.bufs = append(d.bufs, p)
	return p
}

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

// allocate makes the device state: dry, fluxes zero.
func (d *deviceBackend) allocate() error {
	var err error
	t, c, n := d.topo, d.topo.cols, d.n
	d.h, d.r = d.alloc(4*n, &err), d.alloc(4*n, &err)
	d.k, d.s = d.alloc(4*n, &err), d.alloc(4*n, &err)
	d.base, d.top = d.alloc(4*n, &err), d.alloc(4*n, &err)
	if d.dense {
		d.fx, d.rx = d.alloc(4*(n+1), &err), d.alloc(4*(n+1), &err)
		d.fy, d.ry = d.alloc(4*(n+d.nx), &err), d.alloc(4*(n+d.nx), &err)
	} else {
		d.adjStart = d.alloc(4*(n+1), &err)
		d.adjPipe, d.adjOther = d.alloc(8*d.np, &err), d.alloc(8*d.np, &err)
		d.adjSign = d.alloc(8*d.np, &err)
		d.f, d.raw = d.alloc(4*d.np, &err), d.alloc(4*d.np, &err)
	}
	if d.ext != nil {
		d.extOut, d.extIn, d.extNet = d.alloc(4*n, &err), d.alloc(4*n, &err), d.alloc(4*n, &err)
		d.capped, d.full, d.fl = d.alloc(n, &err), d.alloc(n, &err), d.alloc(8, &err)
	}
	if d.swe != nil {
		d.sweD = d.alloc(4*d.np, &err)
		d.sweQ, d.sweUs, d.sweCuv = d.alloc(8*n, &err), d.alloc(8*n, &err), d.alloc(8*n, &err)
		d.sweSd = d.alloc(16*n, &err)
		d.pipeA, d.pipeB, d.axs = d.alloc(4*d.np, &err), d.alloc(4*d.np, &err), d.alloc(d.np, &err)
		d.side8, d.regular = d.alloc(len(t.adjPipe), &err), d.alloc(n, &err)
		d.sweSpeed = d.alloc(4, &err)
		if err == nil {
			err = d.growPinned(&d.sweHost, 4)
		}
	}
	if err != nil {
		return err
	}
	for k := range d.stages {
		if err := d.initStage(&d.stages[k]); err != nil {
			return err
		}
	}
	upload(d.rt, d.base, c.Base)
	upload(d.rt, d.top, c.Max)
	upload(d.rt, d.h, c.Base) // dry: h = b
	if !d.dense {
		upload(d.rt, d.adjStart, t.adjStart)
		upload(d.rt, d.adjPipe, t.adjPipe)
		upload(d.rt, d.adjOther, t.adjOther)
		upload(d.rt, d.adjSign, t.adjSign)
	}
	if d.ext != nil {
		upload(d.rt, d.capped, d.ext.isCapped)
	}
	if s := d.swe; s != nil {
		upload(d.rt, d.pipeA, t.pipeA)
		upload(d.rt, d.pipeB, t.pipeB)
		upload(d.rt, d.axs, s.axis)
		upload(d.rt, d.side8, s.side8)
		upload(d.rt, d.regular, regularColumns(t))
		// The host keeps the substeps' parameters only: the state is on the device.
		s.d, s.q, s.us, s.cuv, s.sides, s.axis, s.alongX, s.side8 = nil, nil, nil, nil, nil, nil, nil, nil
		*d.wa = kernels.SWEArgs{H: d.h, Hd: d.h, Base: d.base, F: d.f, Raw: d.raw, D: d.sweD,
			Q: d.sweQ, Us: d.sweUs, Cuv: d.sweCuv, Sides: d.sweSd,
			AdjStart: d.adjStart, AdjPipe: d.adjPipe, AdjOther: d.adjOther,
			PipeA: d.pipeA, PipeB: d.pipeB, Side8: d.side8, Regular: d.regular, Axis: d.axs,
			Speed: d.sweSpeed, Halt: d.halt(), N: int32(n), Np: int32(d.np)}
	}
	*d.sa = kernels.StepArgs{
		H: d.h, R: d.r, K: d.k, S: d.s, Base: d.base, Top: d.top,
		AdjStart: d.adjStart, AdjPipe: d.adjPipe, AdjOther: d.adjOther, AdjSign: d.adjSign,
		F: d.f, Raw: d.raw, Fx: d.fx, Fy: d.fy, Rx: d.rx, Ry: d.ry,
		ExtOut: d.extOut, ExtIn: d.extIn, ExtNet: d.extNet,
		Capped: d.capped, Full: d.full, Flips: d.fl, Halt: d.halt(),
		N: int32(n), Nx: int32(d.nx), Ny: int32(d.ny),
	}
	*d.xa = kernels.ExtArgs{H: d.h, Base: d.base, R: d.r, K: d.k, S: d.s,
		ExtOut: d.extOut, ExtIn: d.extIn, ExtNet: d.extNet, Halt: d.halt()}
	*d.ea = kernels.EmitArgs{H: d.h, R: d.r, Base: d.base, Top: d.top,
		Capped: d.capped, Full: d.full, Flips: d.fl, Halt: d.halt()}
	if d.ext != nil {
		d.sa.FullTol = d.ext.fullTol
		d.ea.FullTol = d.ext.fullTol
	}
	return nil
}

// grow makes b hold at least bytes (its old content is lost).
func (d *deviceBackend) grow(b *devBuf, bytes int) {
	if bytes <= b.cap {
		return
	}
	if b.p != 0 {
		d.rt.Free(b.p)
	}
	size := max(bytes, 2*b.cap, 256)
	p, err := d.rt.Alloc(size)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", d.rt.Name(), err))
	}
	b.p, b.cap = p, size
}

func (d *deviceBackend) name() string   { return d.rt.Name() }
func (d *deviceBackend) workers() int   { return 1 }
func (d *deviceBackend) setWorkers(int) {}

func (d *deviceBackend) setParams(p stepParams) {
	d.p = p
	if s := d.swe; s != nil { // as cpuBackend.setParams
		s.full, s.subM = p, 0
		s.setSubsteps(1) // until the first step measures the waves
	}
	d.setCapParams(p.cap)
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
	sa.CapRecede, sa.CapCoef, sa.CapDamp = p.cap.recede, p.cap.coef, p.cap.damp
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
		// sweState's substep constants, as sweColumns and sweFlux take them.
		wa.Invdx, wa.G, wa.DtDx, wa.GDtDx, wa.Vmax = 1/s.dx, s.g, s.dtDx, s.gDtDx, s.vmax
	}
}

// setCapParams installs the capillary head's constants, making its buffers (and, on the
// dense layout, the neighbour lists its kernels walk) the first time it is on.
func (d *deviceBackend) setCapParams(p capParams) {
	sa := d.sa
	sa.Hd = d.h
	sa.CapRecede, sa.CapCoef, sa.CapDamp, sa.CapMark = p.recede, p.coef, p.damp, int32(p.mark)
	sa.CapDropR, sa.CapDropA, sa.CapAdvance, sa.CapDx = p.dropR, p.dropA, p.advance, p.dx
	if !p.on {
		return
	}
	d.capFresh = true
	if d.capDrive == 0 {
		var err error
		d.rt.Do(func() {
			d.capDrive, d.capPrev = d.alloc(4*d.n, &err), d.alloc(4*d.n, &err)
			d.capS[0], d.capS[1] = d.alloc(4*d.n, &err), d.alloc(4*d.n, &err)
			d.capWet, d.capWetNext = d.alloc(d.n, &err), d.alloc(d.n, &err)
			if d.dense && err == nil {
				d.adjStart, d.adjOther = d.alloc(4*(d.n+1), &err), d.alloc(8*d.np, &err)
				if err == nil {
					upload(d.rt, d.adjStart, d.topo.adjStart)
					upload(d.rt, d.adjOther, d.topo.adjOther)
				}
			}
		})
		d.must(err)
		sa.AdjStart, sa.AdjOther = d.adjStart, d.adjOther
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

func boolInt32(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

func (d *deviceBackend) extendedCounts() (pipes, passages int) {
	if d.ext == nil {
		return 0, 0
	}
	return d.ext.counts()
}

// halt is the device address of the halt counter (see vp_halted): fl's second int32.
func (d *deviceBackend) halt() uint64 {
	if d.fl == 0 {
		return 0
	}
	return d.fl + 4
}

// growPinned makes b hold at least bytes (its content is lost). Only memory no queued
// copy uses may grow: the callers grow a stage before queuing its copies, and the upload
// buffer at the start of a rebuild, which always follows a wait.
func (d *deviceBackend) growPinned(b *pinned, bytes int) error {
	if bytes <= b.bytes {
		return nil
	}
	if b.p != nil {
		d.rt.FreeHost(b.p)
		*b = pinned{}
	}
	size := max(bytes, 2*b.bytes, 256)
	p, err := d.rt.AllocHost(size)
	if err != nil {
		return err
	}
	b.p, b.bytes = p, size
	return nil
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

// must panics on a host-memory allocation failure mid-run (page-locked memory is
// allocated up front and grows only with the emitters and the passages' lists).
func (d *deviceBackend) must(err error) {
	if err != nil {
		panic(fmt.Sprintf("%s: %v", d.rt.Name(), err))
	}
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
	active := d.hostAct[:0]
	for _, a := range em.active {
		active = append(active, boolInt32(a))
	}
	d.hostAct = active
	d.grow(&d.tCol, 4*nt)
	d.grow(&d.tEm, 4*nt)
	d.grow(&d.tWeight, 8*nt)
	d.grow(&d.eRate, 8*ne)
	d.grow(&d.eStart, 8*ne)
	d.grow(&d.eStop, 8*ne)
	d.grow(&d.eActive, 4*ne)
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
	ea := d.ea
	ea.TCol, ea.TEm, ea.TWeight = d.tCol.p, d.tEm.p, d.tWeight.p
	ea.Rate, ea.Start, ea.Stop, ea.Active, ea.Acc = d.eRate.p, d.eStart.p, d.eStop.p, d.eActive.p, d.acc.p
	ea.Nt, ea.Serial = int32(nt), boolInt32(serial)
	ea.DCol, ea.DCoef, ea.Nd = d.dCol.p, d.dCoef.p, int32(nd)
	ea.Dx, ea.Film = em.dDx, boolInt32(em.dFilm)
	if serial {
		return 1
	}
	return nt + nd
}

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

// close frees the device memory.
func (d *deviceBackend) close() {
	if d.closed {
		return
	}
	d.closed = true
	d.rt.Do(func() {
		d.rt.Wait() // a frame may be in flight: a Sim dropped without Sync
		d.frame.on = false
		for k := range d.stages {
			st := &d.stages[k]
			for _, b := range []*pinned{&st.main, &st.accBuf, &st.histBuf} {
				if b.p != nil {
					d.rt.FreeHost(b.p)
				}
			}
			*st = stage{}
		}
		for _, b := range []*pinned{&d.up, &d.sweHost} {
			if b.p != nil {
				d.rt.FreeHost(b.p)
				*b = pinned{}
			}
		}
		for _, p := range d.bufs {
			d.rt.Free(p)
		}
		for _, b := range []*devBuf{&d.uCol, &d.uStart, &d.uGap, &d.uF, &d.axA, &d.axB, &d.axCells, &d.axGap, &d.axF,
			&d.tCol, &d.tEm, &d.tWeight, &d.eRate, &d.eStart, &d.eStop, &d.eActive, &d.acc} {
			if b.p != 0 {
				d.rt.Free(b.p)
				*b = devBuf{}
			}
		}
	})
	d.bufs = nil
	d.rt.Close()
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
