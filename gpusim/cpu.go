package gpusim

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// cpuBackend steps the method on the host. State is float32 in flat arrays; the work of
// each phase is split into contiguous ranges, one per worker, and every element (pipe or
// column) is computed from the previous phase's results alone, in a fixed order, so the
// result does not depend on the number of workers.
//
// One step is four phases separated by barriers:
//
//	flux     per pipe:   raw = zeta*f + accel*(h_a - h_b), then viscosity (upwind depth)
//	outflow  per column: K = min(1, (h-b)*dx^2 / (dt * sum of raw outflows))
//	inflow   per column that may overflow: S from the inflows scaled by their sources' K
//	heights  per column: h += dt/dx^2 * sum of final fluxes raw*K[from]*S[to]
//
// Both ends of a pipe compute its final flux with the same operations in the same order,
// so they agree bit for bit and volume leaves one column exactly as it enters the other.
//
// The state is the absolute height h, not the depth: liquid at rest has equal h in every
// column, so its head differences, and so its fluxes, are exactly zero.
type cpuBackend struct {
	topo *topology
	base []float32
	top  []float32 // max: the highest a column's liquid may reach
	h    []float32 // absolute liquid heights, m: the state
	// r is each column's height-update rounding error, carried into its next update
	// (compensated summation), m. In steady flow a column's small net change would round
	// the same way every step, and columns at different heights round differently, which
	// creates or destroys volume steadily; with r carried, sum(h - b + r) is kept to the
	// rounding of the flux sums alone.
	r []float32
	// The state carried between steps is the final (scaled) flux of each pipe,
	// raw*K[from]*S[to]. It is kept factored, as raw, K and S, and multiplied out where it
	// is read (finalFlux): storing it would cost a pass or a branch per pipe.
	raw []float32 // fluxes after the flux phase, before scaling
	k   []float32 // outflow scaling per column
	s   []float32 // inflow scaling per column

	p stepParams

	nw        int
	colRange  [][2]int
	flagged   [][]int32 // per worker: columns that may need inflow scaling this step
	pipeRange [][2]int
	bar       barrier
	start     []chan int
	done      sync.WaitGroup

	// Set by step for the workers; read only while a step runs.
	em   *emitterSet
	t    float64
	acct accounting
}

// stepParams are the per-step constants derived from the settings, in float32 as the
// kernels use them.
type stepParams struct {
	dt, dx         float64
	zeta           float32 // omega^dt
	accel          float32 // dt*g*A/(l*(A's depth factor)): dt*g*dx (paper) or dt*g (film, times min(H, dx))
	visc3          float32 // 3*dt*nu; 0 = inviscid
	film           bool
	dtOverDx2      float32
	dx2OverDt      float32
	dxf            float32
	dx2            float64
	extendedActive bool
}

// accounting is the volume that sources and sinks moved, m^3.
type accounting struct {
	added, removed, rejected float64
}

func newCPUBackend(t *topology, workers int) *cpuBackend {
	n := t.cols.NumColumns()
	np := t.numPipes()
	c := &cpuBackend{
		topo: t,
		base: t.cols.Base,
		top:  t.cols.Max,
		h:    append([]float32(nil), t.cols.Base...), // dry: h = b
		r:    make([]float32, n),
		raw:  make([]float32, np),
		k:    make([]float32, n),
		s:    make([]float32, n),
	}
	for i := range n {
		c.k[i], c.s[i] = 1, 1
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
	c.colRange = split(len(c.h), n)
	c.flagged = make([][]int32, n)
	for w, r := range c.colRange {
		c.flagged[w] = make([]int32, 0, r[1]-r[0])
	}
	c.pipeRange = split(len(c.raw), n)
	c.bar = barrier{n: int32(n)}
	c.start = make([]chan int, n)
	for w := 1; w < n; w++ {
		ch := make(chan int)
		c.start[w] = ch
		go func(w int) {
			for steps := range ch {
				c.run(w, steps)
				c.done.Done()
			}
		}(w)
	}
}

// close stops the pool's goroutines.
func (c *cpuBackend) close() {
	for w := 1; w < len(c.start); w++ {
		close(c.start[w])
	}
	c.start = nil
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

func (c *cpuBackend) setParams(p stepParams) { c.p = p }

// step advances n steps from simulated time t0 and returns what sources and sinks moved.
func (c *cpuBackend) step(n int, t0 float64, em *emitterSet) accounting {
	c.em, c.t, c.acct = em, t0, accounting{}
	c.done.Add(c.nw - 1)
	for w := 1; w < c.nw; w++ {
		c.start[w] <- n
	}
	c.run(0, n)
	c.done.Wait()
	c.em = nil
	return c.acct
}

// run is one worker's share of n steps. Worker 0 also applies sources and sinks between
// steps (they touch few columns; doing them serially keeps the accounting in one order).
func (c *cpuBackend) run(w, n int) {
	cr, pr := c.colRange[w], c.pipeRange[w]
	emit := c.em != nil && c.em.any()
	for range n {
		c.fluxPhase(pr[0], pr[1])
		c.bar.wait()
		c.outflowPhase(w, cr[0], cr[1])
		c.bar.wait()
		c.inflowPhase(w)
		c.bar.wait()
		c.heightPhase(cr[0], cr[1])
		if emit {
			c.bar.wait()
			if w == 0 {
				c.em.apply(c.t, c.p.dt, c.p.dx2, c.h, c.base, c.top, &c.acct)
			}
		}
		if w == 0 {
			c.t += c.p.dt
		}
		c.bar.wait()
	}
}

// upwind returns a when x >= 0 and b otherwise, without a branch: flux signs are
// unpredictable and a mispredicted branch costs more than these integer operations. (For
// x == 0 either choice gives the same result: the flux is zero.)
func upwind(x, a, b float32) float32 {
	mask := ^uint32(int32(math.Float32bits(x)) >> 31) // all ones when x's sign bit is clear
	ba, bb := math.Float32bits(a), math.Float32bits(b)
	return math.Float32frombits(bb ^ ((ba ^ bb) & mask))
}

// fluxPhase: METHOD.md steps 2 and 3 for pipes [lo, hi).
func (c *cpuBackend) fluxPhase(lo, hi int) {
	pa, pb := c.topo.pipeA[lo:hi], c.topo.pipeB[lo:hi]
	raw := c.raw[lo:hi]
	pb = pb[:len(pa)]
	raw = raw[:len(pa)]
	base, h, kk, ss := c.base, c.h, c.k, c.s
	zeta, accel, visc3, dx := c.p.zeta, c.p.accel, c.p.visc3, c.p.dxf
	film := c.p.film
	for k, a := range pa {
		b := pb[k]
		ha, hb := h[a], h[b]
		dh := ha - hb
		da, db := ha-base[a], hb-base[b]
		acc := accel
		if film { // predictable: the same for every pipe
			// A = dx*min(H, dx) with H upwind along the head difference.
			acc *= min(upwind(dh, da, db), dx)
		}
		f := zeta*finalFlux(raw[k], kk[a], kk[b], ss[a], ss[b]) + acc*dh
		if visc3 > 0 {
			// gamma = H^2/(H^2 + 3 dt nu), H the depth the flux comes from; H = 0 gives 0.
			u := upwind(f, da, db)
			u2 := u * u
			f *= u2 / (u2 + visc3)
		}
		raw[k] = f
	}
}

// In the column phases, u = raw*sign is a pipe's flux seen from column i: > 0 leaves i.

// outflowPhase: outflow scaling factor K for columns [lo, hi) (Mei et al.), and the
// columns that may need inflow scaling. The inflow sum before outflow scaling bounds the
// one after it (K <= 1, and float rounding is monotone), so a column that this bound
// cannot overflow gets S = 1, exactly what inflowPhase would compute; the others are
// listed for inflowPhase. Inflow scaling rarely binds, so this saves a pass.
func (c *cpuBackend) outflowPhase(w, lo, hi int) {
	as, ap, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjSign
	raw, h, base, top, kk, ss := c.raw, c.h, c.base, c.top, c.k, c.s
	dx2OverDt, dtOverDx2 := c.p.dx2OverDt, c.p.dtOverDx2
	flagged := c.flagged[w][:0]
	for i := lo; i < hi; i++ {
		var out, in float32
		for e := as[i]; e < as[i+1]; e++ {
			u := raw[ap[e]] * sg[e]
			out += max(u, 0)
			in += min(u, 0)
		}
		k := float32(1)
		if lim := (h[i] - base[i]) * dx2OverDt; lim < out {
			k = lim / out
		}
		kk[i] = k
		ss[i] = 1
		if h[i]-in*dtOverDx2-top[i] > 0 {
			flagged = append(flagged, int32(i))
		}
	}
	c.flagged[w] = flagged
}

// inflowPhase: inflow scaling factor S (Kellomaki) for the columns outflowPhase listed,
// from the inflows already scaled by the outflow factor of the column each comes from.
func (c *cpuBackend) inflowPhase(w int) {
	as, ap, ao, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjOther, c.topo.adjSign
	raw, h, top, kk, ss := c.raw, c.h, c.top, c.k, c.s
	dtOverDx2 := c.p.dtOverDx2
	for _, i := range c.flagged[w] {
		var in float32 // <= 0
		for e := as[i]; e < as[i+1]; e++ {
			in += min(raw[ap[e]]*sg[e], 0) * kk[ao[e]]
		}
		s := float32(1)
		total := -in * dtOverDx2
		if over := h[i] + total - top[i]; over > 0 {
			s = max((total-over)/total, 0)
		}
		ss[i] = s
	}
}

// finalFlux is a pipe's flux after scaling, raw*K[from]*S[to], from the view of end i
// (other end o): u = raw*sign(i). One of the two terms is zero and the other is the same
// product at both ends up to its sign (negation is exact), so both ends, and the flux
// phase of the next step, agree bit for bit.
func finalFlux(u, ki, ko, si, so float32) float32 {
	return max(u, 0)*ki*so + min(u, 0)*ko*si
}

// heightPhase: the height update for columns [lo, hi).
func (c *cpuBackend) heightPhase(lo, hi int) {
	as, ap, ao, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjOther, c.topo.adjSign
	raw, h, res, base, top, kk, ss := c.raw, c.h, c.r, c.base, c.top, c.k, c.s
	dtOverDx2 := c.p.dtOverDx2
	for i := lo; i < hi; i++ {
		var out float32
		ki, si := kk[i], ss[i]
		for e := as[i]; e < as[i+1]; e++ {
			o := ao[e]
			out += finalFlux(raw[ap[e]]*sg[e], ki, kk[o], si, ss[o])
		}
		// TwoSum: nh + e == hi + x exactly.
		hi, x := h[i], res[i]-out*dtOverDx2
		nh := hi + x
		xv := nh - hi
		e := (hi - (nh - xv)) + (x - xv)
		// The scaling keeps b <= h <= max in exact arithmetic; a clamp only takes back a
		// rounding, and what it takes stays in the residual.
		ch := min(max(nh, base[i]), top[i])
		h[i] = ch
		res[i] = e + (nh - ch)
	}
}

func (c *cpuBackend) readHeight(dst []float32)   { copy(dst, c.h) }
func (c *cpuBackend) readResidual(dst []float32) { copy(dst, c.r) }
func (c *cpuBackend) writeHeight(src []float32)  { copy(c.h, src) }

// readFlux multiplies out the final fluxes.
func (c *cpuBackend) readFlux(dst []float32) {
	for p, r := range c.raw {
		a, b := c.topo.pipeA[p], c.topo.pipeB[p]
		dst[p] = finalFlux(r, c.k[a], c.k[b], c.s[a], c.s[b])
	}
}

// writeFlux sets the final fluxes: raw = f with K = S = 1 everywhere, which multiplies out
// to the same fluxes.
func (c *cpuBackend) writeFlux(src []float32) {
	copy(c.raw, src)
	for i := range c.k {
		c.k[i], c.s[i] = 1, 1
	}
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
