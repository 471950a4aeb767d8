package terrain

import (
	"math"
	"reflect"
	"testing"
)

// sameColumns fails unless a and b hold the same grid and the same columns, bit for bit.
func sameColumns(t *testing.T, name string, a, b *Columns) {
	t.Helper()
	if a.Nx != b.Nx || a.Ny != b.Ny || a.Dx != b.Dx || a.Height != b.Height || a.Layers != b.Layers {
		t.Fatalf("%s: grid %dx%d dx %g height %g layers %d, want %dx%d dx %g height %g layers %d", name,
			b.Nx, b.Ny, b.Dx, b.Height, b.Layers, a.Nx, a.Ny, a.Dx, a.Height, a.Layers)
	}
	if !reflect.DeepEqual(a.CellStart, b.CellStart) {
		t.Fatalf("%s: the cells hold other numbers of columns", name)
	}
	for _, f := range []struct {
		what string
		a, b []float32
	}{{"Min", a.Min, b.Min}, {"Base", a.Base, b.Base}, {"Max", a.Max, b.Max}} {
		for i := range f.a {
			if math.Float32bits(f.a[i]) != math.Float32bits(f.b[i]) {
				t.Fatalf("%s: column %d: %s %v, want %v", name, i, f.what, f.b[i], f.a[i])
			}
		}
	}
}

// TestColumnsSolidRoundTrip: Extract of ColumnsSolid(c) on c's grid and layers gives c's
// columns back bit for bit: columns from the solids' intervals, from marching (free
// intervals thinner than a march step, which the along path's tolerances would drop),
// with cavities dropped (Dropped is then 0: they are solid in c), and written by hand
// (columns that touch, a cell with none, a column free to the top).
func TestColumnsSolidRoundTrip(t *testing.T) {
	d := testDomain
	over, _ := overhangScene(t)
	thin := gap{2 * MarchStep * d.Dx, 0.02 * d.Dx} // free 0.04 dx, found by marching
	cases := map[string]*Columns{}
	cases["overhang"] = extractOK(t, over, d, 4)
	cases["overhang, 1 layer"] = extractOK(t, over, d, 1)
	if cases["overhang, 1 layer"].Dropped == 0 {
		t.Fatal("the one-layer overhang drops nothing: the case tests nothing")
	}
	for name, s := range map[string]Solid{"overhang marched": over, "thin marched": thin, "sign only": slope{0.01, 0.3}} {
		c, err := extract(s, d, 3, 2, true)
		if err != nil {
			t.Fatal(err)
		}
		cases[name] = c
	}
	if lo, hi := cases["thin marched"].Cell(0, 0); hi-lo != 1 || cases["thin marched"].Max[lo]-cases["thin marched"].Min[lo] >= float32(MarchStep*d.Dx) {
		t.Fatalf("the thin interval was not found as such: %d columns", hi-lo)
	}
	hand, err := FromIntervals(3, 2, 0.01, 0.05, 3, [][]Interval{
		{{0, 0, 0.01}, {0.01, 0.01, 0.02}, {0.03, 0.03, 0.05}}, {}, {{0.001, 0.001, 0.0012}},
		{{0.02, 0.02, 0.05}}, {{0, 0, 0.05}}, {{0.049, 0.049, 0.05}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases["by hand"] = hand
	for name, c := range cases {
		dom := Domain{SizeX: float64(c.Nx) * c.Dx, SizeY: float64(c.Ny) * c.Dx, Height: c.Height, Dx: c.Dx}
		for _, workers := range []int{1, 3} {
			got, err := extract(ColumnsSolid(c), dom, c.Layers, workers, false)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sameColumns(t, name, c, got)
			if got.Dropped != 0 {
				t.Errorf("%s: Dropped %d, want 0", name, got.Dropped)
			}
		}
		if got, err := Extract(ColumnsSolid(c), dom, c.Layers); err != nil {
			t.Fatal(err)
		} else {
			sameColumns(t, name+" (Extract)", c, got)
		}
	}
}

// TestColumnsSolidDist: positive inside a free interval, the vertical distance to its
// nearer end; negative between, below and above the columns and in an empty cell; zero
// on an end; points off the grid belong to the nearest cell. Along vertical lines its
// intervals (moved, scaled, turned about z or upside down) are those its sign gives.
func TestColumnsSolidDist(t *testing.T) {
	c, err := FromIntervals(2, 1, 0.01, 0.05, 2, [][]Interval{{{0, 0, 0.01}, {0.02, 0.02, 0.05}}, {}})
	if err != nil {
		t.Fatal(err)
	}
	s := ColumnsSolid(c)
	if BoundOf(s) != SignOnly || MarchReason(s) != "" {
		t.Errorf("bound %v, march reason %q", BoundOf(s), MarchReason(s))
	}
	f32 := func(v float64) float64 { return float64(float32(v)) }
	for _, p := range []struct {
		p    Vec3
		want float64
	}{
		{Vec3{0.005, 0.005, 0.004}, 0.004},
		{Vec3{0.005, 0.005, 0.009}, f32(0.01) - 0.009},
		{Vec3{0.005, 0.005, 0.013}, -(0.013 - f32(0.01))},
		{Vec3{0.005, 0.005, 0.019}, -(f32(0.02) - 0.019)},
		{Vec3{0.005, 0.005, 0.03}, 0.03 - f32(0.02)},
		{Vec3{0.005, 0.005, -0.002}, -0.002},
		{Vec3{0.005, 0.005, 0.06}, -(0.06 - f32(0.05))},
		{Vec3{0.005, 0.005, 0}, 0},
		{Vec3{-1, 0.5, 0.004}, 0.004}, // off the grid: cell (0, 0)
		{Vec3{0.015, 0.005, 0.03}, -0.05},
		{Vec3{2, -3, 0.03}, -0.05}, // cell (1, 0), empty
	} {
		if got := s.Dist(p.p); math.Abs(got-p.want) > 1e-12 {
			t.Errorf("Dist(%v) = %g, want %g", p.p, got, p.want)
		}
	}
	if d := s.Dist(Vec3{0.005, 0.005, float64(float32(0.02))}); d > 0 {
		t.Errorf("Dist on an interval's end = %g: it must count as solid", d)
	}
	m := mustOf(t)
	for name, v := range map[string]Solid{
		"plain":  s,
		"moved":  m(Translate(s, Vec3{0.001, 0, 0.003})),
		"scaled": m(Scale(s, 1.5)),
		"turned": m(Rotate(s, Vec3{0, 0, 1}, 0.3)),
	} {
		if MarchReason(v) != "" {
			t.Errorf("%s: march reason %q", name, MarchReason(v))
		}
		var l liner
		for _, xy := range [][2]float64{{0.004, 0.006}, {0.012, 0.004}, {0.0045, 0.0001}} {
			l.buf = l.buf[:0]
			ln := line{Vec3{xy[0], xy[1], 0}, Vec3{0, 0, 1}}
			if _, err := l.alongLine(v, ln, 0, 0.05); err != nil {
				t.Fatal(err)
			}
			for z := 0.00025; z < 0.05; z += 0.0005 {
				in := false
				for _, sp := range l.buf {
					in = in || (z >= sp.lo && z <= sp.hi)
				}
				if solid := v.Dist(Vec3{xy[0], xy[1], z}) <= 0; solid != in {
					t.Errorf("%s at (%g, %g, %g): solid by Dist %v, by its intervals %v (%v)", name, xy[0], xy[1], z, solid, in, l.buf)
					break
				}
			}
		}
	}
}

// TestColumnsAlongDownward: on a line running down, the solid intervals come in order
// of t, the gaps of the cell from the top.
func TestColumnsAlongDownward(t *testing.T) {
	c, err := FromIntervals(1, 1, 0.01, 0.05, 2, [][]Interval{{{0.01, 0.01, 0.02}, {0.03, 0.03, 0.04}}})
	if err != nil {
		t.Fatal(err)
	}
	var l liner
	l.columnsAlong(ColumnsSolid(c).(*columnsSolid), line{Vec3{0.005, 0.005, 0.05}, Vec3{0, 0, -1}}, 0, 0.05)
	f := func(v float64) float64 { return 0.05 - float64(float32(v)) }
	want := []span{{0, f(0.04)}, {f(0.03), f(0.02)}, {f(0.01), 0.05}}
	if len(l.buf) != len(want) {
		t.Fatalf("intervals %v, want %v", l.buf, want)
	}
	for i := range want {
		if math.Abs(l.buf[i].lo-want[i].lo) > 1e-15 || math.Abs(l.buf[i].hi-want[i].hi) > 1e-15 {
			t.Fatalf("intervals %v, want %v", l.buf, want)
		}
	}
}

// TestColumnsSolidSurfaceMesh: the blocky surface of columns is a closed mesh enclosing
// about the volume they leave solid, the same traced or evaluated point by point.
func TestColumnsSolidSurfaceMesh(t *testing.T) {
	d := Domain{SizeX: 0.1, SizeY: 0.08, Height: 0.05, Dx: 0.004}
	over, _ := overhangScene(t)
	c := extractOK(t, over, d, 4)
	s := ColumnsSolid(c)
	want, err := surfaceMesh(s, d, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	meshCheck(t, want)
	if want.NumTriangles() == 0 {
		t.Fatal("no triangles")
	}
	slab := 0.1 * 0.08 * d.Dx
	if got, ref := meshVolume(want)-slab, solidVolume(c); math.Abs(got-ref) > 0.1*ref {
		t.Errorf("the mesh encloses %.4g m^3 of solid, the columns %.4g", got, ref)
	}
	got, err := SurfaceMesh(s, d)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tracing gives another mesh (%d vs %d triangles)", got.NumTriangles(), want.NumTriangles())
	}
}
