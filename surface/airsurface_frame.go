package surface

import (
	"runtime"
	"slices"
	"time"
)

// A frame of AirSurface (airsurface.go): its phases, run in one job of all the workers,
// the workers' syncs between two phases and the serial steps worker 0 does there.

// The frame's phases run in one job of all the workers (frame): each phase's work is
// taken in pieces from a shared counter, whichever worker is free (a worker that starts
// late takes less), and placed by the piece, not by the worker; between two phases
// worker 0 alone does the serial steps (serial) while the others wait (sync).
const (
	airScanChunk   = 1024 // drops a piece of the scan
	airParamsChunk = 256  // drops a piece of the kernels
	airLoneChunk   = 32   // lone drops a piece of the copy
)

// The serial steps, after each phase.
const (
	airAfterScan = iota
	airAfterFollow
	airAfterParams
	airAfterPlanes
	airAfterLone
	airAfterTiles
)

// frame is worker w's part of a frame.
func (a *AirSurface) frame(w int) {
	k := &a.wk[w]
	a.scanWorker(k)
	a.sync(w, airAfterScan)
	if len(a.valid) == 0 {
		return // nothing drawn
	}
	a.followWorker()
	a.sync(w, airAfterFollow)
	if a.h != 0 { // drops on the lattice
		a.paramsWorker()
		a.sync(w, airAfterParams)
		if w == 0 {
			a.bin() // while the others start on the planes
		}
		a.planesWorker(w)
		a.sync(w, airAfterPlanes)
		if !a.mcOnly {
			a.lonesWorker(k)
		}
		a.sync(w, airAfterLone)
		a.tilesWorker(k, int32(w))
	}
	a.sync(w, airAfterTiles)
	a.copyWorker(k)
}

// sync waits for every worker to arrive; worker 0 then does the serial step and lets
// the others go on.
func (a *AirSurface) sync(w, step int) {
	if a.nw == 1 {
		a.serial(step)
		return
	}
	if w != 0 {
		gen := a.gen.Load()
		if a.arrived.Add(1) == int32(a.nw-1) {
			a.wake()
		}
		a.await(func() bool { return a.gen.Load() != gen })
		return
	}
	a.await(func() bool { return a.arrived.Load() == int32(a.nw-1) })
	a.arrived.Store(0)
	a.serial(step)
	a.gen.Add(1)
	a.wake()
}

// await returns once done holds: it checks, yielding now and then, for airSpin, then
// sleeps on cond until woken (wake) and done holds. (A worker asleep wakes late; one
// that spins takes a processor another job may need: the serial steps and a phase's
// last pieces take less than airSpin.)
func (a *AirSurface) await(done func() bool) {
	var t0 time.Time
	for i := 0; !done(); i++ {
		if i&63 != 63 {
			continue
		}
		if i == 63 {
			t0 = time.Now()
		} else if time.Since(t0) > airSpin {
			a.mu.Lock()
			a.sleepers.Add(1)
			for !done() {
				a.cond.Wait()
			}
			a.sleepers.Add(-1)
			a.mu.Unlock()
			return
		}
		runtime.Gosched()
	}
}

// airSpin is how long a worker waiting at a sync checks before it sleeps.
const airSpin = 300 * time.Microsecond

// wake wakes the workers asleep at a sync, to check whether they may go on. (A worker
// counts itself asleep, and checks, under mu: it cannot miss a wake.)
func (a *AirSurface) wake() {
	if a.sleepers.Load() > 0 {
		a.mu.Lock()
		a.cond.Broadcast()
		a.mu.Unlock()
	}
}

// serial does a serial step (worker 0, the others waiting).
func (a *AirSurface) serial(step int) {
	a.next.Store(0)
	switch step {
	case airAfterScan:
		a.gather()
	case airAfterFollow:
		a.streamsLink()
		a.lattice()
	case airAfterParams:
	case airAfterPlanes:
		// Let every worker's arena hold the whole frame's planes (which worker takes
		// which drops varies from frame to frame): the next frame of this size
		// allocates nothing.
		n := 0
		for w := range a.wk {
			n += len(a.wk[w].planes)
		}
		for w := range a.wk {
			a.wk[w].planes = slices.Grow(a.wk[w].planes, n-len(a.wk[w].planes))
		}
		a.tileOrder()
		a.lonePrepare()
	case airAfterLone:
		for w := range a.wk {
			k := &a.wk[w]
			k.pos, k.nor, k.idx, k.low, k.foreign = k.pos[:0], k.nor[:0], k.idx[:0], k.low[:0], k.foreign[:0]
		}
	case airAfterTiles:
		a.loneCollect()
		a.sizes()
	}
}
