// kernels.cc: vpbench.cu compiled for the host through host_shim.h (see hostkernels.go).
#include "../../kernels/host_shim.h"
#include "../../kernels/vpbench.cu"
#include "../../kernels/vp_args_layout.h"

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

// vp_host_layout returns entry i of vp_args_layout (vp_args_layout.h, which argsgen writes
// from vp_args.h): the C compiler's size and offsets of the argument blocks, for the test
// that the Go structs agree; (size_t)-1 past its end.
size_t vp_host_layout(int i)
{
	const int n = sizeof(vp_args_layout) / sizeof(vp_args_layout[0]);
	return i >= 0 && i < n ? vp_args_layout[i] : (size_t)-1;
}

int vp_host_layout_len(void) { return sizeof(vp_args_layout) / sizeof(vp_args_layout[0]); }
}
