package gpusim

// Held columns: columns whose liquid another solver owns, such as a 3D region over them
// (docs/solver.md, "Held columns"). The holder writes their heights each step (SetHeld),
// and the step leaves them alone: their height update is skipped, and the pipes between
// a held and a free column (the border pipes) are computed as any pipe's, from both
// heights, and kept as state, but moved by neither end: what crosses the border is the
// holder's to move, and it does so exactly (Move, Release, TakeLanded), booked as
// exchanged. Held columns are left out of Volume: Volume = added - removed - Outflow +
// Exchanged.

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/vpbench/vpbench/gpusim/internal/element"
	"github.com/vpbench/vpbench/terrain"
)

// The mark of a column (heldState.mark, cpuBackend.hold).
const (
	markFree   uint8 = iota // a column the solver steps, with no pipe to a held column
	markHeld                // held: its height is written from outside
	markBorder              // free, with at least one pipe to a held column
)

// heldState is the Sim's record of its held columns.
type heldState struct {
	cols   []int32 // the held columns, in the order Hold got them
	mark   []uint8 // per column: markFree, markHeld or markBorder
	inner  []int32 // the pipes between two held columns, in pipe order
	border []int32 // the pipes between a held and a free column, in pipe order
}

// Hold makes the given columns held (docs/solver.md, "Held columns"), replacing the
// columns held before (none: nothing is held). From then on the step leaves their
// heights alone and moves nothing through the border pipes (the pipes between a held and
// a free column; HeldPipes), Volume leaves them out, and their liquid is booked as
// exchanged: out when a column is held, in when it is let go. The heights they hold
// stay until SetHeld writes others.
//
// For the cpu backend and the pipes method only, and where no extended pipe can reach (no
// capped column within heldReach cells of a held one: cappedNear); the dense layout's fast path and the general
// layout's vector kernels do not take held columns or the free columns beside them (the
// general layout's column loops do), so a Sim on the dense layout moves to the general
// one, which gives the same bits. With surface tension the capillary head reads the
// held heights as any column's (it moves no liquid: it drives the pipes' fluxes,
// the border pipes' too). A held column may not lie on an open
// side's border, be an emitter's target or have a lifted floor. On an error nothing
// changes.
func (s *Sim) Hold(cols []int) error {
	s.Sync()
	if len(cols) == 0 && s.held == nil {
		return nil
	}
	n := s.cols.NumColumns()
	mark := make([]uint8, n)
	for _, i := range cols {
		if i < 0 || i >= n {
			return fmt.Errorf("hold: column %d is outside [0, %d)", i, n)
		}
		if mark[i] == markHeld {
			return fmt.Errorf("hold: column %d is listed twice", i)
		}
		mark[i] = markHeld
	}
	if len(cols) > 0 {
		if err := s.canHold(mark); err != nil {
			return err
		}
	}
	if len(cols) > 0 && s.be.(*cpuBackend).dense != nil {
		s.toGeneral()
	}
	inner, border := s.heldPipes(mark)
	// The liquid of the columns let go comes in, that of the columns held goes out.
	s.be.readHeight(s.scratch)
	s.be.readResidual(s.residual)
	dx2 := s.cols.Dx * s.cols.Dx
	depth := func(i int) float64 {
		return (float64(s.scratch[i]) - float64(s.Floor(i))) + float64(s.residual[i])
	}
	if s.held != nil {
		for _, i := range s.held.cols {
			if mark[i] != markHeld {
				s.acct.exchanged += depth(int(i)) * dx2
			}
		}
	}
	old := s.held
	s.held = nil
	if len(cols) > 0 {
		s.held = &heldState{mark: mark, inner: inner, border: border}
		for _, i := range cols {
			s.held.cols = append(s.held.cols, int32(i))
			if old == nil || old.mark[i] != markHeld {
				s.acct.exchanged -= depth(i) * dx2
			}
		}
	}
	var m []uint8
	if s.held != nil {
		m = s.held.mark
	}
	s.be.(*cpuBackend).setHeld(m)
	s.fall.setHeld(m, s.settings)
	s.publish()
	return nil
}

// heldPipes returns the pipes between two columns marked held (inner) and between a held
// and a free one (border), in pipe order, and marks the free ends markBorder.
func (s *Sim) heldPipes(mark []uint8) (inner, border []int32) {
	for p := range s.topo.pipeA {
		a, b := mark[s.topo.pipeA[p]] == markHeld, mark[s.topo.pipeB[p]] == markHeld
		switch {
		case a && b:
			inner = append(inner, int32(p))
		case a:
			border = append(border, int32(p))
			mark[s.topo.pipeB[p]] = markBorder
		case b:
			border = append(border, int32(p))
			mark[s.topo.pipeA[p]] = markBorder
		}
	}
	return inner, border
}

// canHold says why the columns marked held cannot be (Hold), or nil.
func (s *Sim) canHold(mark []uint8) error {
	st := s.settings
	switch {
	case s.be.name() != "cpu":
		return fmt.Errorf("hold: the %s backend cannot hold columns (the cpu backend only, for now)", s.be.name())
	case st.Method != MethodPipes:
		return fmt.Errorf("hold: method %q cannot hold columns (the pipes only, for now)", st.Method)
	}
	if i, j, ok := cappedNear(s.cols, mark); ok {
		return fmt.Errorf("hold: %s", cappedNearError(s.cols, i, j))
	}
	if i, side, ok := heldOnOpenSide(s.cols, mark, st.Sides); ok {
		return fmt.Errorf("hold: column %d lies on the open side %s's border", i, SideNames[side])
	}
	for i, m := range mark {
		if m == markHeld && s.lift.at != nil && s.lift.at[i] >= 0 {
			return fmt.Errorf("hold: column %d has a lifted floor", i)
		}
	}
	if i, id, ok := heldTarget(&s.em, mark); ok {
		e := s.em.list[id]
		return fmt.Errorf("hold: column %d is source or sink %d's target (at {%g, %g, %g})", i, id, e.X, e.Y, e.Z)
	}
	return nil
}

// heldReach is how many cells (steps to a cell beside) from a held column a capped column
// may not lie (cappedNear): an extended pipe ends at a column beside a capped one (an end
// of a run of full columns, or a column opening onto a passage), so none ends at a held
// column or at a free one beside held ones, whose updates leave extended flows out
// (heldOutflow, heldHeight), and neither is capped (a full flag the height phase keeps).
const heldReach = 2

// cappedNear finds a column a solid caps (Max below the domain's top: passages may form
// there) in a cell within heldReach cells of a cell holding a column marked held; it
// returns that held column and the capped one.
func cappedNear(c *terrain.Columns, mark []uint8) (held, capped int, ok bool) {
	isCapped := func(j int) bool { return float64(c.Max[j]) < c.Height*(1-1e-6) }
	held, ok = firstHeld(c, mark, func(x, y, _ int) bool {
		for dy := -heldReach; dy <= heldReach; dy++ {
			for dx := -heldReach; dx <= heldReach; dx++ {
				x2, y2 := x+dx, y+dy
				if max(dx, -dx)+max(dy, -dy) > heldReach || x2 < 0 || y2 < 0 || x2 >= c.Nx || y2 >= c.Ny {
					continue
				}
				a, b := c.Cell(x2, y2)
				for j := a; j < b; j++ {
					if isCapped(j) {
						capped = j
						return true
					}
				}
			}
		}
		return false
	})
	return held, capped, ok
}

// firstHeld is the first column marked held, in column order, of whose cell (x, y) test
// says true.
func firstHeld(c *terrain.Columns, mark []uint8, test func(x, y, i int) bool) (int, bool) {
	for y := range c.Ny {
		for x := range c.Nx {
			lo, hi := c.Cell(x, y)
			for i := lo; i < hi; i++ {
				if mark[i] == markHeld && test(x, y, i) {
					return i, true
				}
			}
		}
	}
	return 0, false
}

// cappedNearError says that capped column j lies too near held column i (cappedNear).
func cappedNearError(c *terrain.Columns, i, j int) string {
	cell := func(k int) (int, int) {
		n := sort.Search(c.Nx*c.Ny, func(n int) bool { return int(c.CellStart[n+1]) > k })
		return n % c.Nx, n / c.Nx
	}
	xi, yi := cell(i)
	xj, yj := cell(j)
	return fmt.Sprintf("column %d in cell (%d, %d) lies under a solid (at %g m: an overhang or a roof, passages may form) within %d cells of held column %d in cell (%d, %d): held columns stand %d cells off capped ones, for now",
		j, xj, yj, c.Max[j], heldReach, i, xi, yi, heldReach+1)
}

// heldOnOpenSide finds a column marked held in a cell on the border of an open side
// (the first in column order, and that side), which Hold refuses.
func heldOnOpenSide(c *terrain.Columns, mark []uint8, sides [4]Side) (col, side int, ok bool) {
	col, ok = firstHeld(c, mark, func(x, y, _ int) bool {
		for s, on := range [4]bool{x == 0, x == c.Nx-1, y == 0, y == c.Ny-1} {
			if on && sides[s] == SideOpen {
				side = s
				return true
			}
		}
		return false
	})
	return col, side, ok
}

// heldTarget finds a column marked held that an active source or sink of em pours into
// (the first, and the emitter's id), which Hold refuses.
func heldTarget(em *emitterSet, mark []uint8) (col, id int, ok bool) {
	for id := range em.list {
		if !em.active[id] {
			continue
		}
		for k := em.tStart[id]; k < em.tStart[id+1]; k++ {
			if mark[em.tCol[k]] == markHeld {
				return int(em.tCol[k]), id, true
			}
		}
	}
	return 0, 0, false
}

// toGeneral moves the CPU backend from the dense layout to the general one (the same
// bits), with the state carried over: heights, residuals, fluxes, lifted floors and the
// capillary head's last pass (its heights and wetted flags, as switchMethod carries
// them; the passages, which Hold refuses, have none).
func (s *Sim) toGeneral() {
	n := s.cols.NumColumns()
	h, r := make([]float32, n), make([]float32, n)
	s.be.readHeight(h)
	s.be.readResidual(r)
	f := s.Fluxes(nil)
	capPrev, capWet := make([]float32, n), make([]uint8, n)
	capFresh, capOn := s.be.(*cpuBackend).saveCap(capPrev, capWet)
	var cols []int32
	var floors []float32
	for _, i := range s.lift.lifted {
		cols = append(cols, i)
		floors = append(floors, s.lift.floor[i])
	}
	old := s.be
	s.opts.general = true
	be := newCPUBackend(s.topo, s.solverWorkers(s.settings.Workers), s.settings.ExtendedPipes, s.settings.Method, s.opts)
	old.close()
	s.be = be
	s.holder.be = be
	s.apply(s.settings)
	if len(cols) > 0 {
		_ = be.liftFloors(cols, floors)
	}
	be.writeHeight(h)
	be.writeResidual(r)
	be.writeFlux(f)
	if capOn {
		be.restoreCap(capPrev, capWet, capFresh)
	}
}

// Held returns the held columns, in the order Hold got them (nil: none).
func (s *Sim) Held() []int {
	if s.held == nil {
		return nil
	}
	out := make([]int, len(s.held.cols))
	for k, i := range s.held.cols {
		out[k] = int(i)
	}
	return out
}

// HeldPipes returns the pipes between two held columns (inner) and between a held and a
// free column (border), each in pipe order (Pipe gives their ends).
func (s *Sim) HeldPipes() (inner, border []int) {
	if s.held == nil {
		return nil, nil
	}
	for _, p := range s.held.inner {
		inner = append(inner, int(p))
	}
	for _, p := range s.held.border {
		border = append(border, int(p))
	}
	return inner, border
}

// SetHeld writes the held columns' exact heights (m, absolute, in Hold's order; each in
// [floor, max]), and, unless inner is nil, the fluxes of the pipes between held columns
// (m^3/s, in HeldPipes' order): the flow the holder has there, for the velocities read
// from the columns. Nothing is booked: held columns are the holder's. The snapshot shows
// them from the next step on. On an error nothing changes.
func (s *Sim) SetHeld(heights []float64, inner []float32) error {
	s.Sync()
	if s.held == nil {
		return fmt.Errorf("set held: no column is held")
	}
	if len(heights) != len(s.held.cols) {
		return fmt.Errorf("set held: %d heights for %d held columns", len(heights), len(s.held.cols))
	}
	if inner != nil && len(inner) != len(s.held.inner) {
		return fmt.Errorf("set held: %d fluxes for %d pipes between held columns", len(inner), len(s.held.inner))
	}
	for k, i := range s.held.cols {
		if v := heights[k]; !(v >= float64(s.Floor(int(i))) && v <= float64(s.cols.Max[i])) {
			return fmt.Errorf("set held: column %d: h = %g is outside [floor, max] = [%g, %g]", i, v, s.Floor(int(i)), s.cols.Max[i])
		}
	}
	for k, f := range inner {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return fmt.Errorf("set held: the flux of pipe %d is %g: it must be finite", s.held.inner[k], f)
		}
	}
	c := s.be.(*cpuBackend)
	for k, i := range s.held.cols {
		nh := float32(heights[k])
		c.h[i], c.r[i] = nh, float32(heights[k]-float64(nh))
	}
	if inner != nil {
		for k, p := range s.held.inner {
			c.f[p] = inner[k]
		}
	}
	return nil
}

// Levels fills dst (made when too short) with the exact liquid levels (m, absolute: the
// height plus its rounding residual) of the columns cols.
func (s *Sim) Levels(cols []int, dst []float64) []float64 {
	s.Sync()
	if cap(dst) < len(cols) {
		dst = make([]float64, len(cols))
	}
	dst = dst[:len(cols)]
	h, r := s.be.(hostState).columns()
	for k, i := range cols {
		dst[k] = float64(h[i]) + float64(r[i])
	}
	return dst
}

// PipeFluxes fills dst (made when too short) with the fluxes of the pipes (m^3/s,
// positive from a pipe's first column to its second).
func (s *Sim) PipeFluxes(pipes []int, dst []float32) []float32 {
	s.Sync()
	if cap(dst) < len(pipes) {
		dst = make([]float32, len(pipes))
	}
	dst = dst[:len(pipes)]
	for k, p := range pipes {
		dst[k] = *s.be.(*cpuBackend).flux(p)
	}
	return dst
}

// Move puts vol m^3 of liquid into the free column col (vol < 0 takes it out), booked as
// exchanged: how a holder hands the columns what crossed the border. The column's exact
// level moves by vol / dx^2; taken below its floor, the column owes the rest (its
// residual goes negative, it lets nothing out until inflows repay it), so the volume
// stays exact. Up to its max; beyond, it is an error, and nothing changes.
func (s *Sim) Move(col int, vol float64) error {
	s.Sync()
	if col < 0 || col >= s.cols.NumColumns() {
		return fmt.Errorf("move: column %d is outside [0, %d)", col, s.cols.NumColumns())
	}
	if s.held != nil && s.held.mark[col] == markHeld {
		return fmt.Errorf("move: column %d is held", col)
	}
	if math.IsNaN(vol) || math.IsInf(vol, 0) {
		return fmt.Errorf("move: volume %g: it must be finite", vol)
	}
	hs, ok := s.be.(hostState)
	if !ok {
		return fmt.Errorf("move: the %s backend cannot move liquid between solvers", s.be.name())
	}
	h, r := hs.columns()
	lvl := float64(h[col]) + float64(r[col]) + vol/(s.cols.Dx*s.cols.Dx)
	if lvl > float64(s.cols.Max[col]) {
		return fmt.Errorf("move: column %d would reach %g m, above its max %g m", col, lvl, s.cols.Max[col])
	}
	nh := max(float32(lvl), s.Floor(col))
	h[col], r[col] = nh, float32(lvl-float64(nh))
	hs.commit([]int32{int32(col)})
	s.acct.exchanged += vol
	return nil
}

// Release puts a parcel of liquid of volume vol (m^3) into the air at (x, y, z) moving at
// (vx, vy, vz) m/s, as Drop does, booked as exchanged: liquid that left a holder above
// the columns' surface. It falls and lands like released liquid; where it lands on a held
// column it goes back to the holder (TakeLanded). The snapshot shows it from the next
// step on.
func (s *Sim) Release(x, y, z, vol, vx, vy, vz float64) error {
	if err := s.drop("release", x, y, z, vol, vx, vy, vz); err != nil {
		return err
	}
	s.acct.exchanged += vol
	return nil
}

// TakeLanded appends to dst the parcels of falling liquid that landed on held columns
// since the last call (where they met the held column's surface, with their velocity
// and volume), in the order they landed, and forgets them. Their volume left the Sim
// when they landed, booked as exchanged: they are the holder's to take in.
func (s *Sim) TakeLanded(dst []Particle) []Particle {
	dst = append(dst, s.fall.heldLanded...)
	s.fall.heldLanded = s.fall.heldLanded[:0]
	return dst
}

// Publish makes the state now the published one (Snapshot, Stats, Heights), as a step
// does at its end: a holder's changes after a step (Move, SetHeld) are not in the step's
// snapshot, and a holder that steps the Sim calls it once it has written them.
func (s *Sim) Publish() {
	s.Sync()
	s.publish()
}

// Exchanged is the net volume, m^3, a holder of columns moved into the Sim (Move,
// Release, held columns let go) less what it took out (Move, held columns, landings on
// them): Volume = added - removed - Outflow + Exchanged.
func (s *Sim) Exchanged() float64 {
	s.Sync()
	return s.acct.exchanged
}

// volumeFree is the volume of the columns h and r describe (volumeOf), less the held
// ones.
func (s *Sim) volumeFree(h, r []float32) float64 {
	if s.held == nil {
		v, _ := volumeOf(h, r, s.cols.Base, s.cols.Dx)
		return v
	}
	var total float64
	for i, m := range s.held.mark {
		if m != markHeld {
			total += float64(h[i]) - float64(s.cols.Base[i]) + float64(r[i])
		}
	}
	return total * s.cols.Dx * s.cols.Dx
}

// setHeld marks the held columns and the free ones beside them (nil: none): the vector
// kernels leave them to the column loops, which skip the held columns' height update
// and the border pipes' share of the free ones'.
func (c *cpuBackend) setHeld(mark []uint8) {
	c.hold = mark
	if c.regular == nil {
		return
	}
	c.regular = regularColumns(c.topo)
	for i, m := range mark {
		if m != markFree {
			c.regular[i] = false
		}
	}
	n := c.nw
	c.close()
	c.setWorkers(n)
}

// heldOutflow is csrOutflowColumns for a held column i: K and S from its border pipes
// alone (the pipes to other held columns carry nothing the step moves), flagged for
// csrInflow where it may overflow.
func (c *cpuBackend) heldOutflow(i int, flag []int32) []int32 {
	as, ap, ao, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjOther, c.topo.adjSign
	var out2, in2 float32
	for e := as[i]; e < as[i+1]; e++ {
		if c.hold[ao[e]] != markHeld {
			out2, in2 = element.SplitSum(out2, in2, c.f[ap[e]]*sg[e])
		}
	}
	c.k[i] = c.p.OutflowFactor(out2*0.5, (c.h[i]-c.base[i])+c.r[i])
	c.s[i] = 1
	if c.p.MayOverflow(in2*0.5, (c.top[i]-c.h[i])-c.r[i]) {
		flag = append(flag, int32(i))
	}
	return flag
}

// heldHeight is csrHeightColumns for a marked column i: a held one keeps its height
// (the holder writes it), a free one beside held ones is updated without its border
// pipes (the holder moves what crosses them).
func (c *cpuBackend) heldHeight(i int) {
	if c.hold[i] == markHeld {
		return
	}
	as, ap, ao, sg := c.topo.adjStart, c.topo.adjPipe, c.topo.adjOther, c.topo.adjSign
	var out float64
	for e := as[i]; e < as[i+1]; e++ {
		if c.hold[ao[e]] != markHeld {
			out += float64(c.f[ap[e]] * sg[e])
		}
	}
	c.h[i], c.r[i] = element.SettleHeight(c.p.UpdateHeight(out, c.h[i], c.r[i]), c.base[i], c.top[i])
}

// checkHeldSaved checks a checkpoint's held columns (version 7; none: nil, nil) against
// what Hold allows, with the checkpoint's settings st and emitters em, and returns their
// marks (heldState.mark without the border marks); it changes nothing.
func (s *Sim) checkHeldSaved(cp *checkpoint, st Settings, em *emitterSet) ([]uint8, error) {
	if cp.held == nil { // parcels landed before Hold(nil) may wait still (TakeLanded)
		return nil, nil
	}
	n := s.cols.NumColumns()
	mark := make([]uint8, n)
	for _, i := range cp.held {
		if i < 0 || int(i) >= n {
			return nil, fmt.Errorf("checkpoint is corrupt: held column %d is outside [0, %d)", i, n)
		}
		if mark[i] == markHeld {
			return nil, fmt.Errorf("checkpoint is corrupt: held column %d is listed twice", i)
		}
		mark[i] = markHeld
	}
	switch {
	case s.be.name() != "cpu":
		return nil, fmt.Errorf("checkpoint: it holds %d columns (a 3D region's): the %s backend cannot hold columns (the cpu backend only, for now)", len(cp.held), s.be.name())
	case st.Method != MethodPipes:
		return nil, fmt.Errorf("checkpoint is corrupt: it holds %d columns with method %q (the pipes only)", len(cp.held), st.Method)
	}
	if i, j, ok := cappedNear(s.cols, mark); ok {
		return nil, fmt.Errorf("checkpoint is corrupt: %s", cappedNearError(s.cols, i, j))
	}
	for k, i := range cp.liftCol {
		if mark[i] == markHeld {
			return nil, fmt.Errorf("checkpoint is corrupt: held column %d has a lifted floor (%d)", i, k)
		}
	}
	if i, side, ok := heldOnOpenSide(s.cols, mark, st.Sides); ok {
		return nil, fmt.Errorf("checkpoint is corrupt: held column %d lies on the open side %s's border", i, SideNames[side])
	}
	if i, id, ok := heldTarget(em, mark); ok {
		return nil, fmt.Errorf("checkpoint is corrupt: held column %d is source or sink %d's target", i, id)
	}
	return mark, nil
}

// restoreHeld holds the columns cols (marked held in mark, checked by checkHeldSaved) as
// Hold does, but books nothing: the checkpoint's accounting has the exchanged volume.
// On a Sim that holds nothing (ReadCheckpoint refuses one that does).
func (s *Sim) restoreHeld(cols []int32, mark []uint8) {
	if s.be.(*cpuBackend).dense != nil {
		s.toGeneral()
	}
	inner, border := s.heldPipes(mark)
	s.held = &heldState{cols: slices.Clone(cols), mark: mark, inner: inner, border: border}
	s.be.(*cpuBackend).setHeld(mark)
	s.fall.setHeld(mark, s.settings)
}

// heldAfterTerrain is the columns to hold in the terrain cols after SetTerrain, the
// columns of the cells the held columns lie in, in Hold's order (nil: none held), or why
// they cannot be held there: a cell that does not hold exactly one column, capped columns
// near them (cappedNear: passages may form), a source's or sink's target (em, retargeted to cols). What Hold
// checks besides does not change with the terrain (the backend, the method, surface
// tension, the open sides' cells); lifted floors are dropped with it.
func (s *Sim) heldAfterTerrain(cols *terrain.Columns, em *emitterSet) ([]int, error) {
	if s.held == nil {
		return nil, nil
	}
	old := s.cols
	out := make([]int, 0, len(s.held.cols))
	mark := make([]uint8, cols.NumColumns())
	for _, i := range s.held.cols {
		k := sort.Search(old.Nx*old.Ny, func(k int) bool { return int(old.CellStart[k+1]) > int(i) }) // i's cell
		x, y := k%old.Nx, k/old.Nx
		lo, hi := cols.Cell(x, y)
		if hi-lo != 1 {
			return nil, fmt.Errorf("cell (%d, %d) of held column %d would hold %d columns: a held column's cell must hold one", x, y, i, hi-lo)
		}
		out = append(out, lo)
		mark[lo] = markHeld
	}
	if i, j, ok := cappedNear(cols, mark); ok {
		return nil, fmt.Errorf("in the new terrain %s", cappedNearError(cols, i, j))
	}
	if i, id, ok := heldTarget(em, mark); ok {
		e := em.list[id]
		return nil, fmt.Errorf("source or sink %d (at {%g, %g, %g}) would pour into held column %d", id, e.X, e.Y, e.Z, i)
	}
	return out, nil
}
