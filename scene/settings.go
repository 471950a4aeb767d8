package scene

import (
	"fmt"
	"math"
	"runtime"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/surface"
)

// Settings are everything about a scene that may change mid-run: the solver's, the
// liquid surface's and the liquid's look. Change is the one way to change them.
type Settings struct {
	// Solver are the solver's settings. Its SurfaceTension, Density and ContactAngle are
	// derived (derive): the liquid's, when Capillarity is on, and the surface's contact
	// angle, which is one setting for the physics and the meniscus shading.
	Solver gpusim.Settings
	// Surface are the liquid surface's settings. Its Camera and FallDrop are not the
	// scenario's: the viewer sets the camera (SetView), the solver the fall threshold.
	Surface surface.Settings
	Liquid  Liquid
	// Capillarity turns the liquid's surface tension on in the solver: the contact-line
	// law, receding edges and, with CapillaryPressure, the capillary pressure
	// (docs/method.md, "Surface tension"). Off, the solver is the paper's method.
	Capillarity bool
	// CapillaryPressure adds the capillary pressure to the contact line when capillarity
	// is on.
	CapillaryPressure bool
	// ContactHysteresis is the advancing contact angle (Surface.ContactAngle) minus the
	// receding one, radians.
	ContactHysteresis float64
	// Waves turns the wave particles on (docs/waves.md): rings where drops land, riding
	// the flow, shown on the surface. They never change the solver's state.
	Waves bool
	// WaveAmplitude scales the impacts' waves (1: as computed; 0: drops make none).
	WaveAmplitude float64
	// WaveParticles caps the wave particles (their cost: about 0.1 ms a frame on two
	// cores per 1,000 in open liquid, more in small pools); past it impacts start no ring.
	WaveParticles int
}

// DefaultContactHysteresis is vp.sim's advancing minus receding contact angle, radians:
// 10 degrees (30 advancing, 20 receding with the default contact angle). Real solids
// have some, and it gives the contact line a dead band: with one angle a shoreline whose
// liquid stands near the wetting head flips between advancing and receding as the
// smallest wave passes, and rings (the demo's shore still moved 0.7 mm a step after 30 s).
const DefaultContactHysteresis = 10 * math.Pi / 180

// DefaultSettings are vp.sim's defaults: the solver's, the paper's surface, water, and
// capillarity on at the contact line (without the capillary pressure): at the sizes
// vpbench simulates a spill stops as a puddle, and a scene that reproduces the paper's
// method says capillarity = "off" (docs/method.md, "Surface tension").
func DefaultSettings() Settings {
	return Settings{Solver: gpusim.DefaultSettings(), Surface: surface.DefaultSettings(), Liquid: DefaultLiquid(), Capillarity: true,
		ContactHysteresis: DefaultContactHysteresis, WaveAmplitude: 1, WaveParticles: DefaultWaveParticles}.derive()
}

// derive sets the solver's fields that follow from the others: its surface tension (the
// liquid's when capillarity is on, else 0), density and contact angle.
func (s Settings) derive() Settings {
	s.Solver.SurfaceTension = 0
	if s.Capillarity {
		s.Solver.SurfaceTension = s.Liquid.SurfaceTension
	}
	s.Solver.Density, s.Solver.ContactAngle = s.Liquid.Density, s.Surface.ContactAngle
	s.Solver.CapillaryPressure, s.Solver.ContactHysteresis = s.CapillaryPressure, s.ContactHysteresis
	return s
}

// Validate names the first field that cannot be used: the liquid's, then the solver's,
// then the surface's.
func (s Settings) Validate() error {
	if err := s.Liquid.Validate(); err != nil {
		return err
	}
	if err := s.Solver.Validate(); err != nil {
		return err
	}
	if s.WaveParticles < 1 || s.WaveParticles > MaxWaveParticles {
		return fmt.Errorf("wave_particles is %d: it must be in [1, %d]", s.WaveParticles, MaxWaveParticles)
	}
	if !(s.WaveAmplitude >= 0) || math.IsInf(s.WaveAmplitude, 0) {
		return fmt.Errorf("wave_amplitude is %g: it must be a finite number >= 0 (1: as computed, 0: drops make no waves)", s.WaveAmplitude)
	}
	return s.Surface.Validate()
}

// Settings are the settings in force.
func (s *Scene) Settings() Settings { return s.settings }

// Change edits a copy of the settings in force with edit, gives the worker count the
// outside override (Config.Workers) when there is one, validates the result and applies
// it. It returns the warnings the new settings raise: a dt above the stability limit (once
// the solver exists), a worker count above the machine's cores (when it changes). An
// invalid result changes nothing and returns the error naming its field. The backend
// cannot change once the solver exists.
//
// override applies the command line's overrides of the whole run (Config.Workers,
// Config.Method) to st: the one place they act, for New and every Change alike.
func (s *Scene) override(st Settings) Settings {
	if s.workers >= 0 {
		st.Solver.Workers = s.workers
	}
	if s.method != nil {
		st.Solver.Method = *s.method
	}
	return st
}

// vp.sim, sim:set, the UI's keys and --workers all change settings here, so the override,
// the checks and the warnings are the same whichever way a user changes a setting.
func (s *Scene) Change(edit func(*Settings)) (warnings []string, err error) {
	st := s.settings
	edit(&st)
	st = s.override(st)
	st = st.derive()
	if err := st.Validate(); err != nil {
		return nil, err
	}
	if s.sim != nil && st.Solver != s.settings.Solver { // the surface's and the liquid's are the scene's alone
		if err := s.regionChange(s.settings.Solver, st.Solver); err != nil {
			return nil, err
		}
		if err := s.sim.Set(st.Solver); err != nil {
			return nil, err
		}
		warnings = s.sim.Warnings()
	}
	old := s.settings
	s.settings = st
	if err := s.syncWaves(); err != nil {
		s.settings = old
		return nil, err
	}
	if s.bodies.world != nil { // gravity and the liquid's density, validated with the rest
		_ = s.bodies.world.Set(s.bodySettings())
	}
	if n := st.Solver.Workers; n > runtime.NumCPU() && n != old.Solver.Workers {
		warnings = append(warnings, fmt.Sprintf("workers = %d is more than the %d cores of this machine: the solver's workers will wait for each other", n, runtime.NumCPU()))
	}
	return warnings, nil
}
