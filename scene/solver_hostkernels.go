//go:build cgo

package scene

import "github.com/vpbench/vpbench/gpusim"

// RegisterHostKernelBackends makes the solver's test backends usable: the device backend
// driving the CUDA kernels compiled for the host ("host-kernels", "host-kernels-reverse",
// "host-kernels-deferred"; see gpusim.RegisterHostKernelBackends). They give the CPU
// backend's bits, slowly, and let the packages above the scene test the device backend's
// code paths (pipelining included) without a GPU. Call it before the first scene.
func RegisterHostKernelBackends() { gpusim.RegisterHostKernelBackends() }
