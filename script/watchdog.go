package script

import (
	"runtime"
	"slices"
	"sync"
	"time"
)

// watchdog cancels the Lua state's context when one entry into Lua (the top level, a
// callback, a resume of main, one call of a heightfield fn) has used more than its budget
// of CPU time. The context is the scenario's for good: once it fires every Lua thread
// fails at its next instruction, and the scenario is stopped with the timeout error.
//
// It counts the CPU time of the OS thread that runs the entry, not wall time, so that a
// busy machine (other processes, the solver's own workers, the race detector) does not
// stop a script that is merely slow to get the CPU, and a callback that waits (for a file,
// a picture being written) does not use its budget either. arm locks the calling
// goroutine to its OS thread until disarm, and the watchdog reads that thread's CPU clock
// (threadclock_linux.go); where threads have no CPU clock the watchdog reads wall time
// (threadclock_other.go), as it did before.
//
// Long Go work inside a vp call (terrain extraction, building the solver) pauses it, so
// only time spent running Lua counts.
//
// Reading a thread's CPU clock is a system call (about half a microsecond, and a terrain
// extraction calls a heightfield fn a few hundred thousand times, each an entry), so an
// entry does not read it when it begins: a timer takes the first reading quickArm after
// arm (the CPU time before it, a millisecond or the timer's delay on a busy machine, is
// not counted: the script is stopped that much later, never sooner). It looks again when
// the budget would be spent had the thread had the CPU all along (CPU time never runs
// faster than wall time) and, when the thread has used less (it waited, or did not get
// the CPU), again when the rest could be spent, checkMin at the least. Resuming after a
// pause reads the clock at once: only an entry's first millisecond goes uncounted, however
// often it pauses.
type watchdog struct {
	mu     sync.Mutex
	cancel func()
	// beforeCancel, if set, runs when the budget is spent, before cancel and while Lua
	// still runs (w.mu not held): the memory monitor's last look.
	beforeCancel func()
	timer        *time.Timer // made by the first arm, reset by the others
	gen          uint64
	timerGen     uint64 // the arm the timer was last set for
	armed        bool
	budget       time.Duration // the CPU time this arm may use
	clock        threadClock   // the armed thread's CPU clock
	// started: start is the clock's first reading of this arm. wall: the clock cannot be
	// read (no thread clocks on this system, or a failed read), so this arm counts wall
	// time from wallStart.
	started, wall bool
	start         time.Duration
	wallStart     time.Time
	fired         bool

	// held are the OS threads (ids) that arm locked their goroutine to, one level each,
	// until that goroutine calls disarm: an entry's arm, the arms that resume it after a
	// pause, and a heightfield fn's arm on an extraction goroutine stay balanced whatever
	// their nesting.
	held []int
}

// quickArm is when the timer first reads the armed thread's clock; checkMin is the
// shortest wait between two readings after that while the thread has not used its budget
// (a script is stopped at most about this much CPU time late).
const (
	quickArm = time.Millisecond
	checkMin = 10 * time.Millisecond
)

// arm starts counting d of the calling goroutine's CPU time from now; the goroutine stays
// on its OS thread until it calls disarm (or pause). It returns the thread arm locked the
// goroutine to (0 where it locked none), for disarmHeld.
func (w *watchdog) arm(d time.Duration) (held int) { return w.armAt(d, false) }

// armAt arms; read takes the clock's first reading now rather than after quickArm.
func (w *watchdog) armAt(d time.Duration, read bool) (held int) {
	tid, clock := lockThread()
	var now time.Duration
	ok := tid != 0
	if ok && read {
		now, ok = clock.read()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if tid != 0 {
		if w.fired || slices.Contains(w.held, tid) {
			runtime.UnlockOSThread() // this thread holds its level already (or needs none)
		} else {
			w.held = append(w.held, tid)
			held = tid
		}
	}
	if w.fired {
		return held
	}
	w.gen++
	w.armed = true
	w.budget = d
	w.clock, w.wall, w.started, w.start = clock, !ok, read && ok, now
	w.wallStart = time.Now()
	first := max(d, 0)
	if !w.wall && !w.started {
		first = min(first, quickArm)
	}
	// One timer for every arm, reset: a heightfield fn's calls arm hundreds of thousands
	// of times in a terrain extraction. A run of the timer meant for an earlier arm that
	// races with this one checks this arm (check reads the generation then): it can only
	// take the clock's first reading early, which counts more of this entry, never less.
	w.timerGen = w.gen
	if w.timer == nil {
		w.timer = time.AfterFunc(first, w.tick)
	} else {
		w.timer.Reset(first)
	}
	return held
}

// tick is the timer's function: it checks the arm the timer was last set for.
func (w *watchdog) tick() {
	w.mu.Lock()
	gen := w.timerGen
	w.mu.Unlock()
	w.check(gen)
}

// left is the budget left (w.mu is held); it takes the clock's first reading if the arm
// has none yet.
func (w *watchdog) left() time.Duration {
	if !w.wall {
		if now, ok := w.clock.read(); ok {
			if !w.started {
				w.started, w.start = true, now
			}
			return w.budget - (now - w.start)
		}
		w.wall = true // the thread's clock failed: count wall time since arm
	}
	return w.budget - time.Since(w.wallStart)
}

// disarm stops counting; it returns the budget left and whether the watchdog has fired
// (now or earlier). The calling goroutine leaves the OS thread its arm locked it to.
func (w *watchdog) disarm() (left time.Duration, fired bool) {
	return w.disarmHeld(currentThread())
}

// disarmHeld is disarm by the goroutine that arm locked to thread tid (arm's result),
// without asking the system which thread it runs on (a system call, twice a heightfield
// fn call otherwise). tid 0 (arm locked none) leaves the threads held as they are.
func (w *watchdog) disarmHeld(tid int) (left time.Duration, fired bool) {
	w.mu.Lock()
	if w.armed {
		w.timer.Stop()
		w.armed = false
		left = w.budget // an arm shorter than quickArm: nothing counted
		if w.wall || w.started {
			left = w.left()
		}
	}
	// A held thread runs no goroutine but the one locked to it: finding it here means
	// the caller is that goroutine.
	i := -1
	if tid != 0 {
		i = slices.Index(w.held, tid)
	}
	if i >= 0 {
		w.held = slices.Delete(w.held, i, i+1)
	}
	fired = w.fired
	w.mu.Unlock()
	if i >= 0 {
		runtime.UnlockOSThread()
	}
	return left, fired
}

// check runs on the timer: it fires when the armed thread has used its budget, and looks
// again later when it has not.
func (w *watchdog) check(gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.armed || gen != w.gen || w.fired {
		return
	}
	if left := w.left(); left > 0 {
		w.timer.Reset(max(left, checkMin)) // the thread waited, or did not get the CPU
		return
	}
	w.fired = true
	w.armed = false
	if w.beforeCancel != nil {
		w.mu.Unlock()
		w.beforeCancel()
		w.mu.Lock()
	}
	w.cancel()
}

// pause stops counting for Go work that is not Lua; the returned func resumes with the
// budget left (if the watchdog was counting at all).
func (w *watchdog) pause() (resume func()) {
	w.mu.Lock()
	armed := w.armed
	w.mu.Unlock()
	if !armed {
		return func() {}
	}
	left, _ := w.disarm()
	return func() { w.armAt(left, true) }
}
