//go:build !cuda

package gpusim

import "errors"

// errNoCUDA is what asking for the cuda backend in a build without it gives.
var errNoCUDA = errors.New("the cuda backend is not in this build: build with `make cuda` (bin/vpbench-cuda), or use backend \"cpu\"")

// newCUDARuntime reports that this build has no cuda backend (cuda.go has it, built
// with -tags cuda: gorgonia.org/cu must not be linked into the build that runs everywhere).
func newCUDARuntime() (kernelRuntime, error) { return nil, errNoCUDA }
