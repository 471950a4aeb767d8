package scene

import (
	"fmt"
	"math"
	"time"

	"github.com/vpbench/vpbench/bodies"
	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
	"github.com/vpbench/vpbench/waves"
)

// BodyStep is the simulated time between two updates of the bodies, s
// (bodies.Interval): every max(1, floor(BodyStep / dt)) solver steps, counted from the
// run's first step, so that the updates fall on the same steps however a run is cut
// into frames.
const BodyStep = bodies.Interval

// DefaultBodyColor is a body's colour when the script gives none: the off-white of
// cotton gauze, sRGB.
var DefaultBodyColor = [3]float32{0.93, 0.92, 0.88}

// bodyState is the scene's floating bodies (docs/bodies.md).
type bodyState struct {
	world  *bodies.World
	color  map[*bodies.Body][3]float32
	meshes map[*bodies.Shape]*terrain.Mesh // body frame, made once a shape
	last   time.Duration                   // the bodies' share of the last Step
	mesh   BodyMesh                        // BodyMesh's buffers
	// warnings are the lines for the bodies that left through open sides since the
	// last Warnings call.
	warnings []string
}

// BodyMesh is the bodies' surfaces in the world, for the renderer and the exports:
// positions and unit normals (xyz), an sRGB colour a vertex, triangles counter-clockwise
// seen from outside. Its slices are reused by the next BodyMesh call.
type BodyMesh struct {
	Positions, Normals, Colors []float32
	Indices                    []uint32
}

// AddBody makes a rigid body of solid (bounded, within the domain's size of it) and density
// (kg/m^3), its centre of mass at at (nil: where the solid lies), turned by rot (nil:
// as given), at rest, drawn in color (nil: DefaultBodyColor). It floats, sinks and
// drifts in the liquid and pushes it back (docs/bodies.md).
func (s *Scene) AddBody(solid terrain.Solid, density float64, at *[3]float64, rot *[3][3]float64, color *[3]float32) (*bodies.Body, error) {
	if _, err := s.EnsureSolver(); err != nil {
		return nil, err
	}
	if s.rg.g != nil {
		return nil, fmt.Errorf("a region is in place: floating bodies do not enter a region yet (its 3D liquid has no moving solids); make the bodies in a scene without one")
	}
	if err := s.ensureBodies(); err != nil {
		return nil, err
	}
	// The solid is looked for in the domain's box grown by the box's size on every side:
	// a script may build a body about the origin and place it with at.
	d := s.domain
	size := terrain.Vec3{X: d.SizeX, Y: d.SizeY, Z: d.Height}
	sh, err := bodies.NewShape(solid, bodies.Box{Min: size.Scale(-1), Max: size.Scale(2)}, d.Dx/4)
	if err != nil {
		return nil, err
	}
	place := [3]float64{sh.Offset.X, sh.Offset.Y, sh.Offset.Z}
	if at != nil {
		place = *at
	}
	if err := s.bodyInside(sh, place, rot); err != nil {
		return nil, err
	}
	b, err := s.bodies.world.Add(sh, density, place, rot)
	if err != nil {
		return nil, err
	}
	c := DefaultBodyColor
	if color != nil {
		c = *color
	}
	s.bodies.color[b] = c
	return b, nil
}

// BodyOutsideError refuses a body that, placed, reaches out of the domain: the
// documented error (docs/bodies.md), where the contacts would push it in at its first
// update. At is its centre of mass (where the solid lies when the script gave no at),
// Min and Max the corners of its box as placed (turned too), Domain the domain's far
// corner (the near one is the origin), m.
type BodyOutsideError struct {
	At, Min, Max, Domain [3]float64
}

func (e *BodyOutsideError) Error() string {
	return fmt.Sprintf("body at {%.6g, %.6g, %.6g} spans [%.6g, %.6g] x [%.6g, %.6g] x [%.6g, %.6g] m, reaching out of the domain [0, %.6g] x [0, %.6g] x [0, %.6g] m",
		e.At[0], e.At[1], e.At[2], e.Min[0], e.Max[0], e.Min[1], e.Max[1], e.Min[2], e.Max[2], e.Domain[0], e.Domain[1], e.Domain[2])
}

// bodyInside refuses the shape sh placed with its centre of mass at place, turned by rot
// (nil: as given), when its box reaches out of the domain (the bodies' walls: the grid's
// extent and the height) by more than a quarter of a cell, which the first contacts
// settle unseen. The box is its contact points' (the lattice's outer cells' corners),
// turned.
func (s *Scene) bodyInside(sh *bodies.Shape, place [3]float64, rot *[3][3]float64) error {
	cols := s.sim.Columns()
	dom := [3]float64{float64(cols.Nx) * cols.Dx, float64(cols.Ny) * cols.Dx, cols.Height}
	pts := sh.Contact
	if len(pts) == 0 {
		pts = [][3]float32{{float32(sh.Min.X), float32(sh.Min.Y), float32(sh.Min.Z)}, {float32(sh.Max.X), float32(sh.Max.Y), float32(sh.Max.Z)}}
	}
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		q := [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
		if rot != nil {
			r := *rot
			q = [3]float64{
				r[0][0]*q[0] + r[0][1]*q[1] + r[0][2]*q[2],
				r[1][0]*q[0] + r[1][1]*q[1] + r[1][2]*q[2],
				r[2][0]*q[0] + r[2][1]*q[1] + r[2][2]*q[2],
			}
		}
		for a := range 3 {
			lo[a] = math.Min(lo[a], place[a]+q[a])
			hi[a] = math.Max(hi[a], place[a]+q[a])
		}
	}
	tol := cols.Dx / 4
	for a := range 3 {
		if lo[a] < -tol || hi[a] > dom[a]+tol {
			return &BodyOutsideError{At: place, Min: lo, Max: hi, Domain: dom}
		}
	}
	return nil
}

// ensureBodies makes the bodies' world on the solver's columns.
func (s *Scene) ensureBodies() error {
	if s.bodies.world != nil {
		return nil
	}
	w, err := bodies.NewWorld(s.sim.Columns(), s.bodySettings())
	if err != nil {
		return err
	}
	s.bodies = bodyState{world: w, color: map[*bodies.Body][3]float32{}, meshes: map[*bodies.Shape]*terrain.Mesh{}}
	return nil
}

// bodySettings are the bodies' constants from the scene's: the solver's gravity and
// the liquid's density.
func (s *Scene) bodySettings() bodies.Settings {
	st := bodies.DefaultSettings()
	st.Gravity = s.settings.Solver.Gravity
	st.LiquidDensity = s.settings.Liquid.Density
	return st
}

// SetBodyColor changes a body's colour (sRGB, each in [0, 1]).
func (s *Scene) SetBodyColor(b *bodies.Body, c [3]float32) {
	if s.bodies.world != nil && !b.Removed() {
		s.bodies.color[b] = c
	}
}

// Bodies returns the bodies not removed, in the order they were made (nil: none): the
// world's own list, to read and not to keep past the next body made or removed.
func (s *Scene) Bodies() []*bodies.Body {
	if s.bodies.world == nil {
		return nil
	}
	return s.bodies.world.Bodies()
}

// BodyCount is the number of bodies not removed.
func (s *Scene) BodyCount() int {
	if s.bodies.world == nil {
		return 0
	}
	return s.bodies.world.Count()
}

// RemoveBody takes a body out; the liquid it displaced flows back at the next updates.
func (s *Scene) RemoveBody(b *bodies.Body) {
	if s.bodies.world != nil {
		s.bodies.world.Remove(b)
		delete(s.bodies.color, b)
	}
}

// LastBodies is the wall time the bodies took in the last Step.
func (s *Scene) LastBodies() time.Duration { return s.bodies.last }

// bodyEvery is the solver steps between two updates of the bodies.
func (s *Scene) bodyEvery() int64 {
	return max(1, int64(math.Floor(BodyStep/s.sim.Dt())))
}

// stepWithBodies runs n solver steps, updating the bodies on every bodyEvery-th step.
func (s *Scene) stepWithBodies(n int) {
	if s.rg.g != nil { // a region takes no bodies (PlaceRegion, AddBody)
		s.stepRegion(n)
		s.bodies.last = 0
		return
	}
	w := s.bodies.world
	if w == nil || w.Count() == 0 && !w.Lifting() {
		s.sim.Step(n)
		s.bodies.last = 0
		return
	}
	var spent time.Duration
	k := s.bodyEvery()
	for n > 0 {
		next := k - s.sim.Steps()%k
		m := int(min(int64(n), next))
		s.sim.Step(m)
		n -= m
		if s.sim.Steps()%k == 0 {
			t0 := time.Now()
			s.bodies.world.SetTime(s.sim.Time() - float64(k)*s.sim.Dt())
			// The liquid's open sides are the bodies' (sim:set may change them).
			open := [4]bool{}
			for i, sd := range s.sim.Settings().Sides {
				open[i] = sd == gpusim.SideOpen
			}
			w.SetOpen(open)
			if err := w.Couple(s.sim, float64(k)*s.sim.Dt()); err != nil {
				s.bodyErr = fmt.Errorf("bodies: %w", err)
			}
			s.bodiesLeft()
			s.bodyWakes(float64(k) * s.sim.Dt())
			spent += time.Since(t0)
		}
	}
	s.bodies.last = spent
}

// bodiesLeft takes the bodies that left through open sides in the last update out of the
// scene (their colours; the world removed them) and words a warning for each.
func (s *Scene) bodiesLeft() {
	for _, b := range s.bodies.world.TakeLeft() {
		delete(s.bodies.color, b)
		x, y, z := b.Position()
		side := "open side"
		d := s.domain
		switch {
		case x < 0:
			side = "open minus_x side"
		case x > d.SizeX:
			side = "open plus_x side"
		case y < 0:
			side = "open minus_y side"
		case y > d.SizeY:
			side = "open plus_y side"
		}
		s.bodies.warnings = append(s.bodies.warnings, fmt.Sprintf(
			"body %d left the domain through the %s at t = %.4g s (its centre at {%.4g, %.4g, %.4g} m): removed", b.ID(), side, s.sim.Time(), x, y, z))
	}
}

// BodiesLeft is the number of bodies that left the domain through open sides.
func (s *Scene) BodiesLeft() int {
	if s.bodies.world == nil {
		return 0
	}
	return s.bodies.world.Left()
}

// takeBodyWarnings returns (and clears) the bodies' warnings (Warnings).
func (s *Scene) takeBodyWarnings() []string {
	w := s.bodies.warnings
	s.bodies.warnings = nil
	return w
}

// bodyWakes starts the bodies' wakes on the waves (when they run): a body moving
// through the liquid at v relative to its surface for dt pushes aside about its submerged
// volume times v dt over its length, spread on a ring of its horizontal radius R: a crest
// of V_sub / (pi R^2) times min(1, |v| dt / R), at most half the height of its centre of
// mass over its lowest point.
func (s *Scene) bodyWakes(dt float64) {
	if s.waves.sys == nil {
		return
	}
	t := s.sim.Time()
	for _, b := range s.bodies.world.Bodies() {
		vx, vy, vz := b.Wake()
		v := math.Sqrt(vx*vx + vy*vy + vz*vz)
		sub := b.Submerged()
		if sub <= 0 || v < WakeMinSpeed {
			continue
		}
		sh := b.Shape()
		r := math.Max(math.Hypot(sh.Max.X-sh.Min.X, sh.Max.Y-sh.Min.Y)/2, 2*s.domain.Dx)
		x, y, z := b.Position()
		a := sub / (math.Pi * r * r) * math.Min(1, v*dt/r)
		a = math.Min(a, (z-b.Lowest())/2)
		if a > WaveMinAmplitude {
			s.waves.sys.Impact(waves.Impact{X: x, Y: y, Z: b.Lowest(), Amplitude: a, Radius: r, Time: t})
			s.waves.queued = true
		}
	}
}

// WakeMinSpeed is the least speed through the liquid at which a body makes a wake, m/s.
const WakeMinSpeed = 0.002

// BodyError is the error the bodies' coupling met, if any (then they stop lifting).
func (s *Scene) BodyError() error { return s.bodyErr }

// BodyMesh is the bodies' surfaces now (nil when there are none).
func (s *Scene) BodyMesh() (*BodyMesh, error) {
	if s.bodies.world == nil {
		return nil, nil
	}
	bs := s.bodies.world.Bodies()
	if len(bs) == 0 {
		return nil, nil
	}
	m := &s.bodies.mesh
	m.Positions, m.Normals, m.Colors, m.Indices = m.Positions[:0], m.Normals[:0], m.Colors[:0], m.Indices[:0]
	for _, b := range bs {
		sm, err := s.shapeMesh(b.Shape())
		if err != nil {
			return nil, err
		}
		r := b.Matrix()
		x, y, z := b.Position()
		c := s.bodies.color[b]
		base := uint32(len(m.Positions) / 3)
		for i := 0; i < len(sm.Positions); i += 3 {
			p := [3]float64{float64(sm.Positions[i]), float64(sm.Positions[i+1]), float64(sm.Positions[i+2])}
			n := [3]float64{float64(sm.Normals[i]), float64(sm.Normals[i+1]), float64(sm.Normals[i+2])}
			for a := range 3 {
				m.Positions = append(m.Positions, float32(r[a][0]*p[0]+r[a][1]*p[1]+r[a][2]*p[2]+[3]float64{x, y, z}[a]))
			}
			for a := range 3 {
				m.Normals = append(m.Normals, float32(r[a][0]*n[0]+r[a][1]*n[1]+r[a][2]*n[2]))
			}
			m.Colors = append(m.Colors, c[0], c[1], c[2])
		}
		for _, i := range sm.Indices {
			m.Indices = append(m.Indices, base+i)
		}
	}
	return m, nil
}

// shapeMesh is a shape's surface in its body frame, meshed once: marching cubes of its
// solid on a lattice a third of its thinnest side, at most 1/32 of its longest, and never
// finer than 1/160 of it (a needle 50 mm long and 0.1 mm thin would otherwise ask for a
// lattice of a billion points; thinner than the lattice, it may not show in pictures,
// though it floats as it should).
func (s *Scene) shapeMesh(sh *bodies.Shape) (*terrain.Mesh, error) {
	if m, ok := s.bodies.meshes[sh]; ok {
		return m, nil
	}
	ext := sh.Max.Sub(sh.Min)
	longest := max(ext.X, ext.Y, ext.Z)
	h := max(min(min(ext.X, ext.Y, ext.Z)/3, longest/32), longest/160)
	// The solid moved so that its box starts two lattice cells above the origin: the
	// floor slab SurfaceMesh adds lies below it and is dropped.
	lo := sh.Min.Add(sh.Offset) // the box's corner in the solid's coordinates
	shift := terrain.Vec3{X: 2*h - lo.X, Y: 2*h - lo.Y, Z: 2*h - lo.Z}
	moved, err := terrain.Translate(sh.Solid, shift)
	if err != nil {
		return nil, err
	}
	d := terrain.Domain{SizeX: ext.X + 4*h, SizeY: ext.Y + 4*h, Height: ext.Z + 4*h, Dx: h}
	full, err := terrain.SurfaceMesh(moved, d)
	if err != nil {
		return nil, fmt.Errorf("body: its surface: %w", err)
	}
	// Keep the triangles above the slab, in the body frame (centre of mass at 0).
	out := &terrain.Mesh{}
	remap := make(map[uint32]uint32)
	off := shift.Add(sh.Offset)
	for t := 0; t < len(full.Indices); t += 3 {
		tri := full.Indices[t : t+3]
		slab := false
		for _, v := range tri {
			if full.Positions[3*v+2] <= float32(h/2) {
				slab = true
			}
		}
		if slab {
			continue
		}
		for _, v := range tri {
			j, ok := remap[v]
			if !ok {
				j = uint32(len(out.Positions) / 3)
				remap[v] = j
				out.Positions = append(out.Positions, full.Positions[3*v]-float32(off.X), full.Positions[3*v+1]-float32(off.Y), full.Positions[3*v+2]-float32(off.Z))
				out.Normals = append(out.Normals, full.Normals[3*v:3*v+3]...)
			}
			out.Indices = append(out.Indices, j)
		}
	}
	s.bodies.meshes[sh] = out
	return out, nil
}

// BodyStates is the bodies' state for a checkpoint (bodies.World.State); nil when the
// scene has none.
func (s *Scene) BodyStates() *bodies.State {
	if s.bodies.world == nil {
		return nil
	}
	st := s.bodies.world.State()
	return &st
}

// RestoreBodies brings the bodies to a checkpoint's state (bodies.World.Restore): the
// bodies made again (the script's set-up) take the state of the checkpoint's first ones,
// in order; the checkpoint's others (made later, by callbacks) are dropped and counted.
func (s *Scene) RestoreBodies(st *bodies.State) (dropped int, err error) {
	if st == nil {
		if n := s.BodyCount(); n > 0 {
			return 0, fmt.Errorf("the checkpoint has no bodies, the script's set-up made %d", n)
		}
		return 0, nil
	}
	if s.bodies.world == nil {
		if err := s.ensureBodies(); err != nil {
			return 0, err
		}
	}
	return s.bodies.world.Restore(*st)
}
