package waves

import "math"

// The linear dispersion relation of capillary-gravity waves on liquid of depth h:
//
//	omega^2 = (g k + s k^3) tanh(k h),   s = sigma / rho
//
// Wave particles move at the group velocity c_g = d omega / d k (docs/waves.md, "Speed").

// GroupVelocity returns the group velocity d omega / d k, m/s, of waves of wavelength
// 2 radius (k = pi / radius) on liquid of the given depth (m), with st's gravity,
// surface tension and density. Depths below WetDepth count as WetDepth.
func GroupVelocity(st Settings, radius, depth float64) float64 {
	k := math.Pi / radius
	h := max(depth, WetDepth)
	s := st.SurfaceTension / st.Density
	a, ap := st.Gravity*k+s*k*k*k, st.Gravity+3*s*k*k
	t := math.Tanh(k * h)
	c := math.Cosh(k * h)
	return (ap*t + a*h/(c*c)) / (2 * math.Sqrt(a*t))
}

// PhaseSpeed returns omega / k, m/s, for the same arguments as GroupVelocity.
func PhaseSpeed(st Settings, radius, depth float64) float64 {
	k := math.Pi / radius
	h := max(depth, WetDepth)
	return math.Sqrt((st.Gravity*k+st.SurfaceTension/st.Density*k*k*k)*math.Tanh(k*h)) / k
}

// dispersion returns the group velocity c_g, m/s, and the derivative of the phase speed
// c = omega / k with respect to the depth at fixed k, dc/dh (1/s), for wavenumber k > 0,
// depth h > 0, gravity g and s = sigma / rho. c_g moves the particles; dc/dh turns them
// (the ray equation's gradient is that of the phase speed, docs/waves.md, "Refraction").
//
// With A = g k + s k^3, A' = dA/dk = g + 3 s k^2, T = tanh(k h), S = sech^2(k h):
//
//	omega^2 = A T
//	c_g = d omega / dk = (A' T + A h S) / (2 omega)
//	dc/dh = (1/k) d omega / dh = A S / (2 omega)
func dispersion(k, h, g, s float64) (cg, dcdh float64) {
	t, sech2 := tanhSech2(k * h)
	a := g*k + s*k*k*k
	ap := g + 3*s*k*k
	omega := math.Sqrt(a * t)
	cg = (ap*t + a*h*sech2) / (2 * omega)
	dcdh = a * sech2 / (2 * omega)
	return cg, dcdh
}

// DecayRate returns the viscous damping rate of the amplitude, 1/s, of waves of
// wavelength 2 radius: 2 nu k^2 (Lamb's rate for deep liquid).
func DecayRate(viscosity, radius float64) float64 {
	k := math.Pi / radius
	return 2 * viscosity * k * k
}

// tanhSech2 returns tanh(x) and sech^2(x) = 1 - tanh^2(x) for x >= 0: cubic Hermite
// interpolation in a table of both at steps of tanhStep (their derivatives are sech^2 and
// -2 tanh sech^2, exact at the nodes), relative error below 3e-9; beyond tanhMax,
// (1, 0) (tanh(20) rounds to 1). The step's hot loop calls it once a particle.
func tanhSech2(x float64) (float64, float64) {
	if !(x < tanhMax) {
		return 1, 0
	}
	u := x * (1 / tanhStep)
	i := int(u)
	f := u - float64(i)
	e := &tanhTab[i]
	t0, s0, t1, s1 := e[0], e[1], e[2], e[3]
	// Hermite basis on [0, 1]; derivatives scaled by the step
	f2 := f * f
	f3 := f2 * f
	h00, h10, h01, h11 := 2*f3-3*f2+1, f3-2*f2+f, 3*f2-2*f3, f3-f2
	t := h00*t0 + h01*t1 + tanhStep*(h10*s0+h11*s1)
	s := h00*s0 + h01*s1 - 2*tanhStep*(h10*t0*s0+h11*t1*s1)
	return t, s
}

const (
	tanhMax  = 20.0
	tanhStep = 1.0 / 64
)

// tanhTab[i] holds tanh and sech^2 at i and i+1 steps.
var tanhTab [int(tanhMax/tanhStep) + 1][4]float64

func init() {
	for i := range tanhTab {
		x0, x1 := float64(i)*tanhStep, float64(i+1)*tanhStep
		t0, t1 := math.Tanh(x0), math.Tanh(x1)
		c0, c1 := math.Cosh(x0), math.Cosh(x1)
		tanhTab[i] = [4]float64{t0, 1 / (c0 * c0), t1, 1 / (c1 * c1)}
	}
}
