//go:build !purego

#include "textflag.h"

// addFootsSSE: addFootsGo (foot6.go) in SSE2. The weights (float64) have the x axis in
// the low lane of a register and the y axis in the high one; the sums (float32) take four
// then two columns of a row. Every operation is the IEEE operation Go's code does, on
// the same operands, without fusing: the same bits.

// the constants, each in both lanes
DATA k6<>+0x00(SB)/8, $0x3ff921fb54442d18 // pi/2
DATA k6<>+0x08(SB)/8, $0x3ff921fb54442d18
DATA k6<>+0x10(SB)/8, $0xbfe0000000000000 // -1/2
DATA k6<>+0x18(SB)/8, $0xbfe0000000000000
DATA k6<>+0x20(SB)/8, $0x3fa5555555555555 // 1/24
DATA k6<>+0x28(SB)/8, $0x3fa5555555555555
DATA k6<>+0x30(SB)/8, $0xbf56c16c16c16c17 // -1/720
DATA k6<>+0x38(SB)/8, $0xbf56c16c16c16c17
DATA k6<>+0x40(SB)/8, $0x3efa01a01a01a01a // 1/40320
DATA k6<>+0x48(SB)/8, $0x3efa01a01a01a01a
DATA k6<>+0x50(SB)/8, $0xbe927e4fb7789f5c // -1/3628800
DATA k6<>+0x58(SB)/8, $0xbe927e4fb7789f5c
DATA k6<>+0x60(SB)/8, $0x3e21eed8eff8d898 // 1/479001600
DATA k6<>+0x68(SB)/8, $0x3e21eed8eff8d898
DATA k6<>+0x70(SB)/8, $0x3ff0000000000000 // 1
DATA k6<>+0x78(SB)/8, $0x3ff0000000000000
DATA k6<>+0x80(SB)/8, $0x4000000000000000 // 2
DATA k6<>+0x88(SB)/8, $0x4000000000000000
DATA k6<>+0x90(SB)/8, $0x3fe0000000000000 // 0.5
DATA k6<>+0x98(SB)/8, $0x3fe0000000000000
GLOBL k6<>(SB), RODATA|NOPTR, $160

// BC loads the constant at off into reg.
#define BC(off, reg) MOVUPD k6<>+off(SB), reg

// POLY2 sets X0 to kernelPoly(X0) and X3 to kernelPoly(X3), lanewise, the two
// interleaved (kernel.go: Estrin's scheme). Scratch: X4 .. X15 but X2.
#define POLY2 \
	BC(0x00, X14); MULPD X14, X0; MULPD X14, X3; \
	MULPD X0, X0; MULPD X3, X3;                         /* x2 */ \
	MOVAPD X0, X5; MULPD X5, X5; MOVAPD X3, X10; MULPD X10, X10; /* x4 */ \
	MOVAPD X5, X6; MULPD X6, X6; MOVAPD X10, X11; MULPD X11, X11; /* x8 */ \
	BC(0x10, X7); BC(0x10, X12); BC(0x70, X15); \
	MULPD X0, X7; ADDPD X15, X7; \
	MULPD X3, X12; ADDPD X15, X12;                     /* p0 = x2 (-1/2) + 1 */ \
	BC(0x30, X8); BC(0x30, X13); BC(0x20, X15); \
	MULPD X0, X8; ADDPD X15, X8; \
	MULPD X3, X13; ADDPD X15, X13;                     /* p1 = x2 (-1/720) + 1/24 */ \
	BC(0x50, X4); BC(0x50, X9); BC(0x40, X15); \
	MULPD X0, X4; ADDPD X15, X4; \
	MULPD X3, X9; ADDPD X15, X9;                       /* p2 = x2 (-1/3628800) + 1/40320 */ \
	BC(0x60, X14); BC(0x60, X15); \
	MULPD X5, X15; ADDPD X15, X4; \
	MULPD X10, X14; ADDPD X14, X9;                     /* p2 = x4 (1/479001600) + p2 */ \
	MULPD X5, X8; ADDPD X7, X8; \
	MULPD X10, X13; ADDPD X12, X13;                    /* c = x4 p1 + p0 */ \
	MULPD X6, X4; ADDPD X4, X8; \
	MULPD X11, X9; ADDPD X9, X13;                      /* c = x8 p2 + c */ \
	MULPD X8, X8; MOVAPD X8, X0; \
	MULPD X13, X13; MOVAPD X13, X3                     /* c c */

// ROW(q, wj) adds row q of the job at SI: dst[offs[q] + k] += wj * wx[k], wj in every
// lane of wj, wx[0..3] in X8, wx[4..5] in X9.
#define ROW(q, wj) \
	MOVLQSX (52+4*q)(SI), R8; \
	LEAQ (DI)(R8*4), R8; \
	MOVAPS X8, X12; MULPS wj, X12; MOVUPS (R8), X13; ADDPS X12, X13; MOVUPS X13, (R8); \
	MOVAPS X9, X12; MULPS wj, X12; MOVSD 16(R8), X13; ADDPS X12, X13; MOVSD X13, 16(R8)

// func addFootsSSE(dst *float32, jobs *foot6, n int)
TEXT ·addFootsSSE(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ jobs+8(FP), SI
	MOVQ n+16(FP), CX
job:
	CMPQ CX, $0
	JLE done
	MOVSD 0(SI), X0
	MOVHPD 8(SI), X0      // u0 = [ux, uy] (two loads: each can take its value from the store that wrote it)
	MOVSD 16(SI), X1
	UNPCKLPD X1, X1       // [s, s]
	MOVAPD X0, X3
	ADDPD X1, X3          // u1 = u0 + s
	POLY2                 // X0 = k0, X3 = k1
	BC(0x80, X6)          // 2
	BC(0x70, X7)          // 1
	CVTPD2PS X0, X8       // w0 = [wx0, wy0]
	CVTPD2PS X3, X9       // w1
	MULPD X6, X0
	SUBPD X7, X0          // c0 = 2 k0 - 1
	MULPD X6, X3
	SUBPD X7, X3          // c1 = 2 k1 - 1
	MOVSD 24(SI), X1
	UNPCKLPD X1, X1       // T = 2 cos(pi s)
	MOVSD 32(SI), X2
	UNPCKLPD X2, X2       // T2 = 2 cos(2 pi s)
	MOVAPD X3, X4; MULPD X1, X4; SUBPD X0, X4   // c2 = T c1 - c0
	MOVAPD X4, X5; MULPD X1, X5; SUBPD X3, X5   // c3 = T c2 - c1
	MOVAPD X4, X6; MULPD X2, X6; SUBPD X0, X6   // c4 = T2 c2 - c0
	MOVAPD X5, X7; MULPD X2, X7; SUBPD X3, X7   // c5 = T2 c3 - c1
	BC(0x90, X1)          // 0.5
	MULPD X1, X4; ADDPD X1, X4; CVTPD2PS X4, X10  // w2 = 0.5 + 0.5 c2
	MULPD X1, X5; ADDPD X1, X5; CVTPD2PS X5, X11  // w3
	MULPD X1, X6; ADDPD X1, X6; CVTPD2PS X6, X12  // w4
	MULPD X1, X7; ADDPD X1, X7; CVTPD2PS X7, X13  // w5
	// X8 = [wx0 wx1 wx2 wx3], X7 = [wy0 wy1 wy2 wy3], X9 = [wx4 wx5 ..], X6 = [wy4 wy5 0 0]
	UNPCKLPS X9, X8       // [wx0 wx1 wy0 wy1]
	UNPCKLPS X11, X10     // [wx2 wx3 wy2 wy3]
	MOVAPS X10, X7
	MOVHLPS X8, X7        // [wy0 wy1 wy2 wy3]
	MOVLHPS X10, X8       // [wx0 wx1 wx2 wx3]
	UNPCKLPS X13, X12     // [wx4 wx5 wy4 wy5]
	MOVAPS X12, X9
	XORPS X6, X6          // (no stray bits in the unused lanes)
	MOVHLPS X12, X6       // [wy4 wy5 0 0]
	MOVSS 40(SI), X0      // a
	SHUFPS $0, X0, X0
	MULPS X0, X7          // wy a
	MULPS X0, X6
	MOVLQSX 44(SI), AX    // r0
	MOVLQSX 48(SI), BX    // r1
	CMPQ AX, $0
	JNE row1
	MOVAPS X7, X1; SHUFPS $0x00, X1, X1
	ROW(0, X1)
row1:
	CMPQ AX, $1
	JGT row2
	CMPQ BX, $1
	JLE next
	MOVAPS X7, X1; SHUFPS $0x55, X1, X1
	ROW(1, X1)
row2:
	CMPQ AX, $2
	JGT row3
	CMPQ BX, $2
	JLE next
	MOVAPS X7, X1; SHUFPS $0xaa, X1, X1
	ROW(2, X1)
row3:
	CMPQ AX, $3
	JGT row4
	CMPQ BX, $3
	JLE next
	MOVAPS X7, X1; SHUFPS $0xff, X1, X1
	ROW(3, X1)
row4:
	CMPQ AX, $4
	JGT row5
	CMPQ BX, $4
	JLE next
	MOVAPS X6, X1; SHUFPS $0x00, X1, X1
	ROW(4, X1)
row5:
	CMPQ BX, $5
	JLE next
	MOVAPS X6, X1; SHUFPS $0x55, X1, X1
	ROW(5, X1)
next:
	ADDQ $80, SI
	DECQ CX
	JMP job
done:
	RET
