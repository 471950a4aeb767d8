//go:build cuda

// Package cudaprobe checks, before gorgonia.org/cu is initialized, that the NVIDIA
// driver is there and sees a GPU. cu's package init calls cuInit and exits the process
// with a terse message when it fails; this package's init runs first (Go initializes
// packages whose dependencies are ready in the order of their import paths, and
// "github.com/..." sorts before "gorgonia.org/..."), loads libcuda.so.1 with dlopen, and
// when no GPU is usable it says so plainly, with what to run instead, and exits.
//
// Only the cuda build (-tags cuda) has it; gpusim's cuda.go imports it.
package cudaprobe

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>

typedef int (*vp_init_fn)(unsigned);
typedef int (*vp_count_fn)(int *);

// vp_probe: 0 when cuInit succeeds and a device is there; -1 when libcuda.so.1 cannot be
// loaded (err set), -2 when it lacks cuInit, else cuInit's or cuDeviceGetCount's result.
static int vp_probe(int *count, const char **err)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		*err = dlerror();
		return -1;
	}
	vp_init_fn init = (vp_init_fn)dlsym(h, "cuInit");
	vp_count_fn cnt = (vp_count_fn)dlsym(h, "cuDeviceGetCount");
	if (!init || !cnt) return -2;
	int rc = init(0);
	if (rc) return rc;
	return cnt(count);
}
*/
import "C"

import (
	"fmt"
	"os"
)

// Devices is the number of CUDA devices the driver reports (at least 1 once init is done).
var Devices int

func init() {
	var count C.int
	var cerr *C.char
	rc := int(C.vp_probe(&count, &cerr))
	reason := ""
	switch {
	case rc == -1:
		reason = "the NVIDIA driver library libcuda.so.1 cannot be loaded (" + C.GoString(cerr) + "): no NVIDIA driver is installed"
	case rc == -2:
		reason = "libcuda.so.1 has no cuInit: it is not an NVIDIA driver"
	case rc == 100:
		reason = "the NVIDIA driver sees no GPU (CUDA_ERROR_NO_DEVICE)"
	case rc == 34:
		reason = "libcuda.so.1 is the CUDA toolkit's stub, not a driver (CUDA_ERROR_STUB_LIBRARY)"
	case rc == 35:
		reason = "the NVIDIA driver is older than this build needs (CUDA_ERROR_INSUFFICIENT_DRIVER)"
	case rc != 0:
		reason = fmt.Sprintf("cuInit failed with CUDA error %d", rc)
	case count == 0:
		reason = "the NVIDIA driver sees no GPU"
	}
	if reason != "" {
		fmt.Fprintf(os.Stderr, "vpbench: this is the cuda build, which needs a usable NVIDIA GPU, and %s.\n"+
			"Run the plain build instead (make build, bin/vpbench): it has the cpu backend and runs everywhere.\n", reason)
		os.Exit(1)
	}
	Devices = int(count)
}
