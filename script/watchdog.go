package script

import (
	"sync"
	"time"
)

// watchdog cancels the Lua state's context when one entry into Lua (the top level, a
// callback, a resume of main, one call of a heightfield fn) runs longer than its budget.
// The context is the scenario's for good: once it fires every Lua thread fails at its
// next instruction, and the scenario is stopped with the timeout error.
//
// Long Go work inside a vp call (terrain extraction, building the solver) pauses it, so
// only time spent running Lua counts.
type watchdog struct {
	mu       sync.Mutex
	cancel   func()
	timer    *time.Timer
	gen      uint64
	armed    bool
	deadline time.Time
	fired    bool
}

// arm starts counting d from now.
func (w *watchdog) arm(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired {
		return
	}
	if w.armed {
		w.timer.Stop()
	}
	w.gen++
	gen := w.gen
	w.armed = true
	w.deadline = time.Now().Add(d)
	w.timer = time.AfterFunc(max(d, 0), func() { w.fire(gen) })
}

// disarm stops counting; it returns the budget left and whether the watchdog has fired
// (now or earlier).
func (w *watchdog) disarm() (left time.Duration, fired bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.armed {
		w.timer.Stop()
		w.armed = false
		left = time.Until(w.deadline)
	}
	return left, w.fired
}

func (w *watchdog) fire(gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.armed || gen != w.gen || w.fired {
		return
	}
	w.fired = true
	w.armed = false
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
	return func() { w.arm(left) }
}
