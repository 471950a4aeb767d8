package waves

import (
	"fmt"
	"math"
	"runtime"
)

// Defaults and fixed numbers of the method (docs/waves.md gives the reasons).
const (
	// WetDepth is the depth, m, above which a column counts as wet: waves live only on
	// wet columns, and the field is 0 on the others.
	WetDepth = 1e-5
	// DefaultMinAmplitude is MinAmplitude's value when it is 0, m.
	DefaultMinAmplitude = 1e-6
	// DefaultMaxParticles is MaxParticles's value when it is 0.
	DefaultMaxParticles = 200000
	// DefaultStep is the wave step when Settings.Step is 0, s.
	DefaultStep = 1.0 / 120
	// DefaultRadiusCells is the default kernel radius in cells (Radius 0 = 3 dx).
	DefaultRadiusCells = 3
	// RingParticles is the number of particles in an impact's ring: the fewest that keep
	// neighbours at most Radius/2 apart on a ring of radius Radius (2 sin(pi/N) <= 1/2).
	RingParticles = 13
	// maxWorkers bounds Settings.Workers.
	maxWorkers = 256
	// maxStep bounds Settings.Step, s.
	maxStep = 1.0
	// maxParticlesLimit bounds Settings.MaxParticles (particle indices are int32).
	maxParticlesLimit = 1 << 30
)

// Settings are the physical constants and the limits of a System, all in SI units.
// The zero value is not usable: Density must be > 0 and Gravity and SurfaceTension not
// both 0; Water gives water's values.
type Settings struct {
	Gravity        float64 // g, m/s^2 (9.81)
	SurfaceTension float64 // sigma, N/m (0 = pure gravity waves)
	Density        float64 // rho, kg/m^3 (> 0)
	Viscosity      float64 // nu, m^2/s: damping, amplitude *= exp(-2 nu k^2 dt)
	Amplitude      float64 // scale on impacts' amplitudes (1 = as computed); 0 = impacts make no waves
	Radius         float64 // default kernel radius of impacts' particles, m (0 = 3 dx)
	MinAmplitude   float64 // particles whose |amplitude| falls below are removed, m (0 = DefaultMinAmplitude)
	MaxParticles   int     // cap on live particles (0 = DefaultMaxParticles); impacts beyond it are dropped, counted
	Workers        int     // goroutines (0 = runtime.GOMAXPROCS); results never depend on it

	Step      float64 // wave step, s (0 = DefaultStep): fixed, whatever Advance is called with
	CrestOnly bool    // impacts start a crest ring only, without the trough ring that trails it
}

// Water returns the settings of water at 20 C: g 9.81 m/s^2, sigma 0.072 N/m, rho 1000
// kg/m^3, nu 1e-6 m^2/s, Amplitude 1, the other fields at their defaults.
func Water() Settings {
	return Settings{Gravity: 9.81, SurfaceTension: 0.072, Density: 1000, Viscosity: 1e-6, Amplitude: 1}
}

// Validate reports the first field of st that cannot be used, naming it.
func (st Settings) Validate() error {
	for _, f := range []struct {
		name, unit string
		v          float64
		positive   bool // must be > 0, not only >= 0
	}{
		{"Gravity", "m/s^2", st.Gravity, false},
		{"SurfaceTension", "N/m", st.SurfaceTension, false},
		{"Density", "kg/m^3", st.Density, true},
		{"Viscosity", "m^2/s", st.Viscosity, false},
		{"Amplitude", "", st.Amplitude, false},
		{"Radius", "m", st.Radius, false},
		{"MinAmplitude", "m", st.MinAmplitude, false},
		{"Step", "s", st.Step, false},
	} {
		unit := ""
		if f.unit != "" {
			unit = " " + f.unit
		}
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("waves: %s is %v: it must be a finite number", f.name, f.v)
		}
		if f.positive && f.v <= 0 {
			return fmt.Errorf("waves: %s is %g%s: it must be > 0", f.name, f.v, unit)
		}
		if f.v < 0 {
			return fmt.Errorf("waves: %s is %g%s: it must be >= 0", f.name, f.v, unit)
		}
	}
	if st.Gravity == 0 && st.SurfaceTension == 0 {
		return fmt.Errorf("waves: Gravity and SurfaceTension are both 0: waves would not move")
	}
	if st.Step > maxStep {
		return fmt.Errorf("waves: Step is %g s: it must be at most %g s", st.Step, maxStep)
	}
	if st.MaxParticles < 0 || st.MaxParticles > maxParticlesLimit {
		return fmt.Errorf("waves: MaxParticles is %d: it must be in 0 .. %d (0 = %d)", st.MaxParticles, maxParticlesLimit, DefaultMaxParticles)
	}
	if st.Workers < 0 || st.Workers > maxWorkers {
		return fmt.Errorf("waves: Workers is %d: it must be in 0 .. %d (0 = GOMAXPROCS)", st.Workers, maxWorkers)
	}
	return nil
}

// params are the settings with their defaults filled in, for a grid of cell size dx.
type params struct {
	g, s     float64 // gravity; surface tension over density (m^3/s^2)
	nu       float64
	ampScale float64
	radius   float64 // default kernel radius, m
	minAmp   float32
	maxP     int
	workers  int
	dt       float64
	trough   bool
}

func resolve(st Settings, dx float64) params {
	p := params{
		g: st.Gravity, s: st.SurfaceTension / st.Density, nu: st.Viscosity, ampScale: st.Amplitude,
		radius: st.Radius, minAmp: float32(st.MinAmplitude), maxP: st.MaxParticles,
		workers: st.Workers, dt: st.Step, trough: !st.CrestOnly,
	}
	if p.radius == 0 {
		p.radius = DefaultRadiusCells * dx
	}
	if p.minAmp == 0 {
		p.minAmp = DefaultMinAmplitude
	}
	if p.maxP == 0 {
		p.maxP = DefaultMaxParticles
	}
	if p.workers == 0 {
		p.workers = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	if p.dt == 0 {
		p.dt = DefaultStep
	}
	return p
}
