package validate

import (
	"fmt"
	"math"
	"sort"
)

// SessileDrop is the shape of an axisymmetric sessile drop under gravity: the
// Young-Laplace equation sigma (1/R1 + 1/R2) = Delta p0 + rho g z integrated from the apex
// (z downwards from it) to where the surface's slope reaches the contact angle.
type SessileDrop struct {
	Volume, Angle, CapLength float64 // m^3, radians, m
	// Radius is the footprint's radius and Apex the drop's height, m.
	Radius, Apex float64
	// r and z are the profile from the apex (r = 0, z = 0) to the contact line, m.
	r, z []float64
}

// NewSessileDrop finds the drop of volume vol (m^3) at contact angle theta (radians, in
// (0, pi/2]) for capillary length lc (m): the apex curvature 1/b whose profile holds vol.
func NewSessileDrop(vol, theta, lc float64) (*SessileDrop, error) {
	if !(vol > 0 && theta > 0 && theta <= math.Pi/2 && lc > 0) {
		return nil, fmt.Errorf("sessile drop: volume %g m^3, angle %g rad and capillary length %g m: want positive, angle at most pi/2", vol, theta, lc)
	}
	// The volume grows with the apex radius b: bisect on log b. A puddle's footprint
	// grows only as l_c ln(b / l_c), hence the wide bracket.
	lo, hi := math.Log(1e-4*lc), math.Log(1e15*lc)
	if v := integrateDrop(math.Exp(lo), theta, lc).Volume; vol < v {
		return nil, fmt.Errorf("sessile drop: volume %g m^3 is under %g m^3, the smallest this integration resolves", vol, v)
	}
	if v := integrateDrop(math.Exp(hi), theta, lc).Volume; vol > v {
		return nil, fmt.Errorf("sessile drop: volume %g m^3 is over %g m^3, the largest this integration resolves (a puddle about %.0f l_c wide)", vol, v, 2*math.Log(1e15))
	}
	var d *SessileDrop
	for range 200 {
		mid := 0.5 * (lo + hi)
		d = integrateDrop(math.Exp(mid), theta, lc)
		if d.Volume < vol {
			lo = mid
		} else {
			hi = mid
		}
	}
	d.Volume = vol
	return d, nil
}

// integrateDrop integrates the profile with apex radius of curvature b (RK4 on arc
// length) until its slope angle reaches theta, and the volume under it.
func integrateDrop(b, theta, lc float64) *SessileDrop {
	// State: r, z, phi (the slope angle), v (volume of revolution above z).
	ds := min(b, lc) * 1e-3
	deriv := func(y [4]float64) [4]float64 {
		r, z, phi := y[0], y[1], y[2]
		curv := 1 / b // at the apex sin(phi)/r -> 1/b
		if r > 0 {
			curv = 2/b + z/(lc*lc) - math.Sin(phi)/r
		}
		return [4]float64{math.Cos(phi), math.Sin(phi), curv, math.Pi * r * r * math.Sin(phi)}
	}
	d := &SessileDrop{Angle: theta, CapLength: lc}
	y := [4]float64{}
	for range 10_000_000 {
		d.r = append(d.r, y[0])
		d.z = append(d.z, y[1])
		k1 := deriv(y)
		step := func(k [4]float64, h float64) [4]float64 {
			var o [4]float64
			for i := range o {
				o[i] = y[i] + h*k[i]
			}
			return o
		}
		k2 := deriv(step(k1, ds/2))
		k3 := deriv(step(k2, ds/2))
		k4 := deriv(step(k3, ds))
		next := y
		for i := range next {
			next[i] += ds / 6 * (k1[i] + 2*k2[i] + 2*k3[i] + k4[i])
		}
		if next[2] >= theta {
			// Interpolate the last step to phi = theta.
			f := (theta - y[2]) / (next[2] - y[2])
			for i := range y {
				y[i] += f * (next[i] - y[i])
			}
			break
		}
		y = next
	}
	d.r = append(d.r, y[0])
	d.z = append(d.z, y[1])
	d.Radius, d.Apex = y[0], y[1]
	// The liquid's cross-section a depth z below the apex is a disc of radius r(z).
	d.Volume = y[3]
	return d
}

// Depth is the drop's thickness at distance r from its axis, m (0 outside it).
func (d *SessileDrop) Depth(r float64) float64 {
	if r >= d.Radius {
		return 0
	}
	k := sort.SearchFloat64s(d.r, r)
	if k == 0 {
		return d.Apex
	}
	f := (r - d.r[k-1]) / (d.r[k] - d.r[k-1])
	return d.Apex - (d.z[k-1] + f*(d.z[k]-d.z[k-1]))
}

// SphericalCapRadius is the footprint radius of a spherical cap of volume vol at contact
// angle theta (no gravity): V = pi R^3 (2 - 3 cos th + cos^3 th) / (3 sin^3 th).
func SphericalCapRadius(vol, theta float64) float64 {
	c, s := math.Cos(theta), math.Sin(theta)
	return math.Cbrt(3 * vol * s * s * s / (math.Pi * (2 - 3*c + c*c*c)))
}
