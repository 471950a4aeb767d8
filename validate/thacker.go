package validate

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/gpusim"
)

// Thacker's paraboloid: rim radius a, depth h0 at the centre, the lens displaced by eta.
const (
	thackerA    = 0.1
	thackerH0   = 0.010
	thackerEta  = 0.025
	thackerSize = 0.3 // the square domain, m: the lens reaches a + eta = 0.125 m from the centre
)

func runThacker(o Options, m gpusim.Method) Outcome {
	th := Thacker{G: Gravity, H0: thackerH0, A: thackerA, Eta: thackerEta}
	dx := 0.002
	if o.Short {
		dx = 0.003
	}
	n := int(math.Round(thackerSize / dx))
	mid := thackerSize / 2
	T := th.Period()
	oc := Outcome{Setup: fmt.Sprintf("A paraboloid bed z = h0 (r^2 / a^2 - 1) (a = %g m, h0 = %g mm) on a %g m square of "+
		"%d x %d cells of %g mm, the liquid a lens of radius a displaced by eta = %g mm along x, at rest; "+
		"period 2 pi a / sqrt(2 g h0) = %.4f s, run to 1.6 periods.", thackerA, thackerH0*1e3, thackerSize, n, n,
		dx*1e3, thackerEta*1e3, T)}
	// The floor is the bed raised by h0 (floors are >= 0); the paraboloid rises to the
	// domain's walls, 0.045 m at the corners.
	c, err := heightfield(n, n, dx, 0.1, func(x, y float64) float64 { return th.Bed(x-mid, y-mid) + thackerH0 })
	if err != nil {
		oc.Err = err
		return oc
	}
	c0 := math.Sqrt(Gravity * thackerH0)
	dt := damCFL * dx / (c0 + th.Eta*th.Omega())
	sim, err := newSim(c, settings(o, m, dt))
	if err != nil {
		oc.Err = err
		return oc
	}
	defer sim.Close()
	if err := setDepths(sim, c, func(i int) float64 {
		x, y := i%n, i/n
		return th.Depth((float64(x)+0.5)*dx-mid, (float64(y)+0.5)*dx-mid, 0)
	}); err != nil {
		oc.Err = err
		return oc
	}
	var snap gpusim.Snapshot
	var d []float64
	centre := func() float64 {
		d = depths(sim, &snap, d)
		var s, mx float64
		for i, v := range d {
			s += v
			mx += v * ((float64(i%n) + 0.5) * dx)
		}
		return mx/s - mid
	}
	ts := []float64{0}
	xc := []float64{centre()}
	// The lens is discretised on cells: its centre of mass at t = 0 is the reference
	// amplitude the measured one is compared with.
	eta0 := xc[0]
	for sim.Time() < 1.6*T {
		sim.Step(1)
		ts = append(ts, sim.Time())
		xc = append(xc, centre())
	}
	// Downward zero crossings of the centre: at T/4 and 5T/4.
	var downs []float64
	for k := 1; k < len(xc); k++ {
		if xc[k-1] > 0 && xc[k] <= 0 {
			f := xc[k-1] / (xc[k-1] - xc[k])
			downs = append(downs, ts[k-1]+f*(ts[k]-ts[k-1]))
		}
	}
	period := math.NaN()
	if len(downs) >= 2 {
		period = downs[1] - downs[0]
	}
	amp := math.Inf(-1)
	for k, t := range ts {
		if t >= 0.75*T && t <= 1.25*T {
			amp = max(amp, xc[k])
		}
	}
	oc.Results = []Result{
		{Quantity: "period", Unit: "s", Measured: period, Expected: T, Tolerance: 0.05},
		{Quantity: "amplitude after one period", Unit: "m", Measured: amp, Expected: eta0, Tolerance: 0.05},
	}
	oc.Notes = append(oc.Notes, fmt.Sprintf("The period is the time between the centre of mass's first two downward "+
		"crossings of the paraboloid's axis; the amplitude is the centre's largest displacement between 0.75 and 1.25 periods, "+
		"against its initial one on the grid (%.3f mm; eta = %g mm).", eta0*1e3, thackerEta*1e3))
	ax, ay := sample(0, ts[len(ts)-1], 400, func(t float64) float64 { return eta0 * math.Cos(th.Omega()*t) })
	oc.Plot = &Plot{Title: "Thacker: centre of mass (" + m.String() + ")", XLabel: "t (s)", YLabel: "centre of mass x (mm)",
		Series: []Series{{Label: "simulated", X: ts, Y: scaled(xc, 1e3)}, {Label: "analytic", X: ax, Y: scaled(ay, 1e3), Analytic: true}}}
	return oc
}
