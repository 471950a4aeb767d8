package script

import (
	"container/heap"
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// event is something due at a simulated time: a sim:at or sim:every callback, or the
// main coroutine waking from vp.wait.
type event struct {
	t   float64 // due at the first step boundary with time >= t
	seq int64   // scheduling order: ties in t fire in seq order
	fn  *lua.LFunction
	// every: the period, and the times are t0 + k*period (no drift from accumulating).
	period float64
	t0     float64
	k      float64 // this firing's index: t = t0 + k*period
	main   bool    // the main coroutine's wake-up
	what   string
	def    place // where fn is defined
	done   bool  // cancelled, or a sim:at that has fired
	index  int   // in the heap, -1 when out
}

// eventQueue is a min-heap on (t, seq).
type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *eventQueue) Push(x any) {
	e := x.(*event)
	e.index = len(*q)
	*q = append(*q, e)
}
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*q = old[:len(old)-1]
	return e
}

// schedule adds e to the queue with the next sequence number.
func (s *Scenario) schedule(e *event) {
	s.seq++
	e.seq = s.seq
	s.ck.register(s, e)
	heap.Push(&s.events, e)
}

// tolerance is how far before an event's time a step boundary may lie and still count
// as reaching it: simulated time is a float sum of steps, so a boundary meant to land on
// t = 0.3 may land a few ulps short of it.
func (s *Scenario) tolerance() float64 { return 1e-6 * s.scene.Dt() }

// dropCancelled pops cancelled events off the top of the queue.
func (s *Scenario) dropCancelled() {
	for len(s.events) > 0 && s.events[0].done {
		heap.Pop(&s.events)
	}
}

// stepsToNext is the number of steps (1..limit) to the first boundary where the earliest
// event is due; limit when nothing is scheduled before.
func (s *Scenario) stepsToNext(limit int) int {
	s.dropCancelled()
	if len(s.events) == 0 {
		return limit
	}
	need := (s.events[0].t - s.tolerance() - s.scene.Time()) / s.scene.Dt()
	if need <= 1 {
		return 1
	}
	if need >= float64(limit) {
		return limit
	}
	return int(math.Ceil(need))
}

// fireDue runs every event due at the current step boundary, in (time, order of
// scheduling) order. Events scheduled while they run wait for the next boundary even when
// their time has come, so one boundary always ends. It stops at the first error (kept in
// s.err) or when main returns.
func (s *Scenario) fireDue() {
	now := s.scene.Time()
	lim := now + s.tolerance()
	var batch []*event
	for len(s.events) > 0 && s.events[0].t <= lim {
		e := heap.Pop(&s.events).(*event)
		if !e.done {
			batch = append(batch, e)
		}
	}
	for _, e := range batch {
		if s.err != nil || s.done {
			return
		}
		if e.done { // cancelled by an earlier callback of this batch
			continue
		}
		if e.main {
			s.resumeMain()
			continue
		}
		if e.period > 0 {
			// The next time after this boundary: at most one call per boundary when the
			// period is shorter than dt.
			k := math.Floor((now+s.tolerance()-e.t0)/e.period) + 1
			e.k = max(e.k+1, k)
			e.t = e.t0 + e.k*e.period
			heap.Push(&s.events, e)
		} else {
			e.done = true
		}
		s.callback(e, now)
	}
}

// callback runs a sim:at or sim:every function with the simulated time as argument.
func (s *Scenario) callback(e *event, now float64) {
	ctx := fmt.Sprintf("in the %s callback defined at %s:%d, t = %.6g s", e.what, e.def.file, e.def.line, now)
	err := s.enter(e.def, ctx, func() error {
		s.L.Push(e.fn)
		s.L.Push(lua.LNumber(now))
		return s.L.PCall(1, 0, nil)
	})
	if err != nil {
		s.err = err
	}
}

// waitNils are the results of vp.wait in main: enough nils for any call site.
var waitNils = [8]lua.LValue{lua.LNil, lua.LNil, lua.LNil, lua.LNil, lua.LNil, lua.LNil, lua.LNil, lua.LNil}

// resumeMain runs the main coroutine until it waits (vp.wait) or returns.
func (s *Scenario) resumeMain() {
	now := s.scene.Time()
	s.mainWait = nil
	if s.mainTh.Dead { // the script resumed main itself until it returned
		s.done = true
		return
	}
	var st lua.ResumeState
	// vp.wait returns nothing, but gopher-lua does not fill the results its call site
	// wants (local x = vp.wait(1)) beyond the values the resume passes: they would be Go
	// nils, which crash the VM where used. So each resume after the first passes nils.
	var waitResults []lua.LValue
	if s.mainBegun {
		waitResults = waitNils[:]
	}
	s.mainBegun = true
	ctx := fmt.Sprintf("in main, t = %.6g s", now)
	s.resuming = true
	err := s.enter(s.mainDef, ctx, func() error {
		var err error
		st, err, _ = s.L.Resume(s.mainTh, s.mainFn, waitResults...)
		return err
	})
	s.resuming = false
	switch {
	case err != nil:
		s.err = err
	case st == lua.ResumeOK:
		s.done = true
	case s.mainWait == nil:
		s.err = &Error{File: s.mainDef.file, Line: s.mainDef.line,
			Msg: "main yielded without vp.wait: use vp.wait(seconds) to let simulated time pass (coroutine.yield cannot pause main)"}
	default:
		e := s.mainWait
		s.mainWait = nil
		heap.Push(&s.events, e)
	}
}
