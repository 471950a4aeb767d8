package scene

import (
	"fmt"
	"runtime"
	"time"

	"github.com/vpbench/vpbench/surface"
)

// The overlap: a frame's liquid surface is built while the solver runs the next frame's
// steps on half the cores (docs/architecture.md, "Frames overlap"). On the 2-vCPU
// machines the solver and the surface builder each ran 1.1 to 1.4 times faster on two
// cores than on one, since the data a phase's two workers share moves between the
// cores' caches at every phase; side by side, each keeps its data in its own core, and a
// frame costs about the larger of the two instead of their sum.
//
// The surface is built from copies taken at StartSurface (the heights, displaced by the
// waves, and the drops in the air), so the steps that run meanwhile change nothing it
// reads; the builder and the air surface belong to the building goroutine until
// FinishSurface (or any call that uses them: waitSurface) takes them back. The solver's
// results are not touched: the overlap changes when a surface is built, never what the
// solver computes.

// overlapState is the overlap's goroutine and the build in flight.
type overlapState struct {
	on      bool
	jobs    chan surfaceJob
	results chan surfaceResult
	busy    bool          // a build was started and not yet taken back
	last    surfaceResult // the last build taken back by waitSurface
	have    bool          // last is one FinishSurface has not returned
}

// surfaceJob is one surface to build, from the copies StartSurface took.
type surfaceJob struct {
	b     *surface.Builder
	h     []float32
	air   *surface.AirSurface // nil: no drops
	drops []surface.Drop
	box   surface.Box
	time  float64 // the simulated time of the state
}

// surfaceResult is a built surface: the mesh (the builder's or the air surface's, valid
// until the next build), its wall time, and the simulated time of its state.
type surfaceResult struct {
	m    *surface.Mesh
	took time.Duration
	time float64
}

// build runs the jobs until the channel closes.
func buildSurfaces(jobs <-chan surfaceJob, results chan<- surfaceResult) {
	for j := range jobs {
		t0 := time.Now()
		m := j.b.Build(j.h)
		if j.air != nil {
			m = j.air.Append(m, j.drops, j.box)
		}
		results <- surfaceResult{m: m, took: time.Since(t0), time: j.time}
	}
}

// SetOverlap turns the overlap on or off. On takes effect on the CPU backend with at
// least two cores: the solver then keeps half the cores free while its workers are "all
// cores" (gpusim.Sim.SetSpareCores; set workers are kept, and set on every core they
// keep the overlap off), and the surface builds on
// every core: on the free ones while the steps run, on all of them once they are done
// (where the surface is most of a frame, as in viscosity, it then spreads as it did in
// step). It tells whether the overlap is on. A build in flight is waited for first.
func (s *Scene) SetOverlap(on bool) bool {
	s.waitSurface()
	n := runtime.GOMAXPROCS(0)
	if on && (s.sim == nil || s.closed || n < 2 || s.sim.BackendName() != "cpu") {
		on = false
	}
	spare := 0
	if on {
		switch w := s.sim.Settings().Workers; {
		case w == 0: // all cores: the solver keeps half of them free
			spare = n / 2
		case w >= n: // set on every core: a surface beside them would oversubscribe the cores
			on = false
		}
	}
	o := &s.overlap
	if s.sim != nil && !s.closed {
		s.sim.SetSpareCores(spare) // every time: a solver made again (a resumed checkpoint) starts with none
	}
	if on == o.on {
		return on
	}
	o.on = on
	if on && o.jobs == nil {
		o.jobs, o.results = make(chan surfaceJob, 1), make(chan surfaceResult, 1)
		go buildSurfaces(o.jobs, o.results)
	}
	if !on && o.jobs != nil {
		close(o.jobs)
		o.jobs, o.results = nil, nil
	}
	return on
}

// Overlap tells whether the overlap is on (SetOverlap) and on how many goroutines the
// surface builds meanwhile (every core's, as in step).
func (s *Scene) Overlap() (on bool, surfaceWorkers int) {
	if !s.overlap.on {
		return false, 0
	}
	return true, runtime.GOMAXPROCS(0)
}

// StartSurface starts building the liquid surface of the current state on the
// overlap's goroutine and returns at once; FinishSurface takes it. Only with the overlap
// on (SetOverlap); a build still in flight is waited for first and its result dropped.
func (s *Scene) StartSurface() error {
	s.waitSurface()
	s.overlap.have = false
	if !s.overlap.on {
		return fmt.Errorf("%s: StartSurface: the overlap is off", s.name)
	}
	b, err := s.SurfaceBuilder()
	if err != nil {
		return err
	}
	if err := b.SetSettings(s.surfaceSettings()); err != nil {
		return err
	}
	h := s.surfaceHeights()
	s.surf.heights = append(s.surf.heights[:0], h...) // the steps meanwhile change none of it
	s.surfaceDrops()
	j := surfaceJob{b: b, h: s.surf.heights, time: s.sim.Time()}
	if len(s.surf.drops) > 0 {
		j.air, j.drops, j.box = s.airSurface(), s.surf.drops, s.airBox()
	}
	s.overlap.jobs <- j
	s.overlap.busy = true
	return nil
}

// FinishSurface waits for the surface StartSurface started and returns it (valid until
// the next build), the wall time its build took and the simulated time of the state it
// shows; ok is false when none was started since the last FinishSurface.
func (s *Scene) FinishSurface() (m *surface.Mesh, took time.Duration, at float64, ok bool) {
	s.waitSurface()
	o := &s.overlap
	if !o.have {
		return nil, 0, 0, false
	}
	o.have = false
	return o.last.m, o.last.took, o.last.time, true
}

// waitSurface takes back the builder from a build in flight, keeping its result for
// FinishSurface. Every use of the builder, the air surface or their buffers calls it.
func (s *Scene) waitSurface() {
	o := &s.overlap
	if !o.busy {
		return
	}
	o.last, o.have, o.busy = <-o.results, true, false
}

// stopOverlap ends the overlap's goroutine (Close).
func (s *Scene) stopOverlap() {
	s.waitSurface()
	if s.overlap.jobs != nil {
		close(s.overlap.jobs)
		s.overlap.jobs, s.overlap.results = nil, nil
	}
	s.overlap.on = false
}
