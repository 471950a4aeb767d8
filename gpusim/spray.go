package gpusim

import "math"

// Sprays (Emitter.Spread; docs/solver.md, "Sprays"): a falling source whose parcels each
// leave in a direction of their own, drawn within an elliptic cone around the source's
// velocity, after Cords, "Moving with the Flow: Wave Particles in Flowing Liquids"
// (2008), Sec. 3.3 (a fountain emits particles around a main direction within two apex
// angles). The draws are a hash of (seed, source id, step, parcel): no generator state,
// nothing allocated, the same bits with any number of workers and after a checkpoint.

// sprayFrame is a spray's main direction d (a unit vector), its speed, and two unit
// vectors across d: h horizontal (z x d normalised; for a vertical d, the x axis made
// perpendicular to it) and w = d x h, in the vertical plane through d (upwards for a d
// that is not vertical).
type sprayFrame struct {
	d, h, w [3]float64
	speed   float64
}

// newSprayFrame is the frame of the velocity (vx, vy, vz), not zero and of finite length
// (validateEmitter).
func newSprayFrame(vx, vy, vz float64) sprayFrame {
	sp := math.Hypot(math.Hypot(vx, vy), vz)
	d := [3]float64{vx / sp, vy / sp, vz / sp}
	var h [3]float64
	if l := math.Hypot(d[0], d[1]); l > 1e-6 {
		h = [3]float64{-d[1] / l, d[0] / l, 0}
	} else { // (nearly) vertical: the x axis, less its part along d
		h = [3]float64{1 - d[0]*d[0], -d[0] * d[1], -d[0] * d[2]}
		l := math.Sqrt(h[0]*h[0] + h[1]*h[1] + h[2]*h[2])
		h = [3]float64{h[0] / l, h[1] / l, h[2] / l}
	}
	w := [3]float64{d[1]*h[2] - d[2]*h[1], d[2]*h[0] - d[0]*h[2], d[0]*h[1] - d[1]*h[0]}
	return sprayFrame{d: d, h: h, w: w, speed: sp}
}

// draw is the velocity of a parcel of a spray of half-angles spread = {a, b} (across,
// up and down), from two numbers u1, u2 in [0, 1). The parcel's offset from d, as an
// angle vector in the plane across d, is g (a cos psi, b sin psi) / G: psi = 2 pi u2 picks
// the point of the ellipse of semi-axes a (along h) and b (along w) that bounds the
// offsets, G = |(a cos psi, b sin psi)| its angle from d, and g = 2 asin(sqrt(u1)
// sin(G/2)) the parcel's angle from d, in [0, G]. The direction is cos g d + sin g
// (a cos psi h + b sin psi w) / G. So every direction lies within the cone (its angle
// from d at most max(a, b), and its offset inside the ellipse: a ray at most a across
// and b up and down); for a = b the directions are uniform over the cone's solid angle
// (P(angle <= g) = (1 - cos g) / (1 - cos G)), and with one of them 0 the spray is a fan
// in the other's plane. The speed is kept.
func (s *sprayFrame) draw(spread [2]float64, u1, u2 float64) (vx, vy, vz float64) {
	psi := 2 * math.Pi * u2
	sn, cs := math.Sincos(psi)
	p, q := spread[0]*cs, spread[1]*sn
	G := math.Hypot(p, q)
	if G == 0 {
		return s.speed * s.d[0], s.speed * s.d[1], s.speed * s.d[2]
	}
	g := 2 * math.Asin(math.Sqrt(u1)*math.Sin(0.5*G))
	sg, cg := math.Sincos(g)
	p, q = sg*p/G, sg*q/G
	var v [3]float64
	for i := range v {
		v[i] = s.speed * (cg*s.d[i] + p*s.h[i] + q*s.w[i])
	}
	return v[0], v[1], v[2]
}

// mix64 is splitmix64's finaliser: a bijection of the 64-bit words whose every output
// bit depends on every input bit.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// sprayRand returns two numbers in [0, 1) for parcel j of step k of source e with seed:
// a hash of the four (each mixed in by mix64), so that a parcel's draw depends on nothing
// else: not on the workers, the other sources, or what was poured before.
func sprayRand(seed uint64, e int, k int64, j int) (u1, u2 float64) {
	h := mix64(seed ^ 0x9e3779b97f4a7c15)
	h = mix64(h ^ uint64(e))
	h = mix64(h ^ uint64(k))
	h = mix64(h ^ uint64(j))
	return float64(h>>11) * 0x1p-53, float64(mix64(h^0x6a09e667f3bcc909)>>11) * 0x1p-53
}
