package gpusim

// The simulation: Sim, made by New, and what its driving goroutine calls on it: Step,
// settings and terrain changes, sources and sinks, Fill, Drop, the state's reads and
// writes. What it publishes for other goroutines is in snapshot.go, the backends it
// drives behind backend.go's interface.

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/vpbench/vpbench/gpusim/internal/element"
	"github.com/vpbench/vpbench/terrain"
)

// Sim is a running simulation: columns, liquid depths and pipe fluxes, advanced by Step.
//
// Sim is driven by one goroutine (the runner): Step, Set, AddEmitter, Fill and the other
// mutating methods must not be called concurrently. Other goroutines read the state only
// through Snapshot, which copies the last published state under a short lock that is never
// held during a step.
type Sim struct {
	cols     *terrain.Columns
	topo     *topology
	settings Settings
	dt       float64
	be       backend
	holder   *backendHolder // be, for the cleanup that stops it (install)
	opts     backendOptions // every backend this Sim makes (install) is made with them
	// subBase is the SWE substeps the backends before this one took (install): the
	// published count goes on across a terrain or method change.
	subBase  int64
	em       emitterSet
	fall     *fallState   // liquid in the air, and the pipes that may release more
	lift     liftState    // floors bodies lifted (floors.go)
	meters   []meterState // flow meters (meters.go)
	warnings []string

	time  float64
	steps int64
	acct  accounting
	wall  time.Duration // spent inside Step
	held  *heldState    // the held columns (held.go); nil: none

	scratch  []float32 // host copy of the heights for Fill and Volume
	residual []float32 // host copy of the backend's rounding residuals
	vel      velocityState
	// snapVelocity: snapshots carry the velocities (SetSnapshotVelocity); a device
	// backend is not pipelined meanwhile (the fluxes are read with the heights).
	snapVelocity bool
	velAt        struct{ x, y []float32 } // VelocityAt's scratch

	// pipelined: Step leaves its steps in flight on a device backend (SetPipelined);
	// flight is the frame in flight then, with the step count and time it ends at.
	pipelined bool
	flight    struct {
		on    bool
		steps int64
		time  float64
	}
	// spare is the cores kept free of the solver while Settings.Workers is 0 (all cores):
	// the scene's surface builds on them meanwhile (SetSpareCores).
	spare int

	mu          sync.Mutex // guards the fields below
	published   *Snapshot
	backendName string
	workers     int
	back        *Snapshot
}

// New builds a solver for the given columns. Everything is checked before anything large
// is allocated: bad settings, and a grid whose memory need exceeds what the machine has,
// give an error naming the field.
func New(cols *terrain.Columns, s Settings) (*Sim, error) {
	return newWithOptions(cols, s, backendOptions{})
}

// newWithOptions is New with backends made with o (the tests' way to pick a path).
func newWithOptions(cols *terrain.Columns, s Settings, o backendOptions) (*Sim, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	np, err := checkGrid(cols)
	if err != nil {
		return nil, err
	}
	sim := &Sim{opts: o}
	if err := sim.install(cols, newTopology(cols, np), s); err != nil {
		return nil, err
	}
	sim.apply(s)
	sim.warnDt()
	sim.publish()
	return sim, nil
}

// warnDt records a warning when dt is above the stability limit.
func (s *Sim) warnDt() {
	if w := dtWarning(s.dt, s.cols.Dx, s.settings.Gravity); w != "" {
		s.warnings = append(s.warnings, w)
	}
}

// checkGrid validates columns and checks that the solver's memory for them is there.
func checkGrid(cols *terrain.Columns) (pipes int, err error) {
	if cols == nil {
		return 0, errors.New("no terrain columns")
	}
	if err := cols.Validate(); err != nil {
		return 0, err
	}
	np := countPipes(cols)
	if need, have := topologyBytes(cols.NumColumns(), np), terrain.AvailableMemory(); need > have {
		return 0, fmt.Errorf("grid %dx%d with %d columns and %d pipes needs about %s for the solver, more than the %s available",
			cols.Nx, cols.Ny, cols.NumColumns(), np, terrain.FormatBytes(need), terrain.FormatBytes(have))
	}
	return np, nil
}

// install makes a backend for the given columns and topology (dry, fluxes zero) and the
// host buffers that go with it.
func (s *Sim) install(cols *terrain.Columns, topo *topology, st Settings) error {
	bst := st
	bst.Workers = s.solverWorkers(st.Workers)
	be, err := newBackend(topo, bst, s.opts)
	if err != nil {
		return err
	}
	if s.published != nil { // a terrain or method change: the old backend's substeps count on
		s.subBase = s.published.Substeps
	}
	s.cols, s.topo, s.be = cols, topo, be
	old := s.fall
	s.fall = newFallState(topo, st)
	if old != nil { // a terrain change: what is in the air stays there
		s.fall.takeParticles(old)
	}
	n := cols.NumColumns()
	s.scratch = make([]float32, n)
	s.residual = make([]float32, n)
	s.published = &Snapshot{Columns: cols, Height: make([]float32, n), residual: make([]float32, n)}
	s.back = &Snapshot{Columns: cols, Height: make([]float32, n), residual: make([]float32, n)}
	// The workers hold the backend, not the Sim: a Sim dropped without Close still stops
	// them. One cleanup a Sim, through a holder of the backend in use: a cleanup's argument
	// lives as long as the Sim, so one registered per install kept every backend a terrain
	// change replaced alive, topology and all (9.5 MB a change on the surgery grid; the
	// soak benchmark's memory grew by 230% in ten minutes).
	if s.holder == nil {
		s.holder = &backendHolder{}
		runtime.AddCleanup(s, func(h *backendHolder) {
			if h.be != nil {
				h.be.close()
			}
		}, s.holder)
	}
	s.holder.be = be
	return nil
}

// backendHolder is the backend a Sim's cleanup stops (install).
type backendHolder struct{ be backend }

// SetTerrain replaces the terrain mid-run (a tool moving, an organ shifting) with new
// columns on the same grid (cell counts and dx). The liquid is carried over and its volume
// kept: liquid whose space is still free stays; liquid whose space became solid moves to
// the nearest free space above it, then beside it (up to retopoRings cells away); what
// finds no room is booked as rejected and the volume that moved so is returned. Fluxes of
// pipes that survive (same cells, overlapping columns at both ends) are kept; new pipes
// start at zero. Sources and sinks act on the new columns at their points. With held
// columns (Hold), the columns of the same cells are held in the new terrain
// (heldAfterTerrain): their liquid is the holder's and is not carried, and liquid the
// change displaces into them is booked out to the holder, as Hold books a column's
// liquid. On an error nothing changes.
func (s *Sim) SetTerrain(cols *terrain.Columns) (rejected float64, err error) {
	s.Sync()
	np, err := checkGrid(cols)
	if err != nil {
		return 0, fmt.Errorf("terrain: %w", err)
	}
	if err := sameGrid(s.cols, cols); err != nil {
		return 0, err
	}
	em, err := s.em.retarget(cols)
	if err != nil {
		return 0, fmt.Errorf("terrain: %w", err)
	}
	held, err := s.heldAfterTerrain(cols, &em)
	if err != nil {
		return 0, fmt.Errorf("terrain: %w", err)
	}
	s.dropLifts() // the bodies lift the new floors on their next update
	oldCols, oldTopo := s.cols, s.topo
	oldH := make([]float32, oldCols.NumColumns())
	oldR := make([]float32, oldCols.NumColumns())
	s.be.readHeight(oldH)
	s.be.readResidual(oldR)
	if s.held != nil { // the holder's liquid stays with the holder
		for _, i := range s.held.cols {
			oldH[i], oldR[i] = oldCols.Base[i], 0
		}
	}
	oldF := s.Fluxes(nil)
	newH, newR, rejected := carryLiquid(oldCols, oldH, oldR, cols)
	topo := newTopology(cols, np)
	newF := mapFluxes(oldTopo, oldF, topo)

	s.be.close()
	if err := s.install(cols, topo, s.settings); err != nil {
		// The old backend is gone: put a CPU one in so that the Sim stays usable.
		st := s.settings
		st.Backend = "cpu"
		_ = s.install(oldCols, oldTopo, st)
		s.apply(s.settings)
		s.be.writeHeight(oldH)
		s.be.writeResidual(oldR)
		s.be.writeFlux(oldF)
		s.publish()
		return 0, fmt.Errorf("terrain: %w (the run goes on with the old terrain on the cpu backend)", err)
	}
	s.em = em
	s.apply(s.settings)
	s.be.writeHeight(newH)
	s.be.writeResidual(newR)
	s.be.writeFlux(newF)
	s.acct.rejected += rejected
	if held != nil {
		s.held = nil // the new backend holds nothing yet: Hold books what lies in them out
		if err := s.Hold(held); err != nil {
			// heldAfterTerrain checked what Hold checks: this is a bug, not a user's error.
			panic(fmt.Sprintf("gpusim: holding the columns again after a terrain change: %v", err))
		}
	}
	s.publish()
	return rejected, nil
}

// apply installs validated settings.
func (s *Sim) apply(st Settings) {
	s.settings = st
	dx := s.cols.Dx
	s.dt = st.Dt
	if s.dt == 0 {
		s.dt = AutoDt(dx, st.Gravity)
	}
	p := makeStepParams(st, s.dt, dx)
	s.em.setDrains(s.cols, st.Sides, s.dt, st.Gravity)
	s.be.setWorkers(s.solverWorkers(st.Workers))
	s.be.setParams(p)
	s.fall.configure(st)
	s.mu.Lock()
	s.backendName, s.workers = s.be.name(), s.be.workers()
	s.mu.Unlock()
}

// wetGate is the contact-line law's head (element.Params.Wetting): the wetting head, or,
// where the capillary pressure's contact angle gates each dry column beside the liquid
// through its driving height (capGate, which the pipes' kernels read as a wet column's),
// capGateShut with the pipes: a dry column no liquid lies beside (such as one under a
// micron deep that a gated column beside it would otherwise drain into, creeping a film
// ahead of the edge) takes nothing; and a micron with the shallow water equations, whose
// law reads the true depths, to stop a held flux's momentum.
func wetGate(st Settings, cp *capParams) float64 {
	if cp.dropA > 0 {
		if st.Method == MethodSWE {
			return DryDepth
		}
		return capGateShut
	}
	return st.WettingHead()
}

// capGateShut is the pipes' contact-line head with the capillary pressure: more than any
// head difference.
const capGateShut = 1e3

// makeStepParams derives the per-step constants of settings st for a step of dt on cells
// of dx.
func makeStepParams(st Settings, dt, dx float64) stepParams {
	p := stepParams{
		Params: element.Params{
			Zeta:       float32(math.Pow(st.Damping, dt)),
			Visc3:      float32(3 * dt * st.Viscosity),
			Film:       st.CrossSection == CrossFilm,
			Dxf:        float32(dx),
			DtOverDx2:  float32(dt / (dx * dx)),
			Dx2OverDt:  float32(dx * dx / dt),
			DtOverDx2d: dt / (dx * dx),
			DryDepth:   DryDepth,
		},
		st:       st,
		dt:       dt,
		dx:       dx,
		dx2:      dx * dx,
		extended: st.ExtendedPipes,
		cap:      newCapParams(st, dt, dx),
	}
	p.Wet = float32(wetGate(st, &p.cap))
	if p.Film {
		p.Accel = float32(dt * st.Gravity) // times min(H, dx) per pipe
	} else {
		p.Accel = float32(dt * st.Gravity * dx)
	}
	return p
}

// Set changes settings mid-run. Invalid settings change nothing and return an error naming
// the field. Fluxes are kept across the change.
func (s *Sim) Set(st Settings) error {
	s.Sync()
	if err := st.Validate(); err != nil {
		return err
	}
	if st.Backend != s.settings.Backend {
		return fmt.Errorf("backend cannot change mid-run (%q, asked for %q)", s.settings.Backend, st.Backend)
	}
	if s.held != nil && st.Method != MethodPipes {
		return fmt.Errorf("method %q: columns are held (Hold) with the pipes only, for now", st.Method)
	}
	if st.Method != s.settings.Method {
		if err := s.switchMethod(st); err != nil {
			return err
		}
		s.warnDt()
		return nil
	}
	s.apply(st)
	s.warnDt()
	return nil
}

// SetSpareCores keeps k cores free of the solver while Settings.Workers is 0 (all
// cores): it then steps on GOMAXPROCS - k threads, at least one. A frame's surface is
// built on the spare cores while the solver runs the next frame's steps (the scene's
// overlap). Set Workers are kept as they are. The results do not change: they are the
// same bits for any number of workers.
func (s *Sim) SetSpareCores(k int) {
	s.Sync()
	if k = max(k, 0); k == s.spare {
		return
	}
	s.spare = k
	s.be.setWorkers(s.solverWorkers(s.settings.Workers))
	s.mu.Lock()
	s.workers = s.be.workers()
	s.mu.Unlock()
}

// BackendName is the backend the solver runs on: "cpu" or "cuda".
func (s *Sim) BackendName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.backendName
}

// solverWorkers is the threads the backend steps on for Settings.Workers w.
func (s *Sim) solverWorkers(w int) int {
	if w > 0 {
		return w
	}
	return max(1, runtime.GOMAXPROCS(0)-s.spare)
}

// Settings returns the current settings (Dt as given: 0 for auto; see Dt).
func (s *Sim) Settings() Settings { return s.settings }

// FallDrop is the release threshold in use, m: Settings.FallDrop, or DefaultFallDropCells
// cells when that is 0.
func (s *Sim) FallDrop() float64 { return s.fall.drop }

// Dt is the time step in use, s.
func (s *Sim) Dt() float64 { return s.dt }

// Time is the simulated time, s.
func (s *Sim) Time() float64 { return s.time }

// Steps is the number of steps taken.
func (s *Sim) Steps() int64 { return s.steps }

// Columns returns the terrain's columns the solver runs on.
func (s *Sim) Columns() *terrain.Columns { return s.cols }

// Warnings returns (and clears) the warnings raised since the last call, such as a dt
// above the stability limit.
func (s *Sim) Warnings() []string {
	w := s.warnings
	s.warnings = nil
	return w
}

// Step advances the simulation by n steps, then publishes a snapshot.
//
// Pipelined (SetPipelined), on a device backend, Step only queues the n steps: it waits
// for the previous call's steps, starts these, and publishes the previous call's state
// while the device works. Snapshot and Stats then trail Time by one Step call until Sync.
func (s *Sim) Step(n int) {
	if n <= 0 {
		return
	}
	if len(s.meters) > 0 && n > 1 { // the meters count each step's fluxes
		for range n {
			s.Step(1)
		}
		return
	}
	if s.fall.active() || s.em.pours(s.time) {
		s.stepFalling(n)
		return
	}
	t0 := time.Now()
	pb, ok := s.be.(pipelinedBackend)
	if !s.pipelined || !ok || s.snapVelocity {
		a := s.be.step(n, s.time, &s.em, s.back.Height, s.back.residual)
		s.countMeters()
		s.wall += time.Since(t0)
		s.book(a)
		s.steps += int64(n)
		s.time += float64(n) * s.dt
		s.swapSnapshot(s.steps, s.time)
		return
	}
	prev := s.flight
	var a accounting
	if prev.on {
		a = pb.wait()
	}
	pb.queue(n, s.time, &s.em)
	s.steps += int64(n)
	s.time += float64(n) * s.dt
	s.flight.on, s.flight.steps, s.flight.time = true, s.steps, s.time
	if prev.on {
		pb.take(s.back.Height, s.back.residual) // while the device runs the new frame
		s.book(a)
	}
	s.wall += time.Since(t0)
	if prev.on {
		s.swapSnapshot(prev.steps, prev.time)
	}
}

// stepFalling is Step while liquid may fall: one solver step at a time, each followed by
// the particle phase (release, flight, landing) on the host, then one snapshot. A device
// backend is not pipelined meanwhile.
func (s *Sim) stepFalling(n int) {
	s.Sync()
	t0 := time.Now()
	hs := s.be.(hostState)
	var h, r []float32
	for range n {
		a := s.be.step(1, s.time, &s.em, nil, nil)
		s.countMeters()
		t1 := time.Now()
		a.added += s.fall.pour(&s.em, s.time, s.dt, s.steps)
		s.book(a)
		s.steps++
		s.time += s.dt
		s.fall.now = s.time
		h, r = s.fall.step(hs, s.dt)
		if v := s.fall.takeOutflow(); v != 0 {
			s.acct.outflow += v
		}
		if v := s.fall.takeHeldOut(); v != 0 {
			s.acct.exchanged -= v
		}
		s.fall.wall += time.Since(t1)
	}
	s.wall += time.Since(t0)
	// Publish from the phase's view of the state (a device backend's read-back, already
	// on the host), not a second read.
	copy(s.back.Height, h)
	copy(s.back.residual, r)
	s.swapSnapshot(s.steps, s.time)
}

// SetSnapshotVelocity makes the snapshots published from the next step on carry the
// columns' velocities (Snapshot.VX, VY), or stop carrying them. It costs a read of the
// fluxes and a pass over the columns per published state, and a device backend's steps
// are no longer pipelined while it is on.
func (s *Sim) SetSnapshotVelocity(on bool) {
	s.Sync()
	s.snapVelocity = on
}

// Drop puts a parcel of liquid of volume vol (m^3) into the air at (x, y, z) moving at
// (vx, vy, vz) m/s, booked as added: it falls and lands like released liquid (a pour from
// a height, a drip). The point must lie in free space inside the domain.
func (s *Sim) Drop(x, y, z, vol, vx, vy, vz float64) error {
	if err := s.drop("drop", x, y, z, vol, vx, vy, vz); err != nil {
		return err
	}
	s.acct.added += vol
	s.publish()
	return nil
}

// drop is Drop without the booking and the publishing; what names the call in its
// errors.
func (s *Sim) drop(what string, x, y, z, vol, vx, vy, vz float64) error {
	s.Sync()
	for _, f := range []struct {
		n string
		v float64
	}{{"at[1] (x)", x}, {"at[2] (y)", y}, {"at[3] (z)", z}, {"volume", vol}, {"velocity[1]", vx}, {"velocity[2]", vy}, {"velocity[3]", vz}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s: %s is %v: it must be a finite number", what, f.n, f.v)
		}
	}
	if vol <= 0 {
		return fmt.Errorf("%s: volume is %g m^3: it must be > 0", what, vol)
	}
	cx, cy, ok := s.cols.CellAt(x, y)
	if !ok || z < 0 || z > s.cols.Height {
		return fmt.Errorf("%s: at = {%g, %g, %g} is outside the domain [0, %g] x [0, %g] x [0, %g]", what, x, y, z,
			float64(s.cols.Nx)*s.cols.Dx, float64(s.cols.Ny)*s.cols.Dx, s.cols.Height)
	}
	if c := s.cols.ColumnAt(cx, cy, z); c < 0 || float64(s.cols.Base[c]) > z {
		return fmt.Errorf("%s: at = {%g, %g, %g} is inside a solid", what, x, y, z)
	}
	s.fall.add(float32(x), float32(y), float32(z), float32(vx), float32(vy), float32(vz), vol)
	return nil
}

// book adds what sources and sinks moved to the totals.
func (s *Sim) book(a accounting) {
	s.acct.added += a.added
	s.acct.removed += a.removed
	s.acct.rejected += a.rejected
	s.acct.outflow += a.outflow
}

// SetPipelined turns pipelining on or off (off at the start). On a device backend a
// pipelined Step returns once its steps are queued, and the host reads their result back
// while the next Step runs, so that building the surface or drawing the UI from the
// last snapshot overlaps the device's work. The CPU backend steps as before. Every
// method that reads or changes the state (Volume, Accounting, Fluxes, Fill, SetHeights,
// Set, AddEmitter, SetTerrain, ...) waits for the steps in flight first; Snapshot, Heights
// and Stats, which other goroutines call, show the last published state. Turning it off
// waits too.
func (s *Sim) SetPipelined(on bool) {
	if !on {
		s.Sync()
	}
	s.pipelined = on
}

// Sync waits for the steps in flight (SetPipelined) and publishes their state; without
// any, it does nothing. It tells whether it published.
func (s *Sim) Sync() bool {
	if !s.flight.on {
		return false
	}
	t0 := time.Now()
	pb := s.be.(pipelinedBackend)
	a := pb.wait()
	pb.take(s.back.Height, s.back.residual)
	s.flight.on = false
	s.wall += time.Since(t0)
	s.book(a)
	s.swapSnapshot(s.flight.steps, s.flight.time)
	return true
}

// Sprays is the number of sources that pour from a point with a velocity (sim:spray,
// and falling sources that move) and have not stopped: active, their Stop not passed.
func (s *Sim) Sprays() int {
	n := 0
	for id, e := range s.em.list {
		if s.em.active[id] && e.Falls && (e.VX != 0 || e.VY != 0 || e.VZ != 0) && s.time < e.Stop {
			n++
		}
	}
	return n
}

// AddEmitter adds a source (Rate > 0) or sink (Rate < 0) and returns its id.
func (s *Sim) AddEmitter(e Emitter) (int, error) {
	s.Sync()
	if e.Stop == 0 {
		e.Stop = math.Inf(1)
	}
	if s.held != nil && !e.Falls {
		tg, _ := emitterTargets(s.cols, e)
		for _, c := range tg {
			if s.held.mark[c] == markHeld {
				return 0, fmt.Errorf("at = {%g, %g, %g}: column %d is held (Hold): its liquid is its holder's", e.X, e.Y, e.Z, c)
			}
		}
	}
	return s.em.add(s.cols, e)
}

// SetEmitterRate changes an emitter's rate, m^3/s (keep the sign: > 0 source, < 0 sink).
func (s *Sim) SetEmitterRate(id int, rate float64) error {
	s.Sync()
	if id < 0 || id >= len(s.em.list) {
		return fmt.Errorf("no source or sink with id %d", id)
	}
	if math.IsNaN(rate) || math.IsInf(rate, 0) {
		return fmt.Errorf("rate is %v: it must be a finite number of m^3/s", rate)
	}
	s.em.list[id].Rate = rate
	s.em.touch()
	return nil
}

// Emitter is source or sink id as it is now (its rate and level as last set), for
// listings (vpbench check).
func (s *Sim) Emitter(id int) (Emitter, error) {
	if id < 0 || id >= len(s.em.list) {
		return Emitter{}, fmt.Errorf("no source or sink with id %d", id)
	}
	return s.em.list[id], nil
}

// Emitters is the number of sources and sinks made (ids 0 ... Emitters()-1).
func (s *Sim) Emitters() int { return len(s.em.list) }

// SetEmitterLevel changes the level, m (absolute), an emitter made with Holds holds
// (Emitter.Level), from the next step on.
func (s *Sim) SetEmitterLevel(id int, level float64) error {
	s.Sync()
	if id < 0 || id >= len(s.em.list) {
		return fmt.Errorf("no source or sink with id %d", id)
	}
	if !s.em.list[id].Holds {
		return fmt.Errorf("level: source or sink %d holds no level (give it one when it is made)", id)
	}
	if math.IsNaN(level) || math.IsInf(level, 0) {
		return fmt.Errorf("level is %v: it must be a finite height (m)", level)
	}
	s.em.list[id].Level = level
	s.em.touch()
	return nil
}

// StopEmitter stops an emitter for good.
func (s *Sim) StopEmitter(id int) error {
	s.Sync()
	if id < 0 || id >= len(s.em.list) {
		return fmt.Errorf("no source or sink with id %d", id)
	}
	s.em.active[id] = false
	s.em.touch()
	return nil
}

// Fill floods the free space connected to the point (x, y, z) up to height level: starting
// from the column there, every column reachable through pipes whose shared range starts
// below level is raised to min(level, max). Liquid is only added, never removed. It
// returns the volume added (m^3), which is booked as added.
func (s *Sim) Fill(x, y, z, level float64) (float64, error) {
	return s.fill(x, y, z, level, nil)
}

// FillMoving is Fill with the liquid set moving at (u, v) m/s: every pipe between two
// columns of the filled space (the columns Fill reaches, including those whose liquid
// already stood at or above level) gets the flux of that velocity through its upwind
// column's depth d (the column the velocity comes from), u d dx along x and v d dx
// along y; the shallow water equations take the pipe's velocity from it (writeFlux), u or
// v to float32 rounding. Pipes to columns outside the filled space keep their flux.
// Moving the liquid changes no volume.
func (s *Sim) FillMoving(x, y, z, level, u, v float64) (float64, error) {
	return s.fill(x, y, z, level, &[2]float64{u, v})
}

func (s *Sim) fill(x, y, z, level float64, vel *[2]float64) (float64, error) {
	s.Sync()
	var u, v float64
	if vel != nil {
		u, v = vel[0], vel[1]
	}
	for _, f := range []struct {
		n string
		v float64
	}{{"at[1] (x)", x}, {"at[2] (y)", y}, {"at[3] (z)", z}, {"level", level}, {"velocity[1] (u)", u}, {"velocity[2] (v)", v}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return 0, fmt.Errorf("fill: %s is %v: it must be a finite number", f.n, f.v)
		}
	}
	cx, cy, ok := s.cols.CellAt(x, y)
	if !ok {
		return 0, fmt.Errorf("fill: at = {%g, %g, %g} is outside the domain", x, y, z)
	}
	start := s.cols.ColumnAt(cx, cy, z)
	if start < 0 {
		return 0, fmt.Errorf("fill: at = {%g, %g, %g} is in a cell that is solid from floor to top", x, y, z)
	}
	s.be.readHeight(s.scratch)
	lvl := float32(level)
	t := s.topo
	seen := make([]bool, s.cols.NumColumns())
	queue := []int32{int32(start)}
	seen[start] = true
	dx2 := s.cols.Dx * s.cols.Dx
	var added float64
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		b := s.cols.Base[i]
		if b >= lvl {
			continue
		}
		want := min(lvl, s.cols.Max[i])
		if old := s.scratch[i]; want > old {
			s.scratch[i] = want
			added += (float64(want) - float64(old)) * dx2
		}
		for e := t.adjStart[i]; e < t.adjStart[i+1]; e++ {
			j := t.adjOther[e]
			if !seen[j] && max(b, s.cols.Base[j]) < lvl {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	s.be.writeHeight(s.scratch)
	if vel != nil {
		s.fillVelocity(seen, lvl, u, v)
	}
	s.acct.added += added
	s.publish()
	return added, nil
}

// fillVelocity sets the pipes inside the filled space (seen, the columns whose floor
// lies below lvl) to the fluxes of the velocity (u, v) (FillMoving), from the heights in
// s.scratch.
func (s *Sim) fillVelocity(seen []bool, lvl float32, u, v float64) {
	c := s.cols
	in := func(i int32) bool { return seen[i] && c.Base[i] < lvl }
	cellOf := make([]int32, c.NumColumns())
	for cell := range c.Nx * c.Ny {
		for i := c.CellStart[cell]; i < c.CellStart[cell+1]; i++ {
			cellOf[i] = int32(cell)
		}
	}
	f := s.Fluxes(nil)
	for p := range f {
		a, b := s.topo.pipeA[p], s.topo.pipeB[p]
		if !in(a) || !in(b) {
			continue
		}
		w := v // a pipe to the next row: along y
		if cellOf[b] == cellOf[a]+1 && int(cellOf[a])%c.Nx+1 < c.Nx {
			w = u // to the next cell of the row: along x
		}
		up := a // the column the velocity comes from
		if w < 0 {
			up = b
		}
		d := max(float64(s.scratch[up])-float64(s.Floor(int(up))), 0)
		f[p] = float32(w * d * c.Dx)
	}
	s.be.writeFlux(f)
}

// SetHeights replaces every column's liquid height (m, absolute; len = number of columns).
// Each must lie in [base, max] of its column; the change in volume is booked as added (or
// removed, if negative). Fluxes are kept. It is how a saved state is restored.
func (s *Sim) SetHeights(h []float32) error {
	s.Sync()
	c := s.cols
	if len(h) != c.NumColumns() {
		return fmt.Errorf("set heights: %d values for %d columns", len(h), c.NumColumns())
	}
	for i, v := range h {
		if b := s.Floor(i); !(v >= b && v <= c.Max[i]) {
			return fmt.Errorf("set heights: column %d: h = %g is outside [floor, max] = [%g, %g]", i, v, b, c.Max[i])
		}
	}
	before := s.Volume()
	s.be.writeHeight(h)
	if d := s.Volume() - before; d >= 0 {
		s.acct.added += d
	} else {
		s.acct.removed -= d
	}
	s.publish()
	return nil
}

// Volume is the liquid volume now, m^3 (float64 sum), held columns left out (Hold).
func (s *Sim) Volume() float64 {
	s.Sync()
	s.be.readHeight(s.scratch)
	s.be.readResidual(s.residual)
	return s.volumeFree(s.scratch, s.residual) + s.fall.airborne() - s.lift.volume
}

// Accounting returns the volume added, removed and rejected since the start, m^3.
func (s *Sim) Accounting() (added, removed, rejected float64) {
	s.Sync()
	return s.acct.added, s.acct.removed, s.acct.rejected
}

// Outflow returns the volume that left through the open sides since the start, m^3
// (Settings.Sides): Volume = added - removed - Outflow (+ Exchanged, with held columns).
func (s *Sim) Outflow() float64 {
	s.Sync()
	return s.acct.outflow
}

// Fluxes copies the pipes' fluxes (m^3/s, positive from a pipe's first column to its
// second) into dst, reusing it, and returns it.
func (s *Sim) Fluxes(dst []float32) []float32 {
	s.Sync()
	if cap(dst) < s.topo.numPipes() {
		dst = make([]float32, s.topo.numPipes())
	}
	dst = dst[:s.topo.numPipes()]
	s.be.readFlux(dst)
	return dst
}

// Pipe returns the two columns pipe p joins (the flux is positive from a to b).
func (s *Sim) Pipe(p int) (a, b int) { return int(s.topo.pipeA[p]), int(s.topo.pipeB[p]) }

// NumPipes is the number of pipes between columns.
func (s *Sim) NumPipes() int { return s.topo.numPipes() }

// Close stops the backend's workers (a Sim that is dropped without Close stops them when
// it is garbage collected). The Sim must not be stepped afterwards.
func (s *Sim) Close() {
	s.Sync()
	s.be.close()
}
