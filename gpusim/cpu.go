package gpusim

import (
	"runtime"
	"sync/atomic"

	"github.com/vpbench/vpbench/gpusim/internal/rows"
	"github.com/vpbench/vpbench/internal/parallel"
)

// cpuBackend steps the method on the host. State is float32 in flat arrays; the work of
// each phase is split into contiguous ranges, one per worker, and every element (pipe or
// column) is computed from the previous phase's results alone, in a fixed order, so the
// result does not depend on the number of workers.
//
// One step is five phases separated by barriers:
//
//	flux     per pipe:   raw = zeta*f + accel*(h_a - h_b), then viscosity (upwind depth)
//	outflow  per column: K = min(1, (h-b)*dx^2 / (dt * sum of raw outflows))
//	inflow   per column that may overflow: S from the inflows scaled by their sources' K
//	final    per pipe:   f = raw*K[from]*S[to]
//	heights  per column: h += dt/dx^2 * sum of final fluxes
//
// Two layouts share the arithmetic of internal/element: the general one (kernels_csr.go)
// walks per-column pipe lists, serves any multi-layer terrain and runs the five phases
// above; the dense one (kernels_dense.go) serves terrains with exactly one column per
// cell, all joined, finds neighbours by index arithmetic and runs all five phases in one
// pipelined sweep over rows (one barrier a step), with vectorized row kernels
// (internal/rows). Both sum a column's pipes in the same order (-y, -x, +x, +y), so they
// give the same bits.
//
// The state is the absolute height h, not the depth: liquid at rest has equal h in every
// column, so its head differences, and so its fluxes, are exactly zero.
type cpuBackend struct {
	topo *topology
	base []float32 // the floors: the terrain's Base, or the backend's own copy once a body lifts one (ownBase)
	// ownBase: base is this backend's copy (liftFloors), not the shared Columns.Base.
	ownBase bool
	top     []float32 // max: the highest a column's liquid may reach
	h       []float32 // absolute liquid heights, m: the state
	// r is each column's height-update rounding error, carried into its next update
	// (compensated summation), m. In steady flow a column's small net change would round
	// the same way every step, and columns at different heights round differently, which
	// creates or destroys volume steadily; with r carried, sum(h - b + r) is kept to the
	// rounding of the flux sums alone.
	r    []float32
	k, s []float32 // outflow and inflow scaling per column (general layout)
	// f is each pipe's flux in the general layout, in topology order: raw after the flux
	// phase, scaled (the state carried between steps) after the final phase.
	f     []float32
	dense *denseGrid // the fluxes of the dense layout, instead of f
	// skip records the general layout's still units (csrskip.go); noSkip computes them all.
	skip   *csrSkip
	noSkip bool
	capSt  capState  // the capillary head's driving heights (capillary.go), with surface tension
	swe    *sweState // the shallow water equations' velocities (swe.go); nil for the pipes
	ext    *extended // extended pipes (general layout only); nil when no passage can form
	p      stepParams
	rows   rows.Kernels // the AVX2 row kernels or their Go twins, chosen at construction
	nw     int
	ranges [][2]int  // per worker: the columns (general) or rows (dense) it owns
	pipes  [][2]int  // per worker: its pipes (general layout)
	flag   [][]int32 // per worker: columns that may need inflow scaling this step (general)
	// regular marks the columns the vector kernels take in runs (kernels_csr.go); runs
	// cuts each worker's columns into them (nil with the Go kernels), csrBuf and csrMask
	// are each worker's gathered fluxes and flag bits (general layout).
	regular    []bool
	strided    []bool // the first column of each group of a vector run whose pipes are strided (kernels_csr.go)
	pairAt     []int8 // per pipe: where a paired group of a worker's pipes starts (markPaired)
	runs       [][]csrRun
	csrBuf     [][]float32
	csrMask    [][]uint8
	csrFluxBuf [][]float32    // per worker: a chunk of pipes' ends' heights (csrFlux), or K and S (csrFinal)
	capRuns    [][]capStretch // per worker: the stretches its capillary head takes through the row kernel (capruns.go)
	// hold marks the held columns and the free ones beside them (held.go: markHeld,
	// markBorder; general layout only); nil when none is held.
	hold []uint8
	// pipeBase holds the floors of each pipe's ends a and b, in pipe order, for the
	// vector flux phase: fixed with the terrain, so read, not gathered, every step.
	pipeBase [2][]float32
	bar      barrier
	pool     *parallel.Pool
	// jobSteps is the step count of the job in flight; runJob, bound once, runs a
	// worker's share of it (a function value made per Step would allocate).
	jobSteps int
	runJob   func(w int)
	// forN and forFn are the job of forEach, and runFor, bound once, a worker's share.
	forN   int
	forFn  func(lo, hi int)
	runFor func(w int)

	// Set by step for the workers; read only while a step runs.
	em   *emitterSet
	t    float64
	acct accounting
	outH []float32 // where the last step's heights and residuals are published
	outR []float32
}

func newCPUBackend(t *topology, workers int, mode ExtendedPipes, method Method, o backendOptions) *cpuBackend {
	n := t.cols.NumColumns()
	c := &cpuBackend{
		topo: t,
		base: t.cols.Base,
		top:  t.cols.Max,
		h:    append([]float32(nil), t.cols.Base...), // dry: h = b
		r:    make([]float32, n),
		rows: rows.New(!o.noSIMD),
	}
	// Passages need columns a solid caps; the dense layout serves terrains without any, so
	// it never needs extended pipes. Its raw fluxes, K and S live in per-worker rings of a
	// few rows (kernels_dense.go), not in full-size arrays.
	c.ext = newExtended(t, mode)
	if c.ext == nil && isDense(t) && !o.general {
		c.dense = newDenseGrid(t.cols.Nx, t.cols.Ny)
		c.dense.skip = !o.noSkip
	} else {
		c.noSkip = o.noSkip
		c.f = make([]float32, t.numPipes())
		c.k = make([]float32, n)
		c.s = make([]float32, n)
		c.regular = regularColumns(t)
	}
	if method == MethodSWE {
		c.swe = newSWEState(t)
	}
	c.setWorkers(workers)
	return c
}

func (c *cpuBackend) name() string { return "cpu" }

func (c *cpuBackend) workers() int { return c.nw }

// setWorkers (re)starts the worker pool with n workers (0 = all cores).
func (c *cpuBackend) setWorkers(n int) {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if n == c.nw {
		return
	}
	c.close()
	c.nw = n
	if c.dense != nil {
		c.ranges = split(c.dense.ny, n)
		c.dense.setWorkers(c.ranges)
	} else {
		c.ranges = split(len(c.h), n)
		// Each worker's pipes are the ones its columns own, so that a unit's are its
		// worker's too (csrskip.go).
		ps := pipeStarts(c.topo, len(c.h))
		c.pipes = make([][2]int, n)
		for w, r := range c.ranges {
			c.pipes[w] = [2]int{int(ps[r[0]]), int(ps[r[1]])}
		}
		c.flag = make([][]int32, n)
		c.runs, c.csrBuf, c.csrMask, c.csrFluxBuf, c.capRuns = nil, make([][]float32, n), make([][]uint8, n), nil, nil
		if c.rows.Vector() {
			c.runs, c.csrFluxBuf, c.capRuns = make([][]csrRun, n), make([][]float32, n), make([][]capStretch, n)
			if c.pipeBase[0] == nil {
				c.pipeBase = [2][]float32{make([]float32, len(c.f)), make([]float32, len(c.f))}
				for p, a := range c.topo.pipeA {
					c.pipeBase[0][p], c.pipeBase[1][p] = c.base[a], c.base[c.topo.pipeB[p]]
				}
			}
		}
		widest := 0
		for _, r := range c.ranges {
			widest = max(widest, r[1]-r[0])
		}
		for w, r := range c.ranges {
			// In a step that leaves dry ground alone a worker may take other workers'
			// columns (csrskip.go): its flag list may hold all, and its gather buffers
			// hold the widest worker's columns (a call takes one worker's at a time).
			c.flag[w] = make([]int32, 0, len(c.h))
			if c.rows.Vector() {
				groups := (widest + 7) / 8
				c.csrBuf[w], c.csrMask[w] = make([]float32, 8*rows.CSRMaxStreams*groups), make([]uint8, groups)
				c.runs[w] = c.csrRuns(r[0], r[1])
				c.capRuns[w] = c.capStretches(r[0], r[1])
				c.markStrided(r[0], c.runs[w])
				c.markPaired(c.pipes[w][0], c.pipes[w][1])
				c.csrFluxBuf[w] = make([]float32, 4*fluxChunk)
			}
		}
		c.buildSkip(ps, !c.noSkip)
	}
	if c.ext != nil {
		c.ext.setWorkers(n)
	}
	if c.swe != nil {
		c.swe.speed = make([]float32, n)
	}
	c.bar = barrier{n: int32(n)}
	c.pool = parallel.New(n)
	if c.runJob == nil {
		c.runJob = func(w int) { c.run(w, c.jobSteps) }
		c.runFor = func(w int) {
			if lo, hi := c.forN*w/c.nw, c.forN*(w+1)/c.nw; lo < hi {
				c.forFn(lo, hi)
			}
		}
	}
}

// close stops the pool's goroutines.
func (c *cpuBackend) close() {
	if c.pool != nil {
		c.pool.Stop()
		c.pool = nil
	}
	c.nw = 0
}

// split cuts [0, n) into w contiguous ranges of near-equal size.
func split(n, w int) [][2]int {
	r := make([][2]int, w)
	for i := range w {
		r[i] = [2]int{n * i / w, n * (i + 1) / w}
	}
	return r
}

func (c *cpuBackend) setParams(p stepParams) {
	was := c.p
	if c.swe != nil {
		was = c.swe.full // c.p is a substep's
	}
	c.p = p
	c.stillReset()
	if c.swe != nil {
		c.swe.full, c.swe.subM = p, 0
		c.swe.g, c.swe.dx = float32(p.st.Gravity), float32(p.dx)
		c.swe.setSubsteps(1) // until the first step measures the waves
	}
	if p.cap.on && c.capSt.ensure(c.topo, &p.cap) || capRestarts(&was, &p) {
		c.capSt.fresh = true
	}
	if c.ext != nil {
		c.ext.setMode(p.extended)
	}
}

// extendedCounts returns the active extended pipes and passages.
func (c *cpuBackend) extendedCounts() (pipes, passages int) {
	if c.ext == nil {
		return 0, 0
	}
	return c.ext.counts()
}

// step advances n steps from simulated time t0 and returns what sources and sinks moved.
func (c *cpuBackend) step(n int, t0 float64, em *emitterSet, height, residual []float32) accounting {
	c.em, c.t, c.acct, c.outH, c.outR = em, t0, accounting{}, height, residual
	if c.skip != nil {
		c.skipPins(em)
	}
	if c.dense != nil && em != nil && em.any() {
		c.dense.prepareEmitters(em)
	}
	c.jobSteps = n
	c.pool.Do(c.nw, c.runJob)
	c.capSwap(n) // the capillary head's buffers the last step wrote (capillary.go)
	c.denseSwap(n)
	if c.swe != nil {
		c.p = c.swe.full // the substeps' parameters stay inside the step
	}
	if n > 0 {
		c.capSt.fresh = false // the ripple damping's rise is known from here on
	}
	c.em, c.outH, c.outR = nil, nil, nil
	return c.acct
}

// run is one worker's share of n steps. In the general layout worker 0 also applies
// sources and sinks between steps (they touch few columns; doing them serially keeps the
// accounting in one order); the dense layout applies them in the workers' sweeps.
func (c *cpuBackend) run(w, n int) {
	if c.dense != nil {
		c.runDense(w, n) // sources and sinks in the workers' sweeps (kernels_dense.go)
	} else {
		c.runGeneral(w, n)
	}
	// Publish: each worker copies its share (the last barrier made every height final).
	if c.outH == nil { // the particle phase steps one at a time and publishes itself
		return
	}
	cols := len(c.h)
	lo, hi := cols*w/c.nw, cols*(w+1)/c.nw
	copy(c.outH[lo:hi], c.h[lo:hi])
	copy(c.outR[lo:hi], c.r[lo:hi])
}

// runGeneral is one worker's share of n steps in the general layout.
func (c *cpuBackend) runGeneral(w, n int) {
	emit := c.em != nil && c.em.any()
	lo, hi := c.ranges[w][0], c.ranges[w][1]
	full := &c.p
	if c.swe != nil {
		full = &c.swe.full // c.p holds the substeps' parameters while a step runs
	}
	for k := range n {
		if c.swe != nil {
			c.sweStep(w, k == 0)
		} else {
			c.skipDead(w)
			if c.p.cap.on {
				c.capColumnsLive(w, lo, hi, k == 0 && c.capSt.fresh)
			}
			c.csrStep(w)
		}
		if emit {
			c.bar.wait()
			if w == 0 {
				c.em.apply(c.t, full.dt, full.dx2, c.h, c.r, c.base, c.top, &c.acct)
				if c.ext != nil && c.ext.mode != ExtendedOff {
					c.ext.refreshTargets(c.em, c.h)
				}
			}
		}
		if w == 0 {
			c.t += full.dt
		}
		c.bar.wait()
	}
}

func (c *cpuBackend) readHeight(dst []float32)    { copy(dst, c.h) }
func (c *cpuBackend) readResidual(dst []float32)  { copy(dst, c.r) }
func (c *cpuBackend) writeResidual(src []float32) { copy(c.r, src); c.stillReset() }

// writeHeight sets every height (Fill, SetHeights); the passages are then recomputed.
func (c *cpuBackend) writeHeight(src []float32) {
	copy(c.h, src)
	c.stillReset()
	c.capSt.fresh = true // a height set from outside is no rise of the surface
	if len(c.capSt.wet) == len(c.h) {
		markWetted(c.capSt.wet, c.h, c.base, c.p.cap.mark) // contactline.go
	}
	if c.ext != nil {
		c.ext.dirty = true
	}
}

// readFlux copies the fluxes, in topology order.
func (c *cpuBackend) readFlux(dst []float32) {
	for p := range dst {
		dst[p] = *c.flux(p)
	}
}

// writeFlux sets the fluxes, in topology order (after the heights: the SWE derives its
// velocities from both).
func (c *cpuBackend) writeFlux(src []float32) {
	for p, f := range src {
		*c.flux(p) = f
	}
	c.stillReset()
	if c.swe != nil {
		c.swe.fromFluxes(c)
	}
}

// denseFlux gives the dense layout's flux arrays (denseFluxes), when it is in use.
func (c *cpuBackend) denseFlux() (fx, fy []float32, ok bool) {
	if c.dense == nil {
		return nil, nil, false
	}
	return c.dense.fx, c.dense.fy, true
}

// flux is the slot of pipe p (topology order) in whichever layout holds it.
func (c *cpuBackend) flux(p int) *float32 {
	if c.dense != nil {
		return c.dense.pipe(int(c.topo.pipeA[p]), int(c.topo.pipeB[p]))
	}
	return &c.f[p]
}

// barrier is a reusable spinning barrier for the workers of one step loop. Phases last
// tens of microseconds, so spinning beats parking; it yields after a while so that more
// workers than cores still make progress.
type barrier struct {
	n     int32
	count atomic.Int32
	gen   atomic.Uint32
}

func (b *barrier) wait() {
	if b.n == 1 {
		return
	}
	g := b.gen.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.gen.Add(1)
		return
	}
	for i := 0; b.gen.Load() == g; i++ {
		if i > 64 {
			runtime.Gosched()
		}
	}
}

// columns hands the particle phase the state arrays themselves (hostState).
func (c *cpuBackend) columns() (h, r []float32) { return c.h, c.r }

// fluxesOf copies the final fluxes of pipes into dst (hostState).
func (c *cpuBackend) fluxesOf(pipes []int32, dst []float32) {
	for k, p := range pipes {
		dst[k] = *c.flux(int(p))
	}
}

// commit updates the full flags of changed capped columns, so that the next step
// rebuilds the passages where one flipped (hostState).
func (c *cpuBackend) commit(changed []int32) {
	c.stillColumns(changed)
	if c.ext == nil {
		return
	}
	for _, i := range changed {
		if c.ext.isCapped[i] && c.ext.updateFull(int(i), c.h[i]) {
			c.ext.flips[0]++
		}
	}
}

// forEach runs fn over [0, n) on the step's workers, a contiguous range each (hostState).
func (c *cpuBackend) forEach(n int, fn func(lo, hi int)) {
	c.forN, c.forFn = n, fn
	c.pool.Do(c.nw, c.runFor)
	c.forFn = nil
}
