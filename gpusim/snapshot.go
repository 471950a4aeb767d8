package gpusim

// The published state: Snapshot, a consistent copy of the state at one instant, and
// Stats, a summary of the run; how Sim publishes them after each Step (publish,
// swapSnapshot) and how any goroutine reads the last one published (Snapshot, Heights,
// Particles, Stats) while another steps.

import (
	"time"

	"github.com/vpbench/vpbench/terrain"
)

// Snapshot is a consistent copy of the state at one instant, for the surface, the UI and
// scripts. Height[i] is the absolute liquid height h of column i of Columns, in metres
// (Base[i] <= Height[i] <= Max[i]; the column is dry when Height[i] == Base[i]).
type Snapshot struct {
	Columns *terrain.Columns
	Height  []float32
	Time    float64 // simulated seconds
	Steps   int64
	Dt      float64
	// Volume is the liquid volume, m^3: the float64 sum of (h - b) dx^2, less Displaced, plus the sub-ulp
	// height roundings the solver carries to the next step (see volumeOf), plus Airborne.
	Volume float64
	// Airborne is the volume in the air as particles and in the drops still hanging at
	// dripping edges, m^3, and Particles those particles (docs/solver.md, "Liquid that
	// falls", "Dripping edges"); Hanging is the part gathering at the edges, not yet
	// released as particles.
	Airborne  float64
	Hanging   float64
	Particles []Particle
	Added     float64 // m^3 added by sources and Fill since the start
	Removed   float64 // m^3 removed by sinks
	// Rejected is what sources could not place because their columns were full, m^3.
	Rejected float64
	// Outflow is what left the domain through its open sides, m^3 (Settings.Sides).
	Outflow float64
	Wet     int // columns with h > b
	// Extended is the number of extended pipes active in the last step (axis pipes, or
	// unified boundary connections) and Passages the number of flooded passages.
	Extended, Passages int
	// Substeps counts the shallow water equations' substeps since the start (0 with the
	// pipes): each step takes as many as its fastest wave needs (docs/solver.md).
	Substeps int64
	// VX and VY are the columns' depth-averaged velocities, m/s (Sim.Velocities), when
	// the Sim publishes them (SetSnapshotVelocity); nil otherwise.
	VX, VY []float32
	// StepWall is the wall time spent inside Step since the start, ParticleWall the part
	// of it spent in the particle phase.
	StepWall, ParticleWall time.Duration

	// Displaced is the volume of the bodies in the liquid below its surface, m^3: the
	// columns' floors are lifted by it (Sim.LiftFloors), Height and Depth include it,
	// Volume does not.
	Displaced float64

	residual   []float32 // per column: the height rounding still to apply (see Volume)
	volumeDone bool      // Volume and Wet have been summed
}

// sum fills Volume and Wet from the heights and residuals, once.
func (s *Snapshot) sum() {
	if !s.volumeDone {
		s.Volume, s.Wet = volumeOf(s.Height, s.residual, s.Columns.Base, s.Columns.Dx)
		s.Volume += s.Airborne - s.Displaced
		s.volumeDone = true
	}
}

// Depth returns the liquid depth h - b of column i, m.
func (s *Snapshot) Depth(i int) float64 {
	return float64(s.Height[i]) - float64(s.Columns.Base[i])
}

// copyInto copies s into dst, reusing dst's buffers.
// s's Volume and Wet must be summed already (they are copied; the residuals, which only
// summing needs, are not).
func (s *Snapshot) copyInto(dst *Snapshot) {
	h, p, vx, vy := dst.Height, dst.Particles, dst.VX, dst.VY
	*dst = *s
	dst.Height = append(h[:0], s.Height...)
	dst.Particles = append(p[:0], s.Particles...)
	dst.VX, dst.VY = nil, nil
	if s.VX != nil {
		dst.VX, dst.VY = append(vx[:0], s.VX...), append(vy[:0], s.VY...)
	}
	dst.residual = nil
}

// Stats is a summary of the run so far.
type Stats struct {
	Backend  string
	Workers  int
	Steps    int64
	Time     float64 // simulated s
	Dt       float64
	Columns  int
	Pipes    int
	Extended int   // active extended pipes
	Passages int   // flooded passages
	Substeps int64 // the shallow water equations' substeps so far (Snapshot.Substeps)
	Wet      int
	// Particles is the number of particles in the air and Airborne their volume with
	// the drops hanging at dripping edges, m^3 (part of Volume); Hanging is the volume
	// of those drops, gathering at the edges (part of Airborne).
	Particles int
	Airborne  float64
	Hanging   float64
	Volume    float64
	Added     float64
	Removed   float64
	Rejected  float64
	// Outflow is what left through the open sides, m^3: Volume = Added - Removed - Outflow.
	Outflow float64
	// StepWall is the wall time spent inside Step; StepWall / Steps is the mean cost of
	// one step. ParticleWall is the part of it spent in the particle phase.
	StepWall, ParticleWall time.Duration
}

// volumeBlock is the number of columns whose volume is summed together before the
// blocks' sums are added in order: a fixed order, and four partial sums a block so that
// the float64 adds do not wait on each other.
const volumeBlock = 4096

// volumeOf is the volume sum(h - b + r) dx^2 (m^3; r is the rounding each column still
// has to apply to its height, see cpuBackend.r) and the number of wet columns (h > b).
func volumeOf(h, r, base []float32, dx float64) (float64, int) {
	var total float64
	wet := 0
	for lo := 0; lo < len(h); lo += volumeBlock {
		hi := min(lo+volumeBlock, len(h))
		hs, bs, rs := h[lo:hi], base[lo:hi], r[lo:hi]
		bs, rs = bs[:len(hs)], rs[:len(hs)]
		var v [4]float64
		for i, hv := range hs {
			b := bs[i]
			if hv > b {
				wet++
			}
			v[i&3] += float64(hv) - float64(b) + float64(rs[i])
		}
		total += (v[0] + v[1]) + (v[2] + v[3])
	}
	return total * dx * dx, wet
}

// publish copies the state into the back snapshot and swaps it with the published one.
// The lock is held only for the pointer swap.
func (s *Sim) publish() {
	b := s.back
	s.be.readHeight(b.Height)
	s.be.readResidual(b.residual)
	s.swapSnapshot(s.steps, s.time)
}

// swapSnapshot completes the back snapshot, whose heights and residuals are in place,
// and makes it the published one. Its volume is summed when first asked for (sum).
func (s *Sim) swapSnapshot(steps int64, time float64) {
	b := s.back
	b.volumeDone = false
	b.Columns = s.cols
	b.Displaced = s.lift.volume
	b.Time, b.Steps, b.Dt = time, steps, s.dt
	b.Added, b.Removed, b.Rejected = s.acct.added, s.acct.removed, s.acct.rejected
	b.Outflow = s.acct.outflow
	b.StepWall, b.ParticleWall = s.wall, s.fall.wall
	b.Extended, b.Passages = s.be.extendedCounts()
	b.Substeps = s.subBase // the backends' before this one (install)
	switch be := s.be.(type) {
	case *cpuBackend:
		b.Substeps += be.swe.substepsOr()
	case *deviceBackend:
		b.Substeps += be.taken // as of the frame published
	}
	b.Particles = s.fall.particles(b.Particles)
	if s.snapVelocity {
		b.VX, b.VY = s.velocities(b.Height, b.VX, b.VY)
	} else {
		b.VX, b.VY = nil, nil
	}
	b.Airborne, b.Hanging = s.fall.airborne(), s.fall.hanging()
	s.mu.Lock()
	s.back, s.published = s.published, b
	s.mu.Unlock()
}

// Snapshot copies the last published state into dst (reusing dst.Depth). It is safe to
// call from any goroutine while another one steps.
func (s *Sim) Snapshot(dst *Snapshot) {
	s.mu.Lock()
	s.published.sum() // at most once per published state, on the reader's time
	s.published.copyInto(dst)
	s.mu.Unlock()
}

// Heights copies the liquid heights of the last published state into dst (grown as
// needed) and returns it: what Snapshot gives as Height, without the volume sum that
// Snapshot does once per state (the surface needs only the heights, every frame). Safe
// from any goroutine while another one steps.
func (s *Sim) Heights(dst []float32) []float32 {
	s.mu.Lock()
	dst = append(dst[:0], s.published.Height...)
	s.mu.Unlock()
	return dst
}

// Flow copies the heights and, where the snapshots carry them (SetSnapshotVelocity), the
// velocities of the last published state into h, vx and vy (grown as needed; vx and vy
// come back empty otherwise), and returns them and the state's time: what Snapshot gives
// of them, without its copies of the rest and its volume sum. Safe from any goroutine
// while another one steps.
func (s *Sim) Flow(h, vx, vy []float32) (_, _, _ []float32, time float64) {
	s.mu.Lock()
	p := s.published
	h = append(h[:0], p.Height...)
	vx, vy = append(vx[:0], p.VX...), append(vy[:0], p.VY...)
	time = p.Time
	s.mu.Unlock()
	return h, vx, vy, time
}

// Particles copies the particles in the air of the last published state into dst (grown
// as needed) and returns it. Safe from any goroutine while another one steps.
func (s *Sim) Particles(dst []Particle) []Particle {
	s.mu.Lock()
	dst = append(dst[:0], s.published.Particles...)
	s.mu.Unlock()
	return dst
}

// Stats summarises the run, from the last published snapshot.
func (s *Sim) Stats() Stats {
	s.mu.Lock()
	p := s.published
	p.sum()
	st := Stats{
		Backend: s.backendName, Workers: s.workers,
		Steps: p.Steps, Time: p.Time, Dt: p.Dt,
		Columns: s.cols.NumColumns(), Pipes: s.topo.numPipes(),
		Wet: p.Wet, Particles: len(p.Particles), Airborne: p.Airborne, Hanging: p.Hanging, Volume: p.Volume, Added: p.Added, Removed: p.Removed, Rejected: p.Rejected, Outflow: p.Outflow,
		Extended: p.Extended, Passages: p.Passages, Substeps: p.Substeps,
		StepWall: p.StepWall, ParticleWall: p.ParticleWall,
	}
	s.mu.Unlock()
	return st
}
