package engine

import (
	"sync"
	"time"

	"github.com/vpbench/vpbench/timing"
)

// clocks are Table 1's clocks since the load: the solver's time per frame and the steps
// it took, the surface's time per frame that built one, the render time per drawn frame,
// and each frame's whole wall time (Result.Total). The runner adds its frames on its own
// goroutine while the preview's goroutine adds render times and a script's sim:stats()
// reads them, hence the lock. The zero value is ready to use.
type clocks struct {
	mu     sync.Mutex
	sim    timing.PhaseClock
	steps  int64
	surf   timing.PhaseClock
	render timing.PhaseClock
	waves  timing.PhaseClock
	total  timing.PhaseClock
	// region is the 3D region's share of sim per frame that stepped one, over
	// regionSteps of its steps (addRegion).
	region      timing.PhaseClock
	regionSteps int64
}

// addFrame records a frame: its solver time sim for steps steps, its surface time surf
// (0: it built none), its waves' time waves (0: none ran) and its whole wall time total. A frame that took no step (main
// returned, or a callback failed, before it) is no frame of Table 1 and is not recorded.
func (c *clocks) addFrame(sim time.Duration, steps int64, surf, waves, total time.Duration) {
	if steps <= 0 {
		return
	}
	c.mu.Lock()
	c.sim.Add(sim)
	if waves > 0 {
		c.waves.Add(waves)
	}
	c.steps += steps
	if surf > 0 {
		c.surf.Add(surf)
	}
	c.total.Add(total)
	c.mu.Unlock()
}

// addSurface records a surface built after its frame was recorded (the overlap's last,
// taken when the run stops).
func (c *clocks) addSurface(d time.Duration) {
	c.mu.Lock()
	c.surf.Add(d)
	c.mu.Unlock()
}

// addRegion records the 3D region's wall time d over its steps in a frame (part of the
// frame's sim, which addFrame records); a frame in which no region stepped is not one of
// its frames.
func (c *clocks) addRegion(d time.Duration, steps int64) {
	if steps <= 0 {
		return
	}
	c.mu.Lock()
	c.region.Add(d)
	c.regionSteps += steps
	c.mu.Unlock()
}

// addRender records one drawn frame's render time (from any goroutine: the preview's,
// a screenshot's, a recording's).
func (c *clocks) addRender(d time.Duration) {
	c.mu.Lock()
	c.render.Add(d)
	c.mu.Unlock()
}

// reset starts Table 1 over (a new load).
func (c *clocks) reset() {
	c.mu.Lock()
	c.sim, c.surf, c.render, c.waves, c.total, c.steps = timing.PhaseClock{}, timing.PhaseClock{}, timing.PhaseClock{}, timing.PhaseClock{}, timing.PhaseClock{}, 0
	c.region, c.regionSteps = timing.PhaseClock{}, 0
	c.mu.Unlock()
}

// timings reads the simulation, surface, render, waves and region clocks and the steps.
func (c *clocks) timings() timing.Timings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return timing.Timings{Simulation: c.sim.Timing(), Surface: c.surf.Timing(), Render: c.render.Timing(), Waves: c.waves.Timing(),
		Region: c.region.Timing(), RegionSteps: c.regionSteps, Steps: c.steps}
}

// totalClock reads the frames' whole wall time.
func (c *clocks) totalClock() timing.PhaseClock {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}
