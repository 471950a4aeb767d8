package scene

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// Config is what a scene is made of: its domain and grid, its settings at the start,
// and what the command line sets from outside.
type Config struct {
	// Name names the scene in messages and file names (the script's base name).
	Name string
	// Domain is the simulated box and its cell size.
	Domain terrain.Domain
	// Layers is the most columns a cell holds (>= 1).
	Layers int
	// Settings are the settings at the start. Settings.Solver.Backend is the backend to
	// build ("" or "cpu", "cuda", or a registered host-kernel backend); it cannot change.
	Settings Settings
	// Workers < 0 keeps the settings' worker count; >= 0 overrides it, in New and in
	// every Change, for the whole run (--workers; 0 = all cores).
	Workers int
	// Method, when not "", overrides the heightfield method ("pipes" or "swe"), in New and
	// in every Change, for the whole run (--method): whatever the script sets.
	Method string
}

// Scene is the simulated world: the solver, the terrain, the liquid surface and the
// liquid's look. Make one with New; the solver comes with the first terrain (SetTerrain,
// EnsureSolver).
type Scene struct {
	name     string
	domain   terrain.Domain
	layers   int
	workers  int      // Config.Workers: the override, or < 0
	method   *Method  // Config.Method: the override, or nil
	settings Settings // the settings in force (the solver's are sim.Settings() once it exists)
	view     view     // the viewer's camera and meniscus switch (SetView)
	camera   camera   // the scenario's camera (SetCamera), for the preview

	sim         *gpusim.Sim // nil until the first terrain
	solid       terrain.Solid
	lastDropped int // Columns.Dropped of the last extraction (warned once per change)
	surf        surfaceState
	overlap     overlapState // the surface built beside the steps (overlap.go)
	waves       waveState
	bodies      bodyState
	sinks       sinkState   // the sources and sinks added, for the sinks' marks (sinks.go)
	bodyErr     error       // what the bodies' coupling last met (BodyError)
	rg          regionState // the 3D region (region.go)
	closed      bool

	snap   gpusim.Snapshot
	snapOK bool

	timeBits atomic.Uint64 // math.Float64bits of the simulated time
	// regionTotal is math.Float64bits of the exact volume while regionOn (bookRegion).
	regionTotal atomic.Uint64
	regionOn    atomic.Bool
}

// New validates cfg (the domain, the grid's memory need, the settings) before anything
// large is allocated and returns the scene, without a solver yet, and the warnings its
// settings raise.
func New(cfg Config) (*Scene, []string, error) {
	if cfg.Layers < 1 {
		return nil, nil, fmt.Errorf("layers is %d: it must be at least 1", cfg.Layers)
	}
	s := &Scene{name: cfg.Name, domain: cfg.Domain, layers: cfg.Layers, workers: cfg.Workers, settings: DefaultSettings()}
	if cfg.Method != "" {
		m, err := ParseMethod(cfg.Method)
		if err != nil {
			return nil, nil, fmt.Errorf("method %q (set from outside the script): want \"pipes\" or \"swe\"", cfg.Method)
		}
		s.method = &m
	}
	st := s.override(cfg.Settings)
	st = st.derive()
	if err := st.Validate(); err != nil {
		return nil, nil, err
	}
	if err := cfg.Domain.Validate(); err != nil {
		return nil, nil, err
	}
	nx, ny := cfg.Domain.Grid()
	if err := gpusim.CheckMemory(nx, ny, cfg.Layers); err != nil {
		d := cfg.Domain
		return nil, nil, fmt.Errorf("size = {%g, %g}, dx = %g and layers = %d make a grid too large for this machine: %s",
			d.SizeX, d.SizeY, d.Dx, cfg.Layers, strings.TrimPrefix(err.Error(), "terrain: "))
	}
	warnings, err := s.Change(func(s *Settings) { *s = st })
	if err != nil {
		return nil, nil, err
	}
	return s, warnings, nil
}

// Name is the scene's name (Config.Name). Safe from any goroutine.
func (s *Scene) Name() string { return s.name }

// Domain is the simulated box and its cell size.
func (s *Scene) Domain() terrain.Domain { return s.domain }

// Layers is the most columns a cell holds.
func (s *Scene) Layers() int { return s.layers }

// Time is the simulated time in seconds (safe from any goroutine).
func (s *Scene) Time() float64 { return math.Float64frombits(s.timeBits.Load()) }

func (s *Scene) storeTime() {
	if s.sim != nil {
		s.timeBits.Store(math.Float64bits(s.sim.Time()))
	}
}

// Step runs n solver steps (see gpusim.Sim.Step), updating the bodies every BodyStep,
// then the waves up to the state they published.
func (s *Scene) Step(n int) {
	s.stepWithBodies(n)
	s.stale()
	s.storeTime()
	s.stepWaves()
}

// SetPipelined lets Step return once its steps are queued on a device backend (see
// gpusim.Sim.SetPipelined): the surface and the UI then work from the previous frame's
// published state while the device steps. The CPU backend is not affected. Runners turn
// it on while running freely, and call Sync (or turn it off) when they stop.
func (s *Scene) SetPipelined(on bool) {
	if s.sim != nil {
		s.sim.SetPipelined(on)
	}
}

// Sync waits for the steps in flight (SetPipelined) and publishes their state.
func (s *Scene) Sync() {
	if s.sim != nil && !s.closed && s.sim.Sync() {
		s.stale()
	}
}

// stale says the solver's state changed: the snapshot and the waves' flow are read again
// when next asked for.
func (s *Scene) stale() {
	s.snapOK = false
	s.waves.flowOK = false
	s.bookRegion()
}

// Snapshot is the solver's state now, copied once per step boundary: the caller must not
// keep it past the next change of the state.
func (s *Scene) Snapshot() *gpusim.Snapshot {
	if !s.snapOK {
		s.sim.Snapshot(&s.snap)
		if v, ok := s.exactVolume(); ok {
			s.snap.Volume = v
		}
		s.snapOK = true
	}
	return &s.snap
}

// Fill pours liquid into the free space connected to (x, y, z) up to level (see
// gpusim.Sim.Fill) and returns the volume added, m^3.
func (s *Scene) Fill(x, y, z, level float64) (float64, error) {
	if err := s.regionRefuses("a fill cannot pour into the columns (the region owns those under it)"); err != nil {
		return 0, err
	}
	added, err := s.sim.Fill(x, y, z, level)
	s.stale()
	return added, err
}

// FillMoving is Fill with the filled liquid set moving at (u, v) m/s (see
// gpusim.Sim.FillMoving).
func (s *Scene) FillMoving(x, y, z, level, u, v float64) (float64, error) {
	if err := s.regionRefuses("a fill cannot pour into the columns (the region owns those under it)"); err != nil {
		return 0, err
	}
	added, err := s.sim.FillMoving(x, y, z, level, u, v)
	s.stale()
	return added, err
}

// Drop releases a parcel of liquid in the air (see gpusim.Sim.Drop).
func (s *Scene) Drop(x, y, z, vol, vx, vy, vz float64) error {
	err := s.sim.Drop(x, y, z, vol, vx, vy, vz)
	s.stale()
	return err
}

// Close stops the solver. It is safe to call more than once.
func (s *Scene) Close() {
	if s.closed {
		return
	}
	s.stopOverlap()
	s.closed = true
	if s.rg.g != nil {
		s.rg.g.Close()
		s.rg.g = nil
	}
	if s.waves.sys != nil {
		s.waves.sys.Close()
	}
	if s.sim != nil {
		s.sim.Close()
	}
}

// Info describes a scene, for `vpbench check` and sim:info().
type Info struct {
	Name             string
	Nx, Ny, Layers   int
	Dx, Height       float64 // m
	SizeX, SizeY     float64 // m: the domain's size (the grid covers Nx*Dx by Ny*Dx)
	Columns, Pipes   int
	DroppedIntervals int    // free intervals below the topmost Layers, treated as solid
	TerrainMarched   string // why the columns were marched up each ray (terrain.MarchReason); "" if they were not
	MemoryBytes      uint64 // gpusim.MemoryEstimate(Nx, Ny, Layers)
	Dt, StableDt     float64
	Backend          string
	Workers          int
	Settings         gpusim.Settings
	FallDrop         float64 // m: the release threshold in use (Settings.FallDrop, or its default)
	// CapillarySmoothing is the smoothing passes the capillary pressure takes at this dt
	// (gpusim.CapillarySmoothing).
	CapillarySmoothing int
}

// Info describes the scene: grid, columns, time step and backend. It needs the solver
// (EnsureSolver).
func (s *Scene) Info() Info {
	s.Sync()
	c := s.sim.Columns()
	st := s.sim.Stats()
	return Info{
		Name: s.name, Nx: c.Nx, Ny: c.Ny, Layers: c.Layers, Dx: c.Dx, Height: c.Height,
		SizeX: s.domain.SizeX, SizeY: s.domain.SizeY,
		Columns: c.NumColumns(), Pipes: s.sim.NumPipes(), DroppedIntervals: c.Dropped,
		TerrainMarched: terrain.MarchReason(s.Solid()),
		MemoryBytes:    gpusim.MemoryEstimate(c.Nx, c.Ny, c.Layers),
		Dt:             s.sim.Dt(), StableDt: gpusim.StableDt(c.Dx, s.sim.Settings().Gravity),
		Backend: st.Backend, Workers: st.Workers, Settings: s.sim.Settings(), FallDrop: s.sim.FallDrop(),
		CapillarySmoothing: gpusim.CapillarySmoothing(s.sim.Settings(), s.sim.Dt(), c.Dx),
	}
}
