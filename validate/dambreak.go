package validate

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// The dam breaks run in a channel 1 m long and 3 cells wide, walls all round, flat
// frictionless bed, the dam at x0, the gate removed at t = 0.
const (
	channelLength = 1.0
	channelCells  = 3
	damHl         = 0.010 // m
	ritterX0      = 0.4
	ritterT       = 0.8 // s: the front reaches x0 + 2 c0 T = 0.90 m
	ritterEps     = 0.01
	stokerHr      = 0.002 // m, hr / hl = 0.2
	stokerX0      = 0.5
	stokerT       = 0.8
	damCFL        = 0.25 // dt = damCFL dx / sqrt(g hl) (<= 0.5 dx / (2 sqrt(g hl)))
)

func channelDx(o Options) float64 {
	if o.Short {
		return 0.001
	}
	return 0.0005
}

// damBreak runs the channel from depth hl left of x0 and hr right of it, and returns the
// row-mean depth profiles at the times asked (the last is the measurement's).
func damBreak(o Options, m gpusim.Method, hl, hr, x0 float64, times []float64) (xs []float64, profiles [][]float64, c *terrain.Columns, err error) {
	dx := channelDx(o)
	nx := int(math.Round(channelLength / dx))
	c, err = heightfield(nx, channelCells, dx, 0.05, func(x, y float64) float64 { return 0 })
	if err != nil {
		return nil, nil, nil, err
	}
	dt := damCFL * dx / math.Sqrt(Gravity*hl)
	sim, err := newSim(c, settings(o, m, dt))
	if err != nil {
		return nil, nil, nil, err
	}
	defer sim.Close()
	xs = cellXs(nx, dx)
	if err := setDepths(sim, c, func(i int) float64 {
		if xs[i%nx] < x0 {
			return hl
		}
		return hr
	}); err != nil {
		return nil, nil, nil, err
	}
	var snap gpusim.Snapshot
	var d []float64
	for _, t := range times {
		stepTo(sim, t)
		d = depths(sim, &snap, d)
		profiles = append(profiles, rowMean(c, d))
	}
	return xs, profiles, c, nil
}

func runRitter(o Options, m gpusim.Method) Outcome {
	r := Ritter{G: Gravity, Hl: damHl, X0: ritterX0}
	c0 := math.Sqrt(Gravity * damHl)
	oc := Outcome{Setup: fmt.Sprintf("A channel %g m long and %d cells of %g mm wide, flat and dry, with %g mm of "+
		"water left of a dam at x0 = %g m removed at t = 0; profile at T = %g s (c0 = sqrt(g hl) = %.3f m/s).",
		channelLength, channelCells, channelDx(o)*1e3, damHl*1e3, ritterX0, ritterT, c0)}
	times := []float64{ritterT / 4, ritterT / 2, ritterT}
	xs, prof, _, err := damBreak(o, m, damHl, 0, ritterX0, times)
	if err != nil {
		oc.Err = err
		return oc
	}
	h := prof[len(prof)-1]
	front := frontFromRight(xs, h, ritterEps*damHl)
	want := r.Front(ritterEps, ritterT)
	// L1 error of the profile over the moving region [x0 - c0 T, x0 + 2 c0 T].
	var num, den float64
	for i, x := range xs {
		if x < ritterX0-c0*ritterT || x > ritterX0+2*c0*ritterT {
			continue
		}
		he, _ := r.At(x, ritterT)
		num += math.Abs(h[i] - he)
		den += he
	}
	oc.Results = []Result{
		{Quantity: fmt.Sprintf("front (depth %g hl) at T", ritterEps), Unit: "m", Measured: front, Expected: want,
			Scale: want - ritterX0, Tolerance: 0.05},
		{Quantity: "profile L1 error over the wave", Unit: "", Measured: num / den, Expected: 0, Scale: 1, Tolerance: 0.05},
	}
	oc.Notes = append(oc.Notes, "The front's error is relative to the distance the analytic front travelled; "+
		"the L1 error is sum |h - h_exact| / sum h_exact over x0 - c0 T <= x <= x0 + 2 c0 T.")
	oc.Plot = profilePlot("Ritter dam break ("+m.String()+")", xs, prof, times, func(x, t float64) float64 {
		h, _ := r.At(x, t)
		return h
	})
	return oc
}

func runStoker(o Options, m gpusim.Method) Outcome {
	s, err := NewStoker(Gravity, damHl, stokerHr, stokerX0)
	oc := Outcome{Setup: fmt.Sprintf("A channel %g m long and %d cells of %g mm wide, flat, %g mm of water left of a "+
		"dam at x0 = %g m and %g mm right of it, the dam removed at t = 0; profile at T = %g s (hm = %.3f mm, "+
		"um = %.3f m/s, shock speed %.3f m/s).", channelLength, channelCells, channelDx(o)*1e3, damHl*1e3, stokerX0,
		stokerHr*1e3, stokerT, s.Hm()*1e3, s.Um(), s.ShockSpeed())}
	if err != nil {
		oc.Err = err
		return oc
	}
	times := []float64{stokerT / 4, stokerT / 2, stokerT}
	xs, prof, _, err := damBreak(o, m, damHl, stokerHr, stokerX0, times)
	if err != nil {
		oc.Err = err
		return oc
	}
	h := prof[len(prof)-1]
	cl := math.Sqrt(Gravity * damHl)
	a := stokerX0 + (2*cl-3*s.Cm)*stokerT // the fan's foot
	b := stokerX0 + s.ShockSpeed()*stokerT
	var sum float64
	var n int
	for i, x := range xs {
		if x >= a+(b-a)/4 && x <= b-(b-a)/4 {
			sum += h[i]
			n++
		}
	}
	plateau := math.NaN()
	if n > 0 {
		plateau = sum / float64(n)
	}
	shock := frontFromRight(xs, h, (s.Hm()+stokerHr)/2)
	oc.Results = []Result{
		{Quantity: "plateau depth hm", Unit: "m", Measured: plateau, Expected: s.Hm(), Tolerance: 0.05},
		{Quantity: "shock position at T", Unit: "m", Measured: shock, Expected: b, Scale: b - stokerX0, Tolerance: 0.05},
	}
	oc.Notes = append(oc.Notes, "The plateau depth is the mean over the middle half of the analytic plateau; the "+
		"shock is where the depth falls through (hm + hr) / 2, its error relative to the distance it travelled.")
	oc.Plot = profilePlot("Stoker dam break ("+m.String()+")", xs, prof, times, func(x, t float64) float64 {
		h, _ := s.At(x, t)
		return h
	})
	return oc
}

// profilePlot draws depth (mm) against x for each time, simulated and analytic.
func profilePlot(title string, xs []float64, prof [][]float64, times []float64, exact func(x, t float64) float64) *Plot {
	p := &Plot{Title: title, XLabel: "x (m)", YLabel: "depth (mm)"}
	for k, t := range times {
		ax, ay := sample(xs[0], xs[len(xs)-1], 1000, func(x float64) float64 { return exact(x, t) })
		p.Series = append(p.Series,
			Series{Label: fmt.Sprintf("t = %.2f s", t), X: xs, Y: scaled(prof[k], 1e3)},
			Series{Label: fmt.Sprintf("analytic %.2f s", t), X: ax, Y: scaled(ay, 1e3), Analytic: true})
	}
	return p
}
