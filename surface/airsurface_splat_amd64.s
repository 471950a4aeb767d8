//go:build !purego

#include "textflag.h"

// AirSurface's kernels in AVX2 (airsurface_splat.go has the Go ones, the reference).
// Only VEX instructions. Every product, sum and difference is the Go code's, on the
// same operands, unfused (2 x is x + x, exact as Go's 2 * x); VMAXPS with +0 as its
// second operand gives +0 for a negative value and for -0, as airPlaneGo's clamp does.

// the lanes' indexes
DATA airLanes<>+0x00(SB)/4, $0
DATA airLanes<>+0x04(SB)/4, $1
DATA airLanes<>+0x08(SB)/4, $2
DATA airLanes<>+0x0c(SB)/4, $3
DATA airLanes<>+0x10(SB)/4, $4
DATA airLanes<>+0x14(SB)/4, $5
DATA airLanes<>+0x18(SB)/4, $6
DATA airLanes<>+0x1c(SB)/4, $7
GLOBL airLanes<>(SB), RODATA|NOPTR, $32

// 8 in every lane
DATA airEight<>+0x00(SB)/4, $8
DATA airEight<>+0x04(SB)/4, $8
DATA airEight<>+0x08(SB)/4, $8
DATA airEight<>+0x0c(SB)/4, $8
DATA airEight<>+0x10(SB)/4, $8
DATA airEight<>+0x14(SB)/4, $8
DATA airEight<>+0x18(SB)/4, $8
DATA airEight<>+0x1c(SB)/4, $8
GLOBL airEight<>(SB), RODATA|NOPTR, $32

// 1.0
DATA airOne<>+0x00(SB)/4, $0x3f800000
GLOBL airOne<>(SB), RODATA|NOPTR, $4

// airSplatArgs: o 0, 4, 8; lo 12, 16, 20; hi 24, 28, 32; m: xx 36, yy 40, zz 44,
// xy 48, xz 52, yz 56; c 60, 64, 68.

// func airSplatAVX2(field *float32, written *uint64, pl *uint32, np int, a *airSplatArgs)
//
// The frame holds a plane's bz (0), cyz (4) and czz (8). Registers: R8 field, R11 a,
// R12 the plane; in a plane DI its first point, AX its points per row, CX its rows, BX
// its first row's y and DX its first point's x from the box's corner; R9 the chunk's
// first point, R10 the chunk in the current row, R13 the row, R14 the row in its group
// of eight (whose rb and rc are in Y14 and Y15, a row a lane).
TEXT ·airSplatAVX2(SB), NOSPLIT, $16-40
	MOVQ field+0(FP), R8
	MOVQ a+32(FP), R11
	VXORPS Y0, Y0, Y0            // +0
	VBROADCASTSS 60(R11), Y1     // cx
	VBROADCASTSS 36(R11), Y2     // mxx
	VMOVDQU airLanes<>(SB), Y9
	VBROADCASTSS 64(R11), Y13    // cy
	XORQ R12, R12

plane:
	CMPQ R12, np+24(FP)
	JGE done
	MOVQ pl+16(FP), SI
	MOVL (SI)(R12*4), AX         // the plane's range
	MOVL AX, BX                  // y0 = max(r&255 + o1, lo1)
	ANDL $255, BX
	ADDL 4(R11), BX
	MOVL 16(R11), R13
	CMPL BX, R13
	CMOVLLT R13, BX
	MOVL AX, CX                  // y1 = min(r>>8&255 + o1, hi1)
	SHRL $8, CX
	ANDL $255, CX
	ADDL 4(R11), CX
	MOVL 28(R11), R13
	CMPL CX, R13
	CMOVLGT R13, CX
	MOVL AX, DX                  // x0 = max(r>>16&255 + o0, lo0)
	SHRL $16, DX
	ANDL $255, DX
	ADDL 0(R11), DX
	MOVL 12(R11), R13
	CMPL DX, R13
	CMOVLLT R13, DX
	SHRL $24, AX                 // x1 = min(r>>24 + o0, hi0)
	ADDL 0(R11), AX
	MOVL 24(R11), R13
	CMPL AX, R13
	CMOVLGT R13, AX
	CMPL BX, CX
	JGT next
	CMPL DX, AX
	JGT next
	SUBL BX, CX
	INCL CX                      // rows
	SUBL DX, AX
	INCL AX                      // points per row

	// The plane z = lo2 + j: dz = float32(z - o2) - cz, bz, cyz, czz.
	MOVL 20(R11), R13
	ADDL R12, R13                // z
	MOVL R13, R14
	SUBL 8(R11), R14
	VCVTSI2SSL R14, X0, X6       // (upper lanes from the constant X0)
	VSUBSS 68(R11), X6, X6       // dz
	VMULSS 52(R11), X6, X7
	VMOVSS X7, 0(SP)             // bz = mxz dz
	VMOVSS 56(R11), X7
	VADDSS X7, X7, X7
	VMULSS X6, X7, X7
	VMOVSS X7, 4(SP)             // cyz = 2 myz dz
	VMULSS 44(R11), X6, X7
	VMULSS X6, X7, X7
	VMOVSS X7, 8(SP)             // czz = mzz dz dz

	// The plane's first point, and its rows r0..r1 = z airDim + y0 .. in written.
	IMUL3L $35, R13, R13
	LEAL (R13)(BX*1), R14        // r0
	IMUL3L $35, R14, DI
	ADDL DX, DI
	LEAQ (R8)(DI*4), DI
	LEAL -1(R14)(CX*1), R13      // r1
	MOVQ $-1, R9
	SHLXQ R14, R9, R10           // ^0 << (r0 & 63)
	MOVL $63, SI
	SUBL R13, SI
	SHRXQ SI, R9, R9             // ^0 >> (63 - r1&63)
	SHRL $6, R14
	SHRL $6, R13
	MOVQ written+8(FP), SI
	CMPL R14, R13
	JNE twowords
	ANDQ R9, R10
	ORQ R10, (SI)(R14*8)
	JMP marked

twowords:
	ORQ R10, (SI)(R14*8)
	ORQ R9, (SI)(R13*8)

marked:
	SUBL 0(R11), DX              // xs, the first point's x from the box's corner
	SUBL 4(R11), BX              // ys, the first row's y
	VMOVD DX, X5
	VPBROADCASTD X5, Y5
	VPADDD Y9, Y5, Y5            // xs + lane: the chunk's points
	XORQ R9, R9

chunk:
	MOVQ AX, R10
	SUBQ R9, R10                 // points left in the row
	VMOVD R10, X8
	VPBROADCASTD X8, Y8
	VPCMPGTD Y9, Y8, Y8          // mask: lane < points left
	VCVTDQ2PS Y5, Y3
	VSUBPS Y1, Y3, Y3            // dx = float32(xs + j) - cx
	VMULPS Y3, Y2, Y4            // mxx dx
	LEAQ (DI)(R9*4), R10         // the chunk in row 0
	XORQ R13, R13

group:
	// Eight rows' rb and rc, a row a lane.
	LEAL (BX)(R13*1), R14
	VMOVD R14, X6
	VPBROADCASTD X6, Y6
	VPADDD Y9, Y6, Y6
	VCVTDQ2PS Y6, Y6
	VSUBPS Y13, Y6, Y6           // dy = float32(ys + r) - cy
	VBROADCASTSS 48(R11), Y14
	VMULPS Y6, Y14, Y14
	VBROADCASTSS 0(SP), Y10
	VADDPS Y10, Y14, Y14
	VADDPS Y14, Y14, Y14         // rb = 2 (mxy dy + bz)
	VBROADCASTSS 40(R11), Y15
	VMULPS Y6, Y15, Y15
	VBROADCASTSS 4(SP), Y10
	VADDPS Y10, Y15, Y15
	VMULPS Y6, Y15, Y15
	VBROADCASTSS 8(SP), Y10
	VADDPS Y10, Y15, Y15         // rc = (myy dy + cyz) dy + czz
	XORQ R14, R14

row:
	VMOVD R14, X10
	VPBROADCASTD X10, Y10
	VPERMPS Y14, Y10, Y6         // rb
	VPERMPS Y15, Y10, Y7         // rc
	VADDPS Y6, Y4, Y10           // mxx dx + rb
	VMULPS Y3, Y10, Y10          // (mxx dx + rb) dx
	VADDPS Y7, Y10, Y10          // q^2 = (mxx dx + rb) dx + rc
	VBROADCASTSS airOne<>(SB), Y11
	VSUBPS Y10, Y11, Y10         // v = 1 - q^2
	VMAXPS Y0, Y10, Y10          // max(v, +0)
	VMULPS Y10, Y10, Y11         // v v
	VMULPS Y10, Y11, Y11         // v v v
	VMASKMOVPS (R10), Y8, Y12
	VADDPS Y11, Y12, Y12
	VMASKMOVPS Y12, Y8, (R10)
	ADDQ $140, R10               // the next row: airDim floats on
	INCQ R13
	INCQ R14
	CMPQ R13, CX
	JGE rowsdone
	CMPQ R14, $8
	JLT row
	JMP group

rowsdone:
	ADDQ $8, R9
	VPADDD airEight<>(SB), Y5, Y5 // the next chunk's points
	CMPQ R9, AX
	JLT chunk

next:
	INCQ R12
	JMP plane

done:
	VZEROUPPER
	RET

// func airRowMaskAVX2(f *float32, iso float32) uint64
//
// Bit x of the result: iso <= f[x] (VCMPPS LE_OQ), for x < airDim = 35.
TEXT ·airRowMaskAVX2(SB), NOSPLIT, $0-24
	MOVQ f+0(FP), DI
	VBROADCASTSS iso+8(FP), Y0
	VCMPPS $18, (DI), Y0, Y1
	VMOVMSKPS Y1, AX
	VCMPPS $18, 32(DI), Y0, Y1
	VMOVMSKPS Y1, BX
	SHLQ $8, BX
	ORQ BX, AX
	VCMPPS $18, 64(DI), Y0, Y1
	VMOVMSKPS Y1, BX
	SHLQ $16, BX
	ORQ BX, AX
	VCMPPS $18, 96(DI), Y0, Y1
	VMOVMSKPS Y1, BX
	SHLQ $24, BX
	ORQ BX, AX
	VCMPPS $18, 128(DI), Y0, Y1
	VMOVMSKPS Y1, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ $0x7ffffffff, BX
	ANDQ BX, AX
	MOVQ AX, ret+16(FP)
	VZEROUPPER
	RET

// airPlanesArgs: cx 0, cy 4, cz 8; inzz 12, nxz 16, nyz 20, sax 24, say 28; wx 32, wy 36.

// func airPlanesAVX2(dst *uint32, n int, a *airPlanesArgs)
//
// Eight planes a vector. VROUNDPS rounds up (2) and down (1) as math.Ceil and Floor;
// VSQRTPS is IEEE's square root, as Go's of float64(t) rounded to float32.
TEXT ·airPlanesAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ a+16(FP), SI
	VMOVDQU airLanes<>(SB), Y9
	VXORPS Y0, Y0, Y0                // 0
	VPCMPEQD Y15, Y15, Y15
	VPSRLD $31, Y15, Y15             // 1 in every lane (none)
	VBROADCASTSS airOne<>(SB), Y14   // 1.0
	VPBROADCASTD 32(SI), Y12         // wx
	VPBROADCASTD 36(SI), Y13         // wy
	XORQ R9, R9                      // the first plane of the vector

planes8:
	MOVQ CX, R10
	SUBQ R9, R10
	VMOVD R10, X8
	VPBROADCASTD X8, Y8
	VPCMPGTD Y9, Y8, Y8              // mask: lane < planes left
	VMOVD R9, X1
	VPBROADCASTD X1, Y1
	VPADDD Y9, Y1, Y1
	VCVTDQ2PS Y1, Y1
	VBROADCASTSS 8(SI), Y2
	VSUBPS Y2, Y1, Y1                // dz = float32(z) - cz
	VMULPS Y1, Y1, Y2
	VBROADCASTSS 12(SI), Y3
	VMULPS Y3, Y2, Y2
	VSUBPS Y2, Y14, Y2               // t = 1 - dz dz inzz
	VCMPPS $30, Y0, Y2, Y10          // t > 0 (GT_OQ)
	VSQRTPS Y2, Y2                   // st
	VBROADCASTSS 24(SI), Y3
	VMULPS Y2, Y3, Y3                // hx = sax st
	VBROADCASTSS 28(SI), Y4
	VMULPS Y2, Y4, Y4                // hy = say st
	VBROADCASTSS 16(SI), Y5
	VMULPS Y1, Y5, Y5
	VBROADCASTSS 0(SI), Y6
	VADDPS Y5, Y6, Y5                // xc = cx + nxz dz
	VBROADCASTSS 20(SI), Y6
	VMULPS Y1, Y6, Y6
	VBROADCASTSS 4(SI), Y7
	VADDPS Y6, Y7, Y6                // yc = cy + nyz dz
	VSUBPS Y3, Y5, Y7
	VROUNDPS $2, Y7, Y7
	VCVTTPS2DQ Y7, Y7
	VPMAXSD Y0, Y7, Y7               // x0 = max(ceil(xc - hx), 0)
	VADDPS Y3, Y5, Y5
	VROUNDPS $1, Y5, Y5
	VCVTTPS2DQ Y5, Y5
	VPMINSD Y12, Y5, Y5              // x1 = min(floor(xc + hx), wx)
	VSUBPS Y4, Y6, Y3
	VROUNDPS $2, Y3, Y3
	VCVTTPS2DQ Y3, Y3
	VPMAXSD Y0, Y3, Y3               // y0
	VADDPS Y4, Y6, Y6
	VROUNDPS $1, Y6, Y6
	VCVTTPS2DQ Y6, Y6
	VPMINSD Y13, Y6, Y6              // y1
	VPCMPGTD Y5, Y7, Y11             // x0 > x1
	VPCMPGTD Y6, Y3, Y4              // y0 > y1
	VPOR Y4, Y11, Y11
	VPANDN Y10, Y11, Y10             // t > 0, x0 <= x1, y0 <= y1
	VPSLLD $8, Y6, Y6
	VPOR Y6, Y3, Y3
	VPSLLD $16, Y7, Y7
	VPOR Y7, Y3, Y3
	VPSLLD $24, Y5, Y5
	VPOR Y5, Y3, Y3                  // y0 | y1<<8 | x0<<16 | x1<<24
	VBLENDVPS Y10, Y3, Y15, Y3       // else 1
	VPMASKMOVD Y3, Y8, (DI)(R9*4)
	ADDQ $8, R9
	CMPQ R9, CX
	JLT planes8

	VZEROUPPER
	RET

// airLoneAVX2's permutes: vector k of an interleaved x, y, z of eight vertices takes
// lane (p + 8k)/3 of x, y or z ((p + 8k) mod 3) at position p.
DATA airInter<>+0x00(SB)/4, $0
DATA airInter<>+0x04(SB)/4, $0
DATA airInter<>+0x08(SB)/4, $0
DATA airInter<>+0x0c(SB)/4, $1
DATA airInter<>+0x10(SB)/4, $1
DATA airInter<>+0x14(SB)/4, $1
DATA airInter<>+0x18(SB)/4, $2
DATA airInter<>+0x1c(SB)/4, $2
DATA airInter<>+0x20(SB)/4, $2
DATA airInter<>+0x24(SB)/4, $3
DATA airInter<>+0x28(SB)/4, $3
DATA airInter<>+0x2c(SB)/4, $3
DATA airInter<>+0x30(SB)/4, $4
DATA airInter<>+0x34(SB)/4, $4
DATA airInter<>+0x38(SB)/4, $4
DATA airInter<>+0x3c(SB)/4, $5
DATA airInter<>+0x40(SB)/4, $5
DATA airInter<>+0x44(SB)/4, $5
DATA airInter<>+0x48(SB)/4, $6
DATA airInter<>+0x4c(SB)/4, $6
DATA airInter<>+0x50(SB)/4, $6
DATA airInter<>+0x54(SB)/4, $7
DATA airInter<>+0x58(SB)/4, $7
DATA airInter<>+0x5c(SB)/4, $7
GLOBL airInter<>(SB), RODATA|NOPTR, $96

// the first six lanes (the last two vertices' x, y, z)
DATA airSix<>+0x00(SB)/4, $0xffffffff
DATA airSix<>+0x04(SB)/4, $0xffffffff
DATA airSix<>+0x08(SB)/4, $0xffffffff
DATA airSix<>+0x0c(SB)/4, $0xffffffff
DATA airSix<>+0x10(SB)/4, $0xffffffff
DATA airSix<>+0x14(SB)/4, $0xffffffff
DATA airSix<>+0x18(SB)/4, $0
DATA airSix<>+0x1c(SB)/4, $0
GLOBL airSix<>(SB), RODATA|NOPTR, $32

// INTER3(a, b, c, k, mb, mc) sets Y11 to vector k of the interleave of a, b and c
// (mb, mc: the lanes taking b and c); scratch Y10, Y12.
#define INTER3(a, b, c, k, mb, mc) \
	VMOVDQU airInter<>+(32*k)(SB), Y10; \
	VPERMPS a, Y10, Y11; \
	VPERMPS b, Y10, Y12; \
	VBLENDPS $mb, Y12, Y11, Y11; \
	VPERMPS c, Y10, Y12; \
	VBLENDPS $mc, Y12, Y11, Y11

// airLoneArgs: x 0, y 4, z 8, ra 12, rb 16, na 20, nb 24, u 28, 32, 36.

// func airLoneAVX2(pos, nor *float32, p *airLoneArgs, t *[3][48]float32)
//
// Registers: Y0-Y2 u, Y3 ra, Y4 rb, Y5 na, Y6 nb; a vector of vertices: Y7-Y9 the
// template's x, y, z, then the position's; Y10 ut, Y11 ra ut, Y12 na ut; Y13-Y15
// t - ut u, then the normal's.
TEXT ·airLoneAVX2(SB), NOSPLIT, $0-32
	MOVQ pos+0(FP), DI
	MOVQ nor+8(FP), SI
	MOVQ p+16(FP), DX
	MOVQ t+24(FP), CX
	VBROADCASTSS 28(DX), Y0
	VBROADCASTSS 32(DX), Y1
	VBROADCASTSS 36(DX), Y2
	VBROADCASTSS 12(DX), Y3
	VBROADCASTSS 16(DX), Y4
	VBROADCASTSS 20(DX), Y5
	VBROADCASTSS 24(DX), Y6
	XORQ R8, R8                  // the vector's first vertex

lone8:
	VMOVUPS (CX)(R8*4), Y7       // t's x
	VMOVUPS 192(CX)(R8*4), Y8    // y
	VMOVUPS 384(CX)(R8*4), Y9    // z
	VMULPS Y7, Y0, Y10
	VMULPS Y8, Y1, Y11
	VADDPS Y11, Y10, Y10
	VMULPS Y9, Y2, Y11
	VADDPS Y11, Y10, Y10         // ut = u0 t0 + u1 t1 + u2 t2
	VMULPS Y10, Y0, Y13
	VSUBPS Y13, Y7, Y13          // t0 - ut u0
	VMULPS Y10, Y1, Y14
	VSUBPS Y14, Y8, Y14
	VMULPS Y10, Y2, Y15
	VSUBPS Y15, Y9, Y15
	VMULPS Y10, Y3, Y11          // ra ut
	VMULPS Y10, Y5, Y12          // na ut
	// The position: x + ra ut u0 + rb (t0 - ut u0), and so on.
	VMULPS Y0, Y11, Y10
	VBROADCASTSS 0(DX), Y7
	VADDPS Y10, Y7, Y7
	VMULPS Y13, Y4, Y10
	VADDPS Y10, Y7, Y7
	VMULPS Y1, Y11, Y10
	VBROADCASTSS 4(DX), Y8
	VADDPS Y10, Y8, Y8
	VMULPS Y14, Y4, Y10
	VADDPS Y10, Y8, Y8
	VMULPS Y2, Y11, Y10
	VBROADCASTSS 8(DX), Y9
	VADDPS Y10, Y9, Y9
	VMULPS Y15, Y4, Y10
	VADDPS Y10, Y9, Y9
	// The normal: na ut u0 + nb (t0 - ut u0), and so on, over its length.
	VMULPS Y0, Y12, Y10
	VMULPS Y13, Y6, Y13
	VADDPS Y13, Y10, Y13
	VMULPS Y1, Y12, Y10
	VMULPS Y14, Y6, Y14
	VADDPS Y14, Y10, Y14
	VMULPS Y2, Y12, Y10
	VMULPS Y15, Y6, Y15
	VADDPS Y15, Y10, Y15
	VMULPS Y13, Y13, Y10
	VMULPS Y14, Y14, Y11
	VADDPS Y11, Y10, Y10
	VMULPS Y15, Y15, Y11
	VADDPS Y11, Y10, Y10
	VSQRTPS Y10, Y10
	VBROADCASTSS airOne<>(SB), Y11
	VDIVPS Y10, Y11, Y10         // 1 / length
	VMULPS Y10, Y13, Y13
	VMULPS Y10, Y14, Y14
	VMULPS Y10, Y15, Y15
	// Three vectors of x, y, z, interleaved, each.
	LEAQ (R8)(R8*2), R9          // 3 x the first vertex
	CMPQ R8, $40
	JEQ last
	INTER3(Y7, Y8, Y9, 0, 0x92, 0x24)
	VMOVUPS Y11, (DI)(R9*4)
	INTER3(Y7, Y8, Y9, 1, 0x24, 0x49)
	VMOVUPS Y11, 32(DI)(R9*4)
	INTER3(Y7, Y8, Y9, 2, 0x49, 0x92)
	VMOVUPS Y11, 64(DI)(R9*4)
	INTER3(Y13, Y14, Y15, 0, 0x92, 0x24)
	VMOVUPS Y11, (SI)(R9*4)
	INTER3(Y13, Y14, Y15, 1, 0x24, 0x49)
	VMOVUPS Y11, 32(SI)(R9*4)
	INTER3(Y13, Y14, Y15, 2, 0x49, 0x92)
	VMOVUPS Y11, 64(SI)(R9*4)
	ADDQ $8, R8
	JMP lone8

last:
	// Vertices 40 and 41: six values each.
	INTER3(Y7, Y8, Y9, 0, 0x92, 0x24)
	VMOVDQU airSix<>(SB), Y7
	VMASKMOVPS Y11, Y7, (DI)(R9*4)
	INTER3(Y13, Y14, Y15, 0, 0x92, 0x24)
	VMASKMOVPS Y11, Y7, (SI)(R9*4)
	VZEROUPPER
	RET
