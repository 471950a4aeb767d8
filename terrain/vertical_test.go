package terrain

import (
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
)

// standingRock is the rock model as scripts/rock.lua places it: millimetres to metres,
// +y up, centred at (5, 5) cm on the table, sunk half a millimetre into it.
func standingRock(t testing.TB) Solid {
	t.Helper()
	md, err := LoadModel("../scripts/models/rock.stl")
	if err != nil {
		t.Fatal(err)
	}
	md.Transform(func(v Vec3) Vec3 { return Vec3{X: v.X * 0.001, Y: -v.Z * 0.001, Z: v.Y * 0.001} })
	lo, hi := md.Bounds()
	d := Vec3{X: 0.05 - (lo.X+hi.X)/2, Y: 0.05 - (lo.Y+hi.Y)/2, Z: 0.0015 - lo.Z}
	md.Transform(func(v Vec3) Vec3 { return v.Add(d) })
	s, err := md.Solid()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAlongMatchesMarching: the columns from the solids' own intervals along each line
// (alongLine) are those marching finds, interval for interval, to the root tolerance:
// for every primitive, for meshes (the rock model, a sphere mesh moved, scaled and
// turned about z) and for unions, intersections and differences of them.
func TestAlongMatchesMarching(t *testing.T) {
	m := mustOf(t)
	d := testDomain
	rock := standingRock(t)
	big := Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.05, Dx: 0.0005}
	src, _ := icosphere(3, Vec3{}, 1, false)
	ball := parse(t, src)
	ballMoved := m(Translate(m(Rotate(m(Scale(ball, 0.012)), Vec3{Z: 1}, 0.7)), Vec3{X: 0.05, Y: 0.04, Z: 0.02}))
	overhang, _ := overhangScene(t)
	paper, _ := paperScene(t)
	hf := m(Heightfield(func(x, y float64) float64 { return 0.006 + 0.003*math.Sin(150*x)*math.Cos(110*y) }))
	tunnel := m(Cylinder(Vec3{X: -0.01, Y: 0.03, Z: 0.004}, Vec3{X: 1, Y: 0.2, Z: 0.05}, 0.003, 0.2))
	for _, c := range []struct {
		name string
		s    Solid
		d    Domain
	}{
		{"tilted plane", m(Plane(Vec3{X: 0.05, Y: 0.04, Z: 0.01}, Vec3{X: 0.3, Y: -0.2, Z: 1})), d},
		{"plane facing down", m(Plane(Vec3{Z: 0.03}, Vec3{X: 0.1, Z: -1})), d},
		{"box", m(Box(Vec3{X: 0.0213, Y: 0.0117, Z: 0.0051}, Vec3{X: 0.0731, Y: 0.0519, Z: 0.0333})), d},
		{"sphere", m(Sphere(Vec3{X: 0.041, Y: 0.037, Z: 0.02}, 0.0153)), d},
		{"tilted cylinder", m(Cylinder(Vec3{X: 0.01, Y: 0.01, Z: 0.005}, Vec3{X: 1, Y: 0.5, Z: 0.8}, 0.0071, 0.05)), d},
		{"upright cylinder", m(Cylinder(Vec3{X: 0.05, Y: 0.04, Z: 0.011}, Vec3{Z: 1}, 0.0123, 0.021)), d},
		{"heightfield minus a tunnel", m(Difference(hf, tunnel)), d},
		{"overhang", overhang, d},
		{"paper scene", paper, d},
		{"box turned about z", m(Rotate(m(Box(Vec3{X: -0.02, Y: -0.01, Z: 0.003}, Vec3{X: 0.02, Y: 0.01, Z: 0.013})), Vec3{Z: 1}, 0.4)), d},
		{"sphere mesh moved, scaled, turned", m(Union(m(Plane(Vec3{Z: 0.009}, Vec3{Z: 1})), ballMoved)), d},
		{"sphere mesh cut", m(Intersection(ballMoved, m(Box(Vec3{X: 0.04, Y: 0, Z: 0}, Vec3{X: 0.1, Y: 0.1, Z: 0.025})))), d},
		{"boxes and cylinders turned about x and y", surgeryLike(t), d},
		{"rock tilted on a table", m(Union(m(Plane(Vec3{Z: 0.002}, Vec3{Z: 1})),
			m(Translate(m(Rotate(m(Translate(rock, Vec3{X: -0.05, Y: -0.05, Z: -0.015})), Vec3{X: 1, Y: 0.3}, 0.5)), Vec3{X: 0.05, Y: 0.05, Z: 0.02})))), big},
		{"rock on a table", m(Union(m(Plane(Vec3{Z: 0.002}, Vec3{Z: 1})), rock)), big},
		{"rock pierced", m(Difference(m(Union(m(Plane(Vec3{Z: 0.002}, Vec3{Z: 1})), rock)), m(Sphere(Vec3{X: 0.05, Y: 0.05, Z: 0.012}, 0.01)))), big},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !canAlong(c.s) {
				t.Fatal("canAlong is false")
			}
			marched, err := extract(c.s, c.d, 4, 2, true)
			if err != nil {
				t.Fatal(err)
			}
			along, err := extract(c.s, c.d, 4, 2, false)
			if err != nil {
				t.Fatal(err)
			}
			if err := along.Validate(); err != nil {
				t.Fatal(err)
			}
			tol := 2*RootTolerance*c.d.Dx + 1e-7*c.d.Height // the ends' tolerance, and float32
			thin := 0
			for y := range along.Ny {
				for x := range along.Nx {
					a, na := joinThin(marched, x, y)
					b, nb := joinThin(along, x, y)
					thin += nb - na
					if len(a) != len(b) {
						t.Fatalf("cell (%d, %d): columns %v marched, %v along", x, y, a, b)
					}
					for k := range a {
						if !near(a[k][0], b[k][0], tol) || !near(a[k][1], b[k][1], tol) {
							t.Fatalf("cell (%d, %d) column %d: %v marched, %v along", x, y, k, a[k], b[k])
						}
					}
				}
			}
			if thin > 0 {
				t.Logf("%d solid slivers (thinner than the march step) found along lines, not by marching", thin)
			}
			if marched.Dropped != along.Dropped {
				t.Errorf("dropped %d marched, %d along", marched.Dropped, along.Dropped)
			}
			if along.NumColumns() < along.Nx*along.Ny {
				t.Errorf("%d columns for %d cells: the scene should cover the grid", along.NumColumns(), along.Nx*along.Ny)
			}
		})
	}
}

// surgeryLike is a floor with a bowl cut in it and tilted pieces over it, as
// scripts/surgery.lua builds its vertebra: boxes turned about x and about y, then z,
// cylinders along y, a cylinder turned about an oblique axis.
func surgeryLike(t *testing.T) Solid {
	m := mustOf(t)
	wound := m(Difference(m(Box(Vec3{}, Vec3{X: 0.1, Y: 0.08, Z: 0.01})), m(Sphere(Vec3{X: 0.05, Y: 0.04, Z: 0.05}, 0.046))))
	body := m(Cylinder(Vec3{X: 0.05, Y: 0.025, Z: 0.014}, Vec3{Y: 1}, 0.01, 0.03))
	spinous := m(Translate(m(Rotate(m(Box(Vec3{X: -0.0025, Y: -0.007, Z: -0.008}, Vec3{X: 0.0025, Y: 0.007, Z: 0.008})), Vec3{X: 1}, 25*math.Pi/180)), Vec3{X: 0.05, Y: 0.038, Z: 0.03}))
	process := m(Translate(m(Rotate(m(Rotate(m(Box(Vec3{X: 0.008, Y: -0.005, Z: -0.002}, Vec3{X: 0.03, Y: 0.005, Z: 0.002})), Vec3{Y: 1}, -8*math.Pi/180)), Vec3{Z: 1}, math.Pi)), Vec3{X: 0.05, Y: 0.042, Z: 0.028}))
	peg := m(Rotate(m(Cylinder(Vec3{X: 0.07, Y: 0.02, Z: 0.01}, Vec3{Z: 1}, 0.004, 0.02)), Vec3{X: 0.2, Y: -1, Z: 0.1}, 0.15))
	return m(Union(wound, body, spinous, process, peg))
}

// joinThin returns cell (x, y)'s columns without those thinner than the march step and
// with those apart by less than it joined, and how many were joined. Such thin features,
// free or solid, are what marching finds or steps over by chance (where a line grazes a
// rim), while castAlong always finds a thin solid and always drops a thin free interval.
func joinThin(c *Columns, x, y int) ([][2]float64, int) {
	lo, hi := c.Cell(x, y)
	var out [][2]float64
	joined := 0
	for i := lo; i < hi; i++ {
		if c.Max[i]-c.Base[i] < float32(MarchStep*c.Dx) {
			continue
		}
		if n := len(out); n > 0 && float64(c.Base[i])-out[n-1][1] < MarchStep*c.Dx {
			out[n-1][1] = float64(c.Max[i])
			joined++
			continue
		}
		out = append(out, [2]float64{float64(c.Base[i]), float64(c.Max[i])})
	}
	return out, joined
}

// TestCanAlong: heightfields under a rotation that tilts the vertical, open meshes and
// solids of unknown type are marched, and so is anything containing one.
func TestCanAlong(t *testing.T) {
	m := mustOf(t)
	b := m(Box(Vec3{}, Vec3{X: 1, Y: 1, Z: 1}))
	open, err := openSphere(t, 2, Vec3{X: 0.5, Y: 0.5, Z: 0.5}, 0.4, 0.8, false).Solid()
	if err != nil {
		t.Fatal(err)
	}
	hf := m(Serialized(m(Heightfield(func(x, y float64) float64 { return x }))))
	const tilted, opened, unknown = "a heightfield turned about a horizontal axis", "an open mesh (inside by its winding number)", "a solid of type terrain.slope"
	for _, c := range []struct {
		name   string
		s      Solid
		want   bool
		reason string
	}{
		{"box", b, true, ""},
		{"turned about z", m(Rotate(b, Vec3{Z: 2}, 1)), true, ""},
		{"turned about x", m(Rotate(b, Vec3{X: 1}, 0.3)), true, ""},
		{"heightfield turned about x", m(Rotate(hf, Vec3{X: 1}, 0.3)), false, tilted},
		{"heightfield turned about z", m(Rotate(hf, Vec3{Z: 1}, 0.3)), true, ""},
		{"heightfield turned about z, then x", m(Rotate(m(Rotate(hf, Vec3{Z: 1}, 0.3)), Vec3{X: 1}, 0.2)), false, tilted},
		{"serialized heightfield", m(Scale(m(Translate(hf, Vec3{X: 1})), 2)), true, ""},
		{"closed mesh", parse(t, cubeOBJ), true, ""},
		{"open mesh", open, false, opened},
		{"unknown type", slope{0.01, 0.1}, false, unknown},
		{"union with an unknown type", m(Union(b, slope{0.01, 0.1})), false, unknown},
		{"difference with an open mesh", m(Difference(b, open)), false, opened},
		{"intersection with a tilt", m(Intersection(b, m(Rotate(b, Vec3{Y: 1}, 0.1)))), true, ""},
		{"union with a tilted heightfield", m(Union(b, m(Rotate(hf, Vec3{Y: 1}, 0.1)))), false, tilted},
	} {
		if got := canAlong(c.s); got != c.want {
			t.Errorf("%s: canAlong = %v, want %v", c.name, got, c.want)
		}
		if r := MarchReason(c.s); (r == "") != c.want || r != c.reason {
			t.Errorf("%s: MarchReason = %q, want %q", c.name, r, c.reason)
		}
	}
	// Marching still gives such scenes their columns.
	c := extractOK(t, m(Union(m(Rotate(m(Box(Vec3{X: 0.02, Y: 0.02, Z: -0.01}, Vec3{X: 0.08, Y: 0.06, Z: 0.01})), Vec3{X: 1}, 1e-9)), slope{0.001, 0})), testDomain, 2)
	wantCell(t, c, 20, 20, [2]float64{0.01, testDomain.Height})
	wantCell(t, c, 2, 2, [2]float64{0.001, testDomain.Height})
}

// TestMeshAlongThroughVertices: lines through a mesh's vertices and its edges' midpoints,
// and lines at random, vertical, slanted or along an axis, see an even number of
// crossings, and the runs between them alternate as the ray-parity inside test says:
// the top-left rule counts each crossing once where the line meets an edge or a vertex.
func TestMeshAlongThroughVertices(t *testing.T) {
	ico, _ := icosphere(2, Vec3{X: 0.3, Y: -0.2, Z: 0.1}, 1, false)
	// A box whose edges lie on the lines of a grid, its quads cut along diagonals.
	box := boxOBJ(Vec3{}, Vec3{X: 2, Y: 1, Z: 1})
	rock := standingRock(t).(*meshSolid)
	dirs := []Vec3{{Z: 1}, {Z: -2}, {X: 1}, {Y: 1}, {X: 0.3, Y: -0.5, Z: 0.8}, {X: 1, Y: 0.5}, {X: -0.2, Y: 1, Z: -0.1}}
	for _, c := range []struct {
		name string
		m    *meshSolid
	}{
		{"icosphere", parse(t, ico).(*meshSolid)},
		{"box", parse(t, box).(*meshSolid)},
		{"rock", rock},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.m
			var pts []Vec3
			for _, tr := range m.tris {
				pts = append(pts, tr.a, tr.b, tr.c, tr.a.Add(tr.b).Scale(0.5), tr.b.Add(tr.c).Scale(0.5))
			}
			lo, hi := m.nodes[0].lo, m.nodes[0].hi
			rng := rand.New(rand.NewPCG(3, 4))
			for range 1000 {
				pts = append(pts, Vec3{lo.X + (hi.X-lo.X)*rng.Float64(), lo.Y + (hi.Y-lo.Y)*rng.Float64(), lo.Z + (hi.Z-lo.Z)*rng.Float64()})
			}
			if c.name == "box" { // the grid's points, corners and edges included
				for i := range 9 {
					for j := range 5 {
						for k := range 5 {
							pts = append(pts, Vec3{float64(i) / 4, float64(j) / 4, float64(k) / 4})
						}
					}
				}
			}
			var l liner
			size := hi.Sub(lo).Len()
			solidRuns, lines := 0, 0
			for _, d := range dirs {
				if c.name == "rock" && d.Z != 1 && len(pts) > 4000 {
					pts = pts[len(pts)-4000:] // the rock's 25,600 points only vertically
				}
				for _, p := range pts {
					lines++
					l.buf = l.buf[:0]
					reach := 2 * size / d.Len()
					if !l.mesh(m, line{p, d}, -reach, reach) {
						t.Fatalf("line %v + t %v: an odd number of crossings", p, d)
					}
					// The runs between the intervals' ends: solid inside intervals, free between.
					ends := []float64{-reach}
					for _, v := range l.buf {
						ends = append(ends, v.lo, v.hi)
					}
					ends = append(ends, reach)
					for k := 0; k+1 < len(ends); k++ {
						a, b := ends[k], ends[k+1]
						if (b-a)*d.Len() < 1e-6*size {
							continue // a run as thin as rounding: no test point in it is robust
						}
						q := p.Add(d.Scale(0.5 * (a + b)))
						if d2, _ := m.nearest2(q, m.reach*m.reach); d2 < 1e-18*size*size {
							continue // on the surface (a line in a face): inside is moot
						}
						if got, want := k%2 == 1, m.inside(q); got != want {
							t.Fatalf("line %v + t %v, t = %g (between %g and %g): solid %v along, inside %v", p, d, 0.5*(a+b), a, b, got, want)
						}
						if k%2 == 1 {
							solidRuns++
						}
					}
				}
			}
			if solidRuns < lines/3 {
				t.Fatalf("%d solid runs checked on %d lines", solidRuns, lines)
			}
		})
	}
}

// TestIntervalOps: union, intersection and difference of random sorted lists agree with
// membership point by point, and give sorted, disjoint, non-touching (union) lists.
func TestIntervalOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	list := func() []span {
		var s []span
		z := rng.Float64()
		for range rng.IntN(5) {
			lo := z + rng.Float64()
			hi := lo + 0.01 + rng.Float64()
			s = append(s, span{lo, hi})
			z = hi + 0.01
		}
		return s
	}
	in := func(s []span, z float64) bool {
		for _, v := range s {
			if v.lo <= z && z <= v.hi {
				return true
			}
		}
		return false
	}
	for range 3000 {
		a, b := list(), list()
		var pts []float64
		for _, v := range append(append([]span(nil), a...), b...) {
			pts = append(pts, v.lo, v.hi)
		}
		for _, c := range []struct {
			name string
			op   setOp
			want func(z float64) bool
		}{
			{"union", unionOf, func(z float64) bool { return in(a, z) || in(b, z) }},
			{"intersection", intersectionOf, func(z float64) bool { return in(a, z) && in(b, z) }},
			{"difference", differenceOf, func(z float64) bool { return in(a, z) && !in(b, z) }},
		} {
			// The lists on one array as combine lays them out, something below them.
			buf := append([]span{{-9, -8}}, a...)
			buf = append(buf, b...)
			out := c.op(buf, buf[1:1+len(a)], buf[1+len(a):])[len(buf):]
			for i, v := range out {
				if !(v.lo < v.hi) || (i > 0 && !(out[i-1].hi < v.lo)) {
					t.Fatalf("%s of %v and %v = %v: not sorted, disjoint and apart", c.name, a, b, out)
				}
			}
			for i := 0; i+1 < len(pts); i++ { // between every two ends, away from them
				for _, z := range []float64{pts[i] + 1e-3, pts[i+1] - 1e-3, 0.5 * (pts[i] + pts[i+1])} {
					if in(out, z) != c.want(z) {
						t.Fatalf("%s of %v and %v = %v: wrong at %g", c.name, a, b, out, z)
					}
				}
			}
		}
	}
}

// TestExtractAlongIndependentOfWorkers: a scene along lines (the rock, a serialized
// heightfield) gives the same columns on any number of workers, and so does marching.
func TestExtractAlongIndependentOfWorkers(t *testing.T) {
	m := mustOf(t)
	var mu sync.Mutex
	calls := 0
	hf := m(Serialized(m(Heightfield(func(x, y float64) float64 {
		mu.Lock()
		calls++
		mu.Unlock()
		return 0.003 + 0.02*x*y
	}))))
	scene := m(Union(hf, standingRock(t)))
	d := Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.05, Dx: 0.001}
	for _, march := range []bool{false, true} {
		want, err := extract(scene, d, 3, 1, march)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{2, 5} {
			got, err := extract(scene, d, 3, w, march)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("march %v: %d workers give different columns than 1", march, w)
			}
		}
	}
	calls = 0
	if _, err := extract(scene, d, 3, 2, false); err != nil {
		t.Fatal(err)
	}
	if calls != 100*100 {
		t.Errorf("the heightfield's fn was called %d times for 10000 lines: want once a line", calls)
	}
}

// TestAmbiguousLinesMarch: a line that crosses a closed mesh an odd number of times
// (here a face made degenerate behind the mesh's back, as rounding could do at a vertex)
// is marched instead: the columns are those of marching.
func TestAmbiguousLinesMarch(t *testing.T) {
	lo, hi := Vec3{X: 0.0213, Y: 0.0117, Z: 0.0051}, Vec3{X: 0.0731, Y: 0.0519, Z: 0.0333}
	s := parse(t, boxOBJ(lo, hi))
	m := s.(*meshSolid)
	top := -1
	for i, tr := range m.tris {
		if tr.a.Z == hi.Z && tr.b.Z == hi.Z && tr.c.Z == hi.Z {
			top = i
			break
		}
	}
	if top < 0 {
		t.Fatal("no face on the box's top")
	}
	tr := m.tris[top]
	p := tr.a.Add(tr.b).Add(tr.c).Scale(1.0 / 3)
	m.tris[top] = triangle{tr.a, tr.a, tr.a}
	var l liner
	if l.mesh(m, line{Vec3{p.X, p.Y, 0}, Vec3{Z: 1}}, 0, 1) {
		t.Fatal("a line through the missing face: the crossings should be odd in number")
	}
	d := testDomain
	marched, err := extract(s, d, 2, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	along, err := extract(s, d, 2, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(marched.CellStart, along.CellStart) {
		t.Fatal("different column counts")
	}
	tol := float32(2 * RootTolerance * d.Dx)
	for i := range marched.Base {
		if db, dm := marched.Base[i]-along.Base[i], marched.Max[i]-along.Max[i]; db > tol || db < -tol || dm > tol || dm < -tol {
			t.Fatalf("column %d: [%g, %g] marched, [%g, %g] along", i, marched.Base[i], marched.Max[i], along.Base[i], along.Max[i])
		}
	}
	// The terrain mesh marches the ambiguous lattice columns and stays closed. (It is
	// not the mesh of evaluating every point: with a face gone the distance's sign jumps
	// off the surface, which the marching's bound assumes it does not.)
	got, err := surfaceMesh(s, d, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	meshCheck(t, got)
}

// TestAlongMatchesMarchingRandom: random unions, intersections and differences of
// boxes, balls, cylinders and planes, turned every way, give the columns marching
// gives (up to features thinner than the march step), and the terrain mesh of
// evaluating every point.
func TestAlongMatchesMarchingRandom(t *testing.T) {
	m := mustOf(t)
	rng := rand.New(rand.NewPCG(21, 22))
	d := Domain{SizeX: 0.06, SizeY: 0.05, Height: 0.04, Dx: 0.002}
	v := func(lo, hi float64) Vec3 {
		return Vec3{lo + (hi-lo)*rng.Float64(), lo + (hi-lo)*rng.Float64(), lo + (hi-lo)*rng.Float64()}
	}
	part := func() Solid {
		var s Solid
		switch rng.IntN(4) {
		case 0:
			c, h := v(0, 0.06), v(0.002, 0.015)
			s = m(Box(c.Sub(h), c.Add(h)))
		case 1:
			s = m(Sphere(v(0, 0.06), 0.003+0.015*rng.Float64()))
		case 2:
			s = m(Cylinder(v(0, 0.04), v(-1, 1), 0.002+0.008*rng.Float64(), 0.01+0.04*rng.Float64()))
		default:
			s = m(Plane(v(0, 0.02), Vec3{X: rng.Float64() - 0.5, Y: rng.Float64() - 0.5, Z: 1}))
		}
		if rng.IntN(2) == 0 {
			c := v(0, 0.05)
			s = m(Translate(m(Rotate(m(Translate(s, c.Scale(-1))), v(-1, 1), 3*rng.Float64())), c))
		}
		return s
	}
	for n := range 40 {
		s := part()
		for range 2 + rng.IntN(4) {
			switch rng.IntN(3) {
			case 0:
				s = m(Union(s, part()))
			case 1:
				s = m(Difference(s, part()))
			default:
				s = m(Intersection(s, m(Union(part(), part()))))
			}
		}
		marched, err := extract(s, d, 4, 2, true)
		if err != nil {
			t.Fatal(err)
		}
		along, err := extract(s, d, 4, 2, false)
		if err != nil {
			t.Fatal(err)
		}
		tol := 2*RootTolerance*d.Dx + 1e-7*d.Height
		for y := range along.Ny {
			for x := range along.Nx {
				a, _ := joinThin(marched, x, y)
				b, _ := joinThin(along, x, y)
				if len(a) != len(b) {
					t.Fatalf("scene %d, cell (%d, %d): columns %v marched, %v along", n, x, y, a, b)
				}
				for k := range a {
					if !near(a[k][0], b[k][0], tol) || !near(a[k][1], b[k][1], tol) {
						t.Fatalf("scene %d, cell (%d, %d) column %d: %v marched, %v along", n, x, y, k, a[k], b[k])
					}
				}
			}
		}
		want, err := surfaceMesh(s, d, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := surfaceMesh(s, d, 2, true)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("scene %d: the terrain mesh differs from evaluating every point", n)
		}
	}
}
