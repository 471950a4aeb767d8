// Command asmgen writes the AVX2 row kernels of gpusim/internal/rows (rows_amd64.s and
// the Go declarations rows_stubs_amd64.go) with avo. It is its own module, so that avo is
// no dependency of vpbench; run it through go generate in that package:
//
//	go generate ./gpusim/internal/rows/
//
// Each kernel is its Go twin in gpusim/internal/rows/rows.go (or, for the general
// layout's runs, gpusim's column loops), eight elements at a time: the same IEEE
// float32/float64 operations in the same order, no fused multiply-add, the Go upwind
// choice as a sign-bit blend and Go's min and max (NaN and signed zeros included) where
// the Go code uses them, so the results have the same bits. Each processes len(first
// slice) elements, eight at a time and the last n%8 with masked loads and stores (a row
// is one call, with no scalar tail), and reads the other slices as far; the caller has
// checked their lengths.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// VCMPPS predicates: ordered, quiet (false on NaN, as Go's comparisons).
const (
	cmpEQ = 0x00 // EQ_OQ
	cmpLT = 0x11 // LT_OQ
	cmpLE = 0x12 // LE_OQ
	cmpGE = 0x1d // GE_OQ
	cmpGT = 0x1e // GT_OQ
)

func main() {
	ConstraintExpr("!purego,!cuda")
	tailMask = GLOBL("tailmask", RODATA|NOPTR)
	for k := range 16 {
		v := uint32(0)
		if k < 8 {
			v = 0xffffffff
		}
		DATA(4*k, U32(v))
	}
	absMask = GLOBL("absmask", RODATA|NOPTR)
	for k := range 8 {
		DATA(4*k, U32(0x7fffffff))
	}
	maxSubnormal = GLOBL("maxsubnormal", RODATA|NOPTR)
	for k := range 8 {
		DATA(4*k, U32(0x007fffff))
	}
	for _, wet := range []bool{false, true} {
		for _, film := range []bool{false, true} {
			for _, visc := range []bool{false, true} {
				rawFlux(film, visc, wet)
			}
		}
	}
	outflow()
	csrOutflow(false)
	csrOutflow(true)
	inflow()
	finalFlux()
	height()
	csrHeight(false)
	csrHeight(true)
	gatherStrided()
	gatherPairs()
	capHead()
	capRise()
	drySpan()
	Generate()
}

// Only VEX-encoded vector instructions are used: a legacy SSE instruction (such as the
// MOVSS that avo's Load emits for a float parameter) after a 256-bit one stalls on the
// dirty upper halves of the YMM registers, on this project's machine about 100 ns a call.

// kernel starts the kernel name of Go signature sig: a leaf (NOSPLIT) whose stub is
// //go:noescape, since it keeps no pointer it is given (docs/kernels.md).
func kernel(name, sig string) {
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
}

// param is the stack slot of the parameter name.
func param(name string) Mem {
	b, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// bcast loads the float32 parameter name into every lane of a new YMM register.
func bcast(name string) VecVirtual {
	y := YMM()
	VBROADCASTSS(param(name), y)
	return y
}

// bcastBits puts the 32-bit pattern u into every lane of a new YMM register.
func bcastBits(u uint32) VecVirtual {
	g := GP32()
	MOVL(U32(u), g)
	x := XMM()
	VMOVD(g, x)
	y := YMM()
	VPBROADCASTD(x, y)
	return y
}

// elem is element i of the float32 slice at base (plus disp bytes).
func elem(base, i Register, disp int) Mem {
	return Mem{Base: base, Index: i, Scale: 4, Disp: disp}
}

// tailMask is 8 all-ones lanes then 8 zero ones: the 8 lanes from 8-r on select the
// first r elements.
var tailMask Mem

// absMask and maxSubnormal are 8 lanes of 0x7fffffff (|x| as bits) and of 0x007fffff (the
// largest subnormal's bits), for kernels short of registers.
var absMask, maxSubnormal Mem

// lanes is how a kernel body reaches memory: directly for a full group of 8 elements, with
// masked loads and stores (mask) for the last, partial one.
type lanes struct {
	tail  bool
	mask  VecVirtual // YMM: the first n%8 lanes set
	jumps *bool
}

// next jumps to what follows the body: the next group, or the end after the tail.
func (l lanes) next(i Register) {
	*l.jumps = true
	if l.tail {
		JMP(LabelRef("done"))
	} else {
		ADDQ(Imm(8), i)
		JMP(LabelRef("loop"))
	}
}

// ld is the 8 floats at m, as a memory operand or, in the tail, a register.
func (l lanes) ld(m Mem) Op {
	if !l.tail {
		return m
	}
	r := YMM()
	VMASKMOVPS(m, l.mask, r)
	return r
}

// ldr is the 8 floats at m in a register.
func (l lanes) ldr(m Mem) VecVirtual {
	if l.tail {
		return l.ld(m).(VecVirtual)
	}
	r := YMM()
	VMOVUPS(m, r)
	return r
}

// st stores the 8 floats of r at m.
func (l lanes) st(r VecVirtual, m Mem) {
	if l.tail {
		VMASKMOVPS(r, l.mask, m)
	} else {
		VMOVUPS(r, m)
	}
}

// half is the lane mask of the 4 floats of group g (0: lanes 0-3, 1: 4-7), in the tail.
func (l lanes) half(g int) VecVirtual {
	if g == 0 {
		return l.mask.AsX().(VecVirtual)
	}
	x := XMM()
	VEXTRACTF128(U8(1), l.mask, x)
	return x
}

// ld4 is the 4 floats at m (group g of 8) as a memory operand or, in the tail, a register.
func (l lanes) ld4(m Mem, g int) Op {
	if !l.tail {
		return m
	}
	r := XMM()
	VMASKMOVPS(m, l.half(g), r)
	return r
}

// ld4r is the 4 floats at m (group g) in a register.
func (l lanes) ld4r(m Mem, g int) VecVirtual {
	if l.tail {
		return l.ld4(m, g).(VecVirtual)
	}
	r := XMM()
	VMOVUPS(m, r)
	return r
}

// st4 stores the 4 floats of r at m (group g).
func (l lanes) st4(r VecVirtual, m Mem, g int) {
	if l.tail {
		VMASKMOVPS(r, l.half(g), m)
	} else {
		VMOVUPS(r, m)
	}
}

// loop runs body over elements [0, n), i the element index: groups of 8, then the last
// n%8 elements masked. It ends at label "done". A body with code out of line (height)
// jumps on itself (l.next) and tells so with l.jumps.
func loop(n Register, body func(i Register, l lanes)) {
	i := GP64()
	XORQ(i, i)
	Label("loop")
	end := GP64()
	LEAQ(Mem{Base: i, Disp: 8}, end)
	CMPQ(end, n)
	JA(LabelRef("tail"))
	var jumps bool
	body(i, lanes{jumps: &jumps})
	if !jumps {
		ADDQ(Imm(8), i)
		JMP(LabelRef("loop"))
	}
	Label("tail")
	CMPQ(i, n)
	JAE(LabelRef("done"))
	rem, tbl := GP64(), GP64()
	MOVQ(n, rem)
	SUBQ(i, rem)
	NEGQ(rem)
	LEAQ(tailMask, tbl)
	mask := YMM()
	VMOVDQU(Mem{Base: tbl, Index: rem, Scale: 4, Disp: 32}, mask)
	body(i, lanes{tail: true, mask: mask, jumps: &jumps})
	Label("done")
}

// loop2 is loop with two groups of 8 an iteration (body's off: 0 and 8 elements past i),
// then one, then the masked tail: half the loop's own instructions a group, for a short
// body. The body may not jump.
func loop2(n Register, body func(i Register, off int, l lanes)) {
	i := GP64()
	XORQ(i, i)
	end := GP64()
	var jumps bool
	Label("loop2")
	LEAQ(Mem{Base: i, Disp: 16}, end)
	CMPQ(end, n)
	JA(LabelRef("loop"))
	body(i, 0, lanes{jumps: &jumps})
	body(i, 8, lanes{jumps: &jumps})
	ADDQ(Imm(16), i)
	JMP(LabelRef("loop2"))
	Label("loop")
	LEAQ(Mem{Base: i, Disp: 8}, end)
	CMPQ(end, n)
	JA(LabelRef("tail"))
	body(i, 0, lanes{jumps: &jumps})
	ADDQ(Imm(8), i)
	Label("tail")
	CMPQ(i, n)
	JAE(LabelRef("done"))
	rem, tbl := GP64(), GP64()
	MOVQ(n, rem)
	SUBQ(i, rem)
	NEGQ(rem)
	LEAQ(tailMask, tbl)
	mask := YMM()
	VMOVDQU(Mem{Base: tbl, Index: rem, Scale: 4, Disp: 32}, mask)
	body(i, 0, lanes{tail: true, mask: mask, jumps: &jumps})
	Label("done")
	if jumps {
		panic("loop2: a body that jumps")
	}
}

func loadBases(names ...string) []Register {
	r := make([]Register, len(names))
	for k, n := range names {
		r[k] = Load(Param(n).Base(), GP64())
	}
	return r
}

// rawFlux: rawFluxRowGo for one cross-section (film), with or without viscosity, and
// with or without the contact-line law (wet: element.Params.Wetting; its kernels take
// the wetting head and the dry depth as two more parameters).
func rawFlux(film, visc, wet bool) {
	name := "rawFlux"
	if film {
		name += "Film"
	} else {
		name += "Paper"
	}
	if visc {
		name += "Visc"
	}
	if wet {
		name += "Wet"
	}
	name += "AVX2"
	sig := "func(dst, prev, ha, hb, ba, bb []float32, zeta, accel, dxf, visc3 float32)"
	if wet {
		sig = "func(dst, prev, ha, hb, ba, bb []float32, zeta, accel, dxf, visc3, wet, dry float32)"
	}
	kernel(name, sig)
	Doc(fmt.Sprintf("%s is rawFluxRowGo (film %v, viscous %v, wetting %v) for len(dst) elements.", name, film, visc, wet))
	b := loadBases("dst", "prev", "ha", "hb", "ba", "bb")
	dst, prev, ha, hb, ba, bb := b[0], b[1], b[2], b[3], b[4], b[5]
	n := Load(Param("dst").Len(), GP64())
	zeta, accel := bcast("zeta"), bcast("accel")
	// The wetting kernels hold fewer constants in registers, so that their larger body
	// fits the 16 YMM registers: dxf and visc3 broadcast where used, the flush's bit
	// patterns read from memory (absMask, maxSubnormal).
	var dxf, visc3, abs, minNormal VecVirtual
	if film && !wet {
		dxf = bcast("dxf")
	}
	if visc && !wet {
		visc3 = bcast("visc3")
	}
	if !wet {
		abs, minNormal = bcastBits(0x7fffffff), bcastBits(0x00800000)
	}
	loop(n, func(i Register, l lanes) {
		a, bv := l.ldr(elem(ha, i, 0)), l.ldr(elem(hb, i, 0))
		dh, da, db := YMM(), YMM(), YMM()
		VSUBPS(bv, a, dh)                    // dh = ha - hb
		VSUBPS(l.ld(elem(ba, i, 0)), a, da)  // da = ha - ba
		VSUBPS(l.ld(elem(bb, i, 0)), bv, db) // db = hb - bb
		acc := accel
		if film {
			up := YMM()
			VBLENDVPS(dh, db, da, up) // upwind(dh, da, db): db where dh's sign bit is set
			m := YMM()
			if wet {
				dxf = bcast("dxf")
			}
			VMINPS(up, dxf, m) // min(up, dxf): dxf < up ? dxf : up (NaN up gives up)
			acc = YMM()
			VMULPS(m, accel, acc)
		}
		t1, t2, f := YMM(), YMM(), YMM()
		VMULPS(l.ld(elem(prev, i, 0)), zeta, t1) // zeta*prev
		VMULPS(dh, acc, t2)                      // accel*dh
		VADDPS(t2, t1, f)
		if wet {
			suffix := ""
			if l.tail {
				suffix = "_tail"
			}
			wetting(f, t1, acc, dh, da, db, suffix)
		}
		if visc {
			u, u2, den, q := YMM(), YMM(), YMM(), YMM()
			VBLENDVPS(f, db, da, u) // upwind(f, da, db)
			VMULPS(u, u, u2)
			if wet {
				visc3 = bcast("visc3")
			}
			VADDPS(visc3, u2, den) // u2 + visc3
			VDIVPS(den, u2, q)     // u2 / (u2 + visc3)
			VMULPS(q, f, f)
		}
		// FlushFlux, in integer operations (no floating-point operation on a subnormal):
		// f &^= (|f| bits < 2^-126 bits).
		fa, tiny := YMM(), YMM()
		if wet { // the same, with the patterns from memory: f &= (|f| bits > 2^-126 bits - 1)
			VPAND(absMask, f, fa)
			VPCMPGTD(maxSubnormal, fa, tiny) // tiny is "normal" here: |f| >= 2^-126
			VPAND(tiny, f, f)
		} else {
			VPAND(abs, f, fa)
			VPCMPGTD(fa, minNormal, tiny) // tiny = minNormal > |f| (signed: |f| bits are >= 0)
			VPANDN(f, tiny, f)            // f = ^tiny & f
		}
		l.st(f, elem(dst, i, 0))
	})
	VZEROUPPER()
	RET()
}

// wetting is element.Params.Wetting on f in place: a lane whose flux enters a dry column
// (f > 0 and db <= dry, or f < 0 and da <= dry) becomes t1 + acc*(dh -+ wet), or 0 when
// that difference is 0 or of the other sign than the flux's way. The parameters wet and
// dry are broadcast where used. A group with no such lane (most of them: the law acts at
// the contact line) jumps past the rest, which would blend nothing in; suffix tells the
// label of the loop's body from the tail's.
func wetting(f, t1, acc, dh, da, db VecVirtual, suffix string) {
	zero, m1, m2 := YMM(), YMM(), YMM()
	VXORPS(zero, zero, zero)
	t, dry := YMM(), bcast("dry")
	VCMPPS(U8(cmpGT), zero, f, m1) // f > 0
	VCMPPS(U8(cmpLE), dry, db, t)  // db <= dry
	VANDPS(t, m1, m1)
	VCMPPS(U8(cmpLT), zero, f, m2) // f < 0
	VCMPPS(U8(cmpLE), dry, da, t)  // da <= dry
	VANDPS(t, m2, m2)
	// adj = wet where m1, -wet where m2, 0 elsewhere: wet on both, its sign bit set on m2.
	adj, into := YMM(), YMM()
	VORPS(m2, m1, into)
	VPTEST(into, into)
	JZ(LabelRef("held" + suffix))
	VANDPS(bcast("wet"), into, adj)
	VPSLLD(U8(31), m2, t) // all ones shifted: the sign bit where m2
	VXORPS(t, adj, adj)
	e, alt := YMM(), YMM()
	VSUBPS(adj, dh, e) // e = dh - adj
	VMULPS(e, acc, alt)
	VADDPS(alt, t1, alt) // t1 + acc*e
	// Blocked where e == 0 or e's sign bit differs from adj's.
	blk := YMM()
	VXORPS(adj, e, blk)
	VPSRAD(U8(31), blk, blk)
	VCMPPS(U8(cmpEQ), zero, e, t)
	VORPS(t, blk, blk)
	VANDNPS(alt, blk, alt) // ^blk & alt
	VBLENDVPS(into, alt, f, f)
	Label("held" + suffix)
}

// outflow: outflowRowGo, with the columns that may overflow as one bit each in mask
// (bit j of mask[g] for column 8g+j) and the OR of all of them returned.
func outflow() {
	kernel("outflowAVX2", "func(k, s, above, rx, below, h, r, b, top []float32, mask []uint8, dx2OverDt, dtOverDx2 float32) int")
	Doc("outflowAVX2 is outflowRowGo for len(k) columns: rx[j] is the -x",
		"flux of column j and rx[j+1] its +x flux; bit j%8 of mask[j/8] flags column j. It",
		"returns the number of columns flagged.")
	bs := loadBases("k", "s", "above", "rx", "below", "h", "r", "b", "top", "mask")
	above, rx, below := bs[2], bs[3], bs[4]
	outflowBody(columns{k: bs[0], s: bs[1], h: bs[5], r: bs[6], b: bs[7], top: bs[8], mask: bs[9]},
		func(i Register, q int) Mem {
			return [4]Mem{elem(above, i, 0), elem(rx, i, 0), elem(rx, i, 4), elem(below, i, 0)}[q]
		}, nil)
}

// csrStreams is how many floats a gathered buffer holds per column of a general-layout
// run (rows.CSRStreams): the four pipes' fluxes, and with extended pipes their
// outflow and inflow (for the outflow) or net outflow and a spare (for the height). The
// buffer holds groups of 8 columns, stream q of a group at 8q floats from its start:
// one base register for them all.
func csrStreams(ext bool) int {
	if ext {
		return 6
	}
	return 4
}

// csrName is the name of a general-layout kernel (base, or base's Ext variant) and the
// word its doc uses for the extended pipes.
func csrName(base string, ext bool) (name, variant string) {
	if ext {
		return base + "ExtAVX2", "with"
	}
	return base + "AVX2", "without"
}

// packed is stream q of the group of columns from element i in a gathered buffer of
// streams streams a column: gi must hold i*streams/2 (streams even), scale 8.
func packed(u, gi Register, q int) Mem {
	return Mem{Base: u, Index: gi, Scale: 8, Disp: 32 * q}
}

// groupIndex sets a new register to i*streams/2 for packed.
func groupIndex(i Register, streams int) Register {
	gi := GP64()
	switch streams {
	case 4:
		LEAQ(Mem{Base: i, Index: i, Scale: 1}, gi)
	case 6:
		LEAQ(Mem{Base: i, Index: i, Scale: 2}, gi)
	default:
		panic("streams")
	}
	return gi
}

// csrOutflow: outflowAVX2 for a run of the general layout's columns whose four pipes
// are seen from them as -, -, +, + (gpusim's csrOutflowColumns), their fluxes gathered
// into u.
func csrOutflow(ext bool) {
	name, variant := csrName("csrOutflow", ext)
	kernel(name, "func(k, s, u, h, r, b, top []float32, mask []uint8, dx2OverDt, dtOverDx2 float32) int")
	Doc(name+" is gpusim's csrOutflowColumns for len(k) columns "+variant+" extended pipes:",
		"u holds their raw fluxes (and extended outflows and inflows) gathered as CSRStreams",
		"says. Bit j%8 of mask[j/8] flags column j; it returns the number flagged.")
	bs := loadBases("k", "s", "u", "h", "r", "b", "top", "mask")
	u, streams := bs[2], csrStreams(ext)
	var gi Register
	src := func(i Register, q int) Mem {
		if gi == nil {
			gi = groupIndex(i, streams)
		}
		return packed(u, gi, q)
	}
	var extra func(i Register, q int) Mem
	if ext {
		extra = func(i Register, q int) Mem { return src(i, 4+q) }
	}
	outflowBody(columns{k: bs[0], s: bs[1], h: bs[3], r: bs[4], b: bs[5], top: bs[6], mask: bs[7]},
		func(i Register, q int) Mem {
			if q == 0 {
				gi = nil // a new group index for this body (the loop emits it twice)
			}
			return src(i, q)
		}, extra)
}

// columns are the base registers of a column kernel's per-column arrays.
type columns struct{ k, s, h, r, b, top, mask Register }

// outflowBody is outflowRowGo over columns c, the flux of each column's pipe q (in the
// order -y, -x, +x, +y; the first two seen as leaving the column's neighbour, so
// negated) at in(i, q) for the group from element i. extra, when set, gives the
// extended pipes' outflow (q = 0) and inflow (q = 1), added to the halved sums.
func outflowBody(c columns, in func(i Register, q int) Mem, extra func(i Register, q int) Mem) {
	k, s, h, r, b, top, mask := c.k, c.s, c.h, c.r, c.b, c.top, c.mask
	n := Load(Param("k").Len(), GP64())
	dx2OverDt, dtOverDx2 := bcast("dx2OverDt"), bcast("dtOverDx2")
	sign, abs := bcastBits(0x80000000), bcastBits(0x7fffffff)
	one, half := bcastBits(0x3f800000), bcastBits(0x3f000000)
	zero, count := YMM(), YMM()
	VXORPS(zero, zero, zero)
	VPXOR(count, count, count)
	loop(n, func(i Register, l lanes) {
		out2, in2 := YMM(), YMM()
		// SplitSum of each pipe's flux u seen from the column: out2 += u+|u|, in2 += u-|u|.
		for p := range 4 {
			u, a, pp, nn := l.ldr(in(i, p)), YMM(), YMM(), YMM()
			if p < 2 {
				VXORPS(sign, u, u)
			}
			VANDPS(abs, u, a)
			VADDPS(a, u, pp) // u + |u|
			VSUBPS(a, u, nn) // u - |u|
			if p == 0 {
				VADDPS(pp, zero, out2)
				VADDPS(nn, zero, in2)
			} else {
				VADDPS(pp, out2, out2)
				VADDPS(nn, in2, in2)
			}
		}
		out, in := YMM(), YMM()
		VMULPS(half, out2, out)
		VMULPS(half, in2, in)
		if extra != nil {
			VADDPS(l.ld(extra(i, 0)), out, out)
			VADDPS(l.ld(extra(i, 1)), in, in)
		}
		// K = OutflowFactor(out, (h-b)+r).
		hv, rv, depth, lim := l.ldr(elem(h, i, 0)), l.ldr(elem(r, i, 0)), YMM(), YMM()
		VSUBPS(l.ld(elem(b, i, 0)), hv, depth)
		VADDPS(rv, depth, depth)
		VMULPS(dx2OverDt, depth, lim)
		q, c1, c2, kv := YMM(), YMM(), YMM(), YMM()
		VDIVPS(out, lim, q)              // lim / out
		VCMPPS(U8(cmpGE), out, lim, c1)  // lim >= out: 1
		VCMPPS(U8(cmpLE), zero, lim, c2) // lim <= 0: 0
		VBLENDVPS(c2, zero, q, kv)
		VBLENDVPS(c1, one, kv, kv)
		l.st(kv, elem(k, i, 0))
		l.st(one, elem(s, i, 0))
		// MayOverflow(in, (top-h)-r): -in*dtOverDx2 > room.
		room, x, c3 := l.ldr(elem(top, i, 0)), YMM(), YMM()
		VSUBPS(hv, room, room)
		VSUBPS(rv, room, room)
		VXORPS(sign, in, x)
		VMULPS(dtOverDx2, x, x)
		VCMPPS(U8(cmpGT), room, x, c3)
		if l.tail {
			VANDPS(l.mask, c3, c3) // lanes past the row are no columns
		}
		VPSUBD(c3, count, count) // a flagged lane is -1
		m := GP32()
		VMOVMSKPS(c3, m)
		MOVB(m.As8(), Mem{Base: mask})
		INCQ(mask)
	})
	// The sum of count's eight lanes.
	hi, ret := XMM(), GP32()
	VEXTRACTI128(U8(1), count, hi)
	VPADDD(hi, count.AsX(), hi)
	lo := XMM()
	VPSHUFD(U8(0x4e), hi, lo)
	VPADDD(lo, hi, hi)
	VPSHUFD(U8(0xb1), hi, lo)
	VPADDD(lo, hi, hi)
	VMOVD(hi, ret)
	VZEROUPPER()
	Store(ret.As64(), ReturnIndex(0))
	RET()
}

// inflow: S (InflowFactor) for every column of a row, from the outflow-scaled inflows
// summed in the order -y, -x, +x, +y. Where outflowRowGo flagged no overflow it gives
// exactly 1, as the scalar path leaves it (docs/solver.md, "Skipping inflow scaling").
func inflow() {
	kernel("inflowAVX2", "func(s, above, ka, rx, kr, below, kb, top, h, r []float32, dtOverDx2 float32)")
	Doc("inflowAVX2 is InflowColumn for each of len(s) columns x: the -y",
		"flux above[x] from a column of factor ka[x], the -x flux rx[x] from kr[x], the +x",
		"flux rx[x+1] from kr[x+2], the +y flux below[x] from kb[x].")
	bs := loadBases("s", "above", "ka", "rx", "kr", "below", "kb", "top", "h", "r")
	sp, above, ka, rx, kr, below, kb, top, h, r := bs[0], bs[1], bs[2], bs[3], bs[4], bs[5], bs[6], bs[7], bs[8], bs[9]
	n := Load(Param("s").Len(), GP64())
	dtOverDx2 := bcast("dtOverDx2")
	sign, one := bcastBits(0x80000000), bcastBits(0x3f800000)
	zero := YMM()
	VXORPS(zero, zero, zero)
	loop(n, func(i Register, l lanes) {
		in := YMM()
		for p, src := range []struct {
			u, k Mem
			neg  bool
		}{
			{elem(above, i, 0), elem(ka, i, 0), true},
			{elem(rx, i, 0), elem(kr, i, 0), true},
			{elem(rx, i, 4), elem(kr, i, 8), false},
			{elem(below, i, 0), elem(kb, i, 0), false},
		} {
			u := l.ldr(src.u)
			if src.neg {
				VXORPS(sign, u, u)
			}
			VMINPS(u, zero, u) // Go's min(u, 0): 0 < u ? 0 : u (-0 and NaN give u)
			VMULPS(l.ld(src.k), u, u)
			if p == 0 {
				VADDPS(u, zero, in)
			} else {
				VADDPS(u, in, in)
			}
		}
		// total = -in*dt/dx^2; S = max(room/total, 0) where total > 0 and total > room,
		// else 1.
		total, room, q, c1, c2 := YMM(), l.ldr(elem(top, i, 0)), YMM(), YMM(), YMM()
		VXORPS(sign, in, total)
		VMULPS(dtOverDx2, total, total)
		VSUBPS(l.ld(elem(h, i, 0)), room, room)
		VSUBPS(l.ld(elem(r, i, 0)), room, room)
		VDIVPS(total, room, q)
		VMAXPS(zero, q, q) // q > 0 ? q : 0 (Go's max(q, 0) but for NaN)
		VCMPPS(U8(cmpGT), zero, total, c1)
		VCMPPS(U8(cmpGT), room, total, c2)
		VANDPS(c2, c1, c1)
		VBLENDVPS(c1, q, one, q)
		l.st(q, elem(sp, i, 0))
	})
	VZEROUPPER()
	RET()
}

// finalFlux: finalFluxRowGo.
func finalFlux() {
	kernel("finalFluxAVX2", "func(dst, raw, ki, ko, si, so []float32)")
	Doc("finalFluxAVX2 is finalFluxRowGo for len(dst) pipes.")
	bs := loadBases("dst", "raw", "ki", "ko", "si", "so")
	dst, raw, ki, ko, si, so := bs[0], bs[1], bs[2], bs[3], bs[4], bs[5]
	n := Load(Param("dst").Len(), GP64())
	abs, half := bcastBits(0x7fffffff), bcastBits(0x3f000000)
	loop(n, func(i Register, l lanes) {
		u, a, p, m := l.ldr(elem(raw, i, 0)), YMM(), YMM(), YMM()
		VANDPS(abs, u, a)
		VADDPS(a, u, p) // u + |u|
		VSUBPS(a, u, m) // u - |u|
		VMULPS(l.ld(elem(ki, i, 0)), p, p)
		VMULPS(l.ld(elem(so, i, 0)), p, p) // (u+a)*ki*so
		VMULPS(l.ld(elem(ko, i, 0)), m, m)
		VMULPS(l.ld(elem(si, i, 0)), m, m) // (u-a)*ko*si
		VADDPS(m, p, p)
		VMULPS(half, p, p)
		l.st(p, elem(dst, i, 0))
	})
	VZEROUPPER()
	RET()
}

// height: heightRowGo, eight columns an iteration as two independent groups of four in
// float64. The clamp of SettleHeight is rare (a rounding past the floor or the top), so
// it runs out of line, for an iteration where some lane needs it.
func height() {
	kernel("heightAVX2", "func(h, r, above, fxm, fxp, below, b, top []float32, dtOverDx2d float64)")
	Doc("heightAVX2 is heightRowGo for len(h) columns.")
	bs := loadBases("h", "r", "above", "fxm", "fxp", "below", "b", "top")
	above, fxm, fxp, below := bs[2], bs[3], bs[4], bs[5]
	heightBody(bs[0], bs[1], bs[6], bs[7], func(i Register, q, d int) Mem {
		return elem([4]Register{above, fxm, fxp, below}[q], i, d)
	}, false)
}

// csrHeight: heightAVX2 for a run of the general layout's columns whose four pipes are
// seen from them as -, -, +, + (gpusim's csrHeightColumns), their final fluxes gathered
// into u (with extended pipes, their net outflow as a fifth stream, and a sixth unused).
func csrHeight(ext bool) {
	name, variant := csrName("csrHeight", ext)
	kernel(name, "func(h, r, u, b, top []float32, dtOverDx2d float64)")
	Doc(name+" is gpusim's csrHeightColumns for len(h) columns "+variant+" extended pipes:",
		"u holds their final fluxes (and net extended outflows) gathered as CSRStreams says.")
	bs := loadBases("h", "r", "u", "b", "top")
	u, streams := bs[2], csrStreams(ext)
	var gi Register
	heightBody(bs[0], bs[1], bs[3], bs[4], func(i Register, q, d int) Mem {
		if q == 0 && d == 0 {
			gi = groupIndex(i, streams) // a new one for each body (the loop emits it twice)
		}
		m := packed(u, gi, q)
		m.Disp += d
		return m
	}, ext)
}

// heightBody is heightRowGo over the columns at h, r, b and top, the final flux of each
// column's pipe q (-y, -x, +x, +y; the first two negated) at in(i, q, d) for the half
// group d bytes from element i; with ext, the net extended outflow at in(i, 4, d),
// added last.
func heightBody(h, r, b, top Register, in func(i Register, q, d int) Mem, ext bool) {
	n := Load(Param("h").Len(), GP64())
	dtd := YMM()
	VBROADCASTSD(param("dtOverDx2d"), dtd)
	zero := YMM()
	VXORPD(zero, zero, zero)
	loop(n, func(i Register, l lanes) {
		suffix := ""
		if l.tail {
			suffix = "_tail"
		}
		var xs, hfs, lts [2]VecVirtual
		for g := range 2 {
			d := 16 * g
			// out = 0 + float64(-above) + float64(-fxm) + float64(fxp) + float64(below);
			// adding -v is subtracting v, exactly (IEEE 754 defines x - y as x + (-y)).
			out, t := YMM(), YMM()
			VCVTPS2PD(l.ld4(in(i, 0, d), g), t)
			VSUBPD(t, zero, out)
			VCVTPS2PD(l.ld4(in(i, 1, d), g), t)
			VSUBPD(t, out, out)
			VCVTPS2PD(l.ld4(in(i, 2, d), g), t)
			VADDPD(t, out, out)
			VCVTPS2PD(l.ld4(in(i, 3, d), g), t)
			VADDPD(t, out, out)
			if ext {
				VCVTPS2PD(l.ld4(in(i, 4, d), g), t)
				VADDPD(t, out, out)
			}
			// x = (float64(h) + float64(r)) - out*dt/dx^2; h = float32(x).
			hd, rd, x := YMM(), YMM(), YMM()
			VCVTPS2PD(l.ld4(elem(h, i, d), g), hd)
			VCVTPS2PD(l.ld4(elem(r, i, d), g), rd)
			VADDPD(rd, hd, hd)
			VMULPD(dtd, out, out)
			VSUBPD(out, hd, x)
			hf := XMM()
			VCVTPD2PSY(x, hf)
			xs[g], hfs[g] = x, hf
			// Where h < b or h > top: the clamp (out of line).
			lt, gt := XMM(), XMM()
			VCMPPS(U8(cmpLT), l.ld4(elem(b, i, d), g), hf, lt)
			VCMPPS(U8(cmpGT), l.ld4(elem(top, i, d), g), hf, gt)
			VORPS(gt, lt, lt)
			if l.tail {
				VANDPS(l.half(g), lt, lt)
			}
			lts[g] = lt
		}
		any := XMM()
		VORPS(lts[1], lts[0], any)
		VPTEST(any, any)
		JNZ(LabelRef("clamp" + suffix))
		Label("clamped" + suffix)
		for g := range 2 {
			d := 16 * g
			l.st4(hfs[g], elem(h, i, d), g)
			// r = float32(x - float64(h)).
			hd2, rx := YMM(), XMM()
			VCVTPS2PD(hfs[g], hd2)
			VSUBPD(hd2, xs[g], hd2)
			VCVTPD2PSY(hd2, rx)
			l.st4(rx, elem(r, i, d), g)
		}
		l.next(i)

		// SettleHeight's clamp, min(max(h, b), top) with Go's min and max (for equal
		// arguments the AND, resp. OR, of their bits: signed zeros), in the lanes that
		// need it.
		Label("clamp" + suffix)
		for g := range 2 {
			d := 16 * g
			hf := hfs[g]
			bx, tx := l.ld4r(elem(b, i, d), g), l.ld4r(elem(top, i, d), g)
			mx, eq, bits, v := XMM(), XMM(), XMM(), XMM()
			VMAXPS(hf, bx, mx) // b > h ? b : h (NaN h gives h)
			VCMPPS(U8(cmpEQ), bx, hf, eq)
			VANDPS(bx, hf, bits)
			VBLENDVPS(eq, bits, mx, v)
			mn, eq2, bits2, w := XMM(), XMM(), XMM(), XMM()
			VMINPS(v, tx, mn) // top < v ? top : v
			VCMPPS(U8(cmpEQ), tx, v, eq2)
			VORPS(tx, v, bits2)
			VBLENDVPS(eq2, bits2, mn, w)
			VBLENDVPS(lts[g], w, hf, hf)
		}
		JMP(LabelRef("clamped" + suffix))
	})
	VZEROUPPER()
	RET()
}

// gatherStrided: gatherStridedGo for consecutive strided groups. Each stream of a group
// is the even (or, for +y, odd) fluxes of 16 from its first pipe: two loads, a shuffle
// that takes the evens (or odds) of each 128-bit half, and a permute that joins them.
func gatherStrided() {
	kernel("gatherStridedAVX2", "func(u, f []float32, pp []int32, groups, uStride int)")
	Doc("gatherStridedAVX2 is gatherStridedGo for groups strided groups: group g's pipes",
		"are pp[32g:32g+32] and its streams go to u[g*uStride:].")
	bs := loadBases("u", "f", "pp")
	u, f, pp := bs[0], bs[1], bs[2]
	n := Load(Param("groups"), GP64())
	stride := Load(Param("uStride"), GP64())
	SHLQ(Imm(2), stride) // bytes
	Label("loop")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	// Stream q's first pipe is pp[q]: -y, -x, +x (evens of its stretch); +y is the odds of
	// the +x stretch.
	for q := range 3 {
		idx := GP64()
		MOVLQSX(Mem{Base: pp, Disp: 4 * q}, idx)
		a, b := YMM(), YMM()
		VMOVUPS(Mem{Base: f, Index: idx, Scale: 4}, a)
		VMOVUPS(Mem{Base: f, Index: idx, Scale: 4, Disp: 32}, b)
		even := YMM()
		VSHUFPS(Imm(0x88), b, a, even)
		VPERMPD(Imm(0xd8), even, even)
		VMOVUPS(even, Mem{Base: u, Disp: 32 * q})
		if q == 2 {
			odd := YMM()
			VSHUFPS(Imm(0xdd), b, a, odd)
			VPERMPD(Imm(0xd8), odd, odd)
			VMOVUPS(odd, Mem{Base: u, Disp: 32 * 3})
		}
	}
	ADDQ(Imm(128), pp)
	ADDQ(stride, u)
	DECQ(n)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

// gatherPairs: gatherPairsGo for consecutive paired groups. A group is 8 columns' +x and
// +y pipes, interleaved: the columns' own values twice each (their ends a), and their +x
// and +y neighbours' in turn (ends b). An unpack of the low and of the high halves of
// each 128-bit lane interleaves two vectors; a 128-bit permute puts the halves in order.
func gatherPairs() {
	kernel("gatherPairsAVX2", "func(da, db, x []float32, pa, pb []int32, groups int)")
	Doc("gatherPairsAVX2 is gatherPairsGo for groups paired groups: group g's pipes are",
		"pa[16g:16g+16] and pb[16g:16g+16], its ends' values go to da and db[16g:16g+16].")
	bs := loadBases("da", "db", "x", "pa", "pb")
	da, db, x, pa, pb := bs[0], bs[1], bs[2], bs[3], bs[4]
	n := Load(Param("groups"), GP64())
	// interleave stores X0, Y0, X1, Y1, ... X7, Y7 at m and m+32.
	interleave := func(xv, yv VecVirtual, dst Register) {
		lo, hi := YMM(), YMM()
		VUNPCKLPS(yv, xv, lo) // x0 y0 x1 y1 | x4 y4 x5 y5
		VUNPCKHPS(yv, xv, hi) // x2 y2 x3 y3 | x6 y6 x7 y7
		out := YMM()
		VPERM2F128(Imm(0x20), hi, lo, out)
		VMOVUPS(out, Mem{Base: dst})
		VPERM2F128(Imm(0x31), hi, lo, out)
		VMOVUPS(out, Mem{Base: dst, Disp: 32})
	}
	Label("loop")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	ia, ie, in := GP64(), GP64(), GP64()
	MOVLQSX(Mem{Base: pa}, ia)
	MOVLQSX(Mem{Base: pb}, ie)
	MOVLQSX(Mem{Base: pb, Disp: 4}, in)
	a, e, nb := YMM(), YMM(), YMM()
	VMOVUPS(Mem{Base: x, Index: ia, Scale: 4}, a)
	VMOVUPS(Mem{Base: x, Index: ie, Scale: 4}, e)
	VMOVUPS(Mem{Base: x, Index: in, Scale: 4}, nb)
	interleave(a, a, da)
	interleave(e, nb, db)
	ADDQ(Imm(64), pa)
	ADDQ(Imm(64), pb)
	ADDQ(Imm(64), da)
	ADDQ(Imm(64), db)
	DECQ(n)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

// cmpNEQ is VCMPPS's NEQ_UQ: true where the operands differ or either is NaN, as Go's !=.
const cmpNEQ = 0x04

// labels numbers the labels of the byte loops, which a kernel's body emits twice (the
// loop's and the tail's copy).
var labels int
