package gpusim

// Open sides (Settings.Sides, docs/method.md "Open sides"): the border columns of an open
// side drain out of the domain each step, booked as outflow.

import (
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// sidesFloor is a flat single-layer floor at 1 mm.
func sidesFloor(t testing.TB, nx, ny int) *terrain.Columns {
	return layeredScene(t, nx, ny, 0.0005, 0.03, 1, func(float64, float64) float64 { return 0.001 }, nil)
}

// levelPool sets every column of sim to depth d (a level pool at rest).
func levelPool(t testing.TB, sim *Sim, d float32) {
	t.Helper()
	c := sim.Columns()
	h := make([]float32, c.NumColumns())
	for i := range h {
		h[i] = min(c.Base[i]+d, c.Max[i])
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
}

// checkBalance requires Volume = Added - Removed - Outflow to 1e-12 of what was added.
func checkBalance(t testing.TB, sim *Sim, what string) Stats {
	t.Helper()
	sim.Sync()
	st := sim.Stats()
	if err := math.Abs(st.Volume - (st.Added - st.Removed - st.Outflow)); err > 1e-12*st.Added {
		t.Fatalf("%s: volume %.17g, added %.17g - removed %.17g - outflow %.17g: off by %g (%.2g relative)",
			what, st.Volume, st.Added, st.Removed, st.Outflow, err, err/st.Added)
	}
	return st
}

// TestSidesOpenDrains: a pool against the open -x side drains through it, the outflow
// booked is the volume lost, and the first step takes exactly the drain arithmetic's
// volume from the -x border (the pool is level and at rest: no pipe moves anything).
func TestSidesOpenDrains(t *testing.T) {
	t.Parallel()
	for _, cs := range []CrossSection{CrossPaper, CrossFilm} {
		st := settings(0.003, 4e-6, 2)
		st.CrossSection = cs
		st.Sides[SideMinusX] = SideOpen
		sim := newSim(t, sidesFloor(t, 24, 12), st)
		levelPool(t, sim, 0.004)
		c := sim.Columns()
		var before Snapshot
		sim.Snapshot(&before)
		sim.Step(1)
		var after Snapshot
		sim.Snapshot(&after)
		want := 0.0
		for i := range after.Height {
			x := i % c.Nx
			d := float64(before.Height[i]) - float64(c.Base[i])
			h := before.Height[i]
			if x == 0 {
				v := (d - drainOf(math.Sqrt(st.Gravity)*st.Dt/(2*c.Dx), d)) * c.Dx * c.Dx
				want += v
				h = float32(float64(before.Height[i]) - v/(c.Dx*c.Dx))
			}
			if after.Height[i] != h {
				t.Fatalf("%v: column %d (x %d) after one step: h = %.9g, want %.9g", cs, i, x, after.Height[i], h)
			}
		}
		if after.Outflow != want {
			t.Fatalf("%v: first step booked outflow %.17g, want %.17g", cs, after.Outflow, want)
		}
		v0 := sim.Volume()
		sim.Step(400)
		s := checkBalance(t, sim, cs.String())
		if lost := v0 - s.Volume; lost <= 0.2*v0 || s.Outflow <= want {
			t.Fatalf("%v: the pool did not drain: %.3g of %.3g m^3 lost, outflow %.3g", cs, lost, v0, s.Outflow)
		}
		if s.Removed != 0 {
			t.Fatalf("%v: removed %g: the drains book outflow, not removed", cs, s.Removed)
		}
	}
}

// TestSidesWallsHold: with walls nothing leaves, and opening a side and closing it again
// mid-run (Sim.Set) stops the outflow.
func TestSidesWallsHold(t *testing.T) {
	t.Parallel()
	st := settings(0.003, 4e-6, 2)
	sim := newSim(t, sidesFloor(t, 20, 14), st)
	levelPool(t, sim, 0.003)
	if _, err := sim.AddEmitter(Emitter{X: 0.0003, Y: 0.0003, Z: 0.05, Radius: 0.001, Rate: 2e-7}); err != nil {
		t.Fatal(err)
	}
	sim.Step(200)
	s := checkBalance(t, sim, "walls")
	if s.Outflow != 0 {
		t.Fatalf("walls: outflow %g", s.Outflow)
	}
	open := st
	open.Sides = [4]Side{SideWall, SideOpen, SideWall, SideWall}
	if err := sim.Set(open); err != nil {
		t.Fatal(err)
	}
	sim.Step(50)
	s = checkBalance(t, sim, "opened")
	if s.Outflow <= 0 {
		t.Fatalf("opened +x: outflow %g", s.Outflow)
	}
	bad := open
	bad.Sides[SidePlusY] = 7
	if err := sim.Set(bad); err == nil || !strings.Contains(err.Error(), "sides.plus_y") {
		t.Fatalf("Set with sides.plus_y = 7: err %v", err)
	}
	if sim.Settings().Sides != open.Sides {
		t.Fatalf("a rejected Set changed the sides to %v", sim.Settings().Sides)
	}
	if err := sim.Set(st); err != nil {
		t.Fatal(err)
	}
	out := s.Outflow
	sim.Step(100)
	s = checkBalance(t, sim, "closed")
	if s.Outflow != out {
		t.Fatalf("closed again: outflow went from %g to %g", out, s.Outflow)
	}
}

// TestSidesCorner: the corner column of two open sides counts both, the border columns
// one each, and every layer of a multi-layer border cell drains.
func TestSidesCorner(t *testing.T) {
	t.Parallel()
	st := settings(0.003, 4e-6, 1)
	st.Sides = [4]Side{SideOpen, SideWall, SideOpen, SideWall}
	sim := newSim(t, sidesFloor(t, 10, 8), st)
	levelPool(t, sim, 0.004)
	c := sim.Columns()
	var before, after Snapshot
	sim.Snapshot(&before)
	sim.Step(1)
	sim.Snapshot(&after)
	lost := func(x, y int) float64 {
		i := y*c.Nx + x
		return float64(before.Height[i]) - float64(after.Height[i])
	}
	one := lost(3, 0)
	if one <= 0 || lost(0, 4) != one || lost(5, 4) != 0 || lost(c.Nx-1, c.Ny-1) != 0 {
		t.Fatalf("border losses: -y %g, -x %g, inside %g, far corner %g", one, lost(0, 4), lost(5, 4), lost(c.Nx-1, c.Ny-1))
	}
	// Free outfall through each open side: the corner's coefficient is twice a border
	// column's (drainOf; for a shallow column, where the step's Courant number is small,
	// it loses about twice as much).
	k := math.Sqrt(st.Gravity) * st.Dt / (2 * c.Dx)
	for _, w := range []struct {
		x, y, n int
	}{{3, 0, 1}, {0, 4, 1}, {0, 0, 2}} {
		want := 0.004 - drainOf(float64(w.n)*k, 0.004)
		if got := lost(w.x, w.y); math.Abs(got-want) > 1e-5*want {
			t.Fatalf("column (%d, %d), %d open sides: lost %.9g m, want %.9g", w.x, w.y, w.n, got, want)
		}
	}
	checkBalance(t, sim, "corner")

	// Three layers: every column of every border cell drains. (Extended pipes off: their
	// float32 fix-up leaves ~1e-18 m^3 a step, docs/solver.md, more than the 1e-12 here.)
	st.Sides = [4]Side{SideOpen, SideOpen, SideOpen, SideOpen}
	st.ExtendedPipes = ExtendedOff
	m := newSim(t, overhangScene(t, 16, 16, 0.0005), st)
	mc := m.Columns()
	drains := map[int32]bool{}
	for _, i := range m.em.dCol {
		drains[i] = true
	}
	layered := 0
	for y := range mc.Ny {
		for x := range mc.Nx {
			cell := y*mc.Nx + x
			border := x == 0 || y == 0 || x == mc.Nx-1 || y == mc.Ny-1
			n := mc.CellStart[cell+1] - mc.CellStart[cell]
			if border && n > 1 {
				layered++
			}
			for i := mc.CellStart[cell]; i < mc.CellStart[cell+1]; i++ {
				if drains[int32(i)] != border {
					t.Fatalf("cell (%d, %d) column %d: drains %v, on the border %v", x, y, i, drains[int32(i)], border)
				}
			}
		}
	}
	if layered == 0 {
		t.Fatal("no multi-layer border cell: the scene does not test layers")
	}
	levelPool(t, m, 0.004)
	m.Step(100)
	if s := checkBalance(t, m, "three layers"); s.Outflow <= 0 {
		t.Fatalf("three layers: outflow %g", s.Outflow)
	}
}

// TestSidesWorkersSameBits: open sides give the same bits for 1, 2 and 3 workers and in
// the dense and general layouts (heights, fluxes and the outflow booked), with sources and
// sinks on the border columns too.
func TestSidesWorkersSameBits(t *testing.T) {
	t.Parallel()
	for _, cs := range []CrossSection{CrossPaper, CrossFilm} {
		type result struct {
			h, f    []float32
			outflow float64
			removed float64
		}
		run := func(workers int, general bool) result {
			c := layeredScene(t, 29, 21, 0.0005, 0.03, 1, bumpyFloor, nil)
			st := settings(0.003, 4e-6, workers)
			st.CrossSection = cs
			st.Sides = [4]Side{SideOpen, SideWall, SideOpen, SideOpen}
			sim := newSimWith(t, c, st, backendOptions{general: general})
			if got := sim.be.(*cpuBackend).dense != nil; got == general {
				t.Fatalf("general=%v: dense layout in use = %v", general, got)
			}
			for _, e := range []Emitter{
				{X: 0.007, Y: 0.005, Z: 0.05, Radius: 0.002, Rate: 3e-6},
				{X: 0.0002, Y: 0.009, Z: 0.05, Radius: 0.001, Rate: -1e-6, Start: 0.1}, // on the -x border
				{X: 0.014, Y: 0.0102, Z: 0.05, Radius: 0.001, Rate: 1e-6},              // on the +y border
			} {
				if _, err := sim.AddEmitter(e); err != nil {
					t.Fatal(err)
				}
			}
			sim.Step(300)
			checkBalance(t, sim, "workers")
			var snap Snapshot
			sim.Snapshot(&snap)
			_, removed, _ := sim.Accounting()
			return result{snap.Height, sim.Fluxes(nil), sim.Outflow(), removed}
		}
		ref := run(1, false)
		if ref.outflow <= 0 {
			t.Fatalf("%v: nothing flowed out", cs)
		}
		for _, r := range []struct {
			workers int
			general bool
		}{{2, false}, {3, false}, {1, true}, {2, true}, {3, true}} {
			got := run(r.workers, r.general)
			if i := firstDiffBits(ref.h, got.h); i >= 0 {
				t.Fatalf("%v, %d workers, general %v: column %d h = %v, 1 worker dense %v", cs, r.workers, r.general, i, got.h[i], ref.h[i])
			}
			if i := firstDiffBits(ref.f, got.f); i >= 0 {
				t.Fatalf("%v, %d workers, general %v: pipe %d f = %v, 1 worker dense %v", cs, r.workers, r.general, i, got.f[i], ref.f[i])
			}
			if got.outflow != ref.outflow || got.removed != ref.removed {
				t.Fatalf("%v, %d workers, general %v: outflow %.17g removed %.17g, 1 worker dense %.17g %.17g",
					cs, r.workers, r.general, got.outflow, got.removed, ref.outflow, ref.removed)
			}
		}
	}
}

// TestSidesSettings: names, parsing and validation.
func TestSidesSettings(t *testing.T) {
	var s Settings
	if s.SidesString() != "walls" || DefaultSettings().Sides != [4]Side{} {
		t.Fatalf("default sides %q", s.SidesString())
	}
	s.Sides = [4]Side{SideOpen, SideWall, SideWall, SideOpen}
	if got := s.SidesString(); got != "open(minus_x,plus_y)" {
		t.Fatalf("SidesString %q", got)
	}
	s.Sides = [4]Side{SideOpen, SideOpen, SideOpen, SideOpen}
	if s.SidesString() != "open" || !strings.Contains(s.String(), "sides=open") {
		t.Fatalf("String %q", s.String())
	}
	for in, want := range map[string]Side{"walls": SideWall, "wall": SideWall, "open": SideOpen} {
		if got, err := ParseSide(in); err != nil || got != want {
			t.Fatalf("ParseSide(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseSide("drain"); err == nil {
		t.Fatal("ParseSide(drain) accepted")
	}
}

// firstDiffBits is the first index whose bits differ, or -1.
func firstDiffBits(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestSidesParticlesLeave: a drop thrown towards an open side leaves the domain and is
// booked as outflow, exactly; thrown towards a wall, it stays (it slides down the wall
// and lands).
func TestSidesParticlesLeave(t *testing.T) {
	t.Parallel()
	for _, open := range []bool{true, false} {
		st := settings(0, 1e-6, 1)
		st.Falling = FallingParticles
		if open {
			st.Sides[SidePlusX] = SideOpen
		}
		sim := newSim(t, flatScene(t, 20, 20, 0.0005), st)
		const vol = 1e-9
		if err := sim.Drop(0.008, 0.005, 0.02, vol, 0.5, 0, 0); err != nil {
			t.Fatal(err)
		}
		sim.Step(200)
		stats := sim.Stats()
		added, _, _ := sim.Accounting()
		t.Logf("open %v: outflow %g, particles %d, volume %g of %g", open, sim.Outflow(), stats.Particles, sim.Volume(), added)
		switch {
		case open && (sim.Outflow() != vol || stats.Particles != 0 || sim.Volume() != 0):
			t.Errorf("open side: outflow %g (want %g), %d particles, volume %g", sim.Outflow(), vol, stats.Particles, sim.Volume())
		case !open && (sim.Outflow() != 0 || math.Abs(sim.Volume()-vol) > 1e-12*vol):
			t.Errorf("wall: outflow %g, volume %g (want %g)", sim.Outflow(), sim.Volume(), vol)
		}
	}
}
