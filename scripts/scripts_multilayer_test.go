package scripts_test

// The library's multi-layer scenes: three_layers, passages, cross_passage and surgery.

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
)

// TestThreeLayers: the paper's Fig. 19. The liquid poured on the top tray reaches the
// middle tray (through the top hole), then the floor (through the middle hole), in that
// order, and the floor's first liquid lies under the middle hole.
func TestThreeLayers(t *testing.T) {
	r := load(t, "three_layers.lua", nil)
	c := r.cols()
	if c.Nx != 100 || c.Ny != 100 || c.Dx != 0.001 || maxLayers(c) != 3 || c.Dropped != 0 {
		t.Fatalf("grid %dx%d, dx %g, up to %d layers (%d dropped); want 100x100, 1 mm, 3 layers", c.Nx, c.Ny, c.Dx, maxLayers(c), c.Dropped)
	}
	if dt := r.scene().Dt(); dt > gpusim.StableDt(0.001, 9.81) {
		t.Errorf("dt = %g s, above the stability limit", dt)
	}
	layer := func(k int) func(x, y float64, i int) bool {
		return func(_, _ float64, i int) bool {
			b := r.cols().Base[i]
			switch k {
			case 0:
				return b < 0.005
			case 1:
				return b >= 0.005 && b < 0.020
			}
			return b >= 0.020
		}
	}
	first := [3]float64{-1, -1, -1} // when each layer (floor, middle, top) first held 0.01 ml
	var floorAtFirst float64        // the floor's liquid within 12 mm of the middle hole then
	var floorAll float64
	r.chunk = 10
	r.advance(3, func() {
		for k := range 3 {
			if first[k] < 0 && r.volume(layer(k)) > 0.01*ml {
				first[k] = r.snap.Time
				if k == 0 {
					floorAll = r.volume(layer(0))
					floorAtFirst = r.volume(func(x, y float64, i int) bool {
						return layer(0)(x, y, i) && math.Hypot(x-0.065, y-0.05) < 0.012
					})
				}
			}
		}
	})
	vTop, vMid, vFloor := r.volume(layer(2)), r.volume(layer(1)), r.volume(layer(0))
	t.Logf("three layers: first liquid on the top tray at %.3f s, middle tray %.3f s, floor %.3f s (%.0f%% of it under the hole); at t = %.2f s: top %.2f ml, middle %.2f ml, floor %.2f ml of %.2f",
		first[2], first[1], first[0], 100*floorAtFirst/math.Max(floorAll, 1e-30), r.snap.Time, vTop/ml, vMid/ml, vFloor/ml, r.snap.Added/ml)
	if !(first[2] >= 0 && first[1] > first[2] && first[0] > first[1]) {
		t.Errorf("the layers got wet at %v s (floor, middle, top): want top, then middle, then floor", first)
	}
	if floorAtFirst < 0.9*floorAll {
		t.Errorf("the floor's first liquid is not under the middle hole: %.3f of %.3f ml", floorAtFirst/ml, floorAll/ml)
	}
	if vFloor < 0.1*r.snap.Added {
		t.Errorf("the floor holds %.2f ml of %.2f ml at t = 3 s", vFloor/ml, r.snap.Added/ml)
	}
	if !r.printed("floor") {
		t.Errorf("no progress line")
	}
}

// TestPassages: the paper's Fig. 20. The liquid poured in the basin runs out through the
// tunnels onto the ground outside the ring; the tunnels flood; with the unified extended
// pipes the outside then gains the basin's surplus quickly, and with extended pipes off it
// gains nothing more.
func TestPassages(t *testing.T) {
	gain := map[string]float64{}
	for _, mode := range []string{"unified", "off"} {
		r := load(t, "passages.lua", map[string]string{"extended_pipes": mode})
		c := r.cols()
		if c.Nx != 100 || c.Ny != 100 || c.Dx != 0.001 || maxLayers(c) != 2 || c.Layers != 3 {
			t.Fatalf("%s: grid %dx%d, dx %g, %d of %d layers; want 100x100, 1 mm, tunnels of two columns", mode, c.Nx, c.Ny, c.Dx, maxLayers(c), c.Layers)
		}
		outside := func(x, y float64, _ int) bool { return math.Abs(x-0.05) > 0.036 || math.Abs(y-0.05) > 0.036 }
		inside := func(x, y float64, _ int) bool { return math.Abs(x-0.05) < 0.030 && math.Abs(y-0.05) < 0.030 }
		// The tunnels are flooded when the column at the middle of each is full (the
		// solver's test: within 0.01 dx of its ceiling).
		tunnelsFull := func() bool {
			for _, p := range [][2]float64{{0.017, 0.05}, {0.083, 0.05}, {0.05, 0.017}, {0.05, 0.083}} {
				x, y, _ := c.CellAt(p[0], p[1])
				i := c.ColumnAt(x, y, 0.001)
				if float64(r.snap.Height[i]) < float64(c.Max[i])-0.01*c.Dx {
					return false
				}
			}
			return true
		}
		flooded := -1.0 // when the four tunnels were first full
		var vFlood, vIn, vEnd float64
		extended := 0
		r.chunk = 10
		for !r.done && r.sc.Scene().Time() < 16 && (flooded < 0 || r.sc.Scene().Time() < flooded+2) {
			r.advance(r.sc.Scene().Time()+0.05, nil)
			if flooded < 0 && tunnelsFull() {
				flooded, vFlood, vIn = r.snap.Time, r.volume(outside), r.volume(inside)
			}
			if flooded >= 0 {
				extended = max(extended, r.snap.Extended)
			}
		}
		if flooded < 4 {
			t.Fatalf("%s: the tunnels were not flooded by t = %.1f s (flooded at %.2f s; the basin needs some 4 s to pass their roofs)", mode, r.snap.Time, flooded)
		}
		vEnd = r.volume(outside)
		gain[mode] = vEnd - vFlood
		t.Logf("passages (%s): tunnels flooded at t = %.2f s with %.2f ml in the basin, %.2f ml outside; %.2f ml outside at t = %.2f s (gain %.2f ml); up to %d extended pipes",
			mode, flooded, vIn/ml, vFlood/ml, vEnd/ml, r.snap.Time, gain[mode]/ml, extended)
		if vFlood < 10*ml || vIn < vFlood {
			t.Errorf("%s: %.2f ml outside the ring and %.2f ml in the basin when the tunnels flooded: want liquid out through the tunnels, and more in the basin", mode, vFlood/ml, vIn/ml)
		}
		if mode == "unified" && extended == 0 {
			t.Errorf("unified: no extended pipe while the tunnels were flooded")
		}
	}
	if gain["unified"] < 10*ml || gain["off"] > 0.1*ml {
		t.Errorf("in the 2 s after the tunnels flooded the outside gained %.2f ml with unified pipes, %.2f ml with none", gain["unified"]/ml, gain["off"]/ml)
	}
}

// TestCrossPassage: the paper's Fig. 23 (left). With the unified pipe the west well's
// extra liquid reaches the east, north and south wells through the flooded cross; with
// axis-aligned pipes only the east well, in line with the west one, gets any.
func TestCrossPassage(t *testing.T) {
	wells := map[string][4]float64{
		"west": {0.005, 0.035, 0.025, 0.065}, "east": {0.075, 0.035, 0.095, 0.065},
		"south": {0.035, 0.005, 0.065, 0.025}, "north": {0.035, 0.075, 0.065, 0.095},
	}
	gain := map[string]map[string]float64{}
	for _, mode := range []string{"unified", "axis"} {
		r := load(t, "cross_passage.lua", map[string]string{"extended_pipes": mode})
		// Four wells of 20 x 30 mm and the cross's two 52 mm arms flooded to 6 mm.
		if r.snap.Added < 16*ml || r.snap.Added > 18.5*ml {
			t.Fatalf("%s: the fill added %.2f ml, want about 17.3", mode, r.snap.Added/ml)
		}
		in := func(w [4]float64) func(x, y float64, _ int) bool {
			return func(x, y float64, _ int) bool { return x > w[0] && x < w[2] && y > w[1] && y < w[3] }
		}
		start := map[string]float64{}
		for n, w := range wells {
			start[n] = r.volume(in(w))
		}
		passages := 0
		r.chunk = 50
		r.advance(3, func() { passages = max(passages, r.snap.Passages) })
		gain[mode] = map[string]float64{}
		for n, w := range wells {
			gain[mode][n] = r.volume(in(w)) - start[n]
		}
		t.Logf("cross passage (%s) at t = %.2f s: gained west %.3f, east %.3f, north %.3f, south %.3f ml; %d passages, %d extended pipes",
			mode, r.snap.Time, gain[mode]["west"]/ml, gain[mode]["east"]/ml, gain[mode]["north"]/ml, gain[mode]["south"]/ml, passages, r.snap.Extended)
		if passages != 1 {
			t.Errorf("%s: %d flooded passages, want the cross as one", mode, passages)
		}
		if !r.printed("north") {
			t.Errorf("%s: no progress line", mode)
		}
	}
	u, a := gain["unified"], gain["axis"]
	for _, n := range []string{"east", "north", "south"} {
		if u[n] < 0.3*ml {
			t.Errorf("unified: the %s well gained only %.3f ml", n, u[n]/ml)
		}
	}
	if math.Abs(u["north"]-u["south"]) > 0.05*u["north"] {
		t.Errorf("unified: north gained %.3f ml, south %.3f: the scene is symmetric", u["north"]/ml, u["south"]/ml)
	}
	if a["east"] < 0.3*ml || a["north"] > 0.1*u["north"] || a["south"] > 0.1*u["south"] {
		t.Errorf("axis: east gained %.3f ml, north %.3f, south %.3f: want east only", a["east"]/ml, a["north"]/ml, a["south"]/ml)
	}
}

// TestSurgery: the paper's Fig. 1 setting. The source bleeds from 0.2 s to 1.4 s and then
// stops; the sink removes blood from 1.0 s on; the viscosity changes at 1.5 s; blood runs
// under the overhangs; the script prints its progress.
func TestSurgery(t *testing.T) {
	r := load(t, "surgery.lua", nil)
	c := r.cols()
	if c.Nx != 200 || c.Ny != 200 || c.Dx != 0.0005 || c.Layers != 5 || r.scene().Dt() != 0.003 {
		t.Fatalf("grid %dx%dx%d, dx %g, dt %g; the paper's is 200x200x5, 0.5 mm, 3 ms", c.Nx, c.Ny, c.Layers, c.Dx, r.scene().Dt())
	}
	if maxLayers(c) < 4 || c.Dropped != 0 {
		t.Errorf("up to %d columns a cell, %d dropped: want the vertebra's overhangs to make 4", maxLayers(c), c.Dropped)
	}
	const rate, start, stop = 2e-6, 0.2, 1.4
	var addedAtStop, removedAt1 float64
	passages := 0
	r.chunk = 10
	r.advance(2, func() {
		s := &r.snap
		passages = max(passages, s.Passages)
		nu := r.scene().SolverSettings().Viscosity
		switch {
		case s.Time <= start && s.Added != 0:
			t.Fatalf("t = %.3f s: %.3g ml added before the bleeding starts", s.Time, s.Added/ml)
		case s.Time < 1.0-1e-9 && s.Removed != 0:
			t.Fatalf("t = %.3f s: %.3g ml removed before the suction starts", s.Time, s.Removed/ml)
		case s.Time < 1.5-1e-9 && nu != 4e-6:
			t.Fatalf("t = %.3f s: viscosity %g before the change", s.Time, nu)
		case s.Time > 1.5+0.004 && nu != 1e-5:
			t.Fatalf("t = %.3f s: viscosity %g after the change to 1e-5", s.Time, nu)
		}
		if s.Time >= stop+0.004 && addedAtStop == 0 {
			addedAtStop = s.Added
		}
		if s.Time < 1.04 {
			removedAt1 = s.Removed
		}
	})
	s := &r.snap
	under := r.volume(func(x, y float64, i int) bool {
		cx, cy, _ := c.CellAt(x, y)
		_, hi := c.Cell(cx, cy)
		return i < hi-1 // not the topmost column of its cell: under an overhang
	})
	floor := r.volume(func(_, _ float64, i int) bool { return c.Base[i] < 0.008 })
	t.Logf("surgery at t = %.2f s: bled %.4f ml (%.4f ml at the stop), sucked %.4f ml (%.4f by 1.04 s), %.3f ml left, %.3f ml under overhangs, %.3f ml on the wound's floor; up to %d flooded passages (%d now); up to %d columns a cell; %d lines printed",
		s.Time, s.Added/ml, addedAtStop/ml, s.Removed/ml, removedAt1/ml, s.Volume/ml, under/ml, floor/ml, passages, s.Passages, maxLayers(c), len(r.out))
	if passages == 0 {
		t.Errorf("the gap under the vertebral body never flooded")
	}
	if s.Added != addedAtStop || math.Abs(s.Added-rate*(stop-start)) > rate*0.004 {
		t.Errorf("bled %.4f ml at the end and %.4f ml at the stop: want %.4f ml, then nothing", s.Added/ml, addedAtStop/ml, rate*(stop-start)/ml)
	}
	if s.Removed < 0.05*ml {
		t.Errorf("the suction removed only %.4f ml", s.Removed/ml)
	}
	if under < 0.01*ml {
		t.Errorf("only %.4f ml under the overhangs", under/ml)
	}
	if floor < 0.3*s.Volume {
		t.Errorf("only %.3f ml of %.3f ml reached the wound's floor", floor/ml, s.Volume/ml)
	}
	for _, want := range []string{"suction on", "thickens", "t = 0.5 s", "t = 1.5 s", "t = 2.0 s"} {
		if !r.printed(want) {
			t.Errorf("no line %q printed", want)
		}
	}
}
