package gpusim

// The analytic test scenes, in one place. They are built from explicit column intervals
// (terrain.FromIntervals) so that the solver's tests do not depend on SDF extraction.

import (
	"math"
	"sort"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// slab is a horizontal solid plate [z0, z1] over the whole domain, pierced where hole is true.
type slab struct {
	z0, z1 float64
	hole   func(x, y float64) bool
}

// layeredScene builds columns over a floor z = floor(x, y) with slabs above it: each cell
// has one free interval per gap between solids. layers caps the columns per cell.
func layeredScene(t testing.TB, nx, ny int, dx, height float64, layers int, floor func(x, y float64) float64, slabs []slab) *terrain.Columns {
	t.Helper()
	cells := make([][]terrain.Interval, nx*ny)
	for y := range ny {
		for x := range nx {
			cx, cy := (float64(x)+0.5)*dx, (float64(y)+0.5)*dx
			type span struct{ lo, hi float64 }
			solids := []span{{-1, floor(cx, cy)}}
			for _, s := range slabs {
				if s.hole == nil || !s.hole(cx, cy) {
					solids = append(solids, span{s.z0, s.z1})
				}
			}
			sort.Slice(solids, func(i, j int) bool { return solids[i].lo < solids[j].lo })
			var iv []terrain.Interval
			top := solids[0].hi
			for _, s := range solids[1:] {
				if s.lo > top {
					iv = append(iv, terrain.Interval{Min: float32(top), Base: float32(top), Max: float32(s.lo)})
				}
				top = math.Max(top, s.hi)
			}
			if top < height {
				iv = append(iv, terrain.Interval{Min: float32(top), Base: float32(top), Max: float32(height)})
			}
			if len(iv) > layers {
				iv = iv[len(iv)-layers:]
			}
			cells[y*nx+x] = iv
		}
	}
	c, err := terrain.FromIntervals(nx, ny, dx, height, layers, cells)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// inclineScene is a single-layer plane rising along x: base = z0 + x*tan(angle).
func inclineScene(t testing.TB, nx, ny int, dx, angle float64) *terrain.Columns {
	z0 := 0.001
	height := z0 + float64(nx)*dx*math.Tan(angle) + 0.02
	return layeredScene(t, nx, ny, dx, height, 1, func(x, _ float64) float64 { return z0 + x*math.Tan(angle) }, nil)
}

// bumpyFloor is an uneven floor between 1 and 5 mm for a domain of about 5-10 cm.
func bumpyFloor(x, y float64) float64 {
	return 0.003 + 0.002*math.Sin(97*x)*math.Cos(71*y)
}

// overhangScene is a three-layer terrain: a bumpy floor, a slab at 8-10 mm with holes and
// a second slab at 16-18 mm with other holes, so cells have 1 to 3 columns, overhangs,
// and openings between layers.
func overhangScene(t testing.TB, nx, ny int, dx float64) *terrain.Columns {
	w := float64(nx) * dx
	return layeredScene(t, nx, ny, dx, 0.03, 3, bumpyFloor, []slab{
		{0.008, 0.010, func(x, y float64) bool { return math.Hypot(x-0.3*w, y-0.3*w) < 0.12*w || x > 0.8*w }},
		{0.016, 0.018, func(x, y float64) bool { return math.Hypot(x-0.7*w, y-0.6*w) < 0.15*w || y < 0.15*w }},
	})
}

// fiveLayerScene stacks four pierced slabs over a bumpy floor: up to five columns a cell.
func fiveLayerScene(t testing.TB, nx, ny int, dx float64) *terrain.Columns {
	return layeredScene(t, nx, ny, dx, 0.05, 5, bumpyFloor, fiveLayerSlabs(float64(nx)*dx, 0))
}

// fiveLayerSlabs are fiveLayerScene's slabs over a domain w wide, raised by lift (m).
func fiveLayerSlabs(w, lift float64) []slab {
	var slabs []slab
	for k := range 4 {
		z0 := 0.008 + 0.008*float64(k) + lift
		cx, cy := w*(0.25+0.5*float64(k%2)), w*(0.25+0.5*float64(k/2))
		slabs = append(slabs, slab{z0, z0 + 0.002, func(x, y float64) bool {
			return math.Hypot(x-cx, y-cy) < 0.15*w || math.Mod(x+y, 0.25*w) < 0.02*w
		}})
	}
	return slabs
}

// newSim builds a Sim and fails the test on error.
func newSim(t testing.TB, c *terrain.Columns, s Settings) *Sim {
	t.Helper()
	return newSimWith(t, c, s, backendOptions{})
}

// newSimWith is newSim with backends made with o: a layout or row kernels other than
// New's, to compare.
func newSimWith(t testing.TB, c *terrain.Columns, s Settings, o backendOptions) *Sim {
	t.Helper()
	sim, err := newWithOptions(c, s, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return sim
}

// settings returns DefaultSettings with the given dt, viscosity and workers, and falling
// off: the paper's method, whose pipes alone move the liquid (the particles' tests, in
// falling_test.go, turn it on).
func settings(dt, nu float64, workers int) Settings {
	s := DefaultSettings()
	s.Dt, s.Viscosity, s.Workers, s.Falling = dt, nu, workers, FallingOff
	return s
}

// checkBounds fails if some column has h outside [b, max] or a NaN.
func checkBounds(t testing.TB, sim *Sim, step int) {
	t.Helper()
	var snap Snapshot
	sim.Snapshot(&snap)
	c := sim.Columns()
	for i, h := range snap.Height {
		if !(h >= c.Base[i] && h <= c.Max[i]) {
			t.Fatalf("step %d: column %d has h = %g outside [b, max] = [%g, %g]", step, i, h, c.Base[i], c.Max[i])
		}
	}
}

// openingScene is an n x n floor at 1 mm under a slab at 5-7 mm that covers it all but a
// 2 x 2 cell opening at cells x = 2-3, y = n/2-1 .. n/2; the domain top is 15 mm. Cells
// under the slab have two columns: the lower one [1, 5] mm (full at h = 5 mm) and the
// upper one [7, 15] mm; opening cells have one column [1, 15] mm.
func openingScene(t testing.TB, n int, dx float64) *terrain.Columns {
	oy := float64(n/2-1) * dx
	return layeredScene(t, n, n, dx, 0.015, 2, func(x, y float64) float64 { return 0.001 }, []slab{{0.005, 0.007,
		func(x, y float64) bool { return x > 2*dx && x < 4*dx && y > oy && y < oy+2*dx }}})
}

// boxScene is an n x n grid whose border cells are solid to the top (no column): a closed
// box of (n-2)^2 single columns on a floor at 1 mm, open up to height.
func boxScene(t testing.TB, n int, dx, height float64) *terrain.Columns {
	w := float64(n) * dx
	return layeredScene(t, n, n, dx, height, 1, func(x, y float64) float64 {
		if x < dx || y < dx || x > w-dx || y > w-dx {
			return height
		}
		return 0.001
	}, nil)
}
