package bodies

import (
	"fmt"
	"slices"
)

// State is a World's state for a checkpoint: every body made (removed ones too, in the
// order made) and the lifts the last update asked of the columns. The bodies' shapes
// are not in it: a resumed run makes the same bodies again (its script's set-up) and
// Restore puts them where they were.
type State struct {
	Time, LastDt float64
	Bodies       []BodyState
	// Lifted lists the columns whose lift the bodies set, in the order the next update
	// visits them, and Lift those lifts (m).
	Lifted []int32
	Lift   []float32
}

// BodyState is one body's state.
type BodyState struct {
	ID               int
	Density          float64
	X, V, W          [3]float64
	Q                [4]float64
	PushF, PushAt    [3]float64
	PushUntil        float64
	Pushing, Removed bool
	// Left: the body left through an open side (removed then too). A checkpoint from
	// before open sides let bodies leave has none (gob reads false).
	Left      bool
	Submerged float64
	Wet       bool
	// Sleep: the time still, asleep, the liquid around it at the last update and when it
	// fell asleep (a, b, c, floor, vx, vy of the plane), its footprint's rectangle, and
	// its displacement per column.
	Still             float64
	Asleep, SleepWet  bool
	Level, SleepLevel [6]float64
	Foot              [4]int
	SplatCol          []int32
	SplatVol          []float64
}

func (l level) array() [6]float64 { return [6]float64{l.a, l.b, l.c, l.floor, l.vx, l.vy} }

func levelOf(a [6]float64) level {
	return level{a: a[0], b: a[1], c: a[2], floor: a[3], vx: a[4], vy: a[5]}
}

// State returns the world's state.
func (w *World) State() State {
	st := State{Time: w.time, LastDt: w.lastDt}
	for _, b := range w.bodies {
		st.Bodies = append(st.Bodies, BodyState{ID: b.id, Density: b.density,
			X: [3]float64{b.x.X, b.x.Y, b.x.Z}, V: [3]float64{b.v.X, b.v.Y, b.v.Z}, W: [3]float64{b.w.X, b.w.Y, b.w.Z},
			Q: [4]float64{b.q.W, b.q.X, b.q.Y, b.q.Z}, PushF: [3]float64{b.pushF.X, b.pushF.Y, b.pushF.Z},
			PushAt: [3]float64{b.pushAt.X, b.pushAt.Y, b.pushAt.Z}, PushUntil: b.pushUntil, Pushing: b.pushing,
			Removed: b.removed, Left: b.left, Submerged: b.submerged, Wet: b.wet,
			Still: b.still, Asleep: b.asleep, SleepWet: b.sleepWet, Level: b.level.array(), SleepLevel: b.sleepLevel.array(),
			Foot: [4]int{b.foot.x0, b.foot.y0, b.foot.x1, b.foot.y1}, SplatCol: slices.Clone(b.splatCol), SplatVol: slices.Clone(b.splatVol)})
	}
	st.Lifted = slices.Clone(w.touched)
	for _, i := range w.touched {
		st.Lift = append(st.Lift, w.applied[i])
	}
	return st
}

// Restore brings the world to st: the world's bodies take the state of st's first ones,
// in order (the ids match); st's others, which the world lacks (made after a set-up that
// is what was made again), are counted in dropped and left out. Nothing changes on an
// error.
func (w *World) Restore(st State) (dropped int, err error) {
	if len(st.Bodies) < len(w.bodies) {
		return 0, fmt.Errorf("the checkpoint has %d bodies, the script made %d", len(st.Bodies), len(w.bodies))
	}
	dropped = len(st.Bodies) - len(w.bodies)
	st.Bodies = st.Bodies[:len(w.bodies)]
	n := len(w.applied)
	if len(st.Lift) != len(st.Lifted) {
		return 0, fmt.Errorf("the checkpoint's bodies are corrupt: %d lifted columns, %d lifts", len(st.Lifted), len(st.Lift))
	}
	for _, i := range st.Lifted {
		if i < 0 || int(i) >= n {
			return 0, fmt.Errorf("the checkpoint's bodies are corrupt: column %d of %d", i, n)
		}
	}
	for k, s := range st.Bodies {
		if s.ID != w.bodies[k].id {
			return 0, fmt.Errorf("the checkpoint's body %d has id %d, the script's %d", k+1, s.ID, w.bodies[k].id)
		}
		if !(s.Density > 0) {
			return 0, fmt.Errorf("the checkpoint's body %d has density %g", s.ID, s.Density)
		}
		if len(s.SplatCol) != len(s.SplatVol) {
			return 0, fmt.Errorf("the checkpoint's body %d is corrupt: %d displaced columns, %d volumes", s.ID, len(s.SplatCol), len(s.SplatVol))
		}
		for _, i := range s.SplatCol {
			if i < 0 || int(i) >= n {
				return 0, fmt.Errorf("the checkpoint's body %d is corrupt: column %d of %d", s.ID, i, n)
			}
		}
	}
	for k, s := range st.Bodies {
		b := w.bodies[k]
		_ = b.setDensity(s.Density)
		b.x, b.v, b.w = vec{X: s.X[0], Y: s.X[1], Z: s.X[2]}, vec{X: s.V[0], Y: s.V[1], Z: s.V[2]}, vec{X: s.W[0], Y: s.W[1], Z: s.W[2]}
		b.q = quat{s.Q[0], s.Q[1], s.Q[2], s.Q[3]}
		b.pushF, b.pushAt = vec{X: s.PushF[0], Y: s.PushF[1], Z: s.PushF[2]}, vec{X: s.PushAt[0], Y: s.PushAt[1], Z: s.PushAt[2]}
		b.pushUntil, b.pushing, b.removed, b.left, b.submerged, b.wet = s.PushUntil, s.Pushing, s.Removed, s.Left, s.Submerged, s.Wet
		b.still, b.asleep, b.sleepWet = s.Still, s.Asleep, s.SleepWet
		b.level, b.sleepLevel = levelOf(s.Level), levelOf(s.SleepLevel)
		b.foot = footprint{x0: s.Foot[0], y0: s.Foot[1], x1: s.Foot[2], y1: s.Foot[3]}
		b.splatCol, b.splatVol = slices.Clone(s.SplatCol), slices.Clone(s.SplatVol)
	}
	w.time, w.lastDt = st.Time, st.LastDt
	w.liveStale = true
	for _, i := range w.touched {
		w.applied[i], w.mark[i] = 0, false
	}
	w.touched = append(w.touched[:0], st.Lifted...)
	for k, i := range st.Lifted {
		w.applied[i], w.mark[i] = st.Lift[k], true
	}
	w.nextID = max(w.nextID, len(st.Bodies)+dropped)
	return dropped, nil
}

// Lifting tells whether some column still holds a lift the bodies set (after the last
// body is removed, the lifts relax to 0 over the next updates).
func (w *World) Lifting() bool { return len(w.touched) > 0 }
