package gpusim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/vpbench/vpbench/terrain"
)

// retopoState is a random liquid state of c: heights spread over [Base, Max] (about one
// column in five dry and one in five full) and residuals up to half an ulp of h; dry
// columns owe a rounding (r <= 0) and full ones carry one (r >= 0), as the solver's can.
// Every seventh residual is exactly half an ulp, the tie a rounding may produce.
func retopoState(c *terrain.Columns, seed uint64) (h, r []float32) {
	rng := rand.New(rand.NewPCG(seed, 7))
	n := c.NumColumns()
	h, r = make([]float32, n), make([]float32, n)
	for i := range n {
		b, m := c.Base[i], c.Max[i]
		switch u := rng.Float64(); {
		case u < 0.2:
			h[i] = b
		case u < 0.4:
			h[i] = m
		default:
			h[i] = min(max(float32(float64(b)+rng.Float64()*float64(m-b)), b), m)
		}
		sign := float32(1)
		if rng.IntN(2) == 0 {
			sign = -1
		}
		if h[i] == b {
			sign = -1
		} else if h[i] == m {
			sign = 1
		}
		half := 0.5 * math.Abs(float64(math.Nextafter32(h[i], sign*float32(math.Inf(1)))-h[i]))
		if i%7 == 0 {
			r[i] = sign * float32(half)
		} else {
			r[i] = sign * float32(rng.Float64()*half)
		}
	}
	return h, r
}

// retopoBounds fails unless Base <= h <= Max for every column and every residual is at
// most an ulp of its height; a dry column may owe (a full one carry) a few old columns'
// sub-ulp residuals, each up to half an ulp of the domain height.
func retopoBounds(t *testing.T, c *terrain.Columns, h, r []float32) {
	t.Helper()
	if len(h) != c.NumColumns() || len(r) != c.NumColumns() {
		t.Fatalf("%d heights and %d residuals for %d columns", len(h), len(r), c.NumColumns())
	}
	up := float32(math.Inf(1))
	clamped := 4 * float64(math.Nextafter32(float32(c.Height), up)-float32(c.Height))
	for i := range h {
		if !(h[i] >= c.Base[i] && h[i] <= c.Max[i]) {
			t.Fatalf("column %d: h = %g outside [base, max] = [%g, %g]", i, h[i], c.Base[i], c.Max[i])
		}
		bound := float64(math.Nextafter32(h[i], up) - h[i])
		if (h[i] == c.Base[i] && r[i] < 0) || (h[i] == c.Max[i] && r[i] > 0) {
			bound = max(bound, clamped)
		}
		if math.Abs(float64(r[i])) > bound {
			t.Fatalf("column %d: residual %g is more than %g at h = %g in [%g, %g]", i, r[i], bound, h[i], c.Base[i], c.Max[i])
		}
	}
}

// retopoConserved fails unless the new volume plus rejected equals the old volume, to
// float64 rounding (a few 1e-16 of the heights summed) plus the float32 rounding of each
// new residual (2^-24 |r|).
func retopoConserved(t *testing.T, old *terrain.Columns, oldH, oldR []float32, nw *terrain.Columns, newH, newR []float32, rejected float64) {
	t.Helper()
	v0, _ := volumeOf(oldH, oldR, old.Base, old.Dx)
	v1, _ := volumeOf(newH, newR, nw.Base, nw.Dx)
	var mag, rnd float64
	for i := range oldH {
		mag += math.Abs(float64(oldH[i])) + math.Abs(float64(old.Base[i]))
	}
	for i := range newH {
		mag += math.Abs(float64(newH[i])) + math.Abs(float64(nw.Base[i]))
		rnd += math.Abs(float64(newR[i])) * 0x1p-24
	}
	dx2 := nw.Dx * nw.Dx
	// Summation rounding: a few ulps of the magnitudes summed (volumeOf sums blocks of
	// volumeBlock columns, then the blocks: 32 ulps covers both levels here).
	tol := (32*mag*0x1p-53+rnd)*dx2 + 8*math.Abs(rejected)*0x1p-53
	if d := v1 + rejected - v0; math.Abs(d) > tol || math.IsNaN(d) {
		t.Fatalf("volume not conserved: old %.17g m^3, new %.17g + rejected %.17g, off by %.3g (tolerance %.3g)", v0, v1, rejected, d, tol)
	} else {
		t.Logf("volume %.6g m^3, rejected %.6g m^3, off by %.3g (%.2g of the volume; tolerance %.3g)", v0, rejected, d, d/v0, tol)
	}
}

// pool is an nx x ny single-column floor at 0 up to height, filled to level with no residual.
func pool(t *testing.T, nx, ny int, dx, height float64, level float32) (*terrain.Columns, []float32, []float32) {
	c := layeredScene(t, nx, ny, dx, height, 1, func(x, y float64) float64 { return 0 }, nil)
	h := make([]float32, c.NumColumns())
	for i := range h {
		h[i] = min(level, c.Max[i])
	}
	return c, h, make([]float32, len(h))
}

// exactLevel is the exact liquid level h + r of column i.
func exactLevel(h, r []float32, i int) float64 { return float64(h[i]) + float64(r[i]) }

func TestCarryUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name string
		cols *terrain.Columns
	}{
		{"overhang", overhangScene(t, 24, 20, 0.002)},
		{"five layers", fiveLayerScene(t, 16, 16, 0.003)},
		{"incline", inclineScene(t, 12, 8, 0.001, 0.3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cols
			h, r := retopoState(c, 1)
			// The same terrain, built again (a new Columns value, as sim:terrain gives).
			cells := make([][]terrain.Interval, c.Nx*c.Ny)
			for k := range cells {
				for i := c.CellStart[k]; i < c.CellStart[k+1]; i++ {
					cells[k] = append(cells[k], terrain.Interval{Min: c.Min[i], Base: c.Base[i], Max: c.Max[i]})
				}
			}
			c2, err := terrain.FromIntervals(c.Nx, c.Ny, c.Dx, c.Height, c.Layers, cells)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameGrid(c, c2); err != nil {
				t.Fatal(err)
			}
			nh, nr, rej := carryLiquid(c, h, r, c2)
			if rej != 0 {
				t.Errorf("rejected %g m^3, want 0", rej)
			}
			for i := range h {
				if nh[i] != h[i] || math.Float32bits(nr[i]) != math.Float32bits(r[i]) {
					t.Fatalf("column %d: (h, r) = (%g, %g), want (%g, %g) unchanged", i, nh[i], nr[i], h[i], r[i])
				}
			}
			retopoConserved(t, c, h, r, c2, nh, nr, rej)

			t1 := newTopology(c, countPipes(c))
			t2 := newTopology(c2, countPipes(c2))
			f := make([]float32, t1.numPipes())
			rng := rand.New(rand.NewPCG(3, 4))
			for p := range f {
				f[p] = float32(rng.NormFloat64() * 1e-6)
			}
			nf := mapFluxes(t1, f, t2)
			if !slices.Equal(nf, f) {
				t.Fatalf("fluxes changed over an unchanged terrain")
			}
		})
	}
}

func TestSameGrid(t *testing.T) {
	a, _, _ := pool(t, 4, 3, 0.001, 0.01, 0)
	b, _, _ := pool(t, 4, 4, 0.001, 0.01, 0)
	c, _, _ := pool(t, 4, 3, 0.002, 0.01, 0)
	d, _, _ := pool(t, 4, 3, 0.001, 0.02, 0)
	if err := sameGrid(a, d); err != nil {
		t.Errorf("a different domain height is the same grid: %v", err)
	}
	for _, x := range []*terrain.Columns{b, c, nil} {
		err := sameGrid(a, x)
		if err == nil {
			t.Errorf("grids %v and %v reported the same", a, x)
		} else {
			t.Log(err)
		}
	}
}

// A box pushed down into a pool: the pool (floor at 0, 40 mm high) holds 10 mm over 20 x 20
// cells; the box then fills z in [5 mm, top] over the 6 x 6 cells in the middle, which keep
// a column [0, 5 mm] under it. Their liquid above 5 mm goes beside and raises the pool.
func TestCarryBoxIntoPool(t *testing.T) {
	const n, dx, height = 20, 0.001, 0.04
	old, h, r := pool(t, n, n, dx, height, 0.010)
	inBox := func(x, y int) bool { return x >= 7 && x < 13 && y >= 7 && y < 13 }
	cells := make([][]terrain.Interval, n*n)
	for y := range n {
		for x := range n {
			top := float32(height)
			if inBox(x, y) {
				top = 0.005
			}
			cells[y*n+x] = []terrain.Interval{{Min: 0, Base: 0, Max: top}}
		}
	}
	nw, err := terrain.FromIntervals(n, n, dx, height, 1, cells)
	if err != nil {
		t.Fatal(err)
	}
	nh, nr, rej := carryLiquid(old, h, r, nw)
	retopoBounds(t, nw, nh, nr)
	retopoConserved(t, old, h, r, nw, nh, nr, rej)
	if rej != 0 {
		t.Errorf("rejected %g m^3 with room around the box", rej)
	}
	var raised float64 // the outside's rise, in cell-depths
	l0 := float64(float32(0.010))
	for y := range n {
		for x := range n {
			i := y*n + x
			lvl := exactLevel(nh, nr, i)
			if inBox(x, y) {
				if nh[i] != 0.005 {
					t.Errorf("cell (%d,%d) under the box: h = %g, want full at 5 mm", x, y, nh[i])
				}
				continue
			}
			if lvl < l0 {
				t.Errorf("cell (%d,%d) beside the box lost liquid: level %g", x, y, lvl)
			}
			// The ring just around the box takes the first of the displaced liquid.
			if x >= 6 && x <= 13 && y >= 6 && y <= 13 && lvl <= l0 {
				t.Errorf("cell (%d,%d) next to the box did not rise: level %g", x, y, lvl)
			}
			raised += lvl - l0
		}
	}
	want := 36 * (float64(float32(0.010)) - float64(float32(0.005)))
	if math.Abs(raised-want) > 1e-12 {
		t.Errorf("the pool rose by %g cell-m, want the box's displaced %g", raised, want)
	}
	t.Logf("level next to the box's edge: %.4g mm, at the corner of the grid: %.4g mm",
		1e3*exactLevel(nh, nr, 10*n+6), 1e3*exactLevel(nh, nr, 0))
}

// A cell that becomes solid from floor to top: all of its liquid goes to its 8 neighbours,
// levelled (each rises by 10/8 mm).
func TestCarryCellBecomesSolid(t *testing.T) {
	const n, dx, height = 5, 0.001, 0.04
	old, h, r := pool(t, n, n, dx, height, 0.010)
	nw := layeredScene(t, n, n, dx, height, 1, func(x, y float64) float64 {
		if x > 2*dx && x < 3*dx && y > 2*dx && y < 3*dx {
			return height
		}
		return 0
	}, nil)
	if lo, hi := nw.Cell(2, 2); lo != hi {
		t.Fatalf("centre cell has %d columns, want none", hi-lo)
	}
	nh, nr, rej := carryLiquid(old, h, r, nw)
	retopoBounds(t, nw, nh, nr)
	retopoConserved(t, old, h, r, nw, nh, nr, rej)
	if rej != 0 {
		t.Errorf("rejected %g m^3", rej)
	}
	l0 := float64(float32(0.010))
	for y := range n {
		for x := range n {
			if x == 2 && y == 2 {
				continue
			}
			i := nw.ColumnAt(x, y, 0)
			want := l0
			if max(abs(x-2), abs(y-2)) == 1 {
				want += l0 / 8
			}
			if got := exactLevel(nh, nr, i); math.Abs(got-want) > 1e-15 {
				t.Errorf("cell (%d,%d): level %.12g, want %.12g", x, y, got, want)
			}
		}
	}
}

func abs(x int) int { return max(x, -x) }

// A closed container with no room: what the raised floor displaces is rejected, exactly;
// with some room, exactly what does not fit.
func TestCarryClosedContainerRejects(t *testing.T) {
	const n, dx, height = 4, 0.001, 0.010
	old, h, r := pool(t, n, n, dx, height, height) // full to the lid
	raised := layeredScene(t, n, n, dx, height, 1, func(x, y float64) float64 {
		if x > dx && x < 2*dx && y > dx && y < 2*dx {
			return 0.003
		}
		return 0
	}, nil)
	disp := float64(float32(0.003)) * (dx * dx)

	nh, nr, rej := carryLiquid(old, h, r, raised)
	retopoBounds(t, raised, nh, nr)
	retopoConserved(t, old, h, r, raised, nh, nr, rej)
	if rej != disp {
		t.Errorf("full container: rejected %.17g m^3, want exactly %.17g", rej, disp)
	}
	for i := range nh {
		if nh[i] != raised.Max[i] || nr[i] != 0 {
			t.Errorf("column %d: (h, r) = (%g, %g), want full with no residual", i, nh[i], nr[i])
		}
	}

	// One cell two cells away has 1 mm of room: it takes that, the rest is rejected.
	h2 := slices.Clone(h)
	far := old.ColumnAt(3, 3, 0)
	h2[far] = 0.009
	room := float64(old.Max[far]) - float64(h2[far])
	nh, nr, rej = carryLiquid(old, h2, r, raised)
	retopoBounds(t, raised, nh, nr)
	retopoConserved(t, old, h2, r, raised, nh, nr, rej)
	if want := disp - room*(dx*dx); math.Abs(rej-want) > 1e-16*disp {
		t.Errorf("one cell with room: rejected %.17g m^3, want %.17g", rej, want)
	}
	if nh[far] != old.Max[far] {
		t.Errorf("the cell with room was left at %g, want full at %g", nh[far], old.Max[far])
	}
}

// Beyond retopoRings cells nothing is reached: a 1-cell-wide channel whose only room is
// retopoRings+1 cells away rejects everything; at retopoRings cells it is used.
func TestCarryRingLimit(t *testing.T) {
	const dx, height = 0.001, 0.010
	for _, dist := range []int{retopoRings, retopoRings + 1} {
		n := dist + 1
		old, h, r := pool(t, n, 1, dx, height, height)
		h[n-1] = 0 // the far end is empty
		nw := layeredScene(t, n, 1, dx, height, 1, func(x, y float64) float64 {
			if x < dx {
				return 0.004
			}
			return 0
		}, nil)
		nh, nr, rej := carryLiquid(old, h, r, nw)
		retopoBounds(t, nw, nh, nr)
		retopoConserved(t, old, h, r, nw, nh, nr, rej)
		disp := float64(float32(0.004)) * (dx * dx)
		if dist <= retopoRings {
			if rej != 0 || nh[n-1] != 0.004 {
				t.Errorf("room %d cells away: rejected %g, far end at %g; want 0 and 4 mm", dist, rej, nh[n-1])
			}
		} else if rej != disp || nh[n-1] != 0 {
			t.Errorf("room %d cells away: rejected %g, far end at %g; want %g and 0", dist, rej, nh[n-1], disp)
		}
	}
}

// A slab inserted into a column: a cell's single column [0, 40 mm] becomes [0, 3 mm] and
// [5 mm, 40 mm]. With 10 mm of liquid the lower column keeps 3 mm (full), the upper keeps
// its 5 mm and takes the 2 mm the slab displaced: 12 mm.
func TestCarrySlabInserted(t *testing.T) {
	const n, dx, height = 3, 0.001, 0.04
	for _, tc := range []struct {
		level            float32
		wantLow, wantTop float64
	}{
		{0.010, 0.003, 0.012},
		{0.004, 0.003, 0.006}, // the liquid in the slab goes on top of it
		{0.002, 0.002, 0.005}, // all under the slab: nothing moves
	} {
		old, h, r := pool(t, n, n, dx, height, tc.level)
		nw := layeredScene(t, n, n, dx, height, 2, func(x, y float64) float64 { return 0 }, []slab{{0.003, 0.005, nil}})
		nh, nr, rej := carryLiquid(old, h, r, nw)
		retopoBounds(t, nw, nh, nr)
		retopoConserved(t, old, h, r, nw, nh, nr, rej)
		if rej != 0 {
			t.Errorf("level %g: rejected %g", tc.level, rej)
		}
		for k := range n * n {
			lo, hi := nw.Cell(k%n, k/n)
			if hi-lo != 2 {
				t.Fatalf("cell %d has %d columns, want 2", k, hi-lo)
			}
			if got := exactLevel(nh, nr, lo); math.Abs(got-tc.wantLow) > 1e-9 {
				t.Errorf("level %g, cell %d: lower column at %.9g, want %g", tc.level, k, got, tc.wantLow)
			}
			if got := exactLevel(nh, nr, lo+1); math.Abs(got-tc.wantTop) > 1e-9 {
				t.Errorf("level %g, cell %d: upper column at %.9g, want %g", tc.level, k, got, tc.wantTop)
			}
		}
	}
}

// The floor rising under liquid pushes it up in the same cell; a lid coming down pushes
// the liquid above it beside, and a slab removed lets the liquid above it fall.
func TestCarryFloorAndLid(t *testing.T) {
	const n, dx, height = 3, 0.001, 0.04
	old, h, r := pool(t, n, n, dx, height, 0.010)
	floor := layeredScene(t, n, n, dx, height, 1, func(x, y float64) float64 { return 0.004 }, nil)
	nh, nr, rej := carryLiquid(old, h, r, floor)
	retopoConserved(t, old, h, r, floor, nh, nr, rej)
	for i := range nh {
		if got := exactLevel(nh, nr, i); rej != 0 || math.Abs(got-0.014) > 1e-9 {
			t.Errorf("floor raised by 4 mm: column %d at %.9g (rejected %g), want 14 mm", i, got, rej)
		}
	}

	// The centre cell's ceiling comes down to 6 mm: its 4 mm above it goes to the 8
	// neighbours, 0.5 mm each.
	cells := make([][]terrain.Interval, n*n)
	for k := range cells {
		cells[k] = []terrain.Interval{{Max: height}}
	}
	cells[4] = []terrain.Interval{{Max: 0.006}}
	lid, err := terrain.FromIntervals(n, n, dx, height, 1, cells)
	if err != nil {
		t.Fatal(err)
	}
	nh, nr, rej = carryLiquid(old, h, r, lid)
	retopoBounds(t, lid, nh, nr)
	retopoConserved(t, old, h, r, lid, nh, nr, rej)
	for i := range nh {
		want := 0.0105
		if i == 4 {
			want = 0.006
		}
		if got := exactLevel(nh, nr, i); math.Abs(got-want) > 1e-9 {
			t.Errorf("lid at 6 mm: column %d at %.9g, want %g", i, got, want)
		}
	}

	// A slab at 3-5 mm removed: 3 mm below it and 5 mm above merge into one column of 8 mm.
	slabbed := layeredScene(t, n, n, dx, height, 2, func(x, y float64) float64 { return 0 }, []slab{{0.003, 0.005, nil}})
	h2 := make([]float32, slabbed.NumColumns())
	for i := range h2 {
		h2[i] = min(slabbed.Base[i]+0.003, slabbed.Max[i])
	}
	r2 := make([]float32, len(h2))
	nh, nr, rej = carryLiquid(slabbed, h2, r2, old)
	retopoConserved(t, slabbed, h2, r2, old, nh, nr, rej)
	for i := range nh {
		if got := exactLevel(nh, nr, i); rej != 0 || math.Abs(got-0.006) > 1e-9 {
			t.Errorf("slab removed: column %d at %.9g, want 6 mm", i, got)
		}
	}
}

// Random states over changes between multi-layer terrains: bounds, conservation, and the
// same result twice.
func TestCarryRandomScenes(t *testing.T) {
	const dx = 0.002
	a := overhangScene(t, 24, 24, dx)
	b := fiveLayerScene(t, 24, 24, dx)
	c := layeredScene(t, 24, 24, dx, 0.03, 3, func(x, y float64) float64 { return bumpyFloor(x, y) + 0.002 }, []slab{
		{0.007, 0.011, func(x, y float64) bool { return x > 0.02 }},
		{0.015, 0.016, nil},
	})
	for _, pair := range [][2]*terrain.Columns{{a, b}, {b, a}, {a, c}, {c, a}, {b, c}, {c, b}} {
		for seed := range uint64(3) {
			old, nw := pair[0], pair[1]
			h, r := retopoState(old, seed)
			nh, nr, rej := carryLiquid(old, h, r, nw)
			retopoBounds(t, nw, nh, nr)
			retopoConserved(t, old, h, r, nw, nh, nr, rej)
			nh2, nr2, rej2 := carryLiquid(old, h, r, nw)
			if !slices.Equal(nh, nh2) || !slices.Equal(nr, nr2) || rej != rej2 {
				t.Fatal("two runs differ")
			}
		}
	}
}

// retopoLarge returns a 200 x 200 five-layer terrain and the same with its floor raised by
// 1 mm and its slabs moved up by 1.5 mm, as a tool moving through the grid would.
func retopoLarge(t testing.TB) (old, nw *terrain.Columns) {
	const n, dx = 200, 0.0005
	old = fiveLayerScene(t, n, n, dx)
	nw = layeredScene(t, n, n, dx, 0.05, 5, func(x, y float64) float64 { return bumpyFloor(x, y) + 0.001 },
		fiveLayerSlabs(float64(n)*dx, 0.0015))
	return old, nw
}

// 200 x 200 x 5: a random state, and one full to the brim where most displaced stretches
// search several rings. The times are logged (BenchmarkCarryLiquid200x5* measures them:
// about 25-35 and 100-150 ms on a loaded 2-core machine); the 10 s limit only catches a
// complexity regression, leaving room for race builds (3 s) and loaded machines.
func TestCarryRetopoLarge(t *testing.T) {
	old, nw := retopoLarge(t)
	h, r := retopoState(old, 9)
	full := slices.Clone(old.Max)
	for _, tc := range []struct {
		name string
		h    []float32
	}{{"random", h}, {"all full", full}} {
		t0 := time.Now()
		nh, nr, rej := carryLiquid(old, tc.h, r, nw)
		el := time.Since(t0)
		t.Logf("%s: %d -> %d columns in %v, rejected %.3g m^3", tc.name, old.NumColumns(), nw.NumColumns(), el, rej)
		if el > 10*time.Second {
			t.Errorf("%s: carryLiquid took %v", tc.name, el)
		}
		retopoBounds(t, nw, nh, nr)
		retopoConserved(t, old, tc.h, r, nw, nh, nr, rej)
		t0 = time.Now()
		f := mapFluxes(newTopology(old, countPipes(old)), make([]float32, countPipes(old)), newTopology(nw, countPipes(nw)))
		t.Logf("mapFluxes of %d pipes in %v", len(f), time.Since(t0))
	}
}

func BenchmarkCarryLiquid200x5(b *testing.B) {
	old, nw := retopoLarge(b)
	h, r := retopoState(old, 9)
	for b.Loop() {
		carryLiquid(old, h, r, nw)
	}
}

func BenchmarkCarryLiquid200x5Full(b *testing.B) {
	old, nw := retopoLarge(b)
	_, r := retopoState(old, 9)
	for b.Loop() {
		carryLiquid(old, old.Max, r, nw)
	}
}

func BenchmarkMapFluxes200x5(b *testing.B) {
	old, nw := retopoLarge(b)
	to, tn := newTopology(old, countPipes(old)), newTopology(nw, countPipes(nw))
	f := make([]float32, to.numPipes())
	for b.Loop() {
		mapFluxes(to, f, tn)
	}
}

// mapFluxesOracle is mapFluxes's rule written out by brute force: every old pipe, in
// order, compared by cell coordinates.
func mapFluxesOracle(old *topology, oldF []float32, nw *topology) []float32 {
	cellOf := func(c *terrain.Columns, i int) (int, int) {
		for y := range c.Ny {
			for x := range c.Nx {
				if lo, hi := c.Cell(x, y); i >= lo && i < hi {
					return x, y
				}
			}
		}
		panic("column outside the grid")
	}
	out := make([]float32, nw.numPipes())
	for p := range out {
		a2, b2 := int(nw.pipeA[p]), int(nw.pipeB[p])
		xa2, ya2 := cellOf(nw.cols, a2)
		xb2, yb2 := cellOf(nw.cols, b2)
		for q := range old.numPipes() {
			a, b := int(old.pipeA[q]), int(old.pipeB[q])
			xa, ya := cellOf(old.cols, a)
			xb, yb := cellOf(old.cols, b)
			if xa == xa2 && ya == ya2 && xb == xb2 && yb == yb2 &&
				rangesOverlap(old.cols, a, nw.cols, a2) && rangesOverlap(old.cols, b, nw.cols, b2) {
				out[p] = oldF[q]
				break
			}
		}
	}
	return out
}

func TestMapFluxes(t *testing.T) {
	const n, dx, height = 6, 0.001, 0.04
	open := layeredScene(t, n, n, dx, height, 1, func(x, y float64) float64 { return 0 }, nil)
	// The cell (2, 3) solid to the top: its 4 pipes go.
	walled := layeredScene(t, n, n, dx, height, 1, func(x, y float64) float64 {
		if x > 2*dx && x < 3*dx && y > 3*dx && y < 4*dx {
			return height
		}
		return 0
	}, nil)
	topo := func(c *terrain.Columns) *topology { return newTopology(c, countPipes(c)) }
	flux := func(tp *topology) []float32 {
		f := make([]float32, tp.numPipes())
		for p := range f {
			f[p] = float32(p + 1) // all nonzero and distinct
		}
		return f
	}
	// pipeKey names a pipe by its cells.
	pipeKey := func(tp *topology, p int) [2]int {
		cells := columnCells(tp.cols)
		return [2]int{int(cells[tp.pipeA[p]]), int(cells[tp.pipeB[p]])}
	}
	to, tw := topo(open), topo(walled)
	if to.numPipes()-tw.numPipes() != 4 {
		t.Fatalf("the wall removes %d pipes, want 4", to.numPipes()-tw.numPipes())
	}

	t.Run("removed", func(t *testing.T) {
		fo := flux(to)
		got := mapFluxes(to, fo, tw)
		byCells := map[[2]int]float32{}
		for p := range fo {
			byCells[pipeKey(to, p)] = fo[p]
		}
		for p := range got {
			if want := byCells[pipeKey(tw, p)]; got[p] != want || want == 0 {
				t.Errorf("pipe %d %v: flux %g, want the old pipe's %g", p, pipeKey(tw, p), got[p], want)
			}
		}
	})
	t.Run("new", func(t *testing.T) {
		fw := flux(tw)
		got := mapFluxes(tw, fw, to)
		wall := 3*n + 2
		zeros := 0
		for p := range got {
			k := pipeKey(to, p)
			if k[0] == wall || k[1] == wall {
				zeros++
				if got[p] != 0 {
					t.Errorf("new pipe %d %v: flux %g, want 0", p, k, got[p])
				}
			} else if got[p] == 0 {
				t.Errorf("surviving pipe %d %v lost its flux", p, k)
			}
		}
		if zeros != 4 {
			t.Errorf("%d new pipes, want 4", zeros)
		}
	})
	// Multi-layer changes against the brute-force rule.
	for _, pair := range [][2]*terrain.Columns{
		{overhangScene(t, 12, 10, 0.002), fiveLayerScene(t, 12, 10, 0.002)},
		{fiveLayerScene(t, 12, 10, 0.002), overhangScene(t, 12, 10, 0.002)},
		{open, layeredScene(t, n, n, dx, height, 2, func(x, y float64) float64 { return 0 }, []slab{{0.003, 0.005, nil}})},
		{openingScene(t, 8, dx), layeredScene(t, 8, 8, dx, 0.015, 2, func(x, y float64) float64 { return 0.001 }, []slab{{0.005, 0.007, nil}})},
	} {
		o, w := topo(pair[0]), topo(pair[1])
		fo := flux(o)
		got, want := mapFluxes(o, fo, w), mapFluxesOracle(o, fo, w)
		if !slices.Equal(got, want) {
			t.Fatalf("mapFluxes differs from the rule")
		}
		kept := 0
		for _, f := range got {
			if f != 0 {
				kept++
			}
		}
		t.Logf("%d old pipes, %d new, %d with a carried flux", o.numPipes(), w.numPipes(), kept)
	}
	// A slab inserted splits each pipe in two: both halves carry the old flux.
	slabbed := layeredScene(t, n, n, dx, height, 2, func(x, y float64) float64 { return 0 }, []slab{{0.003, 0.005, nil}})
	ts := topo(slabbed)
	fo := flux(to)
	got := mapFluxes(to, fo, ts)
	if ts.numPipes() != 2*to.numPipes() {
		t.Fatalf("slab: %d pipes, want %d", ts.numPipes(), 2*to.numPipes())
	}
	for p := range got {
		if got[p] == 0 {
			t.Errorf("slab: pipe %d %v got no flux", p, pipeKey(ts, p))
		}
	}
}
