// vp_args.h: the argument blocks of vpbench's kernels. Each kernel takes one block by
// value. This file is the source of their Go twins: go generate ./gpusim/kernels/ (its
// internal/argsgen) writes args_gen.go, a Go struct per struct here, field for field
// (pointers are 64-bit device addresses there) with these comments, and
// vp_args_layout.h; the tests check that both are up to date and that the Go structs
// and the C compiler agree on every size and offset (docs/cuda.md, "Kernel arguments").
//
// argsgen reads a subset of C: typedef struct VPName { ... } VPName; whose fields are
// scalars (float, double, int32_t, uint64_t, ...) or pointers, and comments. Comment
// lines between fields go into the Go struct there, a comment after a field's ';' beside
// it, those just above a typedef into the Go type's doc. Go names are the C names with
// the first letter upper-cased (a struct VPName is NameArgs); a /* go:Name */ comment
// right after a name gives it another.
//
// Order: pointers, then doubles, then floats, then ints, so that no padding depends on
// the compiler (argsgen refuses a field that would need padding before it).
#ifndef VP_ARGS_H
#define VP_ARGS_H

// VPStep: the per-step kernels of both layouts. Column arrays have n entries.
typedef struct VPStep {
	float *h, *r, *k, *s;        // state: height, residual; scaling factors K and S
	const float *base, *top;     // the columns' base and max
	// general layout: per-column pipe lists (topology.adj*), fluxes per pipe
	const int *adjStart, *adjPipe, *adjOther;
	const float *adjSign;
	const unsigned char *adjDir; // the side of its column each entry's other end lies on (topology.adjDir)
	float *f, *raw;              // final flux (the state) and raw flux of this step
	// dense layout: +x flux of column i at [i+1], +y flux at [i+nx] (see kernels_dense.go)
	float *fx, *fy, *rx, *ry;
	// extended pipes: per-column sums of raw outflow, raw inflow and final net outflow
	const float *extOut, *extIn, *extNet;
	const unsigned char *capped; // columns a solid caps (can be full)
	unsigned char *full;         // their full flags
	int *flips;                  // count of full flags that flipped
	int *halt;                   // see vp_halted (vpbench.cu)
	// the capillary head (capillary.go): the heights the raw fluxes read (h itself with
	// surface tension off, else h + X), and a smoothing pass's input and output
	float *hd;
	const float *capIn;
	float *capOut;
	float *capPrev;              // each column's height at the last pass (the ripple damping)
	unsigned char *capWet;       // the wetted flags (contactline.go) the pass reads
	unsigned char *capWetNext;   // and those it writes (vp_cap_wet copies them back)
	double dtOverDx2d;
	float zeta, accel, visc3, dxf, dtOverDx2, dx2OverDt, fullTol;
	float wet, dryDepth;         // the contact-line law (vp_wetting); wet = 0: off
	float capRecede, capCoef;    // the receding head h_r and l_c^2/dx^2
	float capCorner;             // the receding line's corner margin (capRecedeHead)
	float capDamp;               // the ripple damping's head per m^3/s of net outflow
	float capRippleDx;           // the SWE's: dx, its damping times dx/d deeper than a cell (capRipple); 0: the pipes
	// the contact angle at the line (capangle.go): dx tan(theta_r), dx tan(theta_a),
	// (dx/2) tan(theta_a) and dx; capDropA = 0: off
	float capDropR, capDropA, capAdvance, capDx;
	int film, n, nx, ny, ext;    // ext: extended pipes act (sums and full flags)
	int step;                    // the step's index in the host's launch sequence
	int capFresh;                // 1: capPrev is not the last pass's (take no rise)
	int capMark;                 // the wetted flag a wet column takes (capParams.mark)
} VPStep;

// VPEmit: sources and sinks, one thread per target (or one thread for all, serial = 1,
// when two targets share a column).
typedef struct VPEmit {
	float *h, *r;
	const float *base, *top;
	const int *tCol, *tEm;       // per target: its column and its emitter
	const double *tWeight;       // per target: its share of the emitter's rate
	const double *rate, *start, *stop; // per emitter
	const int *active;           // per emitter
	const int *holds;            // per emitter: 1 where it holds level[e] (Emitter.held)
	const double *level;         // per emitter: the level it holds, m
	double *acc;                 // per target: added, removed, rejected (m^3), summed over steps
	const unsigned char *capped;
	unsigned char *full;
	int *flips, *halt;
	const int *dCol;             // per open side's drain: its column (threads nt..nt+nd-1)
	const double *dCoef;         // per drain: n*sqrt(g)*dt/(2 dx); its outflow is acc[3*nt + j]
	double t, dt, dx2;
	float fullTol;
	int nt, serial, ext, step;
	int nd;                      // drains
} VPEmit;

// VPExt: extended pipes (serial: one thread, the order of the CPU's worker 0).
typedef struct VPExt {
	const float *h, *base;
	float *r;
	const float *k, *s;
	float *extOut, *extIn, *extNet;
	const int *uCol, *uStart;    // unified: openings, grouped by passage
	const float *uGap;           // per passage: its mean gap
	float *uF;                   // per opening: raw during a step, final between steps
	const int *axA, *axB;        // axis: the two ends of each pipe
	const float *axCells, *axGap;
	float *axF;
	const int *halt;
	double dtOverDx2d;
	float zeta, accel, visc3, dxf;
	int film, mode, nPass, nAxis; // mode: 1 axis, 2 unified (gpusim.ExtendedPipes)
	int step;
} VPExt;

// VPSwe: the shallow water equations' kernels (gpusim/swe.go; docs/solver.md, "The
// shallow water equations"). Column arrays interleaved by axis as sweState's: q, us, cuv
// 2 per column (x, y), sides 4 per column.
typedef struct VPSwe /* go:SWEArgs */ {
	const float *h, *hd, *base;  // heights, driving heights (h, or h + X), floors
	float *f, *raw, *d;          // per pipe: final flux (the state), raw flux, face depth
	float *q, *us, *cuv, *sides; // per column (swe.go's sweState)
	const int *adjStart, *adjPipe, *adjOther;
	const int *pipeA, *pipeB;    // per pipe: its ends
	const unsigned char *side8;  // per adjacency entry: the side its pipe leaves by
	const unsigned char *regular; // per column: the four pipes -y, -x, +x, +y (regularColumns)
	const unsigned char *axis;   // per pipe: 0 along x, 1 along y
	unsigned int *speed;         // the fastest wave, m/s, as its float's bits (atomicMax)
	const int *halt;             // see vp_halted
	float invdx, g, dtDx, gDtDx, vmax; // sweState's substep constants
	float zeta, dxf, visc3, wet, dryDepth; // the substep's element.Params
	float slip3, dryCut;         // the contact angle at the line: slip, and the depth a face gives nothing at
	float recede, corner;        // the receding head and its corner margin: a receding edge drains through the deeper end's depth (sweDrainDepth); 0: off
	int n, np, ext, step;
	int wantSpeed;               // vp_swe_columns: also the fastest wave (a step's first substep)
} VPSwe;

#endif
