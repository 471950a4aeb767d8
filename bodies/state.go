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
	Submerged        float64
	Wet              bool
}

// State returns the world's state.
func (w *World) State() State {
	st := State{Time: w.time, LastDt: w.lastDt}
	for _, b := range w.bodies {
		st.Bodies = append(st.Bodies, BodyState{ID: b.id, Density: b.density,
			X: [3]float64{b.x.X, b.x.Y, b.x.Z}, V: [3]float64{b.v.X, b.v.Y, b.v.Z}, W: [3]float64{b.w.X, b.w.Y, b.w.Z},
			Q: [4]float64{b.q.W, b.q.X, b.q.Y, b.q.Z}, PushF: [3]float64{b.pushF.X, b.pushF.Y, b.pushF.Z},
			PushAt: [3]float64{b.pushAt.X, b.pushAt.Y, b.pushAt.Z}, PushUntil: b.pushUntil, Pushing: b.pushing,
			Removed: b.removed, Submerged: b.submerged, Wet: b.wet})
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
	}
	for k, s := range st.Bodies {
		b := w.bodies[k]
		_ = b.setDensity(s.Density)
		b.x, b.v, b.w = vec{X: s.X[0], Y: s.X[1], Z: s.X[2]}, vec{X: s.V[0], Y: s.V[1], Z: s.V[2]}, vec{X: s.W[0], Y: s.W[1], Z: s.W[2]}
		b.q = quat{s.Q[0], s.Q[1], s.Q[2], s.Q[3]}
		b.pushF, b.pushAt = vec{X: s.PushF[0], Y: s.PushF[1], Z: s.PushF[2]}, vec{X: s.PushAt[0], Y: s.PushAt[1], Z: s.PushAt[2]}
		b.pushUntil, b.pushing, b.removed, b.submerged, b.wet = s.PushUntil, s.Pushing, s.Removed, s.Submerged, s.Wet
	}
	w.time, w.lastDt = st.Time, st.LastDt
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
