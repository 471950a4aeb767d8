package scene

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/region"
	"github.com/vpbench/vpbench/terrain"
)

// The 3D region (issue 40): a box of the scene where the liquid is a 3D grid with
// particles (package region: liquid3d coupled to the columns both ways, the volume
// exact), placed with PlaceRegion and taken out with RemoveRegion. While it lives the
// scene steps it with the columns (Step: region.Step instead of the solver's own step),
// the columns under it are held at its liquid's heights (so the surface, sim:depth and
// the pictures show it as a heightfield), and the scene adds its liquid to the columns'
// volume (Volume, the snapshot's and Stats' Volume), so that the totals stay exact. One
// at a time; the limits are region's and gpusim's Hold's (docs/method.md, "The coupling
// to the columns"), and the scene refuses what it cannot keep exact while a region
// lives (a terrain change, a fill, bodies, ...). Checkpoints save it (SaveWorld) and
// RestoreWorld places it again (restoreRegion).

// MaxRegionCells bounds a region's cells (NX x NY x NZ): a region's step costs about
// a microsecond a liquid cell and its memory a few hundred bytes a cell.
const MaxRegionCells = 1 << 20

// MaxRefine bounds a region's cells per column cell.
const MaxRefine = 32

// RegionInfo describes the region in place: its box as placed and its figures.
type RegionInfo struct {
	// ID counts the regions placed in this scene (1 for the first): a handle of a removed
	// region holds an older one.
	ID int
	// Min and Max are the box's corners as placed, m: x and y on the columns' cell edges
	// (the smallest block of column cells that holds the box asked for), z from the
	// bottom asked for up whole region cells (PlaceRegion).
	Min, Max [3]float64
	// Cell is the columns' cells the box covers along x and y (X, Y its first).
	X, Y, CellsX, CellsY int
	// Refine is the region's cells per column cell, H their edge (dx / Refine), m.
	Refine int
	H      float64
	// NX, NY, NZ are its cells along x, y and z.
	NX, NY, NZ int
	// Particles is its particles now; Volume its liquid, m^3 (its particles' and what its
	// sides hold in transit); In and Out what came in from the columns and went out into
	// them through its sides since it was placed, m^3.
	Particles       int
	Volume, In, Out float64
	// The last step's: its substeps, the pressure solve's conjugate gradient iterations
	// over them (and the most in one), the liquid cells of the last solve.
	Substeps, Iterations, MaxIterations, LiquidCells int
	// Steps is the steps it took, StepWall their wall time less the columns' own steps
	// (what the region adds: its solver and the coupling).
	Steps    int64
	StepWall time.Duration
	// Airborne is its particles standing above its held columns' surface (a splash, a
	// jet: what the picture draws as liquid in the air, region.Airborne), AirTop the
	// highest of them, m (0: none).
	Airborne int
	AirTop   float64
}

// regionState is the scene's region (nil: none) and its books.
type regionState struct {
	g     *region.Region
	id    int   // the region's RegionInfo.ID
	count int   // regions placed so far
	err   error // what the region's step met; the scene stops stepping
}

// HasRegion tells whether a region is in place.
func (s *Scene) HasRegion() bool { return s.rg.g != nil }

// RegionError is the error a region's step met, if any: the scene then steps no more.
func (s *Scene) RegionError() error { return s.rg.err }

// PlaceRegion places a 3D region in the box [lo, hi] (m) with refine region cells per
// column cell along each axis (its cells cubes of edge dx / refine), and moves the
// liquid of the columns under it into it. The box snaps to whole cells: along x and y
// to the smallest block of column cells that holds it (lo down and hi up to the cells'
// edges; a bound within a millionth of a cell of an edge is on it); along z its bottom
// is lo[2] and its top the first whole region cell at or above hi[2] (or the last
// below the domain's top). It must reach down to the floor of every column under it
// (lo[2] at or below the lowest), stand above their liquid, and lie in the domain.
//
// The limits (docs/method.md, "The coupling to the columns"): one region at a time; the
// cpu backend and the pipes method (surface tension acts on the columns around it, not
// on its own liquid); a terrain with one column in each of the box's cells and those
// around it, and no overhang or roof over a cell within region.CappedReach cells of it;
// no floating bodies; the box off the domain's open sides and no source or sink under it
// (falling ones may pour in). The region takes the solver's gravity,
// viscosity and workers when it is placed.
func (s *Scene) PlaceRegion(lo, hi [3]float64, refine int) (RegionInfo, error) {
	if _, err := s.EnsureSolver(); err != nil {
		return RegionInfo{}, err
	}
	if s.rg.g != nil {
		return RegionInfo{}, fmt.Errorf("a region is in place already (one at a time, for now): remove it first (region:remove()), or move it (region:move{...})")
	}
	set, err := s.regionSettings(lo, hi, refine)
	if err != nil {
		return RegionInfo{}, err
	}
	if err := s.placeRegion(set); err != nil {
		return RegionInfo{}, err
	}
	s.rg.count++
	s.rg.id = s.rg.count
	return s.regionInfo(), nil
}

// MoveRegion moves or resizes the region in place to the box from lo to hi with refine
// region cells a column cell (PlaceRegion's box), between steps: its liquid goes back to
// the columns (RemoveRegion) and the new box takes the columns' liquid under it, exactly,
// as particles at the columns' velocities (the 3D motion inside the old box is not
// kept); the region keeps its id, and its figures (steps, inflow, outflow) start again.
// A box PlaceRegion would refuse is refused before anything changes; should the new box
// still fail once the old one has given its liquid back (the liquid standing higher than
// its heights said), the old box is placed again.
func (s *Scene) MoveRegion(lo, hi [3]float64, refine int) (RegionInfo, error) {
	if s.rg.g == nil {
		return RegionInfo{}, fmt.Errorf("no region is in place")
	}
	set, err := s.regionSettings(lo, hi, refine)
	if err != nil {
		return RegionInfo{}, err
	}
	old := s.rg.g.Settings()
	id := s.rg.id
	s.RemoveRegion()
	if err := s.placeRegion(set); err != nil {
		if back := s.placeRegion(old); back != nil {
			return RegionInfo{}, fmt.Errorf("%v; and the region could not be placed back where it was (%v): it was removed, its liquid is in the columns", err, back)
		}
		s.rg.id = id
		return RegionInfo{}, err
	}
	s.rg.id = id
	return s.regionInfo(), nil
}

// RegionPacking is the liquid fraction above which a scene's region spreads its packed
// particles (region.Settings.Packing, docs/method.md, "A density correction"): without
// it a plunging stream packs them and the liquid stands low (scripts/jug.lua's glass
// read 17.5 mm where its volume stands 31).
const RegionPacking = 1.1

// regionSettings checks a box for a region (PlaceRegion's) against the scene and makes
// the region's settings, changing nothing. The held columns of a region in place read
// its liquid as their heights, so a move's new box is checked against the levels it
// will take.
func (s *Scene) regionSettings(lo, hi [3]float64, refine int) (region.Settings, error) {
	st := s.sim.Settings()
	switch {
	case s.sim.Stats().Backend != "cpu":
		return region.Settings{}, fmt.Errorf("the solver runs on the %s backend: a region couples to the cpu backend only, for now (backend = \"cpu\" in vp.sim, or --backend cpu)", s.sim.Stats().Backend)
	case st.Method != gpusim.MethodPipes:
		return region.Settings{}, fmt.Errorf("method is %q: a region couples to the pipes only, for now (method = \"pipes\", and no --method swe)", st.Method)
	case s.bodies.world != nil && (s.bodies.world.Count() > 0 || s.bodies.world.Lifting()):
		return region.Settings{}, fmt.Errorf("the scene has floating bodies: a region takes none yet (they would not enter its 3D liquid); place it in a scene without bodies")
	case refine < 1 || refine > MaxRefine:
		return region.Settings{}, fmt.Errorf("refine is %d: it must be between 1 and %d region cells a column cell", refine, MaxRefine)
	}
	c := s.sim.Columns()
	dx := c.Dx
	size := [3]float64{float64(c.Nx) * dx, float64(c.Ny) * dx, c.Height}
	axes := [3]string{"x", "y", "z"}
	for a := range 3 {
		if !(lo[a] < hi[a]) {
			return region.Settings{}, fmt.Errorf("min[%d] = %s is not below max[%d] = %s: the box would be empty along %s", a+1, fmtG(lo[a]), a+1, fmtG(hi[a]), axes[a])
		}
		tol := 1e-9 * size[a]
		if lo[a] < -tol || hi[a] > size[a]+tol {
			return region.Settings{}, fmt.Errorf("the box [%s, %s] x [%s, %s] x [%s, %s] m reaches out of the domain [0, %s] x [0, %s] x [0, %s] m along %s (lengths are in metres)",
				fmtG(lo[0]), fmtG(hi[0]), fmtG(lo[1]), fmtG(hi[1]), fmtG(lo[2]), fmtG(hi[2]), fmtG(size[0]), fmtG(size[1]), fmtG(size[2]), axes[a])
		}
	}
	const snap = 1e-6 // of a cell: a bound this close to an edge is on it
	x0 := max(int(math.Floor(lo[0]/dx+snap)), 0)
	x1 := min(int(math.Ceil(hi[0]/dx-snap)), c.Nx)
	y0 := max(int(math.Floor(lo[1]/dx+snap)), 0)
	y1 := min(int(math.Ceil(hi[1]/dx-snap)), c.Ny)
	if x1 <= x0 || y1 <= y0 {
		return region.Settings{}, fmt.Errorf("the box [%s, %s] x [%s, %s] m covers no column cell (dx = %s m): make it wider", fmtG(lo[0]), fmtG(hi[0]), fmtG(lo[1]), fmtG(hi[1]), fmtG(dx))
	}
	h := dx / float64(refine)
	bottom := max(lo[2], 0)
	nz := int(math.Ceil((hi[2]-bottom)/h - snap))
	if bottom+float64(nz)*h > c.Height*(1+1e-9) {
		nz = int(math.Floor((c.Height-bottom)/h + snap))
	}
	if nz < 1 {
		return region.Settings{}, fmt.Errorf("the box is %s m tall from min[3] = %s to the domain's top: less than one region cell (%s m)", fmtG(min(hi[2], c.Height)-bottom), fmtG(bottom), fmtG(h))
	}
	nx, ny := (x1-x0)*refine, (y1-y0)*refine
	if n := int64(nx) * int64(ny) * int64(nz); n > MaxRegionCells {
		return region.Settings{}, fmt.Errorf("the box is %d x %d x %d = %d region cells (refine %d): at most %d; make it smaller, or its cells coarser", nx, ny, nz, n, refine, MaxRegionCells)
	}
	top := bottom + float64(nz)*h
	// What the region would refuse, said in the scene's words.
	for side, on := range [4]bool{x0 == 0, x1 == c.Nx, y0 == 0, y1 == c.Ny} {
		if on && st.Sides[side] == gpusim.SideOpen {
			return region.Settings{}, fmt.Errorf("the box reaches the domain's open %s side: a region's box stays at least a cell off an open side, for now (or make that side walls)", gpusim.SideNames[side])
		}
	}
	var cols []int
	for j := y0; j < y1; j++ {
		for i := x0; i < x1; i++ {
			a, b := c.Cell(i, j)
			if b-a != 1 {
				return region.Settings{}, fmt.Errorf("the cell at {%s, %s} holds %d columns (an overhang, or a layer above another): a region's cells hold one column each, for now", fmtG((float64(i)+0.5)*dx), fmtG((float64(j)+0.5)*dx), b-a)
			}
			cols = append(cols, a)
		}
	}
	if i, j, under, ok := region.CappedNear(c, x0, y0, x1-x0, y1-y0); ok {
		return region.Settings{}, fmt.Errorf("the cell at {%s, %s} lies under a solid (its underside at %s m: an overhang or a roof) within %d cells of the box: a region stands %d cells off overhangs and roofs, for now (move the box, or make it smaller)",
			fmtG((float64(i)+0.5)*dx), fmtG((float64(j)+0.5)*dx), fmtG(under), region.CappedReach, region.CappedReach+1)
	}
	levels := s.sim.Levels(cols, nil)
	lowest, highest := math.Inf(1), math.Inf(-1)
	lowAt, highAt := 0, 0
	for k, col := range cols {
		if f := float64(s.sim.Floor(col)); f < lowest {
			lowest, lowAt = f, k
		}
		if levels[k] > highest {
			highest, highAt = levels[k], k
		}
	}
	at := func(k int) string {
		return fmt.Sprintf("{%s, %s}", fmtG((float64(x0+k%(x1-x0))+0.5)*dx), fmtG((float64(y0+k/(x1-x0))+0.5)*dx))
	}
	if lowest < float64(float32(bottom)) {
		return region.Settings{}, fmt.Errorf("min[3] = %s is above the floor under the box (%s m at %s): the box must reach down to the lowest floor under it", fmtG(lo[2]), fmtG(lowest), at(lowAt))
	}
	bottom = min(bottom, lowest) // a floor a float32 rounding below the bottom asked for is on it
	top = bottom + float64(nz)*h
	if highest > top {
		return region.Settings{}, fmt.Errorf("the liquid under the box stands at %s m (at %s), above the box's top (%s m): raise max[3]", fmtG(highest), at(highAt), fmtG(top))
	}
	set := region.Settings{X: x0, Y: y0, NX: x1 - x0, NY: y1 - y0, Refine: refine, Bottom: bottom, NZ: nz,
		Viscosity: st.Viscosity, Workers: st.Workers, Packing: RegionPacking}
	if s.solid != nil && s.solid != emptySolid {
		set.Solid = s.solid
	}
	return set, nil
}

// placeRegion places a region of settings set (regionSettings'); the caller sets its id.
func (s *Scene) placeRegion(set region.Settings) error {
	g, err := region.New(s.sim, set)
	if err != nil {
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "region: "), "hold: ")
		if strings.Contains(msg, "target") {
			msg += ": no source or sink may pour into a region's columns (make it fall, falls = true, or move the box)"
		}
		return fmt.Errorf("%s", msg)
	}
	s.rg.g, s.rg.err = g, nil
	s.sim.Publish() // the held columns' heights, written after Hold published
	s.stale()
	return nil
}

// restoreRegion places a checkpoint's region (region.Restore) over the columns the
// solver's state, just read, holds, with the terrain's solid and the solver's workers,
// as PlaceRegion gave them, and its id.
func (s *Scene) restoreRegion(w *WorldRegion) error {
	var solid terrain.Solid
	if s.solid != nil && s.solid != emptySolid {
		solid = s.solid
	}
	g, err := region.Restore(s.sim, w.State, solid, s.sim.Settings().Workers)
	if err != nil {
		return err
	}
	s.rg.g, s.rg.id, s.rg.err = g, w.ID, nil
	s.sim.Publish() // the held columns' heights, as PlaceRegion publishes them
	s.stale()
	return nil
}

// RemoveRegion takes the region out: its liquid goes back to the columns under it
// (region.Close: each particle into the column of the cell it lies over, what its sides
// hold in transit into the cells beside them), exactly, and the columns are free again.
// Without a region it does nothing.
func (s *Scene) RemoveRegion() {
	if s.rg.g == nil {
		return
	}
	s.rg.g.Close()
	s.rg.g, s.rg.err = nil, nil
	s.stale()
}

// RegionInfo describes the region in place; ok is false without one.
func (s *Scene) RegionInfo() (info RegionInfo, ok bool) {
	if s.rg.g == nil {
		return RegionInfo{}, false
	}
	return s.regionInfo(), true
}

// RegionClock is the region's ID, the steps it took and their wall time less the
// columns' own steps (RegionInfo's ID, Steps and StepWall), without the rest of
// RegionInfo: the engine reads it around every frame for Table 1's region row, and it
// costs nothing. ok is false without a region.
func (s *Scene) RegionClock() (id int, steps int64, wall time.Duration, ok bool) {
	if s.rg.g == nil {
		return 0, 0, 0, false
	}
	steps, _, wall = s.rg.g.Timing()
	return s.rg.id, steps, wall, true
}

func (s *Scene) regionInfo() RegionInfo {
	g := s.rg.g
	set := g.Settings()
	liq := g.Liquid()
	ls := liq.Settings()
	dx := s.sim.Columns().Dx
	in := RegionInfo{ID: s.rg.id, X: set.X, Y: set.Y, CellsX: set.NX, CellsY: set.NY, Refine: set.Refine, H: ls.H,
		NX: ls.NX, NY: ls.NY, NZ: ls.NZ, Particles: liq.Count(), Volume: g.Volume(), In: liq.Inflow()}
	in.Min = [3]float64{float64(set.X) * dx, float64(set.Y) * dx, set.Bottom}
	in.Max = [3]float64{float64(set.X+set.NX) * dx, float64(set.Y+set.NY) * dx, set.Bottom + float64(set.NZ)*ls.H}
	_, in.Out = liq.Accounting()
	ls2 := liq.LastStats()
	in.Substeps, in.Iterations, in.MaxIterations, in.LiquidCells = ls2.Substeps, ls2.Iterations, ls2.MaxIterations, ls2.LiquidCells
	in.Steps, _, in.StepWall = g.Timing()
	in.Airborne, in.AirTop = g.AirborneCount()
	return in
}

// stepRegion runs n steps of the region and the columns (region.Step), then publishes
// the state (the held columns' heights and what crossed the border, written after the
// columns' step published its own). The first error stops it; the scene steps no more.
func (s *Scene) stepRegion(n int) {
	if s.rg.err != nil {
		return
	}
	for range n {
		if err := s.rg.g.Step(); err != nil {
			s.rg.err = fmt.Errorf("the region's step at t = %.6g s: %s", s.sim.Time(), strings.TrimPrefix(err.Error(), "region: "))
			break
		}
	}
	s.sim.Publish()
}

// regionVolume is the region's share of the scene's volume (0 without one).
func (s *Scene) regionVolume() float64 {
	if s.rg.g == nil {
		return 0
	}
	return s.rg.g.Volume()
}

// bookRegion keeps the scene's exact volume for the snapshot and the readers on other
// goroutines (Stats, CopySnapshot) while a region is in place: the columns' (gpusim's
// Volume, which leaves the held ones out) and the region's. The solver's snapshot sums
// the held columns' heights instead, the region's liquid over each cell as the region
// spreads it: not exact.
func (s *Scene) bookRegion() {
	if s.rg.g == nil || s.sim == nil {
		s.regionOn.Store(false)
		return
	}
	s.regionTotal.Store(math.Float64bits(s.sim.Volume() + s.rg.g.Volume()))
	s.regionOn.Store(true)
}

// exactVolume is the scene's volume as bookRegion last kept it; ok is false without a
// region (the snapshot's own volume is exact then).
func (s *Scene) exactVolume() (v float64, ok bool) {
	if !s.regionOn.Load() {
		return 0, false
	}
	return math.Float64frombits(s.regionTotal.Load()), true
}

// regionRefuses is the error of what the scene cannot do while a region is in place
// (what: "the terrain cannot change"), or nil without one.
func (s *Scene) regionRefuses(what string) error {
	if s.rg.g == nil {
		return nil
	}
	return fmt.Errorf("%s while a region is in place: remove it first (region:remove()), and place it again after", what)
}

// regionChange refuses a change of the solver's settings the region in place cannot
// follow (a method other than the pipes, another gravity, a side of
// the domain the box touches opened), or nil.
func (s *Scene) regionChange(old, st gpusim.Settings) error {
	if s.rg.g == nil {
		return nil
	}
	set := s.rg.g.Settings()
	c := s.sim.Columns()
	switch {
	case st.Method != gpusim.MethodPipes:
		return fmt.Errorf("method = %q: a region is in place, and it couples to the pipes only, for now: remove it first (region:remove())", st.Method)
	case st.Gravity != old.Gravity:
		return fmt.Errorf("gravity = %s: a region is in place, and its gravity is the one it was placed with: remove it first (region:remove())", fmtG(st.Gravity))
	}
	for side, on := range [4]bool{set.X == 0, set.X+set.NX == c.Nx, set.Y == 0, set.Y+set.NY == c.Ny} {
		if on && st.Sides[side] == gpusim.SideOpen && old.Sides[side] != gpusim.SideOpen {
			return fmt.Errorf("sides: the %s side cannot open while the region's box reaches it: remove the region first (region:remove())", gpusim.SideNames[side])
		}
	}
	return nil
}

// fmtG prints a number for a message: as written where it has few digits, else to 6
// significant digits.
func fmtG(f float64) string {
	s := fmt.Sprintf("%g", f)
	if len(s) > 10 {
		s = fmt.Sprintf("%.6g", f)
	}
	return s
}
