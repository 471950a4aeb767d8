package gpusim

import (
	"fmt"
	"math"
	"strings"
)

// CrossSection is the pipe cross-section A used in the flux update (docs/method.md,
// "Cross-section").
type CrossSection int

const (
	// CrossPaper is the paper's A = dx^2: wave speed sqrt(g dx) whatever the depth.
	CrossPaper CrossSection = iota
	// CrossFilm is the thin-film A = dx * min(H, dx), H the upwind depth: the steady viscous
	// flux is the Nusselt film's for films up to one cell deep.
	CrossFilm
)

// String returns the name scripts use: "paper" or "film".
func (c CrossSection) String() string { return nameOf(CrossSectionNames, "CrossSection", int(c)) }

// ParseCrossSection reads a script's cross_section value.
func ParseCrossSection(s string) (CrossSection, error) {
	v, err := parseName(CrossSectionNames, "cross_section", s)
	return CrossSection(v), err
}

// Method is the heightfield method the solver steps (docs/method.md, "Two methods").
type Method int

const (
	// MethodPipes is the paper's extended virtual pipes: a flux per pipe, driven by the
	// head difference, with no advection of momentum.
	MethodPipes Method = iota
	// MethodSWE is the shallow water equations on the same columns and pipes: a velocity
	// per pipe, advected with the flow, the head gradient as pressure, the flux the
	// velocity times the upwind depth (docs/solver.md, "The shallow water equations").
	MethodSWE
)

// String returns the name scripts use: "pipes" or "swe".
func (m Method) String() string { return nameOf(MethodNames, "Method", int(m)) }

// ParseMethod reads a script's method value.
func ParseMethod(s string) (Method, error) {
	v, err := parseName(MethodNames, "method", s)
	return Method(v), err
}

// ExtendedPipes selects how fully flooded passages pass liquid (docs/method.md, "Extended pipes").
type ExtendedPipes int

const (
	// ExtendedOff is the plain multi-layer method: a flooded passage blocks the flow.
	ExtendedOff ExtendedPipes = iota
	// ExtendedAxis joins the ends of full runs along x and y (paper Sec. 3.3).
	ExtendedAxis
	// ExtendedUnified is one many-to-many pipe per flooded passage (paper Sec. 7).
	ExtendedUnified
)

// String returns the name scripts use: "off", "axis" or "unified".
func (e ExtendedPipes) String() string { return nameOf(ExtendedPipesNames, "ExtendedPipes", int(e)) }

// ParseExtendedPipes reads a script's extended_pipes value.
func ParseExtendedPipes(s string) (ExtendedPipes, error) {
	v, err := parseName(ExtendedPipesNames, "extended_pipes", s)
	return ExtendedPipes(v), err
}

// Side is what one side of the domain is (docs/method.md, "Open sides").
type Side uint8

const (
	// SideWall is a wall: liquid that reaches the side stands against it (the default).
	SideWall Side = iota
	// SideOpen lets liquid leave: each step, every column on the side's border loses
	// what a pipe from rest would carry in one step into a dry outside column at its
	// floor, booked as outflow.
	SideOpen
)

// Side indices into Settings.Sides.
const (
	SideMinusX = iota
	SidePlusX
	SideMinusY
	SidePlusY
)

// SideNames are the sides' names scripts use, in Settings.Sides order.
var SideNames = [4]string{"minus_x", "plus_x", "minus_y", "plus_y"}

// String returns the name scripts use: "walls" or "open".
func (s Side) String() string { return nameOf(SideValueNames, "Side", int(s)) }

// ParseSide reads a script's value for a side: "walls" (or "wall") or "open".
func ParseSide(v string) (Side, error) {
	if v == "wall" {
		return SideWall, nil
	}
	n, err := parseName(SideValueNames, "side", v)
	return Side(n), err
}

// Settings are the solver's parameters, SI units. Every one of them may change mid-run
// through Sim.Set; the grid (dx, layers) comes with the terrain's columns.
type Settings struct {
	// Dt is the time step in seconds; 0 picks AutoDt(dx, gravity).
	Dt float64
	// Viscosity is the kinematic viscosity nu, m^2/s (0 = inviscid; 1e-6 water).
	Viscosity float64
	// Damping is omega, the fraction of a pipe's flux kept per second (zeta = omega^dt).
	Damping float64
	// Gravity is g, m/s^2.
	Gravity       float64
	CrossSection  CrossSection
	ExtendedPipes ExtendedPipes
	// Falling is what happens to liquid that leaves a column over a drop of more than
	// FallDrop: it falls as particles (the default) or, off, the pipe moves it down at once.
	Falling Falling
	// FallDrop is the drop, m, from a column's floor down to the surface its outflow would
	// enter, beyond which the outflow falls; 0 = DefaultFallDropCells cells.
	FallDrop float64
	// Workers is the number of CPU threads that step the solver; 0 = all cores. Results
	// are bit-identical for every value.
	Workers int
	// Backend picks the solver backend when the Sim is made: "" or "cpu", "cuda" (the
	// cuda build, see docs/cuda.md), or "auto" (cuda when the build has it and a GPU is
	// usable, else cpu). It cannot change mid-run.
	Backend string
	// SurfaceTension is the liquid's surface tension sigma, N/m (water 0.072); 0 turns
	// the capillary physics off (the paper's method).
	SurfaceTension float64
	// Density is the liquid's density rho, kg/m^3 (water 1000): with sigma and g it sets
	// the capillary length sqrt(sigma / (rho g)).
	Density float64
	// ContactAngle is Young's contact angle theta between the liquid and the solids,
	// radians in [0, pi] (through the liquid). With surface tension, liquid advances onto
	// a dry column only where the head difference exceeds the wetting head
	// 2 l_c sin(theta / 2) (WettingHead): a spill stops as a puddle that thick.
	ContactAngle float64
	// Sides are the domain's sides in the order -x, +x, -y, +y (SideMinusX ...): walls
	// (the zero value) or open, where the border columns drain out of the domain
	// (docs/method.md, "Open sides").
	Sides [4]Side
	// ContactHysteresis is the advancing angle (ContactAngle) minus the receding one,
	// radians, >= 0: a wet edge thinner than the receding wetting head
	// 2 l_c sin(theta_r / 2) (RecedingHead) recedes, so a puddle rests anywhere between
	// the two heads. 0: one angle, and a puddle stops at the wetting head.
	ContactHysteresis float64
	// Method is the heightfield method: the virtual pipes (the zero value) or the shallow
	// water equations. A change mid-run (the CPU backend only) remakes the backend with
	// the liquid and its flow carried over (the SWE's velocities from the fluxes).
	Method Method
	// CapillaryPressure adds the capillary pressure -sigma*kappa to the pipes' head (with
	// surface tension on): ripples, rounded edges, beaded drops. Off, surface tension acts
	// at the contact line alone (docs/method.md, "Surface tension"); off by default, for
	// its cost at the paper's step.
	CapillaryPressure bool
}

// DryDepth is the depth, m, at or below which a column counts as dry for the
// contact-line law: a film thinner than a micron does not let liquid through freely.
const DryDepth = 1e-6

// CapillaryLength is sqrt(sigma / (rho g)), m: 2.71 mm for water. 0 without surface
// tension.
func (s Settings) CapillaryLength() float64 {
	if s.SurfaceTension <= 0 {
		return 0
	}
	return math.Sqrt(s.SurfaceTension / (s.Density * s.Gravity))
}

// WettingHead is the head difference, m, a pipe needs to carry liquid into a dry column:
// 2 l_c sin(theta / 2), the thickness at which a large puddle's weight spreads it
// (rho g h^2 / 2, per unit length of its edge) as hard as wetting more of the solid costs
// (sigma (1 - cos theta)). 0 without surface tension. docs/method.md, "Surface tension".
func (s Settings) WettingHead() float64 {
	return 2 * s.CapillaryLength() * math.Sin(s.ContactAngle/2)
}

// RecedingAngle is the contact angle at which a wet edge recedes, radians.
func (s Settings) RecedingAngle() float64 {
	return max(s.ContactAngle-s.ContactHysteresis, 0)
}

// RecedingHead is the depth, m, below which a wet edge recedes: 2 l_c sin(theta_r / 2),
// theta_r the receding angle. 0 without surface tension.
func (s Settings) RecedingHead() float64 {
	return 2 * s.CapillaryLength() * math.Sin(s.RecedingAngle()/2)
}

// DefaultSettings are the vp.sim defaults of the scripting contract (docs/scripting.md) that the solver owns.
func DefaultSettings() Settings {
	return Settings{
		Dt:            0,
		Viscosity:     4e-6,
		Damping:       0.5,
		Gravity:       9.81,
		CrossSection:  CrossPaper,
		ExtendedPipes: ExtendedUnified,
		Falling:       FallingParticles,
		Density:       1000,
		ContactAngle:  30 * math.Pi / 180,
	}
}

// Validate names the first field that cannot be used. It checks values only; Sim.New and
// Sim.Set call it before they change anything.
func (s Settings) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
		ok   bool
		want string
	}{
		{"dt", s.Dt, s.Dt >= 0, ">= 0 seconds (0 = auto)"},
		{"viscosity", s.Viscosity, s.Viscosity >= 0, ">= 0 m^2/s"},
		{"damping", s.Damping, s.Damping >= 0 && s.Damping <= 1, "in [0, 1] (fraction of flux kept per second)"},
		{"gravity", s.Gravity, s.Gravity > 0, "> 0 m/s^2"},
		{"fall_drop", s.FallDrop, s.FallDrop >= 0, ">= 0 m (0 = 8 cells)"},
		{"surface_tension", s.SurfaceTension, s.SurfaceTension >= 0 && s.SurfaceTension <= 10, "in [0, 10] N/m (water 0.072; 0 = off)"},
		{"density", s.Density, s.Density > 0 && s.Density <= 1e5, "in (0, 1e5] kg/m^3 (water 1000)"},
		{"contact_angle", s.ContactAngle, s.ContactAngle >= 0 && s.ContactAngle <= math.Pi, "in [0, pi] radians"},
		{"contact_hysteresis", s.ContactHysteresis, s.ContactHysteresis >= 0 && s.ContactHysteresis <= s.ContactAngle,
			"in [0, contact_angle] radians (the advancing angle minus the receding one)"},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s is %v: it must be a finite number, %s", f.name, f.v, f.want)
		}
		if !f.ok {
			return fmt.Errorf("%s is %g: it must be %s", f.name, f.v, f.want)
		}
	}
	if s.Method != MethodPipes && s.Method != MethodSWE {
		return fmt.Errorf("method is %v: want \"pipes\" or \"swe\"", s.Method)
	}
	if s.CrossSection != CrossPaper && s.CrossSection != CrossFilm {
		return fmt.Errorf("cross_section is %v: want \"paper\" or \"film\"", s.CrossSection)
	}
	switch s.ExtendedPipes {
	case ExtendedOff, ExtendedAxis, ExtendedUnified:
	default:
		return fmt.Errorf("extended_pipes is %v: want \"off\", \"axis\" or \"unified\"", s.ExtendedPipes)
	}
	if s.Falling != FallingParticles && s.Falling != FallingOff {
		return fmt.Errorf("falling is %v: want \"particles\" or \"off\"", s.Falling)
	}
	for k, sd := range s.Sides {
		if sd != SideWall && sd != SideOpen {
			return fmt.Errorf("sides.%s is %v: want \"walls\" or \"open\"", SideNames[k], sd)
		}
	}
	if s.Workers < 0 {
		return fmt.Errorf("workers is %d: it must be >= 0 (0 = all cores)", s.Workers)
	}
	if !HasBackend(s.Backend) {
		return fmt.Errorf("backend is %q: want \"auto\", \"cpu\" or \"cuda\"", s.Backend)
	}
	return nil
}

// StableDt is the linear stability limit of the flux and height updates, in seconds. The
// scheme is symplectic Euler on d2h/dt2 = (A g / (l dx^2)) * (discrete Laplacian); the
// Laplacian's largest eigenvalue on a 4-neighbour grid is 8, so the step is stable while
// dt <= 2 / sqrt(8 A g / (l dx^2)). Both cross-sections have A/l <= dx (the film one caps
// A at dx^2), so the limit is sqrt(dx / (2 g)) for both: 5.05 ms at dx = 0.5 mm.
// Damping and viscosity only shrink fluxes and do not lower it.
func StableDt(dx, gravity float64) float64 {
	return math.Sqrt(dx / (2 * gravity))
}

// AutoDtFraction is the share of StableDt that dt = "auto" takes. The paper runs
// dt = 3 ms at dx = 0.5 mm (0.59 of the limit); 0.6 reproduces that.
const AutoDtFraction = 0.6

// AutoDt is the step dt = "auto" picks: AutoDtFraction of StableDt.
func AutoDt(dx, gravity float64) float64 {
	return AutoDtFraction * StableDt(dx, gravity)
}

// dtWarning returns a warning when dt exceeds the stability limit, naming both values, or "".
func dtWarning(dt, dx, gravity float64) string {
	lim := StableDt(dx, gravity)
	if dt <= lim {
		return ""
	}
	return fmt.Sprintf("dt = %.3g ms is above the stability limit %.3g ms for dx = %g m (sqrt(dx/(2g))): "+
		"the flux scaling keeps volume and bounds, but waves may ring; dt = \"auto\" picks %.3g ms",
		dt*1e3, lim*1e3, dx, AutoDt(dx, gravity)*1e3)
}

// String lists the settings in the names scripts use.
func (s Settings) String() string {
	var b strings.Builder
	dt := "auto"
	if s.Dt > 0 {
		dt = fmt.Sprintf("%g", s.Dt)
	}
	fmt.Fprintf(&b, "method=%s dt=%s viscosity=%g damping=%g gravity=%g cross_section=%s extended_pipes=%s falling=%s fall_drop=%g workers=%d surface_tension=%g density=%g contact_angle=%g sides=%s",
		s.Method, dt, s.Viscosity, s.Damping, s.Gravity, s.CrossSection, s.ExtendedPipes, s.Falling, s.FallDrop, s.Workers, s.SurfaceTension, s.Density, s.ContactAngle, s.SidesString())
	return b.String()
}

// SidesString names the sides as scripts write them: "walls" or "open" when all four
// agree, else each open one, e.g. "open(minus_x,plus_y)".
func (s Settings) SidesString() string {
	var open []string
	for k, sd := range s.Sides {
		if sd == SideOpen {
			open = append(open, SideNames[k])
		}
	}
	switch len(open) {
	case 0:
		return "walls"
	case 4:
		return "open"
	}
	return "open(" + strings.Join(open, ",") + ")"
}

// HasBackend tells whether Settings.Backend may be name: "" (cpu), "auto", "cpu", "cuda",
// or a name RegisterHostKernelBackends made usable.
func HasBackend(name string) bool {
	_, ok := runtimes[name]
	return ok || name == "" || name == "cpu" || name == "auto"
}
