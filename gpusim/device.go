package gpusim

// The device backend (docs/cuda.md): the kernel runtime it drives, the deviceBackend type,
// and its lifecycle: made, its device and page-locked memory allocated and grown, closed.
// Its other parts: device_args.go (the argument blocks), device_cap.go (the capillary
// head), device_frame.go (frames: queued, read back, waited for), device_swe.go (the
// shallow water equations), device_emit.go (sources and sinks), device_ext.go (the
// passages' rebuilds), device_transfer.go (the state read and written from the host).

import (
	"errors"
	"fmt"
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
	swe                              *sweState
	sweD, sweQ, sweUs, sweCuv, sweSd uint64
	pipeA, pipeB, regular, axs       uint64
	sweSpeed                         uint64 // the fastest wave's bits (vp_swe_columns)
	sweHost                          pinned // its read-back
	taken                            int64

	ext       *extended // nil when no column is capped
	extOn     bool      // ext != nil and its mode is not off
	histValid bool      // the device's extended fluxes belong to ext's current lists
	entries   int       // extended openings (unified) or pipes (axis) on the device

	bufs []uint64 // fixed allocations, freed by close

	h, r, k, s, base, top                   uint64
	adjStart, adjPipe, adjOther, adjSign    uint64
	adjDir                                  uint64 // topology.adjDir (the SWE's side8 too)
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
	eLevel, eHolds                                         devBuf // the held levels (Emitter.Holds)
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
		d.adjSign, d.adjDir = d.alloc(8*d.np, &err), d.alloc(2*d.np, &err)
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
		d.regular = d.alloc(n, &err)
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
		upload(d.rt, d.adjDir, t.adjDir)
	}
	if d.ext != nil {
		upload(d.rt, d.capped, d.ext.isCapped)
	}
	if s := d.swe; s != nil {
		upload(d.rt, d.pipeA, t.pipeA)
		upload(d.rt, d.pipeB, t.pipeB)
		upload(d.rt, d.axs, s.axis)
		upload(d.rt, d.regular, regularColumns(t))
		// The host keeps the substeps' parameters only: the state is on the device.
		s.d, s.q, s.us, s.cuv, s.sides, s.axis, s.alongX, s.side8 = nil, nil, nil, nil, nil, nil, nil, nil
		*d.wa = kernels.SWEArgs{H: d.h, Hd: d.h, Base: d.base, F: d.f, Raw: d.raw, D: d.sweD,
			Q: d.sweQ, Us: d.sweUs, Cuv: d.sweCuv, Sides: d.sweSd,
			AdjStart: d.adjStart, AdjPipe: d.adjPipe, AdjOther: d.adjOther,
			PipeA: d.pipeA, PipeB: d.pipeB, Side8: d.adjDir, Regular: d.regular, Axis: d.axs,
			Speed: d.sweSpeed, Halt: d.halt(), N: int32(n), Np: int32(d.np)}
	}
	*d.sa = kernels.StepArgs{
		H: d.h, R: d.r, K: d.k, S: d.s, Base: d.base, Top: d.top,
		AdjStart: d.adjStart, AdjPipe: d.adjPipe, AdjOther: d.adjOther, AdjSign: d.adjSign, AdjDir: d.adjDir,
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

// must panics on a host-memory allocation failure mid-run (page-locked memory is
// allocated up front and grows only with the emitters and the passages' lists).
func (d *deviceBackend) must(err error) {
	if err != nil {
		panic(fmt.Sprintf("%s: %v", d.rt.Name(), err))
	}
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
			&d.tCol, &d.tEm, &d.tWeight, &d.eRate, &d.eStart, &d.eStop, &d.eActive, &d.acc,
			&d.eLevel, &d.eHolds, &d.dCol, &d.dCoef} {
			if b.p != 0 {
				d.rt.Free(b.p)
				*b = devBuf{}
			}
		}
	})
	d.bufs = nil
	d.rt.Close()
}
