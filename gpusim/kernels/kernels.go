// Package kernels holds the CUDA kernels of vpbench's cuda backend: vpbench.cu, compiled
// to PTX (vpbench.ptx, committed; `make ptx` regenerates it and `make ptx-check` fails
// when it is stale), the argument blocks they take (vp_args.h, whose Go twins StepArgs,
// EmitArgs, ExtArgs and SWEArgs internal/argsgen generates into args_gen.go), and
// host_shim.h, which compiles the same source for the host so that the kernels can be
// checked against the Go CPU backend without a GPU (gpusim/internal/hostkernels).
//
// This package is pure Go and builds everywhere; only gpusim's cuda build loads the PTX.
package kernels

import "embed"

// PTX is vpbench.cu compiled for compute capability 7.0 (nvcc 11.8, -fmad=false); the
// driver compiles it for the device at hand (any GPU from Volta on).
//
//go:embed vpbench.ptx
var PTX string

// Source holds the kernels' source: vpbench.cu and the headers it is compiled with.
// Nothing reads it at run time. It is here for the Go build cache, which hashes a cgo
// package's own files but not a C++ file it includes from elsewhere: internal/hostkernels
// compiles vpbench.cu from this directory, and through its import of this package, whose
// content this makes change with the source, an edited kernel rebuilds it (without it, a
// warm cache ran the host tests on the old kernels).
//
//go:embed vpbench.cu vp_args.h vp_args_layout.h host_shim.h
var Source embed.FS

// Arch is the virtual architecture the PTX targets.
const Arch = "compute_70"

// ID names a kernel.
type ID int

// The kernels, in the order of Names.
const (
	CSRFluxOutflow ID = iota
	CSRInflow
	CSRFinalHeight
	DenseFluxOutflow
	DenseInflow
	DenseFinalHeight
	Emit
	ExtRaw
	ExtFinal
	ExtClear
	CapSmooth
	CapHead
	CSROutflow // the outflow kernel of the SWE's substeps (raw fluxes from SWEFlux)
	SWEColumns
	SWESides
	SWEFlux
	SWEFromFluxes
	CapWet
	NumKernels
)

// Names are the kernels' entry points in vpbench.cu.
var Names = [NumKernels]string{
	"vp_csr_flux_outflow", "vp_csr_inflow", "vp_csr_final_height",
	"vp_dense_flux_outflow", "vp_dense_inflow", "vp_dense_final_height",
	"vp_emit", "vp_ext_raw", "vp_ext_final", "vp_ext_clear",
	"vp_cap_smooth", "vp_cap_head",
	"vp_csr_outflow", "vp_swe_columns", "vp_swe_sides", "vp_swe_flux", "vp_swe_from_fluxes",
	"vp_cap_wet",
}

// The Go twins of vp_args.h's structs (args_gen.go, vp_args_layout.h): after an edit of
// the header, go generate ./gpusim/kernels/ (docs/cuda.md, "Kernel arguments").
//
//go:generate go run ./internal/argsgen

// Args tells which argument block kernel k takes: a *StepArgs, *EmitArgs, *ExtArgs or
// *SWEArgs.
func (k ID) Args() string {
	switch k {
	case Emit:
		return "EmitArgs"
	case ExtRaw, ExtFinal, ExtClear:
		return "ExtArgs"
	case SWEColumns, SWESides, SWEFlux, SWEFromFluxes:
		return "SWEArgs"
	}
	return "StepArgs"
}

// ArgLayout is an argument block of vp_args.h as C lays it out, beside its Go twin
// (ArgLayouts, in args_gen.go, which argsgen writes).
type ArgLayout struct {
	C, Go  string  // the struct's names: VPStep, StepArgs
	Value  any     // the Go struct's zero value
	Size   uintptr // sizeof, in C and in Go
	Fields []ArgField
}

// ArgField is a field of an ArgLayout.
type ArgField struct {
	C, Go         string // the field's names: dtOverDx2d, DtOverDx2d
	CType, GoType string // const float *, uint64
	Offset, Size  uintptr
}
