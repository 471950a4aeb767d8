// Package kernels holds the CUDA kernels of vpbench's cuda backend: vpbench.cu, compiled
// to PTX (vpbench.ptx, committed; `make ptx` regenerates it and `make ptx-check` fails
// when it is stale), the argument blocks they take (vp_args.h, mirrored here), and
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
//go:embed vpbench.cu vp_args.h host_shim.h
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

// StepArgs mirrors VPStep (vp_args.h). Pointers are device addresses (0 = none).
type StepArgs struct {
	H, R, K, S                  uint64
	Base, Top                   uint64
	AdjStart, AdjPipe, AdjOther uint64
	AdjSign                     uint64
	F, Raw                      uint64
	Fx, Fy, Rx, Ry              uint64
	ExtOut, ExtIn, ExtNet       uint64
	Capped, Full, Flips         uint64
	Halt                        uint64
	Hd, CapIn, CapOut, CapPrev  uint64
	CapWet, CapWetNext          uint64
	DtOverDx2d                  float64
	Zeta, Accel, Visc3, Dxf     float32
	DtOverDx2, Dx2OverDt        float32
	FullTol                     float32
	Wet, DryDepth               float32
	CapRecede, CapCoef, CapDamp float32
	CapDropR, CapDropA          float32
	CapAdvance, CapDx           float32
	Film, N, Nx, Ny, Ext        int32
	Step                        int32
	CapFresh                    int32
	CapMark                     int32
}

// EmitArgs mirrors VPEmit.
type EmitArgs struct {
	H, R, Base, Top     uint64
	TCol, TEm, TWeight  uint64
	Rate, Start, Stop   uint64
	Active              uint64
	Acc                 uint64
	Capped, Full, Flips uint64
	Halt                uint64
	DCol, DCoef         uint64
	T, Dt, Dx2, Dx      float64
	FullTol             float32
	Nt, Serial, Ext     int32
	Step                int32
	Nd, Film            int32
}

// ExtArgs mirrors VPExt.
type ExtArgs struct {
	H, Base, R, K, S         uint64
	ExtOut, ExtIn, ExtNet    uint64
	UCol, UStart, UGap, UF   uint64
	AxA, AxB, AxCells        uint64
	AxGap, AxF               uint64
	Halt                     uint64
	DtOverDx2d               float64
	Zeta, Accel, Visc3, Dxf  float32
	Film, Mode, NPass, NAxis int32
	Step                     int32
}

// SWEArgs mirrors VPSwe.
type SWEArgs struct {
	H, Hd, Base                     uint64
	F, Raw, D                       uint64
	Q, Us, Cuv, Sides               uint64
	AdjStart, AdjPipe, AdjOther     uint64
	PipeA, PipeB                    uint64
	Side8, Regular, Axis            uint64
	Speed, Halt                     uint64
	Invdx, G, DtDx, GDtDx, Vmax     float32
	Zeta, Dxf, Visc3, Wet, DryDepth float32
	Slip3, DryCut                   float32
	N, Np, Ext, Step                int32
	WantSpeed                       int32
}
