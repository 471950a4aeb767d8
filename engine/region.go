package engine

import (
	"time"

	"github.com/vpbench/vpbench/scene"
)

// regionMark is the 3D region's clock (scene.RegionClock) read before a frame: what the
// frame's steps added to it since is the region's share of the frame's simulation time,
// Table 1's region row. The region keeps its own running totals (region.Timing), so the
// runner only takes differences: nothing is added to the step path.
type regionMark struct {
	id    int // the region's ID (0: none in place)
	steps int64
	wall  time.Duration
}

// markRegion reads the region's clock now.
func markRegion(sc *scene.Scene) regionMark {
	id, steps, wall, _ := sc.RegionClock()
	return regionMark{id: id, steps: steps, wall: wall}
}

// since is the region's steps and wall time since the mark. A region placed during the
// frame (by a callback: a new ID) counts from its start; one removed during the frame
// counts nothing (its last steps are not known after its removal).
func (m regionMark) since(sc *scene.Scene) (steps int64, wall time.Duration) {
	now := markRegion(sc)
	switch {
	case now.id == 0:
		return 0, 0
	case now.id != m.id:
		return now.steps, now.wall
	}
	return now.steps - m.steps, now.wall - m.wall
}
