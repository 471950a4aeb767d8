//go:build cgo

package gpusim

import "github.com/vpbench/vpbench/gpusim/internal/hostkernels"

// RegisterHostKernelBackends makes three more backend names usable, for tests: the device
// backend driving the CUDA kernels compiled for the host (internal/hostkernels), with
// each grid's threads run in index order ("host-kernels"), backwards
// ("host-kernels-reverse"), or with all device work deferred until the host waits
// ("host-kernels-deferred", which makes reading a pipelined frame too early visible). They
// give the CPU backend's bits, slowly; they are how the packages above gpusim test the
// device backend's code paths (pipelining included) without a GPU. Call it before New.
func RegisterHostKernelBackends() {
	runtimes["host-kernels"] = func() (kernelRuntime, error) { return hostkernels.New(false), nil }
	runtimes["host-kernels-reverse"] = func() (kernelRuntime, error) { return hostkernels.New(true), nil }
	runtimes["host-kernels-deferred"] = func() (kernelRuntime, error) {
		r := hostkernels.New(false)
		r.Deferred = true
		return r, nil
	}
}
