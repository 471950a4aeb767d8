package gpusim

import "math"

// The capillary head (docs/method.md, "Surface tension"; docs/solver.md, "The capillary
// head"). With surface tension on, every wet column adds a head X to its height where the
// pipes' flux update reads it (and only there: the outflow and inflow scaling, the height
// update and the volume read the liquid's true height):
//
//	X = -l_c^2 * lap(s)                    capillary pressure, sigma*kappa/(rho g)
//	  + max(h_r - d, 0) on a receding edge  the contact line recedes
//	X >= -d/2                               suction never empties a column by itself
//
// lap is the graph Laplacian over the column's wet neighbours (a dry or missing neighbour
// counts as level with it: the contact line is the wetting law's), divided by dx^2; s is
// the liquid's surface smoothed by `passes` passes of the wet graph's binomial filter,
// passes the fewest that keep the step's linear stability bound at the current dt
// (capillaryPasses: 0 where the explicit term is stable). A receding edge is a wet column
// thinner than the receding wetting head h_r with a dry neighbour whose floor is below
// its surface: its head then reads h_r, so its liquid drains back into a puddle thinner
// than h_r and the puddle contracts until it is h_r thick (and spreads, by the wetting
// law, while it is thicker than the advancing head h_a >= h_r).
//
// The raw flux kernels read the driving height h + X (in an array of its own) in place of
// h, so that they are the same kernels with the law on and off; their depths (h + X) - b
// are the column's depth plus X, which moves the viscous factor's depth by X on the
// columns that have one. Each column's X depends on the heights at the step's start
// alone, so the result does not depend on the number of workers.

// capParams are the capillary head's per-step constants.
type capParams struct {
	on bool
	// recede is the receding wetting head h_r, m (0: edges do not recede).
	recede float32
	// coef is l_c^2/dx^2: the capillary pressure head per metre of the graph Laplacian's
	// sum of height differences. 0: no capillary pressure.
	coef float32
	// passes is the number of smoothing passes before the Laplacian.
	passes int
}

// CapillarySmoothing is the number of smoothing passes the capillary pressure takes at
// step dt on cells of dx with settings st (0 where the explicit pressure is stable, or
// where there is none).
func CapillarySmoothing(st Settings, dt, dx float64) int {
	return newCapParams(st, dt, dx).passes
}

// maxCapPasses bounds the smoothing passes: more would cost more than the step.
const maxCapPasses = 16

// capStabilityMargin is the share of the symplectic step's bound (omega*dt <= 2, so
// (omega*dt)^2 <= 4) that capillaryPasses allows.
const capStabilityMargin = 0.5

// newCapParams derives the capillary head's constants from the settings at step dt.
func newCapParams(st Settings, dt, dx float64) capParams {
	lc := st.CapillaryLength()
	if lc == 0 {
		return capParams{}
	}
	p := capParams{on: true, recede: float32(st.RecedingHead())}
	if st.CapillaryPressure {
		l := lc * lc / (dx * dx)
		p.coef = float32(l)
		p.passes = capillaryPasses(st.Gravity*dt*dt/dx, l)
	}
	return p
}

// capillaryPasses is the fewest smoothing passes n that keep every mode of the linearized
// step stable: a mode of the wet graph's Laplacian with eigenvalue mu/dx^2 (mu in [0, 8]
// on a grid) oscillates at omega^2 dt^2 = c*mu*(1 + l*mu*(1 - mu/8)^n), c = g dt^2/dx
// (the pipes' wave speed is that of depth dx, the paper's cross-section; the film's is
// slower), l = l_c^2/dx^2, and the symplectic step is stable while that is below 4. Where
// gravity alone is beyond the bound (a dt the paper's method itself cannot take), the
// capillary part may add no more than a tenth.
func capillaryPasses(c, l float64) int {
	for n := 0; n < maxCapPasses; n++ {
		ok := true
		for k := 1; k <= 800 && ok; k++ {
			mu := float64(k) / 100
			grav := c * mu
			capi := grav * l * mu * math.Pow(1-mu/8, float64(n))
			ok = capi <= max(4*capStabilityMargin-grav, 0.1*grav)
		}
		if ok {
			return n
		}
	}
	return maxCapPasses
}

// capWeight is the smoothing weight of each of a column's deg wet neighbours: at most
// 1/8, so that the filter's response 1 - w*mu stays in [0, 1].
func capWeight(deg int32) float32 {
	return 0.5 / float32(max(deg, 4))
}

// capSmoothColumn is one smoothing pass of column i: out = in + w * sum over its wet
// neighbours of (in_j - in_i); a dry column keeps its height.
func capSmoothColumn(i int, h, b, in, out []float32, adjStart, adjOther []int32) {
	if h[i]-b[i] <= DryDepth {
		out[i] = h[i]
		return
	}
	si := in[i]
	var sum float32
	lo, hi := adjStart[i], adjStart[i+1]
	for _, j := range adjOther[lo:hi] {
		if h[j]-b[j] > DryDepth {
			sum += in[j] - si
		}
	}
	out[i] = si + float32(capWeight(hi-lo)*sum) // converted: never fused
}

// capHeadColumn is column i's driving height h + X (see the file comment), s the
// smoothed surface (h itself when there are no passes).
func capHeadColumn(i int, h, b, s, drive []float32, adjStart, adjOther []int32, p *capParams) {
	hi := h[i]
	d := hi - b[i]
	if d <= DryDepth {
		drive[i] = hi
		return
	}
	si := s[i]
	var lap float32
	edge := false
	for _, j := range adjOther[adjStart[i]:adjStart[i+1]] {
		if h[j]-b[j] > DryDepth {
			lap += s[j] - si
		} else if b[j] < hi {
			edge = true
		}
	}
	x := -float32(p.coef * lap) // converted: never fused
	if edge && d < p.recede {
		x += p.recede - d
	}
	drive[i] = hi + max(x, -0.5*d)
}

// capState is a CPU backend's capillary head: the driving heights and the smoothing
// buffers, made when the law is first turned on.
type capState struct {
	drive []float32
	s     [2][]float32
}

// ensure sizes the buffers for n columns and p.
func (cs *capState) ensure(n int, p *capParams) {
	if len(cs.drive) != n {
		cs.drive = make([]float32, n)
	}
	if p.passes > 0 && len(cs.s[0]) != n {
		cs.s = [2][]float32{make([]float32, n), make([]float32, n)}
	}
}

// capColumns is the worker's share of the capillary head: its columns [lo, hi), with a
// barrier after every smoothing pass and after the head (the raw fluxes read the
// neighbours' heads).
func (c *cpuBackend) capColumns(lo, hi int) {
	p := &c.p.cap
	cs := &c.capSt
	t := c.topo
	if p.coef == 0 { // the contact line alone: only thin edges have a head
		c.capEdges(lo, hi)
		c.bar.wait()
		return
	}
	s := c.h
	for k := range p.passes {
		out := cs.s[k%2]
		for i := lo; i < hi; i++ {
			capSmoothColumn(i, c.h, c.base, s, out, t.adjStart, t.adjOther)
		}
		c.bar.wait()
		s = out
	}
	for i := lo; i < hi; i++ {
		capHeadColumn(i, c.h, c.base, s, cs.drive, t.adjStart, t.adjOther, p)
	}
	c.bar.wait()
}

// capEdges is capHeadColumn without capillary pressure, for columns [lo, hi): the same
// bits (with coef 0 its X is -0 or h_r - d, and h + -0 is h), for a copy and a look at
// the few wet columns thinner than h_r.
func (c *cpuBackend) capEdges(lo, hi int) {
	h, b, drive := c.h[lo:hi], c.base[lo:hi], c.capSt.drive[lo:hi]
	copy(drive, h)
	b = b[:len(h)]
	hAll, bAll := c.h, c.base
	adjStart, adjOther := c.topo.adjStart, c.topo.adjOther
	hr := c.p.cap.recede
	for k, hk := range h {
		d := hk - b[k]
		if d <= DryDepth || d >= hr {
			continue
		}
		i := lo + k
		for _, j := range adjOther[adjStart[i]:adjStart[i+1]] {
			if hAll[j]-bAll[j] <= DryDepth && bAll[j] < hk {
				drive[k] = hk + max(hr-d, -0.5*d)
				break
			}
		}
	}
}

// driveHeights is the heights the raw fluxes read: h + X with the capillary head on, h
// otherwise.
func (c *cpuBackend) driveHeights() []float32 {
	if c.p.cap.on {
		return c.capSt.drive
	}
	return c.h
}
