// Package hostkernels runs vpbench's CUDA kernels (gpusim/kernels/vpbench.cu) on the host:
// kernels.cc compiles the same source through host_shim.h, which maps the CUDA built-ins
// and runs each launch's grid as a loop. Runtime offers the memory and launch calls of a
// device over ordinary memory, so that gpusim's device backend, the code that drives the
// GPU, runs unchanged without one; gpusim's tests compare it with the CPU backend step by
// step (see docs/cuda.md).
//
// It needs cgo and a C++ compiler (g++), nothing of CUDA.
package hostkernels

/*
#cgo CXXFLAGS: -O2 -std=c++14
// (ISO C++ mode: GCC does not contract a*b+c into a fused multiply-add, -ffp-contract=off
// being its default there; cgo refuses that flag itself.)
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
void vp_host_launch(int id, const void *args, int n, int reverse);
uint64_t vp_host_alloc(size_t n);
void vp_host_free(uint64_t p);
void vp_host_upload(uint64_t dst, const void *src, size_t n);
void vp_host_download(void *dst, uint64_t src, size_t n);
void vp_host_zero(uint64_t dst, size_t n);
size_t vp_host_layout(int i);
int vp_host_layout_len(void);
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/vpbench/vpbench/gpusim/kernels"
)

// Runtime is a kernel runtime over host memory. Addresses are those of C allocations.
// Reverse runs every grid from its last thread to its first, which tells whether a
// kernel depends on the order its threads run in (it must not).
//
// Deferred models a device that has not got round to anything yet: launches, zeroing
// and asynchronous downloads are only queued, and run in order when the host waits
// (Wait, or a synchronous Download or Upload, which wait for the queue as CUDA's do on
// the default stream). A backend that reads what an asynchronous download wrote before
// waiting for it then reads stale memory, and the tests see it.
type Runtime struct {
	Reverse  bool
	Deferred bool
	Launches int // kernels launched so far
	// Syncs counts the times the host waited for the device: Wait, Download and Upload.
	// (Free and FreeHost run the queue too, uncounted: memory is given back only when a
	// buffer grows or at the end.)
	Syncs int

	queue []op
}

// op is a queued launch, zeroing or download (Deferred).
type op struct {
	kind  opKind
	k     kernels.ID
	n     int
	args  [argsMax]byte
	dst   unsafe.Pointer
	addr  uint64
	bytes int
}

type opKind uint8

const (
	opLaunch opKind = iota
	opZero
	opDownload
	opUpload
)

// argsMax bounds the argument blocks' size (checked in init).
const argsMax = 384

func init() {
	for _, l := range kernels.ArgLayouts {
		if l.Size > argsMax {
			panic(fmt.Sprintf("hostkernels: argument block %s is %d bytes, more than argsMax", l.Go, l.Size))
		}
	}
}

// New returns a runtime that runs grids forward (reverse = false) or backward.
func New(reverse bool) *Runtime { return &Runtime{Reverse: reverse} }

// Name names the runtime.
func (r *Runtime) Name() string {
	name := "host-kernels"
	if r.Reverse {
		name += " (reverse)"
	}
	if r.Deferred {
		name += " (deferred)"
	}
	return name
}

// Do runs fn (host memory has no thread affinity).
func (r *Runtime) Do(fn func()) { fn() }

// Alloc returns zeroed memory of the given size.
func (r *Runtime) Alloc(bytes int) (uint64, error) {
	p := uint64(C.vp_host_alloc(C.size_t(bytes)))
	if p == 0 {
		return 0, errors.New("host-kernels: out of memory")
	}
	return p, nil
}

// Free releases memory from Alloc.
func (r *Runtime) Free(p uint64) {
	r.flush()
	C.vp_host_free(C.uint64_t(p))
}

// AllocHost returns zeroed host memory for DownloadAsync (page-locked on a GPU).
func (r *Runtime) AllocHost(bytes int) (unsafe.Pointer, error) {
	p := C.calloc(C.size_t(max(bytes, 1)), 1)
	if p == nil {
		return nil, errors.New("host-kernels: out of memory")
	}
	return p, nil
}

// FreeHost releases memory from AllocHost.
func (r *Runtime) FreeHost(p unsafe.Pointer) {
	r.flush()
	C.free(p)
}

// Upload copies bytes from src to dst, after what is queued.
func (r *Runtime) Upload(dst uint64, src unsafe.Pointer, bytes int) {
	r.Wait()
	if bytes > 0 {
		C.vp_host_upload(C.uint64_t(dst), src, C.size_t(bytes))
	}
}

// Download copies bytes from src to dst, after what is queued.
func (r *Runtime) Download(dst unsafe.Pointer, src uint64, bytes int) {
	r.Wait()
	if bytes > 0 {
		C.vp_host_download(dst, C.uint64_t(src), C.size_t(bytes))
	}
}

// DownloadAsync queues a copy of bytes from src to dst (memory from AllocHost).
func (r *Runtime) DownloadAsync(dst unsafe.Pointer, src uint64, bytes int) {
	switch {
	case bytes <= 0:
	case r.Deferred:
		r.queue = append(r.queue, op{kind: opDownload, dst: dst, addr: src, bytes: bytes})
	default:
		C.vp_host_download(dst, C.uint64_t(src), C.size_t(bytes))
	}
}

// UploadAsync queues a copy of bytes from src (memory from AllocHost) to dst; src is read
// when the copy runs.
func (r *Runtime) UploadAsync(dst uint64, src unsafe.Pointer, bytes int) {
	switch {
	case bytes <= 0:
	case r.Deferred:
		r.queue = append(r.queue, op{kind: opUpload, dst: src, addr: dst, bytes: bytes})
	default:
		C.vp_host_upload(C.uint64_t(dst), src, C.size_t(bytes))
	}
}

// Zero clears bytes at dst.
func (r *Runtime) Zero(dst uint64, bytes int) {
	switch {
	case bytes <= 0:
	case r.Deferred:
		r.queue = append(r.queue, op{kind: opZero, addr: dst, bytes: bytes})
	default:
		C.vp_host_zero(C.uint64_t(dst), C.size_t(bytes))
	}
}

// Launch runs kernel k over n threads; args points to its argument block, which is
// copied before Launch returns.
func (r *Runtime) Launch(k kernels.ID, n int, args unsafe.Pointer) {
	r.Launches++
	if !r.Deferred {
		C.vp_host_launch(C.int(k), args, C.int(n), boolInt(r.Reverse))
		return
	}
	r.queue = append(r.queue, op{kind: opLaunch, k: k, n: n})
	o := &r.queue[len(r.queue)-1]
	copy(o.args[:], unsafe.Slice((*byte)(args), argsSize(k)))
}

// argsSize is the size of kernel k's argument block.
func argsSize(k kernels.ID) int {
	switch k.Args() {
	case "EmitArgs":
		return int(unsafe.Sizeof(kernels.EmitArgs{}))
	case "ExtArgs":
		return int(unsafe.Sizeof(kernels.ExtArgs{}))
	case "SWEArgs":
		return int(unsafe.Sizeof(kernels.SWEArgs{}))
	}
	return int(unsafe.Sizeof(kernels.StepArgs{}))
}

// do runs a queued operation.
func (r *Runtime) do(o *op) {
	switch o.kind {
	case opLaunch:
		C.vp_host_launch(C.int(o.k), unsafe.Pointer(&o.args), C.int(o.n), boolInt(r.Reverse))
	case opZero:
		C.vp_host_zero(C.uint64_t(o.addr), C.size_t(o.bytes))
	case opDownload:
		C.vp_host_download(o.dst, C.uint64_t(o.addr), C.size_t(o.bytes))
	case opUpload: // dst holds the host source here
		C.vp_host_upload(C.uint64_t(o.addr), o.dst, C.size_t(o.bytes))
	}
}

// Wait runs what is queued and counts one wait of the host for the device.
func (r *Runtime) Wait() {
	r.Syncs++
	r.flush()
}

// flush runs what is queued.
func (r *Runtime) flush() {
	for k := range r.queue {
		r.do(&r.queue[k])
	}
	r.queue = r.queue[:0]
}

// Close does nothing: memory is freed by Free.
func (r *Runtime) Close() {}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Layout returns what the C compiler makes of the argument blocks (vp_args_layout.h,
// which argsgen writes from vp_args.h): for each block of kernels.ArgLayouts, in order, its
// size, then each field's offset and size.
func Layout() []uintptr {
	l := make([]uintptr, int(C.vp_host_layout_len()))
	for i := range l {
		l[i] = uintptr(C.vp_host_layout(C.int(i)))
	}
	return l
}
