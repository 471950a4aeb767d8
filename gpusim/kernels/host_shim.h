// host_shim.h: compile vpbench.cu as plain C++ for the host, so that CI (which has no
// GPU) can run every kernel and compare it with the Go CPU backend. It maps the CUDA
// qualifiers and built-ins the kernels use, and vp_host_run runs a launch's grid as a
// loop, one "thread" after the other (forward or backward: the kernels must not depend
// on the order, and the tests run both).
//
// Compile with -ffp-contract=off (no fused multiply-add, like nvcc -fmad=false) and
// without -ffast-math, so float32 operations round like Go's and the device's.
#ifndef VP_HOST_SHIM_H
#define VP_HOST_SHIM_H

#include <cmath>
#include <cstring>

#define VP_HOST 1
#define __global__
#define __device__
#define __forceinline__ inline
#define VP_KERNEL static void

using std::signbit; // fabsf comes from <cmath> (math.h) as on the device

struct vp_dim3 {
	unsigned x, y, z;
};
static vp_dim3 blockIdx, threadIdx, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};

// Threads run one at a time, so an atomic add is a plain add,
static inline int atomicAdd(int *p, int v)
{
	int old = *p;
	*p = old + v;
	return old;
}

// and so is an atomic max.
static inline unsigned atomicMax(unsigned *p, unsigned v)
{
	unsigned old = *p;
	if (v > old) *p = v;
	return old;
}

// vp_host_run runs kernel over n threads (blocks of one thread), in index order or
// backwards.
template <typename A>
static void vp_host_run(void (*kernel)(const A), const void *args, int n, int reverse)
{
	A a;
	std::memcpy(&a, args, sizeof a);
	blockDim.x = 1;
	gridDim.x = (unsigned)n;
	for (int k = 0; k < n; k++) {
		int i = reverse ? n - 1 - k : k;
		blockIdx.x = (unsigned)i;
		threadIdx.x = 0;
		kernel(a);
	}
}

#endif
