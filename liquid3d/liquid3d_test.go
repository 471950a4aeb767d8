package liquid3d

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

func newSim(t testing.TB, set Settings) *Sim {
	t.Helper()
	s, err := New(set)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func v3(x, y, z float64) terrain.Vec3 { return terrain.Vec3{X: x, Y: y, Z: z} }

func fillBox(t testing.TB, s *Sim, min, max, vel terrain.Vec3) {
	t.Helper()
	if _, _, err := s.FillBox(min, max, vel); err != nil {
		t.Fatal(err)
	}
}

func step(t testing.TB, s *Sim, dt float64) StepStats {
	t.Helper()
	if err := s.Step(dt); err != nil {
		t.Fatal(err)
	}
	return s.LastStats()
}

// checkVolume: the particles' volume is what was added less what left, to 1e-12.
func checkVolume(t testing.TB, s *Sim) {
	t.Helper()
	added, out := s.Accounting()
	if d := math.Abs(s.Volume() + out - added); d > 1e-12*added {
		t.Errorf("volume %.17g + out %.17g - added %.17g = %.3g (relative %.3g)", s.Volume(), out, added, d, d/added)
	}
}

// TestHydrostatic: a box half full of water stays at rest for 2 s: the fastest
// particle under 1 mm/s, the surface flat within 0.05 mm, the volume exact.
func TestHydrostatic(t *testing.T) {
	const n, h = 16, 4e-3
	s := newSim(t, DefaultSettings(n, n, n, h))
	fillBox(t, s, v3(0, 0, 0), v3(n*h, n*h, n*h/2), v3(0, 0, 0))
	v0 := s.Volume()
	iters, steps := 0, 0
	for s.Time() < 2-1e-9 {
		st := step(t, s, 1.0/60)
		iters += st.Iterations
		steps += st.Substeps
	}
	checkVolume(t, s)
	if v := s.Volume(); v != v0 {
		t.Errorf("volume %.17g, was %.17g", v, v0)
	}
	speed := s.MaxSpeed()
	th := s.ColumnThickness(nil)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range th {
		lo, hi = min(lo, d), max(hi, d)
	}
	top := surfaceTops(s)
	tlo, thi := math.Inf(1), math.Inf(-1)
	for _, z := range top {
		tlo, thi = min(tlo, z), max(thi, z)
	}
	t.Logf("2 s in %d substeps, %.1f CG iterations a substep; max speed %.3g m/s; thickness %.6f..%.6f mm; particles' tops %.6f..%.6f mm",
		steps, float64(iters)/float64(steps), speed, lo*1e3, hi*1e3, tlo*1e3, thi*1e3)
	if speed >= 1e-3 {
		t.Errorf("max speed %.3g m/s, want < 1 mm/s", speed)
	}
	if hi-lo >= 0.05e-3 || thi-tlo >= 0.05e-3 {
		t.Errorf("surface not flat: thickness range %.3g mm, tops' range %.3g mm, want < 0.05", (hi-lo)*1e3, (thi-tlo)*1e3)
	}
	if math.Abs(lo-n*h/2) > 1e-9 {
		t.Errorf("thickness %.6g m, want %.6g", lo, n*h/2)
	}
}

// surfaceTops is each column's highest particle, m.
func surfaceTops(s *Sim) []float64 {
	top := make([]float64, s.nx*s.ny)
	for i := range top {
		top[i] = math.Inf(-1)
	}
	for p := 0; p < s.np; p++ {
		c := s.column(p)
		top[c] = max(top[c], float64(s.pz[p])*s.h)
	}
	return top
}

// dambreak is a 24 x 12 x 16 box of 2 mm cells with a sphere on its floor and its +x
// side open, a block of water released from its -x end moving at 0.3 m/s towards the
// sphere: the liquid runs over and around the sphere and out through the open side.
func dambreak(t testing.TB, workers int) (*Sim, terrain.Solid) {
	const h = 2e-3
	sphere, err := terrain.Sphere(v3(14*h, 6.3*h, 0.5*h), 5.2*h)
	if err != nil {
		t.Fatal(err)
	}
	set := DefaultSettings(24, 12, 16, h)
	set.Solid = sphere
	set.Sides[XMax] = Open
	set.Viscosity = 1e-6
	set.Workers = workers
	s := newSim(t, set)
	fillBox(t, s, v3(0, 0, 0), v3(8*h, 12*h, 12*h), v3(0.3, 0, 0))
	return s, sphere
}

// TestWorkersSameBits: the dam break over a sphere and out of an open side gives the
// same bits with 1, 2 and 3 workers (the pressure solve's passes split too): every
// particle's position, velocity and volume, the particles that left, the accounting and
// the step's figures; and the volume is exact.
func TestWorkersSameBits(t *testing.T) {
	type run struct {
		ps, out []Particle
		stats   []StepStats
		added   float64
		left    float64
	}
	defer func(n int) { solveSplit = n }(solveSplit)
	solveSplit = 0 // split the solves too
	var runs []run
	for _, workers := range []int{1, 2, 3} {
		s, _ := dambreak(t, workers)
		var r run
		for range 24 {
			st := step(t, s, 1.0/120)
			st.Sort, st.P2G, st.Pressure, st.Precondition, st.Extrapolate, st.G2P, st.Spread = 0, 0, 0, 0, 0, 0, 0 // timings differ
			r.stats = append(r.stats, st)
			checkVolume(t, s)
		}
		r.ps = s.Particles(nil)
		r.out = s.TakeOutflow(nil)
		r.added, r.left = s.Accounting()
		runs = append(runs, r)
		if workers == 1 {
			sum := 0.0
			for _, p := range r.out {
				sum += p.Volume
			}
			t.Logf("0.2 s: %d particles in, %d left (%.4g of %.4g m^3; the records' sum %.4g)", len(r.ps), len(r.out), r.left, r.added, sum)
			if len(r.out) == 0 {
				t.Error("no particle left through the open side: the test proves less than it says")
			}
			if math.Abs(sum-r.left) > 1e-12*r.added {
				t.Errorf("the outflow's records sum to %.17g, the accounting says %.17g", sum, r.left)
			}
			if len(r.ps)+len(r.out) != int(math.Round(r.added/(8e-9/8))) {
				t.Errorf("%d particles in and %d out, %g added", len(r.ps), len(r.out), r.added/(8e-9/8))
			}
		}
	}
	for i, r := range runs[1:] {
		ref := runs[0]
		if len(r.ps) != len(ref.ps) || len(r.out) != len(ref.out) {
			t.Fatalf("%d workers: %d particles, %d out; 1 worker: %d, %d", i+2, len(r.ps), len(r.out), len(ref.ps), len(ref.out))
		}
		for p := range r.ps {
			if r.ps[p] != ref.ps[p] {
				t.Fatalf("%d workers: particle %d is %+v, with 1 worker %+v", i+2, p, r.ps[p], ref.ps[p])
			}
		}
		for p := range r.out {
			if r.out[p] != ref.out[p] {
				t.Fatalf("%d workers: outflow %d is %+v, with 1 worker %+v", i+2, p, r.out[p], ref.out[p])
			}
		}
		for k := range r.stats {
			if r.stats[k] != ref.stats[k] {
				t.Fatalf("%d workers: step %d did %+v, with 1 worker %+v", i+2, k, r.stats[k], ref.stats[k])
			}
		}
		if r.added != ref.added || r.left != ref.left {
			t.Errorf("%d workers: accounting %v %v, 1 worker %v %v", i+2, r.added, r.left, ref.added, ref.left)
		}
	}
}

// TestSolidKeepsLiquidOut: no particle of the dam break is ever inside the sphere
// (deeper than 0.05 cell, by the sphere's exact distance), and the liquid gets past it.
func TestSolidKeepsLiquidOut(t *testing.T) {
	s, sphere := dambreak(t, 0)
	h := s.Settings().H
	deepest, beyond := 0.0, 0
	var ps []Particle
	for range 30 {
		step(t, s, 1.0/120)
		ps = s.Particles(ps[:0])
		for _, p := range ps {
			deepest = min(deepest, sphere.Dist(p.Pos))
		}
	}
	for _, p := range s.TakeOutflow(nil) {
		if p.Pos.X > 24*h {
			beyond++
		}
	}
	checkVolume(t, s)
	t.Logf("deepest inside the sphere: %.3g cells; %d particles got past it and out", -deepest/h, beyond)
	if deepest < -0.05*h {
		t.Errorf("a particle %.3g cells inside the sphere", -deepest/h)
	}
	if beyond == 0 {
		t.Error("no liquid got past the sphere")
	}
}

// TestFreeFall: a cube of water in the air falls as a body does (no pressure inside
// it): every particle's velocity is -g t to float32 rounding (gravity integrates
// exactly), the centre drops g t^2 / 2 up to the time stepping's first-order error (the
// particles move with the velocity at the substep's end: at most one substep's g t dt
// more), and the cube keeps its shape (its particles' spread unchanged to 1e-4 cell).
func TestFreeFall(t *testing.T) {
	const n, h = 16, 2e-3
	s := newSim(t, DefaultSettings(n, n, 4*n, h))
	fillBox(t, s, v3(4*h, 4*h, 48*h), v3(12*h, 12*h, 56*h), v3(0, 0, 0))
	c0, spread0 := centre(s)
	subs, dtMax := 0, 0.0
	for s.Time() < 0.08-1e-9 {
		t0 := s.Time()
		st := step(t, s, 1.0/120)
		subs += st.Substeps
		dtMax = max(dtMax, (s.Time()-t0)/float64(st.Substeps))
	}
	c1, spread1 := centre(s)
	T := s.Time()
	drop, want := c0-c1, 9.81*T*T/2
	t.Logf("dropped %.5g m in %g s (%d substeps), g t^2/2 = %.5g (%+.2f%%); spread %.6g -> %.6g cells", drop, T, subs, want, 100*(drop/want-1), spread0, spread1)
	if drop < want*(1-1e-4) || drop > want+9.81*T*dtMax {
		t.Errorf("dropped %.5g m, want %.5g to %.5g", drop, want, want+9.81*T*dtMax)
	}
	for _, p := range s.Particles(nil) {
		if math.Abs(p.Vel.Z+9.81*T) > 1e-5 || math.Abs(p.Vel.X)+math.Abs(p.Vel.Y) > 1e-5 {
			t.Fatalf("a particle moves at %v, want (0, 0, %.6g)", p.Vel, -9.81*T)
		}
	}
	if math.Abs(spread1-spread0) > 1e-4 {
		t.Errorf("the cube's spread changed from %.6g to %.6g cells", spread0, spread1)
	}
	checkVolume(t, s)
}

// centre is the particles' mean height (m) and their spread (the rms distance from
// their mean, cells).
func centre(s *Sim) (float64, float64) {
	var mx, my, mz float64
	for p := 0; p < s.np; p++ {
		mx, my, mz = mx+float64(s.px[p]), my+float64(s.py[p]), mz+float64(s.pz[p])
	}
	n := float64(s.np)
	mx, my, mz = mx/n, my/n, mz/n
	ss := 0.0
	for p := 0; p < s.np; p++ {
		dx, dy, dz := float64(s.px[p])-mx, float64(s.py[p])-my, float64(s.pz[p])-mz
		ss += dx*dx + dy*dy + dz*dz
	}
	return mz * s.h, math.Sqrt(ss / n)
}

// TestColumns: the columns' thickness adds up to the volume, and a block moving at a
// uniform speed gives it as every wet column's depth-averaged velocity.
func TestColumns(t *testing.T) {
	const h = 2e-3
	s := newSim(t, DefaultSettings(8, 6, 8, h))
	fillBox(t, s, v3(2*h, 1*h, 0), v3(5*h, 4*h, 4*h), v3(0.01, -0.02, 0))
	th := s.ColumnThickness(nil)
	u, v := s.ColumnVelocity(nil, nil)
	sum := 0.0
	for c, d := range th {
		sum += d * h * h
		i, j := c%8, c/8
		wet := i >= 2 && i < 5 && j >= 1 && j < 4
		if wet != (d > 0) || (wet && math.Abs(d-4*h) > 1e-12) {
			t.Errorf("column (%d, %d): thickness %g", i, j, d)
		}
		if wet && (math.Abs(u[c]-0.01) > 1e-9 || math.Abs(v[c]+0.02) > 1e-9) {
			t.Errorf("column (%d, %d): velocity (%g, %g), want (0.01, -0.02)", i, j, u[c], v[c])
		}
	}
	if math.Abs(sum-s.Volume()) > 1e-15 {
		t.Errorf("columns hold %.17g m^3, the particles %.17g", sum, s.Volume())
	}
}

// TestStepAllocates: a step allocates nothing once the region has its particles.
func TestStepAllocates(t *testing.T) {
	s := sloshing(t, 12, 2)
	if a := testing.AllocsPerRun(5, func() { step(t, s, 1.0/120) }); a != 0 {
		t.Errorf("%g allocations a step", a)
	}
}

// TestBadInput: settings and particles that are wrong are refused.
func TestBadInput(t *testing.T) {
	set := DefaultSettings(4, 4, 4, 1e-3)
	set.CFL = 0
	if _, err := New(set); err == nil {
		t.Error("CFL 0 accepted")
	}
	s := newSim(t, DefaultSettings(4, 4, 4, 1e-3))
	for _, p := range []Particle{
		{Pos: v3(-1e-4, 1e-3, 1e-3), Volume: 1e-9},
		{Pos: v3(1e-3, 1e-3, 1e-3), Volume: 0},
		{Pos: v3(1e-3, 1e-3, math.NaN()), Volume: 1e-9},
	} {
		if err := s.AddParticles([]Particle{p}); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if s.Count() != 0 {
		t.Errorf("%d particles after refusals", s.Count())
	}
	if err := s.Step(0); err == nil {
		t.Error("dt 0 accepted")
	}
}

// TestExtrapolateAirRows: the extrapolation's rows of air (no valid face in them or the
// four rows beside them), cleared without testing their faces, give the bits of testing
// every face: a blob let go in a box mostly of air, then splashing, stepped both ways.
func TestExtrapolateAirRows(t *testing.T) {
	const n, h = 16, 2e-3
	var states [2][]float32
	for v, full := range []bool{false, true} {
		s := newSim(t, DefaultSettings(n, n, 2*n, h))
		s.fullExtrap = full
		fillBox(t, s, v3(0.3*n*h, 0.3*n*h, 1.2*n*h), v3(0.6*n*h, 0.6*n*h, 1.5*n*h), v3(0.05, 0, -0.2))
		fillBox(t, s, v3(0, 0, 0), v3(n*h, n*h, 0.2*n*h), v3(0, 0, 0))
		for range 20 {
			step(t, s, 1.0/60)
		}
		for _, a := range [][]float32{s.px[:s.np], s.py[:s.np], s.pz[:s.np], s.vx[:s.np], s.vy[:s.np], s.vz[:s.np], s.u, s.v, s.w} {
			states[v] = append(states[v], a...)
		}
	}
	if len(states[0]) != len(states[1]) {
		t.Fatalf("%d values, with every face tested %d", len(states[0]), len(states[1]))
	}
	for i := range states[0] {
		if math.Float32bits(states[0][i]) != math.Float32bits(states[1][i]) {
			t.Fatalf("value %d: %g, with every face tested %g", i, states[0][i], states[1][i])
		}
	}
}
