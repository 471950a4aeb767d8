package validate

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// heightfield builds nx x ny cells of dx, one column per cell, floor bed(x, y) (cell
// centres, m, >= 0), free to the domain top.
func heightfield(nx, ny int, dx, top float64, bed func(x, y float64) float64) (*terrain.Columns, error) {
	cells := make([][]terrain.Interval, nx*ny)
	for y := range ny {
		for x := range nx {
			b := float32(max(bed((float64(x)+0.5)*dx, (float64(y)+0.5)*dx), 0))
			if float64(b) >= top {
				return nil, fmt.Errorf("bed %g m at cell (%d, %d) reaches the domain top %g m", b, x, y, top)
			}
			cells[y*nx+x] = []terrain.Interval{{Min: b, Base: b, Max: float32(top)}}
		}
	}
	return terrain.FromIntervals(nx, ny, dx, top, 1, cells)
}

// settings are the suite's solver settings: inviscid, undamped (omega = 1), no surface
// tension, no falling liquid, the given method and dt.
func settings(o Options, m gpusim.Method, dt float64) gpusim.Settings {
	s := gpusim.DefaultSettings()
	s.Method = m
	s.Dt = dt
	s.Viscosity = 0
	s.Damping = 1
	s.SurfaceTension = 0
	s.Falling = gpusim.FallingOff
	s.Workers = o.Workers
	return s
}

// depths returns each column's depth (height - floor) from the latest state.
func depths(sim *gpusim.Sim, snap *gpusim.Snapshot, dst []float64) []float64 {
	sim.Snapshot(snap)
	c := snap.Columns
	if len(dst) != c.NumColumns() {
		dst = make([]float64, c.NumColumns())
	}
	for i := range dst {
		dst[i] = float64(snap.Height[i]) - float64(c.Base[i])
	}
	return dst
}

// rowMean returns the depth along x averaged over the rows of a one-layer grid.
func rowMean(c *terrain.Columns, d []float64) []float64 {
	out := make([]float64, c.Nx)
	for x := range c.Nx {
		var s float64
		for y := range c.Ny {
			lo, _ := c.Cell(x, y)
			s += d[lo]
		}
		out[x] = s / float64(c.Ny)
	}
	return out
}

// cellXs returns the cell centres along x.
func cellXs(n int, dx float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = (float64(i) + 0.5) * dx
	}
	return xs
}

// frontFromRight returns where h falls through thr, the last crossing along xs: the
// largest i with h[i] >= thr, interpolated linearly towards i+1. NaN when h never
// reaches thr; the last x when it does not fall below thr.
func frontFromRight(xs, h []float64, thr float64) float64 {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i] >= thr {
			if i == len(h)-1 {
				return xs[i]
			}
			f := (h[i] - thr) / (h[i] - h[i+1])
			return xs[i] + f*(xs[i+1]-xs[i])
		}
	}
	return math.NaN()
}

// sample returns n+1 points of f on [a, b].
func sample(a, b float64, n int, f func(x float64) float64) (xs, ys []float64) {
	for k := 0; k <= n; k++ {
		x := a + (b-a)*float64(k)/float64(n)
		xs = append(xs, x)
		ys = append(ys, f(x))
	}
	return xs, ys
}

// scaled returns v * k for each v.
func scaled(v []float64, k float64) []float64 {
	out := make([]float64, len(v))
	for i := range v {
		out[i] = v[i] * k
	}
	return out
}

// newSim makes the solver; its error becomes the outcome's.
func newSim(c *terrain.Columns, st gpusim.Settings) (*gpusim.Sim, error) {
	return gpusim.New(c, st)
}

// setDepths sets each column's height to its floor plus depth(i).
func setDepths(sim *gpusim.Sim, c *terrain.Columns, depth func(i int) float64) error {
	h := make([]float32, c.NumColumns())
	for i := range h {
		d := max(depth(i), 0)
		h[i] = float32(float64(c.Base[i]) + d)
		if h[i] > c.Max[i] {
			return fmt.Errorf("column %d: initial height %g above its top %g", i, h[i], c.Max[i])
		}
	}
	return sim.SetHeights(h)
}

// stepTo steps until the simulated time reaches t (to within half a step).
func stepTo(sim *gpusim.Sim, t float64) {
	dt := sim.Dt()
	if n := int(math.Round((t - sim.Time()) / dt)); n > 0 {
		sim.Step(n)
	}
}
