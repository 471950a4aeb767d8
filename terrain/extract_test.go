package terrain

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// testDomain is 10 x 8 x 5 cm in 2 mm cells: 50 x 40 cells.
var testDomain = Domain{SizeX: 0.1, SizeY: 0.08, Height: 0.05, Dx: 0.002}

// wantCell checks cell (x, y) against bottom-to-top (base, max) pairs, with Min == Base.
func wantCell(t *testing.T, c *Columns, x, y int, want ...[2]float64) {
	t.Helper()
	tol := RootTolerance * c.Dx
	lo, hi := c.Cell(x, y)
	if hi-lo != len(want) {
		t.Fatalf("cell (%d,%d): %d columns, want %d", x, y, hi-lo, len(want))
	}
	for k, w := range want {
		i := lo + k
		if c.Min[i] != c.Base[i] {
			t.Fatalf("cell (%d,%d) column %d: min %g != base %g", x, y, k, c.Min[i], c.Base[i])
		}
		if !near(float64(c.Base[i]), w[0], tol) || !near(float64(c.Max[i]), w[1], tol) {
			t.Fatalf("cell (%d,%d) column %d: [%.9g, %.9g], want [%.9g, %.9g] to %g",
				x, y, k, c.Base[i], c.Max[i], w[0], w[1], tol)
		}
	}
}

func extractOK(t *testing.T, s Solid, d Domain, layers int) *Columns {
	t.Helper()
	c, err := Extract(s, d, layers)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	nx, ny := d.Grid()
	if c.Nx != nx || c.Ny != ny || c.Dx != d.Dx || c.Height != d.Height || c.Layers != layers {
		t.Fatalf("grid %dx%d dx %g height %g layers %d, want %dx%d %g %g %d",
			c.Nx, c.Ny, c.Dx, c.Height, c.Layers, nx, ny, d.Dx, d.Height, layers)
	}
	return c
}

func TestExtractFlatFloorAndEmpty(t *testing.T) {
	m := mustOf(t)
	d := testDomain
	floor := m(Box(Vec3{-1, -1, -1}, Vec3{1, 1, 0.01}))
	c := extractOK(t, floor, d, 3)
	far := m(Sphere(Vec3{5, 5, 5}, 1))
	e := extractOK(t, far, d, 3)
	for y := range c.Ny {
		for x := range c.Nx {
			wantCell(t, c, x, y, [2]float64{0.01, d.Height})
			// Nothing solid: one column from the domain floor, Min = Base = 0.
			wantCell(t, e, x, y, [2]float64{0, d.Height})
		}
	}
	if c.Dropped != 0 || e.Dropped != 0 {
		t.Errorf("dropped %d and %d intervals, want 0", c.Dropped, e.Dropped)
	}
	// A solid through the domain top leaves cells with no column.
	full := m(Box(Vec3{-1, -1, -1}, Vec3{0.05, 1, 1}))
	f := extractOK(t, full, d, 2)
	for y := range f.Ny {
		for x := range f.Nx {
			if cx, _ := f.CellCentre(x, y); cx < 0.05 {
				wantCell(t, f, x, y)
			} else {
				wantCell(t, f, x, y, [2]float64{0, d.Height})
			}
		}
	}
}

func TestExtractIncline(t *testing.T) {
	d := testDomain
	// Solid below z = 0.01 + 0.2 x.
	incline := mustOf(t)(Plane(Vec3{0, 0, 0.01}, Vec3{-0.2, 0, 1}))
	c := extractOK(t, incline, d, 2)
	// The same incline as a user solid with no declared bound (marched in dx/8 steps).
	bare := extractOK(t, slope{0.01, 0.2}, d, 2)
	for y := range c.Ny {
		for x := range c.Nx {
			cx, _ := c.CellCentre(x, y)
			wantCell(t, c, x, y, [2]float64{0.01 + 0.2*cx, d.Height})
			wantCell(t, bare, x, y, [2]float64{0.01 + 0.2*cx, d.Height})
		}
	}
}

// slope is z - (z0 + k x) with no Bound method: extraction must treat it as SignOnly.
type slope struct{ z0, k float64 }

func (s slope) Dist(p Vec3) float64 { return p.Z - s.z0 - s.k*p.X }

// overhangScene is a floor up to 1 cm with a slab from 3 to 3.5 cm floating above
// x in [3.01, 5.99] cm, y in [2.01, 5.99] cm.
func overhangScene(t *testing.T) (Solid, func(cx, cy float64) bool) {
	m := mustOf(t)
	s := m(Union(
		m(Box(Vec3{-1, -1, -1}, Vec3{1, 1, 0.01})),
		m(Box(Vec3{0.0301, 0.0201, 0.03}, Vec3{0.0599, 0.0599, 0.035})),
	))
	under := func(cx, cy float64) bool { return cx > 0.0301 && cx < 0.0599 && cy > 0.0201 && cy < 0.0599 }
	return s, under
}

func TestExtractOverhang(t *testing.T) {
	d := testDomain
	s, under := overhangScene(t)
	c := extractOK(t, s, d, 4)
	one := extractOK(t, s, d, 1)
	n := 0
	for y := range c.Ny {
		for x := range c.Nx {
			cx, cy := c.CellCentre(x, y)
			if under(cx, cy) {
				n++
				wantCell(t, c, x, y, [2]float64{0.01, 0.03}, [2]float64{0.035, d.Height})
				// With one layer the lower cavity is dropped: the top one stays.
				wantCell(t, one, x, y, [2]float64{0.035, d.Height})
			} else {
				wantCell(t, c, x, y, [2]float64{0.01, d.Height})
				wantCell(t, one, x, y, [2]float64{0.01, d.Height})
			}
		}
	}
	if n != 15*20 {
		t.Fatalf("%d cells under the slab, want 300", n)
	}
	if c.Dropped != 0 || one.Dropped != n {
		t.Errorf("dropped %d with 4 layers and %d with 1, want 0 and %d", c.Dropped, one.Dropped, n)
	}
	if c.NumColumns() != c.Nx*c.Ny+n || one.NumColumns() != c.Nx*c.Ny {
		t.Errorf("%d and %d columns", c.NumColumns(), one.NumColumns())
	}
}

func TestExtractSphereHole(t *testing.T) {
	m := mustOf(t)
	d := testDomain
	ctr, r := Vec3{0.05, 0.04, 0.015}, 0.01
	s := m(Difference(m(Box(Vec3{-1, -1, -1}, Vec3{1, 1, 0.03})), m(Sphere(ctr, r))))
	c := extractOK(t, s, d, 2)
	holes := 0
	for y := range c.Ny {
		for x := range c.Nx {
			cx, cy := c.CellCentre(x, y)
			rho2 := (cx-ctr.X)*(cx-ctr.X) + (cy-ctr.Y)*(cy-ctr.Y)
			half := math.Sqrt(max(r*r-rho2, 0))
			lo, hi := c.Cell(x, y)
			switch {
			case 2*half >= d.Dx/4:
				holes++
				wantCell(t, c, x, y, [2]float64{ctr.Z - half, ctr.Z + half}, [2]float64{0.03, d.Height})
			case 2*half < SliverWidth*d.Dx:
				wantCell(t, c, x, y, [2]float64{0.03, d.Height})
			case hi-lo == 2:
				// A cavity thinner than the march step near the rim may be found or not.
				wantCell(t, c, x, y, [2]float64{ctr.Z - half, ctr.Z + half}, [2]float64{0.03, d.Height})
			default:
				wantCell(t, c, x, y, [2]float64{0.03, d.Height})
			}
		}
	}
	if holes < 70 {
		t.Errorf("only %d cells see the hole", holes)
	}
}

func TestExtractHeightfield(t *testing.T) {
	d := testDomain
	fn := func(x, y float64) float64 { return 0.02 + 0.01*math.Sin(60*x)*math.Cos(45*y) }
	var calls atomic.Int64
	hf := mustOf(t)(Heightfield(func(x, y float64) float64 { calls.Add(1); return fn(x, y) }))
	c := extractOK(t, hf, d, 1)
	for y := range c.Ny {
		for x := range c.Nx {
			cx, cy := c.CellCentre(x, y)
			wantCell(t, c, x, y, [2]float64{fn(cx, cy), d.Height})
		}
	}
	// The vertical bound lets the ray jump: far fewer calls than 8 per cell of height.
	if per := float64(calls.Load()) / float64(c.Nx*c.Ny); per > 20 {
		t.Errorf("%.1f evaluations per cell; the vertical bound should keep it near 10", per)
	}
}

func TestExtractMeshMatchesBox(t *testing.T) {
	m := mustOf(t)
	d := testDomain
	lo, hi := Vec3{0.0213, 0.0117, 0.0051}, Vec3{0.0731, 0.0519, 0.0333}
	box := m(Box(lo, hi))
	mesh, err := ParseOBJ(strings.NewReader(boxOBJ(lo, hi)), "box.obj")
	if err != nil {
		t.Fatal(err)
	}
	a, b := extractOK(t, box, d, 2), extractOK(t, mesh, d, 2)
	if !reflect.DeepEqual(a.CellStart, b.CellStart) {
		t.Fatal("the mesh and the box give different column counts")
	}
	tol := float32(2 * RootTolerance * d.Dx)
	for i := range a.Base {
		if math.Abs(float64(a.Base[i]-b.Base[i])) > float64(tol) || math.Abs(float64(a.Max[i]-b.Max[i])) > float64(tol) {
			t.Fatalf("column %d: box [%g, %g], mesh [%g, %g]", i, a.Base[i], a.Max[i], b.Base[i], b.Max[i])
		}
	}
	if a.NumColumns() <= a.Nx*a.Ny {
		t.Errorf("%d columns: the box should leave two in the cells below it", a.NumColumns())
	}
}

// boxOBJ writes the box [lo, hi] as an OBJ with quads.
func boxOBJ(lo, hi Vec3) string {
	var b strings.Builder
	for c := range 8 {
		p := lo
		if c&1 != 0 {
			p.X = hi.X
		}
		if c&2 != 0 {
			p.Y = hi.Y
		}
		if c&4 != 0 {
			p.Z = hi.Z
		}
		fmt.Fprintf(&b, "v %.17g %.17g %.17g\n", p.X, p.Y, p.Z)
	}
	b.WriteString("f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n")
	return b.String()
}

func TestExtractIndependentOfWorkers(t *testing.T) {
	m := mustOf(t)
	s, _ := overhangScene(t)
	hf := m(Heightfield(func(x, y float64) float64 { return 0.005 + 0.1*x*y }))
	scene := m(Union(s, m(Difference(hf, m(Sphere(Vec3{0.02, 0.02, 0.005}, 0.008))))))
	want, err := extract(scene, testDomain, 3, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 8, 100} {
		got, err := extract(scene, testDomain, 3, w, false)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d workers give different columns than 1", w)
		}
	}
}

func TestExtractSlivers(t *testing.T) {
	dx := 0.01
	for _, c := range []struct {
		width float64
		keep  bool
	}{{0.5 * SliverWidth * dx, false}, {4 * SliverWidth * dx, true}} {
		// Free only within width/2 of z = 2 dx/8, a point the march samples.
		r := ray{pr: probe{s: gap{2 * MarchStep * dx, c.width / 2}}, height: dx, step: MarchStep * dx,
			tol: RootTolerance * dx, sliver: SliverWidth * dx}
		if err := r.cast(0, 0); err != nil {
			t.Fatal(err)
		}
		if got := len(r.spans) == 1; got != c.keep {
			t.Errorf("free interval %g dx wide: spans %v, want kept = %v", c.width/dx, r.spans, c.keep)
		}
	}
}

// gap is free only within h of height z0.
type gap struct{ z0, h float64 }

func (g gap) Dist(p Vec3) float64 { return g.h - math.Abs(p.Z-g.z0) }

var errBoom = errors.New("boom")

func TestExtractErrors(t *testing.T) {
	m := mustOf(t)
	floor := m(Box(Vec3{-1, -1, -1}, Vec3{1, 1, 0.01}))
	nanAt := m(Heightfield(func(x, y float64) float64 {
		if x > 0.05 && y > 0.03 {
			return math.NaN()
		}
		return 0.01
	}))
	panics := m(Heightfield(func(x, y float64) float64 {
		if y > 0.07 {
			panic(errBoom)
		}
		return 0.01
	}))
	panicsText := m(Heightfield(func(x, y float64) float64 { panic("no height here") }))
	d := testDomain
	bad := func(f func(*Domain)) Domain { e := d; f(&e); return e }
	for _, c := range []struct {
		name   string
		s      Solid
		d      Domain
		layers int
		want   []string
	}{
		{"dx zero", floor, bad(func(e *Domain) { e.Dx = 0 }), 1, []string{"dx is 0"}},
		{"dx negative", floor, bad(func(e *Domain) { e.Dx = -1 }), 1, []string{"dx is -1"}},
		{"height nan", floor, bad(func(e *Domain) { e.Height = math.NaN() }), 1, []string{"height"}},
		{"layers zero", floor, d, 0, []string{"layers is 0"}},
		{"nil solid", nil, d, 1, []string{"solid is nil"}},
		{"huge grid", floor, Domain{SizeX: 1e6, SizeY: 1e6, Height: 1, Dx: 1}, 1,
			[]string{"1000000 x 1000000 grid with 1 layers", "bytes) but", "bytes) of memory"}},
		{"absurd grid", floor, Domain{SizeX: 1e300, SizeY: 1, Height: 1, Dx: 1}, 1, []string{"cells"}},
		{"nan heightfield", nanAt, d, 1, []string{"cell (25, 15)", "NaN at (0.05"}},
		{"panicking heightfield", panics, d, 1, []string{"cell (0, 35)", "failed at (0.001, 0.07", "boom"}},
		{"panicking with a string", panicsText, d, 1, []string{"cell (0, 0)", "no height here"}},
	} {
		for _, w := range []int{1, 3} {
			_, err := extract(c.s, c.d, c.layers, w, false)
			if err == nil {
				t.Errorf("%s: no error", c.name)
				continue
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s (%d workers): error %q does not contain %q", c.name, w, err, want)
				}
			}
		}
	}
	if _, err := Extract(panics, d, 1); !errors.Is(err, errBoom) {
		t.Errorf("a panic with an error value should stay reachable: %v", err)
	}
}

func TestMemoryEstimate(t *testing.T) {
	if got, want := MemoryEstimate(100, 200, 5), uint64(100*200*5*ColumnBytes+(100*200+1)*4); got != want {
		t.Errorf("MemoryEstimate(100, 200, 5) = %d, want %d", got, want)
	}
	if got := MemoryEstimate(1<<40, 1<<40, 1<<20); got != math.MaxUint64 {
		t.Errorf("an overflowing estimate = %d, want saturation", got)
	}
	if MemoryEstimate(0, 5, 5) != 0 || MemoryEstimate(5, 5, -1) != 0 {
		t.Error("an empty grid should need 0 bytes")
	}
	if err := CheckMemory(10, 10, 1); err != nil {
		t.Errorf("a 10x10 grid: %v", err)
	}
	err := CheckMemory(1000000, 1000000, 5)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(MemoryEstimate(1000000, 1000000, 5))) {
		t.Errorf("a 1e6 x 1e6 grid: error %v, want one with the byte count", err)
	}
	if err := CheckMemory(0, 1, 1); err == nil {
		t.Error("an empty grid should be an error")
	}
	if n, ok := parseMemAvailable(strings.NewReader("MemTotal: 100 kB\nMemAvailable:   2048 kB\n")); !ok || n != 2048<<10 {
		t.Errorf("parseMemAvailable = %d, %v", n, ok)
	}
	if _, ok := parseMemAvailable(strings.NewReader("MemTotal: 100 kB\n")); ok {
		t.Error("parseMemAvailable found a missing line")
	}
	if AvailableMemory() == 0 {
		t.Error("no memory available")
	}
	for n, want := range map[uint64]string{512: "512 B", 1536: "1.5 KiB", 3 << 30: "3.0 GiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestForRowsLowestError(t *testing.T) {
	for _, w := range []int{1, 2, 5, 64} {
		var ran [100]atomic.Bool
		err := forRows(100, w, func(_, row int) error {
			ran[row].Store(true)
			if row == 37 || row == 60 || row == 99 {
				return fmt.Errorf("row %d", row)
			}
			return nil
		})
		if err == nil || err.Error() != "row 37" {
			t.Errorf("%d workers: %v, want row 37", w, err)
		}
		for r := 0; r < 37; r++ {
			if !ran[r].Load() {
				t.Errorf("%d workers: row %d below the failure did not run", w, r)
			}
		}
	}
}
