package surface

import (
	"math"
	"testing"
)

// airStreamDrops is a stream as the solver releases it over an edge: n parcels of
// radius r, one every dt s, each flying ballistically (gravity 9.81) from p0 with
// velocity v0 since it left; the front parcel (the first) left (n-1) dt + age0 ago.
func airStreamDrops(n int, dt, age0, r float64, p0, v0 [3]float64) []Drop {
	drops := make([]Drop, 0, n)
	for i := range n {
		p, v := airFlight(p0, v0, age0+float64(n-1-i)*dt)
		drops = append(drops, Drop{X: float32(p[0]), Y: float32(p[1]), Z: float32(p[2]), Radius: float32(r),
			VX: float32(v[0]), VY: float32(v[1]), VZ: float32(v[2])})
	}
	return drops
}

// airFlight is the place and velocity t s after leaving p0 with velocity v0.
func airFlight(p0, v0 [3]float64, t float64) (p, v [3]float64) {
	const g = 9.81
	return [3]float64{p0[0] + v0[0]*t, p0[1] + v0[1]*t, p0[2] + v0[2]*t - 0.5*g*t*t}, [3]float64{v0[0], v0[1], v0[2] - g*t}
}

// A stream of 15 parcels 4 ms apart off an edge is one rope: one chain holding every
// parcel, none left to the lattice; one closed body wound outward, of the parcels'
// volume within 15 % (continuity: a link carries its parcel's volume); every vertex
// within its parcels' radius of their parabola (the rope follows their path, no bead
// stands out of it); it passes through every parcel (a vertex within a radius of each
// centre); and it thins as it falls (continuity: pi R^2 |v| = Q), to 0.45-0.75 of the
// parcels' radius at the front; the same with any number of workers.
func TestAirStreamRope(t *testing.T) {
	const (
		n, dt, age0, r = 15, 0.004, 0.001, 0.0006
	)
	p0, v0 := [3]float64{0.03, 0.05, 0.045}, [3]float64{0.2, 0.05, 0}
	drops := airStreamDrops(n, dt, age0, r, p0, v0)
	m, a := airMesh(t, 1, drops...)
	if len(a.st.chains) != 1 || a.st.chains[0].n != n || len(a.valid) != 0 {
		t.Fatalf("%d chains (the first of %d parcels), %d drops left to the lattice: want one chain of all %d", len(a.st.chains), a.st.chains[0].n, len(a.valid), n)
	}
	comps, vols := airCheck(t, m, 0, 0)
	airOutward(t, m)
	want := n * sphereVolume(r)
	if len(comps) != 1 || math.Abs(vols[0]/want-1) > 0.15 {
		t.Fatalf("%d bodies, volume %g: want one of %g within 15 %%", len(comps), vols, want)
	}
	// The path: from the tail's start (one interval behind the last parcel, or where it
	// left) to one interval past the front parcel, sampled every 10 micro-s.
	t1 := age0 + float64(n)*dt
	var path [][3]float64
	for s := 0.0; s <= t1; s += 1e-5 {
		p, _ := airFlight(p0, v0, s)
		path = append(path, p)
	}
	dist := func(q [3]float64) (float64, int) {
		best, bi := math.Inf(1), 0
		for i, p := range path {
			if d := norm3(q[0]-p[0], q[1]-p[1], q[2]-p[2]); d < best {
				best, bi = d, i
			}
		}
		return best, bi
	}
	var front float64 // the rope's radius around the front parcel
	frontAt := int(math.Round((age0 + float64(n-1)*dt) / 1e-5))
	for v := range m.NumVertices() {
		q := [3]float64{float64(m.Positions[3*v]), float64(m.Positions[3*v+1]), float64(m.Positions[3*v+2])}
		d, i := dist(q)
		if d > 1.02*r {
			t.Fatalf("vertex %d lies %.3g radii from the parcels' path", v, d/r)
		}
		if abs(i-frontAt) < 20 {
			front = max(front, d)
		}
	}
	if !(front > 0.45*r && front < 0.75*r) {
		t.Fatalf("the rope's radius at the front parcel: %.3g of the parcels'; want 0.45-0.75 (it thins as it speeds up)", front/r)
	}
	for i, d := range drops {
		c := [3]float64{float64(d.X), float64(d.Y), float64(d.Z)}
		near := math.Inf(1)
		for v := range m.NumVertices() {
			near = min(near, norm3(float64(m.Positions[3*v])-c[0], float64(m.Positions[3*v+1])-c[1], float64(m.Positions[3*v+2])-c[2]))
		}
		if near > r {
			t.Fatalf("parcel %d: the rope's nearest vertex is %.3g radii away", i, near/r)
		}
	}
	for _, w := range []int{2, 3, 8} {
		if mw, _ := airMesh(t, w, drops...); !sameMesh(m, mw) {
			t.Fatalf("%d workers give another rope than 1", w)
		}
	}
	t.Logf("one rope of %d parcels: %d vertices, %d triangles, volume %+.1f %% of theirs, radius at the front %.2f of theirs",
		n, m.NumVertices(), m.NumTriangles(), 100*(vols[0]/want-1), front/r)
}

func abs(i int) int { return max(i, -i) }

// A curtain: 12 streams side by side, 0.8 radii apart across, off one edge. Each stream
// is a rope drawn as a strip of the sheet (it finds the stream beside it); each rope a
// closed body; the same with any number of workers.
func TestAirStreamSheet(t *testing.T) {
	const r = 0.0006
	var drops []Drop
	for k := range 12 {
		drops = append(drops, airStreamDrops(10, 0.004, 0.001, r, [3]float64{0.03, 0.04 + 0.8*r*float64(k), 0.045}, [3]float64{0.15, 0, 0})...)
	}
	m, a := airMesh(t, 1, drops...)
	if len(a.st.chains) != 12 || len(a.valid) != 0 {
		t.Fatalf("%d chains, %d drops left to the lattice: want 12 ropes of every drop", len(a.st.chains), len(a.valid))
	}
	a.src = drops // as during the Append
	for i := range a.st.chains {
		if _, w := a.ropeSide(&a.st.chains[i]); !(w > 0.7*r && w < 0.9*r) {
			t.Fatalf("rope %d: the stream beside it %.3g radii away, want 0.8", i, w/r)
		}
	}
	a.src = nil
	comps, _ := airCheck(t, m, 0, 0)
	if len(comps) != 12 {
		t.Fatalf("%d bodies, want 12", len(comps))
	}
	for _, w := range []int{2, 3, 8} {
		if mw, _ := airMesh(t, w, drops...); !sameMesh(m, mw) {
			t.Fatalf("%d workers give another sheet than 1", w)
		}
	}
}

// The library's scenes' liquid in the air (airScenes): the waterfall's stream at 1.5 s
// all ropes; the paint running off the rock and the blood off the surgery's arch nearly
// all (at least 85 % of the parcels); the fountain's spray at 1 s none (its parcels fly
// apart: drops). Each frame's mesh is closed, its ropes wound outward, the same with any
// number of workers, and Append allocates nothing once warm.
func TestAirStreamScenes(t *testing.T) {
	minShare := map[string]float64{"waterfall": 1, "rock": 0.85, "surgery": 0.85}
	for _, name := range airScenes {
		drops := airSceneDrops(t, name)
		m, a := airMesh(t, 1, drops...)
		airCheck(t, m, 0, 0)
		// The ropes' triangles (after the lattice's and the lone drops'); the lattice's
		// heaps of parcels (fountain_now's pedestal) have a few inward ones of their own.
		airOutward(t, &Mesh{Positions: m.Positions, Normals: m.Normals, Indices: m.Indices[a.st.i0:]})
		in := 0
		for _, c := range a.st.chains {
			in += int(c.n)
		}
		share := float64(in) / float64(len(drops))
		switch want, ok := minShare[name]; {
		case ok && share < want:
			t.Errorf("%s: %.0f %% of the parcels in ropes, want at least %.0f %%", name, 100*share, 100*want)
		case name == "fountain" && in != 0:
			t.Errorf("fountain (a spray): %d parcels in ropes, want none", in)
		}
		for _, w := range []int{2, 3, 8} {
			if mw, _ := airMesh(t, w, drops...); !sameMesh(m, mw) {
				t.Fatalf("%s: %d workers give another mesh than 1", name, w)
			}
		}
		wa := NewAirSurface(DefaultAirSettings())
		wm := &Mesh{}
		wa.Append(wm, drops, airBox)
		if allocs := testing.AllocsPerRun(5, func() {
			wm.Positions, wm.Normals, wm.Opacity, wm.Indices = wm.Positions[:0], wm.Normals[:0], wm.Opacity[:0], wm.Indices[:0]
			wa.Append(wm, drops, airBox)
		}); allocs != 0 {
			t.Errorf("%s: Append allocates %g times a frame once warm", name, allocs)
		}
		t.Logf("%s: %d parcels, %d in %d ropes; %d triangles", name, len(drops), in, len(a.st.chains), m.NumTriangles())
	}
}

func norm3(x, y, z float64) float64 { return math.Sqrt(x*x + y*y + z*z) }
