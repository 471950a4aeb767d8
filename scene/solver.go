package scene

import (
	"io"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// The solver's door: everything of the solver the run loop, the script binding and the
// tools need, by concept, so that none of them holds the solver itself (docs/
// architecture.md, "The scene is the only way in"). The solver's own vocabulary (its
// settings, emitters, meters, snapshot) is named here as aliases, so that a package
// speaks it without importing gpusim.

// The solver's types, as the scene's users name them.
type (
	// SolverSettings are the solver's settings (Settings.Solver).
	SolverSettings = gpusim.Settings
	// Emitter is a source or a sink (AddEmitter).
	Emitter = gpusim.Emitter
	// Meter is a flow meter's line (AddMeter).
	Meter = gpusim.Meter
	// Snapshot is the solver's state at a step boundary (Snapshot).
	Snapshot = gpusim.Snapshot
	// Stats are the solver's counters (Stats).
	Stats = gpusim.Stats
	// Region bounds a volume query (Volume's region).
	Region = gpusim.Region
	// Particle is a parcel of falling liquid (Particles).
	Particle = gpusim.Particle
	// Method, Side and Falling are enumerated solver settings.
	Method  = gpusim.Method
	Side    = gpusim.Side
	Falling = gpusim.Falling
)

// The enumerated settings' values the scene's users name.
const (
	MethodPipes      = gpusim.MethodPipes
	MethodSWE        = gpusim.MethodSWE
	SideWall         = gpusim.SideWall
	SideOpen         = gpusim.SideOpen
	FallingOff       = gpusim.FallingOff
	FallingParticles = gpusim.FallingParticles
)

// AllRegion is the whole domain, every column (a Region to narrow).
var AllRegion = gpusim.AllRegion

// SideNames are the domain's sides' names scripts use, in SolverSettings.Sides order.
var SideNames = gpusim.SideNames

// The enumerated settings' name tables (gpusim/names.go): the script's parser and the
// command line read them, so that a name is written once.
var (
	MethodNames        = gpusim.MethodNames
	CrossSectionNames  = gpusim.CrossSectionNames
	ExtendedPipesNames = gpusim.ExtendedPipesNames
	FallingNames       = gpusim.FallingNames
	SideValueNames     = gpusim.SideValueNames
)

// WantNames lists names as a message does: `"a" or "b"`, `"a", "b" or "c"`.
func WantNames(names []string) string { return gpusim.WantNames(names) }

// CanonicalName is the name of names that s spells, its ASCII letters' case ignored
// ("SWE" is "swe"); ok is false when s spells none.
func CanonicalName(names []string, s string) (string, bool) { return gpusim.CanonicalName(names, s) }

// ErrNoCUDA is what asking for the cuda backend gives in a build without it.
var ErrNoCUDA = gpusim.ErrNoCUDA

// ParseMethod, ParseSide and ParseFalling read an enumerated setting's name.
func ParseMethod(s string) (Method, error)   { return gpusim.ParseMethod(s) }
func ParseSide(s string) (Side, error)       { return gpusim.ParseSide(s) }
func ParseFalling(s string) (Falling, error) { return gpusim.ParseFalling(s) }

// HasBackend tells whether a solver backend of that name can be built ("", "cpu",
// "cuda" or a registered host-kernel backend).
func HasBackend(name string) bool { return gpusim.HasBackend(name) }

// CUDAAvailable is the CUDA device's name, or why there is none.
func CUDAAvailable() (string, error) { return gpusim.CUDAAvailable() }

// HasSolver tells whether the solver is built (the first terrain, or EnsureSolver).
func (s *Scene) HasSolver() bool { return s.sim != nil }

// Steps is the solver steps taken.
func (s *Scene) Steps() int64 { return s.sim.Steps() }

// Dt is the solver's time step, s.
func (s *Scene) Dt() float64 { return s.sim.Dt() }

// SolverSettings are the settings the solver runs with now (Settings().Solver once
// applied, with the overrides and the resolved backend).
func (s *Scene) SolverSettings() SolverSettings { return s.sim.Settings() }

// Columns are the solver's columns: the grid and each column's floor and ceiling.
func (s *Scene) Columns() *terrain.Columns { return s.sim.Columns() }

// Stats are the solver's counters (safe from any goroutine, as Snapshot's copy is not).
// With a region in place, Volume is the scene's exact volume, the region's liquid
// included (the solver's sums the held columns' heights).
func (s *Scene) Stats() Stats {
	st := s.sim.Stats()
	if v, ok := s.exactVolume(); ok {
		st.Volume = v
	}
	return st
}

// Volume is the liquid on the columns, in the air and in the region, m^3.
func (s *Scene) Volume() float64 { return s.sim.Volume() + s.regionVolume() }

// Accounting is what the sources added, the sinks and open sides removed and what could
// not be placed, m^3, since the start.
func (s *Scene) Accounting() (added, removed, rejected float64) { return s.sim.Accounting() }

// Heights copies the columns' liquid heights at the last step boundary into dst.
func (s *Scene) Heights(dst []float32) []float32 { return s.sim.Heights(dst) }

// Particles copies the falling liquid's parcels into dst.
func (s *Scene) Particles(dst []Particle) []Particle { return s.sim.Particles(dst) }

// Displaced is the liquid the bodies' and terrain's lifted floors hold out of the
// columns, m^3.
func (s *Scene) Displaced() float64 { return s.sim.Displaced() }

// FallDrop is the falling liquid's release threshold in use, m.
func (s *Scene) FallDrop() float64 { return s.sim.FallDrop() }

// Sprays is the number of sprays (falling sources) that act.
func (s *Scene) Sprays() int { return s.sim.Sprays() }

// Warnings are the solver's warnings since the last call (once each), then the bodies'
// (one line a body that left through an open side).
func (s *Scene) Warnings() []string {
	if w := s.takeBodyWarnings(); len(w) > 0 {
		return append(s.sim.Warnings(), w...)
	}
	return s.sim.Warnings()
}

// AddMeter adds a flow meter across the line of m and returns its id.
func (s *Scene) AddMeter(m Meter) (int, error) { return s.sim.AddMeter(m) }

// Meters is the number of flow meters.
func (s *Scene) Meters() int { return s.sim.Meters() }

// Meter is flow meter id's line and height range, as made.
func (s *Scene) Meter(id int) (Meter, error) { return s.sim.Meter(id) }

// Emitters is the solver's sources and sinks, in the order made (ids 0, 1, ...), as they
// are now: whether each falls, sprays or holds a level, and its rate.
func (s *Scene) Emitters() []Emitter {
	out := make([]Emitter, s.sim.Emitters())
	for id := range out {
		out[id], _ = s.sim.Emitter(id)
	}
	return out
}

// MeterRate is meter id's flow rate over the last step, m^3/s.
func (s *Scene) MeterRate(id int) (float64, error) { return s.sim.MeterRate(id) }

// MeterTotal is the volume through meter id since it was added, m^3.
func (s *Scene) MeterTotal(id int) (float64, error) { return s.sim.MeterTotal(id) }

// MeterTotals are every meter's total, in the order made (a checkpoint's).
func (s *Scene) MeterTotals() []float64 { return s.sim.MeterTotals() }

// SetMeterTotals restores the meters' totals (a checkpoint's).
func (s *Scene) SetMeterTotals(t []float64) error { return s.sim.SetMeterTotals(t) }

// WriteSolverCheckpoint writes the solver's whole state (the world's half of a
// checkpoint is WriteCheckpoint's).
func (s *Scene) WriteSolverCheckpoint(w io.Writer) error { return s.sim.WriteCheckpoint(w) }

// Readout is what a viewer shows of the world at a step boundary: one value, built from
// the scene's own snapshot (no second copy of the grid).
type Readout struct {
	// Snap is the scene's snapshot: read it, do not keep it past the next step.
	Snap     *Snapshot
	Stats    Stats
	Settings SolverSettings
	FallDrop float64
	// Waves tells whether the wave particles act, WaveCount how many there are.
	Waves     bool
	WaveCount int
	Bodies    int
	Sprays    int
	// MeterRates and MeterTotals are the meters' figures in the order made (appended to
	// the slices passed in, which are reset).
	MeterRates, MeterTotals []float64
	// Region is the 3D region in place (RegionInfo), HasRegion whether there is one.
	Region    RegionInfo
	HasRegion bool
}

// Read fills r from the scene now, reusing r's slices.
func (s *Scene) Read(r *Readout) {
	r.Snap = s.Snapshot()
	r.Stats = s.Stats()
	r.Settings = s.sim.Settings()
	r.FallDrop = s.sim.FallDrop()
	r.Waves, r.WaveCount = s.WavesOn(), s.WaveCount()
	r.Bodies, r.Sprays = s.BodyCount(), s.sim.Sprays()
	r.Region, r.HasRegion = s.RegionInfo()
	r.MeterRates, r.MeterTotals = r.MeterRates[:0], r.MeterTotals[:0]
	for id := range s.sim.Meters() {
		q, _ := s.sim.MeterRate(id)
		v, _ := s.sim.MeterTotal(id)
		r.MeterRates, r.MeterTotals = append(r.MeterRates, q), append(r.MeterTotals, v)
	}
}

// The rest of the solver's settings' vocabulary.

// CrossSection is the pipes' cross-section setting (SolverSettings.CrossSection).
type CrossSection = gpusim.CrossSection

// ExtendedPipes is how fully flooded passages pass liquid (SolverSettings.ExtendedPipes).
type ExtendedPipes = gpusim.ExtendedPipes

// The cross-section's and the extended pipes' values.
const (
	// CrossPaper is the paper's cross-section, dx^2.
	CrossPaper = gpusim.CrossPaper
	// CrossFilm is the thin-film cross-section, dx * min(H, dx).
	CrossFilm = gpusim.CrossFilm
	// ExtendedOff blocks the flow through a flooded passage.
	ExtendedOff = gpusim.ExtendedOff
	// ExtendedAxis joins the ends of full runs along x and y.
	ExtendedAxis = gpusim.ExtendedAxis
	// ExtendedUnified is one many-to-many pipe per flooded passage.
	ExtendedUnified = gpusim.ExtendedUnified
)

// ParseCrossSection reads a cross-section's name ("paper" or "film").
func ParseCrossSection(s string) (CrossSection, error) { return gpusim.ParseCrossSection(s) }

// ParseExtendedPipes reads an extended-pipes mode's name ("off", "axis" or "unified").
func ParseExtendedPipes(s string) (ExtendedPipes, error) { return gpusim.ParseExtendedPipes(s) }

// StableDt is the solver's stability limit on dt for cell size dx and gravity, s.
func StableDt(dx, gravity float64) float64 { return gpusim.StableDt(dx, gravity) }

// AutoDt is the step dt = "auto" picks for cell size dx and gravity, s.
func AutoDt(dx, gravity float64) float64 { return gpusim.AutoDt(dx, gravity) }

// DefaultSolverSettings are the solver's own defaults (before the scene's, DefaultSettings).
func DefaultSolverSettings() SolverSettings { return gpusim.DefaultSettings() }

// LiveHeights returns the columns' heights now, m (the solver's own array on the CPU
// backend: read it, never write it; elsewhere a copy in dst).
func (s *Scene) LiveHeights(dst []float32) []float32 { return s.sim.LiveHeights(dst) }

// CopySnapshot copies the solver's last published state into dst, reusing its slices
// (safe from any goroutine while another steps, unlike Snapshot's shared copy).
// With a region in place its Volume is the scene's exact volume, as Snapshot's.
func (s *Scene) CopySnapshot(dst *Snapshot) {
	s.sim.Snapshot(dst)
	if v, ok := s.exactVolume(); ok {
		dst.Volume = v
	}
}
