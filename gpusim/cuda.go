//go:build cuda

package gpusim

// The cuda backend's kernel runtime: one CUDA context, on a goroutine locked to its OS
// thread, running the PTX of gpusim/kernels through gorgonia.org/cu (docs/cuda.md).

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include <string.h>

static CUresult vp_launch(CUfunction f, unsigned grid, unsigned block, CUstream s, void *args)
{
	void *params[1] = {args};
	return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, params, NULL);
}

static CUresult vp_download(void *dst, CUdeviceptr src, size_t n, void *pinned, size_t chunk)
{
	// Through pinned memory, chunk by chunk: a DMA copy, then a host copy.
	for (size_t off = 0; off < n; off += chunk) {
		size_t m = n - off < chunk ? n - off : chunk;
		CUresult rc = cuMemcpyDtoHAsync(pinned, src + off, m, 0);
		if (rc == CUDA_SUCCESS) rc = cuStreamSynchronize(0);
		if (rc != CUDA_SUCCESS) return rc;
		memcpy((char *)dst + off, pinned, m);
	}
	return CUDA_SUCCESS;
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	_ "github.com/vpbench/vpbench/gpusim/internal/cudaprobe" // before cu's init: see there
	"github.com/vpbench/vpbench/gpusim/kernels"
	"gorgonia.org/cu"
)

// blockSize is the threads per block of every per-column kernel.
const blockSize = 256

// pinnedBytes is the size of the page-locked buffer downloads go through.
const pinnedBytes = 8 << 20

type cudaRuntime struct {
	name   string
	mu     sync.Mutex // one Do at a time
	work   chan func()
	done   chan struct{}
	fns    [kernels.NumKernels]C.CUfunction
	pinned unsafe.Pointer
}

var (
	cudaOnce   sync.Once
	cudaShared *cudaRuntime
	cudaErr    error
)

// newCUDARuntime returns the process's CUDA runtime, opening it on first use: device 0,
// a context on a locked OS thread, the kernels' module JIT-compiled from the PTX.
func newCUDARuntime() (kernelRuntime, error) {
	cudaOnce.Do(func() {
		r := &cudaRuntime{work: make(chan func()), done: make(chan struct{})}
		errc := make(chan error)
		go r.loop(errc)
		if err := <-errc; err != nil {
			cudaErr = fmt.Errorf("cuda backend: %w", err)
			return
		}
		cudaShared = r
	})
	if cudaErr != nil {
		return nil, cudaErr
	}
	return cudaShared, nil
}

// loop owns the CUDA context: it runs on one OS thread for the life of the process.
func (r *cudaRuntime) loop(errc chan<- error) {
	runtime.LockOSThread()
	if err := r.open(); err != nil {
		errc <- err
		return
	}
	errc <- nil
	for fn := range r.work {
		fn()
		r.done <- struct{}{}
	}
}

func (r *cudaRuntime) open() error {
	n, err := cu.NumDevices()
	if err != nil {
		return fmt.Errorf("counting devices: %v", err)
	}
	if n == 0 {
		return fmt.Errorf("the NVIDIA driver sees no GPU")
	}
	dev, err := cu.GetDevice(0)
	if err != nil {
		return fmt.Errorf("device 0: %v", err)
	}
	name, err := dev.Name()
	if err != nil {
		return fmt.Errorf("device 0: %v", err)
	}
	r.name = "cuda (" + name + ")"
	ctx, err := dev.MakeContext(cu.SchedAuto)
	if err != nil {
		return fmt.Errorf("creating a context on %s: %v", name, err)
	}
	if err := cu.SetCurrentContext(ctx); err != nil {
		return fmt.Errorf("making the context current: %v", err)
	}
	mod, err := cu.LoadData(kernels.PTX)
	if err != nil {
		return fmt.Errorf("loading the kernels (PTX %s, CUDA 11.8: the driver must be 520 or newer): %v", kernels.Arch, err)
	}
	for k, kn := range kernels.Names {
		fn, err := mod.Function(kn)
		if err != nil {
			return fmt.Errorf("kernel %s: %v", kn, err)
		}
		r.fns[k] = *(*C.CUfunction)(unsafe.Pointer(&fn)) // cu.Function holds just the handle
	}
	if rc := C.cuMemAllocHost(&r.pinned, pinnedBytes); rc != C.CUDA_SUCCESS {
		return fmt.Errorf("allocating %d MB of pinned memory: CUDA error %d", pinnedBytes>>20, int(rc))
	}
	return nil
}

func (r *cudaRuntime) Name() string { return r.name }

// Do runs fn on the context's thread.
func (r *cudaRuntime) Do(fn func()) {
	r.mu.Lock()
	r.work <- fn
	<-r.done
	r.mu.Unlock()
}

// check panics on a CUDA error: past setup, one means a lost or failing device.
func check(op string, rc C.CUresult) {
	if rc != C.CUDA_SUCCESS {
		var s *C.char
		C.cuGetErrorString(rc, &s)
		panic(fmt.Sprintf("cuda backend: %s: %s (CUDA error %d)", op, C.GoString(s), int(rc)))
	}
}

func (r *cudaRuntime) Alloc(bytes int) (uint64, error) {
	var p C.CUdeviceptr
	if rc := C.cuMemAlloc(&p, C.size_t(bytes)); rc != C.CUDA_SUCCESS {
		var free, total C.size_t
		C.cuMemGetInfo(&free, &total)
		return 0, fmt.Errorf("allocating %d MB on the GPU failed (CUDA error %d; %d of %d MB free)",
			bytes>>20, int(rc), uint64(free)>>20, uint64(total)>>20)
	}
	return uint64(p), nil
}

func (r *cudaRuntime) Free(p uint64) { check("free", C.cuMemFree(C.CUdeviceptr(p))) }

func (r *cudaRuntime) Upload(dst uint64, src unsafe.Pointer, bytes int) {
	if bytes > 0 {
		check("upload", C.cuMemcpyHtoD(C.CUdeviceptr(dst), src, C.size_t(bytes)))
	}
}

func (r *cudaRuntime) Download(dst unsafe.Pointer, src uint64, bytes int) {
	if bytes > 0 {
		check("download", C.vp_download(dst, C.CUdeviceptr(src), C.size_t(bytes), r.pinned, pinnedBytes))
	}
}

// AllocHost returns page-locked host memory, which the GPU copies into asynchronously.
func (r *cudaRuntime) AllocHost(bytes int) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if rc := C.cuMemAllocHost(&p, C.size_t(max(bytes, 1))); rc != C.CUDA_SUCCESS {
		return nil, fmt.Errorf("allocating %d MB of page-locked host memory failed (CUDA error %d)", bytes>>20, int(rc))
	}
	return p, nil
}

func (r *cudaRuntime) FreeHost(p unsafe.Pointer) { check("free host memory", C.cuMemFreeHost(p)) }

// DownloadAsync queues a copy into page-locked memory on the default stream, behind the
// launches queued before it.
func (r *cudaRuntime) DownloadAsync(dst unsafe.Pointer, src uint64, bytes int) {
	if bytes > 0 {
		check("download", C.cuMemcpyDtoHAsync(dst, C.CUdeviceptr(src), C.size_t(bytes), nil))
	}
}

// UploadAsync queues a copy from page-locked memory on the default stream.
func (r *cudaRuntime) UploadAsync(dst uint64, src unsafe.Pointer, bytes int) {
	if bytes > 0 {
		check("upload", C.cuMemcpyHtoDAsync(C.CUdeviceptr(dst), src, C.size_t(bytes), nil))
	}
}

// Wait waits for the default stream: every launch and copy queued so far.
func (r *cudaRuntime) Wait() { check("synchronize", C.cuStreamSynchronize(nil)) }

func (r *cudaRuntime) Zero(dst uint64, bytes int) {
	if bytes > 0 {
		check("memset", C.cuMemsetD8(C.CUdeviceptr(dst), 0, C.size_t(bytes)))
	}
}

func (r *cudaRuntime) Launch(k kernels.ID, n int, args unsafe.Pointer) {
	if n <= 0 {
		return
	}
	block := min(n, blockSize)
	grid := (n + block - 1) / block
	check(kernels.Names[k], C.vp_launch(r.fns[k], C.uint(grid), C.uint(block), nil, args))
}

// CopyBandwidth measures the device's memory bandwidth, in bytes per second: reps
// device-to-device copies of bytes (each reads and writes bytes), timed from the first
// copy's start to the last one's end. It is the bound the step's speed is compared with
// (docs/cuda.md, "Performance"): measured in the same run, on the same device.
func (r *cudaRuntime) CopyBandwidth(bytes, reps int) (float64, error) {
	var bw float64
	var err error
	r.Do(func() {
		var src, dst C.CUdeviceptr
		if rc := C.cuMemAlloc(&src, C.size_t(bytes)); rc != C.CUDA_SUCCESS {
			err = fmt.Errorf("allocating %d MB for the bandwidth test: CUDA error %d", bytes>>20, int(rc))
			return
		}
		defer C.cuMemFree(src)
		if rc := C.cuMemAlloc(&dst, C.size_t(bytes)); rc != C.CUDA_SUCCESS {
			err = fmt.Errorf("allocating %d MB for the bandwidth test: CUDA error %d", bytes>>20, int(rc))
			return
		}
		defer C.cuMemFree(dst)
		check("memset", C.cuMemsetD8(src, 1, C.size_t(bytes)))
		check("copy", C.cuMemcpyDtoD(dst, src, C.size_t(bytes))) // warm
		check("sync", C.cuCtxSynchronize())
		t0 := time.Now()
		for range reps {
			check("copy", C.cuMemcpyDtoD(dst, src, C.size_t(bytes)))
		}
		check("sync", C.cuCtxSynchronize())
		bw = 2 * float64(bytes) * float64(reps) / time.Since(t0).Seconds()
	})
	return bw, err
}

// Close keeps the shared context: it lives as long as the process.
func (r *cudaRuntime) Close() {}
