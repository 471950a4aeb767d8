package liquid3d

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// The columns sides' paths beyond columns_test.go's: faces cut by the solid, outflow
// below the level, two columns sides at a corner, and a level that moves.

// setColumns sets every column of a columns side to the same level (m) and velocity.
func setColumns(t testing.TB, s *Sim, side Side, level, vel float64) {
	t.Helper()
	n := s.nx
	if side <= XMax {
		n = s.ny
	}
	lv, vv := make([]float64, n), make([]float64, n)
	for i := range lv {
		lv[i], vv[i] = level, vel
	}
	if err := s.SetSideColumns(side, lv, vv); err != nil {
		t.Fatal(err)
	}
}

// reservoirs is the inflow booked on a columns side's faces and not yet seeded, m^3.
func reservoirs(s *Sim, side Side) float64 {
	sum := 0.0
	for _, r := range s.cols[side].res {
		sum += r
	}
	return sum
}

// minSolidDist is the smallest distance to the solid of any particle (by the solid's
// own Dist, at the particle's position in the world), m.
func minSolidDist(s *Sim, solid terrain.Solid) float64 {
	d := math.Inf(1)
	for p := 0; p < s.np; p++ {
		d = min(d, solid.Dist(s.world(p)))
	}
	return d
}

// seedsOf is the particles (in the region's order) seeded by the last step's last
// substep through a -x columns side moving at vel: those still where they were seeded,
// moving at (vel, 0, 0) with no affine part.
func seedsOf(s *Sim, vel float64) []int {
	var seeds []int
next:
	for p := 0; p < s.np; p++ {
		if s.vx[p] != float32(vel) || s.vy[p] != 0 || s.vz[p] != 0 {
			continue
		}
		for c := range s.cm {
			if s.cm[c][p] != 0 {
				continue next
			}
		}
		seeds = append(seeds, p)
	}
	return seeds
}

// TestColumnsSolidFaces: the -x columns side of a 12 x 8 x 12 box of 4 mm cells (off
// the origin), half full, cut by a solid: a half-space whose surface rises across the
// side, z = 1.3 + 0.37 y (cells), and a block over y > 4.5, z < 6.4 (cells) reaching 2.6
// cells into the box; the bottom faces wholly closed, those the surfaces cross partly,
// the rest open. The columns at 9.6 cells move in at 0.05 m/s for 0.4 s in steps of one
// substep each, so that the particles a step seeds have not moved when it ends. Each face
// books velocity x H^2 x open share x liquid share x dt: what is seeded plus what waits
// in the reservoirs is that sum (with the region's open shares) to 1e-9, and within 3%
// of it with the shares of the exact geometry; what is seeded alone is within 5% (a
// reservoir keeps less than a particle); the volume is booked exactly after every step;
// no seeded particle starts inside the solid by its own Dist; and the wholly closed
// faces seed nothing and keep nothing.
func TestColumnsSolidFaces(t *testing.T) {
	const nx, ny, nz, h = 12, 8, 12, 4e-3
	const z0, slope, lvl, vel = 1.3, 0.37, 9.6, 0.05
	const by, bz, bx = 4.5, 6.4, 2.6 // the block's edges, cells
	origin := v3(0.5, -0.25, 0.125)
	plane, err := terrain.Plane(origin.Add(v3(0, 0, z0*h)), v3(0, -slope, 1))
	if err != nil {
		t.Fatal(err)
	}
	block, err := terrain.Box(origin.Add(v3(-h, by*h, -h)), origin.Add(v3(bx*h, (ny+1)*h, bz*h)))
	if err != nil {
		t.Fatal(err)
	}
	solid, err := terrain.Union(plane, block)
	if err != nil {
		t.Fatal(err)
	}
	set := DefaultSettings(nx, ny, nz, h)
	set.Origin = origin
	set.Solid = solid
	set.Sides[XMin] = Columns
	s := newSim(t, set)
	fillBox(t, s, origin, origin.Add(v3(nx*h, ny*h, 6*h)), v3(0, 0, 0))
	setColumns(t, s, XMin, origin.Z+lvl*h, vel)

	// The open share of face (j, k) of the side: the share of its square outside the
	// solid, by the midpoint rule over 512 x 512 points.
	open := func(j, k int) float64 {
		const n = 512
		in := 0
		for a := 0; a < n; a++ {
			y := float64(j) + (float64(a)+0.5)/n
			for b := 0; b < n; b++ {
				z := float64(k) + (float64(b)+0.5)/n
				if z > z0+slope*y && !(y > by && z < bz) {
					in++
				}
			}
		}
		return float64(in) / (n * n)
	}
	rate, exact := 0.0, 0.0 // m^3/s, with the region's open shares and the exact ones
	closed, partial := 0, 0
	for k := 0; k < nz; k++ {
		share := min(max(lvl-float64(k), 0), 1)
		for j := 0; j < ny; j++ {
			a := open(j, k)
			switch {
			case a == 0:
				closed++
			case a < 1:
				partial++
			}
			if float64(k) < lvl { // a wet face: liquid beyond it
				rate += vel * h * h * float64(s.au[s.uIndex(0, j, k)]) * share
				exact += vel * h * h * a * share
			}
		}
	}
	if closed == 0 || partial == 0 {
		t.Fatalf("%d faces closed and %d partly: the scene does not cut the side", closed, partial)
	}

	dmin, nseeds := math.Inf(1), 0
	for s.Time() < 0.4-1e-9 {
		st := step(t, s, 1.0/300)
		checkInflowVolume(t, s)
		if st.Substeps != 1 {
			t.Fatalf("%.3g s: a step of %d substeps (the check of the seeds needs one)", s.Time(), st.Substeps)
		}
		seeds := seedsOf(s, vel)
		if len(seeds) != st.Seeded {
			t.Fatalf("%.3g s: %d particles as seeded, the step seeded %d", s.Time(), len(seeds), st.Seeded)
		}
		for _, p := range seeds {
			if d := solid.Dist(s.world(p)); d < dmin {
				dmin = d
			}
		}
		nseeds += len(seeds)
	}
	in, res := s.Inflow(), reservoirs(s, XMin)
	c := s.cols[XMin]
	seededClosed, stuck := 0, 0
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			f := j + c.n*k
			if s.au[s.uIndex(0, j, k)] == 0 && (c.cnt[f] != 0 || c.res[f] != 0) {
				seededClosed++
			}
			if c.res[f] >= h*h*h/8 {
				stuck++
				t.Logf("face (%d, %d), open share %.3f (exact %.3f): %.3g particles wait in its reservoir", j, k, s.au[s.uIndex(0, j, k)], open(j, k), c.res[f]/(h*h*h/8))
			}
		}
	}
	want := rate * s.Time()
	t.Logf("%.3g s: %d faces closed, %d partly; inflow %.6g m^3 (%d particles) + reservoirs %.4g = %.10g, want %.10g (%+.2g), exact geometry %.6g (%+.3g); inflow alone %+.3g; the seeds' least distance to the solid %.3g cell",
		s.Time(), closed, partial, in, nseeds, res, in+res, want, (in+res)/want-1, exact*s.Time(), (in+res)/(exact*s.Time())-1, in/want-1, dmin/h)
	if math.Abs((in+res)/want-1) > 1e-9 {
		t.Errorf("inflow %.10g + reservoirs %.10g = %.10g m^3, want velocity x H^2 x open x liquid share x time = %.10g", in, res, in+res, want)
	}
	if math.Abs((in+res)/(exact*s.Time())-1) > 0.03 {
		t.Errorf("inflow %.6g + reservoirs %.6g m^3, want %.6g (the exact open shares) within 3%%", in, res, exact*s.Time())
	}
	if math.Abs(in/want-1) > 0.05 || stuck > 0 {
		t.Errorf("inflow %.6g m^3, want %.6g within 5%%; %d faces keep a particle or more", in, want, stuck)
	}
	if nseeds != int(math.Round(in/(h*h*h/8))) {
		t.Errorf("%d particles seeded, the inflow is %.6g of them", nseeds, in/(h*h*h/8))
	}
	if dmin <= 0 {
		t.Errorf("a particle seeded %.3g cell inside the solid", -dmin/h)
	}
	if seededClosed != 0 {
		t.Errorf("%d wholly closed faces seeded or booked inflow", seededClosed)
	}
}

// TestColumnsClosedSide: a -x columns side wholly closed by a box (its faces' corners
// all inside it) seeds nothing though its columns stand at 3/4 of the height moving in:
// the inflow stays 0 and the pool keeps its volume.
func TestColumnsClosedSide(t *testing.T) {
	const nx, ny, nz, h = 12, 8, 12, 4e-3
	wall, err := terrain.Box(v3(-h, -h, -h), v3(0.1*h, (ny+1)*h, (nz+1)*h))
	if err != nil {
		t.Fatal(err)
	}
	set := DefaultSettings(nx, ny, nz, h)
	set.Solid = wall
	set.Sides[XMin] = Columns
	s := newSim(t, set)
	fillBox(t, s, v3(0, 0, 0), v3(nx*h, ny*h, nz*h/2), v3(0, 0, 0))
	setColumns(t, s, XMin, 9*h, 0.05)
	v0 := s.Volume()
	seeded := 0
	for s.Time() < 0.2-1e-9 {
		seeded += step(t, s, 1.0/60).Seeded
		checkInflowVolume(t, s)
	}
	t.Logf("%.3g s: inflow %g, %d seeded, volume %.6g (was %.6g), least distance to the box %.3g cell",
		s.Time(), s.Inflow(), seeded, s.Volume(), v0, minSolidDist(s, wall)/h)
	if s.Inflow() != 0 || seeded != 0 || reservoirs(s, XMin) != 0 {
		t.Errorf("inflow %g (%d particles, reservoirs %g) through a side the solid closes", s.Inflow(), seeded, reservoirs(s, XMin))
	}
	if s.Volume() != v0 {
		t.Errorf("volume %.17g, was %.17g", s.Volume(), v0)
	}
}

// TestColumnsOutflowBelowLevel: columnsBox's -x columns at the pool's level (6 cells)
// moving out of the region at 0.05 m/s for 0.3 s: the liquid leaves through the side's
// wet faces (the records' volumes sum to the out total, the volume booked exactly after
// every step), nothing is seeded, and the pool's surface falls by about what left over
// its area.
func TestColumnsOutflowBelowLevel(t *testing.T) {
	const h, level, vel = 4e-3, 6 * 4e-3, -0.05
	s := columnsBox(t, 0, level, vel)
	area := 12 * 8 * h * h
	top0 := meanTop(s)
	seeded := 0
	var recs []Particle
	for s.Time() < 0.3-1e-9 {
		seeded += step(t, s, 1.0/60).Seeded
		checkInflowVolume(t, s)
		recs = s.TakeOutflow(recs)
	}
	added, out := s.Accounting()
	sum := 0.0
	for _, p := range recs {
		sum += p.Volume
	}
	want := -vel * (8 * h) * level * s.Time()
	top1 := meanTop(s)
	t.Logf("%.3g s: %d particles out, %.6g m^3 (records %.6g; velocity x wet area x time %.6g, %+.3g); the surface %.3f -> %.3f mm (out over the area %.3f mm); max speed %.3g m/s",
		s.Time(), len(recs), out, sum, want, out/want-1, top0*1e3, top1*1e3, out/area*1e3, s.MaxSpeed())
	if len(recs) == 0 || !(out > 0) {
		t.Fatal("nothing left through the columns side")
	}
	if math.Abs(sum-out) > 1e-12*added {
		t.Errorf("the outflow's records sum to %.17g, the accounting says %.17g", sum, out)
	}
	for _, p := range recs {
		if p.Pos.X >= 0 || p.Vel.X >= 0 {
			t.Fatalf("a record at %v moving %v: not out through the -x side", p.Pos, p.Vel)
		}
	}
	if s.Inflow() != 0 || seeded != 0 {
		t.Errorf("inflow %g (%d particles seeded) with the columns moving out", s.Inflow(), seeded)
	}
	if math.Abs(out/want-1) > 0.25 {
		t.Errorf("out %.6g m^3, want velocity x wet area x time %.6g within 25%%", out, want)
	}
	if drop := top0 - top1; drop < 0.5*out/area {
		t.Errorf("the surface fell %.3f mm, want at least half of out over the area, %.3f mm", drop*1e3, 0.5*out/area*1e3)
	}
}

// meanTop is the mean over the columns of the region of their top particles' height, m.
func meanTop(s *Sim) float64 {
	sum := 0.0
	top := surfaceTops(s)
	for _, z := range top {
		sum += z
	}
	return sum / float64(len(top))
}

// cornerRun: columnsBox's sides -x and -y both columns at 3/4 of the height moving in at
// 0.05 m/s for 0.3 s, checking after every step that the volume is booked exactly and
// no particle lies outside the box.
func cornerRun(t testing.TB, workers int) *Sim {
	const nx, ny, nz, h = 12, 8, 12, 4e-3
	set := DefaultSettings(nx, ny, nz, h)
	set.Sides[XMin] = Columns
	set.Sides[YMin] = Columns
	set.Workers = workers
	s := newSim(t, set)
	fillBox(t, s, v3(0, 0, 0), v3(nx*h, ny*h, nz*h/2), v3(0, 0, 0))
	setColumns(t, s, XMin, 9*h, 0.05)
	setColumns(t, s, YMin, 9*h, 0.05)
	for s.Time() < 0.3-1e-9 {
		step(t, s, 1.0/60)
		checkInflowVolume(t, s)
		for _, p := range s.Particles(nil) {
			if !(p.Pos.X >= 0 && p.Pos.X < nx*h && p.Pos.Y >= 0 && p.Pos.Y < ny*h && p.Pos.Z >= 0 && p.Pos.Z < nz*h) {
				t.Fatalf("%.3g s: a particle at %v, outside the box", s.Time(), p.Pos)
			}
		}
	}
	return s
}

// TestColumnsCorner: two columns sides meeting at a corner (-x and -y), both flowing in:
// the volume booked exactly after every step, no particle outside the box, the inflow
// velocity x wet area x time (both sides) within 5%, and the same particles, inflow and
// accounting bit for bit with 1, 2 and 3 workers (the solves split too).
func TestColumnsCorner(t *testing.T) {
	defer func(n int) { solveSplit = n }(solveSplit)
	solveSplit = 0
	const h = 4e-3
	var ref *Sim
	var refPs []Particle
	for _, workers := range []int{1, 2, 3} {
		s := cornerRun(t, workers)
		ps := s.Particles(nil)
		if workers == 1 {
			ref, refPs = s, ps
			want := 0.05 * (8*h + 12*h) * (9 * h) * s.Time()
			_, out := s.Accounting()
			t.Logf("%.3g s: inflow %.6g m^3, want %.6g (%+.3g); out %g; %d particles",
				s.Time(), s.Inflow(), want, s.Inflow()/want-1, out, len(ps))
			if math.Abs(s.Inflow()/want-1) > 0.05 {
				t.Errorf("inflow %.6g m^3, want %.6g within 5%%", s.Inflow(), want)
			}
			continue
		}
		sameParticles(t, workers, ps, refPs)
		added, out := s.Accounting()
		ra, ro := ref.Accounting()
		if s.Inflow() != ref.Inflow() || added != ra || out != ro {
			t.Errorf("%d workers: inflow %v, accounting %v %v; 1 worker %v, %v %v", workers, s.Inflow(), added, out, ref.Inflow(), ra, ro)
		}
	}
}

// TestColumnsMovingLevel: columnsBox's -x columns moving in at 0.05 m/s with their level
// moved between steps: 6 cells (the pool's surface), raised to 9, lowered to 7.3, to 3,
// then below the floor, 0.1 s each. After every SetSideColumns the faces whose span holds
// liquid beyond them (their bottom below the level) are the wet ones, and after every
// step they hold the columns' velocity;
// the inflow seeded plus what waits in the reservoirs is velocity x H^2 x the wet faces'
// liquid shares x time over each stretch (to 1e-9); the volume is booked exactly after
// every step; nothing leaves while the level stands above the pool (9 and 7.3 cells),
// and the liquid pours out over the faces the level leaves dry once it falls below the
// pool's surface (3 cells, below the floor). (At 6 cells some spills back out over the
// dry faces above: the inflow raises the pool beside the side above the level.)
func TestColumnsMovingLevel(t *testing.T) {
	const h, vel = 4e-3, 0.05
	s := columnsBox(t, 0, 6*h, vel)
	c := s.cols[XMin]
	booked := 0.0 // velocity x H^2 x liquid share x time over the wet faces
	for _, lvl := range []float64{6, 9, 7.3, 3, -1} {
		setColumns(t, s, XMin, lvl*h, vel)
		rate, wet := 0.0, 0
		for k := 0; k < s.nz; k++ {
			for j := 0; j < s.ny; j++ {
				want := float64(k) < lvl
				if c.wet[j+c.n*k] != want {
					t.Fatalf("level %g cells: face (%d, %d) wet %v", lvl, j, k, c.wet[j+c.n*k])
				}
				if want {
					rate += vel * h * h * min(lvl-float64(k), 1)
					wet++
				}
			}
		}
		_, out0 := s.Accounting()
		t0 := s.Time()
		for s.Time() < t0+0.1-1e-9 {
			step(t, s, 1.0/60)
			checkInflowVolume(t, s)
			for k := 0; k < s.nz; k++ {
				for j := 0; j < s.ny; j++ {
					if c.wet[j+c.n*k] && s.u[s.uIndex(0, j, k)] != float32(vel) {
						t.Fatalf("level %g cells, %.3g s: wet face (%d, %d) moves at %g, not the columns' %g", lvl, s.Time(), j, k, s.u[s.uIndex(0, j, k)], vel)
					}
				}
			}
		}
		booked += rate * (s.Time() - t0)
		in, res := s.Inflow(), reservoirs(s, XMin)
		_, out := s.Accounting()
		t.Logf("level %4.1f cells, %d faces wet, to %.3g s: inflow %.6g + reservoirs %.3g = %.10g, booked %.10g (%+.2g); out this stretch %.4g m^3; max speed %.3g m/s",
			lvl, wet, s.Time(), in, res, in+res, booked, (in+res)/booked-1, out-out0, s.MaxSpeed())
		if math.Abs((in+res)/booked-1) > 1e-9 {
			t.Errorf("level %g cells: inflow %.10g + reservoirs %.10g, booked %.10g", lvl, in, res, booked)
		}
		switch {
		case lvl > 6 && out != out0:
			t.Errorf("level %g cells (at or above the pool): %.4g m^3 left", lvl, out-out0)
		case lvl < 6 && !(out > out0):
			t.Errorf("level %g cells (below the pool): nothing left over the dry faces", lvl)
		}
	}
}

// TestColumnsMovingLevelRest: the pool of columnsBox at rest, its -x columns still. The
// columns raised to 9 cells and moved to the pool's surface (6 cells) before a step:
// after 0.5 s the fastest particle is under 1 mm/s (nothing of the raised level is
// left). Then raised to 8 cells for one step (1/60 s) and lowered back to the surface:
// the columns' liquid above the pool, counted in the side's cells' liquid fraction,
// kicks the pool (the wet faces hold it as a wall, but the surface beside the side reads
// higher), and 0.5 s after the level is back the fastest particle is under 3 mm/s. The
// volume is unchanged throughout and nothing flows in.
func TestColumnsMovingLevelRest(t *testing.T) {
	const h = 4e-3
	s := columnsBox(t, 0, 9*h, 0)
	v0 := s.Volume()
	setColumns(t, s, XMin, 6*h, 0)
	for s.Time() < 0.5-1e-9 {
		step(t, s, 1.0/60)
		checkInflowVolume(t, s)
	}
	moved := s.MaxSpeed()
	setColumns(t, s, XMin, 8*h, 0)
	step(t, s, 1.0/60)
	raised := s.MaxSpeed()
	setColumns(t, s, XMin, 6*h, 0)
	t0 := s.Time()
	for s.Time() < t0+0.5-1e-9 {
		step(t, s, 1.0/60)
		checkInflowVolume(t, s)
	}
	speed := s.MaxSpeed()
	t.Logf("moved from 9 cells to the surface: max speed after 0.5 s %.3g m/s; raised to 8 cells for a step: %.3g m/s; lowered back, 0.5 s later: %.3g m/s; volume %.17g (was %.17g), inflow %g",
		moved, raised, speed, s.Volume(), v0, s.Inflow())
	if moved >= 1e-3 {
		t.Errorf("max speed %.3g m/s with the level moved to the surface, want < 1 mm/s", moved)
	}
	if speed >= 3e-3 {
		t.Errorf("max speed %.3g m/s 0.5 s after the level came back to the surface, want < 3 mm/s", speed)
	}
	if s.Volume() != v0 || s.Inflow() != 0 {
		t.Errorf("volume %.17g (was %.17g), inflow %g", s.Volume(), v0, s.Inflow())
	}
}
