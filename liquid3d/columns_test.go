package liquid3d

import (
	"math"
	"strings"
	"testing"
)

// columnsBox is a 12 x 8 x 12 box of 4 mm cells filled to half its height, at rest,
// its -x side columns at the given level (m) moving at vel (m/s, into the box), its
// other sides walls.
func columnsBox(t testing.TB, workers int, level, vel float64) *Sim {
	t.Helper()
	const nx, ny, nz, h = 12, 8, 12, 4e-3
	set := DefaultSettings(nx, ny, nz, h)
	set.Sides[XMin] = Columns
	set.Workers = workers
	s := newSim(t, set)
	fillBox(t, s, v3(0, 0, 0), v3(nx*h, ny*h, nz*h/2), v3(0, 0, 0))
	lv, vv := make([]float64, ny), make([]float64, ny)
	for j := range lv {
		lv[j], vv[j] = level, vel
	}
	if err := s.SetSideColumns(XMin, lv, vv); err != nil {
		t.Fatal(err)
	}
	return s
}

// checkInflowVolume: the particles' volume is what was added plus what flowed in less
// what left, to 1e-12.
func checkInflowVolume(t testing.TB, s *Sim) {
	t.Helper()
	added, out := s.Accounting()
	in := s.Inflow()
	if d := math.Abs(s.Volume() + out - added - in); d > 1e-12*(added+in) {
		t.Errorf("volume %.17g + out %.17g - added %.17g - in %.17g = %.3g (relative %.3g)", s.Volume(), out, added, in, d, d/(added+in))
	}
}

// centroidX is the liquid's volume-weighted mean x, m.
func centroidX(s *Sim) float64 {
	m, v := 0.0, 0.0
	for p := 0; p < s.np; p++ {
		m += s.vol[p] * float64(s.px[p])
		v += s.vol[p]
	}
	return m / v * s.h
}

// TestColumnsRest: the box half full with columns beyond its -x side at the liquid's
// own level, at rest: the columns hold the liquid as a wall would, for 1 s (the fastest
// particle under 2 mm/s, the volume unchanged, nothing flows in), and a step allocates
// nothing.
func TestColumnsRest(t *testing.T) {
	s := columnsBox(t, 0, 6*4e-3, 0)
	v0 := s.Volume()
	for s.Time() < 1-1e-9 {
		step(t, s, 1.0/60)
		checkInflowVolume(t, s)
	}
	speed := s.MaxSpeed()
	t.Logf("1 s: max speed %.3g m/s, volume %.17g (was %.17g), inflow %g", speed, s.Volume(), v0, s.Inflow())
	if speed >= 2e-3 {
		t.Errorf("max speed %.3g m/s, want < 2 mm/s", speed)
	}
	if d := math.Abs(s.Volume() - v0); d > 1e-12*v0 {
		t.Errorf("volume %.17g, was %.17g", s.Volume(), v0)
	}
	if s.Inflow() != 0 {
		t.Errorf("inflow %g at rest", s.Inflow())
	}
	if a := testing.AllocsPerRun(5, func() { step(t, s, 1.0/120) }); a != 0 {
		t.Errorf("%g allocations a step", a)
	}
}

// TestColumnsRestLevels: a pool at rest whose surface lies anywhere in a layer, with
// columns beyond its four sides at its level, stays at rest: after 1 s the fastest
// particle is under 1 mm/s. The pool is laid in half-cell layers of particles, the last
// as thick as what is left (its particles' volumes cut to it). The face whose span holds
// the level is a wet one (prescribed, a wall at rest): were it open (air beyond, as when
// only faces whose centres lie below the level were wet), a level in a layer's lower
// half would drain the surface cell beside it sideways (the pressure that holds the
// surface layer up against gravity, p = 0 a hundredth of a cell beyond, leaks through
// it: 4.3 and 1.1 cm/s after 1 s at 5.3 and 5.5 cells).
func TestColumnsRestLevels(t *testing.T) {
	const nx, ny, nz, h = 12, 8, 12, 4e-3
	for _, lvl := range []float64{5.3, 5.5, 5.8, 6} {
		set := DefaultSettings(nx, ny, nz, h)
		for side := XMin; side <= YMax; side++ {
			set.Sides[side] = Columns
		}
		s := newSim(t, set)
		d := lvl * h
		n := int(math.Floor(d / (h / 2)))
		rest := d - float64(n)*h/2
		var ps []Particle
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				for o := range 4 {
					x, y := (float64(i)+0.25+0.5*float64(o&1))*h, (float64(j)+0.25+0.5*float64(o>>1))*h
					for m := range n {
						ps = append(ps, Particle{Pos: v3(x, y, (float64(m)+0.5)*h/2), Volume: h * h * h / 8})
					}
					if rest > 0 {
						ps = append(ps, Particle{Pos: v3(x, y, float64(n)*h/2+rest/2), Volume: rest * h * h / 4})
					}
				}
			}
		}
		if err := s.AddParticles(ps); err != nil {
			t.Fatal(err)
		}
		for side := XMin; side <= YMax; side++ {
			setColumns(t, s, side, d, 0)
		}
		for s.Time() < 1-1e-9 {
			step(t, s, 1.0/60)
			checkInflowVolume(t, s)
		}
		t.Logf("level %.1f cells: after 1 s the fastest particle %.3g m/s, inflow %g", lvl, s.MaxSpeed(), s.Inflow())
		if sp := s.MaxSpeed(); sp >= 1e-3 {
			t.Errorf("level %.1f cells: the fastest particle %.3g m/s after 1 s, want under 1 mm/s", lvl, sp)
		}
	}
}

// inflowRun steps columnsBox with the -x columns at 3/4 of the height moving in at
// 0.05 m/s for 0.3 s, checking the volume after every step.
func inflowRun(t testing.TB, workers int) *Sim {
	s := columnsBox(t, workers, 9*4e-3, 0.05)
	for s.Time() < 0.3-1e-9 {
		step(t, s, 1.0/60)
		checkInflowVolume(t, s)
	}
	return s
}

// TestColumnsInflow: columns at 3/4 of the height flowing in at 0.05 m/s for 0.3 s: the
// volume booked exactly (after every step), the inflow within 10% of velocity x wet
// area x time (the reservoirs keep less than a particle a face), and the liquid pushed
// towards +x.
func TestColumnsInflow(t *testing.T) {
	const h, level = 4e-3, 9 * 4e-3
	s0 := columnsBox(t, 1, level, 0.05)
	x0 := centroidX(s0)
	s := inflowRun(t, 0)
	want := 0.05 * (8 * h) * level * s.Time()
	in := s.Inflow()
	_, out := s.Accounting()
	x1 := centroidX(s)
	t.Logf("%.3g s: inflow %.6g m^3 (%d particles), want %.6g (%+.3g relative); out %g; centroid x %.4g -> %.4g mm; max speed %.3g m/s",
		s.Time(), in, int(math.Round(in/(h*h*h/8))), want, in/want-1, out, x0*1e3, x1*1e3, s.MaxSpeed())
	if !(in > 0) || math.Abs(in/want-1) > 0.10 {
		t.Errorf("inflow %.6g m^3, want %.6g within 10%%", in, want)
	}
	if x1 <= x0 {
		t.Errorf("the liquid's centroid went from %.4g to %.4g mm: not towards +x", x0*1e3, x1*1e3)
	}
}

// TestColumnsSideInflow: the columns' side of the inflow (the coupling's): each step,
// what TakeSideInflow hands out sums, over the side's columns, to Inflow's growth (to
// 1e-13 of Inflow: the two are summed in different orders), the columns, moving in
// alike, give alike (within a particle a face), and what the side took plus what its
// reservoirs hold (SidePending) is velocity x SideWetArea x time to 1e-12: the
// reservoirs' booking. A side that is not columns is refused.
func TestColumnsSideInflow(t *testing.T) {
	const h, level, vel = 4e-3, 9 * 4e-3, 0.05
	s := columnsBox(t, 0, level, vel)
	lv := make([]float64, 8)
	for j := range lv {
		lv[j] = level
	}
	area, err := s.SideWetArea(XMin, lv, nil)
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, a := range area {
		if math.Abs(a-level*h) > 1e-15 {
			t.Errorf("wet area %g m^2 a column, want %g", a, level*h)
		}
		total += a
	}
	var took []float64
	sum := make([]float64, 8)
	for s.Time() < 0.2-1e-9 {
		in0 := s.Inflow()
		step(t, s, 1.0/60)
		took, err = s.TakeSideInflow(XMin, took)
		if err != nil {
			t.Fatal(err)
		}
		d := 0.0
		for j, v := range took {
			d += v
			sum[j] += v
		}
		if got := s.Inflow() - in0; math.Abs(d-got) > 1e-13*s.Inflow() {
			t.Errorf("%.3g s: the columns gave %.17g, the inflow grew by %.17g", s.Time(), d, got)
		}
	}
	pend, err := s.SidePending(XMin, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := 0.0
	for j := range sum {
		all += sum[j] + pend[j]
		if math.Abs(sum[j]-sum[0]) > h*h*h/8*float64(s.Settings().NZ)+1e-18 {
			t.Errorf("column %d gave %g, column 0 %g", j, sum[j], sum[0])
		}
	}
	want := vel * total * s.Time()
	t.Logf("%.3g s: the columns gave %.6g m^3, pending %.3g, velocity x area x time %.6g (%+.2g)", s.Time(), s.Inflow(), all-s.Inflow(), want, all/want-1)
	if math.Abs(all/want-1) > 1e-12 {
		t.Errorf("taken plus pending %.17g, velocity x area x time %.17g", all, want)
	}
	for _, side := range []Side{XMax, ZMin, Side(7)} {
		if _, err := s.TakeSideInflow(side, nil); err == nil {
			t.Errorf("TakeSideInflow(%v) accepted", side)
		}
		if _, err := s.SidePending(side, nil); err == nil {
			t.Errorf("SidePending(%v) accepted", side)
		}
		if _, err := s.SideWetArea(side, lv, nil); err == nil {
			t.Errorf("SideWetArea(%v) accepted", side)
		}
	}
	if _, err := s.SideWetArea(XMin, lv[:3], nil); err == nil || !strings.Contains(err.Error(), "want 8") {
		t.Errorf("SideWetArea with 3 levels: %v", err)
	}
}

// TestColumnsOutflow: a dam break out through a columns side whose levels lie below the
// floor is the dam break out through an open side, bit for bit (the particles, the
// outflow's records, the accounting), and the records' volumes sum to the out total.
func TestColumnsOutflow(t *testing.T) {
	open, _ := dambreak(t, 1)
	set := open.Settings()
	set.Sides[XMax] = Columns
	s := newSim(t, set)
	fillBox(t, s, v3(0, 0, 0), v3(8*set.H, 12*set.H, 12*set.H), v3(0.3, 0, 0))
	lv, vv := make([]float64, set.NY), make([]float64, set.NY)
	for j := range lv {
		lv[j], vv[j] = -1, 0.2 // the velocity does nothing above the level
	}
	if err := s.SetSideColumns(XMax, lv, vv); err != nil {
		t.Fatal(err)
	}
	for range 24 {
		step(t, open, 1.0/120)
		step(t, s, 1.0/120)
		checkInflowVolume(t, s)
	}
	recs := s.TakeOutflow(nil)
	added, out := s.Accounting()
	sum := 0.0
	for _, p := range recs {
		sum += p.Volume
	}
	t.Logf("0.2 s: %d particles left (%.4g of %.4g m^3; the records' sum %.4g)", len(recs), out, added, sum)
	if len(recs) == 0 {
		t.Fatal("no particle left through the columns side")
	}
	if math.Abs(sum-out) > 1e-12*added {
		t.Errorf("the outflow's records sum to %.17g, the accounting says %.17g", sum, out)
	}
	if s.Inflow() != 0 {
		t.Errorf("inflow %g through a side whose columns lie below the floor", s.Inflow())
	}
	ref := open.TakeOutflow(nil)
	ps, rps := s.Particles(nil), open.Particles(nil)
	if len(ps) != len(rps) || len(recs) != len(ref) {
		t.Fatalf("columns side: %d particles, %d out; open side: %d, %d", len(ps), len(recs), len(rps), len(ref))
	}
	for p := range ps {
		if ps[p] != rps[p] {
			t.Fatalf("particle %d is %+v, through an open side %+v", p, ps[p], rps[p])
		}
	}
	for p := range recs {
		if recs[p] != ref[p] {
			t.Fatalf("outflow %d is %+v, through an open side %+v", p, recs[p], ref[p])
		}
	}
}

// TestColumnsWorkersSameBits: the inflow run gives the same particles, inflow and
// accounting bit for bit with 1, 2 and 3 workers (the solves split too).
func TestColumnsWorkersSameBits(t *testing.T) {
	defer func(n int) { solveSplit = n }(solveSplit)
	solveSplit = 0
	var ref []Particle
	var refIn, refAdded, refOut float64
	for _, workers := range []int{1, 2, 3} {
		s := inflowRun(t, workers)
		ps := s.Particles(nil)
		added, out := s.Accounting()
		if workers == 1 {
			ref, refIn, refAdded, refOut = ps, s.Inflow(), added, out
			continue
		}
		sameParticles(t, workers, ps, ref)
		if s.Inflow() != refIn || added != refAdded || out != refOut {
			t.Errorf("%d workers: inflow %v, accounting %v %v; 1 worker %v, %v %v", workers, s.Inflow(), added, out, refIn, refAdded, refOut)
		}
	}
}

// TestColumnsBadInput: columns on the floor or the lid, and columns' values that are
// wrong, are refused.
func TestColumnsBadInput(t *testing.T) {
	for _, side := range []Side{ZMin, ZMax} {
		set := DefaultSettings(4, 4, 4, 1e-3)
		set.Sides[side] = Columns
		if err := set.Validate(); err == nil || !strings.Contains(err.Error(), "columns") {
			t.Errorf("columns on %v: %v", side, err)
		}
		if _, err := New(set); err == nil {
			t.Errorf("columns on %v accepted by New", side)
		}
	}
	set := DefaultSettings(4, 3, 4, 1e-3)
	set.Sides[XMin] = Columns
	set.Sides[YMax] = Columns
	set.Sides[XMax] = Open
	s := newSim(t, set)
	three, four := []float64{0, 0, 0}, []float64{0, 0, 0, 0}
	if err := s.SetSideColumns(XMin, three, three); err != nil {
		t.Errorf("-x, 3 columns: %v", err)
	}
	if err := s.SetSideColumns(YMax, four, four); err != nil {
		t.Errorf("+y, 4 columns: %v", err)
	}
	for _, c := range []struct {
		side         Side
		level, vel   []float64
		wantInErrors string
	}{
		{XMax, three, three, "open, not columns"},
		{YMin, four, four, "wall, not columns"},
		{ZMin, four, four, "not columns"},
		{Side(9), three, three, "not a side"},
		{XMin, four, four, "want 3"},
		{XMin, three, four, "want 3"},
		{YMax, three, three, "want 4"},
		{XMin, []float64{0, math.NaN(), 0}, three, "level 1"},
		{XMin, three, []float64{0, 0, math.Inf(1)}, "velocity 2"},
		{YMax, []float64{0, 0, 0, math.Inf(-1)}, four, "level 3"},
	} {
		err := s.SetSideColumns(c.side, c.level, c.vel)
		if err == nil || !strings.Contains(err.Error(), c.wantInErrors) {
			t.Errorf("SetSideColumns(%v, %v, %v): %v, want an error with %q", c.side, c.level, c.vel, err, c.wantInErrors)
		}
	}
	if Columns.String() != "columns" {
		t.Errorf("Columns is %q", Columns.String())
	}
}

// sameParticles fails t unless ps, made with workers workers, are ref, made with one, bit
// for bit.
func sameParticles(t *testing.T, workers int, ps, ref []Particle) {
	t.Helper()
	if len(ps) != len(ref) {
		t.Fatalf("%d workers: %d particles, 1 worker %d", workers, len(ps), len(ref))
	}
	for p := range ps {
		if ps[p] != ref[p] {
			t.Fatalf("%d workers: particle %d is %+v, with 1 worker %+v", workers, p, ps[p], ref[p])
		}
	}
}
