package gpusim

// Lifted floors: how a floating or resting body displaces the liquid (docs/solver.md,
// "Bodies in the liquid"). A body's volume below the liquid surface in a column is taken
// as solid laid under that column's liquid: the column's floor rises by the body's
// submerged thickness there and its liquid rises with it, so the column's pressure head
// (h - Base) is liquid plus body, the level around the body rises by the displaced volume,
// and the solver's own limits keep the liquid under the body from going negative. The
// volume of liquid is unchanged by a lift, to the residual's rounding: h - floor is kept.
//
// Columns are immutable and shared (terrain.Columns); the floors the backend uses are the
// Sim's own copy, made on the first lift, and Snapshot.Columns keeps the terrain's Base:
// Snapshot.Depth under a body is liquid plus displacement, and Snapshot.Displaced is the
// lifted volume that Volume leaves out.

import (
	"fmt"
	"math"
	"slices"
)

// liftState is the Sim's record of lifted floors.
type liftState struct {
	floor  []float32 // the floors in use; nil while no floor was ever lifted (cols.Base)
	lifted []int32   // the columns whose floor is above Base, in no order
	at     []int32   // per column: its index in lifted, or -1 (nil while floor is nil)
	// scratch holds LiftFloors' new floors (reused: the bodies lift 60 times a second).
	scratch []float32
	volume  float64 // the lifted volume, m^3: quantum times dx^2 times q
	// q is the sum over the columns of their lift in units of liftQuantum, rounded: an
	// integer sum, so that it is the same whatever order columns were lifted in, kept up
	// as columns change (O(columns lifted) a call) and recomputed equal from a
	// checkpoint's floors.
	q int64
}

// liftQuantum is the unit the lifted volume is summed in, m: 2^-40, a picometre; a
// thousand columns' roundings are some 1e-16 m^3 at dx = 0.5 mm.
const liftQuantum = 1.0 / (1 << 40)

// quantize is a column's lift (floor - base) in liftQuantum units.
func quantize(floor, base float32) int64 {
	return int64(math.Round((float64(floor) - float64(base)) / liftQuantum))
}

// Floor returns column i's floor now: its Base, raised by what a body displaces there.
func (s *Sim) Floor(i int) float32 {
	if s.lift.floor == nil {
		return s.cols.Base[i]
	}
	return s.lift.floor[i]
}

// Displaced returns the volume bodies displace now, m^3: the sum over the columns of
// their floors' lift times dx^2.
func (s *Sim) Displaced() float64 { return s.lift.volume }

// LiftFloors sets the floors of the columns cols to their Base plus lift (m, each >= 0;
// 0 lowers a floor back to its Base) and moves each column's liquid up or down with its
// floor, keeping its depth and so the volume. A lift larger than the column allows (the
// liquid may not rise past Max) is cut to what fits, and lift[k] is set to the lift
// applied. h are the heights now (LiveHeights), read, not written. Columns not named keep
// their floors. The published state (Snapshot, Heights) shows the lifts from the next
// Step on; Volume, Floor and Displaced at once. On the cuda backend each call moves the
// heights to the host and back (docs/cuda.md).
func (s *Sim) LiftFloors(cols []int32, lift []float32, h []float32) error {
	if len(cols) != len(lift) {
		return fmt.Errorf("lift floors: %d columns but %d lifts", len(cols), len(lift))
	}
	n := s.cols.NumColumns()
	for k, i := range cols {
		if i < 0 || int(i) >= n {
			return fmt.Errorf("lift floors: column %d is outside [0, %d)", i, n)
		}
		if v := lift[k]; !(v >= 0) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("lift floors: column %d: lift %g must be a finite number >= 0", i, v)
		}
		if s.held != nil && s.held.mark[i] == markHeld {
			return fmt.Errorf("lift floors: column %d is held (Hold)", i)
		}
	}
	s.Sync()
	l := &s.lift
	if l.floor == nil {
		if len(cols) == 0 {
			return nil
		}
		l.floor = append([]float32(nil), s.cols.Base...)
		l.at = make([]int32, n)
		for i := range l.at {
			l.at[i] = -1
		}
	}
	base, top := s.cols.Base, s.cols.Max
	if cap(l.scratch) < len(cols) {
		l.scratch = make([]float32, len(cols))
	}
	floor := l.scratch[:len(cols)] // the new floors, in cols' order
	for k, i := range cols {
		old := l.floor[i]
		want := float64(base[i]) + float64(lift[k])
		// The liquid rises by want - old; it may not pass Max.
		room := float64(top[i]) - float64(h[i])
		f := float32(min(want, float64(old)+room))
		if f < base[i] {
			f = base[i]
		}
		for f > old && float64(h[i])+(float64(f)-float64(old)) > float64(top[i]) {
			f = math.Nextafter32(f, float32(math.Inf(-1))) // rounding up past Max
		}
		floor[k] = f
		lift[k] = f - base[i]
	}
	if err := s.be.liftFloors(cols, floor); err != nil {
		return err
	}
	for k, i := range cols {
		old := l.floor[i]
		l.q += quantize(floor[k], base[i]) - quantize(old, base[i])
		l.floor[i] = floor[k]
		switch up := floor[k] > base[i]; {
		case up && l.at[i] < 0:
			l.at[i] = int32(len(l.lifted))
			l.lifted = append(l.lifted, i)
		case !up && l.at[i] >= 0:
			last := l.lifted[len(l.lifted)-1]
			l.lifted[l.at[i]] = last
			l.at[last] = l.at[i]
			l.lifted = l.lifted[:len(l.lifted)-1]
			l.at[i] = -1
		}
	}
	l.volume = float64(l.q) * liftQuantum * s.cols.Dx * s.cols.Dx
	return nil
}

// liveHeights is a backend whose heights can be read where they lie (the CPU backend).
type liveHeights interface {
	heights() []float32
}

func (c *cpuBackend) heights() []float32 { return c.h }

// LiveHeights returns the heights now, m: on the CPU backend the solver's own array
// (read it, never write it; it changes with the next Step or lift), elsewhere a copy in
// dst (grown as needed). For the runner's goroutine only: the bodies' read, every update,
// without a copy of every column.
func (s *Sim) LiveHeights(dst []float32) []float32 {
	s.Sync()
	if lh, ok := s.be.(liveHeights); ok {
		return lh.heights()
	}
	n := s.cols.NumColumns()
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	s.be.readHeight(dst)
	return dst
}

// dropLifts lowers every lifted floor back to its Base (a terrain change; the bodies lift
// them again on their next update).
func (s *Sim) dropLifts() {
	l := &s.lift
	if len(l.lifted) == 0 {
		return
	}
	cols := append([]int32(nil), l.lifted...)
	zero := make([]float32, len(cols))
	s.be.readHeight(s.scratch)
	_ = s.LiftFloors(cols, zero, s.scratch) // lowering always fits
	s.publish()
	l.floor, l.at, l.lifted = nil, nil, nil
	l.volume, l.q = 0, 0
}

// restoreLifts makes the floors those of a checkpoint (cols lifted to floor, every other
// column at its Base), checked already; the heights are written after it.
func (s *Sim) restoreLifts(cols []int32, floor []float32) {
	l := &s.lift
	if l.floor == nil && len(cols) == 0 {
		return
	}
	base := s.cols.Base
	want := slices.Clone(base)
	for k, i := range cols {
		want[i] = floor[k]
	}
	var change []int32
	for i := range want {
		if want[i] != s.Floor(i) {
			change = append(change, int32(i))
		}
	}
	vals := make([]float32, len(change))
	for k, i := range change {
		vals[k] = want[i]
	}
	_ = s.be.liftFloors(change, vals)
	l.floor, l.lifted, l.q = want, nil, 0
	l.at = make([]int32, len(want))
	for i := range want {
		l.at[i] = -1
		if want[i] > base[i] {
			l.at[i] = int32(len(l.lifted))
			l.lifted = append(l.lifted, int32(i))
			l.q += quantize(want[i], base[i])
		}
	}
	l.volume = float64(l.q) * liftQuantum * s.cols.Dx * s.cols.Dx
}

// liftColumn moves a column's liquid with its floor from old to f: the height and its
// residual take f - old, exactly in float64, and the height stays in [f, top].
func liftColumn(h, r *float32, old, f, top float32) {
	exact := float64(*h) + float64(*r) + (float64(f) - float64(old))
	nh := min(max(float32(exact), f), top)
	*h, *r = nh, float32(exact-float64(nh))
}

// liftFloors on the CPU backend: the floors become the backend's own copy on the first
// lift (the terrain's Columns are shared), and the vector flux phase's cached pipe floors
// follow.
func (c *cpuBackend) liftFloors(cols []int32, floor []float32) error {
	if !c.ownBase {
		c.base = append([]float32(nil), c.base...)
		c.ownBase = true
	}
	t := c.topo
	c.stillColumns(cols) // their rows are swept again (kernels_dense.go)
	for k, i := range cols {
		old := c.base[i]
		if floor[k] == old {
			continue
		}
		liftColumn(&c.h[i], &c.r[i], old, floor[k], c.top[i])
		// A capped column's full flag follows its height, as for the emitters' columns
		// (extended.refreshTargets): a flip rebuilds the passages at the next step; a
		// rescan of every capped column at every lift was a sixth of a surgery step.
		if c.ext != nil && c.ext.isCapped[i] && c.ext.updateFull(int(i), c.h[i]) {
			c.ext.flips[0]++
		}
		c.base[i] = floor[k]
		if c.pipeBase[0] != nil {
			for e := t.adjStart[i]; e < t.adjStart[i+1]; e++ {
				p := t.adjPipe[e]
				if t.adjSign[e] > 0 {
					c.pipeBase[0][p] = floor[k]
				} else {
					c.pipeBase[1][p] = floor[k]
				}
			}
		}
	}
	return nil
}

// liftFloors on a device backend moves the heights, residuals and floors to the host,
// lifts there with the CPU's arithmetic, and uploads them again: O(columns) transfers a
// call, which a body update a frame affords; a kernel that lifts only the columns named
// is future work (docs/cuda.md).
func (d *deviceBackend) liftFloors(cols []int32, floor []float32) error {
	d.inFlight("liftFloors")
	if d.hostBase == nil {
		d.hostBase = append([]float32(nil), d.topo.cols.Base...)
	}
	h, r := make([]float32, d.n), make([]float32, d.n)
	d.rt.Do(func() {
		download(d.rt, h, d.h)
		download(d.rt, r, d.r)
	})
	top := d.topo.cols.Max
	for k, i := range cols {
		if old := d.hostBase[i]; floor[k] != old {
			liftColumn(&h[i], &r[i], old, floor[k], top[i])
			d.hostBase[i] = floor[k]
		}
	}
	d.rt.Do(func() {
		upload(d.rt, d.base, d.hostBase)
		upload(d.rt, d.h, h)
		upload(d.rt, d.r, r)
	})
	if d.ext != nil {
		d.ext.dirty = true
	}
	return nil
}
