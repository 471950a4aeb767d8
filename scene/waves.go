package scene

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
	"github.com/vpbench/vpbench/waves"
)

// Waves on the liquid (docs/waves.md): wave particles that ride the flow, one-way
// coupled. The scene owns them: after every Step they take the landings the solver
// recorded as impacts and move on to the solver's time with its heights and velocities;
// a surface built then is displaced by their field. The solver's state never sees them.

// waveState is the scene's waves: nil sys while Settings.Waves is off or before the solver.
type waveState struct {
	sys *waves.System
	// flow is the published state's heights and velocities the waves last moved with
	// (gpusim.Sim.Flow), and flowOK whether it is still the published state's.
	flow     waves.Flow
	flowTime float64
	flowOK   bool
	impacts  []gpusim.Impact
	disp     []float32 // the field, per column (BuildSurface)
	waved    []float32 // the heights displaced by it (BuildSurface)
	last     time.Duration
	terrainH []float32      // scratch: the heights before a terrain change
	pending  bool           // the last Step started impacts
	queued   bool           // impacts were queued since (Wave, a terrain change)
	slot     map[int64]int  // mergeImpacts' scratch: a place's entry in merged
	merged   []mergedImpact // mergeImpacts' scratch
}

// WaveStep is the waves' step, s: a frame of the run loop's 60 a simulated second. Half
// the package's default (1/120 s) halves their cost (the rain scene's waves took 0.8 ms
// a frame at 1/120 s); a step samples the depth and the flow once, about 10 mm of a
// capillary ripple's travel, and reflections stay exact at any step (the particles walk
// the cells they cross).
const WaveStep = 1.0 / 60

// waveSettings are the wave system's settings from the scene's: the liquid's surface
// tension and density (whether or not capillarity is on in the solver: ripples are
// capillary at these sizes), the solver's gravity and viscosity, the wave_amplitude scale.
func (s *Scene) waveSettings() waves.Settings {
	st := s.settings
	return waves.Settings{
		Gravity: st.Solver.Gravity, SurfaceTension: st.Liquid.SurfaceTension, Density: st.Liquid.Density,
		Viscosity: st.Solver.Viscosity, Amplitude: st.WaveAmplitude, Workers: st.Solver.Workers,
		Step: WaveStep, MaxParticles: st.WaveParticles, MinAmplitude: WaveMinAmplitude,
	}
}

// syncWaves makes the wave system follow the settings: made when waves are turned on
// (with the solver), dropped when off, its settings updated otherwise.
func (s *Scene) syncWaves() error {
	on := s.settings.Waves && s.sim != nil
	if !on {
		if s.waves.sys != nil {
			s.waves.sys.Close()
			s.waves.sys = nil
			s.sim.RecordImpacts(false)
			s.stale()
		}
		return nil
	}
	if s.waves.sys == nil {
		sys, err := waves.New(s.sim.Columns(), s.waveSettings())
		if err != nil {
			return err
		}
		s.waves.sys = sys
		s.sim.RecordImpacts(true)
		s.stale()
		return nil
	}
	return s.waves.sys.SetSettings(s.waveSettings())
}

// Impacts, merged. Streams land as a parcel or more a step in one place, and every
// parcel's ring costs particles: the waterfall's stream made 124,000 wave particles in
// 2 s and ran at 0.7x real time, the three-layer scene's 189,000 (0.4x). So a Step's
// landings are merged by place (one impact per square of WaveMergeCells cells on each
// layer, at the strongest landing's point, its amplitude the root of the sum of the
// squares: their energies add), the weakest go (below WaveMinImpact), and at most
// WaveImpactsPerStep of the strongest start rings, in the order they first landed.
const (
	WaveMergeCells     = 6
	WaveMinImpact      = 2e-5 // m: a crest of 20 microns is about the least the surface shows
	WaveImpactsPerStep = 8
	// DefaultWaveParticles is wave_particles' default (waves.Settings.MaxParticles): past
	// it impacts start no ring. In open liquid 6,000 take about 0.5 ms a frame on two cores
	// (docs/waves.md); walking cells in small pools costs more. MaxWaveParticles bounds it.
	DefaultWaveParticles = 6000
	MaxWaveParticles     = 1000000
	// WaveMinAmplitude is the particles' removal threshold (waves.Settings.MinAmplitude):
	// 3 microns, a tenth of the least impact a step keeps.
	WaveMinAmplitude = 3e-6
)

// mergedImpact is the landings of one place in one Step.
type mergedImpact struct {
	x, y, z, t float64
	e, best    float64 // the sum of the squared amplitudes; the strongest's amplitude
	order      int
}

// stepWaves feeds the landings of the steps just taken to the waves as impacts (merged,
// see above) and advances them to the published state's time with its flow.
func (s *Scene) stepWaves() {
	w := &s.waves
	if w.sys == nil {
		w.last = 0
		return
	}
	t0 := time.Now()
	w.impacts = s.sim.Impacts(w.impacts)
	w.pending = s.mergeImpacts() || w.queued
	w.queued = false
	f := s.flow()
	w.sys.Advance(w.flowTime, f)
	w.last = time.Since(t0)
}

// mergeImpacts turns the Step's landings into at most WaveImpactsPerStep impacts, and
// tells whether it started any.
func (s *Scene) mergeImpacts() bool {
	w := &s.waves
	if len(w.impacts) == 0 {
		return false
	}
	if w.slot == nil {
		w.slot = make(map[int64]int)
	}
	clear(w.slot)
	w.merged = w.merged[:0]
	c := s.sim.Columns()
	g := s.settings.Solver.Gravity
	for _, im := range w.impacts {
		a := waves.LandingAmplitude(im.Volume, im.Speed, g)
		cx, cy, ok := c.CellAt(im.X, im.Y)
		if !(a > 0) || !ok {
			continue
		}
		layer := 0
		if col := c.ColumnAt(cx, cy, im.Z); col >= 0 {
			lo, _ := c.Cell(cx, cy)
			layer = col - lo
		}
		key := (int64(cy/WaveMergeCells)*int64(c.Nx)+int64(cx/WaveMergeCells))*int64(c.Layers+1) + int64(layer)
		k, seen := w.slot[key]
		if !seen {
			k = len(w.merged)
			w.slot[key] = k
			w.merged = append(w.merged, mergedImpact{order: k})
		}
		m := &w.merged[k]
		m.e += a * a
		m.t = im.Time
		if a > m.best {
			m.best, m.x, m.y, m.z = a, im.X, im.Y, im.Z
		}
	}
	slices.SortStableFunc(w.merged, func(a, b mergedImpact) int { return cmp.Compare(b.e, a.e) })
	keep := w.merged[:min(len(w.merged), WaveImpactsPerStep)]
	slices.SortFunc(keep, func(a, b mergedImpact) int { return cmp.Compare(a.order, b.order) })
	started := false
	for _, m := range keep {
		if a := math.Sqrt(m.e); a >= WaveMinImpact {
			w.sys.Impact(waves.Impact{X: m.x, Y: m.y, Z: m.z, Amplitude: a, Time: m.t})
			started = true
		}
	}
	return started
}

// flow is the published state's heights and velocities, for the waves: read once per
// published state (Step, Sync and the state's changes clear flowOK). The velocities (a
// pass over the columns and their pipes, 0.1-0.3 ms on the library's grids) are worked
// out only while there are wave particles to carry, or impacts to start: still liquid
// (nil) otherwise.
func (s *Scene) flow() waves.Flow {
	w := &s.waves
	if !w.flowOK {
		f := &w.flow
		f.Height, f.VX, f.VY, w.flowTime = s.sim.Flow(f.Height, f.VX, f.VY)
		if w.sys.Count() > 0 || w.pending {
			f.VX, f.VY = s.sim.Velocities(f.VX, f.VY)
		} else {
			f.VX, f.VY = nil, nil
		}
		w.flowOK = true
	}
	return w.flow
}

// LastWaves is the wall time the waves took in the last Step (0 with waves off).
func (s *Scene) LastWaves() time.Duration { return s.waves.last }

// WaveCount is the number of wave particles on the liquid (0 with waves off).
func (s *Scene) WaveCount() int {
	if s.waves.sys == nil {
		return 0
	}
	return s.waves.sys.Count()
}

// WavesOn tells whether waves run (Settings.Waves, once the solver exists).
func (s *Scene) WavesOn() bool { return s.waves.sys != nil }

// Wave starts a ring of waves at (x, y, z) (the liquid of the column whose free interval
// holds z), of crest height amplitude (m, before Settings.WaveAmplitude) and kernel radius
// radius (m; 0: the waves' default), at the current time.
func (s *Scene) Wave(x, y, z, amplitude, radius float64) error {
	if s.waves.sys == nil {
		return fmt.Errorf("waves are off: turn them on with waves = \"on\"")
	}
	if !finite(x, y, z, amplitude, radius) {
		return fmt.Errorf("the wave's at, amplitude and radius must be finite numbers")
	}
	if radius < 0 {
		return fmt.Errorf("radius is %g m: it must be >= 0 (0: the default)", radius)
	}
	c := s.sim.Columns()
	if _, _, ok := c.CellAt(x, y); !ok || z < 0 || z > c.Height {
		return fmt.Errorf("at = {%g, %g, %g} is outside the %g x %g x %g m domain: lengths are in metres",
			x, y, z, s.domain.SizeX, s.domain.SizeY, s.domain.Height)
	}
	s.waves.sys.Impact(waves.Impact{X: x, Y: y, Z: z, Amplitude: amplitude, Radius: radius, Time: s.sim.Time()})
	s.waves.queued = true
	return nil
}

// WaveHeight is the waves' displacement of the liquid surface at (x, y), m: of the
// topmost wet column there (0 where it is dry, outside the domain, or with waves off).
func (s *Scene) WaveHeight(x, y float64) float64 {
	if s.waves.sys == nil {
		return 0
	}
	c := s.sim.Columns()
	cx, cy, ok := c.CellAt(x, y)
	if !ok {
		return 0
	}
	f := s.flow()
	lo, hi := c.Cell(cx, cy)
	for i := hi - 1; i >= lo; i-- {
		if f.Height[i] > c.Base[i] {
			return s.waves.sys.HeightAt(x, y, float64(f.Height[i]), f)
		}
	}
	return 0
}

// Velocity is the depth-averaged velocity (m/s) of the topmost wet column at (x, y)
// (gpusim.Sim.VelocityAt).
func (s *Scene) Velocity(x, y float64) (vx, vy float64) {
	return s.sim.VelocityAt(x, y, math.NaN())
}

// displaced returns h with the waves' field added on wet columns (a copy; h itself is
// the snapshot's), or h where waves are off. A column moves by at most half its depth,
// and never above its ceiling: the field shows on the surface, never through the floor.
func (s *Scene) displaced(h []float32) []float32 {
	w := &s.waves
	if w.sys == nil || w.sys.Count() == 0 {
		return h
	}
	c := s.sim.Columns()
	w.disp = w.sys.Displacement(w.disp, s.flow())
	if cap(w.waved) < len(h) {
		w.waved = make([]float32, len(h))
	}
	out := w.waved[:len(h)]
	for i, v := range h {
		d := w.disp[i]
		depth := v - c.Base[i]
		if d == 0 || !(depth > 0) {
			out[i] = v
			continue
		}
		d = max(-depth/2, min(depth/2, d))
		out[i] = min(v+d, c.Max[i])
	}
	return out
}

// terrainImpacts makes waves where the terrain moved through the liquid: old were the
// columns and h their heights before the change. On a lattice of cells a wave radius
// apart, where the topmost wet column's floor rose or sank by more than a quarter cell,
// a crest (rising) or a trough (sinking) of half the change, at most half the depth.
func (s *Scene) terrainImpacts(old *terrain.Columns, h []float32) {
	w := &s.waves
	if w.sys == nil || old == nil || len(h) != old.NumColumns() {
		return
	}
	c := s.sim.Columns()
	const stride = 3 // cells: the waves' default radius
	t := s.sim.Time()
	const most = 4096
	n := 0
	for y := 0; y < old.Ny; y += stride {
		for x := 0; x < old.Nx; x += stride {
			lo, hi := old.Cell(x, y)
			for i := hi - 1; i >= lo; i-- {
				depth := float64(h[i]) - float64(old.Base[i])
				if !(depth > 0) {
					continue
				}
				j := c.ColumnAt(x, y, float64(h[i]))
				if j < 0 {
					break
				}
				dz := float64(c.Base[j]) - float64(old.Base[i])
				if math.Abs(dz) > c.Dx/4 && n < most {
					px, py := c.CellCentre(x, y)
					a := math.Copysign(math.Min(math.Abs(dz)/2, depth/2), dz)
					w.sys.Impact(waves.Impact{X: px, Y: py, Z: float64(h[i]), Amplitude: a, Time: t})
					w.queued = true
					n++
				}
				break
			}
		}
	}
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
