// kernels.cc: vpbench.cu compiled for the host through host_shim.h (see hostkernels.go).
#include "../../kernels/host_shim.h"
#include "../../kernels/vpbench.cu"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" {

// The kernel ids of gpusim/kernels (kernels.ID), in order.
void vp_host_launch(int id, const void *args, int n, int reverse)
{
	switch (id) {
	case 0: vp_host_run(vp_csr_flux_outflow, args, n, reverse); break;
	case 1: vp_host_run(vp_csr_inflow, args, n, reverse); break;
	case 2: vp_host_run(vp_csr_final_height, args, n, reverse); break;
	case 3: vp_host_run(vp_dense_flux_outflow, args, n, reverse); break;
	case 4: vp_host_run(vp_dense_inflow, args, n, reverse); break;
	case 5: vp_host_run(vp_dense_final_height, args, n, reverse); break;
	case 6: vp_host_run(vp_emit, args, n, reverse); break;
	case 7: vp_host_run(vp_ext_raw, args, n, reverse); break;
	case 8: vp_host_run(vp_ext_final, args, n, reverse); break;
	case 9: vp_host_run(vp_ext_clear, args, n, reverse); break;
	case 10: vp_host_run(vp_cap_smooth, args, n, reverse); break;
	case 11: vp_host_run(vp_cap_head, args, n, reverse); break;
	case 12: vp_host_run(vp_csr_outflow, args, n, reverse); break;
	case 13: vp_host_run(vp_swe_columns, args, n, reverse); break;
	case 14: vp_host_run(vp_swe_sides, args, n, reverse); break;
	case 15: vp_host_run(vp_swe_flux, args, n, reverse); break;
	case 16: vp_host_run(vp_swe_from_fluxes, args, n, reverse); break;
	case 17: vp_host_run(vp_cap_wet, args, n, reverse); break;
	default: abort();
	}
}

uint64_t vp_host_alloc(size_t n) { return (uint64_t)(uintptr_t)calloc(n ? n : 1, 1); }
void vp_host_free(uint64_t p) { free((void *)(uintptr_t)p); }
void vp_host_upload(uint64_t dst, const void *src, size_t n) { memcpy((void *)(uintptr_t)dst, src, n); }
void vp_host_download(void *dst, uint64_t src, size_t n) { memcpy(dst, (const void *)(uintptr_t)src, n); }
void vp_host_zero(uint64_t dst, size_t n) { memset((void *)(uintptr_t)dst, 0, n); }

// vp_host_layout returns the size of argument block which (0 VPStep, 1 VPEmit, 2 VPExt, 3 VPSwe)
// and the offsets of a few fields, for the test that the Go mirrors agree.
size_t vp_host_layout(int which, int field)
{
	switch (which * 10 + field) {
	case 0: return sizeof(VPStep);
	case 1: return offsetof(VPStep, flips);
	case 2: return offsetof(VPStep, dtOverDx2d);
	case 3: return offsetof(VPStep, fullTol);
	case 4: return offsetof(VPStep, ext);
	case 5: return offsetof(VPStep, halt);
	case 6: return offsetof(VPStep, step);
	case 10: return sizeof(VPEmit);
	case 11: return offsetof(VPEmit, flips);
	case 12: return offsetof(VPEmit, t);
	case 13: return offsetof(VPEmit, fullTol);
	case 14: return offsetof(VPEmit, ext);
	case 15: return offsetof(VPEmit, halt);
	case 16: return offsetof(VPEmit, step);
	case 20: return sizeof(VPExt);
	case 21: return offsetof(VPExt, axF);
	case 22: return offsetof(VPExt, dtOverDx2d);
	case 23: return offsetof(VPExt, dxf);
	case 24: return offsetof(VPExt, nAxis);
	case 25: return offsetof(VPExt, halt);
	case 26: return offsetof(VPExt, step);
	case 30: return sizeof(VPSwe);
	case 31: return offsetof(VPSwe, halt);
	case 32: return offsetof(VPSwe, invdx);
	case 33: return offsetof(VPSwe, dryDepth);
	case 34: return offsetof(VPSwe, n);
	case 35: return offsetof(VPSwe, step);
	case 36: return offsetof(VPSwe, wantSpeed);
	}
	return (size_t)-1;
}
}
