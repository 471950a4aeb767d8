package gpusim

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/vpbench/vpbench/terrain"
)

// Emitter is a liquid source (Rate > 0) or sink (Rate < 0) over a disc of cells.
type Emitter struct {
	X, Y, Z float64 // centre, m; Z picks the column in each cell (terrain.Columns.ColumnAt)
	Radius  float64 // m; cells whose centres lie within it share the rate equally. A radius
	// smaller than half a cell takes the one cell holding (X, Y).
	Rate  float64 // m^3/s: > 0 adds liquid, < 0 removes it
	Start float64 // s: active from Start ...
	Stop  float64 // ... until Stop (exclusive); +Inf (or 0 from NewSource) = never stops
	// Falls makes a source pour from its point: its liquid leaves (X, Y, Z) each step as a
	// particle moving at (VX, VY, VZ) m/s, which falls and lands like released liquid
	// (docs/solver.md, "Liquid that falls"), instead of entering the columns there at once.
	// The point must lie in free space; a sink cannot fall.
	Falls      bool
	VX, VY, VZ float64
	// Spread makes a falling source a spray (Cords 2008, Sec. 3.3: a fountain): each parcel
	// leaves at the source's speed |(VX, VY, VZ)| in a direction of its own, drawn within an
	// elliptic cone around (VX, VY, VZ) whose half-angles, in radians and each in [0, pi],
	// are Spread[0] across (towards the horizontal perpendicular of the main direction) and
	// Spread[1] up and down (in the vertical plane through it); docs/solver.md, "Sprays".
	// {0, 0} pours every parcel at (VX, VY, VZ): a plain falling source. A spray must fall
	// and have a velocity (its main direction).
	Spread [2]float64
	// Seed chooses a spray's draws: a parcel's direction is a hash of (Seed, the source's
	// id, the step, the parcel), so the same seed sprays the same bits, with any number of
	// workers and after a checkpoint, and another seed sprays otherwise.
	Seed uint64
	// Holds makes an emitter act only towards Level (m, absolute; docs/solver.md, "Held
	// levels"). A source that holds a level adds, each step, what brings a column up to
	// Level, up to its rate's share, and nothing where the liquid stands at or above it (a
	// reservoir's inlet); a sink that holds a level takes what stands above Level, up to
	// its rate's share, and nothing at or below it (an overflow, a weir). A source and a
	// sink holding the same Level over the same columns hold it both ways (a constant-head
	// boundary: sim:source{ level = z } makes that pair). Not for sources that fall; both
	// backends. Sim.SetEmitterLevel changes Level mid-run.
	Holds bool
	Level float64
}

// held is what a held-level emitter moves in a column whose exact height is old, m^3:
// want (its rate's share: > 0 adds, < 0 takes) cut to what brings the column to Level.
// For a source it is exactly what it was before sinks could hold levels.
func (e *Emitter) held(want, old, dx2 float64) float64 {
	if want > 0 {
		return min(want, max(0, (e.Level-old)*dx2))
	}
	return max(want, min(0, (e.Level-old)*dx2))
}

// Spraying tells whether e sprays (Spread is not {0, 0}).
func (e *Emitter) Spraying() bool { return e.Spread != [2]float64{} }

// overlap is the part, s, of the step [t, t+dt) that e's schedule [Start, Stop) covers:
// what a source pours in the step is Rate times it, so that a pour from Start to Stop
// books Rate * (Stop - Start) however the steps fall (the overlaps of consecutive steps
// add up to it, t+dt being the next step's t). The CUDA kernel vp_emit computes it the
// same way.
func (e *Emitter) overlap(t, dt float64) float64 {
	lo, hi := max(t, e.Start), min(t+dt, e.Stop)
	if !(hi > lo) {
		return 0
	}
	return hi - lo
}

// emitterSet holds every emitter with its target columns precomputed (flat CSR arrays), so
// that applying them allocates nothing. Removed emitters stay, marked inactive, so their
// ids stay valid.
type emitterSet struct {
	list    []Emitter
	active  []bool
	tStart  []int32 // targets of emitter e: tStart[e] .. tStart[e+1]-1
	tCol    []int32
	tWeight []float64
	// The drains of the open sides (setDrains): the border columns in index order, each
	// with its coefficient n*sqrt(g)*dt/(2 dx) (n the open sides it touches), and the
	// set's dx. They act after every emitter, like sinks (applyDrains).
	dCol   []int32
	dCoef  []float64
	dDx    float64
	dSides [4]Side // the sides the drains were made for
	// gen changes whenever the set does (touch), so that a device backend uploads it only
	// then.
	gen uint64
}

// emitterGens numbers the emitter sets' versions across the process, so that a set that
// replaces another (retarget) never shows an old version.
var emitterGens atomic.Uint64

// touch records that the set changed.
func (s *emitterSet) touch() { s.gen = emitterGens.Add(1) }

// targets finds the columns an emitter acts on.
func emitterTargets(cols *terrain.Columns, e Emitter) ([]int32, error) {
	if _, _, ok := cols.CellAt(e.X, e.Y); !ok {
		return nil, fmt.Errorf("at = {%g, %g, %g} is outside the domain [0, %g] x [0, %g]",
			e.X, e.Y, e.Z, float64(cols.Nx)*cols.Dx, float64(cols.Ny)*cols.Dx)
	}
	var out []int32
	r := e.Radius
	x0, x1 := max(int(math.Floor((e.X-r)/cols.Dx)), 0), min(int(math.Floor((e.X+r)/cols.Dx)), cols.Nx-1)
	y0, y1 := max(int(math.Floor((e.Y-r)/cols.Dx)), 0), min(int(math.Floor((e.Y+r)/cols.Dx)), cols.Ny-1)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			cx, cy := cols.CellCentre(x, y)
			if math.Hypot(cx-e.X, cy-e.Y) > r {
				continue
			}
			if i := cols.ColumnAt(x, y, e.Z); i >= 0 {
				out = append(out, int32(i))
			}
		}
	}
	if len(out) == 0 {
		x, y, _ := cols.CellAt(e.X, e.Y)
		if i := cols.ColumnAt(x, y, e.Z); i >= 0 {
			out = append(out, int32(i))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("at = {%g, %g, %g}: the cell there is solid from floor to top, no liquid can go there", e.X, e.Y, e.Z)
	}
	return out, nil
}

func validateEmitter(e Emitter) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"at[1] (x)", e.X}, {"at[2] (y)", e.Y}, {"at[3] (z)", e.Z}, {"radius", e.Radius}, {"rate", e.Rate}, {"start", e.Start}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s is %v: it must be a finite number", f.name, f.v)
		}
	}
	if math.IsNaN(e.Stop) {
		return fmt.Errorf("stop is NaN")
	}
	if e.Radius < 0 {
		return fmt.Errorf("radius is %g m: it must be >= 0", e.Radius)
	}
	if e.Stop < e.Start {
		return fmt.Errorf("stop (%g s) is before start (%g s)", e.Stop, e.Start)
	}
	if e.Falls {
		if e.Rate < 0 {
			return fmt.Errorf("falls: a sink takes liquid from its columns, it cannot fall")
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"velocity[1]", e.VX}, {"velocity[2]", e.VY}, {"velocity[3]", e.VZ}} {
			if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
				return fmt.Errorf("%s is %v: it must be a finite number of m/s", f.name, f.v)
			}
		}
	}
	if e.Holds {
		switch {
		case math.IsNaN(e.Level) || math.IsInf(e.Level, 0):
			return fmt.Errorf("level is %v: it must be a finite height (m)", e.Level)
		case e.Falls:
			return fmt.Errorf("level: a source that falls pours from a point; one that holds a level puts its liquid into its columns")
		}
	}
	for i, a := range e.Spread {
		if !(a >= 0 && a <= math.Pi) {
			return fmt.Errorf("spread[%d] is %v rad: an apex half-angle must lie in [0, pi] (radians, not degrees)", i+1, a)
		}
	}
	if e.Spraying() {
		if !e.Falls {
			return fmt.Errorf("spread is {%g, %g} rad: only a source that falls (falls = true) sprays", e.Spread[0], e.Spread[1])
		}
		switch sp := math.Hypot(math.Hypot(e.VX, e.VY), e.VZ); {
		case sp == 0:
			return fmt.Errorf("spread is {%g, %g} rad with velocity {0, 0, 0}: a spray spreads around its velocity's direction", e.Spread[0], e.Spread[1])
		case math.IsInf(sp, 0):
			return fmt.Errorf("velocity {%g, %g, %g}: a spray's speed must be a finite number of m/s", e.VX, e.VY, e.VZ)
		}
	}
	return nil
}

func (s *emitterSet) add(cols *terrain.Columns, e Emitter) (int, error) {
	if err := validateEmitter(e); err != nil {
		return 0, err
	}
	tg, err := emitterTargets(cols, e)
	if err != nil {
		return 0, err
	}
	if e.Falls {
		if err := fallPoint(cols, e); err != nil {
			return 0, err
		}
		tg = nil // the particle phase pours it: the backends see no column
	}
	s.push(e, true, tg)
	return len(s.list) - 1, nil
}

// fallPoint checks that a falling source's point lies in free space.
func fallPoint(cols *terrain.Columns, e Emitter) error {
	cx, cy, _ := cols.CellAt(e.X, e.Y)
	if c := cols.ColumnAt(cx, cy, e.Z); c < 0 || float64(cols.Base[c]) > e.Z || e.Z > cols.Height {
		return fmt.Errorf("at = {%g, %g, %g} is inside a solid: a falling source pours from free space", e.X, e.Y, e.Z)
	}
	return nil
}

// push appends an emitter acting on targets, which share its rate equally.
func (s *emitterSet) push(e Emitter, active bool, targets []int32) {
	if len(s.tStart) == 0 {
		s.tStart = append(s.tStart, 0)
	}
	s.list = append(s.list, e)
	s.active = append(s.active, active)
	w := 1 / float64(max(len(targets), 1))
	for _, c := range targets {
		s.tCol = append(s.tCol, c)
		s.tWeight = append(s.tWeight, w)
	}
	s.tStart = append(s.tStart, int32(len(s.tCol)))
	s.touch()
}

// retarget returns a copy of the set with every emitter's columns found again in new
// columns (after a terrain change); ids, rates and times are kept. It fails, naming the
// emitter, if an active one's point now lies in a cell that is solid from floor to top.
func (s *emitterSet) retarget(cols *terrain.Columns) (emitterSet, error) {
	var n emitterSet
	for id, e := range s.list {
		tg, err := emitterTargets(cols, e)
		if err == nil && e.Falls {
			err, tg = fallPoint(cols, e), nil
		}
		if err != nil && s.active[id] {
			return emitterSet{}, fmt.Errorf("source or sink %d: %w", id, err)
		}
		n.push(e, s.active[id] && err == nil, tg)
	}
	return n, nil
}

// pours tells whether some falling source may still pour at time t or later.
func (s *emitterSet) pours(t float64) bool {
	for i, a := range s.active {
		if e := &s.list[i]; a && e.Falls && e.Rate > 0 && t < e.Stop {
			return true
		}
	}
	return false
}

// setDrains makes the open sides' drains for cols (docs/method.md, "Open sides"): every
// column of every cell on an open side's border, with the coefficient
// n*sqrt(g)*dt/(2 dx), n the open sides the cell touches (a corner of two open sides
// counts both). It touches the set only when something changed.
func (s *emitterSet) setDrains(cols *terrain.Columns, sides [4]Side, dt, g float64) {
	var dc []int32
	var cf []float64
	k := math.Sqrt(g) * dt / (2 * cols.Dx)
	for y := range cols.Ny {
		for x := range cols.Nx {
			n := 0
			for side, on := range [4]bool{x == 0, x == cols.Nx-1, y == 0, y == cols.Ny-1} {
				if on && sides[side] == SideOpen {
					n++
				}
			}
			if n == 0 {
				continue
			}
			cell := y*cols.Nx + x
			for i := cols.CellStart[cell]; i < cols.CellStart[cell+1]; i++ {
				dc = append(dc, int32(i))
				cf = append(cf, float64(n)*k)
			}
		}
	}
	if s.dSides == sides && s.dDx == cols.Dx && slices.Equal(s.dCol, dc) && slices.Equal(s.dCoef, cf) {
		return
	}
	s.dCol, s.dCoef, s.dDx, s.dSides = dc, cf, cols.Dx, sides
	s.touch()
}

// drainOf is the depth, m, the drain of coefficient coef (n*sqrt(g)*dt/(2 dx)) leaves in a
// column of depth d (> 0) after one step: free outfall. The liquid leaves each open side
// the column touches at the critical discharge q = sqrt(g d^3) per unit width, over the
// column's width dx, so its depth obeys d' = -(n sqrt(g)/dx) d^(3/2); drainOf is that
// equation's exact solution over dt, d / (1 + coef*sqrt(d))^2. It is in (0, d] for any
// step (a column is never emptied, nor driven below its floor, and a deep column does not
// overshoot and ring), and for coef*sqrt(d) << 1 (the critical wave's Courant number
// sqrt(g d) dt/dx small) the step's outflow is n sqrt(g d^3) dx dt. The CUDA kernel
// vp_drain_one computes it the same way (sqrt and division are correctly rounded on both).
func drainOf(coef, d float64) float64 {
	den := 1 + float64(coef*math.Sqrt(d)) // no fused multiply-add: the kernels round each step
	return d / (den * den)
}

// bookOutflow is what a drain booked in the dense layout (denseEmit): outflow v[0].
const bookOutflow = bookRemoved + 1

// applyDrains runs the open sides' drains for one step, after the emitters: each is a
// sink of what drainOf does not leave, with apply's arithmetic, booked as outflow.
func (s *emitterSet) applyDrains(dx2 float64, h, r, base []float32, acct *accounting) {
	for j := range s.dCol {
		if v, ok := s.drain(j, dx2, h, r, base); ok {
			acct.outflow += v
		}
	}
}

// drain applies drain j to its column and returns the volume that left (ok false when the
// column is dry). The dense layout calls it from its workers (denseEmit).
func (s *emitterSet) drain(j int, dx2 float64, h, r, base []float32) (float64, bool) {
	i := s.dCol[j]
	old := float64(h[i]) + float64(r[i])
	d := old - float64(base[i])
	if !(d > 0) {
		return 0, false
	}
	want := (d - drainOf(s.dCoef[j], d)) * dx2
	target := old - want/dx2
	if target <= float64(base[i]) {
		h[i], r[i] = base[i], 0
		return d * dx2, true
	}
	nh := float32(target)
	h[i], r[i] = nh, float32(target-float64(nh))
	return want, true
}

// any tells whether some emitter (or an open side's drain) may act.
func (s *emitterSet) any() bool {
	if len(s.dCol) > 0 {
		return true
	}
	for i, a := range s.active {
		if a && s.list[i].Rate != 0 {
			return true
		}
	}
	return false
}

// apply runs every emitter active at time t for one step of dt. Sources fill their columns
// up to max and report the rest as rejected; sinks take at most what is there. A column's
// exact height is h + r (r its rounding residual, see cpuBackend.r): the new height is
// rounded into h and the remainder kept in r, so the volume booked is exactly what was
// asked for, and only what a clamp at max (or base) takes is rejected (or not removed).
func (s *emitterSet) apply(t, dt, dx2 float64, h, r, base, top []float32, acct *accounting) {
	for e := range s.list {
		em := &s.list[e]
		d := em.overlap(t, dt)
		if !s.active[e] || em.Rate == 0 || d == 0 {
			continue
		}
		v := em.Rate * d
		for k := s.tStart[e]; k < s.tStart[e+1]; k++ {
			i := s.tCol[k]
			want := v * s.tWeight[k]
			old := float64(h[i]) + float64(r[i]) // the column's exact height
			if em.Holds {
				want = em.held(want, old, dx2)
			}
			target := old + want/dx2
			switch {
			case want > 0 && target >= float64(top[i]):
				put := (float64(top[i]) - old) * dx2
				h[i], r[i] = top[i], 0
				acct.added += put
				acct.rejected += want - put
			case want < 0 && target <= float64(base[i]):
				acct.removed += (old - float64(base[i])) * dx2
				h[i], r[i] = base[i], 0
			default:
				nh := float32(target)
				h[i], r[i] = nh, float32(target-float64(nh))
				if want > 0 {
					acct.added += want
				} else {
					acct.removed -= want
				}
			}
		}
	}
	s.applyDrains(dx2, h, r, base, acct)
}
