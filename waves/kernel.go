package waves

import (
	"math"
	"sync"
)

// kernel returns the raised cosine w(u) = (1 + cos(pi u)) / 2 = cos^2(pi u / 2) for
// |u| < 1, and 0 beyond. cos(pi u / 2) comes from its Taylor polynomial to degree 12,
// whose error on [-pi/2, pi/2] is below 7e-9: the same numbers on every platform, and
// no call into math in the field's inner loop.
func kernel(u float64) float64 {
	if !(u > -1 && u < 1) {
		return 0
	}
	return kernelPoly(u)
}

// kernelPoly is kernel without the test of |u| < 1. The polynomial in x^2 is evaluated
// in Estrin's scheme ((1 + c2 x^2) + x^4 (c4 + c6 x^2) + x^8 (c8 + c10 x^2 + c12 x^4)),
// whose chain of dependent operations is half Horner's. Each product is rounded
// explicitly (float64(x*y)): the compiler may not fuse it with the addition that follows
// (a fused multiply-add, which Go may use on some targets), so that the numbers are those
// of the assembly twin of the field (addFoots) on every target.
func kernelPoly(u float64) float64 {
	x := u * (math.Pi / 2)
	x2 := x * x
	x4 := x2 * x2
	x8 := x4 * x4
	p0 := float64(x2*(-1.0/2)) + 1
	p1 := float64(x2*(-1.0/720)) + 1.0/24
	p2 := float64(x2*(-1.0/3628800)) + 1.0/40320
	p2 = float64(x4*(1.0/479001600)) + p2
	c := float64(x4*p1) + p0
	c = float64(x8*p2) + c
	return c * c
}

// ringPeak is the crest height, per unit particle amplitude, of the field an impact
// makes at birth: RingParticles particles of amplitude 1 and kernel radius 1 on a ring
// of radius 1, plus (trough) as many of amplitude -1 at its centre. An impact of crest
// height A gives its particles amplitude A / ringPeak. The maximum is searched on a
// polar grid (radius 0.5 .. 1.5 in steps of 1/50, angle in steps of 1 degree),
// then refined on a finer grid around the best point.
func ringPeak(trough bool) float64 {
	peakOnce.Do(func() {
		peaks[0] = searchPeak(false)
		peaks[1] = searchPeak(true)
	})
	if trough {
		return peaks[1]
	}
	return peaks[0]
}

var (
	peakOnce sync.Once
	peaks    [2]float64
)

// ringXY holds the unit ring's particle positions.
var ringX, ringY [RingParticles]float64

func init() {
	for i := range RingParticles {
		th := 2 * math.Pi * float64(i) / RingParticles
		ringX[i], ringY[i] = math.Cos(th), math.Sin(th)
	}
}

// ringField is the birth field of ringPeak at (x, y).
func ringField(x, y float64, trough bool) float64 {
	v := 0.0
	for i := range RingParticles {
		v += kernel(x-ringX[i]) * kernel(y-ringY[i])
	}
	if trough {
		v -= RingParticles * kernel(x) * kernel(y)
	}
	return v
}

func searchPeak(trough bool) float64 {
	best, br, bt := math.Inf(-1), 0.0, 0.0
	const nr, na = 50, 360
	for i := 0; i <= nr; i++ {
		r := 0.5 + float64(i)/nr
		for j := 0; j < na; j++ {
			th := 2 * math.Pi * float64(j) / na
			if v := ringField(r*math.Cos(th), r*math.Sin(th), trough); v > best {
				best, br, bt = v, r, th
			}
		}
	}
	for i := -20; i <= 20; i++ {
		r := br + float64(i)/nr/20
		for j := -20; j <= 20; j++ {
			th := bt + 2*math.Pi/na*float64(j)/20
			if v := ringField(r*math.Cos(th), r*math.Sin(th), trough); v > best {
				best = v
			}
		}
	}
	return best
}

// LandingEfficiency is the fraction of a landing parcel's kinetic energy that
// LandingAmplitude puts into the gravity potential energy of its ring's crest. It is a
// calibration, not a measurement (docs/waves.md, "Impacts").
const LandingEfficiency = 1e-3

// LandingAmplitude returns the crest height, m, of the ring a parcel of liquid makes
// when it lands on a pool: volume in m^3, speed in m/s (its speed at impact, any
// direction), gravity in m/s^2. A fraction LandingEfficiency of the parcel's kinetic
// energy, (1/2) rho V v^2, becomes the potential energy of a crest of height A on an
// annulus of radius r and width r around the impact, (1/2) rho g A^2 (2 pi r^2), where r
// = (3 V / (4 pi))^(1/3) is the radius of the parcel as a sphere:
//
//	A = v sqrt(LandingEfficiency V / (2 pi g r^2))
//
// The density cancels. A grows as v and as V^(1/6); it is 0 for a zero volume or speed.
// A 10 mm^3 drop at 0.5 m/s on water (g 9.81) gives 0.15 mm. Arguments that are NaN,
// infinite or negative, and gravity <= 0, give 0.
func LandingAmplitude(volume, speed, gravity float64) float64 {
	if !(volume > 0) || !(gravity > 0) || math.IsInf(volume, 0) || math.IsInf(gravity, 0) ||
		math.IsNaN(speed) || math.IsInf(speed, 0) {
		return 0
	}
	speed = math.Abs(speed)
	r := math.Cbrt(3 * volume / (4 * math.Pi))
	return speed * math.Sqrt(LandingEfficiency*volume/(2*math.Pi*gravity*r*r))
}
