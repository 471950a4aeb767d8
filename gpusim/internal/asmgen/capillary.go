package main

// The capillary head's kernels (gpusim/capillary.go's column pass, fused into the dense
// sweep row by row: rows.CapHeadRow and its twins): the head, the rise test and the dry
// span, with their byte loads and stores.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func label(name string) string {
	labels++
	return fmt.Sprintf("%s%d", name, labels)
}

// ldBytes zero-extends the 8 bytes at element i (plus disp) of the byte slice named name
// into 8 dword lanes; in the tail only the first n-i of them are read (one by one), the
// others are 0.
func ldBytes(name string, i, n Register, disp int, l lanes) VecVirtual {
	base := Load(Param(name).Base(), GP64())
	y := YMM()
	if !l.tail {
		VPMOVZXBD(Mem{Base: base, Index: i, Scale: 1, Disp: disp}, y)
		return y
	}
	// acc = the bytes at i+k-1 for k from n-i down to 1, shifted in from the top.
	p, k, acc, b := GP64(), GP64(), GP64(), GP64()
	LEAQ(Mem{Base: base, Index: i, Scale: 1, Disp: disp}, p)
	MOVQ(n, k)
	SUBQ(i, k)
	XORQ(acc, acc)
	lb := label("ldbytes")
	Label(lb)
	SHLQ(Imm(8), acc)
	MOVBQZX(Mem{Base: p, Index: k, Scale: 1, Disp: -1}, b)
	ORQ(b, acc)
	DECQ(k)
	JNZ(LabelRef(lb))
	x := XMM()
	VMOVQ(acc, x)
	VPMOVZXBD(x, y)
	return y
}

// stBytes stores the low byte of each of v's 8 dword lanes (each 0 or 1) at element i of
// the byte slice named name; in the tail only the first n-i.
func stBytes(v VecVirtual, name string, i, n Register, l lanes) {
	hi, w := XMM(), XMM()
	VEXTRACTI128(U8(1), v, hi)
	VPACKSSDW(hi, v.AsX(), w) // lanes 0-3, then 4-7, as words
	VPACKUSWB(w, w, w)        // as bytes, twice
	base := Load(Param(name).Base(), GP64())
	if !l.tail {
		VMOVQ(w, Mem{Base: base, Index: i, Scale: 1})
		return
	}
	p, k, rem, acc := GP64(), GP64(), GP64(), GP64()
	LEAQ(Mem{Base: base, Index: i, Scale: 1}, p)
	MOVQ(n, rem)
	SUBQ(i, rem)
	VMOVQ(w, acc)
	XORQ(k, k)
	lb := label("stbytes")
	Label(lb)
	MOVB(acc.As8(), Mem{Base: p, Index: k, Scale: 1})
	SHRQ(Imm(8), acc)
	INCQ(k)
	CMPQ(k, rem)
	JB(LabelRef(lb))
}

// capHead: capHeadRowGo (gpusim/internal/rows/capillary.go), the capillary head of a row
// of columns with both x neighbours. A group of 8 columns none of which, nor of whose
// neighbours, is dry takes the ripple damping alone (capRise's arithmetic, which is
// capHeadRowGo's there: no edge, no hole, the flag the mark), the others the whole
// head. The slices' bases are read from the arguments where used: thirteen of them
// would not fit the general registers beside the loop's.
func capHead() {
	kernel("capHeadAVX2", "func(drive []float32, next []uint8, keep, h, b []float32, w []uint8, hm, bm []float32, wm []uint8, hp, bp []float32, wp []uint8, prev []float32, dry, hole, recede, corner, damp float32, heal, mark uint32) int")
	Doc("capHeadAVX2 is capHeadRowGo for len(drive) columns: heal is all ones or 0, mark 0 or 1;",
		"bit 0 of the result is its first result, bit 1 its second.")
	n := Load(Param("drive").Len(), GP64())
	base := func(name string) Register { return Load(Param(name).Base(), GP64()) }
	dry, zero, low, below := bcast("dry"), YMM(), GP32(), GP32()
	stripMem := AllocLocal(32) // a group's strip test (below)
	VXORPS(zero, zero, zero)
	XORL(low, low)
	XORL(below, below)
	// neighbour q's height, floor and flags: -y, -x, +x, +y.
	nbr := func(q int, i Register) (hm, bm Mem, wname string, wdisp int) {
		switch q {
		case 0:
			return elem(base("hm"), i, 0), elem(base("bm"), i, 0), "wm", 0
		case 1:
			return elem(base("h"), i, 0), elem(base("b"), i, 0), "w", 0
		case 2:
			return elem(base("h"), i, 8), elem(base("b"), i, 8), "w", 2
		}
		return elem(base("hp"), i, 0), elem(base("bp"), i, 0), "wp", 0
	}
	// orLow ors the lanes of s whose driving depth s - bc is at most dry into low.
	orLow := func(s, bc VecVirtual, l lanes) {
		lw := YMM()
		VSUBPS(bc, s, lw)
		VCMPPS(U8(cmpLE), dry, lw, lw) // a driving depth the contact-line law reads as dry
		if l.tail {
			VANDPS(l.mask, lw, lw)
		}
		m := GP32()
		VMOVMSKPS(lw, m)
		ORL(m, low)
	}
	loop(n, func(i Register, l lanes) {
		suffix := ""
		if l.tail {
			suffix = "_tail"
		}
		// Is a column of the group, or a neighbour of one, dry? The +y neighbours' test
		// is also the next row's (bit 1 of the result).
		var any VecVirtual
		for q := range 5 {
			var hm, bm Mem
			if q < 4 {
				hm, bm, _, _ = nbr(q, i)
			} else {
				hm, bm = elem(base("h"), i, 4), elem(base("b"), i, 4)
			}
			t := YMM()
			VSUBPS(l.ld(bm), l.ldr(hm), t)
			VCMPPS(U8(cmpLE), dry, t, t)
			if l.tail {
				VANDPS(l.mask, t, t)
			}
			if q == 3 {
				m := GP32()
				VMOVMSKPS(t, m)
				ORL(m, below)
			}
			if q == 0 {
				any = t
			} else {
				VORPS(t, any, any)
			}
		}
		VPTEST(any, any)
		JNZ(LabelRef("edge" + suffix))

		// No dry column: drive = h + capLimit(damp*(h - prev), d) where that is not 0,
		// the flag the mark (capRise).
		{
			hc, bc := l.ldr(elem(base("h"), i, 4)), l.ldr(elem(base("b"), i, 4))
			d, x := YMM(), YMM()
			VSUBPS(bc, hc, d)
			VSUBPS(l.ld(elem(base("prev"), i, 0)), hc, x)
			l.st(hc, elem(base("keep"), i, 0)) // after prev's load: keep may be prev
			dm := YMM()
			VBROADCASTSS(param("damp"), dm)
			VMULPS(x, dm, x) // float32(damp * (h - prev))
			s := headDrive(hc, d, x, zero)
			l.st(s, elem(base("drive"), i, 0))
			orLow(s, bc, l)
			mk := YMM()
			VBROADCASTSS(param("mark"), mk)
			stBytes(mk, "next", i, n, l)
		}
		l.next(i)

		Label("edge" + suffix)
		hc, bc := l.ldr(elem(base("h"), i, 4)), l.ldr(elem(base("b"), i, 4))
		// The neighbours -y, -x, +x, +y: their tests, or-ed (notN and-ed) over the four;
		// the edge's masks (each -1) added up in faces, minus the number of faces onto dry
		// ground: its sign bit is the edge test or-ed.
		// A strip (capDryHead): both sides along one axis wet at least recede deep (an
		// absent neighbour's NaN depth is not). Made first, while registers are free, and
		// kept on the stack: none is free across the tests below.
		{
			rc := YMM()
			VBROADCASTSS(param("recede"), rc)
			var w [4]VecVirtual
			for q := range 4 {
				hm, bm, _, _ := nbr(q, i)
				dj, ge := l.ldr(hm), YMM()
				VSUBPS(l.ld(bm), dj, dj)
				VCMPPS(U8(cmpGE), rc, dj, ge)  // dq >= recede
				VCMPPS(U8(cmpGT), dry, dj, dj) // dq > dry
				VANDPS(ge, dj, dj)
				w[q] = dj
			}
			VANDPS(w[1], w[2], w[1])
			VANDPS(w[0], w[3], w[0])
			VORPS(w[0], w[1], w[1])
			VMOVUPS(w[1], stripMem)
		}
		var anyUp, notN, anyD, anyDry, faces VecVirtual
		for q := range 4 {
			hm, bm, wname, wdisp := nbr(q, i)
			hj, bj := l.ldr(hm), l.ldr(bm)
			dj, dryj, wetj := YMM(), YMM(), YMM()
			VSUBPS(bj, hj, dj)
			VCMPPS(U8(cmpLE), dry, dj, dryj) // dq <= dry
			VCMPPS(U8(cmpGT), dry, dj, wetj) // dq > dry
			wz := ldBytes(wname, i, n, wdisp, l)
			VPCMPEQD(zero, wz, wz) // not wetted
			e, u, nn, dd := YMM(), YMM(), YMM(), YMM()
			VCMPPS(U8(cmpGT), bj, hc, e) // h > nb: the floor below the surface
			VANDPS(dryj, e, e)
			VANDPS(wz, e, e)
			VCMPPS(U8(cmpLT), bj, bc, u) // b < nb: rising
			VANDPS(e, u, u)
			VANDNPS(wz, wetj, nn)         // neither wet nor wetted: ^wet & wz
			VCMPPS(U8(cmpGE), bj, hc, dd) // h >= nb
			VANDPS(nn, dd, dd)
			if q == 0 {
				faces, anyUp, notN, anyD, anyDry = e, u, nn, dd, dryj
				continue
			}
			VPADDD(e, faces, faces)
			VORPS(dryj, anyDry, anyDry)
			VORPS(u, anyUp, anyUp)
			VANDPS(nn, notN, notN)
			VORPS(dd, anyD, anyD)
		}
		d, dryc := YMM(), YMM()
		VSUBPS(bc, hc, d)
		VCMPPS(U8(cmpLE), dry, d, dryc)
		// Dry: b + hole where wetted ground (w != 0, some neighbour wet or wetted, none dry
		// ground) or a healed gap (heal, and no neighbour dry or a strip); flag 1 for
		// wetted ground.
		wzc := ldBytes("w", i, n, 1, l)
		VPCMPEQD(zero, wzc, wzc)
		t, ho, hole, dDrive, dFlag := YMM(), YMM(), YMM(), YMM(), YMM()
		VORPS(notN, wzc, t)
		VORPS(anyD, t, t)               // not wetted ground
		VBROADCASTSS(param("heal"), ho) // a bit pattern: SS, which vet reads as 4 bytes
		VANDNPS(ho, anyDry, anyDry)     // heal and no neighbour dry: ^anyDry & heal
		VANDPS(stripMem, ho, ho)        // heal and a strip
		VORPS(anyDry, ho, ho)           // a healed gap
		VANDNPS(t, ho, ho)              // neither: ^ho & t
		VBROADCASTSS(param("hole"), hole)
		VADDPS(hole, bc, hole)
		VBLENDVPS(ho, hc, hole, dDrive)
		VPANDN(bcastBits(1), t, dFlag) // ^t & 1
		// Wet: x = (recede - corner) - d (d < recede - corner), plus corner with two faces
		// or more, at the contact line; damp*(h - prev) elsewhere.
		rc, lt, rx, cr, lo, rxc, multi := YMM(), YMM(), YMM(), YMM(), YMM(), YMM(), YMM()
		VBROADCASTSS(param("recede"), rc)
		VBROADCASTSS(param("corner"), cr)
		VANDNPS(cr, anyUp, cr)       // 0 at a sloping shore: ^up & corner
		VSUBPS(cr, rc, lo)           // recede - corner
		VCMPPS(U8(cmpLT), lo, d, lt) // d < recede - corner: receding (and the shore's flag)
		VSUBPS(d, lo, rx)
		VADDPS(cr, rx, rxc)
		VPCMPGTD(faces, bcastBits(0xffffffff), multi) // -1 > -faces: two faces or more
		VBLENDVPS(multi, rxc, rx, rx)
		VANDPS(lt, rx, rx)
		rise, x := YMM(), YMM()
		VSUBPS(l.ld(elem(base("prev"), i, 0)), hc, rise)
		l.st(hc, elem(base("keep"), i, 0)) // after prev's load: keep may be prev
		VBROADCASTSS(param("damp"), x)
		VMULPS(rise, x, x)
		VBLENDVPS(faces, rx, x, x) // an edge: faces < 0
		s := headDrive(hc, d, x, zero)
		VBLENDVPS(dryc, dDrive, s, s)
		l.st(s, elem(base("drive"), i, 0))
		orLow(s, bc, l)
		// Flags: 0 at a sloping shore where d < recede - corner, else mark; dry: dFlag.
		mk := YMM()
		VBROADCASTSS(param("mark"), mk)
		VANDPS(lt, anyUp, anyUp)
		VPANDN(mk, anyUp, mk) // ^(up & lt) & mark
		VBLENDVPS(dryc, dFlag, mk, mk)
		stBytes(mk, "next", i, n, l)
		l.next(i)
	})
	VZEROUPPER()
	r := GP64()
	XORQ(r, r)
	TESTL(low, low)
	SETNE(r.As8())
	XORL(low, low)
	TESTL(below, below)
	SETNE(low.As8())
	SHLL(Imm(1), low)
	ORL(low, r.As32())
	Store(r, ReturnIndex(0))
	RET()
}

// headDrive is the driving height h + capLimit(x, d) where x != 0, else h (the bits
// capLimit's comparison gives: x no more than -d/2 reads -d/2; NaN counts as non-zero).
func headDrive(hc, d, x, zero VecVirtual) VecVirtual {
	lim, c, s, nz := YMM(), YMM(), YMM(), YMM()
	VMULPS(bcastBits(0xbf000000), d, lim) // -0.5*d
	VCMPPS(U8(cmpGT), lim, x, c)
	VBLENDVPS(c, x, lim, s)
	VADDPS(s, hc, s)
	VCMPPS(U8(cmpNEQ), zero, x, nz)
	VBLENDVPS(nz, s, hc, s)
	return s
}

// lowDrive ors into acc the lanes whose driving depth s - b is at most dry (the
// contact-line law's test of a pipe's end), in the tail only the row's.
func lowDrive(s, b, dry, acc VecVirtual, l lanes) {
	t := YMM()
	VSUBPS(b, s, t)
	VCMPPS(U8(cmpLE), dry, t, t)
	if l.tail {
		VANDPS(l.mask, t, t)
	}
	VORPS(t, acc, acc)
}

// retAny returns whether some lane of acc is set (as the bool result 0), after
// VZEROUPPER.
func retAny(acc VecVirtual) {
	m := GP32()
	VMOVMSKPS(acc, m)
	VZEROUPPER()
	TESTL(m, m)
	r := GP8()
	SETNE(r)
	Store(r, ReturnIndex(0))
	RET()
}

// capRise: capRiseRowGo, the ripple damping alone (rows without a dry column around).
func capRise() {
	kernel("capRiseAVX2", "func(drive []float32, next []uint8, keep, h, b, prev, hn, bn []float32, damp, dry float32, mark uint64) int")
	Doc("capRiseAVX2 is capRiseRowGo for len(drive) columns: mark is the flag in each of its",
		"8 bytes; bits 0 and 1 of the result are its first and second results.")
	bs := loadBases("drive", "next", "keep", "h", "b", "prev", "hn", "bn")
	drive, nextB, keep, h, b, prev, hn, bn := bs[0], bs[1], bs[2], bs[3], bs[4], bs[5], bs[6], bs[7]
	n := Load(Param("drive").Len(), GP64())
	mk := GP64()
	Load(Param("mark"), mk)
	damp, neghalf, zero := bcast("damp"), bcastBits(0xbf000000), YMM()
	dry, low, next := bcast("dry"), YMM(), YMM()
	VXORPS(zero, zero, zero)
	VXORPS(low, low, low)
	VXORPS(next, next, next)
	loop2(n, func(i Register, off int, l lanes) {
		at := func(base Register) Mem { return elem(base, i, 4*off) }
		// The next row's dry test: hn - bn <= dry.
		dn := YMM()
		VSUBPS(l.ld(at(bn)), l.ldr(at(hn)), dn)
		VCMPPS(U8(cmpLE), dry, dn, dn)
		if l.tail {
			VANDPS(l.mask, dn, dn)
		}
		VORPS(dn, next, next)
		hc, d, x, bv := l.ldr(at(h)), YMM(), YMM(), l.ldr(at(b))
		VSUBPS(bv, hc, d)
		VSUBPS(l.ld(at(prev)), hc, x)
		l.st(hc, at(keep)) // after prev's load: keep may be prev
		VMULPS(x, damp, x) // float32(damp * (h - prev))
		lim, c, s, nz := YMM(), YMM(), YMM(), YMM()
		VMULPS(neghalf, d, lim) // -0.5*d
		VCMPPS(U8(cmpGT), lim, x, c)
		VBLENDVPS(c, x, lim, s)
		VADDPS(s, hc, s)
		VCMPPS(U8(cmpNEQ), zero, x, nz)
		VBLENDVPS(nz, s, hc, s)
		l.st(s, at(drive))
		lowDrive(s, bv, dry, low, l)
		// The flags: the mark, 8 bytes at a time; in the tail one by one.
		if !l.tail {
			MOVQ(mk, Mem{Base: nextB, Index: i, Scale: 1, Disp: off})
			return
		}
		k, rem := GP64(), GP64()
		MOVQ(n, rem)
		SUBQ(i, rem)
		XORQ(k, k)
		lb := label("mark")
		Label(lb)
		p := GP64()
		LEAQ(Mem{Base: nextB, Index: i, Scale: 1}, p)
		MOVB(mk.As8(), Mem{Base: p, Index: k, Scale: 1})
		INCQ(k)
		CMPQ(k, rem)
		JB(LabelRef(lb))
	})
	// The result's bits: any lane of low, of next.
	r := GP64()
	XORQ(r, r)
	for k, v := range []VecVirtual{low, next} {
		m, t := GP32(), GP64()
		VMOVMSKPS(v, m)
		XORQ(t, t)
		TESTL(m, m)
		SETNE(t.As8())
		if k > 0 {
			SHLQ(U8(k), t)
		}
		ORQ(t, r)
	}
	VZEROUPPER()
	Store(r, ReturnIndex(0))
	RET()
}

// drySpan: drySpanGo, the first and last column of a row with h - b <= dry. A group of 8
// with one is looked at closer (a bit scan of its lanes) out of line.
func drySpan() {
	kernel("drySpanAVX2", "func(h, b []float32, dry float32) (first, last int)")
	Doc("drySpanAVX2 is drySpanGo for len(h) columns.")
	bs := loadBases("h", "b")
	h, b := bs[0], bs[1]
	n := Load(Param("h").Len(), GP64())
	dry := bcast("dry")
	first, last := GP64(), GP64()
	MOVQ(I32(-1), first)
	MOVQ(I32(-1), last)
	loop(n, func(i Register, l lanes) {
		suffix := ""
		if l.tail {
			suffix = "_tail"
		}
		d := YMM()
		VSUBPS(l.ld(elem(b, i, 0)), l.ldr(elem(h, i, 0)), d)
		VCMPPS(U8(cmpLE), dry, d, d)
		if l.tail {
			VANDPS(l.mask, d, d) // lanes past the row are no columns
		}
		m := GP64()
		VMOVMSKPS(d, m.As32())
		TESTQ(m, m)
		JNZ(LabelRef("found" + suffix))
		l.next(i)
		Label("found" + suffix)
		t := GP64()
		BSRQ(m, t)
		ADDQ(i, t)
		MOVQ(t, last)
		CMPQ(first, I8(-1))
		JNE(LabelRef("seen" + suffix))
		BSFQ(m, first)
		ADDQ(i, first)
		Label("seen" + suffix)
		l.next(i)
	})
	VZEROUPPER()
	Store(first, ReturnIndex(0))
	Store(last, ReturnIndex(1))
	RET()
}
