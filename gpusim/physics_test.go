package gpusim

// Physics tests: each asserts a number derived from docs/method.md ("One step",
// "Cross-section" and "Expected numbers"), never a figure copied from the
// solver's own output. Measured figures quoted in comments are from `go test ./gpusim` on
// the development machine; the bounds sit a few times above them.

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

const g0 = 9.81 // DefaultSettings().Gravity

// gammaSpec is docs/method.md, "One step", 3: gamma = H^2 / (H^2 + 3 dt nu), H the upwind depth.
func gammaSpec(H, dt, nu float64) float64 {
	if nu == 0 {
		return 1
	}
	return H * H / (H*H + 3*dt*nu)
}

// areaFactor is A / dx^2 for a cross-section and upwind depth H (docs/method.md, "Cross-section").
func areaFactor(cs CrossSection, H, dx float64) float64 {
	if cs == CrossFilm {
		return math.Min(H, dx) / dx
	}
	return 1
}

// snapshot returns a fresh copy of the published state.
func snapshot(sim *Sim) *Snapshot {
	var s Snapshot
	sim.Snapshot(&s)
	return &s
}

// twoColumns is a 2x1 single-layer grid: column 0 on base b0, column 1 on base b1, open to
// 10 cm above.
func twoColumns(t testing.TB, dx, b0, b1 float64) *terrain.Columns {
	return layeredScene(t, 2, 1, dx, 0.1, 1, func(x, _ float64) float64 {
		if x < dx {
			return b0
		}
		return b1
	}, nil)
}

// TestViscosityFactor checks docs/method.md, "One step", 2-3, on one pipe after one step from rest
// (f = 0, so zeta*f = 0): f = gamma * dt * g * (A/l) * dh with A/l = dx (paper) or
// min(H, dx) (film), gamma = H^2/(H^2 + 3 dt nu), H the depth of the column the flux comes
// from. Heights are chosen so that neither scaling binds (dh <= 0.1 mm, where outflow
// scaling binds only above dh = H dx/(dt^2 g) ~ 2.8 mm).
func TestViscosityFactor(t *testing.T) {
	// The spec's figure first: our formula must give it.
	if got := gammaSpec(0.0005, 0.003, 4e-6); math.Abs(got-0.874126) > 1e-6 {
		t.Fatalf("gammaSpec(0.5 mm, 3 ms, 4e-6) = %.7f, docs/method.md says 0.874126", got)
	}
	for _, tc := range []struct {
		name   string
		cs     CrossSection
		dx, nu float64
		b0, b1 float64 // bases
		d0, d1 float64 // depths
		want   float64 // f / (dt g dx dh); 0 = compute from gammaSpec and areaFactor
	}{
		// The spec's check: dt = 3 ms, nu = 4e-6, H = 0.5 mm upwind.
		{"paper/spec", CrossPaper, 0.0005, 4e-6, 0, 0, 0.0005, 0.0004, 0.874126},
		{"paper/inviscid", CrossPaper, 0.0005, 0, 0, 0, 0.0005, 0.0004, 1},
		// Film with H = dx: A = dx*min(H, dx) = dx^2, the same as the paper's.
		{"film/spec", CrossFilm, 0.0005, 4e-6, 0, 0, 0.0005, 0.0004, 0.874126},
		// Upwind: the flux runs from column 1 (depth 0.5 mm) to column 0 (depth 0.6 mm,
		// lower base): gamma must use 0.5 mm (0.874), not 0.6 mm (0.909).
		{"paper/upwind", CrossPaper, 0.0005, 4e-6, 0, 0.0002, 0.0006, 0.0005, 0.874126},
		// Thin film, H = dx/4: the film's A is a quarter of the paper's.
		{"film/thin", CrossFilm, 0.001, 4e-6, 0, 0, 0.00025, 0.0002, 0},
		{"film/thin-inviscid", CrossFilm, 0.001, 0, 0, 0, 0.00025, 0.0002, 0.25},
		{"paper/thin", CrossPaper, 0.001, 4e-6, 0, 0, 0.00025, 0.0002, 0},
		// Deep liquid: the film's A is capped at dx^2.
		{"film/deep", CrossFilm, 0.0005, 4e-6, 0, 0, 0.002, 0.0019, 0},
		// Film upwind: from column 1 (0.3 mm) into column 0 (0.45 mm, lower base); A uses 0.3 mm.
		{"film/upwind", CrossFilm, 0.001, 4e-6, 0, 0.0002, 0.00045, 0.0003, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const dt = 0.003
			st := settings(dt, tc.nu, 1)
			st.CrossSection = tc.cs
			sim := newSim(t, twoColumns(t, tc.dx, tc.b0, tc.b1), st)
			c := sim.Columns()
			h := []float32{float32(tc.b0 + tc.d0), float32(tc.b1 + tc.d1)}
			if err := sim.SetHeights(h); err != nil {
				t.Fatal(err)
			}
			if sim.NumPipes() != 1 {
				t.Fatalf("%d pipes, want 1", sim.NumPipes())
			}
			if a, b := sim.Pipe(0); a != 0 || b != 1 {
				t.Fatalf("pipe 0 joins %d and %d, want 0 and 1", a, b)
			}
			// Use the stored float32 heights: their difference is exact in float64.
			dh := float64(h[0]) - float64(h[1])
			up := 0
			if dh < 0 {
				up = 1
			}
			H := float64(h[up]) - float64(c.Base[up])
			want := tc.want
			if want == 0 {
				want = gammaSpec(H, dt, tc.nu) * areaFactor(tc.cs, H, tc.dx)
			}
			sim.Step(1)
			f := float64(sim.Fluxes(nil)[0])
			got := f / (dt * g0 * tc.dx * dh)
			if math.Abs(got-want) > 1e-5*want {
				t.Errorf("f/(dt g dx dh) = %.7f, want %.7f (H = %g m upwind)", got, want, H)
			}
			// The flux moved exactly what it says: column 0 lost f*dt/dx^2.
			s := snapshot(sim)
			dh0 := float64(s.Height[0]) - float64(h[0])
			if wantDh := -f * dt / (tc.dx * tc.dx); math.Abs(dh0-wantDh) > 1e-5*math.Abs(wantDh)+2e-10 {
				t.Errorf("column 0 changed by %g m, want -f dt/dx^2 = %g", dh0, wantDh)
			}
		})
	}
}

// TestViscosityDryColumn: the H = 0 guard. A dry column standing higher than its wet
// neighbour's surface has a head difference towards it but no liquid: its flux must be
// exactly zero (gamma = 0 with nu > 0, outflow scaling K = 0 anyway), with no NaN.
func TestViscosityDryColumn(t *testing.T) {
	for _, nu := range []float64{0, 4e-6} {
		for _, cs := range []CrossSection{CrossPaper, CrossFilm} {
			st := settings(0.003, nu, 1)
			st.CrossSection = cs
			sim := newSim(t, twoColumns(t, 0.0005, 0.002, 0), st)
			h := []float32{0.002, 0.001} // column 0 dry at 2 mm, column 1 wet to 1 mm
			if err := sim.SetHeights(h); err != nil {
				t.Fatal(err)
			}
			for step := range 10 {
				sim.Step(1)
				if f := sim.Fluxes(nil)[0]; f != 0 {
					t.Fatalf("nu=%g %v step %d: flux out of a dry column = %g, want 0", nu, cs, step, f)
				}
			}
			s := snapshot(sim)
			if s.Height[0] != h[0] || s.Height[1] != h[1] {
				t.Fatalf("nu=%g %v: heights %v, want %v unchanged", nu, cs, s.Height, h)
			}
		}
	}
}

// TestDampingFactor checks zeta = omega^dt (docs/method.md, "One step", 2: a power, 0.997923 at
// dt = 3 ms, omega = 0.5; "omega*dt" would give 0.0015 and "omega/dt" 167). With nu = 0 and
// heights where no scaling binds, the second step's flux is f2 = zeta*f1 + accel*dh2 with
// accel = dt*g*A/l, so zeta = (f2 - accel*dh2)/f1, read from the solver's own state.
func TestDampingFactor(t *testing.T) {
	const dt, dx = 0.003, 0.0005
	for _, tc := range []struct {
		omega, want float64
	}{
		{0.5, 0.997923},
		{1, 1},
		{0.01, math.Pow(0.01, dt)}, // 0.986279
	} {
		for _, cs := range []CrossSection{CrossPaper, CrossFilm} {
			st := settings(dt, 0, 1)
			st.Damping = tc.omega
			st.CrossSection = cs
			sim := newSim(t, twoColumns(t, dx, 0, 0), st)
			// Depths of 0.6 and 0.5 mm: the film's A is capped at dx^2, as the paper's.
			if err := sim.SetHeights([]float32{0.0006, 0.0005}); err != nil {
				t.Fatal(err)
			}
			accel := dt * g0 * dx
			sim.Step(1)
			f1 := float64(sim.Fluxes(nil)[0])
			s := snapshot(sim)
			dh2 := float64(s.Height[0]) - float64(s.Height[1])
			if dh2 <= 0 || f1 <= 0 {
				t.Fatalf("setup: f1 = %g, dh2 = %g, want both > 0", f1, dh2)
			}
			sim.Step(1)
			f2 := float64(sim.Fluxes(nil)[0])
			zeta := (f2 - accel*dh2) / f1
			if math.Abs(zeta-tc.want) > 2e-6 {
				t.Errorf("omega = %g %v: zeta = (f2 - accel dh2)/f1 = %.7f, want omega^dt = %.7f", tc.omega, cs, zeta, tc.want)
			}
		}
	}
}

// lakeCase is a terrain filled to a level from its lowest floor cell.
type lakeCase struct {
	name  string
	cols  func(t testing.TB) *terrain.Columns
	level float64
	full  bool // some columns must end full (h = max under a slab)
	dry   bool // some dry columns must be piped to wet ones
}

// lowestFloor returns a point just above the lowest bottom column of the grid.
func lowestFloor(c *terrain.Columns) (x, y, z float64) {
	best := math.Inf(1)
	for cy := range c.Ny {
		for cx := range c.Nx {
			lo, hi := c.Cell(cx, cy)
			if lo < hi && float64(c.Base[lo]) < best {
				best = float64(c.Base[lo])
				x, y = c.CellCentre(cx, cy)
				z = best + 1e-4
			}
		}
	}
	return x, y, z
}

// runScene builds overhangScene 30x30 at dx = 1 mm, fills it to 6 mm, adds a source over the
// upper slab and a sink on the floor (each active part of the time) and steps n steps.
func runScene(t testing.TB, st Settings, n int) *Sim {
	return runOn(t, overhangScene(t, 30, 30, 0.001), st, n)
}

// runOn is runScene on any 3 x 3 cm terrain.
func runOn(t testing.TB, c *terrain.Columns, st Settings, n int) *Sim {
	return fillAndRun(t, newSim(t, c, st), n)
}

// fillAndRun is runOn on a Sim already made.
func fillAndRun(t testing.TB, sim *Sim, n int) *Sim {
	if _, err := sim.Fill(0.015, 0.015, 0.002, 0.006); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.AddEmitter(Emitter{X: 0.008, Y: 0.022, Z: 0.025, Radius: 0.003, Rate: 4e-7, Start: 0.1, Stop: 0.8}); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.AddEmitter(Emitter{X: 0.026, Y: 0.004, Z: 0.002, Radius: 0.002, Rate: -2e-7, Start: 0.4}); err != nil {
		t.Fatal(err)
	}
	sim.Step(n)
	return sim
}

// volTol bounds |volume - (added - removed)| / added in the tests other than
// TestVolumeConservation, which holds the solver to its own tight bound. The float32 flux
// sums round by about 6e-8 of what moves each step; in small, fast-moving scenes that is up
// to 3e-8 of the volume over a run (measured), and harmless changes to the arithmetic move
// it by as much: 1e-6 keeps these tests about their own subject.
const volTol = 1e-6

// ulp32 is the spacing of float32 values at x.
func ulp32(x float32) float64 {
	x = float32(math.Abs(float64(x)))
	return float64(math.Nextafter32(x, float32(math.Inf(1))) - x)
}
