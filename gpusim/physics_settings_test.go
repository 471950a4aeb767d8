package gpusim

// Physics tests of the settings: Validate, AutoDt and its warning, Set mid-run, the memory estimate.

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// TestSettings: Validate names the field of every bad value; AutoDt and the stability
// warning; Set mid-run; the memory estimate New checks before allocating.
func TestSettings(t *testing.T) {
	t.Run("validate", func(t *testing.T) {
		if err := DefaultSettings().Validate(); err != nil {
			t.Fatalf("DefaultSettings: %v", err)
		}
		nan, inf := math.NaN(), math.Inf(1)
		for _, tc := range []struct {
			edit func(s *Settings)
			want string // "" = valid
		}{
			{func(s *Settings) { s.Dt = -0.001 }, "dt"},
			{func(s *Settings) { s.Dt = nan }, "dt"},
			{func(s *Settings) { s.Dt = inf }, "dt"},
			{func(s *Settings) { s.Viscosity = -1e-6 }, "viscosity"},
			{func(s *Settings) { s.Viscosity = nan }, "viscosity"},
			{func(s *Settings) { s.Viscosity = inf }, "viscosity"},
			{func(s *Settings) { s.Damping = -0.01 }, "damping"},
			{func(s *Settings) { s.Damping = 1.01 }, "damping"},
			{func(s *Settings) { s.Damping = nan }, "damping"},
			{func(s *Settings) { s.Damping = math.Inf(-1) }, "damping"},
			{func(s *Settings) { s.Gravity = 0 }, "gravity"},
			{func(s *Settings) { s.Gravity = -9.81 }, "gravity"},
			{func(s *Settings) { s.Gravity = nan }, "gravity"},
			{func(s *Settings) { s.Gravity = inf }, "gravity"},
			{func(s *Settings) { s.Workers = -1 }, "workers"},
			{func(s *Settings) { s.CrossSection = 7 }, "cross_section"},
			{func(s *Settings) { s.ExtendedPipes = 9 }, "extended_pipes"},
			// The edges of the valid ranges.
			{func(s *Settings) { s.Damping = 0 }, ""},
			{func(s *Settings) { s.Damping = 1 }, ""},
			{func(s *Settings) { s.Viscosity = 0 }, ""},
			{func(s *Settings) { s.Viscosity = 0.4 }, ""},
			{func(s *Settings) { s.Dt = 0 }, ""},
			{func(s *Settings) { s.Workers = 7 }, ""},
			{func(s *Settings) { s.CrossSection = CrossFilm }, ""},
		} {
			s := DefaultSettings()
			tc.edit(&s)
			err := s.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%v: unexpected error %v", s, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%v: Validate() = %v, want an error naming %q", s, err, tc.want)
			case tc.want != "":
				// New refuses them too, with the same message, before allocating.
				if sim, err2 := New(twoColumns(t, 0.001, 0, 0), s); err2 == nil || sim != nil || err2.Error() != err.Error() {
					t.Errorf("%v: New = %v, %v, want nil and %v", s, sim, err2, err)
				}
			}
		}
	})
	t.Run("auto dt", func(t *testing.T) {
		// 0.6 sqrt(dx/(2g)): 3.0288 ms at dx = 0.5 mm, g = 9.81 (docs/method.md, "Time step": the paper's 3 ms
		// is 0.59 of the 5.05 ms limit).
		if got, want := AutoDt(0.0005, 9.81), 0.6*math.Sqrt(0.0005/(2*9.81)); math.Abs(got-want) > 1e-15 || math.Abs(got-3.03e-3) > 5e-6 {
			t.Errorf("AutoDt(0.5 mm) = %g s, want %g (3.03 ms)", got, want)
		}
		if got := StableDt(0.0005, 9.81); math.Abs(got-5.048e-3) > 1e-6 {
			t.Errorf("StableDt(0.5 mm) = %g s, want 5.05 ms", got)
		}
		sim := newSim(t, twoColumns(t, 0.0005, 0, 0), settings(0, 4e-6, 1))
		if sim.Dt() != AutoDt(0.0005, 9.81) || sim.Settings().Dt != 0 {
			t.Errorf("dt = 0 runs at %g s (settings say %g), want AutoDt = %g", sim.Dt(), sim.Settings().Dt, AutoDt(0.0005, 9.81))
		}
		if w := sim.Warnings(); len(w) != 0 {
			t.Errorf("auto dt warns: %q", w)
		}
	})
	t.Run("dt above the limit warns", func(t *testing.T) {
		sim := newSim(t, twoColumns(t, 0.0005, 0, 0), settings(0.006, 4e-6, 1))
		w := sim.Warnings()
		if len(w) != 1 || !strings.Contains(w[0], "6 ms") || !strings.Contains(w[0], "5.05 ms") {
			t.Fatalf("dt = 6 ms at dx = 0.5 mm: warnings %q, want one naming 6 ms and the 5.05 ms limit", w)
		}
		if w := sim.Warnings(); len(w) != 0 {
			t.Errorf("Warnings did not clear: %q", w)
		}
		if err := sim.Set(settings(0.003, 4e-6, 1)); err != nil {
			t.Fatal(err)
		}
		if w := sim.Warnings(); len(w) != 0 {
			t.Errorf("dt = 3 ms warns: %q", w)
		}
		if err := sim.Set(settings(0.008, 4e-6, 1)); err != nil {
			t.Fatal(err)
		}
		if w := sim.Warnings(); len(w) != 1 || !strings.Contains(w[0], "8 ms") {
			t.Errorf("Set(dt = 8 ms): warnings %q", w)
		}
	})
	t.Run("set mid-run", func(t *testing.T) {
		// Two columns (depths 0.6 and 0.5 mm, dx = 0.5 mm); one step at nu = 4e-6, then Set
		// nu = 4e-5: the flux is kept through Set, and the next step applies the new
		// gamma: f2 = gamma(H, nu2) * (zeta f1 + dt g dx dh2).
		const dt, dx = 0.003, 0.0005
		sim := newSim(t, twoColumns(t, dx, 0, 0), settings(dt, 4e-6, 1))
		if err := sim.SetHeights([]float32{0.0006, 0.0005}); err != nil {
			t.Fatal(err)
		}
		sim.Step(1)
		f1 := sim.Fluxes(nil)[0]
		bad := settings(-1, 4e-5, 1)
		if err := sim.Set(bad); err == nil || !strings.Contains(err.Error(), "dt") {
			t.Fatalf("Set(dt = -1) = %v, want an error naming dt", err)
		}
		if sim.Settings().Viscosity != 4e-6 || sim.Dt() != dt {
			t.Fatalf("a refused Set changed the settings: %v, dt %g", sim.Settings(), sim.Dt())
		}
		if err := sim.Set(settings(dt, 4e-5, 2)); err != nil {
			t.Fatal(err)
		}
		if sim.Settings().Viscosity != 4e-5 || sim.Stats().Workers != 2 {
			t.Fatalf("Set did not take: %v, %d workers", sim.Settings(), sim.Stats().Workers)
		}
		if f := sim.Fluxes(nil)[0]; f != f1 {
			t.Fatalf("Set changed the flux from %g to %g", f1, f)
		}
		s := snapshot(sim)
		H := float64(s.Height[0])
		dh := float64(s.Height[0]) - float64(s.Height[1])
		sim.Step(1)
		f2 := float64(sim.Fluxes(nil)[0])
		want := gammaSpec(H, dt, 4e-5) * (math.Pow(0.5, dt)*float64(f1) + dt*g0*dx*dh)
		if math.Abs(f2-want) > 1e-5*want {
			t.Errorf("after Set(nu = 4e-5): f = %g, want gamma(nu2) (zeta f1 + accel dh) = %g (with nu1 it would be %g)",
				f2, want, gammaSpec(H, dt, 4e-6)*(math.Pow(0.5, dt)*float64(f1)+dt*g0*dx*dh))
		}
	})
	t.Run("memory estimate", func(t *testing.T) {
		// New refuses a grid when topologyBytes exceeds availableMemory. Building a grid
		// larger than this machine's memory would take that memory, so check the two parts:
		// the estimate covers what New really allocates, and the available figure is sane.
		c := overhangScene(t, 100, 100, 0.0005)
		np := countPipes(c)
		est := topologyBytes(c.NumColumns(), np)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		sim, err := New(c, settings(0, 4e-6, 2))
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		defer sim.Close()
		got := m1.TotalAlloc - m0.TotalAlloc
		t.Logf("%d columns, %d pipes: New allocated %d bytes, estimate %d", c.NumColumns(), np, got, est)
		// It guards against grids that do not fit at all: 10 % under is harmless, 3x over
		// would refuse grids that fit.
		if float64(est) < 0.9*float64(got) || est > 3*got {
			t.Errorf("topologyBytes = %d for %d columns and %d pipes, New allocated %d: want the estimate within [0.9, 3] of it",
				est, c.NumColumns(), np, got)
		}
		if a := terrain.AvailableMemory(); a < 1<<20 {
			t.Errorf("AvailableMemory = %d", a)
		}
	})
}
