package gpusim

import "math"

// Leaving dry, still ground alone in the general layout (issue 39, item 2; the dense
// layout's rule is in kernels_dense.go, and docs/solver.md, "Leaving dry, still ground
// alone", gives both). The general layout's columns are cut into units of consecutive
// columns of one worker (csrUnit), with the pipes they own (pipes are ordered by owner).
// A unit is *still* when every column of it is dry to the bit (h == b, h not -0, r +0)
// and every pipe it owns carries a final flux of +0 (and, with the capillary head, its
// wetted flags are 0 and its driving and last-pass heights h: unitStill), and *dead* for
// a step when it and every unit a pipe joins it to are still at the step's start. A dead
// unit is left alone: its pipes' raw and final fluxes, its columns' K, S and heights, and
// the contact-line head's pass over it; the SWE's substeps leave it alone after their
// own flux, which writes +0 for a face dry at both ends. That is exact:
//
//   - Every pipe of a dead unit's columns joins two columns of depth exactly 0, so in the
//     full computation the column it would leave has K = 0 and its final flux is +0
//     (element.FinalFlux: one term is (u+|u|)*0, the other a zero part of u): what the pipe
//     holds. The columns' height updates add zeros: they keep h and r.
//   - What the neighbours read of a dead unit: its pipes' fluxes (+0, as the full
//     computation's finals; as raw fluxes in the neighbours' outflow sums they change
//     only K of still columns, which multiplies nothing but signed zeros, and the unscaled
//     inflow that only decides where S is computed: a smaller one can only find S = 1,
//     which InflowFactor gives there too), and its columns' K and S in the final fluxes of
//     the neighbours' pipes into it. Its K is set to 0 when it is first left alone (the
//     full computation's K is 0 wherever a pipe leaves it, and multiplies signed zeros
//     elsewhere); its S multiplies only flows out of still columns, whose K is 0.
//   - Liquid moves one pipe a step, so a unit whose neighbours are still stays dry for the
//     step; what moves it from outside the phases is kept off: a unit holding a source's,
//     sink's or drain's column or a held column is pinned (never still), the particle
//     phase's and a lift's columns and any state written from outside make their units
//     not still (stillColumns, stillReset). An extended pipe moves liquid across its
//     passage in one step, but its ends (a run's non-full ends, a passage's boundary
//     columns: extended.go) border the passage's full columns, which are wet, so their
//     units are never dead.
//
// The workers share each step's live units by their columns (skipDead), so that ground
// dry on one side does not idle a worker. TestCSRSkipSameBits compares whole runs with
// and without it (backendOptions.noSkip).

// csrUnitCols is the most columns a unit holds (and the fewest, but where a worker's
// columns or a long vector run end).
const csrUnitCols = 64

// csrUnit is a piece of a worker's columns that the phases take or leave as one: whole
// runs (kernels_csr.go) where they are short, pieces of csrUnitCols where a vector run is
// long (starting a multiple of 8 columns into it, so that its groups and strided flags are
// the run's own).
type csrUnit struct {
	lo, hi   int32 // its columns
	plo, phi int32 // the pipes they own
	run      int32 // the worker's run that holds column lo
	owner    int32 // the worker whose columns (ranges) and runs it is of
}

// csrSkip is the general layout's record of still units.
type csrSkip struct {
	on       bool // false: every unit is computed (backendOptions.noSkip)
	units    []csrUnit
	wUnits   [][2]int32 // per worker: its units [a, b)
	nbrStart []int32    // the units a pipe joins unit u to: nbr[nbrStart[u]:nbrStart[u+1]]
	nbr      []int32
	unitOf   []int32 // per column
	still    []bool  // per unit, as of the last height phase that computed it
	pinned   []bool  // per unit: holds a source's, sink's or drain's column, or a held one
	// dead is, per worker, each unit's deadness this step (every worker finds all, the
	// same: no barrier to share them), and live the units it takes this step: the
	// units cut where the columns to compute are shared equally (skipDead).
	dead     [][]bool
	live     [][2]int32
	kZero    []bool  // per unit: its K was set to 0 when it was left alone
	pinGen   uint64  // the emitter set's version the pins were made for
	pinDirty bool    // the pins must be made again (a new hold)
	left     []int64 // per worker: units left alone so far (tests)
	tick     []int32 // per worker: its steps so far (stillDue)
}

// csrStillEvery is how often a unit that is not still is tested again after a height
// phase that computed it, in steps; a still one is tested after every such phase. The
// test reads the unit's columns and pipes again, a few percent of a step where most
// units are computed and few are still (a spreading film), and a unit found still a
// few steps late is only left alone a few steps later: its flag is never true when it
// is not.
const csrStillEvery = 4

// stillDue tells whether unit u, just computed by worker w, is tested this step.
func (sk *csrSkip) stillDue(w int, u int32) bool {
	return sk.still[u] || (sk.tick[w]+u)%csrStillEvery == 0
}

// pipeStarts returns, per column i, the first pipe it owns or, owning none, the next
// column's (len n+1).
func pipeStarts(t *topology, n int) []int32 {
	ps := make([]int32, n+1)
	for _, a := range t.pipeA {
		ps[a+1]++
	}
	for i := range n {
		ps[i+1] += ps[i]
	}
	return ps
}

// buildSkip cuts the workers' columns into units (after setWorkers made the ranges and
// runs) and finds their neighbours; every unit starts not still.
func (c *cpuBackend) buildSkip(ps []int32, on bool) {
	n := len(c.h)
	sk := &csrSkip{on: on, wUnits: make([][2]int32, c.nw), unitOf: make([]int32, n), left: make([]int64, c.nw), tick: make([]int32, c.nw), pinDirty: true}
	owner := 0
	unit := func(lo, hi, run int) {
		for x := lo; x < hi; x++ {
			sk.unitOf[x] = int32(len(sk.units))
		}
		sk.units = append(sk.units, csrUnit{int32(lo), int32(hi), ps[lo], ps[hi], int32(run), int32(owner)})
	}
	for w, r := range c.ranges {
		owner = w
		sk.wUnits[w][0] = int32(len(sk.units))
		if c.runs == nil {
			for i := r[0]; i < r[1]; i += csrUnitCols {
				unit(i, min(i+csrUnitCols, r[1]), 0)
			}
		} else {
			from, fromRun := r[0], 0 // the unit in the making: columns from, run fromRun
			for i, run := r[0], 0; run < len(c.runs[w]); run++ {
				j := int(c.runs[w][run].end)
				if c.runs[w][run].vector && j-i >= csrUnitCols {
					if from < i {
						unit(from, i, fromRun)
					}
					for k := i; k < j; k += csrUnitCols {
						unit(k, min(k+csrUnitCols, j), run)
					}
					from, fromRun = j, run+1
				} else if j-from >= csrUnitCols {
					unit(from, j, fromRun)
					from, fromRun = j, run+1
				}
				i = j
			}
			if from < r[1] {
				unit(from, r[1], fromRun)
			}
		}
		sk.wUnits[w][1] = int32(len(sk.units))
	}
	nu := len(sk.units)
	sk.still, sk.pinned, sk.kZero = make([]bool, nu), make([]bool, nu), make([]bool, nu)
	sk.dead, sk.live = make([][]bool, c.nw), make([][2]int32, c.nw)
	for w := range sk.dead {
		sk.dead[w] = make([]bool, nu)
	}
	sk.nbrStart = make([]int32, nu+1)
	seen := make([]int32, nu) // the unit+1 that last listed each neighbour
	t := c.topo
	for u := range sk.units {
		for i := sk.units[u].lo; i < sk.units[u].hi; i++ {
			for e := t.adjStart[i]; e < t.adjStart[i+1]; e++ {
				if v := sk.unitOf[t.adjOther[e]]; int(v) != u && seen[v] != int32(u+1) {
					seen[v] = int32(u + 1)
					sk.nbr = append(sk.nbr, v)
				}
			}
		}
		sk.nbrStart[u+1] = int32(len(sk.nbr))
	}
	c.skip = sk
}

// skipPins makes the pins again where the emitter set or the held columns changed
// (serially, before a step's job).
func (c *cpuBackend) skipPins(em *emitterSet) {
	sk := c.skip
	var gen uint64
	if em != nil {
		gen = em.gen
	}
	if !sk.pinDirty && gen == sk.pinGen {
		return
	}
	sk.pinDirty, sk.pinGen = false, gen
	clear(sk.pinned)
	pin := func(i int32) {
		u := sk.unitOf[i]
		sk.pinned[u], sk.still[u] = true, false
	}
	if em != nil {
		for _, i := range em.tCol {
			pin(i)
		}
		for _, i := range em.dCol {
			pin(i)
		}
	}
	for i, m := range c.hold {
		if m != markFree {
			pin(int32(i))
		}
	}
}

// skipDead decides which units are dead this step (at its start: the last height
// phase's still flags are final) and which of them worker w takes: the units cut where
// the columns of the live ones are shared equally between the workers, so that a dry
// half of the ground does not leave one worker idle. Every worker finds the same, in its
// own copy (sk.dead[w]); the results do not depend on who computes what.
func (c *cpuBackend) skipDead(w int) {
	sk := c.skip
	sk.tick[w]++
	dead := sk.dead[w]
	if !sk.on { // every unit computed, each by its own worker (dead stays all false)
		sk.live[w] = sk.wUnits[w]
		return
	}
	total := 0
	for u := range sk.units {
		d := sk.still[u] && !sk.pinned[u]
		for e := sk.nbrStart[u]; d && e < sk.nbrStart[u+1]; e++ {
			d = sk.still[sk.nbr[e]]
		}
		dead[u] = d
		if !d {
			total += int(sk.units[u].hi - sk.units[u].lo)
		}
	}
	// The SWE's substeps keep each worker's own units: its column pass after the heights
	// reads them with no barrier between. So does a step with nothing to compute.
	a, b := sk.wUnits[w][0], sk.wUnits[w][1]
	if c.swe == nil && total > 0 {
		a, b = sk.share(w, c.nw, total)
	}
	sk.live[w] = [2]int32{a, b}
	for u := a; u < b; u++ {
		if dead[u] {
			sk.left[w]++
		}
	}
}

// share is worker w's units of nw this step, [cut(w), cut(w+1)): cut(k) is the first
// unit whose live columns before it reach k/nw of total (the end where none does), cut(0)
// the first unit and cut(nw) the end, so that the shares are disjoint and cover all.
func (sk *csrSkip) share(w, nw, total int) (a, b int32) {
	cut := func(k int) int32 {
		if k == 0 {
			return 0
		}
		if k == nw {
			return int32(len(sk.units))
		}
		want, seen := total*k/nw, 0
		for u := range sk.units {
			if seen >= want {
				return int32(u)
			}
			if !sk.dead[w][u] {
				seen += int(sk.units[u].hi - sk.units[u].lo)
			}
		}
		return int32(len(sk.units))
	}
	return cut(w), cut(w + 1)
}

// unitStill tells whether unit u, just computed, is still. With the capillary head on,
// its columns' wetted flags must be 0 and their driving and last-pass heights h, what
// the head's pass would write for a dry column beside dry ones (capEdgeColumns), so that
// the pass may leave them too (capColumnsLive).
func (c *cpuBackend) unitStill(u *csrUnit) bool {
	for i := u.lo; i < u.hi; i++ {
		hx := c.h[i]
		if hx != c.base[i] || math.Float32bits(hx) == 1<<31 || math.Float32bits(c.r[i]) != 0 {
			return false
		}
	}
	for _, f := range c.f[u.plo:u.phi] {
		if math.Float32bits(f) != 0 {
			return false
		}
	}
	if c.p.cap.on {
		cs := &c.capSt
		for i := u.lo; i < u.hi; i++ {
			hb := math.Float32bits(c.h[i])
			if cs.wet[i]|cs.wetNext[i] != 0 || math.Float32bits(cs.drive[i]) != hb || math.Float32bits(cs.prev[i]) != hb {
				return false
			}
		}
	}
	return true
}

// capColumnsLive is capColumns for worker w's columns [lo, hi) in a step of the pipes:
// where the head is the contact line's alone (capEdges), it leaves the dead units alone,
// whose columns would be given what they hold (unitStill); it ends with a barrier.
func (c *cpuBackend) capColumnsLive(w, lo, hi int, fresh bool) {
	if c.p.cap.coef != 0 || !c.skip.on {
		c.capColumns(lo, hi, fresh)
		return
	}
	next, owner := 0, int32(-1)
	c.forLive(w, false, func(u, _ int32, a, b int) {
		if o := c.skip.units[u].owner; o != owner { // another worker's stretches
			next, owner = 0, o
		}
		next = c.capEdgesRange(int(owner), a, b, next, fresh)
	}, nil)
	c.bar.wait()
	// The flags this pass made become the next pass's once no worker reads these (as
	// capColumns); a dead unit's are 0 in both.
	copy(c.capSt.wet[lo:hi], c.capSt.wetNext[lo:hi])
}

// forLive calls fn(a, b, lo, hi) for each stretch of consecutive units [a, b) of one
// owner that worker w computes this step (its share, skipDead), lo and hi their first
// and last+1 column, or pipe with pipes set, and dead(u) for each unit of its share left
// alone.
func (c *cpuBackend) forLive(w int, pipes bool, fn func(a, b int32, lo, hi int), dead func(u int32)) {
	sk := c.skip
	a, b, isDead := sk.live[w][0], sk.live[w][1], sk.dead[w]
	for u := a; u < b; {
		if isDead[u] {
			if dead != nil {
				dead(u)
			}
			u++
			continue
		}
		e := u + 1
		for e < b && !isDead[e] && sk.units[e].owner == sk.units[u].owner {
			e++
		}
		if pipes {
			fn(u, e, int(sk.units[u].plo), int(sk.units[e-1].phi))
		} else {
			fn(u, e, int(sk.units[u].lo), int(sk.units[e-1].hi))
		}
		u = e
	}
}

// forRuns calls fn(i, j, vector) for the parts of the runs in columns [lo, hi), which
// start at unit a's first column and are its owner's.
func (c *cpuBackend) forRuns(a int32, lo, hi int, fn func(i, j int, vector bool)) {
	if c.runs == nil {
		fn(lo, hi, false)
		return
	}
	u := &c.skip.units[a]
	runs := c.runs[u.owner]
	r := int(u.run)
	for i := lo; i < hi; r++ {
		j := min(int(runs[r].end), hi)
		fn(i, j, runs[r].vector)
		i = j
	}
}
