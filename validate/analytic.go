package validate

// The analytic solutions the cases compare against, in float64, each with its source
// (docs/validation.md gives the formulas and the papers' titles).

import (
	"errors"
	"math"
)

// Ritter is the dam break on a dry bed (Ritter's solution, as compiled in "SWASHES: a
// compilation of shallow water analytic solutions for hydraulic and environmental
// studies"): depth hl for x < x0 at t = 0, dry beyond, flat frictionless bed.
type Ritter struct {
	G, Hl, X0 float64
}

// At returns the depth h and velocity u at x and time t > 0.
func (r Ritter) At(x, t float64) (h, u float64) {
	c := math.Sqrt(r.G * r.Hl)
	if t <= 0 {
		if x < r.X0 {
			return r.Hl, 0
		}
		return 0, 0
	}
	xi := (x - r.X0) / t
	switch {
	case xi <= -c:
		return r.Hl, 0
	case xi <= 2*c:
		s := 2*c - xi
		return s * s / (9 * r.G), 2.0 / 3 * (xi + c)
	}
	return 0, 0
}

// Front returns where the depth is eps*hl at time t, on the rarefaction's wet side of the
// front: x0 + t (2 c0 - 3 sqrt(eps g hl)).
func (r Ritter) Front(eps, t float64) float64 {
	c := math.Sqrt(r.G * r.Hl)
	return r.X0 + t*(2*c-3*math.Sqrt(eps*r.G*r.Hl))
}

// Stoker is the dam break on a wet bed (Stoker's solution, SWASHES): depth hl for x < x0,
// hr > 0 beyond, flat frictionless bed.
type Stoker struct {
	G, Hl, Hr, X0 float64
	Cm            float64 // sqrt(g hm), from Solve
}

// stokerPoly is SWASHES' polynomial for c_m:
// c^6 - 9 cr^2 c^4 + 16 cl cr^2 c^3 - cr^2 (cr^2 + 8 cl^2) c^2 + cr^6.
func stokerPoly(c, cl, cr float64) float64 {
	c2, cr2 := c*c, cr*cr
	return c2*c2*c2 - 9*cr2*c2*c2 + 16*cl*cr2*c2*c - cr2*(cr2+8*cl*cl)*c2 + cr2*cr2*cr2
}

// NewStoker solves for the middle state by bisection of SWASHES' polynomial on
// (cr, cl), where it changes sign once.
func NewStoker(g, hl, hr, x0 float64) (Stoker, error) {
	s := Stoker{G: g, Hl: hl, Hr: hr, X0: x0}
	if !(hr > 0 && hr < hl) {
		return s, errors.New("stoker: want 0 < hr < hl")
	}
	cl, cr := math.Sqrt(g*hl), math.Sqrt(g*hr)
	lo, hi := cr, cl
	flo := stokerPoly(lo, cl, cr)
	if flo*stokerPoly(hi, cl, cr) > 0 {
		return s, errors.New("stoker: no sign change of the polynomial on [cr, cl]")
	}
	for range 200 {
		mid := (lo + hi) / 2
		fm := stokerPoly(mid, cl, cr)
		if fm == 0 {
			lo, hi = mid, mid
			break
		}
		if (fm > 0) == (flo > 0) {
			lo, flo = mid, fm
		} else {
			hi = mid
		}
	}
	s.Cm = (lo + hi) / 2
	return s, nil
}

// Hm is the plateau's depth, Um its velocity and ShockSpeed the shock's speed.
func (s Stoker) Hm() float64 { return s.Cm * s.Cm / s.G }

// Um is the plateau's velocity 2 (cl - cm).
func (s Stoker) Um() float64 { return 2 * (math.Sqrt(s.G*s.Hl) - s.Cm) }

// ShockSpeed is hm um / (hm - hr).
func (s Stoker) ShockSpeed() float64 { return s.Hm() * s.Um() / (s.Hm() - s.Hr) }

// At returns the depth and velocity at x, time t > 0.
func (s Stoker) At(x, t float64) (h, u float64) {
	if t <= 0 {
		if x < s.X0 {
			return s.Hl, 0
		}
		return s.Hr, 0
	}
	cl := math.Sqrt(s.G * s.Hl)
	xi := (x - s.X0) / t
	switch {
	case xi <= -cl:
		return s.Hl, 0
	case xi <= 2*cl-3*s.Cm:
		q := 2*cl - xi
		return q * q / (9 * s.G), 2.0 / 3 * (xi + cl)
	case xi <= s.ShockSpeed():
		return s.Hm(), s.Um()
	}
	return s.Hr, 0
}

// Thacker is the planar oscillation in a paraboloid (Thacker, "Some exact solutions to
// the nonlinear shallow-water wave equations"; SWASHES' 2D planar case) along x only:
// bed z = h0 (r^2 / a^2 - 1) about the centre, the liquid a paraboloid lens of radius a
// whose centre moves as eta cos(omega t) along x, at rest at t = 0.
type Thacker struct {
	G, H0, A, Eta float64
}

// Omega is sqrt(2 g h0) / a.
func (th Thacker) Omega() float64 { return math.Sqrt(2*th.G*th.H0) / th.A }

// Period is 2 pi / omega.
func (th Thacker) Period() float64 { return 2 * math.Pi / th.Omega() }

// Bed is the bed height relative to the rim level (z = 0 at r = a).
func (th Thacker) Bed(X, Y float64) float64 {
	return th.H0 * ((X*X+Y*Y)/(th.A*th.A) - 1)
}

// Depth at (X, Y) from the centre at time t: h0 (1 - ((X - eta cos wt)^2 + Y^2) / a^2), >= 0.
func (th Thacker) Depth(X, Y, t float64) float64 {
	xc := th.Eta * math.Cos(th.Omega()*t)
	d := th.H0 * (1 - ((X-xc)*(X-xc)+Y*Y)/(th.A*th.A))
	return math.Max(d, 0)
}

// CentreX is the liquid's centre of mass, eta cos(omega t), and U its velocity
// -eta omega sin(omega t).
func (th Thacker) CentreX(t float64) float64 { return th.Eta * math.Cos(th.Omega()*t) }

// U is the (uniform) velocity along x.
func (th Thacker) U(t float64) float64 { return -th.Eta * th.Omega() * math.Sin(th.Omega()*t) }

// The viscous gravity currents of constant volume in the lubrication limit (Huppert, "The
// propagation of two-dimensional and axisymmetric viscous gravity currents over a rigid
// horizontal surface"; "Flow and instability of a viscous current down a slope"). Each
// has its similarity profile, used both as the initial state (at t0) and to compare.

// Planar is the two-dimensional current of area A (volume per unit width) spreading from
// a wall at x = 0: x_N = 1.411 (g A^3 t / (3 nu))^(1/5),
// h = (9 nu (x_N^2 - x^2) / (10 g t))^(1/3).
type Planar struct {
	G, Nu, A float64
}

// PlanarEta is Huppert's constant: (10 / (3 I^3))^(1/5) ... given in closed form below.
func planarEta() float64 {
	// I = int_0^1 (1 - s^2)^(1/3) ds = (sqrt(pi) / 2) Gamma(4/3) / Gamma(11/6)
	I := math.Sqrt(math.Pi) / 2 * math.Gamma(4.0/3) / math.Gamma(11.0/6)
	return math.Pow(10/(3*I*I*I), 0.2)
}

// Front is x_N(t).
func (p Planar) Front(t float64) float64 {
	return planarEta() * math.Pow(p.G*p.A*p.A*p.A*t/(3*p.Nu), 0.2)
}

// Depth is h(x, t).
func (p Planar) Depth(x, t float64) float64 {
	xn := p.Front(t)
	if math.Abs(x) >= xn {
		return 0
	}
	return math.Cbrt(9 * p.Nu * (xn*xn - x*x) / (10 * p.G * t))
}

// FrontAt is where the depth is d at time t (the same threshold the measurement uses).
func (p Planar) FrontAt(d, t float64) float64 {
	xn := p.Front(t)
	return math.Sqrt(math.Max(xn*xn-d*d*d*10*p.G*t/(9*p.Nu), 0))
}

// Axisymmetric is the current of volume V: r_N = 0.894 (g V^3 t / (3 nu))^(1/8),
// h = (9 nu (r_N^2 - r^2) / (16 g t))^(1/3).
type Axisymmetric struct {
	G, Nu, V float64
}

func axiEta() float64 {
	// V = 2 pi (9 nu / (16 g t))^(1/3) r_N^(8/3) * 3/8
	k := 2 * math.Pi * 3.0 / 8
	return math.Pow(16*3/(9*k*k*k), 1.0/8)
}

// Front is r_N(t).
func (a Axisymmetric) Front(t float64) float64 {
	return axiEta() * math.Pow(a.G*a.V*a.V*a.V*t/(3*a.Nu), 1.0/8)
}

// Depth is h(r, t).
func (a Axisymmetric) Depth(r, t float64) float64 {
	rn := a.Front(t)
	if r >= rn {
		return 0
	}
	return math.Cbrt(9 * a.Nu * (rn*rn - r*r) / (16 * a.G * t))
}

// FrontAt is the radius where the depth is d at time t.
func (a Axisymmetric) FrontAt(d, t float64) float64 {
	rn := a.Front(t)
	return math.Sqrt(math.Max(rn*rn-d*d*d*16*a.G*t/(9*a.Nu), 0))
}

// Slope is the current of area A down a slope of angle alpha, late time (the along-slope
// gravity alone drives it): x_N = (9 A^2 g sin(alpha) t / (4 nu))^(1/3),
// h = (nu x / (g sin(alpha) t))^(1/2) for 0 < x < x_N.
type Slope struct {
	G, Nu, A, Sin float64
}

// Front is x_N(t).
func (s Slope) Front(t float64) float64 {
	return math.Cbrt(9 * s.A * s.A * s.G * s.Sin * t / (4 * s.Nu))
}

// Depth is h(x, t) (x from the current's upslope end).
func (s Slope) Depth(x, t float64) float64 {
	if x <= 0 || x >= s.Front(t) {
		return 0
	}
	return math.Sqrt(s.Nu * x / (s.G * s.Sin * t))
}

// FallTime is sqrt(2 H / g), the time a body let go at rest falls H.
func FallTime(g, H float64) float64 { return math.Sqrt(2 * H / g) }

// ThrowRange is u sqrt(2 H / g): a body thrown horizontally at u from height H.
func ThrowRange(g, H, u float64) float64 { return u * FallTime(g, H) }

// CapillaryGravityGroupVelocity is d omega / d k of omega^2 = (g k + sigma k^3 / rho)
// tanh(k h), by a central difference in k (independent of package waves' closed form).
func CapillaryGravityGroupVelocity(g, sigma, rho, k, h float64) float64 {
	omega := func(k float64) float64 {
		return math.Sqrt((g*k + sigma/rho*k*k*k) * math.Tanh(k*h))
	}
	dk := k * 1e-5
	return (omega(k+dk) - omega(k-dk)) / (2 * dk)
}
