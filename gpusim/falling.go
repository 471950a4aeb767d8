package gpusim

import (
	"math"
	"slices"
	"time"

	"github.com/vpbench/vpbench/terrain"
)

// Falling selects what happens to liquid that leaves a column for a neighbour whose surface
// lies far below it: over a cliff, off a ledge, over the edge of an overhang
// (docs/solver.md, "Liquid that falls").
type Falling int

const (
	// FallingParticles releases that liquid as particles that fly under gravity and land
	// where they meet a liquid surface or a solid.
	FallingParticles Falling = iota
	// FallingOff is the plain method: the pipe moves the liquid sideways and down at once.
	FallingOff
)

// String returns the name scripts use: "particles" or "off".
func (f Falling) String() string { return nameOf(FallingNames, "Falling", int(f)) }

// ParseFalling reads a script's falling value.
func ParseFalling(s string) (Falling, error) {
	v, err := parseName(FallingNames, "falling", s)
	return Falling(v), err
}

// DefaultFallDropCells is the default release threshold (Settings.FallDrop = 0), in cells:
// liquid leaving a column starts to fall when the surface it would enter lies more than
// this many cells below the column's floor, and falls whole at twice that (release). Eight
// cells, 4 mm at dx = 0.5 mm: over a lower step the heightfield's sheet is a fair picture
// (the coffee mug's 3.5 mm lip), and streams released there, landing a few steps later
// next to where they left, fed back on their own release and kept the puddle rippling at
// the cell scale (at 3 cells the coffee scene's table was 6 times rougher than with
// falling off: mean |h - mean of the 4 neighbours| 0.14 mm against 0.023 mm; at 8 cells
// 0.025 mm).
const DefaultFallDropCells = 8

// minDropCells is the smallest parcel released, as the side of a cube in cells: an
// outflow over a drop that moves less than (minDropCells dx)^3 in a step stays in the
// pipe, as a film that clings to the wall and runs down it (a thin film on a steep wall
// does not leave it), and only a stream that carries more breaks away.
const minDropCells = 0.25

// dripHold is how long, s, a drop gathering at an edge (Settings.SurfaceTension > 0) waits
// for more liquid: an edge that has fed it nothing for that long lets it fall as it is
// (docs/solver.md, "Dripping edges (Tate's law)").
const dripHold = 2.0

// streamMinFrac is the smallest parcel an edge that pours a stream releases, as a share of
// the Tate volume: a stream's parcels gather to it (a few steps at most) and leave whole.
const streamMinFrac = 0.1

// maxSubsteps bounds the sub-steps of one particle's flight in one step (each moves it at
// most one cell sideways, so that it cannot jump over a wall: it meets every cell it crosses).
const maxSubsteps = 64

// fallState is the liquid in flight and the pipes that may release more (docs/solver.md,
// "Liquid that falls"). Particles are a structure of arrays, appended as they are
// released and each landed one replaced by the last (deposit): their order depends only
// on what was released and what landed, every serial loop over them runs in it, and the
// flight of each depends on it alone, so the state does not depend on the number of
// workers. Nothing is allocated per step once the arrays have grown.
type fallState struct {
	cols    *terrain.Columns
	topo    *topology
	mode    Falling
	drop    float64 // the release threshold in use, m
	minVol  float64 // the smallest parcel released, m^3 (minDropCells)
	gravity float64
	// sides are the domain's sides (Settings.Sides): a particle that crosses an open one
	// leaves the domain (landLeft), and its volume is booked as outflow, which the Sim
	// takes (takeOutflow) after each step.
	sides   [4]Side
	outflow float64

	// cand are the pipes whose two floors differ by more than drop (the only ones that can
	// release, since a surface never lies below its floor), in pipe order. slotA and slotB
	// are the places of their two columns in relCols, each column listed once.
	cand         []int32
	slotA, slotB []int32
	relCols      []int32
	relLevel     []float64 // scratch: the exact level h + r of each relCols column
	candFlux     []float32 // scratch: the candidates' final fluxes of the last step

	// The particles: position (m), velocity (m/s), volume (m^3).
	x, y, z, vx, vy, vz []float32
	vol                 []float64
	land                []int32 // scratch: the column particle i lands in this step, or -1
	// col is the column whose free interval holds particle i (-1: not known yet; found
	// from its position), kept from one step to the next so that a particle's flight does
	// not look its cell and column up again; colCell is each column's cell (y nx + x).
	col     []int32
	colCell []int32

	// Dripping edges (docs/solver.md, "Dripping edges (Tate's law)"), with surface
	// tension: the liquid a candidate releases gathers in pend[k] (m^3, booked as in the
	// air) until it makes a drop of the Tate volume tate, or pours as a stream while
	// rate[k], its mean outflow (m^3/s, over tate / qStream), is at least qStream.
	// idle[k] is the time since pend[k] last grew, took[k] (scratch) what it took this
	// step. Sized with the candidates; all zero while gather is off.
	gather                 bool
	tate, qStream          float64
	pend, idle, rate, took []float64
	npend                  int // the candidates with pend > 0

	// edgeHook, when set (tests), is told of every parcel an edge releases: its
	// candidate, its volume, and whether it is a drop let fall as it was (letFall).
	edgeHook func(k int, vol float64, asIs bool)

	changed []int32   // scratch: columns whose height the phase changed this step
	targets []int32   // scratch: the columns a landing parcel shares its volume among
	weights []float64 // scratch: their shares
	mark    []bool    // per column: listed in changed

	// Totals since the start, m^3: released from columns, landed.
	released, landed float64

	// recordImpacts: deposit lists each landing in impacts (Sim.RecordImpacts), at
	// simulated time now (set by the step).
	recordImpacts bool
	impacts       []Impact
	now           float64
	// wall is the time spent in the particle phase (part of Sim's step wall time).
	wall time.Duration

	// held marks the held columns (held.go; nil: none): no candidate pipe touches one, no
	// landing spreads into one, and a parcel that lands on one goes to heldLanded (its
	// volume to heldOut, which the Sim books as exchanged) for the holder to take.
	held       []uint8
	heldLanded []Particle
	heldOut    float64

	// flyRange, bound once (a method value made per step would allocate), flies the
	// particles of a range with flyH and flyDt.
	flyRange func(lo, hi int)
	flyH     []float32
	flyDt    float64
}

// newFallState prepares the particle phase for cols with settings st.
func newFallState(t *topology, st Settings) *fallState {
	f := &fallState{cols: t.cols, topo: t, mark: make([]bool, t.cols.NumColumns()), colCell: make([]int32, t.cols.NumColumns())}
	for cell := range t.cols.Nx * t.cols.Ny {
		for i := t.cols.CellStart[cell]; i < t.cols.CellStart[cell+1]; i++ {
			f.colCell[i] = int32(cell)
		}
	}
	f.flyRange = func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f.land[i] = f.flyOne(i, f.flyH, f.flyDt)
		}
	}
	f.configure(st)
	return f
}

// fallDrop is the release threshold st asks for on a grid of cell size dx, m.
func fallDrop(st Settings, dx float64) float64 {
	if st.FallDrop > 0 {
		return st.FallDrop
	}
	return DefaultFallDropCells * dx
}

// configure applies the falling settings; the candidate pipes are found again when the
// threshold changes. Particles in the air keep flying whatever the mode.
func (f *fallState) configure(st Settings) {
	f.mode, f.gravity, f.sides = st.Falling, st.Gravity, st.Sides
	d := fallDrop(st, f.cols.Dx)
	rebuild := d != f.drop || f.cand == nil
	gather := st.Falling == FallingParticles && st.SurfaceTension > 0
	if !gather || rebuild {
		f.flushPending() // the drops hanging at the edges fall
	}
	f.gather = gather
	if gather {
		f.tate, f.qStream = tateDrop(st, f.cols.Dx)
	}
	if !rebuild {
		return
	}
	f.drop = d
	f.minVol = math.Pow(minDropCells*f.cols.Dx, 3)
	// The candidates, then their columns once each (sorted), and each candidate's two
	// places among them: counted first, so that the lists are allocated once, to size.
	base := f.cols.Base
	n := 0
	for p := range f.topo.pipeA {
		a, b := f.topo.pipeA[p], f.topo.pipeB[p]
		if math.Abs(float64(base[a])-float64(base[b])) > d && !f.isHeld(a) && !f.isHeld(b) {
			n++
		}
	}
	f.cand, f.slotA, f.slotB = make([]int32, 0, n), make([]int32, n), make([]int32, n)
	f.relCols = make([]int32, 0, 2*n)
	for p := range f.topo.pipeA {
		a, b := f.topo.pipeA[p], f.topo.pipeB[p]
		if math.Abs(float64(base[a])-float64(base[b])) > d && !f.isHeld(a) && !f.isHeld(b) {
			f.cand = append(f.cand, int32(p))
			f.relCols = append(f.relCols, a, b)
		}
	}
	slices.Sort(f.relCols)
	f.relCols = slices.Compact(f.relCols)
	for k, p := range f.cand {
		sa, _ := slices.BinarySearch(f.relCols, f.topo.pipeA[p])
		sb, _ := slices.BinarySearch(f.relCols, f.topo.pipeB[p])
		f.slotA[k], f.slotB[k] = int32(sa), int32(sb)
	}
	f.relLevel = make([]float64, len(f.relCols))
	f.candFlux = make([]float32, len(f.cand))
	f.pend, f.idle = make([]float64, len(f.cand)), make([]float64, len(f.cand))
	f.rate, f.took = make([]float64, len(f.cand)), make([]float64, len(f.cand))
}

// isHeld tells whether column i is held (held.go).
func (f *fallState) isHeld(i int32) bool { return f.held != nil && f.held[i] == markHeld }

// setHeld marks the held columns (nil: none) and finds the candidate pipes again. The
// drops gathering at the edges fall first, from the edges they hang at (the candidates
// are found anew, and a pending drop is its candidate's).
func (f *fallState) setHeld(mark []uint8, st Settings) {
	f.flushPending()
	f.held = mark
	f.cand = nil
	f.configure(st)
}

// takeHeldOut returns the volume, m^3, that landed on held columns since the last call.
func (f *fallState) takeHeldOut() float64 {
	v := f.heldOut
	f.heldOut = 0
	return v
}

// streamFlow is the flow per unit length of an edge, as a share of sqrt(g l_c^3), from
// which it pours a stream rather than drops: the droplet-to-jet transition of a film
// falling off a horizontal edge (docs/method.md, "Dripping edges (Tate's law)").
const streamFlow = 0.1

// tateDrop is the volume, m^3, of the drop that detaches from an edge column of a grid of
// cell size dx (Tate's law for a drop hanging from a wetted circle of radius
// r = min(dx/2, l_c): V = 2 pi r sigma / (rho g) = pi dx sigma / (rho g) while
// dx <= 2 l_c), and the mean flux, m^3/s, from which the edge column pours a stream
// instead (streamFlow sqrt(g l_c^3) per unit length of the edge, times dx). docs/method.md,
// "Dripping edges (Tate's law)". 0, 0 without surface tension.
func tateDrop(st Settings, dx float64) (vol, qStream float64) {
	lc := st.CapillaryLength()
	if lc <= 0 {
		return 0, 0
	}
	r := min(dx/2, lc)
	vol = 2 * math.Pi * r * st.SurfaceTension / (st.Density * st.Gravity)
	qStream = streamFlow * dx * math.Sqrt(st.Gravity*lc*lc*lc)
	return vol, qStream
}

// edge returns candidate k's edge: the column with the higher floor (the edge column,
// whose liquid hangs over it), the one below, and the edge column's place in relCols.
func (f *fallState) edge(k int) (src, dst, ss int32) {
	p := f.cand[k]
	src, dst, ss = f.topo.pipeA[p], f.topo.pipeB[p], f.slotA[k]
	if f.cols.Base[dst] > f.cols.Base[src] {
		src, dst, ss = dst, src, f.slotB[k]
	}
	return src, dst, ss
}

// addAtFace appends a particle of volume vol leaving column src for column dst: at the
// face between their cells (a hair into dst's cell), at height z (kept just under dst's
// ceiling), moving away from src at speed.
func (f *fallState) addAtFace(src, dst int32, z, speed, vol float64) {
	c := f.cols
	dx := c.Dx
	sx, sy := f.cellXY(src)
	dxc, dyc := f.cellXY(dst)
	ux, uy := float64(dxc-sx), float64(dyc-sy)
	fx := (float64(sx) + 0.5 + 0.5*ux + 1e-3*ux) * dx
	fy := (float64(sy) + 0.5 + 0.5*uy + 1e-3*uy) * dx
	z = min(z, float64(c.Max[dst])-1e-6*dx)
	f.add(float32(fx), float32(fy), float32(z), float32(speed*ux), float32(speed*uy), 0, vol)
}

// letFall releases the drop gathering at candidate k's edge as it is: from the edge's
// lip (the edge column's floor), at rest.
func (f *fallState) letFall(k int) {
	src, dst, _ := f.edge(k)
	f.addAtFace(src, dst, float64(f.cols.Base[src]), 0, f.pend[k])
	if f.edgeHook != nil {
		f.edgeHook(k, f.pend[k], true)
	}
	f.pend[k], f.idle[k] = 0, 0
	f.npend--
}

// flushPending lets every drop gathering at an edge fall (in candidate order): when
// dripping is turned off, when the candidates change, and before a terrain change.
func (f *fallState) flushPending() {
	if f.npend == 0 {
		return
	}
	for k, v := range f.pend {
		if v > 0 {
			f.letFall(k)
		}
	}
	f.npend = 0
}

// active tells whether the phase has work: pipes that may release, or particles in the air.
func (f *fallState) active() bool {
	return len(f.vol) > 0 || (f.mode == FallingParticles && len(f.cand) > 0)
}

// airborne is the volume in the air, m^3: the particles' (summed in particle order), then
// the drops gathering at edges (in candidate order).
func (f *fallState) airborne() float64 {
	var v float64
	for _, q := range f.vol {
		v += q
	}
	if f.npend > 0 {
		for _, q := range f.pend {
			v += q
		}
	}
	return v
}

// hanging is the volume gathering at edges as drops not yet released, m^3 (part of
// airborne).
func (f *fallState) hanging() float64 {
	var v float64
	for _, q := range f.pend {
		v += q
	}
	return v
}

// add appends a particle.
func (f *fallState) add(x, y, z, vx, vy, vz float32, vol float64) {
	f.x, f.y, f.z = append(f.x, x), append(f.y, y), append(f.z, z)
	f.vx, f.vy, f.vz = append(f.vx, vx), append(f.vy, vy), append(f.vz, vz)
	f.vol = append(f.vol, vol)
	f.land = append(f.land, -1)
	f.col = append(f.col, -1)
}

// hostState is what the particle phase needs of a backend between two steps: the state
// as host slices it may read and change, the final fluxes of some pipes, and a call that
// takes the changed columns back. The CPU backend hands out its own arrays; the device
// backend reads back and uploads (docs/cuda.md, "Particles").
type hostState interface {
	// columns returns every column's height and residual (m). They stay valid until the
	// next step or commit.
	columns() (h, r []float32)
	// fluxesOf copies the final fluxes of pipes (topology order indices) into dst.
	fluxesOf(pipes []int32, dst []float32)
	// commit takes back the heights and residuals of the changed columns.
	commit(changed []int32)
	// forEach runs fn over [0, n) cut into contiguous ranges, one per worker, and returns
	// when all are done.
	forEach(n int, fn func(lo, hi int))
}

// parallelFlight is the number of particles from which the flight is split across the
// workers; below it the pool's start costs more than it saves.
const parallelFlight = 512

// step runs the particle phase after one solver step of dt: release, flight, landing. It
// returns the heights and residuals after it (be.columns' slices, which then hold the
// state the backend has: the phase commits what it changed).
func (f *fallState) step(be hostState, dt float64) (h, r []float32) {
	h, r = be.columns()
	f.changed = f.changed[:0]
	if f.mode == FallingParticles && len(f.cand) > 0 {
		be.fluxesOf(f.cand, f.candFlux)
		f.release(h, r, dt)
	}
	if n := len(f.vol); n > 0 {
		// The flight: each particle on its own, the heights only read, so any split
		// gives the same bits.
		f.flyH, f.flyDt = h, dt
		if n >= parallelFlight {
			be.forEach(n, f.flyRange)
		} else {
			f.flyRange(0, n)
		}
		f.flyH = nil
		f.deposit(h, r)
	}
	if len(f.changed) > 0 {
		be.commit(f.changed)
		for _, c := range f.changed {
			f.mark[c] = false
		}
	}
	return h, r
}

// maxPourParcels bounds the particles a falling source pours in one step.
const maxPourParcels = 64

// pour puts the volume the falling sources (Emitter.Falls) pour in the step starting at
// t into the air and returns it (m^3, booked as added). A source pours its step's volume
// as equal parcels of at most a cell across (a sphere of radius dx/2; at most
// maxPourParcels a step), so that its stream is a stream and not a few large blobs. A
// source of radius r pours them at points spread over its disc by a golden-angle spiral
// (the n-th point at radius r sqrt(frac(n phi)), angle n times the golden angle, n
// counting on from step to step); a point in a solid or outside the domain pours from
// the centre. A spray (Emitter.Spread) gives each parcel a direction of its own
// (sprayFrame.draw, from sprayRand of its seed, its id, k and the parcel's index).
func (f *fallState) pour(em *emitterSet, t, dt float64, k int64) float64 {
	c := f.cols
	maxVol := 4 * math.Pi / 3 * math.Pow(0.5*c.Dx, 3)
	var added float64
	for e := range em.list {
		src := &em.list[e]
		d := src.overlap(t, dt)
		if !src.Falls || !em.active[e] || src.Rate <= 0 || d == 0 {
			continue
		}
		vol := src.Rate * d
		parts := int(min(math.Ceil(vol/maxVol), maxPourParcels))
		share := vol / float64(parts)
		spray := src.Spraying()
		var sf sprayFrame
		if spray {
			sf = newSprayFrame(src.VX, src.VY, src.VZ)
		}
		for j := range parts {
			x, y := src.X, src.Y
			if src.Radius > 0 {
				n := (k%1000003)*maxPourParcels + int64(j)
				_, fr := math.Modf(float64(n) * 0.6180339887498949)
				r, a := src.Radius*math.Sqrt(fr), float64(n)*2.399963229728653
				px, py := x+r*math.Cos(a), y+r*math.Sin(a)
				if cx, cy, ok := c.CellAt(px, py); ok {
					if col := c.ColumnAt(cx, cy, src.Z); col >= 0 && float64(c.Base[col]) <= src.Z {
						x, y = px, py
					}
				}
			}
			v := share
			if j == parts-1 {
				v = vol - share*float64(parts-1) // the parcels add up to vol exactly
			}
			vx, vy, vz := src.VX, src.VY, src.VZ
			if spray {
				u1, u2 := sprayRand(src.Seed, e, k, j)
				vx, vy, vz = sf.draw(src.Spread, u1, u2)
			}
			f.add(float32(x), float32(y), float32(src.Z), float32(vx), float32(vy), float32(vz), v)
		}
		added += vol
	}
	return added
}

// touch records that column c's height changed.
func (f *fallState) touch(c int32) {
	if !f.mark[c] {
		f.mark[c] = true
		f.changed = append(f.changed, c)
	}
}

// release turns the last step's outflow over a drop into particles. For a candidate pipe
// carrying q > 0 m^3/s from column s (the higher floor) to column d, the volume q dt that
// the height update just put into d is taken back out of d when d's level without it lies
// more than drop below s's floor, and it leaves as one particle from the face between the
// two cells, at mid-depth of s's liquid, moving away from s at the mean speed through the
// pipe's cross-section, q / (dx depth_s) (at most dx/dt, a cell a step: the pipe model
// moves nothing faster), with no vertical speed.
func (f *fallState) release(h, r []float32, dt float64) {
	c := f.cols
	dx := c.Dx
	dx2 := dx * dx
	for k, s := range f.relCols {
		f.relLevel[k] = float64(h[s]) + float64(r[s])
	}
	for k, p := range f.cand {
		q := f.candFlux[k]
		if float64(q)*dt < f.minVol && float64(-q)*dt < f.minVol {
			continue // no flow, or a film: it stays on the wall (minDropCells)
		}
		src, dst := f.topo.pipeA[p], f.topo.pipeB[p]
		ss, sd := f.slotA[k], f.slotB[k]
		if q < 0 {
			src, dst, ss, sd, q = dst, src, sd, ss, -q
		}
		fall := float64(c.Base[src]) - float64(c.Base[dst])
		if fall <= f.drop {
			continue // liquid climbing up a step, or a low step
		}
		// The share released grows from none where d's level without the stream lies
		// drop below s's floor to all at twice that: all or nothing, a pool rising to
		// the threshold would take the stream by turns as a pipe's flow and as landing
		// parcels, and that flicker kept it rippling at the cell scale (the coffee
		// scene's table, 3.5 mm below the mug's lip, roughened eightfold).
		old := f.relLevel[sd]
		take := float64(q) * dt / dx2
		share := min((float64(c.Base[src])-max(old-take, float64(c.Base[dst])))/f.drop-1, 1)
		if !(share > 0) || share*take*dx2 < f.minVol {
			continue
		}
		lvl := old - share*take
		if lvl < float64(c.Base[dst]) {
			lvl = float64(c.Base[dst]) // rounding: take no more than is there
		}
		vol := (old - lvl) * dx2
		if vol <= 0 {
			continue
		}
		f.relLevel[sd] = lvl
		f.touch(dst)
		f.released += vol
		depth := max(f.relLevel[ss]-float64(c.Base[src]), 0)
		speed := math.Min(float64(q)/(dx*max(depth, 1e-3*dx)), dx/dt)
		if f.gather {
			// A dripping edge: the volume gathers as the edge's drop (drip, below).
			if f.pend[k] == 0 {
				f.npend++
			}
			f.pend[k] += vol
			f.took[k] = vol
			continue
		}
		f.addAtFace(src, dst, float64(c.Base[src])+0.5*depth, speed, vol)
		if f.edgeHook != nil {
			f.edgeHook(k, vol, false)
		}
	}
	if f.gather {
		f.drip(dt)
	}
	for k, s := range f.relCols {
		if !f.mark[s] {
			continue
		}
		nh := float32(f.relLevel[k])
		h[s], r[s] = nh, float32(f.relLevel[k]-float64(nh))
	}
}

// drip releases the drops gathering at the edges, after release has added the step's
// outflow (took) to them, in candidate order (docs/solver.md, "Dripping edges (Tate's
// law)"). An edge whose mean outflow rate is a stream's (at least qStream), or that took a
// Tate volume in the step, releases what it gathered once that is a tenth of the Tate
// volume, at the stream's speed, as release does; one that drips releases a drop of the
// Tate volume, at rest, once it has gathered that (the rest gathering on); one that has
// fed its drop nothing for dripHold lets it fall as it is. (Not when its column dries: an
// edge column that pours empties in the step, outflow scaling lets it, and the
// contact-line law wets it again only a step or a few later, so a dry edge column is no
// sign that its supply has stopped.)
func (f *fallState) drip(dt float64) {
	c := f.cols
	dx := c.Dx
	// The mean outflow rate, over the time a drop takes to gather at the stream's
	// threshold (tate / qStream, 0.52 s for water at dx = 0.5 mm): the heightfield feeds
	// an edge in bursts (a dry edge column fills past the contact-line law's wetting head,
	// then empties over the edge in a step or two), and a burst says nothing about the
	// mean supply that decides between drops and a stream.
	a := -math.Expm1(-dt * f.qStream / f.tate) // this step's weight
	for k, took := range f.took {
		f.took[k] = 0
		f.rate[k] += (took/dt - f.rate[k]) * a
		if f.pend[k] == 0 {
			continue
		}
		if took == 0 {
			if f.idle[k] += dt; f.idle[k] >= dripHold {
				f.letFall(k)
			}
			continue
		}
		f.idle[k] = 0
		src, dst, ss := f.edge(k)
		depth := max(f.relLevel[ss]-float64(c.Base[src]), 0)
		z := float64(c.Base[src]) + 0.5*depth
		if f.rate[k] >= f.qStream || took >= f.tate {
			if f.pend[k] < streamMinFrac*f.tate {
				continue
			}
			q := math.Abs(float64(f.candFlux[k]))
			speed := math.Min(q/(dx*max(depth, 1e-3*dx)), dx/dt)
			f.addAtFace(src, dst, z, speed, f.pend[k])
			if f.edgeHook != nil {
				f.edgeHook(k, f.pend[k], false)
			}
			f.pend[k] = 0
		} else {
			if f.pend[k] < f.tate {
				continue
			}
			f.pend[k] -= f.tate // exact while pend < 2 tate (Sterbenz)
			f.addAtFace(src, dst, z, 0, f.tate)
			if f.edgeHook != nil {
				f.edgeHook(k, f.tate, false)
			}
		}
		if f.pend[k] == 0 {
			f.npend--
		}
	}
}

// cellXY is the cell of column i.
func (f *fallState) cellXY(i int32) (x, y int) {
	cell := int(f.colCell[i])
	return cell % f.cols.Nx, cell / f.cols.Nx
}

// landLeft is flyOne's answer for a particle that left the domain through an open side.
const landLeft = -2

// leaves tells whether a particle moving to (x, y), outside the domain, crosses an open
// side there.
func (f *fallState) leaves(x, y float64) bool {
	w, h := float64(f.cols.Nx)*f.cols.Dx, float64(f.cols.Ny)*f.cols.Dx
	return (x < 0 && f.sides[SideMinusX] == SideOpen) || (x >= w && f.sides[SidePlusX] == SideOpen) ||
		(y < 0 && f.sides[SideMinusY] == SideOpen) || (y >= h && f.sides[SidePlusY] == SideOpen)
}

// takeOutflow returns the volume, m^3, that particles took out through open sides since
// the last call.
func (f *fallState) takeOutflow() float64 {
	v := f.outflow
	f.outflow = 0
	return v
}

// flyOne moves particle i ballistically through dt (symplectic Euler: velocity, then
// position) in sub-steps of at most a cell sideways, and returns the column it lands
// in, or -1 while it flies. It lands in the column whose liquid surface (or floor) it
// reaches: moving down within a cell, or moving sideways into a cell at a height below
// that cell's surface there. Moving sideways into solid, it stops moving that way and
// slides down the wall.
func (f *fallState) flyOne(i int, h []float32, dt float64) int32 {
	c := f.cols
	dx := c.Dx
	x, y, z := float64(f.x[i]), float64(f.y[i]), float64(f.z[i])
	vx, vy, vz := float64(f.vx[i]), float64(f.vy[i]), float64(f.vz[i])
	var cx, cy int
	col := int(f.col[i])
	if col >= 0 {
		cx, cy = f.cellXY(int32(col))
	} else {
		var ok bool
		cx, cy, ok = c.CellAt(x, y)
		if !ok { // cannot happen: positions stay inside the domain
			cx, cy = min(max(int(x/dx), 0), c.Nx-1), min(max(int(y/dx), 0), c.Ny-1)
		}
		if col = c.ColumnAt(cx, cy, z); col < 0 {
			return -1 // a cell solid to the top (the terrain changed under it): wait
		}
	}
	if z <= float64(h[col]) {
		return int32(col) // already at or under a surface (or inside the solid below col)
	}
	n := int(math.Ceil(math.Max(math.Abs(vx), math.Abs(vy)) * dt / dx))
	n = min(max(n, 1), maxSubsteps)
	hs := dt / float64(n)
	land := int32(-1)
	for range n {
		vz -= f.gravity * hs
		nx, ny := x+vx*hs, y+vy*hs
		ncx, ncy, inside := c.CellAt(nx, ny)
		if !inside { // the domain's sides: walls, or open ones it leaves through
			if f.leaves(nx, ny) {
				x, y = nx, ny
				land = landLeft
				break
			}
			if nx < 0 || nx >= float64(c.Nx)*dx {
				nx, vx = x, 0
			}
			if ny < 0 || ny >= float64(c.Ny)*dx {
				ny, vy = y, 0
			}
			ncx, ncy, _ = c.CellAt(nx, ny)
		}
		if ncx != cx || ncy != cy {
			nc := c.ColumnAt(ncx, ncy, z)
			switch {
			case nc < 0 || float64(c.Base[nc]) > z: // a wall: keep to this cell
				if ncx != cx {
					nx, vx = x, 0
				}
				if ncy != cy {
					ny, vy = y, 0
				}
			case z <= float64(h[nc]): // into the side of liquid
				x, y = nx, ny
				land = int32(nc)
			default:
				cx, cy, col = ncx, ncy, nc
			}
			if land >= 0 {
				break
			}
		}
		x, y = nx, ny
		nz := z + vz*hs
		if nz <= float64(h[col]) {
			z = max(float64(h[col]), nz)
			land = int32(col)
			break
		}
		if top := float64(c.Max[col]); nz > top { // thrown up into a ceiling: it stops rising
			nz, vz = top, 0
		}
		z = nz
	}
	f.x[i], f.y[i], f.z[i] = float32(x), float32(y), float32(z)
	f.col[i] = int32(col)
	f.vx[i], f.vy[i], f.vz[i] = float32(vx), float32(vy), float32(vz)
	return land
}

// record lists particle i's landing in column d (its whole volume; a parcel that finds no
// room and tries again is listed again, with what is left of it).
func (f *fallState) record(i int, d int32) {
	if len(f.impacts) == maxImpacts {
		copy(f.impacts, f.impacts[1:])
		f.impacts = f.impacts[:maxImpacts-1]
	}
	vx, vy, vz := float64(f.vx[i]), float64(f.vy[i]), float64(f.vz[i])
	f.impacts = append(f.impacts, Impact{
		X: float64(f.x[i]), Y: float64(f.y[i]), Z: float64(f.z[i]),
		Volume: f.vol[i], Speed: math.Sqrt(vx*vx + vy*vy + vz*vz), Column: d, Time: f.now,
	})
}

// deposit puts each landed particle's volume into its column, in particle order: up to
// the column's max, the rest staying in the air as the same particle (at rest where it
// is) to try again next step, so nothing is lost. Landed particles are then removed, each
// replaced by the last particle: the array's order changes as particles land (the same
// way for any number of workers), and removal costs what lands, not what flies (shifting
// every particle after the first landed one cost 50 us a step with 5,200 in the air).
func (f *fallState) deposit(h, r []float32) {
	c := f.cols
	dx2 := c.Dx * c.Dx
	for i := range f.vol {
		d := f.land[i]
		if d == landLeft { // out through an open side: gone, booked
			f.land[i] = -1
			f.outflow += f.vol[i]
			f.vol[i] = 0
			continue
		}
		if d < 0 {
			continue
		}
		f.land[i] = -1
		if f.isHeld(d) { // the holder's: handed out whole, booked
			f.heldLanded = append(f.heldLanded, Particle{X: f.x[i], Y: f.y[i], Z: f.z[i], VX: f.vx[i], VY: f.vy[i], VZ: f.vz[i], Volume: f.vol[i]})
			f.heldOut += f.vol[i]
			f.vol[i] = 0
			continue
		}
		if f.recordImpacts {
			f.record(i, d)
		}
		f.spread(i, d, h)
		total := f.vol[i]
		for k, t := range f.targets {
			share := total * f.weights[k]
			if k == len(f.targets)-1 {
				share = f.vol[i] // what rounding left of the others' shares too
			}
			old := float64(h[t]) + float64(r[t])
			room := max((float64(c.Max[t])-old)*dx2, 0)
			put := min(share, room, f.vol[i])
			if put <= 0 {
				continue
			}
			lvl := old + put/dx2
			if put == room {
				lvl = float64(c.Max[t])
			}
			nh := float32(lvl)
			h[t], r[t] = nh, float32(lvl-float64(nh))
			f.touch(t)
			f.landed += put
			f.vol[i] -= put
		}
		if f.vol[i] > 0 { // no room: stay here, at rest
			f.vx[i], f.vy[i], f.vz[i] = 0, 0, 0
		}
	}
	n := len(f.vol)
	for i := 0; i < n; {
		if f.vol[i] > 0 {
			i++
			continue
		}
		n-- // i landed whole: the last particle takes its place (and is looked at next)
		f.x[i], f.y[i], f.z[i] = f.x[n], f.y[n], f.z[n]
		f.vx[i], f.vy[i], f.vz[i] = f.vx[n], f.vy[n], f.vz[n]
		f.vol[i], f.col[i] = f.vol[n], f.col[n]
	}
	f.x, f.y, f.z = f.x[:n], f.y[:n], f.z[:n]
	f.vx, f.vy, f.vz = f.vx[:n], f.vy[:n], f.vz[:n]
	f.vol, f.land, f.col = f.vol[:n], f.land[:n], f.col[:n]
}

// reaches says whether a parcel landing at height z in column d may share its volume with
// column t of a neighbouring cell: t's surface (liquid, or its floor when dry) lies no
// higher than tol above the landing height (higher, it is a wall or a step up), and no
// lower than tol below d's floor (lower, it is the foot of a ledge, which liquid reaches
// by falling, not by landing beside it). A surface between the two lies downhill of the
// landing: the parcel runs into it. (Asking for a surface within tol of z, as before,
// left the landing column alone to take a stream whose parcels had raised it above its
// neighbours: a 12 ml/s pour piled one column up to its ceiling.)
func (f *fallState) reaches(d int32, t int, z, tol float64, h []float32) bool {
	s := float64(h[t])
	return s <= z+tol && s >= float64(f.cols.Base[d])-tol
}

// poolFrac is the most a landing parcel may raise a column of the pool it lands in, as a
// share of the pool's depth there (of a cell, in a pool shallower than a cell): spread
// widens its footprint to a disc until the mound stays that low (docs/solver.md, "Liquid
// that falls", "Landing").
const poolFrac = 0.1

// maxSpreadCells bounds the radius of that disc, in cells (about 800 cells at most): what
// it cannot flatten the pool spreads in the next steps. 16 cells keep a 10 mm^3 drop on a
// 2 mm pool at a tenth of the depth at dx = 0.5 mm (6 left a 1.19 mm mound). A parcel
// wider than half of it may spread over twice its own radius.
const maxSpreadCells = 16

// hannPeak is the share of a parcel that the cosine disc of radius R cells puts into the
// cell under its centre, times R^2: 1 / (pi (1/2 - 2/pi^2)), the integral of
// (1 + cos(pi r / R)) / 2 over the disc being pi R^2 (1/2 - 2/pi^2).
const hannPeak = 1 / (math.Pi * (0.5 - 2/(math.Pi*math.Pi)))

// spread lists in f.targets the columns particle i, landing in column d, deposits into,
// and in f.weights their shares (summing to 1). A parcel up to three cells across
// (radius 1.5 dx) goes into d's cell and its 8 neighbours with binomial weights (4 the
// centre, 2 a side, 1 a corner: the 3 x 3 kernel [1 2 1] x [1 2 1] / 16), each neighbour
// in its column whose surface (liquid, or its floor when dry) lies within a cell of the
// landing height; a neighbour without one gives its share to the others. Put into one
// column, a stream's parcels kicked it up and down every step, and the pool they fell
// into rippled at the cell scale in spikes (a jug pouring onto the waterfall's shelf);
// the binomial kernel passes nothing to the grid's shortest (checkerboard) wave. A
// larger parcel shares its volume equally among the cells whose centres lie within its
// radius of where it lands, each in the column whose surface lies within the radius of
// the landing height: a large drop spreads as it lands instead of piling up. d first,
// then row by row: a fixed order.
//
// Landing in a pool (the column d wet), the footprint above raised a column by up to a
// quarter of the parcel's volume over dx^2 (a 10 mm^3 drop on a 2 mm pool at dx = 1 mm:
// 2.5 mm, a mound as deep as the pool again), and the ring the pool then carried away
// started as a lump a few cells across, whose short waves the grid bends into an octagon.
// Where that mound would stand higher than poolFrac of the pool's depth (of a cell, below
// a cell deep), the parcel spreads instead over the cells whose centres lie within R of
// where it landed, weighted (1 + cos(pi r / R)) / 2 by their distance r: smooth and
// radially symmetric, so the ring starts round, with R just wide enough to keep the mound
// at poolFrac of the depth (the middle cell's share about hannPeak / R^2, R in cells), at
// most maxSpreadCells cells
// (or twice the parcel's radius), each cell in its column whose surface lies near the
// landing height as above. d first, then row by row. A dry landing keeps the footprint
// above, and so does a parcel whose footprint already keeps the mound low.
func (f *fallState) spread(i int, d int32, h []float32) {
	f.targets = append(f.targets[:0], d)
	c := f.cols
	rad := math.Cbrt(3 * f.vol[i] / (4 * math.Pi))
	x, y, z := float64(f.x[i]), float64(f.y[i]), float64(f.z[i])
	if depth := float64(h[d]) - float64(c.Base[d]); depth > 0 {
		// The highest share of the footprint below (in cells' worth), and the cosine
		// disc's radius (in cells) that keeps the mound at poolFrac of the depth.
		peak := 0.25
		if rad > 1.5*c.Dx {
			peak = c.Dx * c.Dx / (math.Pi * rad * rad)
		}
		cells := f.vol[i] / (c.Dx * c.Dx * poolFrac * max(depth, c.Dx)) // the volume in bounds' worth of cells
		R := min(math.Sqrt(hannPeak*cells), max(maxSpreadCells, 2*rad/c.Dx))
		if peak*cells > 1 && hannPeak/(R*R) < peak {
			tol := c.Dx
			if rad > 1.5*c.Dx {
				tol = rad
			}
			f.disc(d, x, y, z, R*c.Dx, tol, h)
			return
		}
	}
	if rad <= 1.5*c.Dx {
		f.weights = append(f.weights[:0], 4)
		sum := 4.0
		dcx, dcy := f.cellXY(d)
		for oy := -1; oy <= 1; oy++ {
			for ox := -1; ox <= 1; ox++ {
				cx, cy := dcx+ox, dcy+oy
				if (ox == 0 && oy == 0) || cx < 0 || cy < 0 || cx >= c.Nx || cy >= c.Ny {
					continue
				}
				t := c.ColumnAt(cx, cy, z)
				if t < 0 || f.isHeld(int32(t)) || !f.reaches(d, t, z, c.Dx, h) {
					continue
				}
				w := 2.0
				if ox != 0 && oy != 0 {
					w = 1
				}
				f.targets = append(f.targets, int32(t))
				f.weights = append(f.weights, w)
				sum += w
			}
		}
		for k := range f.weights {
			f.weights[k] /= sum
		}
		return
	}
	x0, x1 := max(int(math.Floor((x-rad)/c.Dx)), 0), min(int(math.Floor((x+rad)/c.Dx)), c.Nx-1)
	y0, y1 := max(int(math.Floor((y-rad)/c.Dx)), 0), min(int(math.Floor((y+rad)/c.Dx)), c.Ny-1)
	for cy := y0; cy <= y1; cy++ {
		for cx := x0; cx <= x1; cx++ {
			px, py := c.CellCentre(cx, cy)
			if math.Hypot(px-x, py-y) > rad {
				continue
			}
			t := c.ColumnAt(cx, cy, z)
			if t < 0 || int32(t) == d || f.isHeld(int32(t)) || !f.reaches(d, t, z, rad, h) {
				continue // solid to the top, the landing column, a held one, or a surface far from the drop
			}
			f.targets = append(f.targets, int32(t))
		}
	}
	f.weights = f.weights[:0]
	for range f.targets {
		f.weights = append(f.weights, 1/float64(len(f.targets)))
	}
}

// disc lists in f.targets (d already there) the columns whose cells' centres lie within
// R (m) of (x, y) and whose surfaces lie within tol of z, d first, then row by row, and in
// f.weights their shares (1 + cos(pi r / R)) / 2, normalised: spread's footprint in a pool.
func (f *fallState) disc(d int32, x, y, z, R, tol float64, h []float32) {
	c := f.cols
	dcx, dcy := f.cellXY(d)
	px, py := c.CellCentre(dcx, dcy)
	w := 0.5 + 0.5*math.Cos(math.Pi*min(math.Hypot(px-x, py-y)/R, 1))
	f.weights = append(f.weights[:0], w)
	sum := w
	x0, x1 := max(int(math.Floor((x-R)/c.Dx)), 0), min(int(math.Floor((x+R)/c.Dx)), c.Nx-1)
	y0, y1 := max(int(math.Floor((y-R)/c.Dx)), 0), min(int(math.Floor((y+R)/c.Dx)), c.Ny-1)
	for cy := y0; cy <= y1; cy++ {
		for cx := x0; cx <= x1; cx++ {
			px, py := c.CellCentre(cx, cy)
			r := math.Hypot(px-x, py-y)
			if r >= R || (cx == dcx && cy == dcy) {
				continue
			}
			t := c.ColumnAt(cx, cy, z)
			if t < 0 || f.isHeld(int32(t)) || !f.reaches(d, t, z, tol, h) {
				continue // solid to the top, held, or a surface far from the landing
			}
			w := 0.5 + 0.5*math.Cos(math.Pi*r/R)
			f.targets = append(f.targets, int32(t))
			f.weights = append(f.weights, w)
			sum += w
		}
	}
	for k := range f.weights {
		f.weights[k] /= sum
	}
}

// takeParticles moves old's particles (and totals) into f: a terrain change keeps what is
// in the air.
func (f *fallState) takeParticles(old *fallState) {
	old.flushPending() // the drops hanging at the old edges fall
	f.x, f.y, f.z = old.x, old.y, old.z
	f.vx, f.vy, f.vz = old.vx, old.vy, old.vz
	f.vol, f.land = old.vol, old.land
	f.col = old.col
	for i := range f.col {
		f.col[i] = -1 // the columns changed: found again from the positions
	}
	f.released, f.landed = old.released, old.landed
	f.recordImpacts, f.impacts = old.recordImpacts, old.impacts
}

// particles copies the particles into dst (reused) and returns it.
func (f *fallState) particles(dst []Particle) []Particle {
	dst = dst[:0]
	for i, v := range f.vol {
		dst = append(dst, Particle{X: f.x[i], Y: f.y[i], Z: f.z[i], VX: f.vx[i], VY: f.vy[i], VZ: f.vz[i], Volume: v})
	}
	return dst
}

// Particle is one parcel of liquid in the air.
type Particle struct {
	X, Y, Z    float32 // position, m
	VX, VY, VZ float32 // velocity, m/s
	Volume     float64 // m^3
}

// Radius is the radius of a sphere of the particle's volume, m.
func (p Particle) Radius() float64 { return math.Cbrt(3 * p.Volume / (4 * math.Pi)) }
