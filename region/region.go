// Package region couples a 3D region of liquid (liquid3d) to the heightfield columns
// around it (gpusim), both ways, with the volume exact (docs/method.md, "The coupling to
// the columns"). The region's box stands over a block of the columns' cells; the
// columns under it are held (gpusim's Sim.Hold): their heights are the region's liquid
// over their cells, written each step, and the columns' step leaves them alone. The
// region's vertical sides are liquid3d Columns sides: their levels are those of the
// free columns just outside the box, their normal velocities the fluxes of the pipes
// across the box's side (the border pipes, computed by the columns' step from the
// outside level and the held height) over the sides' wet area. What the sides' inflow
// books is taken from the outside columns; what leaves the region through a side goes
// into the column there, through a buffer drained at the border pipe's outflow, or
// into the air when it leaves well above the column's level; falling liquid that lands
// on the held columns enters the region. The columns, the air and the region (its
// particles, its sides' reservoirs and buffers) hold together what the columns' own
// books say, to rounding.
package region

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/liquid3d"
	"github.com/vpbench/vpbench/terrain"
)

// Settings place a region over the columns and set its own physics.
type Settings struct {
	// X, Y are the column cell at the box's corner with the smallest coordinates, NX and
	// NY the box's size in column cells (each >= 1).
	X, Y, NX, NY int
	// Refine is the region's cells per column cell along x and y (>= 1; 0 means 1): the
	// region's cell edge is dx / Refine, and its cells are cubes.
	Refine int
	// Bottom is the box's floor, m (absolute z); NZ its height in region cells. The box
	// must hold the liquid of the columns under it, and its top must not pass the domain's.
	Bottom float64
	NZ     int
	// Solid is the terrain inside the box, for the region (liquid3d.Settings.Solid), or
	// nil: a flat floor at Bottom, where the columns' floors must then lie.
	Solid terrain.Solid
	// Viscosity is the region's kinematic viscosity, m^2/s (0: none).
	Viscosity float64
	// Packing is the liquid fraction above which the region spreads packed particles
	// (liquid3d.Settings.Packing, with its default Spread; 0: no density correction).
	Packing float64
	// Workers is the region's goroutines (< 1: every processor); the results are the same
	// bits for any number.
	Workers int
}

// Region is a 3D region of liquid coupled to the columns of a gpusim.Sim. Step steps
// both; the Sim must not be stepped otherwise while the region lives.
type Region struct {
	sim    *gpusim.Sim
	liq    *liquid3d.Sim
	set    Settings
	r      int     // Refine
	dx, h  float64 // the columns' cell, the region's
	held   []int   // the held columns: cell (X+i, Y+j) at i + NX j
	base   []float64
	top    []float64
	sides  [4]*side // indexed by liquid3d.Side; nil for a wall
	inner  []int    // the pipes between held columns (HeldPipes' order)
	innerA []int32  // their ends, as indices into held
	innerB []int32
	innerY []bool // along y (else x)

	// Scratch.
	parts   []liquid3d.Particle
	heights []float64
	innerF  []float32
	cellT   []float64 // per held cell: the region's mean thickness
	cellP   []float64 // per held cell: its particles' share of cellT (m^3, before the division)
	cellZ   []float64 // per held cell: the highest particle with a share in it, m
	cellU   []float64
	cellV   []float64
	recs    []liquid3d.Particle
	balls   []liquid3d.Particle // what a landed parcel enters as (land)
	landed  []gpusim.Particle

	// The wall time of the steps (Timing): the columns' own steps, and the rest (the
	// region's step and the coupling).
	steps            int64
	colWall, ownWall time.Duration
	lastCol          time.Duration
}

// side is one of the box's Columns sides, with the columns beyond it.
type side struct {
	s    liquid3d.Side
	n    int       // column cells along it
	out  []int     // per cell: the free column beyond the side
	held []int     // per cell: the held cell beside the side (an index into Region.held)
	pipe []int     // per cell: the pipe across the side
	into []float64 // per cell: +1 where a positive flux enters the region, -1 else
	base []float64 // per cell: the outside column's floor
	// Scratch: per cell, then per region column along the side (n Refine).
	level, after []float64
	flux         []float32
	lvl, vel     []float64
	area, pend   []float64 // pend: the reservoirs' volume as the step starts
	pendAfter    []float64 // the reservoirs' volume after the step
	took         []float64
	buf          []float64 // per cell: what left the region, not yet in the column (drain)
}

// New places a region over sim's columns, holds the columns under it (gpusim's
// Sim.Hold, with its limits: the cpu backend and the pipes method, for now) and moves
// their liquid into the region as particles of exact volume (each column's depth in
// layers half a region cell thick, four particles a layer and region column, the last
// layer as thick as what is left), moving at the columns' velocities. The footprint's
// cells and their neighbours must hold one column each. A side of the box on the
// domain's border is a wall; the others are Columns sides. The box's lid is a wall, for
// now (liquid thrown that high stays in the box).
func New(sim *gpusim.Sim, set Settings) (*Region, error) {
	return place(sim, set, nil)
}

// place is New, or, with saved, Restore: the region over sim's columns held already
// (the Sim's checkpoint holds them), its state saved's.
func place(sim *gpusim.Sim, set Settings, saved *savedRegion) (*Region, error) {
	if set.Refine == 0 {
		set.Refine = 1
	}
	c := sim.Columns()
	switch {
	case set.NX < 1 || set.NY < 1 || set.NZ < 1:
		return nil, fmt.Errorf("region: the box is %d x %d cells and %d high: each must be >= 1", set.NX, set.NY, set.NZ)
	case set.X < 0 || set.Y < 0 || set.X+set.NX > c.Nx || set.Y+set.NY > c.Ny:
		return nil, fmt.Errorf("region: the box's cells [%d, %d) x [%d, %d) are not all in the columns' %d x %d", set.X, set.X+set.NX, set.Y, set.Y+set.NY, c.Nx, c.Ny)
	case set.Refine < 1:
		return nil, fmt.Errorf("region: refine is %d: it must be >= 1", set.Refine)
	case math.IsNaN(set.Bottom) || math.IsInf(set.Bottom, 0):
		return nil, fmt.Errorf("region: bottom is %g: it must be finite", set.Bottom)
	}
	g := &Region{sim: sim, set: set, r: set.Refine, dx: c.Dx, h: c.Dx / float64(set.Refine)}
	topZ := set.Bottom + float64(set.NZ)*g.h
	if topZ > c.Height*(1+1e-9) {
		return nil, fmt.Errorf("region: the box's top (%g m) is above the domain's (%g m)", topZ, c.Height)
	}
	one := func(x, y int) (int, error) {
		lo, hi := c.Cell(x, y)
		if hi-lo != 1 {
			return 0, fmt.Errorf("region: cell (%d, %d) holds %d columns: the box's cells and their neighbours must hold one each, for now", x, y, hi-lo)
		}
		return lo, nil
	}
	for j := -1; j <= set.NY; j++ {
		for i := -1; i <= set.NX; i++ {
			x, y := set.X+i, set.Y+j
			if x < 0 || y < 0 || x >= c.Nx || y >= c.Ny {
				continue
			}
			col, err := one(x, y)
			if err != nil {
				return nil, err
			}
			if i >= 0 && j >= 0 && i < set.NX && j < set.NY {
				g.held = append(g.held, col)
			}
		}
	}
	// The region, its sides.
	ls := liquid3d.DefaultSettings(set.NX*g.r, set.NY*g.r, set.NZ, g.h)
	ls.Origin = terrain.Vec3{X: float64(set.X) * c.Dx, Y: float64(set.Y) * c.Dx, Z: set.Bottom}
	ls.Solid, ls.Viscosity, ls.Workers, ls.Packing = set.Solid, set.Viscosity, set.Workers, set.Packing
	ls.Gravity = sim.Settings().Gravity
	for s, onBorder := range [4]bool{set.X == 0, set.X+set.NX == c.Nx, set.Y == 0, set.Y+set.NY == c.Ny} {
		if !onBorder {
			ls.Sides[s] = liquid3d.Columns
		}
	}
	levels := sim.Levels(g.held, nil)
	g.base, g.top = make([]float64, len(g.held)), make([]float64, len(g.held))
	for k, col := range g.held {
		g.base[k], g.top[k] = float64(sim.Floor(col)), float64(c.Max[col])
		if saved == nil && levels[k] > topZ {
			return nil, fmt.Errorf("region: the liquid of column %d stands at %g m, above the box's top (%g m)", col, levels[k], topZ)
		}
		if g.base[k] < set.Bottom || (set.Solid == nil && g.base[k] != float64(float32(set.Bottom))) {
			return nil, fmt.Errorf("region: column %d's floor (%g m) is below the box's (%g m), or, without a solid, not at it", col, g.base[k], set.Bottom)
		}
	}
	liq, err := liquid3d.New(ls)
	if err != nil {
		return nil, fmt.Errorf("region: %w", err)
	}
	if saved != nil {
		g.liq = liq
		if err := g.restore(saved); err != nil {
			liq.Close()
			return nil, err
		}
		return g, nil
	}
	if err := sim.Hold(g.held); err != nil {
		liq.Close()
		return nil, fmt.Errorf("region: %w", err)
	}
	g.liq = liq
	if err := g.findPipes(); err != nil {
		g.Close()
		return nil, err
	}
	if err := g.seed(levels); err != nil {
		g.Close()
		return nil, err
	}
	if err := g.writeHeld(); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// findPipes finds the sides' outside columns and the pipes across them, and the pipes
// between held columns.
func (g *Region) findPipes() error {
	c := g.sim.Columns()
	heldAt := make(map[int]int32, len(g.held))
	for k, col := range g.held {
		heldAt[col] = int32(k)
	}
	inner, border := g.sim.HeldPipes()
	cross := make(map[[2]int]int, len(border)) // (held, free) -> pipe
	for _, p := range border {
		a, b := g.sim.Pipe(p)
		if _, ok := heldAt[a]; ok {
			cross[[2]int{a, b}] = p
		} else {
			cross[[2]int{b, a}] = p
		}
	}
	set := g.set
	for s := liquid3d.XMin; s <= liquid3d.YMax; s++ {
		if g.liq.Settings().Sides[s] != liquid3d.Columns {
			continue
		}
		n := set.NY
		if s >= liquid3d.YMin {
			n = set.NX
		}
		sd := &side{s: s, n: n, out: make([]int, n), held: make([]int, n), pipe: make([]int, n), into: make([]float64, n), base: make([]float64, n)}
		for k := range n {
			var hx, hy, ox, oy int // the held cell and the one beyond the side
			switch s {
			case liquid3d.XMin:
				hx, hy, ox, oy = set.X, set.Y+k, set.X-1, set.Y+k
			case liquid3d.XMax:
				hx, hy, ox, oy = set.X+set.NX-1, set.Y+k, set.X+set.NX, set.Y+k
			case liquid3d.YMin:
				hx, hy, ox, oy = set.X+k, set.Y, set.X+k, set.Y-1
			default:
				hx, hy, ox, oy = set.X+k, set.Y+set.NY-1, set.X+k, set.Y+set.NY
			}
			hc, _ := c.Cell(hx, hy)
			oc, _ := c.Cell(ox, oy)
			sd.held[k] = hx - set.X + set.NX*(hy-set.Y)
			p, ok := cross[[2]int{hc, oc}]
			if !ok {
				return fmt.Errorf("region: no pipe joins column %d (cell (%d, %d)) to column %d beyond the box's %v side: their free spaces do not meet", oc, ox, oy, hc, s)
			}
			a, _ := g.sim.Pipe(p)
			sd.out[k], sd.pipe[k], sd.base[k] = oc, p, float64(g.sim.Floor(oc))
			sd.into[k] = 1
			if a == hc {
				sd.into[k] = -1
			}
		}
		m := n * g.r
		sd.level, sd.after, sd.flux, sd.buf = make([]float64, n), make([]float64, n), make([]float32, n), make([]float64, n)
		sd.lvl, sd.vel = make([]float64, m), make([]float64, m)
		g.sides[s] = sd
	}
	g.inner = inner
	for _, p := range inner {
		a, b := g.sim.Pipe(p)
		ka, kb := heldAt[a], heldAt[b]
		g.innerA, g.innerB = append(g.innerA, ka), append(g.innerB, kb)
		g.innerY = append(g.innerY, !(kb == ka+1 && int(kb)%g.set.NX != 0)) // else the next cell of the row
	}
	g.innerF = make([]float32, len(inner))
	return nil
}

// seed puts each held column's liquid (its exact level less its floor) into the region:
// in layers half a region cell thick, four particles a layer and region column (the last
// layer as thick as what is left). A column cell the region's solid cuts (a curved wall
// the columns see as a whole cell open) has lattice points inside that solid: their
// liquid is stacked over the cell's quarter columns that are open above its level
// instead, a layer at a time in turn (seedSpill), or, where none is, over the nearest
// cell's, so that the volume is exact and every particle stands for the same volume as
// its neighbours (a denser particle would stay dense: the projection keeps the velocity
// divergence-free, not the particles' spacing). The liquid there then stands higher in
// the region than outside it, by what the columns' cell held beyond the region's open
// part, and settles as a small wave.
func (g *Region) seed(levels []float64) error {
	set, r, h := g.set, g.r, g.h
	vol8 := h * h * h / 8
	var ps []liquid3d.Particle
	hs := g.sim.Heights(nil)
	// Each held column's quarter columns open above its level: (x, y) and the centre
	// height of the next layer over it.
	quarters := make([][]terrain.Vec3, len(g.held))
	vels := make([]terrain.Vec3, len(g.held))
	spills := make([]float64, len(g.held))
	for k, col := range g.held {
		d := levels[k] - g.base[k]
		if !(d > 0) {
			continue
		}
		vx, vy := g.sim.ColumnVelocity(col, hs[col])
		vel := terrain.Vec3{X: vx, Y: vy}
		vels[k] = vel
		ci, cj := k%set.NX, k/set.NX
		n := int(math.Floor(d / (h / 2)))
		rest := d - float64(n)*(h/2)
		add := func(p liquid3d.Particle) {
			if g.liq.InSolid(p.Pos) {
				spills[k] += p.Volume
				return
			}
			ps = append(ps, p)
		}
		for b := 0; b < r; b++ {
			for a := 0; a < r; a++ {
				x0 := (float64(set.X+ci) + float64(a)/float64(r)) * g.dx
				y0 := (float64(set.Y+cj) + float64(b)/float64(r)) * g.dx
				for o := range 4 {
					x := x0 + h*(0.25+0.5*float64(o&1))
					y := y0 + h*(0.25+0.5*float64(o>>1))
					for m := range n {
						add(liquid3d.Particle{Pos: terrain.Vec3{X: x, Y: y, Z: g.base[k] + (float64(m)+0.5)*h/2}, Vel: vel, Volume: vol8})
					}
					if rest > 0 {
						add(liquid3d.Particle{Pos: terrain.Vec3{X: x, Y: y, Z: g.base[k] + float64(n)*h/2 + rest/2}, Vel: vel, Volume: rest * h * h / 4})
					}
					if q := (terrain.Vec3{X: x, Y: y, Z: g.base[k] + d + h/4}); !g.liq.InSolid(q) {
						quarters[k] = append(quarters[k], q)
					}
				}
			}
		}
	}
	for k, spill := range spills {
		if spill == 0 {
			continue
		}
		ci, cj := k%set.NX, k/set.NX
		// This cell's open quarter columns, else the nearest cell's that has some (rings
		// of cells about it, each in cell order).
		for rad := 0; spill > 0; rad++ {
			if rad > max(set.NX, set.NY) {
				return fmt.Errorf("region: the columns' liquid in cell (%d, %d): %.3g m^3 of it lies where the region's solid is, and no cell of the box has room above its liquid to take it", set.X+ci, set.Y+cj, spill)
			}
			for j := max(cj-rad, 0); j <= min(cj+rad, set.NY-1) && spill > 0; j++ {
				for i := max(ci-rad, 0); i <= min(ci+rad, set.NX-1) && spill > 0; i++ {
					if max(i-ci, ci-i, j-cj, cj-j) != rad {
						continue
					}
					q := j*set.NX + i
					ps, spill = g.seedSpill(ps, quarters[q], spill, vels[k])
				}
			}
		}
	}
	if err := g.liq.AddParticles(ps); err != nil {
		return fmt.Errorf("region: the columns' liquid: %w", err)
	}
	return nil
}

// seedSpill appends to ps particles holding up to volume spill, stacked over the
// quarter columns given (x, y, and the centre height of each one's next layer, moved up
// as it fills): a layer of particles of an eighth of a cell (the last what is left) over
// each in turn, a quarter column closed at its next layer (the solid over it, or the
// box's top) taking no more. It returns ps and the volume left.
func (g *Region) seedSpill(ps []liquid3d.Particle, quarters []terrain.Vec3, spill float64, vel terrain.Vec3) ([]liquid3d.Particle, float64) {
	h := g.h
	vol8 := h * h * h / 8
	top := g.set.Bottom + float64(g.set.NZ)*h
	open := len(quarters)
	for spill > 0 && open > 0 {
		open = 0
		for q := range quarters {
			p := &quarters[q]
			if p.Z >= top || g.liq.InSolid(*p) {
				p.Z = top // closed from here up
				continue
			}
			v := min(vol8, spill)
			ps = append(ps, liquid3d.Particle{Pos: *p, Vel: vel, Volume: v})
			spill -= v
			p.Z += h / 2
			open++
			if spill <= 0 {
				break
			}
		}
	}
	return ps, max(spill, 0)
}

// Liquid is the region's solver, for reading (its particles, speeds, thickness); the
// region steps it.
func (g *Region) Liquid() *liquid3d.Sim { return g.liq }

// Settings are the region's settings, as placed (Refine 0 made 1).
func (g *Region) Settings() Settings { return g.set }

// Volume is the region's liquid, m^3: its particles' (liquid3d's Volume) and what its
// sides hold in transit (Pending). The coupled volume is the columns' (gpusim's Volume,
// which leaves the held columns out) plus this.
func (g *Region) Volume() float64 { return g.liq.Volume() + g.Pending() }

// Timing is the steps taken (Step) and their wall time: the columns' own steps
// (gpusim's Step), and the rest, the region's step and the coupling (what the region
// adds to a step).
func (g *Region) Timing() (steps int64, columns, region time.Duration) {
	return g.steps, g.colWall, g.ownWall
}

// Held is the held columns: cell (X+i, Y+j) at i + NX j.
func (g *Region) Held() []int { return slices.Clone(g.held) }

// Close gives the region's liquid back to the columns under the box and lets them go
// (gpusim's Hold(nil), booked as exchanged), and stops the region's workers: each
// particle into the column of the cell its centre lies in, what the sides hold in
// transit into the cells beside them, each column up to its max (what would stand
// higher is lost). The Region must not be stepped after; closing it again does
// nothing.
func (g *Region) Close() {
	if g.sim.Held() != nil && len(g.heights) == len(g.held) {
		vol := make([]float64, len(g.held))
		x0, y0 := float64(g.set.X)*g.dx, float64(g.set.Y)*g.dx
		for _, p := range g.liq.Particles(nil) {
			i := min(max(int(math.Floor((p.Pos.X-x0)/g.dx)), 0), g.set.NX-1)
			j := min(max(int(math.Floor((p.Pos.Y-y0)/g.dx)), 0), g.set.NY-1)
			vol[i+g.set.NX*j] += p.Volume
		}
		for _, sd := range g.sides {
			if sd == nil {
				continue
			}
			pend, _ := g.liq.SidePending(sd.s, nil)
			for j, v := range pend {
				vol[sd.held[j/g.r]] += v
			}
			for k, v := range sd.buf {
				vol[sd.held[k]] += v
			}
		}
		for k := range g.held {
			g.heights[k] = min(g.base[k]+vol[k]/(g.dx*g.dx), g.top[k])
		}
		_ = g.sim.SetHeld(g.heights, nil)
	}
	_ = g.sim.Hold(nil)
	g.liq.Close()
}

// Balance is the coupled volume (the columns', the air's and the region's, m^3) and
// what the columns' books say it is (added - removed - outflow: every exchange between
// the two solvers cancels in it): equal to float64 rounding.
func (g *Region) Balance() (volume, books float64) {
	added, removed, _ := g.sim.Accounting()
	return g.sim.Volume() + g.Volume(), added - removed - g.sim.Outflow()
}

// Pending is the volume, m^3, in transit through the region's sides: what they took
// from the columns and hold in their reservoirs, not yet seeded as particles
// (liquid3d's SidePending: less than a particle a face), and what left the region and
// waits in their outflow buffers (drain). It is neither in the region's Volume nor in
// the columns'.
func (g *Region) Pending() float64 {
	v := 0.0
	for _, sd := range g.sides {
		if sd == nil {
			continue
		}
		p, _ := g.liq.SidePending(sd.s, sd.pendAfter)
		for _, x := range p {
			v += x
		}
		for _, x := range sd.buf {
			v += x
		}
	}
	return v
}

// Step advances the columns by one of their steps and the region by as long:
//
//  1. the levels of the columns beyond the region's sides, now;
//  2. the columns' step (the held columns left alone, the border pipes' fluxes computed
//     from the outside levels and the held heights, with their inertia, and moved by
//     neither end);
//  3. each side's columns: the levels of (1) and, as velocity, each border pipe's flux
//     over its wet area (SideWetArea), into the region no more than the outside column
//     holds after the step, so that a column never gives more than it has (drive);
//  4. the region's step;
//  5. what each side's reservoirs booked (seeded, TakeSideInflow, and the change of
//     what they hold, SidePending) taken from the column beyond it; what left the region
//     (TakeOutflow) into the side's outflow buffers (leave), or into the air when it left
//     more than a region cell above the level; the buffers drained into the columns at
//     the border pipes' outflow (drain); what fell on the held columns (TakeLanded) into
//     the region (land);
//  6. the held columns' heights from the region's liquid over their cells, the
//     reservoirs and the buffers, and the fluxes between them from its velocities
//     (writeHeld).
func (g *Region) Step() error {
	t0 := time.Now()
	g.lastCol = 0
	err := g.step()
	g.steps++
	g.ownWall += time.Since(t0) - g.lastCol
	return err
}

// step is Step's work; it times the columns' step (lastCol, colWall).
func (g *Region) step() error {
	dt := g.sim.Dt()
	for _, sd := range g.sides {
		if sd != nil {
			sd.level = g.sim.Levels(sd.out, sd.level)
		}
	}
	t0 := time.Now()
	g.sim.Step(1)
	g.lastCol = time.Since(t0)
	g.colWall += g.lastCol
	for _, sd := range g.sides {
		if sd == nil {
			continue
		}
		if err := g.drive(sd, dt); err != nil {
			return err
		}
	}
	if err := g.liq.Step(dt); err != nil {
		return fmt.Errorf("region: %w", err)
	}
	for _, sd := range g.sides {
		if sd == nil {
			continue
		}
		var err error
		if sd.took, err = g.liq.TakeSideInflow(sd.s, sd.took); err != nil {
			return err
		}
		if sd.pendAfter, err = g.liq.SidePending(sd.s, sd.pendAfter); err != nil {
			return err
		}
		for k, col := range sd.out {
			v := 0.0 // what the side's reservoirs booked: seeded, and held for later
			for j := k * g.r; j < (k+1)*g.r; j++ {
				v += sd.took[j] + (sd.pendAfter[j] - sd.pend[j])
			}
			if v != 0 {
				if err := g.sim.Move(col, -v); err != nil {
					return fmt.Errorf("region: %w", err)
				}
			}
		}
	}
	if err := g.leave(); err != nil {
		return err
	}
	if err := g.drain(dt); err != nil {
		return err
	}
	if err := g.land(); err != nil {
		return err
	}
	return g.writeHeld()
}

// drive sets side sd's columns for the region's step (Step, 3).
func (g *Region) drive(sd *side, dt float64) error {
	sd.flux = g.sim.PipeFluxes(sd.pipe, sd.flux)
	sd.after = g.sim.Levels(sd.out, sd.after)
	for j := range sd.lvl {
		sd.lvl[j] = sd.level[j/g.r]
	}
	var err error
	if sd.area, err = g.liq.SideWetArea(sd.s, sd.lvl, sd.area); err != nil {
		return err
	}
	if sd.pend, err = g.liq.SidePending(sd.s, sd.pend); err != nil {
		return err
	}
	dx2 := g.dx * g.dx
	for k := range sd.n {
		var area float64
		for j := k * g.r; j < (k+1)*g.r; j++ {
			area += sd.area[j]
		}
		v := 0.0
		if area > 0 {
			v = sd.into[k] * float64(sd.flux[k]) / area
			if v > 0 { // no more than the column holds
				v = min(v, max(sd.after[k]-sd.base[k], 0)*dx2/(area*dt))
			}
		}
		for j := k * g.r; j < (k+1)*g.r; j++ {
			sd.vel[j] = v
		}
	}
	return g.liq.SetSideColumns(sd.s, sd.lvl, sd.vel)
}

// leave puts what left the region through its sides into the sides' outflow buffers
// (Step, 5): a particle into the buffer of the side cell it crossed, but, with falling
// particles on, one that left more than a region cell above the level the region was
// given there, which goes into the air.
func (g *Region) leave() error {
	g.recs = g.liq.TakeOutflow(g.recs[:0])
	set := g.set
	x0, y0 := float64(set.X)*g.dx, float64(set.Y)*g.dx
	x1, y1 := x0+float64(set.NX)*g.dx, y0+float64(set.NY)*g.dx
	falls := g.sim.Settings().Falling == gpusim.FallingParticles
	for _, p := range g.recs {
		var sd *side
		var along float64
		switch {
		case p.Pos.X < x0 && g.sides[liquid3d.XMin] != nil:
			sd, along = g.sides[liquid3d.XMin], p.Pos.Y-y0
		case p.Pos.X >= x1 && g.sides[liquid3d.XMax] != nil:
			sd, along = g.sides[liquid3d.XMax], p.Pos.Y-y0
		case p.Pos.Y < y0 && g.sides[liquid3d.YMin] != nil:
			sd, along = g.sides[liquid3d.YMin], p.Pos.X-x0
		case p.Pos.Y >= y1 && g.sides[liquid3d.YMax] != nil:
			sd, along = g.sides[liquid3d.YMax], p.Pos.X-x0
		default:
			return fmt.Errorf("region: a particle left the box at %v, through no columns side", p.Pos)
		}
		k := min(max(int(math.Floor(along/g.dx)), 0), sd.n-1)
		if falls && p.Pos.Z > sd.lvl[k*g.r]+g.h {
			if err := g.sim.Release(p.Pos.X, p.Pos.Y, p.Pos.Z, p.Volume, p.Vel.X, p.Vel.Y, p.Vel.Z); err == nil {
				continue
			}
		}
		sd.buf[k] += p.Volume
	}
	return nil
}

// drain empties each side cell's outflow buffer into the column beyond it at the rate
// the border pipe carries out of the region (Step, 5): the particles leave the region
// in sheets (a lattice that moves as one crosses the side a sheet at a time), and a
// sheet moved into the column at once made a spike of a cell's depth over twice
// Refine, a wave of its own.
func (g *Region) drain(dt float64) error {
	for _, sd := range g.sides {
		if sd == nil {
			continue
		}
		for k, col := range sd.out {
			out := max(-sd.into[k]*float64(sd.flux[k]), 0) * dt
			v := sd.buf[k]
			if !(v > 0) || out == 0 {
				continue
			}
			if out < v {
				v = out
				sd.buf[k] -= v
			} else {
				sd.buf[k] = 0
			}
			if err := g.sim.Move(col, v); err != nil {
				return fmt.Errorf("region: %w", err)
			}
		}
	}
	return nil
}

// land takes the liquid that fell on the held columns into the region (Step, 5), just
// inside the box where it landed.
func (g *Region) land() error {
	g.landed = g.sim.TakeLanded(g.landed[:0])
	o := g.liq.Settings().Origin
	set := g.liq.Settings()
	lo := terrain.Vec3{X: o.X, Y: o.Y, Z: o.Z}.Add(terrain.Vec3{X: 0.01 * g.h, Y: 0.01 * g.h, Z: 0.01 * g.h})
	hi := o.Add(terrain.Vec3{X: (float64(set.NX) - 0.01) * g.h, Y: (float64(set.NY) - 0.01) * g.h, Z: (float64(set.NZ) - 0.01) * g.h})
	for _, q := range g.landed {
		pos := terrain.Vec3{X: min(max(float64(q.X), lo.X), hi.X), Y: min(max(float64(q.Y), lo.Y), hi.Y), Z: min(max(float64(q.Z), lo.Z), hi.Z)}
		vel := terrain.Vec3{X: float64(q.VX), Y: float64(q.VY), Z: float64(q.VZ)}
		g.balls = g.ball(g.balls[:0], pos, vel, q.Volume, lo, hi)
		err := g.liq.AddParticles(g.balls)
		if err != nil { // in the region's solid where it landed: in from the lid instead, whole
			p := liquid3d.Particle{Pos: terrain.Vec3{X: pos.X, Y: pos.Y, Z: hi.Z}, Vel: vel, Volume: q.Volume}
			err = g.liq.AddParticles([]liquid3d.Particle{p})
		}
		if err != nil {
			return fmt.Errorf("region: liquid that fell on the region: %w", err)
		}
	}
	return nil
}

// ball appends to dst the particles a parcel of volume vol that landed at pos, moving at
// vel, enters the region as: one particle when it holds less than two of the region's
// (a cell over 8, as Fill seeds them); else a ball of particles of equal volume on the
// lattice of half-cell spacing, as wide as the parcel (a sphere of its volume) and
// standing on pos, all moving at vel, kept inside [lo, hi]. A parcel of a few
// millilitres as one particle of its volume packed its liquid into the cells about one
// point, and the grid read it as a fraction of a cell spread wide: the region's impact
// had neither the drop's size nor its shape.
func (g *Region) ball(dst []liquid3d.Particle, pos, vel terrain.Vec3, vol float64, lo, hi terrain.Vec3) []liquid3d.Particle {
	sp := g.h / 2 // the particles' spacing
	if vol < 2*sp*sp*sp {
		return append(dst, liquid3d.Particle{Pos: pos, Vel: vel, Volume: vol})
	}
	r := math.Cbrt(3 * vol / (4 * math.Pi))
	c := terrain.Vec3{X: pos.X, Y: pos.Y, Z: pos.Z + r}
	n := int(math.Ceil(r/sp)) + 1
	start := len(dst)
	for k := -n; k <= n; k++ {
		for j := -n; j <= n; j++ {
			for i := -n; i <= n; i++ {
				d := terrain.Vec3{X: float64(i) * sp, Y: float64(j) * sp, Z: float64(k) * sp}
				if d.X*d.X+d.Y*d.Y+d.Z*d.Z > r*r {
					continue
				}
				p := c.Add(d)
				p = terrain.Vec3{X: min(max(p.X, lo.X), hi.X), Y: min(max(p.Y, lo.Y), hi.Y), Z: min(max(p.Z, lo.Z), hi.Z)}
				dst = append(dst, liquid3d.Particle{Pos: p, Vel: vel})
			}
		}
	}
	m := len(dst) - start
	if m == 0 {
		return append(dst, liquid3d.Particle{Pos: pos, Vel: vel, Volume: vol})
	}
	each := vol / float64(m)
	for i := start; i < len(dst); i++ {
		dst[i].Volume = each
	}
	dst[len(dst)-1].Volume = vol - each*float64(m-1) // the sum is the parcel's to rounding
	return dst
}

// spread is the share of a particle's square [c - half, c + half] (column cells along
// an axis of n, half < 1/2) in cell i and in cell i+1: kept inside [0, n] where the box's
// side there is a wall (loWall, hiWall), cut off beyond a columns side (that part of the
// liquid the grid has let out already).
func spread(c, half, n float64, loWall, hiWall bool) (i int, w0, w1 float64) {
	if loWall {
		c = max(c, half)
	}
	if hiWall {
		c = min(c, n-half)
	}
	lo, hi := c-half, c+half
	i = int(math.Floor(lo))
	edge := float64(i + 1)
	if hi <= edge {
		return i, 1, 0
	}
	return i, (edge - lo) / (2 * half), (hi - edge) / (2 * half)
}

// writeHeld writes the held columns' heights (floor plus the region's liquid over the
// column's cell, at most the column's max) and the fluxes between them (the mean of the
// two cells' depth-averaged velocities along the pipe, times the upwind cell's thickness
// and dx). A particle's volume is spread over the column cells its square (a region cell
// across, about it) overlaps, kept within the box: counted where its centre lies, the
// liquid of a region moving as one jumped by a sheet of particles (a cell's depth over
// twice Refine) whenever one crossed a column's side, and the border pipes turned each
// jump into a wave. What the sides' reservoirs hold (Pending) stands in the cells
// beside them.
// beside tells whether a particle at height z stands beside held column k rather than
// over it: the column's floor a region cell or more above it, as a wall's top is to the
// liquid below it (writeHeld gives such a column none of its liquid: the wall would
// show it standing on its top).
func (g *Region) beside(k int, z float64) bool { return g.base[k] >= z+g.h }

// underParticle is the held column nearest to pos (by the cells' centres, the first in
// cell order among equals) within a cell of pos's own whose floor is not beside it, for
// a particle every column of whose spread square is a wall to it (the region's solid
// and the columns' floors disagree there: a curved wall the columns see as a whole cell
// of wall); ok is false when none is.
func (g *Region) underParticle(pos terrain.Vec3) (k int, ok bool) {
	set := g.set
	ci := int(math.Floor(pos.X/g.dx)) - set.X
	cj := int(math.Floor(pos.Y/g.dx)) - set.Y
	best := math.Inf(1)
	for j := max(cj-1, 0); j <= min(cj+1, set.NY-1); j++ {
		for i := max(ci-1, 0); i <= min(ci+1, set.NX-1); i++ {
			q := i + set.NX*j
			if g.beside(q, pos.Z) {
				continue
			}
			dx := (float64(set.X+i)+0.5)*g.dx - pos.X
			dy := (float64(set.Y+j)+0.5)*g.dx - pos.Y
			if d := dx*dx + dy*dy; d < best {
				best, k, ok = d, q, true
			}
		}
	}
	return k, ok
}

func (g *Region) writeHeld() error {
	set := g.set
	n := len(g.held)
	if len(g.heights) != n {
		g.heights, g.cellT, g.cellU, g.cellV = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		g.cellP, g.cellZ = make([]float64, n), make([]float64, n)
	}
	for k := range g.cellZ {
		g.cellZ[k] = math.Inf(-1)
	}
	clear(g.cellT)
	clear(g.cellU)
	clear(g.cellV)
	g.parts = g.liq.Particles(g.parts[:0])
	x0, y0 := float64(set.X)*g.dx, float64(set.Y)*g.dx
	half := g.h / (4 * g.dx) // half a particle's spacing (half a region cell), in column cells
	nx, ny := float64(set.NX), float64(set.NY)
	wx, wy := g.sides[liquid3d.XMin] == nil, g.sides[liquid3d.XMax] == nil
	wy0, wy1 := g.sides[liquid3d.YMin] == nil, g.sides[liquid3d.YMax] == nil
	for _, p := range g.parts {
		i0, ax0, ax1 := spread((p.Pos.X-x0)/g.dx, half, nx, wx, wy)
		j0, ay0, ay1 := spread((p.Pos.Y-y0)/g.dx, half, ny, wy0, wy1)
		var ks [4]int
		var ws [4]float64
		// The square's cells (its weights' sum is 1 but where it reaches out through an
		// open side), the liquid of those beside the particle going to the others.
		n, open, total := 0, 0.0, 0.0
		for b, fy := range [2]float64{ay0, ay1} {
			for a, fx := range [2]float64{ax0, ax1} {
				if fx <= 0 || fy <= 0 || i0+a < 0 || i0+a >= set.NX || j0+b < 0 || j0+b >= set.NY {
					continue
				}
				ks[n], ws[n] = i0+a+set.NX*(j0+b), fx*fy
				total += ws[n]
				if !g.beside(ks[n], p.Pos.Z) {
					open += ws[n]
				}
				n++
			}
		}
		scale := 1.0 // where no cell is beside it, the same bits as the weights alone
		if open > 0 && open != total {
			scale = total / open
		} else if open == 0 && n > 0 {
			if k, ok := g.underParticle(p.Pos); ok { // every cell of its square is a wall to it
				ks[0], ws[0], n = k, total, 1
			}
		}
		for m := range n {
			k := ks[m]
			if open > 0 && g.beside(k, p.Pos.Z) {
				continue
			}
			w := ws[m] * scale * p.Volume
			g.cellT[k] += w
			g.cellU[k] += w * p.Vel.X
			g.cellV[k] += w * p.Vel.Y
			g.cellZ[k] = max(g.cellZ[k], p.Pos.Z)
		}
	}
	copy(g.cellP, g.cellT)
	for _, sd := range g.sides {
		if sd == nil {
			continue
		}
		var err error
		if sd.pendAfter, err = g.liq.SidePending(sd.s, sd.pendAfter); err != nil {
			return err
		}
		for j, p := range sd.pendAfter {
			c := j / g.r
			var k int
			switch sd.s {
			case liquid3d.XMin:
				k = set.NX * c
			case liquid3d.XMax:
				k = set.NX - 1 + set.NX*c
			case liquid3d.YMin:
				k = c
			default:
				k = c + set.NX*(set.NY-1)
			}
			g.cellT[k] += p
		}
		for c, b := range sd.buf { // and what left it, not yet in the column
			g.cellT[sd.held[c]] += b
		}
	}
	a := g.dx * g.dx
	for k := range g.held {
		if t := g.cellT[k]; t > 0 {
			g.cellU[k] /= t
			g.cellV[k] /= t
		}
		g.cellT[k] /= a
		// The particles' thickness, but no higher than the highest of them and half their
		// spacing: where the region's flow packed its particles tighter than they were
		// seeded (a plunging stream; the projection does not keep their spacing), their
		// volume over the cell stood as a spike far above the liquid.
		if over := g.cellP[k]/a - (g.cellZ[k] + g.h/2 - g.base[k]); g.cellP[k] > 0 && over > 0 {
			g.cellT[k] = max(g.cellT[k]-over, 0)
		}
		g.heights[k] = min(g.base[k]+g.cellT[k], g.top[k])
	}
	for k := range g.inner {
		a, b := g.innerA[k], g.innerB[k]
		var vel float64
		if g.innerY[k] {
			vel = 0.5 * (g.cellV[a] + g.cellV[b])
		} else {
			vel = 0.5 * (g.cellU[a] + g.cellU[b])
		}
		d := g.cellT[a]
		if vel < 0 {
			d = g.cellT[b]
		}
		g.innerF[k] = float32(vel * d * g.dx)
	}
	if err := g.sim.SetHeld(g.heights, g.innerF); err != nil {
		return fmt.Errorf("region: %w", err)
	}
	return nil
}
