package validate

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
	"github.com/vpbench/vpbench/waves"
)

// Communicating vessels: two basins joined by a passage under a bar.
const (
	vesselDx      = 0.002
	vesselNx      = 60
	vesselNy      = 10
	vesselBarLo   = 28 // the bar's cells along x: [vesselBarLo, vesselBarHi)
	vesselBarHi   = 32
	vesselGap     = 0.006 // the passage's ceiling, m
	vesselBarTop  = 0.020
	vesselTop     = 0.040
	vesselLeft    = 0.016 // initial levels, m
	vesselRight   = 0.008
	vesselTime    = 10.0 // s
	vesselShort   = 6.0
	vesselDamping = 0.05 // omega: the U-tube oscillation decays within the run
	vesselNu      = 1e-6 // water
)

func runVessels(o Options, m gpusim.Method) Outcome {
	T := vesselTime
	if o.Short {
		T = vesselShort
	}
	oc := Outcome{Setup: fmt.Sprintf("Two basins of %d x %d cells of %g mm on a flat floor, joined under a bar %d cells thick "+
		"by a passage %g mm high (the bar's top at %g mm), filled to %g mm and %g mm, the passage full; water's "+
		"viscosity and a strong damping (omega = %g); levels after %g s.", vesselBarLo, vesselNy, vesselDx*1e3,
		vesselBarHi-vesselBarLo, vesselGap*1e3, vesselBarTop*1e3, vesselLeft*1e3, vesselRight*1e3, vesselDamping, T)}
	cells := make([][]terrain.Interval, vesselNx*vesselNy)
	for y := range vesselNy {
		for x := range vesselNx {
			if x >= vesselBarLo && x < vesselBarHi {
				cells[y*vesselNx+x] = []terrain.Interval{{Min: 0, Base: 0, Max: vesselGap}, {Min: vesselBarTop, Base: vesselBarTop, Max: vesselTop}}
			} else {
				cells[y*vesselNx+x] = []terrain.Interval{{Min: 0, Base: 0, Max: vesselTop}}
			}
		}
	}
	c, err := terrain.FromIntervals(vesselNx, vesselNy, vesselDx, vesselTop, 2, cells)
	if err != nil {
		oc.Err = err
		return oc
	}
	dt := damCFL * vesselDx / math.Sqrt(Gravity*vesselLeft)
	st := settings(o, m, dt)
	st.Damping, st.Viscosity = vesselDamping, vesselNu
	sim, err := newSim(c, st)
	if err != nil {
		oc.Err = err
		return oc
	}
	defer sim.Close()
	h := make([]float32, c.NumColumns())
	var left, right []int
	for y := range vesselNy {
		for x := range vesselNx {
			lo, hi := c.Cell(x, y)
			switch {
			case x < vesselBarLo:
				h[lo] = vesselLeft
				left = append(left, lo)
			case x >= vesselBarHi:
				h[lo] = vesselRight
				right = append(right, lo)
			default:
				h[lo] = vesselGap
				h[hi-1] = vesselBarTop
			}
		}
	}
	if err := sim.SetHeights(h); err != nil {
		oc.Err = err
		return oc
	}
	want := (float64(len(left))*vesselLeft + float64(len(right))*vesselRight) / float64(len(left)+len(right))
	var snap gpusim.Snapshot
	level := func(cols []int) float64 {
		var s float64
		for _, i := range cols {
			s += float64(snap.Height[i])
		}
		return s / float64(len(cols))
	}
	var ts, ls, rs []float64
	every := max(1, int(math.Round(0.02/dt)))
	for {
		sim.Snapshot(&snap)
		ts = append(ts, snap.Time)
		ls = append(ls, level(left))
		rs = append(rs, level(right))
		if snap.Time >= T-dt/2 {
			break
		}
		sim.Step(min(every, int(math.Round((T-snap.Time)/dt))))
	}
	l, r := ls[len(ls)-1], rs[len(rs)-1]
	oc.Results = []Result{
		{Quantity: "level difference / initial difference", Measured: (l - r) / (vesselLeft - vesselRight), Expected: 0, Scale: 1, Tolerance: 0.01},
		{Quantity: "mean level", Unit: "m", Measured: (l*float64(len(left)) + r*float64(len(right))) / float64(len(left)+len(right)), Expected: want, Tolerance: 0.005},
		{Quantity: "left basin's level", Unit: "m", Measured: l, Expected: want, Tolerance: 0.005},
	}
	oc.Notes = append(oc.Notes, fmt.Sprintf("The common level is the basins' volume over their area (the passage stays full): %.4f mm.", want*1e3))
	_, ay := sample(0, T, 1, func(float64) float64 { return want })
	oc.Plot = &Plot{Title: "Communicating vessels (" + m.String() + ")", XLabel: "t (s)", YLabel: "level (mm)",
		Series: []Series{{Label: "left basin", X: ts, Y: scaled(ls, 1e3)}, {Label: "right basin", X: ts, Y: scaled(rs, 1e3)},
			{Label: "common level", X: []float64{0, T}, Y: scaled(ay, 1e3), Analytic: true}}}
	return oc
}

// The ballistic drops: a parcel let go at rest H above a floor, and one thrown sideways
// off a ledge.
const (
	fallH     = 0.050
	fallDt    = 0.0005
	throwH    = 0.040
	throwU    = 0.25
	throwDx   = 0.0005
	fallFloor = 0.001
)

func ballisticSettings(o Options) gpusim.Settings {
	s := settings(o, gpusim.MethodPipes, fallDt)
	s.Falling = gpusim.FallingParticles
	return s
}

func runBallistic(o Options, _ gpusim.Method) Outcome {
	oc := Outcome{Setup: fmt.Sprintf("A parcel of 1 mm^3 let go at rest %g mm above a dry floor (20 x 20 cells of 1 mm), "+
		"and one of 0.1 mm^3 thrown at %g m/s off a ledge %g mm high (cells of %g mm); dt = %g ms.", fallH*1e3, throwU,
		throwH*1e3, throwDx*1e3, fallDt*1e3)}
	// The fall.
	c, err := heightfield(20, 20, 0.001, 0.1, func(x, y float64) float64 { return fallFloor })
	if err != nil {
		oc.Err = err
		return oc
	}
	sim, err := newSim(c, ballisticSettings(o))
	if err != nil {
		oc.Err = err
		return oc
	}
	defer sim.Close()
	if err := sim.Drop(0.0105, 0.0105, fallFloor+fallH, 1e-9, 0, 0, 0); err != nil {
		oc.Err = err
		return oc
	}
	var pts []gpusim.Particle
	var tz, zz []float64
	landed := math.NaN()
	for step := 0; step < 1000; step++ {
		pts = sim.Particles(pts[:0])
		if len(pts) == 0 {
			landed = sim.Time()
			break
		}
		tz, zz = append(tz, sim.Time()), append(zz, float64(pts[0].Z)-fallFloor)
		sim.Step(1)
	}
	// The throw.
	ct, err := heightfield(200, 8, throwDx, 0.08, func(x, y float64) float64 {
		if x < 0.005 {
			return fallFloor + throwH
		}
		return fallFloor
	})
	if err != nil {
		oc.Err = err
		return oc
	}
	st, err := newSim(ct, ballisticSettings(o))
	if err != nil {
		oc.Err = err
		return oc
	}
	defer st.Close()
	x0 := 0.005 + 1e-6
	if err := st.Drop(x0, 0.002, fallFloor+throwH, 1e-10, throwU, 0, 0); err != nil {
		oc.Err = err
		return oc
	}
	for step := 0; step < 1000 && st.Stats().Particles > 0; step++ {
		st.Step(1)
	}
	var snap gpusim.Snapshot
	st.Snapshot(&snap)
	var sum, moment float64
	for x := range ct.Nx {
		for y := range ct.Ny {
			lo, _ := ct.Cell(x, y)
			d := float64(snap.Height[lo]) - float64(ct.Base[lo])
			sum += d
			moment += d * (float64(x) + 0.5) * throwDx
		}
	}
	rng := moment/sum - x0
	oc.Results = []Result{
		{Quantity: "fall time", Unit: "s", Measured: landed, Expected: FallTime(Gravity, fallH), Tolerance: 0.02},
		{Quantity: "range of the throw", Unit: "m", Measured: rng, Expected: ThrowRange(Gravity, throwH, throwU), Tolerance: 0.05},
	}
	oc.Notes = append(oc.Notes, "The fall lands within a step of dt (1% here); the throw's landing point is the "+
		"centroid of the liquid it leaves on the floor, which a parcel spreads over 3 x 3 cells: within 1.5 cells "+
		"plus a step's travel (4% here).")
	ax, ay := sample(0, FallTime(Gravity, fallH), 100, func(t float64) float64 { return fallH - Gravity*t*t/2 })
	oc.Plot = &Plot{Title: "Free fall", XLabel: "t (s)", YLabel: "height above the floor (mm)",
		Series: []Series{{Label: "particle", X: tz, Y: scaled(zz, 1e3)}, {Label: "H - g t^2 / 2", X: ax, Y: scaled(ay, 1e3), Analytic: true}}}
	return oc
}

// The wave ring: an impact on a still pool 2 mm deep.
const (
	ringDx     = 0.0005
	ringN      = 200
	ringDepth  = 0.002
	ringRadius = 0.0015
	ringT1     = 0.02
	ringT2     = 0.05
)

func runWaveRing(o Options, _ gpusim.Method) Outcome {
	oc := Outcome{Setup: fmt.Sprintf("Water %g mm deep at rest on a flat floor (%d x %d cells of %g mm); an impact of "+
		"kernel radius %g mm (wavelength 2 R) at the centre; the ring's mean radius at %g s and %g s.", ringDepth*1e3,
		ringN, ringN, ringDx*1e3, ringRadius*1e3, ringT1, ringT2)}
	c, err := heightfield(ringN, ringN, ringDx, 0.02, func(x, y float64) float64 { return 0 })
	if err != nil {
		oc.Err = err
		return oc
	}
	w := waves.Water()
	w.Workers = o.Workers
	s, err := waves.New(c, w)
	if err != nil {
		oc.Err = err
		return oc
	}
	defer s.Close()
	h := make([]float32, c.NumColumns())
	for i := range h {
		h[i] = c.Base[i] + ringDepth
	}
	f := waves.Flow{Height: h}
	x0, y0 := ringN*ringDx/2, ringN*ringDx/2
	s.Impact(waves.Impact{X: x0, Y: y0, Amplitude: 1e-4, Radius: ringRadius})
	var ts, rs []float64
	var ps []waves.Particle
	radius := func() float64 {
		ps = s.Particles(ps[:0])
		f := [4]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		for _, p := range ps {
			if p.Amplitude <= 0 {
				continue
			}
			dx, dy := p.X-x0, p.Y-y0
			f[0], f[1], f[2], f[3] = max(f[0], dx), max(f[1], -dx), max(f[2], dy), max(f[3], -dy)
		}
		return (f[0] + f[1] + f[2] + f[3]) / 4
	}
	var r1, t1 float64
	for k := 1; k <= 25; k++ {
		s.Advance(ringT2*float64(k)/25, f)
		ts, rs = append(ts, s.Time()), append(rs, radius())
		if t1 == 0 && s.Time() >= ringT1-1e-9 {
			r1, t1 = rs[len(rs)-1], s.Time()
		}
	}
	speed := (rs[len(rs)-1] - r1) / (ts[len(ts)-1] - t1)
	k := math.Pi / ringRadius
	cg := CapillaryGravityGroupVelocity(w.Gravity, w.SurfaceTension, w.Density, k, ringDepth)
	oc.Results = []Result{{Quantity: "ring speed", Unit: "m/s", Measured: speed, Expected: cg, Tolerance: 0.05}}
	oc.Notes = append(oc.Notes, fmt.Sprintf("The expected speed is the group velocity d omega / dk of capillary-gravity "+
		"waves, omega^2 = (g k + sigma k^3 / rho) tanh(k h), at k = pi / R (the wave particles' wavelength is twice "+
		"the kernel radius), computed here by a finite difference: %.4f m/s. The ring's radius is the mean of its "+
		"crests' reach along +-x and +-y.", cg))
	ax, ay := sample(0, ringT2, 50, func(t float64) float64 { return rs[len(rs)-1] + cg*(t-ts[len(ts)-1]) })
	oc.Plot = &Plot{Title: "Wave ring radius", XLabel: "t (s)", YLabel: "radius (mm)", LegendBottom: true,
		Series: []Series{{Label: "wave particles", X: ts, Y: scaled(rs, 1e3)}, {Label: "slope c_g", X: ax, Y: scaled(ay, 1e3), Analytic: true}}}
	return oc
}
