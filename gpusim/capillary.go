package gpusim

import (
	"math"
	"slices"

	"github.com/vpbench/vpbench/gpusim/internal/rows"
)

// The capillary head (docs/method.md, "Surface tension"; docs/solver.md, "The capillary
// head"). With surface tension on, every wet column adds a head X to its height where the
// pipes' flux update reads it (and only there: the outflow and inflow scaling, the height
// update and the volume read the liquid's true height):
//
//	X = -l_c^2 * lap(s)                    capillary pressure, sigma*kappa/(rho g)
//	  + max(h_r - c - d, 0) on a receding edge  the contact line recedes (c: corner
//	    first, capRecedeHead: + c at a corner of the line)
//	  + beta * rise / dt off the edge        ripples die (capRipple, below)
//	X >= -d/2                               suction never empties a column by itself
//
// and a dry column all of whose neighbours are wet reads b + 2 microns (capDryHead: a hole
// one cell wide closes).
//
// lap is the graph Laplacian over the column's wet neighbours (a dry or missing neighbour
// counts as level with it: the contact line is the wetting law's), divided by dx^2; s is
// the liquid's surface smoothed by `passes` passes of the wet graph's binomial filter,
// passes the fewest that keep the step's linear stability bound at the current dt
// (capillaryPasses: 0 where the explicit term is stable). A receding edge is a wet column
// thinner than the receding wetting head h_r with a dry neighbour whose floor is below
// its surface: its head then reads h_r, so its liquid drains back into a puddle thinner
// than h_r and the puddle contracts until it is h_r thick (and spreads, by the wetting
// law, while it is thicker than the advancing head h_a >= h_r).
//
// The raw flux kernels read the driving height h + X (in an array of its own) in place of
// h, so that they are the same kernels with the law on and off; their depths (h + X) - b
// are the column's depth plus X, which moves the viscous factor's depth by X on the
// columns that have one. Each column's X depends on the heights at the step's start
// alone, so the result does not depend on the number of workers.

// capParams are the capillary head's per-step constants.
type capParams struct {
	on bool
	// recede is the receding wetting head h_r, m (0: edges do not recede).
	recede float32
	// corner is the receding line's corner margin, m (capRecedeHead): an edge recedes
	// below recede - corner, a corner of the line with corner more head than a straight
	// stretch. 0: no margin (the contact angle at the line, surface tension off).
	corner float32
	// coef is l_c^2/dx^2: the capillary pressure head per metre of the graph Laplacian's
	// sum of height differences. 0: no capillary pressure.
	coef float32
	// passes is the number of smoothing passes before the Laplacian.
	passes int
	// heal reads holes one cell wide as wet (capDryHead): with the contact-line law on.
	heal bool
	// damp is 4 nu / (g dx dt): the ripple damping's head per metre its surface rose
	// over the last step (capRipple). 0: none.
	damp float32
	// mark is the wetted flag a wet column takes (contactline.go): 1 with the pipes, 0
	// with the shallow water equations, which do not take wetted ground yet (their rim
	// rings, and the flags let the ringing advance it: docs/method.md, "Surface
	// tension": wetted ground), and 0 with the capillary pressure, whose contact angle
	// draws a thin edge back itself.
	mark uint8
	// With the capillary pressure, the contact angle at the line (capangle.go): dropR and
	// dropA are dx tan(theta_r) and dx tan(theta_a), the least and most the liquid's
	// surface may fall over a cell towards dry ground; advance is (dx/2) tan(theta_a),
	// the depth over a dry column's floor at which the liquid beside it advances onto it;
	// dx bounds the floor's step a ghost reads. All 0 without the capillary pressure.
	dropR, dropA, advance, dx float32
	// rippleDx is dx with the shallow water equations, whose ripple damping weakens in a
	// column deeper than a cell (capRipple); 0 with the pipes.
	rippleDx float32
}

// CapillarySmoothing is the number of smoothing passes the capillary pressure takes at
// step dt on cells of dx with settings st (0 where the explicit pressure is stable, or
// where there is none).
func CapillarySmoothing(st Settings, dt, dx float64) int {
	return newCapParams(st, dt, dx).passes
}

// maxCapPasses bounds the smoothing passes: more would cost more than the step.
const maxCapPasses = 16

// capStabilityMargin is the share of the symplectic step's bound (omega*dt <= 2, so
// (omega*dt)^2 <= 4) that capillaryPasses allows.
const capStabilityMargin = 0.5

// newCapParams derives the capillary head's constants from the settings at step dt.
func newCapParams(st Settings, dt, dx float64) capParams {
	lc := st.CapillaryLength()
	if lc == 0 {
		return capParams{}
	}
	p := capParams{on: true, recede: float32(st.RecedingHead()), heal: st.WettingHead() > 0,
		damp: float32(4 * min(st.Viscosity, maxRippleViscosity(dt, dx)) / (st.Gravity * dx * dt))}
	p.corner = float32(capCornerShare) * p.recede
	if st.Method != MethodSWE {
		p.mark = 1
	} else {
		p.rippleDx = float32(dx)
	}
	if st.CapillaryPressure {
		l := lc * lc / (dx * dx)
		p.coef = float32(l)
		p.passes = capillaryPasses(st.Gravity*dt*dt/dx, l)
		// Where the pressure is exact (no smoothing), the contact angle at the line
		// replaces the puddle's heads (capangle.go); a smoothed pressure cannot hold an
		// edge's curvature, and the heads stand for it.
		if p.passes == 0 {
			p.recede, p.mark, p.corner = 0, 0, 0
			ta, tr := capSlope(st.ContactAngle), capSlope(st.RecedingAngle())
			p.dropA, p.dropR, p.advance, p.dx = float32(dx*ta), float32(dx*tr), float32(dx*ta/2), float32(dx)
		}
	}
	return p
}

// capillaryPasses is the fewest smoothing passes n that keep every mode of the linearized
// step stable: a mode of the wet graph's Laplacian with eigenvalue mu/dx^2 (mu in [0, 8]
// on a grid) oscillates at omega^2 dt^2 = c*mu*(1 + l*mu*(1 - mu/8)^n), c = g dt^2/dx
// (the pipes' wave speed is that of depth dx, the paper's cross-section; the film's is
// slower), l = l_c^2/dx^2, and the symplectic step is stable while that is below 4. Where
// gravity alone is beyond the bound (a dt the paper's method itself cannot take), the
// capillary part may add no more than a tenth.
func capillaryPasses(c, l float64) int {
	for n := 0; n < maxCapPasses; n++ {
		ok := true
		for k := 1; k <= 800 && ok; k++ {
			mu := float64(k) / 100
			grav := c * mu
			capi := grav * l * mu * math.Pow(1-mu/8, float64(n))
			ok = capi <= max(4*capStabilityMargin-grav, 0.1*grav)
		}
		if ok {
			return n
		}
	}
	return maxCapPasses
}

// capWeight is the smoothing weight of each of a column's deg wet neighbours: at most
// 1/8, so that the filter's response 1 - w*mu stays in [0, 1].
func capWeight(deg int32) float32 {
	return 0.5 / float32(max(deg, 4))
}

// capSmoothColumn is one smoothing pass of column i: out = in + w * sum over its wet
// neighbours of (in_j - in_i); a dry column keeps its height.
func capSmoothColumn(i int, h, b, in, out []float32, adjStart, adjOther []int32) {
	if h[i]-b[i] <= DryDepth {
		out[i] = h[i]
		return
	}
	si := in[i]
	var sum float32
	lo, hi := adjStart[i], adjStart[i+1]
	for _, j := range adjOther[lo:hi] {
		if h[j]-b[j] > DryDepth {
			sum += in[j] - si
		}
	}
	out[i] = si + float32(capWeight(hi-lo)*sum) // converted: never fused
}

// capHeadColumn is column i's driving height h + X (see the file comment), s the
// smoothed surface (h itself when there are no passes).
func capHeadColumn(i int, h, b, s, drive []float32, adjStart, adjOther []int32, adjDir []uint8, p *capParams, rise float32, wet, wetNext []uint8) {
	hi := h[i]
	d := hi - b[i]
	if d <= DryDepth {
		drive[i], wetNext[i] = capWettedDry(i, h, b, adjStart, adjOther, adjDir, p.recede, p.heal, wet)
		if p.dropA > 0 && drive[i] == hi {
			drive[i] = capGate(i, h, b, s, adjStart, adjOther, p, wet)
		}
		return
	}
	x, faces, up := capPressureColumn(i, h, b, s, adjStart, adjOther, p, wet)
	corner := capShoreCorner(up, p.corner)
	wetNext[i] = capShoreFlag(up, d, p.recede-corner, p.mark)
	if faces > 0 {
		if r, ok := capRecedeHead(d, faces, p.recede, corner); ok {
			x += r
		}
	} else {
		x += capRipple(p.damp, rise, d, p.rippleDx) // not at the contact line
	}
	drive[i] = hi + capHeadLimit(x, d, p)
}

// capHeadLimit is capLimit(x, d), and with the contact angle at the line (capangle.go) no
// less than capHole - d: the pipes' kernels then read every wet column as wet (a thin
// edge under suction would read as dry, and their law, capGateShut, would let nothing
// more into it).
func capHeadLimit(x, d float32, p *capParams) float32 {
	x = capLimit(x, d)
	if p.dropA > 0 {
		if lo := capHole - d; !(x > lo) {
			return lo
		}
	}
	return x
}

// capPressureColumn is wet column i's capillary pressure head -l_c^2 lap(s) (0 without
// the capillary pressure), and how many of its neighbours are dry ground below its
// surface (faces > 0: an edge; not wetted ground, contactline.go) and whether that
// ground rises (up). With the contact angle at the line (p.dropA > 0) each such
// neighbour adds its ghost to the Laplacian (capGhost); without, it counts as level
// with i.
func capPressureColumn(i int, h, b, s []float32, adjStart, adjOther []int32, p *capParams, wet []uint8) (x float32, faces int, up bool) {
	hi := h[i]
	for _, j := range adjOther[adjStart[i]:adjStart[i+1]] {
		if wet[j] == 0 && h[j]-b[j] <= DryDepth && b[j] < hi { // the wetted flag first (capEdgeColumns)
			faces++ // dry ground, not wetted ground (contactline.go)
			up = up || b[j] > b[i]
		}
	}
	x, _ = capPressure(i, h, b, s, adjStart, adjOther, p, wet)
	return x, faces, up
}

// capPressure is wet column i's capillary pressure head, and its number of faces onto dry
// ground below its surface (capPressureColumn).
func capPressure(i int, h, b, s []float32, adjStart, adjOther []int32, p *capParams, wet []uint8) (float32, int) {
	hi, si := h[i], s[i]
	adj := adjOther[adjStart[i]:adjStart[i+1]]
	k := 0
	if p.dropA > 0 {
		for _, j := range adj {
			if wet[j] == 0 && h[j]-b[j] <= DryDepth && b[j] < hi { // the wetted flag first (capEdgeColumns)
				k++
			}
		}
	}
	share := capShare(k)
	var lap float32
	for _, j := range adj {
		if h[j]-b[j] > DryDepth {
			lap += s[j] - si
		} else if k > 0 && wet[j] == 0 && b[j] < hi {
			lap += capGhost(si-b[i], b[j]-b[i], share, p)
		}
	}
	return -float32(p.coef * lap), k
}

// capLimit is x, but no less than -d/2: suction never empties a column by itself. (The
// comparison CUDA makes, not Go's max, which also orders NaNs and zeros.)
func capLimit(x, d float32) float32 {
	if lim := -0.5 * d; !(x > lim) {
		return lim
	}
	return x
}

// The ripple damping (capRipple). The pipes' viscosity factor (the paper's) is the drag of the floor
// on the liquid above it: it slows a flow, but hardly a wave, and ripples a few cells
// long would ring for seconds, where in a real liquid viscosity damps a ripple of
// wavenumber k at the rate 2 nu k^2 (a 4 mm ripple of water in 0.2 s, one at the grid's
// scale in a few steps). The contact line, which holds and lets go column by column,
// makes such ripples wherever liquid spreads. A head proportional to the surface's
// speed, X = beta * d(eta)/dt, damps every mode of the pipes at g h_eff k^2 beta / 2 (the
// pipes answer a head at g h_eff k^2), so beta = 4 nu / (g dx) (h_eff = dx, the paper's
// cross-section) gives 2 nu k^2. The surface's speed is its rise over the last step
// (h - prev) / dt, prev each column's height at the last pass (capState.prev): what the
// fluxes, the sources and sinks and the particles did to it alike (a speed from the
// fluxes alone would take a source's column for a falling one, and damp its spreading).
// It does not act at the contact line (a column with a dry neighbour below its surface),
// which the wetting and receding laws hold: there a rising column would otherwise push
// its edge out sooner, and a puddle spread past its wetting head. After the heights are
// set from outside (SetHeights, or the law turned on) the first pass takes no rise
// (fresh).

// maxRippleViscosity is the largest viscosity, m^2/s, whose ripple damping the explicit
// step takes: the damping head feeds back on the fluxes as a diffusion of them with
// coefficient 4 nu dt / dx^2 per unit of the graph Laplacian (eigenvalues up to 8), and
// 32 nu dt / dx^2 is held to 1/2 (at 1.5, nu = 4e-6 m^2/s at dt 3 ms and dx 0.5 mm,
// the pool of the demo scene rang). 1.3e-6 m^2/s at dt 3 ms and dx 0.5 mm: a more
// viscous liquid damps its ripples as that one, which already damps a ripple at the
// grid's scale within a few steps.
func maxRippleViscosity(dt, dx float64) float64 {
	return dx * dx / (64 * dt)
}

// capRipple is the ripple damping's head of a wet column d deep whose surface rose by
// rise: damp * rise, and with the shallow water equations (rippleDx = dx) that times
// dx/d where the column is deeper than a cell. The SWE's flux answers a head through the
// column's depth, u dx D, where the pipes' answers through their cross-section dx^2: in
// liquid D deep the same beta damps D/dx times faster than 2 nu k^2, and its feedback on
// the fluxes is D/dx times the diffusion maxRippleViscosity bounds. Unscaled, it drove
// the grid's finest mode instead of damping it: a puddle 2.7 mm deep on cells of 0.5 mm
// stood as a checkerboard of columns 1.7 and 4.4 mm deep that never settled, 7 mm
// peaks, and its rim kept moving (a slow pour at 60 degrees, docs/method.md, "Surface
// tension"). With dx/D it damps at 2 nu k^2 and stays inside the pipes' bound.
func capRipple(damp, rise, d, rippleDx float32) float32 {
	x := float32(damp * rise)
	if rippleDx > 0 && d > rippleDx {
		x = float32(x * (rippleDx / d))
	}
	return x
}

// capState is a CPU backend's capillary head: the driving heights and the smoothing
// buffers, made when the law is first turned on.
type capState struct {
	drive []float32
	s     [2][]float32
	// prev is each column's height at the last pass, for the ripple damping's rise;
	// fresh says it is not (the first pass after the heights were set from outside, or
	// the law was turned on, takes a rise of 0 and starts it).
	prev  []float32
	fresh bool
	// near and nearX are each column's first neighbour (entry 0 of its list: its -y
	// neighbour where it has one, a row back in memory) and its first -x neighbour, -1
	// where it has none (near: fewer than two): capEdges' first look at a dry column,
	// without the list's indirections. A gap a column wide (capDryHead) has one of them
	// wet: a hole all of them, a strip along x its -x side, one along y its -y side.
	near, nearX []int32
	nearOf      *topology // the topology near and nearX are of
	// wet are the wetted flags (contactline.go): 1 for a wet column or wetted ground. A
	// pass reads wet and writes wetNext, and copies its columns' back after its barrier;
	// the dense sweep (capRow) reads one and writes the other in turn, and so prev and
	// prevNext, and swaps them after an odd number of steps (capSwap).
	wet, wetNext []uint8
	prevNext     []float32
}

// capRestarts tells whether the ripple damping's rise starts again (capState.fresh)
// when the step's parameters change from was to p: where the law comes on (its last
// pass's heights, if any, are from before it went off) or the step's length changes (a
// rise is a step's). Any other change keeps the last pass's heights: a sim:set that
// changes nothing changes no result.
func capRestarts(was, p *stepParams) bool {
	return p.cap.on && (!was.cap.on || was.dt != p.dt)
}

// ensure sizes the buffers for the columns of t and p; it tells whether it made them
// (their heights are then no last pass's).
func (cs *capState) ensure(t *topology, p *capParams) (made bool) {
	n := t.cols.NumColumns()
	if len(cs.drive) != n {
		made = true
		cs.drive = make([]float32, n)
		cs.prev, cs.prevNext = make([]float32, n), make([]float32, n)
		cs.wet, cs.wetNext = make([]uint8, n), make([]uint8, n)
	}
	if cs.nearOf != t {
		cs.near, cs.nearX, cs.nearOf = slices.Grow(cs.near[:0], n)[:n], slices.Grow(cs.nearX[:0], n)[:n], t
		for i := range n {
			cs.near[i], cs.nearX[i] = -1, -1
			s, e := t.adjStart[i], t.adjStart[i+1]
			if e-s >= 2 {
				cs.near[i] = t.adjOther[s]
			}
			for k := s; k < e; k++ {
				if t.adjDir[k] == sideMinusX {
					cs.nearX[i] = t.adjOther[k]
					break
				}
			}
		}
	}
	if p.passes > 0 && len(cs.s[0]) != n {
		cs.s = [2][]float32{make([]float32, n), make([]float32, n)}
	}
	return made
}

// capColumns is the worker's share of the capillary head: its columns [lo, hi), with a
// barrier after every smoothing pass and after the head (the raw fluxes read the
// neighbours' heads).
func (c *cpuBackend) capColumns(lo, hi int, fresh bool) {
	p := &c.p.cap
	cs := &c.capSt
	t := c.topo
	// The wetted flags a pass made become the next pass's after the barrier that ends
	// it, when no worker reads this pass's any more (contactline.go).
	defer copy(cs.wet[lo:hi], cs.wetNext[lo:hi])
	if p.coef == 0 { // the contact line alone: only thin edges have a head
		c.capEdges(lo, hi, fresh) // the dense layout computes this in its sweep (capRow)
		c.bar.wait()
		return
	}
	s := c.h
	for k := range p.passes {
		out := cs.s[k%2]
		for i := lo; i < hi; i++ {
			capSmoothColumn(i, c.h, c.base, s, out, t.adjStart, t.adjOther)
		}
		c.bar.wait()
		s = out
	}
	for i := lo; i < hi; i++ {
		var rise float32
		if !fresh {
			rise = c.h[i] - cs.prev[i]
		}
		capHeadColumn(i, c.h, c.base, s, cs.drive, t.adjStart, t.adjOther, t.adjDir, p, rise, cs.wet, cs.wetNext)
	}
	copy(cs.prev[lo:hi], c.h[lo:hi])
	c.bar.wait()
}

// capHole is the depth, m, a dry column enclosed by liquid reads as (capDryHead): twice
// the dry depth, so that the contact-line law takes it for wet.
const capHole = 2 * DryDepth

// capDryHead is the driving height of dry column i: b + capHole where it is a gap one
// cell wide in the liquid, else h. A gap that narrow is a hole (every neighbour wet, at
// least two) or a strip (both sides along one axis wet at least hr deep, the receding
// head: a dry line a column wide through a film or between two films, or a notch a
// column wide in a resting edge). It is smaller than any gap surface tension can hold
// open against the liquid beside it (a trough of a wave that the outflow scaling
// emptied; a line between two rivulets of a coat running down a slope, which each
// column's flow there passes by): read as wet, it lets the liquid in as any wet column
// does, instead of holding it off until it stands the wetting head higher. Beside liquid
// thinner than hr the line is receding: a neck of a draining film that has just dried
// is no strip, and the film breaks there. A side is wet where it has neighbours and all
// are (a dense row's four: rows.CapHeadColumn, the same tests).
func capDryHead(i int, h, b []float32, adjStart, adjOther []int32, adjDir []uint8, hr float32) float32 {
	lo, hi := adjStart[i], adjStart[i+1]
	if hi-lo < 2 {
		return h[i]
	}
	adj, dir := adjOther[lo:hi], adjDir[lo:hi]
	dir = dir[:len(adj)]
	anyDry := false
	var wet, notWet [4]bool // per side: a neighbour at least hr deep, a neighbour not
	for k, j := range adj {
		d := h[j] - b[j]
		anyDry = anyDry || d <= DryDepth
		if d > DryDepth && d >= hr {
			wet[dir[k]] = true
		} else {
			notWet[dir[k]] = true
		}
	}
	if !anyDry {
		return b[i] + capHole // a hole
	}
	side := func(q uint8) bool { return wet[q] && !notWet[q] }
	if (side(sideMinusX) && side(sidePlusX)) || (side(sideMinusY) && side(sidePlusY)) {
		return b[i] + capHole // a strip
	}
	return h[i]
}

// capEdges is capHeadColumn without capillary pressure, for columns [lo, hi): the same
// bits (with coef 0 its X is -0 or h_r - d, and h + -0 is h), for a copy and a look at
// the few wet columns thinner than h_r. Stretches that look like a dense row go through
// the row kernel (capruns.go), the other columns through capEdgeColumns.
func (c *cpuBackend) capEdges(lo, hi int, fresh bool) {
	from := lo
	damp := c.capDamp(fresh)
	if c.p.cap.rippleDx == 0 { // the SWE's ripple damping reads each column's depth: the loop
		for _, st := range c.capStretchesFor(lo, hi) {
			c.capEdgeColumns(from, int(st.s), damp)
			c.capStretchRow(st, damp)
			from = int(st.e)
		}
	}
	c.capEdgeColumns(from, hi, damp)
}

// capDamp is the ripple damping a pass takes: none on a fresh one (as capHeadColumn with
// a rise of 0: x = +-0 + 0 changes nothing).
func (c *cpuBackend) capDamp(fresh bool) float32 {
	if fresh {
		return 0
	}
	return c.p.cap.damp
}

// capEdgesRange is capEdges over columns [lo, hi) of worker w's range (the live units
// of a step, csrskip.go, which another worker may take), for the pipes, from w's stretch
// next on (returned for the next range): its stretches cut to the range, where one is cut shorter than minCapStretch
// through the column loop (the same bits either way).
func (c *cpuBackend) capEdgesRange(w, lo, hi, next int, fresh bool) int {
	from := lo
	damp := c.capDamp(fresh)
	var runs []capStretch
	if w < len(c.capRuns) && c.p.cap.rippleDx == 0 { // the SWE's damping reads each column's depth: the loop (capEdges)
		runs = c.capRuns[w]
	}
	for ; next < len(runs) && int(runs[next].s) < hi; next++ {
		st := runs[next]
		s, e := max(int(st.s), lo), min(int(st.e), hi)
		if e-s < minCapStretch {
			continue
		}
		c.capEdgeColumns(from, s, damp)
		d := int32(s) - st.s
		c.capStretchRow(capStretch{int32(s), int32(e), st.m + d, st.p + d}, damp)
		from = e
	}
	if next > 0 && int(runs[next-1].e) > hi {
		next-- // it goes on in the next range
	}
	c.capEdgeColumns(from, hi, damp)
	return next
}

// capEdgeColumns is capEdges' column loop over columns [lo, hi): each column's driving
// height is its height but where the loop finds a head, and its height becomes its
// prev (the next pass's rise) after it.
func (c *cpuBackend) capEdgeColumns(lo, hi int, damp float32) {
	if lo >= hi {
		return
	}
	h, b, drive, near, nearX, prev := c.h[lo:hi], c.base[lo:hi], c.capSt.drive[lo:hi], c.capSt.near[lo:hi], c.capSt.nearX[lo:hi], c.capSt.prev[lo:hi]
	b, drive, near, nearX, prev = b[:len(h)], drive[:len(h)], near[:len(h)], nearX[:len(h)], prev[:len(h)]
	copy(drive, h)
	defer copy(prev, h)
	hAll, bAll := c.h, c.base
	adjStart, adjOther, adjDir := c.topo.adjStart, c.topo.adjOther, c.topo.adjDir
	hr, corner, heal, rippleDx := c.p.cap.recede, c.p.cap.corner, c.p.cap.heal, c.p.cap.rippleDx
	wet, wetNext := c.capSt.wet, c.capSt.wetNext[lo:hi]
	wetNext = wetNext[:len(h)]
	for k, hk := range h {
		d := hk - b[k]
		if d <= DryDepth {
			if wet[lo+k] != 0 { // wetted ground (contactline.go)
				drive[k], wetNext[k] = capWettedDry(lo+k, hAll, bAll, adjStart, adjOther, adjDir, hr, heal, wet)
				continue
			}
			wetNext[k] = 0
			// Most dry columns lie in dry ground, their first and -x neighbours dry too:
			// only the others can be gaps (capDryHead).
			if heal {
				if j, jx := near[k], nearX[k]; (j >= 0 && hAll[j]-bAll[j] > DryDepth) || (jx >= 0 && hAll[jx]-bAll[jx] > DryDepth) {
					drive[k] = capDryHead(lo+k, hAll, bAll, adjStart, adjOther, adjDir, hr)
				}
			}
			continue
		}
		wetNext[k] = c.p.cap.mark
		if d >= hr && (damp == 0 || hk == prev[k]) {
			continue // neither receding nor rising: X is 0
		}
		i := lo + k
		faces, up := 0, false
		for _, j := range adjOther[adjStart[i]:adjStart[i+1]] {
			// The wetted flag first: a byte, and set for every neighbour that was wet at
			// the last pass (most of a wet column's), which then needs no height.
			if wet[j] == 0 && hAll[j]-bAll[j] <= DryDepth && bAll[j] < hk {
				faces++
				up = up || bAll[j] > b[k]
			}
		}
		cr := capShoreCorner(up, corner)
		wetNext[k] = capShoreFlag(up, d, hr-cr, c.p.cap.mark)
		// capHeadColumn's arithmetic with coef 0 (its x starts at -0 or +0, and +-0 + y
		// is y but for y = 0, where h + x is h either way).
		var x float32
		edge := faces > 0
		if edge {
			x, _ = capRecedeHead(d, faces, hr, cr)
		}
		if !edge && damp > 0 {
			x = capRipple(damp, hk-prev[k], d, rippleDx)
		}
		if x != 0 {
			drive[k] = hk + capLimit(x, d)
		}
	}
}

// The capillary head in the dense sweep. With the contact line alone (no capillary
// pressure, the default), a column's head depends on its own and its four neighbours'
// heights, floors and wetted flags at the step's start and on its own height at the last
// step's start: the dense layout computes it in its sweep, a row ahead of the raw fluxes
// that read it (capRow, into the worker's ring of driving heights), with no pass of its
// own, no barrier and no full-size copy. The heights at the step's start are the sweep's
// old rows (its own, or the published copies of its neighbours' rows, four on each side);
// the wetted flags and the last step's heights are read from one of capState's two
// buffers and written (for the worker's own rows) to the other, in turn by step parity
// (capStep), so no worker writes what another reads in the same step, and step swaps
// them after a call with an odd number of steps. The arithmetic is the row kernels'
// (rows.CapHeadRow, and rows.CapRiseRow where no column of the three rows is dry): the
// same operations as capEdges' (the general layout's pass), so the same bits.

// capFused tells whether the dense sweep computes the capillary head (capRow).
func (c *cpuBackend) capFused() bool {
	return c.dense != nil && c.p.cap.on && c.p.cap.coef == 0
}

// capStep sets up worker d's capillary head for step k of a Step call.
func (c *cpuBackend) capStep(d *denseWork, k int) {
	cs, p := &c.capSt, &c.p.cap
	d.wetA, d.wetB, d.prevA, d.prevB = cs.wet, cs.wetNext, cs.prev, cs.prevNext
	if k%2 == 1 {
		d.wetA, d.wetB, d.prevA, d.prevB = d.wetB, d.wetA, d.prevB, d.prevA
	}
	d.capP = rows.CapParams{Dry: DryDepth, Hole: capHole, Recede: p.recede, Corner: p.corner, Damp: p.damp, Heal: p.heal, Mark: p.mark}
	d.dryP = c.p.Params
	d.dryP.Wet = 0
	if k == 0 && cs.fresh {
		d.capP.Damp = 0 // no rise yet (capHeadColumn with a rise of 0)
	}
	d.dryY = [4]int{-1, -1, -1, -1}
}

// capSwap makes the buffers the last of n steps wrote the current ones (capStep).
func (c *cpuBackend) capSwap(n int) {
	if n%2 == 1 && c.capFused() {
		cs := &c.capSt
		cs.wet, cs.wetNext = cs.wetNext, cs.wet
		cs.prev, cs.prevNext = cs.prevNext, cs.prev
	}
}

// capDryRow is the first and last dry column of row y (-1 and -1 where none is, or
// outside the grid), from the step's start state: from the cache, where capRow puts a
// row after its own that it found has none, or by rows.DrySpan.
func (c *cpuBackend) capDryRow(d *denseWork, y int) (first, last int) {
	g := c.dense
	if y < 0 || y >= g.ny {
		return -1, -1
	}
	k := y % 4
	if d.dryY[k] != y {
		d.dryY[k] = y
		d.dryF[k], d.dryL[k] = c.rows.DrySpan(c.capOld(d, y), c.base[y*g.nx:(y+1)*g.nx], DryDepth)
	}
	return d.dryF[k], d.dryL[k]
}

// capOld is oldRows' h alone: row y's heights at the step's start.
func (c *cpuBackend) capOld(d *denseWork, y int) []float32 {
	g := c.dense
	if y < d.y0 || y >= d.y1 {
		return d.halo[g.pubSlot[y]][0]
	}
	return c.h[y*g.nx : (y+1)*g.nx]
}

// capRow computes row y's driving heights into worker d's ring (slot y%ringRows) from the
// step's start state, and for a row the worker owns its next wetted flags and its
// heights for the next step's rise. Rows y-1, y and y+1 must not have been updated yet.
//
// Where no column of rows y-1, y and y+1 is dry, the row is one call of rows.CapRiseRow
// (no edge, no hole, every flag the mark), which also tells whether row y+1 holds a dry
// column (for the next row; where it does, this row is done again below). Otherwise the
// columns outside the span of the three rows' dry columns (capDryRow) take
// rows.CapRiseRow too, those inside it rows.CapHeadRow (whose groups of 8 with no dry
// column or neighbour take the same arithmetic) and the row's end columns
// capRowArgs.column. Only the columns [d.xa, d.xe) are computed (denseRange).
func (c *cpuBackend) capRow(d *denseWork, y int) {
	g := c.dense
	nx, ny := g.nx, g.ny
	lo := y * nx
	h, hp, bp := c.capOld(d, y), g.absent, g.absent
	if y+1 < ny {
		hp, bp = c.capOld(d, y+1), c.base[lo+nx:lo+2*nx]
	}
	keep, next := d.scrKeep, d.scrNext
	own := y >= d.y0 && y < d.y1
	if own {
		keep, next = d.prevB[lo:lo+nx], d.wetB[lo:lo+nx]
	}
	b, prev, drive := c.base[lo:lo+nx], d.prevA[lo:lo+nx], d.drvRow(y, nx)
	p := &d.capP
	// Rows y-1 and y are in the cache unless this is the sweep's first row; row y+1 is
	// after a row that took the fast way and found it has no dry column.
	known := d.dryY[(y+1)&3] == y+1
	dryBefore := d.dryF[(y+3)&3] >= 0
	if d.dryY[(y+3)&3] != y-1 {
		f, _ := c.capDryRow(d, y-1)
		dryBefore = f >= 0
	}
	dryHere := d.dryF[y&3] >= 0
	if d.dryY[y&3] != y {
		f, _ := c.capDryRow(d, y)
		dryHere = f >= 0
	}
	full := d.xa == 0 && d.xe == nx // the whole row (else the columns [d.xa, d.xe): denseRange)
	if full && !dryBefore && !dryHere && !(known && d.dryF[(y+1)&3] >= 0) {
		// No dry column in rows y-1 and y, nor (as far as is known) in row y+1.
		low, nextDry := c.rows.CapRiseRow(p.Damp, p.Dry, p.Mark, drive, next, keep, h, b, prev, hp, bp)
		if !nextDry {
			if y+1 < ny {
				d.dryY[(y+1)&3], d.dryF[(y+1)&3] = y+1, -1
			}
			d.drvLow[y%capRing], d.fast = low, true
			return
		}
	}
	// Columns [x0, x1] have a dry column among themselves and their neighbours; the
	// others take the fast way too.
	x0, x1 := nx, -1
	for k := -1; k <= 1; k++ {
		if f, l := c.capDryRow(d, y+k); f >= 0 {
			if k == 0 {
				f, l = f-1, l+1 // and the columns beside them in the row
			}
			x0, x1 = min(x0, f), max(x1, l)
		}
	}
	x0, x1 = max(x0, 0), min(x1, nx-1)
	low := false
	xa, xe := d.xa, d.xe
	for _, run := range [2][2]int{{xa, min(x0, xe)}, {max(x1+1, xa), xe}} {
		if a, e := run[0], run[1]; a < e {
			l, _ := c.rows.CapRiseRow(p.Damp, p.Dry, p.Mark, drive[a:e], next[a:e], keep[a:e], h[a:e], b[a:e], prev[a:e], hp[a:e], bp[a:e])
			low = low || l
		}
	}
	r := capRowArgs{h: h, b: b, w: d.wetA[lo : lo+nx], prev: prev, drive: drive, next: next, keep: keep,
		hm: g.absent, bm: g.absent, wm: g.noFlags, hp: hp, bp: bp, wp: g.noFlags}
	if y > 0 {
		r.hm, r.bm, r.wm = c.capOld(d, y-1), c.base[lo-nx:lo], d.wetA[lo-nx:lo]
		r.beside++
	}
	if y+1 < ny {
		r.wp = d.wetA[lo+nx : lo+2*nx]
		r.beside++
	}
	if a, e := max(x0, 1, xa), min(x1+1, nx-1, xe); a < e {
		l, _ := c.rows.CapHeadRow(p, drive[a:e], next[a:e], keep[a:e], h[a-1:e+1], b[a-1:e+1], r.w[a-1:e+1],
			r.hm[a:e], r.bm[a:e], r.wm[a:e], hp[a:e], bp[a:e], r.wp[a:e], prev[a:e])
		low = low || l
	}
	if x0 == 0 && xa == 0 {
		low = r.column(p, 0) || low
	}
	if x1 == nx-1 && xe == nx && nx > 1 {
		low = r.column(p, nx-1) || low
	}
	d.drvLow[y%capRing], d.fast = low, false
}

// capAhead computes the driving heights of row y (capRow), or of rows y to y+k-1 at once
// where the rows before went the fast way and k > 1 rows of the worker's own lie ahead
// (one call of rows.CapRiseRow on the k rows as one, their own rows' arrays being
// contiguous; it stands where the rows from y+1 to y+k hold no dry column, which the same
// call finds out, else row y goes through capRow). The ring then holds them up to
// d.drvDone.
func (c *cpuBackend) capAhead(d *denseWork, y int) {
	g := c.dense
	nx := g.nx
	// The block's rows and the row after it: the worker's own (contiguous), in the
	// ring without wrapping; rows y-1 and y known to hold no dry column.
	k := min(capBlock, d.y1-1-y, capRing-y%capRing)
	if !d.fast || y < d.y0 || k < 2 || d.xa != 0 || d.xe != nx || d.dryY[(y+3)&3] != y-1 || d.dryF[(y+3)&3] >= 0 ||
		d.dryY[y&3] != y || d.dryF[y&3] >= 0 {
		c.capRow(d, y)
		d.drvDone = y
		return
	}
	lo, hi := y*nx, (y+k)*nx
	p := &d.capP
	low, nextDry := c.rows.CapRiseRow(p.Damp, p.Dry, p.Mark, d.drv[y%capRing*nx:(y%capRing+k)*nx], d.wetB[lo:hi],
		d.prevB[lo:hi], c.h[lo:hi], c.base[lo:hi], d.prevA[lo:hi], c.h[lo+nx:hi+nx], c.base[lo+nx:hi+nx])
	if nextDry { // a dry column in rows y+1 to y+k: row by row
		c.capRow(d, y)
		d.drvDone = y
		return
	}
	for r := y; r < y+k; r++ {
		d.drvLow[r%capRing] = low // for the block as a whole: where low, the law is applied (the same bits)
	}
	last := y + k - 1
	d.dryY[last&3], d.dryF[last&3] = last, -1
	d.dryY[(last+1)&3], d.dryF[(last+1)&3] = last+1, -1
	d.drvDone = last
}

// capRowArgs is a row for capRow: its heights, floors and wetted flags, those of the rows
// before (-y: hm, bm, wm) and after (+y: hp, bp, wp; rows.Absent and zeros outside the
// grid), its heights at the last step's start, and what capRow writes.
type capRowArgs struct {
	h, b, hm, bm, hp, bp, prev, drive, keep []float32
	w, wm, wp, next                         []uint8
	beside                                  int // the rows before and after that exist
}

// column is rows.CapHeadRow for column x of the row, with the x neighbours it has, and
// whether its driving depth is at most p.Dry (rows.LowDrive).
func (r *capRowArgs) column(p *rows.CapParams, x int) bool {
	nh := [4]float32{r.hm[x], rows.Absent, rows.Absent, r.hp[x]}
	nb := [4]float32{r.bm[x], rows.Absent, rows.Absent, r.bp[x]}
	nw := [4]uint8{r.wm[x], 0, 0, r.wp[x]}
	n := r.beside
	if x > 0 {
		nh[1], nb[1], nw[1] = r.h[x-1], r.b[x-1], r.w[x-1]
		n++
	}
	if x+1 < len(r.h) {
		nh[2], nb[2], nw[2] = r.h[x+1], r.b[x+1], r.w[x+1]
		n++
	}
	r.drive[x], r.next[x] = rows.CapHeadColumn(p, p.Heal && n >= 2, r.h[x], r.b[x], r.w[x], r.prev[x], &nh, &nb, &nw)
	r.keep[x] = r.h[x]
	return rows.LowDrive(r.drive[x], r.b[x], p.Dry)
}

// driveHeights is the heights the raw fluxes read: h + X with the capillary head on, h
// otherwise.
func (c *cpuBackend) driveHeights() []float32 {
	if c.p.cap.on {
		return c.capSt.drive
	}
	return c.h
}
