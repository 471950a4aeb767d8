//go:build !cuda

package gpusim

// newCUDARuntime reports that this build has no cuda backend (cuda.go has it, built
// with -tags cuda: gorgonia.org/cu must not be linked into the build that runs everywhere).
func newCUDARuntime() (kernelRuntime, error) { return nil, ErrNoCUDA }
