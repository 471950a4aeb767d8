// vpbench.cu: the extended virtual pipes method on an NVIDIA GPU (docs/cuda.md).
//
// The arithmetic is gpusim/internal/element's, operation for operation and in the same
// order, so that a kernel gives the Go CPU backend's bits: float32 state, float64 height
// update, no fused multiply-add (nvcc -fmad=false, g++ -ffp-contract=off), IEEE division.
//
// The same source compiles for the host through host_shim.h (gpusim/internal/hostkernels),
// which runs a grid as a loop; CI checks every kernel against the CPU backend that way.
// So no kernel reads, in one launch, what another thread of it writes, and none uses
// shared memory or __syncthreads: one thread's work depends only on earlier launches.
//
// A step is three launches on both layouts (flux+outflow, inflow, final+height), plus the
// extended pipes' serial kernels when a passage is flooded and the emitter kernel when a
// source or sink acts.

#include "vp_args.h"

#ifndef VP_HOST
#define VP_KERNEL extern "C" __global__ void
#endif

// ---- internal/element -------------------------------------------------------------

// upwind: a when x's sign bit is clear, b otherwise (element's upwind).
__device__ __forceinline__ float vp_upwind(float x, float a, float b) { return signbit(x) ? b : a; }

// vp_acceleration: dt*g*A/l (element.Params.Acceleration).
__device__ __forceinline__ float vp_acceleration(float accel, float dxf, int film, float dh, float da, float db)
{
	if (film) {
		float u = vp_upwind(dh, da, db);
		return accel * (u < dxf ? u : dxf);
	}
	return accel;
}

// vp_flush: f, or +0 where |f| < 2^-126, the smallest normal float: a subnormal (or -0)
// flux flushed as element.FlushFlux does (-ftz=false keeps subnormals otherwise).
__device__ __forceinline__ float vp_flush(float f) { return fabsf(f) < 1.17549435e-38f ? 0.0f : f; }

// vp_viscous: gamma = H^2/(H^2 + 3 dt nu), H upwind along f, then vp_flush
// (element.Params.Viscous).
__device__ __forceinline__ float vp_viscous(float visc3, float f, float da, float db)
{
	if (visc3 > 0) {
		float u = vp_upwind(f, da, db);
		float u2 = u * u;
		f = f * (u2 / (u2 + visc3));
	}
	return vp_flush(f);
}

// vp_wetting: the contact-line law on f = t1 + acc*dh (element.Params.Wetting): a flux
// into a dry column flows only while the head difference exceeds the wetting head.
__device__ __forceinline__ float vp_wetting(float wet, float dry, float f, float t1, float acc, float dh, float da, float db)
{
	float adj;
	if (f > 0 && db <= dry) adj = wet;
	else if (f < 0 && da <= dry) adj = -wet;
	else return f;
	float e = dh - adj;
	if (e == 0 || (signbit(e) != 0) != (signbit(adj) != 0)) return 0.0f;
	return t1 + acc * e;
}

// vp_raw: a pipe's raw flux from a to b: viscous(zeta*prev + acceleration*dh), with the
// contact-line law when wet > 0.
__device__ __forceinline__ float vp_raw(const VPStep &a, float prev, float ha, float hb, float ba, float bb)
{
	float dh = ha - hb, da = ha - ba, db = hb - bb;
	float acc = vp_acceleration(a.accel, a.dxf, a.film, dh, da, db);
	float t1 = a.zeta * prev;
	float f = t1 + acc * dh;
	if (a.wet > 0) f = vp_wetting(a.wet, a.dryDepth, f, t1, acc, dh, da, db);
	return vp_viscous(a.visc3, f, da, db);
}

// vp_final: raw*K[from]*S[to] seen from end i (element.FinalFlux).
__device__ __forceinline__ float vp_final(float u, float ki, float ko, float si, float so)
{
	float a = fabsf(u);
	return (((u + a) * ki) * so + ((u - a) * ko) * si) * 0.5f;
}

// vp_outflow_factor: K (element.Params.OutflowFactor).
__device__ __forceinline__ float vp_outflow_factor(float dx2OverDt, float out, float depth)
{
	float lim = depth * dx2OverDt;
	if (lim >= out) return 1.0f;
	if (lim <= 0) return 0.0f;
	return lim / out;
}

// vp_inflow_factor: S (element.Params.InflowFactor).
__device__ __forceinline__ float vp_inflow_factor(float dtOverDx2, float in, float room)
{
	float total = -in * dtOverDx2;
	if (total > 0 && total > room) {
		float q = room / total;
		return q > 0 ? q : 0.0f;
	}
	return 1.0f;
}

// vp_halted: whether a full flag flipped in an earlier step of the host's launch
// sequence. The passages must then be found again (on the host) before the next step, so
// the steps queued after it do nothing; the host reads *halt once the sequence is done,
// rebuilds the passages and queues the rest again. *halt is 1 + the index of the step in
// which the first flip happened, 0 while none has; only that step's kernels write it, and
// with the one value, so every thread of a launch decides alike. This keeps the host
// from waiting on the device after every step where passages can form.
__device__ __forceinline__ bool vp_halted(const int *halt, int step)
{
	int s = *halt;
	return s != 0 && step >= s;
}

// vp_settle: the height update and its rounding (element's UpdateHeight, SettleHeight).
__device__ __forceinline__ void vp_settle(const VPStep &a, int i, double out)
{
	double x = ((double)a.h[i] + (double)a.r[i]) - out * a.dtOverDx2d;
	float h = (float)x;
	float b = a.base[i], t = a.top[i];
	if (h < b || h > t) {
		if (h < b) h = b;
		if (h > t) h = t;
	}
	a.h[i] = h;
	a.r[i] = (float)(x - (double)h);
	if (a.ext && a.capped[i]) {
		unsigned char f = h >= t - a.fullTol;
		if (f != a.full[i]) {
			a.full[i] = f;
			atomicAdd(a.flips, 1);
			*a.halt = a.step + 1; // every flip of this step writes the same value
		}
	}
}

// vp_scale_prep: K, and S = 1 where no inflow can overflow; S = -1 marks a column
// whose S the inflow kernel computes (the CPU's flag lists).
__device__ __forceinline__ void vp_scale_prep(const VPStep &a, int i, float out2, float in2)
{
	float out = out2 * 0.5f, in = in2 * 0.5f;
	if (a.ext) {
		out += a.extOut[i];
		in += a.extIn[i];
	}
	float h = a.h[i], r = a.r[i];
	a.k[i] = vp_outflow_factor(a.dx2OverDt, out, (h - a.base[i]) + r);
	a.s[i] = (-in * a.dtOverDx2 > (a.top[i] - h) - r) ? -1.0f : 1.0f;
}

#define VP_INDEX int i = (int)(blockIdx.x * blockDim.x + threadIdx.x)

// ---- general layout (kernels_csr.go) ---------------------------------------------

// vp_csr_flux_outflow: per column, the raw fluxes of its pipes (each pipe's owner, its
// first column, stores it) and K. Pipes are computed at both ends with the same
// operations, so both ends see the same bits.
VP_KERNEL vp_csr_flux_outflow(const VPStep a)
{
	VP_INDEX;
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (i >= a.n) return;
	float out2 = 0, in2 = 0;
	float hi = a.hd[i], bi = a.base[i];
	for (int e = a.adjStart[i]; e < a.adjStart[i + 1]; e++) {
		int p = a.adjPipe[e], j = a.adjOther[e];
		float sg = a.adjSign[e];
		float raw;
		if (sg > 0) {
			raw = vp_raw(a, a.f[p], hi, a.hd[j], bi, a.base[j]);
			a.raw[p] = raw;
		} else {
			raw = vp_raw(a, a.f[p], a.hd[j], hi, a.base[j], bi);
		}
		float u = raw * sg, ab = fabsf(u);
		out2 = out2 + (u + ab);
		in2 = in2 + (u - ab);
	}
	vp_scale_prep(a, i, out2, in2);
}

// vp_csr_inflow: S for the columns vp_csr_flux_outflow marked.
VP_KERNEL vp_csr_inflow(const VPStep a)
{
	VP_INDEX;
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (i >= a.n || !(a.s[i] < 0)) return;
	float in = 0;
	for (int e = a.adjStart[i]; e < a.adjStart[i + 1]; e++) {
		float u = a.raw[a.adjPipe[e]] * a.adjSign[e];
		in += (u < 0 ? u : 0.0f) * a.k[a.adjOther[e]];
	}
	if (a.ext) in += a.extIn[i];
	a.s[i] = vp_inflow_factor(a.dtOverDx2, in, (a.top[i] - a.h[i]) - a.r[i]);
}

// vp_csr_final_height: per column, the final fluxes of its pipes (the owner stores
// them) and the height update.
VP_KERNEL vp_csr_final_height(const VPStep a)
{
	VP_INDEX;
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (i >= a.n) return;
	double out = 0;
	float ki = a.k[i], si = a.s[i];
	for (int e = a.adjStart[i]; e < a.adjStart[i + 1]; e++) {
		int p = a.adjPipe[e], j = a.adjOther[e];
		float sg = a.adjSign[e];
		float f;
		if (sg > 0) {
			f = vp_final(a.raw[p], ki, a.k[j], si, a.s[j]);
			a.f[p] = f;
		} else {
			f = vp_final(a.raw[p], a.k[j], ki, a.s[j], si);
		}
		out += (double)(f * sg);
	}
	if (a.ext) out += (double)a.extNet[i];
	vp_settle(a, i, out);
}

// ---- dense layout (kernels_dense.go) ---------------------------------------------
// One column per cell, every neighbour joined: column i = y*nx + x. A pipe that does not
// exist (at the grid's edge) has flux 0, which adds exactly nothing, as on the CPU.

VP_KERNEL vp_dense_flux_outflow(const VPStep a)
{
	VP_INDEX;
	if (i >= a.n) return;
	int nx = a.nx, x = i % nx, y = i / nx;
	const float *hd = a.hd; // h, or h + X with the capillary head
	float hi = hd[i], bi = a.base[i];
	float my = 0, mx = 0, px = 0, py = 0; // raw fluxes of the -y, -x, +x, +y pipes
	if (y > 0) my = vp_raw(a, a.fy[i], hd[i - nx], hi, a.base[i - nx], bi);
	if (x > 0) mx = vp_raw(a, a.fx[i], hd[i - 1], hi, a.base[i - 1], bi);
	if (x + 1 < nx) {
		px = vp_raw(a, a.fx[i + 1], hi, hd[i + 1], bi, a.base[i + 1]);
		a.rx[i + 1] = px;
	}
	if (y + 1 < a.ny) {
		py = vp_raw(a, a.fy[i + nx], hi, hd[i + nx], bi, a.base[i + nx]);
		a.ry[i + nx] = py;
	}
	float out2 = 0, in2 = 0, u, ab;
	u = -my; ab = fabsf(u); out2 = out2 + (u + ab); in2 = in2 + (u - ab);
	u = -mx; ab = fabsf(u); out2 = out2 + (u + ab); in2 = in2 + (u - ab);
	u = px;  ab = fabsf(u); out2 = out2 + (u + ab); in2 = in2 + (u - ab);
	u = py;  ab = fabsf(u); out2 = out2 + (u + ab); in2 = in2 + (u - ab);
	vp_scale_prep(a, i, out2, in2);
}

__device__ __forceinline__ float vp_neg_part(float u) { return u < 0 ? u : 0.0f; }

VP_KERNEL vp_dense_inflow(const VPStep a)
{
	VP_INDEX;
	if (i >= a.n || !(a.s[i] < 0)) return;
	int nx = a.nx, x = i % nx, y = i / nx;
	float in = 0;
	if (y > 0) in += vp_neg_part(-a.ry[i]) * a.k[i - nx];
	if (x > 0) in += vp_neg_part(-a.rx[i]) * a.k[i - 1];
	if (x + 1 < nx) in += vp_neg_part(a.rx[i + 1]) * a.k[i + 1];
	if (y + 1 < a.ny) in += vp_neg_part(a.ry[i + nx]) * a.k[i + nx];
	a.s[i] = vp_inflow_factor(a.dtOverDx2, in, (a.top[i] - a.h[i]) - a.r[i]);
}

VP_KERNEL vp_dense_final_height(const VPStep a)
{
	VP_INDEX;
	if (i >= a.n) return;
	int nx = a.nx, x = i % nx, y = i / nx;
	float ki = a.k[i], si = a.s[i];
	float my = 0, mx = 0, px = 0, py = 0; // final fluxes, each seen from its owner
	if (y > 0) my = vp_final(a.ry[i], a.k[i - nx], ki, a.s[i - nx], si);
	if (x > 0) mx = vp_final(a.rx[i], a.k[i - 1], ki, a.s[i - 1], si);
	if (x + 1 < nx) {
		px = vp_final(a.rx[i + 1], ki, a.k[i + 1], si, a.s[i + 1]);
		a.fx[i + 1] = px;
	}
	if (y + 1 < a.ny) {
		py = vp_final(a.ry[i + nx], ki, a.k[i + nx], si, a.s[i + nx]);
		a.fy[i + nx] = py;
	}
	double out = 0;
	out += (double)(-my);
	out += (double)(-mx);
	out += (double)px;
	out += (double)py;
	vp_settle(a, i, out);
}

// ---- sources and sinks (emitter.go's apply) --------------------------------------

__device__ __forceinline__ void vp_emit_one(const VPEmit &a, int k)
{
	int e = a.tEm[k], i = a.tCol[k];
	double rate = a.rate[e];
	// The part of the step [t, t+dt) the schedule [start, stop) covers (Emitter.overlap).
	double end = a.t + a.dt;
	double lo = a.t > a.start[e] ? a.t : a.start[e];
	double hi = end < a.stop[e] ? end : a.stop[e];
	if (a.active[e] && rate != 0 && hi > lo) {
		double v = rate * (hi - lo);
		double want = v * a.tWeight[k];
		double old = (double)a.h[i] + (double)a.r[i];
		if (a.holds[e]) { // Emitter.held: towards the level only (Go's min and max, by comparisons)
			double room = (a.level[e] - old) * a.dx2;
			if (want > 0) {
				double cap = room > 0 ? room : 0;
				want = want < cap ? want : cap;
			} else {
				double cap = room < 0 ? room : 0;
				want = want > cap ? want : cap;
			}
		}
		double target = old + want / a.dx2;
		double *acc = a.acc + 3 * k;
		if (want > 0 && target >= (double)a.top[i]) {
			double put = ((double)a.top[i] - old) * a.dx2;
			a.h[i] = a.top[i];
			a.r[i] = 0;
			acc[0] += put;
			acc[2] += want - put;
		} else if (want < 0 && target <= (double)a.base[i]) {
			acc[1] += (old - (double)a.base[i]) * a.dx2;
			a.h[i] = a.base[i];
			a.r[i] = 0;
		} else {
			float nh = (float)target;
			a.h[i] = nh;
			a.r[i] = (float)(target - (double)nh);
			if (want > 0) acc[0] += want;
			else acc[1] -= want;
		}
	}
	if (a.ext && a.capped[i]) { // the full flags of emitters' columns (refreshTargets)
		unsigned char f = a.h[i] >= a.top[i] - a.fullTol;
		if (f != a.full[i]) {
			a.full[i] = f;
			atomicAdd(a.flips, 1);
			*a.halt = a.step + 1; // every flip of this step writes the same value
		}
	}
}

// vp_drain_one: the open side's drain j (emitter.go's drain), free outfall: the column
// keeps d / (1 + coef*sqrt(d))^2 of its depth d (drainOf), the rest is booked as outflow
// in acc[3*nt + j].
__device__ __forceinline__ void vp_drain_one(const VPEmit &a, int j)
{
	int i = a.dCol[j];
	double old = (double)a.h[i] + (double)a.r[i];
	double d = old - (double)a.base[i];
	if (d > 0) {
		double den = 1 + a.dCoef[j] * sqrt(d);
		double want = (d - d / (den * den)) * a.dx2;
		double target = old - want / a.dx2;
		double *acc = a.acc + 3 * a.nt + j;
		if (target <= (double)a.base[i]) {
			a.h[i] = a.base[i];
			a.r[i] = 0;
			acc[0] += d * a.dx2;
		} else {
			float nh = (float)target;
			a.h[i] = nh;
			a.r[i] = (float)(target - (double)nh);
			acc[0] += want;
		}
	}
	if (a.ext && a.capped[i]) { // the full flags of the drains' columns (refreshTargets)
		unsigned char f = a.h[i] >= a.top[i] - a.fullTol;
		if (f != a.full[i]) {
			a.full[i] = f;
			atomicAdd(a.flips, 1);
			*a.halt = a.step + 1;
		}
	}
}

// vp_emit: one step of every source and sink at time t, then of the open sides' drains
// (threads nt..nt+nd-1). Targets of one emitter are distinct columns, and so are the
// drains'; when targets of different emitters share a column, or a drain's column is a
// target, the host launches one thread (serial = 1), which applies them in the CPU's order.
VP_KERNEL vp_emit(const VPEmit a)
{
	VP_INDEX;
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (a.serial) {
		if (i == 0) {
			for (int k = 0; k < a.nt; k++) vp_emit_one(a, k);
			for (int j = 0; j < a.nd; j++) vp_drain_one(a, j);
		}
		return;
	}
	if (i < a.nt) vp_emit_one(a, i);
	else if (i < a.nt + a.nd) vp_drain_one(a, i - a.nt);
}

// ---- extended pipes (extended.go) ------------------------------------------------
// The passages are found on the host when a full flag flips (the CPU backend's rebuild);
// these kernels compute the extended fluxes each step, serially in the CPU's order (a
// column can open onto several passages, and its sums must add in one order).

__device__ __forceinline__ void vp_add_raw(const VPExt &a, int i, float u)
{
	a.extOut[i] += u > 0 ? u : 0.0f;
	a.extIn[i] += u < 0 ? u : 0.0f;
}

// vp_ext_raw: the raw extended fluxes and their per-column sums (unifiedRaw, axisRaw).
VP_KERNEL vp_ext_raw(const VPExt a)
{
	VP_INDEX;
	if (vp_halted(a.halt, a.step)) return;
	if (i != 0) return;
	if (a.mode == 2) {
		for (int q = 0; q < a.nPass; q++) {
			int lo = a.uStart[q], hi = a.uStart[q + 1];
			if (lo == hi) continue;
			float hsum = 0;
			for (int k = lo; k < hi; k++) hsum += a.h[a.uCol[k]];
			float n = (float)(hi - lo);
			float mean = hsum / n, gap = a.uGap[q];
			float fsum = 0;
			for (int k = lo; k < hi; k++) {
				int b = a.uCol[k];
				float dh = a.h[b] - mean;
				float acc = vp_acceleration(a.accel, a.dxf, a.film, dh, a.h[b] - a.base[b], gap);
				float f = vp_viscous(a.visc3, a.zeta * a.uF[k] + acc * dh, gap, gap);
				a.uF[k] = f;
				fsum += f;
			}
			float meanF = fsum / n;
			for (int k = lo; k < hi; k++) {
				float u = a.uF[k] - meanF;
				a.uF[k] = u;
				vp_add_raw(a, a.uCol[k], u);
			}
		}
	} else if (a.mode == 1) {
		for (int k = 0; k < a.nAxis; k++) {
			int pa = a.axA[k], pb = a.axB[k];
			float dh = a.h[pa] - a.h[pb];
			float acc = vp_acceleration(a.accel, a.dxf, a.film, dh, a.h[pa] - a.base[pa], a.h[pb] - a.base[pb]) / a.axCells[k];
			float gap = a.axGap[k];
			float f = vp_viscous(a.visc3, a.zeta * a.axF[k] + acc * dh, gap, gap);
			a.axF[k] = f;
			vp_add_raw(a, pa, f);
			vp_add_raw(a, pb, -f);
		}
	}
}

// vp_ext_final: the scaled extended fluxes, each passage balanced, the per-column net
// outflows, and the balance's float32 leftover put into a residual (extended.final).
VP_KERNEL vp_ext_final(const VPExt a)
{
	VP_INDEX;
	if (vp_halted(a.halt, a.step)) return;
	if (i != 0) return;
	if (a.mode == 2) {
		for (int q = 0; q < a.nPass; q++) {
			int lo = a.uStart[q], hi = a.uStart[q + 1];
			float in = 0, out = 0;
			for (int k = lo; k < hi; k++) {
				float u = a.uF[k];
				int b = a.uCol[k];
				if (u > 0) {
					u *= a.k[b];
					in += u;
				} else {
					u *= a.s[b];
					out -= u;
				}
				a.uF[k] = u;
			}
			float sIn = 1, sOut = 1;
			if (in > out) sIn = out / in;
			else if (out > in) sOut = in / out;
			double left = 0;
			for (int k = lo; k < hi; k++) {
				float u = a.uF[k];
				int b = a.uCol[k];
				if (u > 0) u *= sIn;
				else u *= sOut;
				a.uF[k] = u;
				a.extNet[b] += u;
				left += (double)u;
			}
			if (left != 0 && hi > lo) {
				int b = a.uCol[lo];
				a.r[b] = (float)((double)a.r[b] + left * a.dtOverDx2d);
			}
		}
	} else if (a.mode == 1) {
		for (int k = 0; k < a.nAxis; k++) {
			int pa = a.axA[k], pb = a.axB[k];
			float f = vp_final(a.axF[k], a.k[pa], a.k[pb], a.s[pa], a.s[pb]);
			a.axF[k] = f;
			a.extNet[pa] += f;
			a.extNet[pb] -= f;
		}
	}
}

// vp_ext_clear: zero the sums of the extended pipes' columns after the height update
// (one thread per opening or axis pipe; threads may write the same zero).
VP_KERNEL vp_ext_clear(const VPExt a)
{
	VP_INDEX;
	if (vp_halted(a.halt, a.step)) return;
	if (a.mode == 2 && i < a.uStart[a.nPass]) {
		int b = a.uCol[i];
		a.extOut[b] = 0;
		a.extIn[b] = 0;
		a.extNet[b] = 0;
	} else if (a.mode == 1 && i < a.nAxis) {
		int pa = a.axA[i], pb = a.axB[i];
		a.extOut[pa] = 0;
		a.extIn[pa] = 0;
		a.extNet[pa] = 0;
		a.extOut[pb] = 0;
		a.extIn[pb] = 0;
		a.extNet[pb] = 0;
	}
}

// ---- the capillary head (capillary.go) -------------------------------------------
// Both layouts, over the topology's per-column neighbour lists (adjStart, adjOther, in
// the same order as the CPU's), one thread a column: capSmoothColumn and capHeadColumn,
// operation for operation.

// vp_cap_smooth: one smoothing pass, capIn to capOut.
VP_KERNEL vp_cap_smooth(const VPStep a)
{
	VP_INDEX;
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (i >= a.n) return;
	if (a.h[i] - a.base[i] <= a.dryDepth) {
		a.capOut[i] = a.h[i];
		return;
	}
	float si = a.capIn[i], sum = 0;
	int lo = a.adjStart[i], hi = a.adjStart[i + 1];
	for (int e = lo; e < hi; e++) {
		int j = a.adjOther[e];
		if (a.h[j] - a.base[j] > a.dryDepth) sum += a.capIn[j] - si;
	}
	int deg = hi - lo;
	float w = 0.5f / (float)(deg > 4 ? deg : 4);
	float ws = w * sum;
	a.capOut[i] = si + ws;
}

// vp_cap_share: capFaceShare (capangle.go), k dry faces.
__device__ float vp_cap_share(int k)
{
	switch (k < 8 ? k : 8) {
	case 2: return 0.70710677f;
	case 3: return 0.57735026f;
	case 4: return 0.5f;
	case 5: return 0.4472136f;
	case 6: return 0.4082483f;
	case 7: return 0.37796447f;
	case 8: return 0.35355338f;
	}
	return 1.0f;
}

// vp_cap_pressure: capPressure (capillary.go): wet column i's capillary pressure head
// from the smoothed surface capIn, and its faces onto dry ground below its surface (*k).
__device__ float vp_cap_pressure(const VPStep &a, int i, int *k)
{
	float hi = a.h[i], si = a.capIn[i], bi = a.base[i];
	int lo = a.adjStart[i], up = a.adjStart[i + 1];
	int n = 0;
	if (a.capDropA > 0) {
		for (int e = lo; e < up; e++) {
			int j = a.adjOther[e];
			if (a.h[j] - a.base[j] <= a.dryDepth && !a.capWet[j] && a.base[j] < hi) n++;
		}
	}
	float share = vp_cap_share(n);
	float lap = 0;
	for (int e = lo; e < up; e++) {
		int j = a.adjOther[e];
		if (a.h[j] - a.base[j] > a.dryDepth) lap += a.capIn[j] - si;
		else if (n > 0 && !a.capWet[j] && a.base[j] < hi) { // capGhost
			float g = 2 * (si - bi);
			float rlo = a.capDropR * share, rhi = a.capDropA * share;
			if (!(g > rlo)) g = rlo;
			if (g > rhi) g = rhi;
			float db = a.base[j] - bi;
			if (db < -a.capDx) db = -a.capDx;
			if (db > a.capDx) db = a.capDx;
			lap += db - g;
		}
	}
	*k = n;
	float cl = a.capCoef * lap;
	return -cl;
}

// vp_cap_limit: capHeadLimit (capillary.go).
__device__ float vp_cap_limit(const VPStep &a, float x, float d)
{
	float lim = -0.5f * d;
	if (!(x > lim)) x = lim;
	if (a.capDropA > 0) {
		float lo = 2.0f * a.dryDepth - d;
		if (!(x > lo)) return lo;
	}
	return x;
}

// vp_cap_gate: capGate (capangle.go): dry column i's driving height with the contact
// angle at the line.
__device__ float vp_cap_gate(const VPStep &a, int i)
{
	float all = 0, adv = 0;
	int anyWet = 0, anyAdv = 0;
	for (int e = a.adjStart[i]; e < a.adjStart[i + 1]; e++) {
		int j = a.adjOther[e];
		float dj = a.h[j] - a.base[j];
		if (dj <= a.dryDepth) continue;
		int k;
		float x = vp_cap_pressure(a, j, &k);
		float av = a.capAdvance * vp_cap_share(k);
		float v = av + vp_cap_limit(a, x, dj);
		if (!anyWet || v > all) {
			all = v;
			anyWet = 1;
		}
		if (k < 3 && a.h[j] - a.base[i] > av && (!anyAdv || v < adv)) {
			adv = v;
			anyAdv = 1;
		}
	}
	float hole = 2.0f * a.dryDepth, v;
	if (anyAdv) v = adv;
	else if (anyWet) v = all;
	else return a.h[i];
	if (!(v > hole)) v = hole;
	return a.base[i] + v;
}

// vp_cap_head: the driving height h + X of each column, from the smoothed surface capIn
// (h itself without smoothing passes).
VP_KERNEL vp_cap_head(const VPStep a)
{
	VP_INDEX;
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (i >= a.n) return;
	float hi = a.h[i], d = hi - a.base[i];
	float rise = a.capFresh ? 0.0f : hi - a.capPrev[i]; // the ripple damping's
	a.capPrev[i] = hi;
	if (d <= a.dryDepth) {
		int lo = a.adjStart[i], up = a.adjStart[i + 1];
		if (a.capWet[i]) { // capWettedDry: wetted ground (contactline.go)
			int near = 0, dry = 0;
			for (int e = lo; e < up; e++) {
				int j = a.adjOther[e];
				if (a.h[j] - a.base[j] > a.dryDepth || a.capWet[j]) near = 1;
				else if (a.base[j] <= hi) dry = 1;
			}
			if (near && !dry) {
				a.capWetNext[i] = 1;
				a.hd[i] = a.base[i] + 2.0f * a.dryDepth;
				return;
			}
		}
		a.capWetNext[i] = 0;
		float out = hi; // capDryHead: a gap one cell wide (a hole, a strip) reads as wet
		if (a.wet > 0 && up - lo >= 2) {
			// by side (-x, +x, -y, +y): a neighbour wet at least capRecede deep, one not
			int wet[4] = {0, 0, 0, 0}, notWet[4] = {0, 0, 0, 0}, anyDry = 0;
			for (int e = lo; e < up; e++) {
				int j = a.adjOther[e];
				float dj = a.h[j] - a.base[j];
				if (dj <= a.dryDepth) anyDry = 1;
				if (dj > a.dryDepth && dj >= a.capRecede) wet[a.adjDir[e]] = 1;
				else notWet[a.adjDir[e]] = 1;
			}
			int hole = !anyDry;
			int sx = wet[0] && !notWet[0] && wet[1] && !notWet[1];
			int sy = wet[2] && !notWet[2] && wet[3] && !notWet[3];
			if (hole || sx || sy) out = a.base[i] + 2.0f * a.dryDepth;
		}
		if (a.capDropA > 0 && out == hi) out = vp_cap_gate(a, i);
		a.hd[i] = out;
		return;
	}
	int faces = 0, up = 0;
	for (int e = a.adjStart[i]; e < a.adjStart[i + 1]; e++) {
		int j = a.adjOther[e];
		if (a.h[j] - a.base[j] <= a.dryDepth && !a.capWet[j] && a.base[j] < hi) { // dry ground, not wetted ground
			faces++;
			if (a.base[j] > a.base[i]) up = 1;
		}
	}
	int edge = faces > 0;
	int k;
	float x = vp_cap_pressure(a, i, &k);
	// capShoreFlag: a receding column at a sloping shore leaves dry ground
	float corner = up ? 0.0f : a.capCorner; // capShoreCorner
	float lo = a.capRecede - corner;
	a.capWetNext[i] = (up && d < lo) ? 0 : (unsigned char)a.capMark;
	// capRecedeHead: an edge recedes below h_r - corner, a corner of the line with corner more
	if (edge && d < lo) {
		float r = lo - d;
		if (faces > 1) r += corner;
		x += r;
	}
	if (!edge) { // the ripple damping, but at the contact line (capRipple)
		float dr = a.capDamp * rise;
		if (a.capRippleDx > 0 && d > a.capRippleDx) dr = dr * (a.capRippleDx / d);
		x = x + dr;
	}
	a.hd[i] = hi + vp_cap_limit(a, x, d);
}

// vp_cap_wet: the wetted flags vp_cap_head made become the next pass's (capColumns'
// copy after its barrier).
VP_KERNEL vp_cap_wet(const VPStep a)
{
	VP_INDEX;
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (i >= a.n) return;
	a.capWet[i] = a.capWetNext[i];
}

// ---- the shallow water equations (swe.go) ----------------------------------------
// The general layout's columns and pipes with a velocity per pipe (kept as f / (dx d),
// d the face depth its flux was made with). Per substep: vp_swe_columns (and, on a
// step's first substep, the fastest wave, which the host reads back to cut the step into
// substeps), vp_swe_sides, vp_swe_flux (the raw fluxes and face depths, one thread a
// pipe), then the general layout's outflow (vp_csr_outflow), inflow and final + height
// kernels with the substep's parameters. Operation for operation swe.go's sweColumns,
// sweSides and sweFlux, regular-column paths included (they differ from the general
// loops in the sign of a zero only, but the bits must be the CPU's).

// vp_swe_min_depth: sweMinDepth, float32(1e-7).
#define VP_SWE_MIN_DEPTH 1e-7f

// vp_face_velocity: faceVelocity, the velocity of a face that carries flux f through
// depth d (0 where it has none).
__device__ __forceinline__ float vp_face_velocity(float f, float d, float invdx)
{
	return d > 0 ? f * invdx / d : 0.0f;
}

__device__ __forceinline__ unsigned vp_float_bits(float x)
{
#ifdef VP_HOST
	unsigned u;
	memcpy(&u, &x, sizeof u);
	return u;
#else
	return __float_as_uint(x);
#endif
}

// vp_swe_columns: sweColumns for column i: the discharges q, the upwind velocities us of
// the momentum they carry and the depth-averaged velocities cuv; with wantSpeed, the
// column's fastest wave into *speed (a max over the bits of floats >= 0: the same value
// in any order, as the CPU's max over its workers' maxima). The fastest wave is
// sqrt(2 g d) plus the fastest of the column's face velocities.
VP_KERNEL vp_swe_columns(const VPSwe a)
{
	VP_INDEX;
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (i >= a.n) return;
	const float *f = a.f, *dd = a.d;
	float invdx = a.invdx;
	float fW = 0, fE = 0, fS = 0, fN = 0, dW = 0, dE = 0, dS = 0, dN = 0;
	int e = a.adjStart[i];
	if (a.regular[i]) {
		int pS = a.adjPipe[e], pW = a.adjPipe[e + 1], pE = a.adjPipe[e + 2], pN = a.adjPipe[e + 3];
		fS = f[pS]; fW = f[pW]; fE = f[pE]; fN = f[pN];
		dS = dd[pS]; dW = dd[pW]; dE = dd[pE]; dN = dd[pN];
	} else {
		for (int k = e; k < a.adjStart[i + 1]; k++) {
			int p = a.adjPipe[k];
			switch (a.side8[k]) {
			case 0: fW = fW + f[p]; dW = dW + dd[p]; break;
			case 1: fE = fE + f[p]; dE = dE + dd[p]; break;
			case 2: fS = fS + f[p]; dS = dS + dd[p]; break;
			default: fN = fN + f[p]; dN = dN + dd[p]; break;
			}
		}
	}
	float uW = vp_face_velocity(fW, dW, invdx), uE = vp_face_velocity(fE, dE, invdx);
	float uS = vp_face_velocity(fS, dS, invdx), uN = vp_face_velocity(fN, dN, invdx);
	float qx = (0.5f * invdx) * (fW + fE), qy = (0.5f * invdx) * (fS + fN);
	a.q[2 * i] = qx;
	a.q[2 * i + 1] = qy;
	a.us[2 * i] = vp_upwind(-qx, uE, uW);
	a.us[2 * i + 1] = vp_upwind(-qy, uN, uS);
	float d = a.h[i] - a.base[i];
	if (d < VP_SWE_MIN_DEPTH) {
		a.cuv[2 * i] = 0;
		a.cuv[2 * i + 1] = 0;
		return;
	}
	float u = 0.5f * (uW + uE), v = 0.5f * (uS + uN);
	a.cuv[2 * i] = u;
	a.cuv[2 * i + 1] = v;
	if (a.wantSpeed) {
		// The fastest of its faces (swe.go: at a front the mean is half the speed the
		// liquid crosses cells at); all >= 0, so the max in any order is the same.
		float fast = fabsf(uW), x;
		x = fabsf(uE); if (x > fast) fast = x;
		x = fabsf(uS); if (x > fast) fast = x;
		x = fabsf(uN); if (x > fast) fast = x;
		float w = (float)sqrt((double)((2.0f * a.g) * d)) + fast;
		atomicMax(a.speed, vp_float_bits(w)); // w >= 0: its bits order as the floats
	}
}

// vp_swe_sides: sweSides for column i: the mean along-velocity of the wet neighbours on
// each side, the column's own where it has none.
VP_KERNEL vp_swe_sides(const VPSwe a)
{
	VP_INDEX;
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (i >= a.n) return;
	const float *h = a.h, *base = a.base, *cuv = a.cuv;
	float *sd = a.sides + 4 * i;
	int e = a.adjStart[i];
	float u = cuv[2 * i], v = cuv[2 * i + 1];
	if (a.regular[i]) {
		int oS = a.adjOther[e], oW = a.adjOther[e + 1], oE = a.adjOther[e + 2], oN = a.adjOther[e + 3];
		float sS = u, sN = u, sW = v, sE = v;
		if (h[oS] - base[oS] >= VP_SWE_MIN_DEPTH) sS = cuv[2 * oS];
		if (h[oN] - base[oN] >= VP_SWE_MIN_DEPTH) sN = cuv[2 * oN];
		if (h[oW] - base[oW] >= VP_SWE_MIN_DEPTH) sW = cuv[2 * oW + 1];
		if (h[oE] - base[oE] >= VP_SWE_MIN_DEPTH) sE = cuv[2 * oE + 1];
		sd[0] = sS;
		sd[1] = sN;
		sd[2] = sW;
		sd[3] = sE;
		return;
	}
	float sum[4] = {0, 0, 0, 0}, cnt[4] = {0, 0, 0, 0}; // -y, +y (their cu), -x, +x (their cv)
	for (int k = e; k < a.adjStart[i + 1]; k++) {
		int o = a.adjOther[k];
		if (h[o] - base[o] < VP_SWE_MIN_DEPTH) continue; // a dry neighbour
		switch (a.side8[k]) {
		case 0: sum[2] = sum[2] + cuv[2 * o + 1]; cnt[2] = cnt[2] + 1; break;
		case 1: sum[3] = sum[3] + cuv[2 * o + 1]; cnt[3] = cnt[3] + 1; break;
		case 2: sum[0] = sum[0] + cuv[2 * o]; cnt[0] = cnt[0] + 1; break;
		default: sum[1] = sum[1] + cuv[2 * o]; cnt[1] = cnt[1] + 1; break;
		}
	}
	float own[4] = {u, u, v, v};
	for (int k = 0; k < 4; k++) {
		if (cnt[k] > 0) own[k] = sum[k] / cnt[k];
		sd[k] = own[k];
	}
}

// vp_swe_drain_depth: sweDrainDepth (swe.go): the face depth of a pipe whose upwind
// column, d deep, is thinner than the receding head: the other end's depth where that is
// deeper and the upwind column is a receding edge (sweRecedes), else d.
__device__ float vp_swe_drain_depth(const VPSwe &a, float un, int pa, int pb, float da, float db, float d)
{
	int up = pa;
	float other = db;
	if (vp_float_bits(un) >> 31) {
		up = pb;
		other = da;
	}
	if (!(other > d)) return d;
	float hi = a.h[up], bi = a.base[up];
	int faces = 0, rises = 0;
	for (int e = a.adjStart[up]; e < a.adjStart[up + 1]; e++) {
		int j = a.adjOther[e];
		if (a.h[j] - a.base[j] <= a.dryDepth && a.base[j] < hi) {
			faces = 1;
			if (a.base[j] > bi) rises = 1;
		}
	}
	float lo = a.recede - (rises ? 0.0f : a.corner); // capShoreCorner
	return faces && d < lo ? other : d;
}

// vp_swe_flux: sweFlux for pipe j: the advected, accelerated, damped and viscous velocity,
// clamped, and from it the raw flux u dx D (into raw: the final kernel scales it into f)
// and the face depth D. Reads f[j] and d[j] (the last substep's) and writes raw[j] and
// d[j]: its own pipe only.
VP_KERNEL vp_swe_flux(const VPSwe a)
{
	int j = (int)(blockIdx.x * blockDim.x + threadIdx.x);
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (j >= a.np) return;
	const float *h = a.h, *base = a.base, *q = a.q, *us = a.us, *cuv = a.cuv, *sd = a.sides;
	int pa = a.pipeA[j], pb = a.pipeB[j];
	int ax = a.axis[j];
	int xa = 2 * pa + ax, xb = 2 * pb + ax;
	float u0 = vp_face_velocity(a.f[j], a.d[j], a.invdx);
	float da = h[pa] - base[pa], db = h[pb] - base[pb];
	float ua = u0;
	float hm = 0.5f * (da + db);
	if (hm > VP_SWE_MIN_DEPTH) {
		float qa = q[xa], qb = q[xb];
		float adv = (qb * us[xb] - qa * us[xa]) - u0 * (qb - qa);
		float t = a.dtDx * adv;
		ua = u0 - t / hm;
	}
	float vt = 0.5f * (cuv[2 * pa + 1 - ax] + cuv[2 * pb + 1 - ax]);
	int sa = 4 * pa + 2 * ax, sb = 4 * pb + 2 * ax;
	float nb = vp_upwind(vt, 0.5f * (sd[sa] + sd[sb]), 0.5f * (sd[sa + 1] + sd[sb + 1]));
	float w = fabsf(vt) * a.dtDx;
	if (w > 1) w = 1;
	float ut = ua + w * (nb - ua);

	float dh = a.hd[pa] - a.hd[pb];
	float t1 = a.zeta * ut;
	float un = t1 + a.gDtDx * dh;
	if (a.wet > 0) un = vp_wetting(a.wet, a.dryDepth, un, t1, a.gDtDx, dh, da, db);
	float d = vp_upwind(un, da, db);
	if (d < a.recede && d > a.dryDepth) d = vp_swe_drain_depth(a, un, pa, pb, da, db, d);
	if (a.visc3 > 0) {
		float d2 = d * (d + a.slip3);
		un = un * (d2 / (d2 + a.visc3));
	}
	float vmax = a.vmax;
	if (fabsf(un) > vmax) un = un < -vmax ? -vmax : (un > vmax ? vmax : un);
	if (d <= a.dryCut) un = 0;
	a.d[j] = d;
	a.raw[j] = vp_flush((un * a.dxf) * d);
}

// vp_swe_from_fluxes: sweState.fromFluxes for pipe j: the face depth of the column its
// flux comes from (after fluxes are set from outside).
VP_KERNEL vp_swe_from_fluxes(const VPSwe a)
{
	int j = (int)(blockIdx.x * blockDim.x + threadIdx.x);
	if (j >= a.np) return;
	int pa = a.pipeA[j], pb = a.pipeB[j];
	float d = vp_upwind(a.f[j], a.h[pa] - a.base[pa], a.h[pb] - a.base[pb]);
	a.d[j] = d > 0 ? d : 0.0f; // Go's max(d, 0): +0 for either zero
}

// vp_csr_outflow: vp_csr_flux_outflow with the raw fluxes already made (by vp_swe_flux):
// per column, the sums of its pipes' raw outflows and inflows, K, and S's marks.
VP_KERNEL vp_csr_outflow(const VPStep a)
{
	VP_INDEX;
	if (a.ext && vp_halted(a.halt, a.step)) return;
	if (i >= a.n) return;
	float out2 = 0, in2 = 0;
	for (int e = a.adjStart[i]; e < a.adjStart[i + 1]; e++) {
		float u = a.raw[a.adjPipe[e]] * a.adjSign[e], ab = fabsf(u);
		out2 = out2 + (u + ab);
		in2 = in2 + (u - ab);
	}
	vp_scale_prep(a, i, out2, in2);
}
