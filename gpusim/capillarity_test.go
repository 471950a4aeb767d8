package gpusim

import (
	"fmt"
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// flatScene is a single-layer flat floor at 1 mm.
func flatScene(t testing.TB, nx, ny int, dx float64) *terrain.Columns {
	return layeredScene(t, nx, ny, dx, 0.03, 1, func(float64, float64) float64 { return 0.001 }, nil)
}

// wettingSettings is water (sigma 0.072 N/m) at contact angle theta, falling off, the
// contact line alone (no capillary pressure).
func wettingSettings(theta float64, workers int) Settings {
	st := settings(0, 1e-6, workers)
	st.SurfaceTension, st.Density, st.ContactAngle = 0.072, 1000, theta
	st.CapillaryPressure = false
	return st
}

// pourDisc sets a disc of liquid of volume vol (m^3) and radius r (m) around (cx, cy) on
// a single-layer scene, the rest dry.
func pourDisc(t testing.TB, sim *Sim, cx, cy, r, vol float64) {
	t.Helper()
	c := sim.Columns()
	h := append([]float32(nil), c.Base...)
	var in []int
	for y := range c.Ny {
		for x := range c.Nx {
			if math.Hypot((float64(x)+0.5)*c.Dx-cx, (float64(y)+0.5)*c.Dx-cy) < r {
				in = append(in, y*c.Nx+x)
			}
		}
	}
	d := vol / (float64(len(in)) * c.Dx * c.Dx)
	for _, i := range in {
		h[i] = c.Base[i] + float32(d)
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
}

// footprint is the wet area (m^2), the deepest depth (m) and the wet columns' extent
// along x, of a single-layer state.
func footprint(sim *Sim) (area, deepest, x0, x1 float64) {
	sn := snapshot(sim)
	c := sn.Columns
	x0, x1 = math.Inf(1), math.Inf(-1)
	for i, h := range sn.Height {
		d := float64(h - c.Base[i])
		if d <= DryDepth {
			continue
		}
		area += c.Dx * c.Dx
		deepest = max(deepest, d)
		x := (float64(i%c.Nx) + 0.5) * c.Dx
		x0, x1 = min(x0, x), max(x1, x)
	}
	return area, deepest, x0, x1
}

// TestPuddleStops: water poured on a flat floor spreads into a puddle that stops (its
// area grows by less than 1% over the last second of 10 s) at the wetting head
// 2 l_c sin(theta/2) within 10% (docs/method.md, "Surface tension"): its edge advances
// while the liquid there stands higher than that, and recedes while it is thinner. Volume
// is kept.
func TestPuddleStops(t *testing.T) {
	t.Parallel()
	for _, deg := range []float64{30, 60} {
		st := wettingSettings(deg*math.Pi/180, 2)
		st.Viscosity = 4e-6 // vp.sim's default
		p := pourPuddle(t, st)
		want := st.WettingHead()
		t.Logf("theta %g deg: wetting head %.3f mm; after 10 s: %.2f cm^2 wet, mean thickness %.3f mm (%.2f of the head), deepest %.3f mm; area after 9 s %.2f cm^2",
			deg, want*1e3, p.area*1e4, p.mean*1e3, p.mean/want, p.deepest*1e3, p.a9*1e4)
		if math.Abs(p.mean-want) > 0.1*want {
			t.Errorf("theta %g deg: puddle %.3f mm thick, want the wetting head %.3f mm within 10%%", deg, p.mean*1e3, want*1e3)
		}
		if p.area > 1.01*p.a9 {
			t.Errorf("theta %g deg: the puddle still spreads: %.2f cm^2 at 9 s, %.2f at 10 s", deg, p.a9*1e4, p.area*1e4)
		}
		if math.Abs(p.volume-p.added) > volTol*p.added || math.Abs(p.added-puddleVolume) > 0.01*puddleVolume {
			t.Errorf("theta %g deg: volume %g, poured %g (meant %g)", deg, p.volume, p.added, puddleVolume)
		}
	}
}

// puddleVolume is what pourPuddle pours, m^3: 3 ml, a puddle of radius 2-3 cm.
const puddleVolume = 3e-6

// puddle is what pourPuddle measured: the wet area at 9 s and 10 s (m^2), the deepest
// column and the mean thickness at 10 s (m), the volume added and the solver's volume.
type puddle struct {
	a9, area, deepest, mean float64
	added, volume           float64
}

// pourPuddle pours puddleVolume at 0.5 ml/s for 6 s onto the middle of a flat 7 x 7 cm
// floor (dx 0.5 mm) with settings st and measures the puddle at 9 and 10 s.
func pourPuddle(t *testing.T, st Settings) puddle {
	t.Helper()
	const n, dx = 140, 0.0005
	sim := newSim(t, flatScene(t, n, n, dx), st)
	if _, err := sim.AddEmitter(Emitter{X: 0.035, Y: 0.035, Z: 0.02, Radius: 0.002, Rate: puddleVolume / 6, Stop: 6}); err != nil {
		t.Fatal(err)
	}
	steps := int(math.Round(10 / sim.Dt()))
	last := steps - int(math.Round(1/sim.Dt()))
	var p puddle
	sim.Step(last)
	p.a9, _, _, _ = footprint(sim)
	sim.Step(steps - last)
	p.area, p.deepest, _, _ = footprint(sim)
	p.added, _, _ = sim.Accounting()
	p.mean, p.volume = p.added/p.area, sim.Volume()
	return p
}

// TestSessileDrop: a drop smaller than the capillary length spreads to a footprint that
// stops, larger for a smaller contact angle.
func TestSessileDrop(t *testing.T) {
	t.Parallel()
	var areas []float64
	for _, deg := range []float64{30, 60, 90} {
		st := wettingSettings(deg*math.Pi/180, 1)
		const n, dx, vol = 40, 0.0005, 10e-9 // 10 microlitres
		sim := newSim(t, flatScene(t, n, n, dx), st)
		pourDisc(t, sim, 0.01, 0.01, 0.0008, vol)
		// The footprint is read at 2 and 3 s: a wetted rim cell may still dry in the
		// first second and a quarter, as the drop's edge draws back to its angle
		// (docs/method.md, "Surface tension": wetted ground); after that the line must hold.
		sim.Step(int(math.Round(2 / sim.Dt())))
		a1, _, _, _ := footprint(sim)
		sim.Step(int(math.Round(1 / sim.Dt())))
		a2, deepest, _, _ := footprint(sim)
		t.Logf("theta %g deg: footprint %.2f mm^2 at 2 s, %.2f mm^2 at 3 s, deepest %.3f mm", deg, a1*1e6, a2*1e6, deepest*1e3)
		if a2 != a1 {
			t.Errorf("theta %g deg: the footprint still moves: %.2f mm^2 at 2 s, %.2f at 3 s", deg, a1*1e6, a2*1e6)
		}
		areas = append(areas, a2)
	}
	if !(areas[0] > areas[1] && areas[1] > areas[2]) {
		t.Errorf("footprints %.2f, %.2f, %.2f mm^2 at 30, 60, 90 degrees: want larger for a smaller contact angle", areas[0]*1e6, areas[1]*1e6, areas[2]*1e6)
	}
}

// TestDropOnSlope: with contact-angle hysteresis (advancing 60, receding 30 degrees) a
// drop on a gentle incline stays pinned; on a steep one the same drop runs down. Without
// hysteresis a drop slides down any slope (its uphill edge recedes as soon as its
// downhill edge advances), as a drop on an ideal solid does.
func TestDropOnSlope(t *testing.T) {
	t.Parallel()
	run := func(deg, hysteresis float64) float64 {
		st := wettingSettings(60*math.Pi/180, 1)
		st.ContactHysteresis = hysteresis * math.Pi / 180
		const nx, ny, dx, vol = 120, 30, 0.0005, 20e-9
		c := inclineScene(t, nx, ny, dx, deg*math.Pi/180) // rises along x
		sim := newSim(t, c, st)
		pourDisc(t, sim, 0.045, 0.0075, 0.001, vol)
		_, _, start, _ := footprint(sim)
		sim.Step(int(math.Round(2 / sim.Dt())))
		_, _, x0, _ := footprint(sim)
		sim.Step(int(math.Round(1 / sim.Dt())))
		_, _, x0b, _ := footprint(sim)
		t.Logf("%g degrees, hysteresis %g: lowest wet x %.1f mm at the start, %.1f mm at 2 s, %.1f mm at 3 s", deg, hysteresis, start*1e3, x0*1e3, x0b*1e3)
		if hysteresis > 0 && deg < 10 && x0b != x0 {
			t.Errorf("%g degrees: the drop still runs down: lowest wet x %.1f mm at 2 s, %.1f mm at 3 s", deg, x0*1e3, x0b*1e3)
		}
		return start - x0b
	}
	pinned, steep, ideal := run(5, 30), run(60, 30), run(5, 0)
	if !(steep > pinned+0.005) {
		t.Errorf("the drop ran %.1f mm down 5 degrees and %.1f mm down 60: want farther down the steeper slope", pinned*1e3, steep*1e3)
	}
	if !(ideal > pinned+0.005) {
		t.Errorf("without hysteresis the drop ran %.1f mm down 5 degrees, with it %.1f mm: want it to slide", ideal*1e3, pinned*1e3)
	}
}

// TestWettingOff: without surface tension the solver gives the paper's method's bits,
// whatever the contact angle and density. (With surface tension and a contact angle of 0
// the contact line is free, but the ripple damping still acts.)
func TestWettingOff(t *testing.T) {
	t.Parallel()
	ref := settings(0.003, 4e-6, 2)
	var refH []float32
	for k, mod := range []func(*Settings){
		func(*Settings) {},
		func(s *Settings) { s.ContactAngle, s.Density = 2, 1300 },
	} {
		st := ref
		mod(&st)
		sim := runOn(t, overhangScene(t, 30, 30, 0.001), st, 200)
		h := snapshot(sim).Height
		if k == 0 {
			refH = h
			continue
		}
		for i := range h {
			if math.Float32bits(h[i]) != math.Float32bits(refH[i]) {
				t.Fatalf("case %d: column %d h = %g, the paper's method gives %g", k, i, h[i], refH[i])
			}
		}
	}
}

// TestWettingSameBits: with the contact-line law, the receding edge and the capillary
// pressure (smoothed: dt 3 ms) on, every worker count, both layouts
// and both row kernels give the same bits, and the law changes the result.
func TestWettingSameBits(t *testing.T) {
	t.Parallel()
	for _, pressure := range []bool{true, false} {
		wettingSameBits(t, pressure)
	}
}

func wettingSameBits(t *testing.T, pressure bool) {
	var ref []float32
	var plain []float32
	for k, o := range []backendOptions{{}, {general: true}, {noSIMD: true}, {general: true, noSIMD: true}} {
		for _, w := range []int{1, 2, 5} {
			name := fmt.Sprintf("pressure %v, options %+v, %d workers", pressure, o, w)
			st := wettingSettings(1, w)
			st.Dt = 0.003
			st.CapillaryPressure, st.ContactHysteresis = pressure, 0.2 // with the pressure, every part of the capillary head
			sim := newSimWith(t, layeredScene(t, 40, 30, 0.0005, 0.03, 1, bumpyFloor, nil), st, o)
			pourDisc(t, sim, 0.01, 0.007, 0.003, 1e-7)
			sim.Step(300)
			h := snapshot(sim).Height
			checkBounds(t, sim, 300)
			if ref == nil {
				ref = h
				st.SurfaceTension = 0
				off := newSimWith(t, layeredScene(t, 40, 30, 0.0005, 0.03, 1, bumpyFloor, nil), st, o)
				pourDisc(t, off, 0.01, 0.007, 0.003, 1e-7)
				off.Step(300)
				plain = snapshot(off).Height
				continue
			}
			for i := range h {
				if math.Float32bits(h[i]) != math.Float32bits(ref[i]) {
					t.Fatalf("%s (case %d): column %d h = %g, the first gives %g", name, k, i, h[i], ref[i])
				}
			}
		}
	}
	differ := 0
	for i := range ref {
		if ref[i] != plain[i] {
			differ++
		}
	}
	if differ < 10 {
		t.Errorf("the contact-line law changed only %d columns", differ)
	}
}

// TestHoleHeals: a dry column in the middle of a film thinner than the wetting head (the
// trough of a wave the outflow scaling emptied) fills again: a hole one cell wide reads
// as wet (capDryHead). A hole two cells wide stays open: the film's edge around it holds.
func TestHoleHeals(t *testing.T) {
	t.Parallel()
	for _, width := range []int{1, 2} {
		st := wettingSettings(30*math.Pi/180, 2) // wetting head 1.40 mm
		sim := newSim(t, flatScene(t, 20, 20, 0.0005), st)
		c := sim.Columns()
		h := append([]float32(nil), c.Base...)
		for i := range h {
			x, y := i%20, i/20
			if x < 10 || x >= 10+width || y < 10 || y >= 10+width {
				h[i] += 0.001 // a 1 mm film, but for the hole
			}
		}
		if err := sim.SetHeights(h); err != nil {
			t.Fatal(err)
		}
		sim.Step(100)
		hole := snapshot(sim).Height[10*20+10] - c.Base[10*20+10]
		t.Logf("a hole %d wide: %.3g m deep after 100 steps", width, hole)
		if (width == 1) != (hole > DryDepth) {
			t.Errorf("a hole %d wide: %.3g m deep after 100 steps: want it filled only when one cell wide", width, hole)
		}
	}
}

// TestStripHeals: a dry line one column wide through liquid resting at least the receding
// head deep (the line between two rivulets of a coat running down a slope) fills again,
// along x and along y and with either layout: a strip reads as wet (capDryHead). A line
// two columns wide stays open, as a hole two wide does, and so does a line one wide
// through a film thinner than the receding head (a draining film's neck: it breaks
// there). Both layouts give the same bits.
func TestStripHeals(t *testing.T) {
	t.Parallel()
	const n = 24
	for _, c := range []struct {
		film   float32 // m
		width  int
		filled bool
	}{{0.002, 1, true}, {0.002, 2, false}, {0.001, 1, false}} {
		for _, alongY := range []bool{false, true} {
			var heights [2][]float32
			for g, general := range []bool{false, true} {
				// Advancing 60 degrees (h_a 2.71 mm), receding 30 (h_r 1.40 mm): a 2 mm
				// film rests, a 1 mm one recedes.
				st := wettingSettings(60*math.Pi/180, 2)
				st.ContactHysteresis = 30 * math.Pi / 180
				sim := newSimWith(t, flatScene(t, n, n, 0.0005), st, backendOptions{general: general})
				cols := sim.Columns()
				h := append([]float32(nil), cols.Base...)
				at := func(u, v int) int { // the column u across the line, v along it
					if alongY {
						return u*n + v
					}
					return v*n + u
				}
				for u := range n {
					for v := range 20 { // the film over v < 20, but for the line
						if !(u >= 10 && u < 10+c.width && v >= 6 && v < 18) {
							h[at(u, v)] += c.film
						}
					}
				}
				if err := sim.SetHeights(h); err != nil {
					t.Fatal(err)
				}
				sim.Step(100)
				heights[g] = snapshot(sim).Height
				depth := func(u, v int) float32 { return heights[g][at(u, v)] - cols.Base[at(u, v)] }
				mid := depth(10, 12)
				t.Logf("film %g mm, alongY=%v, general=%v: a line %d wide: %.3g m deep after 100 steps", c.film*1e3, alongY, general, c.width, mid)
				if c.filled != (mid > DryDepth) {
					t.Errorf("film %g mm, alongY=%v, general=%v: a line %d wide: %.3g m deep after 100 steps: want filled %v", c.film*1e3, alongY, general, c.width, mid, c.filled)
				}
				if d := depth(10, 22); d > DryDepth {
					t.Errorf("film %g mm, alongY=%v, general=%v: the dry ground beyond the film's edge is wet (%.3g m)", c.film*1e3, alongY, general, d)
				}
			}
			for i := range heights[0] {
				if math.Float32bits(heights[0][i]) != math.Float32bits(heights[1][i]) {
					t.Fatalf("film %g mm, alongY=%v, width %d: column %d: dense %v, general %v", c.film*1e3, alongY, c.width, i, heights[0][i], heights[1][i])
				}
			}
		}
	}
}
