package bodies

import (
	"fmt"
	"math"
)

// Body is one rigid body: a Shape of uniform density, its pose and its motion. A World
// makes and steps it; its reads are the state after the last World.Step.
type Body struct {
	id      int
	shape   *Shape
	density float64 // kg/m^3
	mass    float64 // kg
	inertia mat3    // body frame, kg m^2

	x    vec  // centre of mass, m
	q    quat // orientation: body frame to world
	v, w vec  // velocity (m/s) and angular velocity (rad/s), world

	pushF, pushAt vec     // a push's force (N) and where it acts (m, world)
	pushUntil     float64 // the push acts until this time (s)
	pushing       bool

	submerged float64 // the volume below the liquid at the last update, m^3
	wet       bool    // liquid rings the body at the last update
	rel       vec     // its velocity less the surface's flow at the last update, m/s
	moved     bool    // a contact with another body moved it in this pass (World.Step)

	// The last update's liquid around it and its rectangle of cells (World.surface,
	// place), and its displacement per column (flushSplat).
	level    level
	foot     footprint
	splatCol []int32
	splatVol []float64
	// Sleep (World.Step): how long it has been still, whether it sleeps, and the liquid
	// around it when it fell asleep.
	still      float64
	asleep     bool
	sleepLevel level
	sleepWet   bool
	removed    bool
	left       bool // removed because it crossed an open side (World.SetOpen)
}

// ID is the body's number, from 1 in the order a World made them.
func (b *Body) ID() int { return b.id }

// Shape is the body's sampled solid.
func (b *Body) Shape() *Shape { return b.shape }

// Density is the body's density, kg/m^3.
func (b *Body) Density() float64 { return b.density }

// Mass is the body's mass, kg.
func (b *Body) Mass() float64 { return b.mass }

// Position is the body's centre of mass, m.
func (b *Body) Position() (x, y, z float64) { return b.x.X, b.x.Y, b.x.Z }

// Velocity is the velocity of the body's centre of mass, m/s.
func (b *Body) Velocity() (x, y, z float64) { return b.v.X, b.v.Y, b.v.Z }

// Spin is the body's angular velocity, rad/s (world axes).
func (b *Body) Spin() (x, y, z float64) { return b.w.X, b.w.Y, b.w.Z }

// Rotation is the body's orientation as a rotation of its solid about its centre of
// mass: a unit axis and an angle in radians (0 and the z axis when unturned).
func (b *Body) Rotation() (axis [3]float64, angle float64) {
	a, ang := b.q.axisAngle()
	return [3]float64{a.X, a.Y, a.Z}, ang
}

// Matrix is the body's rotation matrix (body frame to world), row major.
func (b *Body) Matrix() [3][3]float64 { return b.q.matrix() }

// Submerged is the body's volume below the liquid's surface at the last update, m^3.
func (b *Body) Submerged() float64 { return b.submerged }

// Volume is the body's volume, m^3 (its sampled solid's).
func (b *Body) Volume() float64 { return b.shape.Volume }

// Wake is the body's velocity relative to the liquid's surface around it at the last
// update (m/s; zero out of the liquid): what its wake's waves grow with.
func (b *Body) Wake() (x, y, z float64) { return b.rel.X, b.rel.Y, b.rel.Z }

// Removed tells whether the body was removed (World.Remove, or it left).
func (b *Body) Removed() bool { return b.removed }

// Left tells whether the body left the world through an open side (World.SetOpen).
func (b *Body) Left() bool { return b.left }

// Lowest is the height of the body's lowest point, m.
func (b *Body) Lowest() float64 {
	r := b.q.matrix()
	z := math.Inf(1)
	for _, c := range b.shape.Contact {
		z = min(z, r.mul(vec{X: float64(c[0]), Y: float64(c[1]), Z: float64(c[2])}).Z)
	}
	return b.x.Z + z
}

// setDensity changes the density: the mass and the inertia follow.
func (b *Body) setDensity(rho float64) error {
	if !(rho > 0) || math.IsInf(rho, 0) {
		return fmt.Errorf("density is %v: it must be a number > 0 (kg/m^3)", rho)
	}
	b.density = rho
	b.mass = rho * b.shape.Volume
	b.inertia = b.shape.Inertia.scale(rho)
	return nil
}

// SetDensity changes the body's density (kg/m^3; a swab that soaks up liquid grows
// denser): its mass and inertia follow, its motion is kept.
func (b *Body) SetDensity(rho float64) error {
	b.wake()
	return b.setDensity(rho)
}

// Asleep tells whether the body sleeps: still for a while in unchanging liquid, it is
// not stepped until something changes (docs/bodies.md, "Cost").
func (b *Body) Asleep() bool { return b.asleep }

// SetVelocity sets the body's velocity (m/s).
func (b *Body) SetVelocity(x, y, z float64) error {
	v := vec{X: x, Y: y, Z: z}
	if !v.IsFinite() {
		return fmt.Errorf("velocity {%g, %g, %g}: each component must be a finite number (m/s)", x, y, z)
	}
	b.v = v
	b.wake()
	return nil
}

// Push applies the force f (N) at the point at (m, world; the centre of mass when nil)
// from now for duration seconds (> 0): a push replaces the one before it.
func (b *Body) Push(now float64, f [3]float64, at *[3]float64, duration float64) error {
	fv := vec{X: f[0], Y: f[1], Z: f[2]}
	if !fv.IsFinite() {
		return fmt.Errorf("force {%g, %g, %g}: each component must be a finite number (N)", f[0], f[1], f[2])
	}
	if !(duration > 0) || math.IsInf(duration, 0) {
		return fmt.Errorf("duration is %v: it must be a number > 0 (s)", duration)
	}
	p := b.x
	if at != nil {
		p = vec{X: at[0], Y: at[1], Z: at[2]}
		if !p.IsFinite() {
			return fmt.Errorf("at {%g, %g, %g}: each component must be a finite number (m)", at[0], at[1], at[2])
		}
	}
	b.pushF, b.pushAt, b.pushUntil, b.pushing = fv, p.Sub(b.x), now+duration, true
	b.wake()
	return nil
}
