package bodies

import (
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// floorZ is the pools' floor, m.
const floorZ = 0.001

// pool is an n x n grid of cell dx with a flat floor at floorZ, walled, up to height,
// filled to depth, and a World on it.
func pool(t testing.TB, n int, dx, height, depth float64, workers int) (*gpusim.Sim, *World) {
	t.Helper()
	cols := flat(t, n, n, dx, height)
	st := gpusim.DefaultSettings()
	st.Workers = workers
	st.Backend = "cpu"
	sim, err := gpusim.New(cols, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	if depth > 0 {
		if _, err := sim.Fill(dx/2, dx/2, floorZ+dx/4, floorZ+depth); err != nil {
			t.Fatal(err)
		}
	}
	w, err := NewWorld(cols, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	return sim, w
}

// flat is an nx x ny grid of cell dx with a flat floor at floorZ, one column a cell up to
// height.
func flat(t testing.TB, nx, ny int, dx, height float64) *terrain.Columns {
	t.Helper()
	cells := make([][]terrain.Interval, nx*ny)
	for i := range cells {
		cells[i] = []terrain.Interval{{Min: floorZ, Base: floorZ, Max: float32(height)}}
	}
	cols, err := terrain.FromIntervals(nx, ny, dx, height, 1, cells)
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// floatingBox is a 60 x 60 mm pool of water 10 mm deep (dx 1 mm) and a 10 x 10 x 4 mm box
// of density 500 let go over its middle with its centre at z.
func floatingBox(t *testing.T, z float64) (*gpusim.Sim, *World, *Body) {
	t.Helper()
	sim, w := pool(t, 60, 0.001, 0.05, 0.01, 2)
	sh := box(t, vec{X: 0.5, Y: 0.5, Z: 0.5}, vec{X: 0.01, Y: 0.01, Z: 0.004})
	b, err := w.Add(sh, 500, [3]float64{0.03, 0.03, z}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sim, w, b
}

// box is a body-sized box solid centred at c with sides s.
func box(t testing.TB, c, s vec) *Shape {
	t.Helper()
	b, err := terrain.Box(c.Sub(s.Scale(0.5)), c.Add(s.Scale(0.5)))
	if err != nil {
		t.Fatal(err)
	}
	sh, err := NewShape(b, Box{Max: vec{X: 1, Y: 1, Z: 1}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

// run couples w to sim for seconds, updating every Interval of simulated time.
func run(t testing.TB, sim *gpusim.Sim, w *World, seconds float64) {
	t.Helper()
	k := max(1, int(math.Floor(Interval/sim.Dt())))
	for sim.Time() < seconds {
		sim.Step(k)
		if err := w.Couple(sim, float64(k)*sim.Dt()); err != nil {
			t.Fatal(err)
		}
	}
}

// outsideLevel is the mean surface height of the columns at least margin cells from the
// lifted ones: the pool's level away from the bodies.
func outsideLevel(sim *gpusim.Sim, margin int) float64 {
	c := sim.Columns()
	h := sim.Heights(nil)
	var sum float64
	n := 0
	for y := range c.Ny {
		for x := range c.Nx {
			near := false
			for oy := -margin; oy <= margin && !near; oy++ {
				for ox := -margin; ox <= margin && !near; ox++ {
					if xx, yy := x+ox, y+oy; xx >= 0 && yy >= 0 && xx < c.Nx && yy < c.Ny {
						lo, _ := c.Cell(xx, yy)
						near = sim.Floor(lo) > c.Base[lo]
					}
				}
			}
			if !near {
				lo, _ := c.Cell(x, y)
				sum += float64(h[lo])
				n++
			}
		}
	}
	return sum / float64(n)
}

// TestArchimedes: a 10 x 10 x 4 mm box of density 500 let go with its bottom on the
// surface of a 60 x 60 mm pool of water 10 mm deep bobs and settles with its draft half
// its height (2 mm) and the pool's level raised by its mass over rho A (0.056 mm),
// within 5% (both averaged over the last second: the pool still sloshes a little); the
// liquid's volume stays exact.
func TestArchimedes(t *testing.T) {
	const dx, depth, n = 0.001, 0.01, 60
	sim, w, b := floatingBox(t, floorZ+depth+0.002)
	v0 := sim.Volume()
	run(t, sim, w, 4)
	var draft, level, speed float64
	samples := 0
	for sim.Time() < 5 {
		run(t, sim, w, sim.Time()+0.05)
		l := outsideLevel(sim, 2)
		level += l
		draft += l - b.Lowest()
		speed = max(speed, math.Abs(b.v.Z))
		samples++
	}
	draft /= float64(samples)
	level /= float64(samples)
	if want := 0.002; math.Abs(draft-want) > 0.05*want {
		t.Errorf("draft %.4g mm, want %.4g (half the height)", draft*1e3, want*1e3)
	}
	rise, want := level-(floorZ+depth), b.Mass()/(1000*n*dx*n*dx)
	if math.Abs(rise-want) > 0.05*want {
		t.Errorf("the level rose %.4g mm, want %.4g (m / rho A)", rise*1e3, want*1e3)
	}
	if speed > 0.005 {
		t.Errorf("the box still moves at up to %.3g mm/s in the last second: it did not settle", speed*1e3)
	}
	if v := sim.Volume(); math.Abs(v-v0) > 1e-9*v0 {
		t.Errorf("volume %g, %g at the start", v, v0)
	}
	if d := sim.Displaced(); math.Abs(d-b.Submerged()) > 0.05*b.Submerged() {
		t.Errorf("the floors displace %g m^3, the box has %g below the surface", d, b.Submerged())
	}
	t.Logf("draft %.4f mm, rise %.4f mm (want %.4f), last second's largest vertical speed %.3g mm/s", draft*1e3, rise*1e3, want*1e3, speed*1e3)
}

// TestSinkAndRest: a box twice as dense as water sinks and rests on the floor, its
// lowest point within a quarter cell of it, still, with the liquid over it (its whole
// volume displaced) and the volume exact.
func TestSinkAndRest(t *testing.T) {
	const dx, depth, n = 0.001, 0.01, 40
	sim, w := pool(t, n, dx, 0.05, depth, 2)
	sh := box(t, vec{X: 0.5, Y: 0.5, Z: 0.5}, vec{X: 0.008, Y: 0.008, Z: 0.004})
	b, err := w.Add(sh, 2000, [3]float64{0.02, 0.02, floorZ + depth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v0 := sim.Volume()
	run(t, sim, w, 3)
	if low := b.Lowest(); math.Abs(low-floorZ) > dx/4 {
		t.Errorf("the sunk box's lowest point is at %.4g mm, the floor at %.4g", low*1e3, floorZ*1e3)
	}
	if s := b.v.Len(); s > 1e-3 {
		t.Errorf("the sunk box moves at %.3g mm/s", s*1e3)
	}
	if sub := b.Submerged(); math.Abs(sub-b.Volume()) > 1e-3*b.Volume() {
		t.Errorf("submerged %g of %g m^3: a sunk box is all under", sub, b.Volume())
	}
	if v := sim.Volume(); math.Abs(v-v0) > 1e-9*v0 {
		t.Errorf("volume %g, %g at the start", v, v0)
	}
}

// TestDropBobs: a light box let go 10 mm above the surface falls, dips below where it
// floats, comes back up and settles there.
func TestDropBobs(t *testing.T) {
	const depth = 0.01
	sim, w, b := floatingBox(t, floorZ+depth+0.012)
	rest := floorZ + depth + 0.002 - 0.002 // the centre where it floats: bottom 2 mm under
	lowest, rose := math.Inf(1), false
	for sim.Time() < 5 {
		run(t, sim, w, sim.Time()+0.01)
		lowest = min(lowest, b.x.Z)
		if lowest < rest-0.0005 && b.x.Z > rest {
			rose = true
		}
	}
	if !(lowest < rest-0.0005) || !rose {
		t.Errorf("it went down to %.3g mm (rest %.3g) and came back up: %v: it did not bob", lowest*1e3, rest*1e3, rose)
	}
	if math.Abs(b.x.Z-rest) > 0.2*0.002 || math.Abs(b.v.Z) > 0.005 {
		t.Errorf("after 5 s the centre is at %.4g mm moving %.3g mm/s, want %.4g, still", b.x.Z*1e3, b.v.Z*1e3, rest*1e3)
	}
}

// TestCarriedByCurrent: a floating box in a channel's steady current reaches the
// surface's speed there (1.5 times the depth-averaged velocity, docs/bodies.md) within
// 20%.
func TestCarriedByCurrent(t *testing.T) {
	const dx, nx, ny = 0.001, 120, 16
	cols := flat(t, nx, ny, dx, 0.03)
	st := gpusim.DefaultSettings()
	st.Workers, st.Backend = 2, "cpu"
	st.Sides[gpusim.SidePlusX] = gpusim.SideOpen
	sim, err := gpusim.New(cols, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	if _, err := sim.Fill(dx/2, dx/2, floorZ+dx/4, floorZ+0.004); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.AddEmitter(gpusim.Emitter{X: 2 * dx, Y: ny * dx / 2, Z: floorZ + 0.001, Radius: ny * dx, Rate: 2e-6, Stop: math.Inf(1)}); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorld(cols, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	sim.Step(int(3 / sim.Dt()))
	h := sim.Heights(nil)
	lo, _ := cols.Cell(30, ny/2)
	sh := box(t, vec{X: 0.5, Y: 0.5, Z: 0.5}, vec{X: 0.006, Y: 0.006, Z: 0.002})
	b, err := w.Add(sh, 500, [3]float64{0.03, ny * dx / 2, float64(h[lo]) + 0.0005}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for b.x.X < 0.07 && sim.Time() < 10 {
		run(t, sim, w, sim.Time()+0.01)
	}
	x, y, ok := cols.CellAt(b.x.X, b.x.Y)
	if !ok {
		t.Fatalf("the box left the channel: %v", b.x)
	}
	h = sim.Heights(h)
	// The flow beside the box (two cells to its side), not under it.
	side, _ := cols.Cell(x, y-5)
	ux, _ := sim.ColumnVelocity(side, h[side])
	want := 1.5 * ux
	if math.Abs(b.v.X-want) > 0.2*want {
		t.Errorf("at x = %.1f mm the box moves at %.2f mm/s, the surface at %.2f (depth-averaged %.2f)", b.x.X*1e3, b.v.X*1e3, want*1e3, ux*1e3)
	}
	t.Logf("at x = %.1f mm (t = %.2f s) the box moves at %.2f mm/s, the surface at %.2f", b.x.X*1e3, sim.Time(), b.v.X*1e3, want*1e3)
}

// jostle runs eight boxes dropped into a 40 x 40 mm pool with an island in its middle,
// pushed about every second, for seconds, with the given solver workers.
func jostle(t *testing.T, workers int, seconds float64) (*gpusim.Sim, *World) {
	const dx, n = 0.001, 40
	cells := make([][]terrain.Interval, n*n)
	for y := range n {
		for x := range n {
			floor := float32(floorZ)
			if x >= 17 && x < 23 && y >= 17 && y < 23 {
				floor = 0.012 // the island: above the liquid
			}
			cells[y*n+x] = []terrain.Interval{{Min: floor, Base: floor, Max: 0.04}}
		}
	}
	cols, err := terrain.FromIntervals(n, n, dx, 0.04, 1, cells)
	if err != nil {
		t.Fatal(err)
	}
	st := gpusim.DefaultSettings()
	st.Workers, st.Backend = workers, "cpu"
	sim, err := gpusim.New(cols, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	if _, err := sim.Fill(dx/2, dx/2, floorZ+dx/4, floorZ+0.006); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorld(cols, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	sh := box(t, vec{X: 0.5, Y: 0.5, Z: 0.5}, vec{X: 0.006, Y: 0.006, Z: 0.003})
	for k := range 8 {
		a := float64(k) * math.Pi / 4
		at := [3]float64{0.02 + 0.011*math.Cos(a), 0.02 + 0.011*math.Sin(a), 0.012 + 0.003*float64(k%3)}
		if _, err := w.Add(sh, 400+100*float64(k%4), at, nil); err != nil {
			t.Fatal(err)
		}
	}
	for sim.Time() < seconds {
		run(t, sim, w, sim.Time()+1)
		for k, b := range w.Bodies() {
			a := float64(k)*1.3 + sim.Time()
			f := [3]float64{2e-3 * math.Cos(a), 2e-3 * math.Sin(a), 0}
			if err := b.Push(w.Time(), f, nil, 0.2); err != nil {
				t.Fatal(err)
			}
		}
	}
	return sim, w
}

// TestJostling: after 10 s of eight boxes pushed about a pool around an island, none is
// inside the terrain or inside another (beyond a quarter of a cell: the contacts'
// resolution), the liquid's volume is exact, and the run is the same bits with 1 and 3
// solver workers.
func TestJostling(t *testing.T) {
	sim, w := jostle(t, 1, 10)
	bs := w.Bodies()
	for _, a := range bs {
		t.Logf("body %d at (%.1f, %.1f, %.1f) mm, %.1f mm/s, asleep %v", a.id, a.x.X*1e3, a.x.Y*1e3, a.x.Z*1e3, a.v.Len()*1e3, a.asleep)
		r := a.q.matrix()
		pts := append([][3]float32(nil), a.shape.Contact...)
		for i := range a.shape.X {
			pts = append(pts, [3]float32{a.shape.X[i], a.shape.Y[i], a.shape.Z[i]})
		}
		for _, c := range pts {
			p := a.x.Add(r.mul(vec{X: float64(c[0]), Y: float64(c[1]), Z: float64(c[2])}))
			if d, _ := w.terrainDepth(p); d > 0.25*w.cols.Dx {
				t.Errorf("body %d: a point %.3g mm inside the terrain at %v", a.id, d*1e3, p)
			}
			for _, b := range bs {
				if b == a {
					continue
				}
				local := b.q.matrix().mulT(p.Sub(b.x))
				if d := b.shape.Dist(local); d < -0.25*min(b.shape.Cell.X, b.shape.Cell.Z) {
					t.Errorf("body %d: a point %.3g mm inside body %d", a.id, -d*1e3, b.id)
				}
			}
		}
	}
	sim3, w3 := jostle(t, 3, 10)
	for k, b := range w3.Bodies() {
		if a := bs[k]; a.x != b.x || a.q != b.q || a.v != b.v {
			t.Errorf("body %d: %v %v with 1 worker, %v %v with 3", a.id, a.x, a.q, b.x, b.q)
		}
	}
	h1, h3 := sim.Heights(nil), sim3.Heights(nil)
	for i := range h1 {
		if h1[i] != h3[i] {
			t.Fatalf("column %d: %g with 1 worker, %g with 3", i, h1[i], h3[i])
		}
	}
	added, removed, _ := sim.Accounting()
	if v := sim.Volume(); math.Abs(v-(added-removed)) > 1e-9*v {
		t.Errorf("volume %g, added - removed %g", v, added-removed)
	}
}

// TestSleepAndWake: a box resting on a dry floor falls asleep after SleepTime; liquid
// poured around it wakes it and it floats up; once the pool's slosh has died it sleeps
// again; a push wakes it and moves it.
func TestSleepAndWake(t *testing.T) {
	const dx, n = 0.001, 40
	sim, w := pool(t, n, dx, 0.05, 0, 2)
	sh := box(t, vec{X: 0.5, Y: 0.5, Z: 0.5}, vec{X: 0.008, Y: 0.008, Z: 0.003})
	b, err := w.Add(sh, 500, [3]float64{0.02, 0.02, floorZ + 0.002}, nil)
	if err != nil {
		t.Fatal(err)
	}
	run(t, sim, w, 1)
	if !b.Asleep() {
		t.Fatalf("after 1 s on the dry floor the box is awake (moving %.3g mm/s)", b.v.Len()*1e3)
	}
	if _, err := sim.Fill(dx/2, dx/2, floorZ+dx/4, floorZ+0.006); err != nil {
		t.Fatal(err)
	}
	run(t, sim, w, sim.Time()+0.05)
	if b.Asleep() {
		t.Fatal("water poured around the sleeping box did not wake it")
	}
	run(t, sim, w, sim.Time()+2)
	if low := b.Lowest(); low < floorZ+0.002 {
		t.Errorf("the box did not float up: its lowest point is %.2f mm over the floor", (low-floorZ)*1e3)
	}
	for end := sim.Time() + 10; !b.Asleep() && sim.Time() < end; { // until the pool's slosh dies
		run(t, sim, w, sim.Time()+0.1)
	}
	if !b.Asleep() {
		t.Errorf("still on still water after 4 s, the box is awake (moving %.3g mm/s, turning %.3g rad/s, still for %.2f s)", b.v.Len()*1e3, b.w.Len(), b.still)
	}
	x0 := b.x.X
	if err := b.Push(w.Time(), [3]float64{1e-3, 0, 0}, nil, 0.2); err != nil {
		t.Fatal(err)
	}
	if b.Asleep() {
		t.Fatal("a push did not wake the box")
	}
	run(t, sim, w, sim.Time()+0.5)
	if b.x.X-x0 < 0.002 {
		t.Errorf("pushed for 0.2 s, the box moved %.2f mm", (b.x.X-x0)*1e3)
	}
}

// TestCoupleAllocs: once warm, an update allocates nothing.
func TestCoupleAllocs(t *testing.T) {
	sim, w := pool(t, 40, 0.001, 0.03, 0.006, 1)
	sh := box(t, vec{X: 0.5, Y: 0.5, Z: 0.5}, vec{X: 0.008, Y: 0.008, Z: 0.002})
	for k := range 3 {
		if _, err := w.Add(sh, 400, [3]float64{0.01 + 0.01*float64(k), 0.02, floorZ + 0.007}, nil); err != nil {
			t.Fatal(err)
		}
	}
	run(t, sim, w, 0.5)
	if n := testing.AllocsPerRun(20, func() {
		if err := w.Couple(sim, Interval); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations an update", n)
	}
}

// TestMeshBody: a closed triangle mesh (a 10 x 10 x 4 mm box read from OBJ, whose distance
// is a weak lower bound: the sampling finds it by its inside) floats half under at
// density 500, like the box primitive.
func TestMeshBody(t *testing.T) {
	const obj = `v 0 0 0
v 0.01 0 0
v 0.01 0.01 0
v 0 0.01 0
v 0 0 0.004
v 0.01 0 0.004
v 0.01 0.01 0.004
v 0 0.01 0.004
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
`
	solid, err := terrain.ParseOBJ(strings.NewReader(obj), "box.obj")
	if err != nil {
		t.Fatal(err)
	}
	sh, err := NewShape(solid, Box{Min: vec{X: -0.06, Y: -0.06, Z: -0.05}, Max: vec{X: 0.12, Y: 0.12, Z: 0.1}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v := sh.Volume; math.Abs(v-4e-7) > 0.03*4e-7 {
		t.Errorf("the mesh box's sampled volume is %.4g mm^3, want 400", v*1e9)
	}
	sim, w := pool(t, 40, 0.001, 0.05, 0.01, 1)
	b, err := w.Add(sh, 500, [3]float64{0.02, 0.02, floorZ + 0.012}, nil)
	if err != nil {
		t.Fatal(err)
	}
	run(t, sim, w, 4)
	if f := b.Submerged() / b.Volume(); math.Abs(f-0.5) > 0.05 {
		t.Errorf("the mesh box is %.0f%% under, want half", f*100)
	}
}
