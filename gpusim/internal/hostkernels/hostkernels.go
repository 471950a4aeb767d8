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
void vp_host_launch(int id, const void *args, int n, int reverse);
uint64_t vp_host_alloc(size_t n);
void vp_host_free(uint64_t p);
void vp_host_upload(uint64_t dst, const void *src, size_t n);
void vp_host_download(void *dst, uint64_t src, size_t n);
void vp_host_zero(uint64_t dst, size_t n);
size_t vp_host_layout(int which, int field);
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/vpbench/vpbench/gpusim/kernels"
)

// Runtime is a kernel runtime over host memory. Addresses are those of C allocations.
// Reverse runs every grid from its last thread to its first, which tells whether a
// kernel depends on the order its threads run in (it must not).
type Runtime struct {
	Reverse  bool
	Launches int // kernels launched so far
}

// New returns a runtime that runs grids forward (reverse = false) or backward.
func New(reverse bool) *Runtime { return &Runtime{Reverse: reverse} }

// Name names the runtime.
func (r *Runtime) Name() string {
	if r.Reverse {
		return "host-kernels (reverse)"
	}
	return "host-kernels"
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
func (r *Runtime) Free(p uint64) { C.vp_host_free(C.uint64_t(p)) }

// Upload copies bytes from src to dst.
func (r *Runtime) Upload(dst uint64, src unsafe.Pointer, bytes int) {
	if bytes > 0 {
		C.vp_host_upload(C.uint64_t(dst), src, C.size_t(bytes))
	}
}

// Download copies bytes from src to dst.
func (r *Runtime) Download(dst unsafe.Pointer, src uint64, bytes int) {
	if bytes > 0 {
		C.vp_host_download(dst, C.uint64_t(src), C.size_t(bytes))
	}
}

// Zero clears bytes at dst.
func (r *Runtime) Zero(dst uint64, bytes int) {
	if bytes > 0 {
		C.vp_host_zero(C.uint64_t(dst), C.size_t(bytes))
	}
}

// Launch runs kernel k over n threads; args points to its argument block.
func (r *Runtime) Launch(k kernels.ID, n int, args unsafe.Pointer) {
	r.Launches++
	C.vp_host_launch(C.int(k), args, C.int(n), boolInt(r.Reverse))
}

// Close does nothing: memory is freed by Free.
func (r *Runtime) Close() {}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Layout returns the C size of argument block which (0 VPStep, 1 VPEmit, 2 VPExt) and
// the offsets of four of its fields, for the test that kernels' Go mirrors agree.
func Layout(which int) [5]uintptr {
	var l [5]uintptr
	for f := range l {
		l[f] = uintptr(C.vp_host_layout(C.int(which), C.int(f)))
	}
	return l
}
