package scripts_test

// The library's single-layer scenes: demo.lua (the built-in demo, bit for bit), viscosity, bowl.

import (
	"math"
	"strconv"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/terrain"
)

// TestDemo: demo.lua is the built-in demo's scene, so it gives the same heights, bit for
// bit, as that scene built directly with the terrain and gpusim packages; the liquid runs
// down the incline and pools against the rim.
func TestDemo(t *testing.T) {
	r := load(t, "demo.lua", nil)
	// The reference: the scene of cmd/vpbench's first, hard-coded demo.
	dom := terrain.Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.04, Dx: 0.0005}
	angle := 10 * math.Pi / 180
	slope, err := terrain.Plane(terrain.Vec3{X: 0, Y: 0, Z: 0.004}, terrain.Vec3{X: -math.Sin(angle), Y: 0, Z: math.Cos(angle)})
	if err != nil {
		t.Fatal(err)
	}
	rim, err := terrain.Box(terrain.Vec3{}, terrain.Vec3{X: 0.004, Y: 0.1, Z: 0.012})
	if err != nil {
		t.Fatal(err)
	}
	solid, err := terrain.Union(slope, rim)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := terrain.Extract(solid, dom, 1)
	if err != nil {
		t.Fatal(err)
	}
	demoSettings := gpusim.DefaultSettings()
	demoSettings.SurfaceTension = 0.072 // vp.sim's default: capillarity on, water
	demoSettings.ContactHysteresis = scene.DefaultContactHysteresis
	ref, err := gpusim.New(cols, demoSettings)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if _, err := ref.AddEmitter(gpusim.Emitter{X: 0.085, Y: 0.05, Z: 0.035, Radius: 0.004, Rate: 5e-6, Start: 0, Stop: 2}); err != nil {
		t.Fatal(err)
	}

	got := r.scene().SolverSettings()
	if want := gpusim.DefaultSettings(); got.Viscosity != want.Viscosity || got.Damping != want.Damping ||
		got.Gravity != want.Gravity || got.CrossSection != want.CrossSection || got.ExtendedPipes != want.ExtendedPipes {
		t.Errorf("settings %v, want the demo's %v", got, want)
	}
	if r.scene().Dt() != ref.Dt() {
		t.Errorf("dt = %g, the demo's is %g", r.scene().Dt(), ref.Dt())
	}
	c := r.cols()
	if c.Nx != 200 || c.Ny != 200 || c.Dx != 0.0005 || c.NumColumns() != cols.NumColumns() {
		t.Fatalf("grid %dx%d, dx %g, %d columns; the demo's is 200x200, 0.0005, %d", c.Nx, c.Ny, c.Dx, c.NumColumns(), cols.NumColumns())
	}
	var rs gpusim.Snapshot
	compare := func() {
		ref.Step(int(r.scene().Steps() - ref.Steps()))
		ref.Snapshot(&rs)
		for i := range rs.Height {
			if rs.Height[i] != r.snap.Height[i] {
				t.Fatalf("t = %.3f s: column %d: h = %.9g, the demo's %.9g", r.snap.Time, i, r.snap.Height[i], rs.Height[i])
			}
		}
	}
	r.chunk = 100
	r.advance(4, compare)
	compare()

	// 10 ml poured (5 ml/s over the steps that start before t = 2 s), pooled at the foot.
	if r.snap.Added < 9.9*ml || r.snap.Added > 10.05*ml {
		t.Errorf("added %.4f ml, want 10", r.snap.Added/ml)
	}
	foot := r.volume(func(x, _ float64, _ int) bool { return x < 0.02 })
	t.Logf("demo at t = %.2f s: %.3f ml added, %.3f ml within 2 cm of the rim, %d wet columns; %d progress lines",
		r.snap.Time, r.snap.Added/ml, foot/ml, r.snap.Wet, len(r.out)-1)
	if foot < 0.5*r.snap.Volume {
		t.Errorf("only %.3f ml of %.3f ml lie within 2 cm of the rim at t = 4 s", foot/ml, r.snap.Volume/ml)
	}
	if len(r.out) < 8 {
		t.Errorf("%d lines printed, want a header and a progress line every 0.5 s", len(r.out))
	}
}

// TestViscosity: the paper's Fig. 17. One script, four viscosities: at t = 3 s the liquid
// has travelled less down the incline the larger nu is, and at nu = 0.4 it has hardly
// moved.
func TestViscosity(t *testing.T) {
	type result struct{ front, centroid float64 } // distance travelled down the slope, m
	var prev result
	for k, nu := range []string{"0", "4e-6", "4e-5", "0.4"} {
		r := load(t, "viscosity.lua", map[string]string{"nu": nu})
		want, _ := strconv.ParseFloat(nu, 64)
		if got := r.scene().SolverSettings().Viscosity; got != want {
			t.Errorf("nu = %s: the solver's viscosity is %g", nu, got)
		}
		if c := r.cols(); c.Nx != 200 || c.Ny != 200 || maxLayers(c) != 1 || r.scene().Dt() != 0.003 {
			t.Errorf("nu = %s: grid %dx%dx%d, dt %g; the paper's is 200x200x1, 3 ms", nu, c.Nx, c.Ny, maxLayers(c), r.scene().Dt())
		}
		measure := func() (front, centroid float64) {
			c, h := r.cols(), r.snap.Height
			front = 0.1
			var v float64
			for y := range c.Ny {
				for x := range c.Nx {
					i := y*c.Nx + x
					d := float64(h[i]) - float64(c.Base[i])
					cx, cy := c.CellCentre(x, y)
					if d > 1e-5 && math.Abs(cy-0.05) < 0.02 {
						front = min(front, cx)
					}
					centroid += d * cx
					v += d
				}
			}
			return front, centroid / v
		}
		f0, c0 := measure()
		vol0 := r.snap.Volume
		r.chunk = 100
		r.advance(10, nil) // main returns at t = 3 s
		if !r.done || math.Abs(r.sc.Scene().Time()-3) > 0.004 {
			t.Errorf("nu = %s: the run ended at t = %.3f s (done %v), want main to return at 3 s", nu, r.sc.Scene().Time(), r.done)
		}
		f1, c1 := measure()
		res := result{f0 - f1, c0 - c1}
		t.Logf("nu = %-5s %.3f ml released, front from x = %.1f mm to %.1f mm (%.1f mm), centroid moved %.2f mm",
			nu, vol0/ml, f0*1e3, f1*1e3, res.front*1e3, res.centroid*1e3)
		if vol0 < 2*ml || math.Abs(r.snap.Added-vol0) > 1e-9*vol0 {
			t.Errorf("nu = %s: %.3f ml released behind the gate (added %.3f ml), want about 2.8", nu, vol0/ml, r.snap.Added/ml)
		}
		if !r.printed("t = 3.00 s: front at") {
			t.Errorf("nu = %s: no report at t = 3 s", nu)
		}
		if k > 0 && !(res.centroid < prev.centroid && res.front <= prev.front) {
			t.Errorf("nu = %s: travelled %.2f mm (front) and %.2f mm (centroid), not less than %.2f and %.2f at the smaller nu",
				nu, res.front*1e3, res.centroid*1e3, prev.front*1e3, prev.centroid*1e3)
		}
		switch nu {
		case "0":
			if res.front < 0.03 {
				t.Errorf("nu = 0: the front travelled only %.1f mm in 3 s", res.front*1e3)
			}
		case "0.4":
			if res.centroid > 0.001 || res.front > 0.005 {
				t.Errorf("nu = 0.4: the liquid moved %.2f mm (centroid), front %.2f mm: it should hardly move", res.centroid*1e3, res.front*1e3)
			}
		}
		prev = res
	}
}

// TestBowl: the liquid poured into the bowl pools at its bottom, level, at the height its
// volume gives in a spherical cap; nothing reaches the table or rises above the rim.
func TestBowl(t *testing.T) {
	r := load(t, "bowl.lua", nil)
	r.chunk = 100
	const rim, bottom, radius = 0.025, 0.005, 0.048
	r.advance(3, func() {
		c, h := r.cols(), r.snap.Height
		for i := range h {
			if h[i] > c.Base[i] && float64(h[i]) > rim {
				t.Fatalf("t = %.2f s: liquid at z = %.2f mm, above the rim (%.0f mm)", r.snap.Time, float64(h[i])*1e3, rim*1e3)
			}
		}
	})
	table := r.volume(func(_, _ float64, i int) bool { return r.cols().Base[i] < 0.001 })
	if table != 0 {
		t.Errorf("%.4g ml on the table outside the bowl", table/ml)
	}
	// The surface: the columns deeper than 1 mm. It still sloshes at t = 3 s (damping keeps
	// half the flux each second), so its mean is what is compared with the cap.
	c, h := r.cols(), r.snap.Height
	lo, hi, sum, n := math.Inf(1), math.Inf(-1), 0.0, 0
	for i := range h {
		if float64(h[i])-float64(c.Base[i]) > 0.001 {
			lo, hi = min(lo, float64(h[i])), max(hi, float64(h[i]))
			sum += float64(h[i])
			n++
		}
	}
	mean := sum / float64(n)
	// The spherical cap holding the volume: pi d^2 (3R - d) / 3 = V.
	v := r.snap.Volume
	d := 0.01
	for range 50 {
		d -= (math.Pi*d*d*(3*radius-d)/3 - v) / (math.Pi * d * (2*radius - d))
	}
	x, y, _ := c.CellAt(0.05, 0.05)
	ci := c.ColumnAt(x, y, 0.01)
	t.Logf("bowl at t = %.2f s: %.3f ml, %.2f mm deep at the centre; surface from %.3f to %.3f mm (mean %.3f, cap %.3f); %d wet columns; table %.3g ml",
		r.snap.Time, v/ml, r.snap.Depth(ci)*1e3, lo*1e3, hi*1e3, mean*1e3, (bottom+d)*1e3, r.snap.Wet, table/ml)
	if math.Abs(r.snap.Added-20*ml) > 0.05*ml {
		t.Errorf("added %.3f ml, want 20", r.snap.Added/ml)
	}
	if hi-lo > 0.006 {
		t.Errorf("the pool is far from level: surface from %.2f to %.2f mm", lo*1e3, hi*1e3)
	}
	if math.Abs(mean-(bottom+d)) > 0.0005 {
		t.Errorf("mean surface at %.2f mm; a spherical cap holding %.2f ml reaches %.2f mm", mean*1e3, v/ml, (bottom+d)*1e3)
	}
	if r.snap.Depth(ci) < 0.008 {
		t.Errorf("only %.2f mm deep at the bottom", r.snap.Depth(ci)*1e3)
	}
}
