package bodies

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/terrain"
)

// Settings are the bodies' physical constants.
type Settings struct {
	Gravity       float64 // m/s^2, > 0
	LiquidDensity float64 // kg/m^3, > 0
	// Drag is the rate (1/s) at which the liquid drags a submerged volume towards its
	// velocity, per unit of the liquid's density: a force rho_l V Drag (u - v) on a
	// volume V. AirDrag is the same above the surface (towards rest).
	Drag, AirDrag float64
	Friction      float64 // Coulomb's coefficient for contacts, >= 0
	Restitution   float64 // the share of a contact's normal speed it bounces back with, in [0, 1]
}

// Interval is the simulated time between two updates a World is made for, s: 60 a
// second. The buoyancy's stiffness and the drag are integrated implicitly and the lifts
// follow in LiftTime, so the bodies are stable and settle at this interval; contacts
// are resolved once an update (a body falling at 0.5 m/s moves 8 mm between two). At 30
// a second a swab dropped on the wound's sloping floor sank 1.5 mm into it and bounced
// 4 mm up on landing.
const Interval = 1.0 / 60

// DefaultSettings: water's density and the Earth's gravity; a submerged volume follows
// the flow within about 1/Drag = 50 ms of its own weight's worth of liquid; wet
// contacts that barely bounce.
func DefaultSettings() Settings {
	return Settings{Gravity: 9.81, LiquidDensity: 1000, Drag: 20, AirDrag: 0.2, Friction: 0.5, Restitution: 0.1}
}

// Validate names the first bad setting.
func (s Settings) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
		ok   bool
	}{
		{"gravity", s.Gravity, s.Gravity > 0},
		{"liquid density", s.LiquidDensity, s.LiquidDensity > 0},
		{"drag", s.Drag, s.Drag >= 0},
		{"air drag", s.AirDrag, s.AirDrag >= 0},
		{"friction", s.Friction, s.Friction >= 0},
		{"restitution", s.Restitution, s.Restitution >= 0 && s.Restitution <= 1},
	} {
		if !f.ok || math.IsInf(f.v, 0) {
			return fmt.Errorf("bodies: %s is %.6g: out of range", f.name, f.v)
		}
	}
	return nil
}

// Liquid is what a World reads of the liquid at an update.
type Liquid struct {
	// H is every column's surface height now (gpusim heights, which include the floors'
	// lifts), m.
	H []float32
	// Velocity returns a column's depth-averaged velocity, m/s (nil: still liquid).
	Velocity func(col int) (vx, vy float64)
}

// World is the bodies of one scene on its columns.
type World struct {
	st     Settings
	cols   *terrain.Columns
	domain Box
	// open are the domain's open sides (-x, +x, -y, +y; SetOpen): no wall there, and a
	// body whose centre of mass crosses one leaves the world.
	open   [4]bool
	bodies []*Body
	// live is Bodies' list, made again when liveStale (a body added or removed).
	live      []*Body
	liveStale bool
	leftNew   []*Body // the bodies that left since TakeLeft
	nextID    int
	time      float64
	lastDt    float64 // the last Step's dt, s
	dt        float64 // the Step's dt, while it runs

	lift    []float64 // per column: the displacement summed this update, m^3 (touched only)
	touched []int32   // the columns with lift != 0 this update
	mark    []bool    // per column: in touched
	applied []float32 // per column: the lift asked for at the last update, m
	prev    []int32   // the columns lifted at the last update
	outCols []int32
	outLift []float32
	cont    []contact
	// The terrain contacts' solve: each contact's accumulated impulse, its normal speed
	// before, its inverse effective mass.
	lambda, vn0, kn []float64
	// One body's update: its points relative to its centre of mass, world axes; the
	// rectangle of cells its points lie in (foot) and the columns ringing it (ring).
	px, py, pz []float64
	foot       footprint
	ring       []int32
	// acc is the body's displacement per cell of the rectangle accFoot (splat), m^3.
	acc     []float64
	accFoot footprint
	h       []float32                        // Couple's heights now (LiveHeights: the solver's own array on the CPU)
	solver  Solver                           // Couple's solver
	vel     func(col int) (float64, float64) // columnVelocity, bound once (Couple)
}

// contact is one of a body's points in a solid: the point (relative to the centre of
// mass, world axes), the outward normal and the depth, m.
type contact struct {
	r, n  vec
	depth float64
}

// NewWorld makes a world on the columns cols (the liquid's grid), whose domain reaches
// up to height.
func NewWorld(cols *terrain.Columns, st Settings) (*World, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	n := cols.NumColumns()
	w := &World{st: st, cols: cols, lift: make([]float64, n), mark: make([]bool, n), applied: make([]float32, n)}
	w.domain = Box{Max: vec{X: float64(cols.Nx) * cols.Dx, Y: float64(cols.Ny) * cols.Dx, Z: cols.Height}}
	return w, nil
}

// Settings returns the world's settings.
func (w *World) Settings() Settings { return w.st }

// Set changes the settings (validated; nothing changes on an error).
func (w *World) Set(st Settings) error {
	if err := st.Validate(); err != nil {
		return err
	}
	w.st = st
	return nil
}

// SetColumns hands the world new columns on the same grid (a terrain change).
func (w *World) SetColumns(cols *terrain.Columns) error {
	if cols.Nx != w.cols.Nx || cols.Ny != w.cols.Ny || cols.Dx != w.cols.Dx {
		return fmt.Errorf("bodies: the new columns are on another grid")
	}
	n := cols.NumColumns()
	w.cols = cols
	w.lift, w.mark, w.applied = make([]float64, n), make([]bool, n), make([]float32, n)
	w.touched, w.prev = w.touched[:0], w.prev[:0]
	return nil
}

// Bodies returns the bodies not removed, in the order they were made: the world's own
// list (read it, do not change it), made again only when a body is added or removed.
func (w *World) Bodies() []*Body {
	if w.liveStale {
		w.live = w.live[:0]
		for _, b := range w.bodies {
			if !b.removed {
				w.live = append(w.live, b)
			}
		}
		w.liveStale = false
	}
	return w.live
}

// Count is the number of bodies not removed.
func (w *World) Count() int { return len(w.Bodies()) }

// Add makes a body of the shape and density with its centre of mass at at, turned by
// rot (nil: as the solid was given), at rest. The body must lie inside the domain.
func (w *World) Add(sh *Shape, density float64, at [3]float64, rot *[3][3]float64) (*Body, error) {
	x := vec{X: at[0], Y: at[1], Z: at[2]}
	if !x.IsFinite() {
		return nil, fmt.Errorf("at {%.6g, %.6g, %.6g}: each component must be a finite number (m)", at[0], at[1], at[2])
	}
	b := &Body{shape: sh, x: x, q: identity}
	if rot != nil {
		b.q = quatFromMatrix(*rot)
	}
	if err := b.setDensity(density); err != nil {
		return nil, err
	}
	d := w.domain
	if x.X < d.Min.X || x.Y < d.Min.Y || x.Z < d.Min.Z || x.X > d.Max.X || x.Y > d.Max.Y || x.Z > d.Max.Z {
		return nil, fmt.Errorf("at {%.6g, %.6g, %.6g} is outside the domain (%.6g x %.6g x %.6g m)", x.X, x.Y, x.Z, d.Max.X, d.Max.Y, d.Max.Z)
	}
	w.nextID++
	b.id = w.nextID
	w.bodies = append(w.bodies, b)
	w.liveStale = true
	return b, nil
}

// Remove takes a body out: its displacement goes at the next update.
func (w *World) Remove(b *Body) {
	b.removed = true
	w.liveStale = true
}

// SetOpen sets the domain's open sides (-x, +x, -y, +y; the liquid's open sides): the
// contacts keep a body in at a walled side only, and a body whose centre of mass crosses
// an open side leaves the world at the end of that update (removed, its displacement
// going as Remove's; Left tells, and TakeLeft hands it over once).
func (w *World) SetOpen(open [4]bool) { w.open = open }

// Open is the domain's open sides (SetOpen).
func (w *World) Open() [4]bool { return w.open }

// outside tells whether a centre of mass x has crossed an open side.
func (w *World) outside(x vec) bool {
	d := w.domain
	return w.open[0] && x.X < d.Min.X || w.open[1] && x.X > d.Max.X ||
		w.open[2] && x.Y < d.Min.Y || w.open[3] && x.Y > d.Max.Y
}

// TakeLeft returns the bodies that left through an open side since the last call (in the
// order made), and forgets them. The slice is reused by the next call.
func (w *World) TakeLeft() []*Body {
	out := w.leftNew
	w.leftNew = w.leftNew[:0]
	return out
}

// Left is the number of bodies that have left through open sides.
func (w *World) Left() int {
	n := 0
	for _, b := range w.bodies {
		if b.left {
			n++
		}
	}
	return n
}

// Time is the world's clock, s: the sum of the steps taken.
func (w *World) Time() float64 { return w.time }

// SetTime sets the clock (a resumed run).
func (w *World) SetTime(t float64) { w.time = t }

// Step advances every body by dt against the liquid liq, and sums the displacement of
// the bodies' submerged volumes per column (at their poses before the step), which
// Lifts then returns.
func (w *World) Step(dt float64, liq Liquid) {
	w.dt = dt
	for _, i := range w.touched {
		w.lift[i], w.mark[i] = 0, false
	}
	w.prev = append(w.prev[:0], w.touched...)
	w.touched = w.touched[:0]
	for _, b := range w.bodies {
		switch {
		case b.removed:
		case b.asleep && !w.wakes(b, liq):
			w.addSplat(b) // asleep: it displaces what it did
		default:
			b.asleep = false
			w.stepBody(b, dt, liq)
		}
	}
	// Contacts: the terrain, then the pairs of bodies, again while a pass finds some (a
	// pile pushes back what the last pair's separation pushed in), at most pairPasses
	// times; the terrain has the last word.
	for pass := range pairPasses {
		touching := false
		for k, a := range w.bodies {
			if a.removed {
				continue
			}
			if pass == 0 && !a.asleep {
				w.terrainContacts(a)
			}
			for _, b := range w.bodies[k+1:] {
				if b.removed || a.asleep && b.asleep {
					continue
				}
				if w.bodyContacts(a, b) {
					touching, a.moved, b.moved = true, true, true
					a.wake()
					b.wake()
				}
			}
		}
		if !touching {
			break
		}
		for _, a := range w.bodies {
			if a.moved {
				w.terrainContacts(a)
				a.moved = false
			}
		}
	}
	for _, b := range w.bodies {
		if !b.removed && !b.asleep {
			b.rest(dt) // after the contacts: resting on the floor is still
		}
	}
	for _, b := range w.bodies {
		if !b.removed && w.outside(b.x) {
			b.removed, b.left = true, true
			w.liveStale = true
			w.leftNew = append(w.leftNew, b)
		}
	}
	w.time += dt
	w.lastDt = dt
}

// LiftTime is the time constant (s) with which a column's lift follows the
// displacement the bodies ask of it: an update of dt goes 1 - exp(-dt/LiftTime) of the
// way. Lifting at once feeds the body's bobbing back into the liquid's sloshing out of
// phase (a box let go on a pool rocked harder and harder); a tenth of a second, about a
// floating body's bobbing period at these sizes, lets both settle (docs/bodies.md).
const LiftTime = 0.1

// LiftStepMin is the least change of a column's lift an update hands the solver, m: a
// floating body at rest asks its columns for the same lifts, and lifting a thousand
// columns by nothing was a sixth of an update.
const LiftStepMin = 1e-8

// Sleep: a body that has been still (SleepSpeed, SleepSpin) for SleepTime, with no push,
// is not stepped (nor its contacts resolved) until the liquid around it changes (its
// ring's level by SleepLevel, its tilt by SleepLevel over the body's radius, wet or dry),
// another body touches it, or a script pushes it or sets its density or velocity; it goes
// on displacing what it did. A swab resting on the wound's floor then costs an update a
// look at its ring. The liquid's results are the same as with it awake but for the
// motion it would have had: under SleepSpeed.
const (
	SleepSpeed = 0.5e-3 // m/s
	SleepSpin  = 0.02   // rad/s
	SleepTime  = 0.5    // s
	SleepLevel = 20e-6  // m
)

// rest counts the time a body has been still, and puts it to sleep after SleepTime.
func (b *Body) rest(dt float64) {
	if b.pushing || b.v.Len() > SleepSpeed || b.w.Len() > SleepSpin {
		b.still = 0
		return
	}
	b.still += dt
	if b.still >= SleepTime {
		b.asleep, b.v, b.w, b.rel = true, vec{}, vec{}, vec{}
		b.sleepLevel, b.sleepWet = b.level, b.wet
	}
}

// wake ends a body's sleep.
func (b *Body) wake() {
	if b.asleep {
		b.asleep, b.still = false, 0
	}
}

// wakes tells whether the liquid around a sleeping body changed: its ring (the
// footprint it slept on) wet or dry, its level or tilt moved.
func (w *World) wakes(b *Body, liq Liquid) bool {
	w.foot = b.foot
	lv, wet := w.surface(b, liq)
	if wet != b.sleepWet {
		return true
	}
	if !wet {
		return false
	}
	r := b.shape.Radius
	s := b.sleepLevel
	return math.Abs(lv.a-s.a) > SleepLevel || math.Abs(lv.b-s.b)*r > SleepLevel || math.Abs(lv.c-s.c)*r > SleepLevel ||
		math.Hypot(lv.vx, lv.vy) > 2*SleepSpeed
}

// pairPasses is the most passes over the pairs of bodies an update makes.
const pairPasses = 8

// Lifts returns the floors' lifts the last Step asks for: every column the bodies
// displace (m, the submerged volume over dx^2) whose lift changes by LiftStepMin or
// more, and every column lifted before that no body displaces now (on its way to 0),
// in a fixed order. The slices are reused by the next call.
func (w *World) Lifts() (cols []int32, lift []float32) {
	dx2 := w.cols.Dx * w.cols.Dx
	w.outCols, w.outLift = w.outCols[:0], w.outLift[:0]
	a := float32(1 - math.Exp(-w.lastDt/LiftTime))
	for _, i := range w.touched {
		l := w.applied[i] + a*(float32(w.lift[i]/dx2)-w.applied[i])
		if math.Abs(float64(l-w.applied[i])) < LiftStepMin {
			continue // settled: the solver's floor stays as it is
		}
		w.outCols = append(w.outCols, i)
		w.outLift = append(w.outLift, l)
		w.applied[i] = l
	}
	for _, i := range w.prev {
		if !w.mark[i] {
			w.outCols = append(w.outCols, i)
			l := w.applied[i] * (1 - a)
			if l < 1e-9 {
				l = 0
			}
			w.outLift = append(w.outLift, l)
			w.applied[i] = l
			if l > 0 { // still lifted: keep it in the list
				w.mark[i] = true
				w.touched = append(w.touched, i)
			}
		}
	}
	return w.outCols, w.outLift
}

// columnAt returns the column of cell (x, y) whose free interval holds z, or -1.
func (w *World) columnAt(x, y int, z float64) int {
	c := w.cols
	lo, hi := c.Cell(x, y)
	for i := lo; i < hi; i++ {
		if z < float64(c.Min[i]) {
			return -1
		}
		if z <= float64(c.Max[i]) {
			return i
		}
	}
	return -1
}

// columnBelow returns the column of cell (x, y) whose free interval holds z, or else
// the highest one below z, or -1.
func (w *World) columnBelow(x, y int, z float64) int {
	c := w.cols
	lo, hi := c.Cell(x, y)
	for i := hi - 1; i >= lo; i-- {
		if float64(c.Min[i]) <= z {
			return i
		}
	}
	return -1
}

// stepBody is one body's update: the liquid's surface around it (surface), the forces
// of its points, the displacement they sum, and the implicit integration.
func (w *World) stepBody(b *Body, dt float64, liq Liquid) {
	c, st, sh := w.cols, w.st, b.shape
	dx := c.Dx
	r := b.q.matrix()
	cv := sh.Cell.X * sh.Cell.Y * sh.Cell.Z
	// A point's cell's extent along z and its half extents along x and y, world.
	ez := math.Abs(r[2][0])*sh.Cell.X + math.Abs(r[2][1])*sh.Cell.Y + math.Abs(r[2][2])*sh.Cell.Z
	hx := (math.Abs(r[0][0])*sh.Cell.X + math.Abs(r[0][1])*sh.Cell.Y + math.Abs(r[0][2])*sh.Cell.Z) / 2
	hy := (math.Abs(r[1][0])*sh.Cell.X + math.Abs(r[1][1])*sh.Cell.Y + math.Abs(r[1][2])*sh.Cell.Z) / 2
	rhoG := st.LiquidDensity * st.Gravity

	w.place(b, r)
	lv, wet := w.surface(b, liq)
	b.wet = wet
	w.startSplat(hx, hy)

	var force, torque vec // explicit: buoyancy, drag towards the flow, push
	var cLin, kz float64  // drag and heave stiffness, N s/m and N/m
	// The angular drag sum(c (|r|^2 I - r r^T)) and stiffness sum(w a a^T), a = r x z,
	// as their independent entries (a's z is 0: the stiffness has three).
	var cxx, cyy, czz, cxy, cxz, cyz, kxx, kyy, kxy float64
	sub := 0.0
	for i := range sh.X {
		rw := vec{X: w.px[i], Y: w.py[i], Z: w.pz[i]}
		p := b.x.Add(rw)
		f, u := 0.0, vec{}
		if wet {
			s := lv.a + lv.b*rw.X + lv.c*rw.Y
			g := (s-p.Z)/ez + 0.5
			f = min(max(g, 0), 1)
			if g > 0 && g < 1 { // partly submerged: buoyancy grows as it sinks
				wp := rhoG * cv / ez
				kz += wp
				kxx += wp * rw.Y * rw.Y // a = (y, -x, 0)
				kyy += wp * rw.X * rw.X
				kxy -= wp * rw.X * rw.Y
			}
			if f > 0 {
				// The flow at the point's height: the half-parabolic profile of a viscous
				// film over the floor around the body, 1.5x the mean at the surface.
				zeta := min(max((p.Z-lv.floor)/(s-lv.floor), 0), 1)
				prof := 3 * (zeta - zeta*zeta/2)
				u = vec{X: lv.vx * prof, Y: lv.vy * prof}
				w.splat(p, hx, hy, f*cv)
			}
		}
		if f > 0 {
			fb := rhoG * cv * f
			force.Z += fb
			torque = torque.Add(rw.Cross(vec{Z: fb}))
			sub += f * cv
		}
		cp := st.LiquidDensity * cv * (f*st.Drag + (1-f)*st.AirDrag)
		if cp > 0 {
			// The drag's parts that do not depend on the unknown: towards the flow,
			// less the other motion's share.
			force = force.Add(u.Sub(b.w.Cross(rw)).Scale(cp))
			torque = torque.Add(rw.Cross(u.Sub(b.v).Scale(cp)))
			cLin += cp
			xx, yy, zz := rw.X*rw.X, rw.Y*rw.Y, rw.Z*rw.Z
			cxx += cp * (yy + zz)
			cyy += cp * (xx + zz)
			czz += cp * (xx + yy)
			cxy -= cp * rw.X * rw.Y
			cxz -= cp * rw.X * rw.Z
			cyz -= cp * rw.Y * rw.Z
		}
	}
	b.submerged = sub
	b.splatCol, b.splatVol = b.splatCol[:0], b.splatVol[:0]
	if sub > 0 {
		w.flushSplat(b, b.x.Z)
	}
	b.level, b.foot = lv, w.foot
	b.rel = vec{}
	if wet && sub > 0 {
		b.rel = b.v.Sub(vec{X: 1.5 * lv.vx, Y: 1.5 * lv.vy})
	}
	force.Z -= b.mass * st.Gravity
	if b.pushing {
		if w.time < b.pushUntil {
			force = force.Add(b.pushF)
			torque = torque.Add(b.pushAt.Cross(b.pushF))
		} else {
			b.pushing = false
		}
	}
	// Linear: (m + dt C + dt^2 K) v' = m v + dt F (K along z only).
	m := b.mass
	b.v = vec{
		X: (m*b.v.X + dt*force.X) / (m + dt*cLin),
		Y: (m*b.v.Y + dt*force.Y) / (m + dt*cLin),
		Z: (m*b.v.Z + dt*force.Z) / (m + dt*cLin + dt*dt*kz),
	}
	b.x = b.x.Add(b.v.Scale(dt))
	// Angular: (I + dt C + dt^2 K) w' = I w + dt tau.
	iw := r.mulM(b.inertia).mulM(r.transpose())
	cAng := mat3{{cxx, cxy, cxz}, {cxy, cyy, cyz}, {cxz, cyz, czz}}
	kAng := mat3{{kxx, kxy, 0}, {kxy, kyy, 0}, {0, 0, 0}}
	lhs := iw.add(cAng.scale(dt)).add(kAng.scale(dt * dt))
	b.w = lhs.solve(iw.mul(b.w).Add(torque.Scale(dt)))
	b.q = b.q.rotate(b.w, dt)
	_ = dx
}

// place puts the body's points in the world (relative to its centre of mass) into the
// world's scratch, and finds the cells they lie in: the rectangle foot (clipped to the
// grid; empty, x1 < x0, when none is in it).
func (w *World) place(b *Body, r mat3) {
	sh := b.shape
	n := len(sh.X)
	if cap(w.px) < n {
		w.px, w.py, w.pz = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	w.px, w.py, w.pz = w.px[:n], w.py[:n], w.pz[:n]
	c := w.cols
	lo, hi := vec{X: math.Inf(1), Y: math.Inf(1)}, vec{X: math.Inf(-1), Y: math.Inf(-1)}
	for i := range n {
		p := r.mul(vec{X: float64(sh.X[i]), Y: float64(sh.Y[i]), Z: float64(sh.Z[i])})
		w.px[i], w.py[i], w.pz[i] = p.X, p.Y, p.Z
		lo.X, lo.Y, hi.X, hi.Y = min(lo.X, p.X), min(lo.Y, p.Y), max(hi.X, p.X), max(hi.Y, p.Y)
	}
	f := &w.foot
	f.x0 = max(int(math.Floor((b.x.X+lo.X)/c.Dx)), 0)
	f.y0 = max(int(math.Floor((b.x.Y+lo.Y)/c.Dx)), 0)
	f.x1 = min(int(math.Floor((b.x.X+hi.X)/c.Dx)), c.Nx-1)
	f.y1 = min(int(math.Floor((b.x.Y+hi.Y)/c.Dx)), c.Ny-1)
}

// footprint is the rectangle of cells a body's points lie in, inclusive.
type footprint struct{ x0, y0, x1, y1 int }

// level is the liquid's surface around a body: the plane z = a + b dx + c dy (dx, dy
// from the centre of mass), the floor under it and the flow's depth-averaged velocity.
type level struct {
	a, b, c, floor float64
	vx, vy         float64
}

// ringSamples is the most ring columns whose velocity an update reads.
const ringSamples = 16

// surface fits the liquid's surface around the body: the columns of the cells that ring
// the rectangle of its footprint (place), at the body's height, wet. Their heights are
// the level the body floats in, unlike those under it, which its own displacement raises:
// measured against them, the buoyancy is Archimedes' without the update feeding back on
// itself. A plane through them (least squares) tilts with waves and slopes; fewer than
// three give their mean. wet is false where no ring column holds liquid.
func (w *World) surface(b *Body, liq Liquid) (level, bool) {
	c := w.cols
	top := b.x.Z + b.shape.Radius
	var n, sx, sy, sz, sxx, sxy, syy, sxz, syz, floor float64
	w.ring = w.ring[:0]
	f := w.foot
	visit := func(x, y int) {
		if x < 0 || y < 0 || x >= c.Nx || y >= c.Ny {
			return
		}
		lo, hi := c.Cell(x, y)
		for i := hi - 1; i >= lo; i-- {
			if float64(c.Min[i]) > top {
				continue
			}
			h := float64(liq.H[i])
			if h-float64(c.Base[i])-float64(w.applied[i]) > wetDepth {
				px, py := c.CellCentre(x, y)
				dx, dy := px-b.x.X, py-b.x.Y
				n++
				sx, sy, sz = sx+dx, sy+dy, sz+h
				sxx, sxy, syy = sxx+dx*dx, sxy+dx*dy, syy+dy*dy
				sxz, syz = sxz+dx*h, syz+dy*h
				floor += float64(c.Base[i])
				w.ring = append(w.ring, int32(i))
			}
			return
		}
	}
	if f.x1 >= f.x0 && f.y1 >= f.y0 {
		for x := f.x0 - 1; x <= f.x1+1; x++ {
			visit(x, f.y0-1)
			visit(x, f.y1+1)
		}
		for y := f.y0; y <= f.y1; y++ {
			visit(f.x0-1, y)
			visit(f.x1+1, y)
		}
	}
	if n == 0 {
		return level{}, false
	}
	lv := level{a: sz / n, floor: floor / n}
	if n >= 3 {
		// Normal equations of z = a + b dx + c dy.
		m := mat3{{n, sx, sy}, {sx, sxx, sxy}, {sy, sxy, syy}}
		if sol := m.solve(vec{X: sz, Y: sxz, Z: syz}); sol != (vec{X: sz, Y: sxz, Z: syz}) && sol.IsFinite() &&
			math.Abs(sol.Y) < 1 && math.Abs(sol.Z) < 1 {
			lv.a, lv.b, lv.c = sol.X, sol.Y, sol.Z
		}
	}
	if liq.Velocity != nil {
		step := max(1, len(w.ring)/ringSamples)
		k := 0
		for j := 0; j < len(w.ring); j += step {
			vx, vy := liq.Velocity(int(w.ring[j]))
			lv.vx, lv.vy = lv.vx+vx, lv.vy+vy
			k++
		}
		lv.vx, lv.vy = lv.vx/float64(k), lv.vy/float64(k)
	}
	return lv, true
}

// wetDepth is the least liquid depth a ring column counts as wet at, m.
const wetDepth = 1e-6

// splat adds the volume vol of a point at p (horizontal half extents hx, hy) to the
// body's grid of cells (acc over the rectangle accFoot), by the area of each cell its
// footprint covers.
func (w *World) splat(p vec, hx, hy float64, vol float64) {
	dx := w.cols.Dx
	f := w.accFoot
	x0, x1 := (p.X-hx)/dx, (p.X+hx)/dx
	y0, y1 := (p.Y-hy)/dx, (p.Y+hy)/dx
	per := vol / ((x1 - x0) * (y1 - y0))
	nx := f.x1 - f.x0 + 1
	for cy := int(math.Floor(y0)); float64(cy) < y1; cy++ {
		if cy < f.y0 || cy > f.y1 {
			continue
		}
		oy := min(y1, float64(cy+1)) - max(y0, float64(cy))
		row := (cy - f.y0) * nx
		for cx := int(math.Floor(x0)); float64(cx) < x1; cx++ {
			if cx < f.x0 || cx > f.x1 {
				continue
			}
			ox := min(x1, float64(cx+1)) - max(x0, float64(cx))
			w.acc[row+cx-f.x0] += per * ox * oy
		}
	}
}

// startSplat readies the body's grid: the footprint grown by the points' reach, clipped
// to the grid, zeroed.
func (w *World) startSplat(hx, hy float64) {
	c := w.cols
	mx, my := int(math.Ceil(hx/c.Dx)), int(math.Ceil(hy/c.Dx))
	f := w.foot
	w.accFoot = footprint{x0: max(f.x0-mx, 0), y0: max(f.y0-my, 0), x1: min(f.x1+mx, c.Nx-1), y1: min(f.y1+my, c.Ny-1)}
	n := max(0, (w.accFoot.x1-w.accFoot.x0+1)*(w.accFoot.y1-w.accFoot.y0+1))
	if cap(w.acc) < n {
		w.acc = make([]float64, n)
	}
	w.acc = w.acc[:n]
	clear(w.acc)
}

// flushSplat adds the body's grid to the columns' displacement: in each cell, the column
// holding the body's centre of mass's height, or the highest below it (a body lies in
// one layer; one straddling a ledge gives the cells under the ledge's top to the top's
// column).
func (w *World) flushSplat(b *Body, z float64) {
	f := w.accFoot
	nx := f.x1 - f.x0 + 1
	b.splatCol, b.splatVol = b.splatCol[:0], b.splatVol[:0]
	for k, v := range w.acc {
		if v == 0 {
			continue
		}
		cx, cy := f.x0+k%nx, f.y0+k/nx
		i := w.columnBelow(cx, cy, z)
		if i < 0 {
			continue
		}
		b.splatCol, b.splatVol = append(b.splatCol, int32(i)), append(b.splatVol, v)
	}
	w.addSplat(b)
}

// addSplat adds the body's last displacement (flushSplat) to the columns'.
func (w *World) addSplat(b *Body) {
	for k, i := range b.splatCol {
		if !w.mark[i] {
			w.mark[i] = true
			w.touched = append(w.touched, i)
		}
		w.lift[i] += b.splatVol[k]
	}
}

// quatFromMatrix is the rotation of the matrix m (orthonormal).
func quatFromMatrix(m [3][3]float64) quat {
	tr := m[0][0] + m[1][1] + m[2][2]
	var q quat
	switch {
	case tr > 0:
		s := math.Sqrt(tr+1) * 2
		q = quat{W: s / 4, X: (m[2][1] - m[1][2]) / s, Y: (m[0][2] - m[2][0]) / s, Z: (m[1][0] - m[0][1]) / s}
	case m[0][0] > m[1][1] && m[0][0] > m[2][2]:
		s := math.Sqrt(1+m[0][0]-m[1][1]-m[2][2]) * 2
		q = quat{W: (m[2][1] - m[1][2]) / s, X: s / 4, Y: (m[0][1] + m[1][0]) / s, Z: (m[0][2] + m[2][0]) / s}
	case m[1][1] > m[2][2]:
		s := math.Sqrt(1+m[1][1]-m[0][0]-m[2][2]) * 2
		q = quat{W: (m[0][2] - m[2][0]) / s, X: (m[0][1] + m[1][0]) / s, Y: s / 4, Z: (m[1][2] + m[2][1]) / s}
	default:
		s := math.Sqrt(1+m[2][2]-m[0][0]-m[1][1]) * 2
		q = quat{W: (m[1][0] - m[0][1]) / s, X: (m[0][2] + m[2][0]) / s, Y: (m[1][2] + m[2][1]) / s, Z: s / 4}
	}
	return q.normalized()
}

// Solver is what the bodies need of the liquid's solver (gpusim.Sim has it): its
// heights now (read only), a column's velocity, and floors to lift.
type Solver interface {
	LiveHeights(dst []float32) []float32
	ColumnVelocity(i int, h float32) (vx, vy float64)
	LiftFloors(cols []int32, lift []float32, h []float32) error
}

// Couple is one update against the solver: the bodies step by dt in its liquid, and its
// floors are lifted by what they displace.
func (w *World) Couple(s Solver, dt float64) error {
	w.h = s.LiveHeights(w.h)
	w.solver = s
	if w.vel == nil {
		w.vel = w.columnVelocity
	}
	w.Step(dt, Liquid{H: w.h, Velocity: w.vel})
	cols, lift := w.Lifts()
	return s.LiftFloors(cols, lift, w.h)
}

func (w *World) columnVelocity(col int) (float64, float64) {
	return w.solver.ColumnVelocity(col, w.h[col])
}
