// Package element is the arithmetic of one pipe and one column, which every kernel of the
// solver shares: the CPU backend's layouts and extended pipes (gpusim), the row kernels in
// Go and AVX2 (gpusim/internal/rows) and, operation for operation, the CUDA kernels
// (gpusim/kernels/vpbench.cu). They compute the same operations in the same order and so
// agree bit for bit. All in float32 but the height update, in float64.
package element

import "math"

// Params are the per-step constants derived from the settings that the arithmetic reads.
type Params struct {
	Zeta float32 // omega^dt: fraction of flux kept over one step
	// Accel is dt*g*A/(l*a) where a is the part of A that depends on depth: the paper's
	// A = dx^2 gives dt*g*dx (a = 1); the film A = dx*min(H, dx) gives dt*g (a = min(H, dx)).
	Accel     float32
	Visc3     float32 // 3*dt*nu; 0 = inviscid
	Film      bool
	Dxf       float32
	DtOverDx2 float32
	Dx2OverDt float32
	// DtOverDx2d is dt/dx^2 in float64, for the height update.
	DtOverDx2d float64
	// Wet is the wetting head, m: the head difference a pipe needs to carry liquid into a
	// dry column (Wetting); 0 turns the contact-line law off.
	Wet float32
	// DryDepth is the depth, m, at or below which a column counts as dry for Wetting.
	DryDepth float32
}

// upwind returns a when x >= 0 and b otherwise, without a branch: flux signs are
// unpredictable and a mispredicted branch costs more than these integer operations. (For
// x == 0 either choice gives the same result: the flux is zero.)
func upwind(x, a, b float32) float32 {
	mask := ^uint32(int32(math.Float32bits(x)) >> 31) // all ones when x's sign bit is clear
	ba, bb := math.Float32bits(a), math.Float32bits(b)
	return math.Float32frombits(bb ^ ((ba ^ bb) & mask))
}

// Upwind is upwind for the solver's other kernels (the SWE's face depth).
func Upwind(x, a, b float32) float32 { return upwind(x, a, b) }

// Abs32 is abs32 for the solver's other kernels.
func Abs32(u float32) float32 { return abs32(u) }

// abs32 is |u|: the sign bit cleared.
func abs32(u float32) float32 {
	return math.Float32frombits(math.Float32bits(u) &^ (1 << 31))
}

// SplitSum adds u to running sums of twice its positive part (out2) and twice its
// negative part (in2). u + |u| is exactly 2*max(u, 0) and u - |u| exactly 2*min(u, 0),
// and doubling commutes with rounding, so halving the sums gives exactly the sums of
// max(u, 0) and min(u, 0), for fewer instructions than Go's NaN-aware float max and min.
func SplitSum(out2, in2, u float32) (float32, float32) {
	a := abs32(u)
	return out2 + (u + a), in2 + (u - a)
}

// FinalFlux is a pipe's flux after scaling, raw*K[from]*S[to], seen from end i (other end
// o): u = raw*sign(i), positive when it leaves i. One of the two terms is zero and the
// other is the same product at both ends up to its sign (negation is exact), so both ends,
// and the next step's flux update, agree bit for bit.
func FinalFlux(u, ki, ko, si, so float32) float32 {
	a := abs32(u)
	// The conversions forbid fusing a product into the sum (an FMA rounds once, not twice,
	// and the vector kernels do not fuse).
	return (float32((u+a)*ki*so) + float32((u-a)*ko*si)) * 0.5 // u+a and u-a are twice the parts: exact
}

// The flux update of one pipe from a to b (docs/method.md, "One step", 2 and 3), prev its final flux
// of the last step, dh = h_a - h_b, d the depths of its ends, is
//
//	t1, acc := p.Zeta*prev, p.Acceleration(dh, da, db)
//	f := t1 + acc*dh
//	if p.Wet > 0 { f = p.Wetting(f, t1, acc, dh, da, db) }
//	FlushFlux(p.Viscous(f, da, db))
//
// written out in each kernel: as one function it would be too large to inline, and the
// call would cost more than the arithmetic.

// Acceleration is dt*g*A/l (A/l = dx for the paper's cross-section; for the film one
// A = dx*min(H, dx) with H upwind along the head difference dh).
func (p *Params) Acceleration(dh, da, db float32) float32 {
	if p.Film { // predictable: the same for every pipe
		return p.Accel * min(upwind(dh, da, db), p.Dxf)
	}
	return p.Accel
}

// Wetting is the contact-line law (docs/method.md, "Surface tension"): f0 = t1 + acc*dh
// is a pipe's flux before viscosity, t1 = zeta*prev its inertia, acc its acceleration
// and dh the head difference of its ends, da and db their depths. A flux that would carry
// liquid into a dry column (depth <= DryDepth) flows only while the head difference
// exceeds the wetting head Wet, driven by what exceeds it (t1 + acc*(dh -+ Wet)); below
// it the contact line holds and the flux is 0, its inertia included. Other fluxes are
// unchanged. Called only where Wet > 0, so that the law off changes no bit.
func (p *Params) Wetting(f0, t1, acc, dh, da, db float32) float32 {
	var adj float32
	switch {
	case f0 > 0 && db <= p.DryDepth:
		adj = p.Wet
	case f0 < 0 && da <= p.DryDepth:
		adj = -p.Wet
	default:
		return f0
	}
	e := dh - adj
	if e == 0 || (math.Float32bits(e)^math.Float32bits(adj))>>31 != 0 { // |dh| <= Wet, or dh against the flux
		return 0
	}
	return t1 + float32(acc*e) // converted: never fused
}

// Viscous applies gamma = H^2/(H^2 + 3 dt nu) to flux f, H the depth of the end it comes
// from; H = 0 gives 0. Every raw flux update then flushes its result (FlushFlux), a
// call of its own so that both stay small enough to inline.
func (p *Params) Viscous(f, da, db float32) float32 {
	if p.Visc3 > 0 {
		u := upwind(f, da, db)
		u2 := float32(u * u) // converted: u*u + visc3 is never fused
		f *= u2 / (u2 + p.Visc3)
	}
	return f
}

// MinNormalBits is the bit pattern of the smallest normal float32, 2^-126.
const MinNormalBits = 0x00800000

// FlushFlux is f, or +0 where |f| < 2^-126: a subnormal flux (or -0). A flux that decays
// (damping, viscosity, a draining film) would otherwise pass through the subnormal range
// for thousands of steps, and every vector operation on a subnormal costs a microcode
// assist of about a hundred cycles on x86 (a row of 200 raw fluxes took 77 ns with one
// subnormal among them, 44 ns with none); a flux of 1e-38 m^3/s moves nothing that
// matters. Both ends of a pipe use the one flushed value, so volume stays exact. Every
// kernel (Go, AVX2, the general layout, the extended pipes, CUDA) flushes the same way.
func FlushFlux(f float32) float32 {
	if math.Float32bits(f)&0x7fffffff < MinNormalBits {
		return 0
	}
	return f
}

// OutflowFactor is K (Mei et al.): the share of the outflows (sum out, m^3/s) that the
// column's depth (h - b + r, the residual included) can supply in one step.
func (p *Params) OutflowFactor(out, depth float32) float32 {
	lim := depth * p.Dx2OverDt
	switch {
	case lim >= out: // the usual case: the column can supply all its outflows
		return 1
	case lim <= 0: // dry (or owing a rounding): nothing flows out
		return 0
	}
	return lim / out
}

// MayOverflow tells whether inflows summing to in (<= 0, before outflow scaling) could
// exceed room = (top - h) - r.
func (p *Params) MayOverflow(in, room float32) bool {
	return -in*p.DtOverDx2 > room
}

// InflowFactor is S (Kellomaki) from the outflow-scaled inflows in (<= 0) and the room
// left, (top - h) - r: exactly 0 for a full column.
func (p *Params) InflowFactor(in, room float32) float32 {
	total := -in * p.DtOverDx2
	if total > 0 && total > room {
		return max(room/total, 0)
	}
	return 1
}

// UpdateHeight is the height update of a column: its new exact height h + r - dt/dx^2 *
// out, in float64. out is the column's net outflow (m^3/s), summed in float64 from its
// pipes' float32 fluxes: exact for a handful of terms, so the sum over all columns of what
// leaves them is zero to float64 rounding, and a pipe's flux leaves one column exactly as
// it enters the other. SettleHeight then rounds the result into the float32 state.
func (p *Params) UpdateHeight(out float64, h, res float32) float64 {
	return (float64(h) + float64(res)) - float64(out*p.DtOverDx2d) // converted: never fused
}

// SettleHeight rounds an exact height x into the column's float32 height and the residual
// that carries the rounding to the next step (a fraction of an ulp of h). In steady flow
// a column's small net change would otherwise round the same way every step, and columns
// at different heights round differently, which creates or destroys volume steadily. The
// scaling keeps b <= h <= max in exact arithmetic; a clamp only takes back a rounding, and
// what it takes stays in the residual.
func SettleHeight(x float64, base, top float32) (float32, float32) {
	h := float32(x)
	if h < base || h > top { // rare: a branch is cheaper than a float min and max
		h = min(max(h, base), top)
	}
	return h, float32(x - float64(h))
}
