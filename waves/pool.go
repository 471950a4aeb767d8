package waves

import (
	"runtime"
	"sync/atomic"
	"time"
)

// pool runs one job kind on every worker at once: workers 1 .. n-1 are goroutines that
// live as long as the pool, worker 0 is the caller. A warm pool allocates nothing.
//
// Waiting (a worker for the next job, the caller for the others to finish) first spins
// for up to spinTime, yielding its thread at each turn (runtime.Gosched, so that more
// workers than threads still make progress), then sleeps on a channel. The phases of a
// call and the steps of an Advance follow each other within microseconds; waking a
// sleeping thread for each of them cost 30-90 us on the 2-vCPU VM of docs/waves.md
// ("Cost"), several times a frame.
type pool struct {
	n       int
	do      func(kind, w int)
	kind    int           // the job of the current run, set before gen moves
	gen     atomic.Uint64 // runs started
	left    atomic.Int64  // workers 1 .. n-1 still on the current run
	stopped atomic.Bool
	ws      []*sleeper // workers 1 .. n-1
	main    *sleeper   // the caller, waiting for them
}

// spinTime is how long a waiting worker or caller spins before it sleeps.
const spinTime = 50 * time.Microsecond

// sleeper is a goroutine that waits for a condition: spinning, then asleep on ch. A
// waker makes the condition true, then calls wake.
type sleeper struct {
	asleep atomic.Bool
	ch     chan struct{}
	_      [48]byte // keep sleepers on their own cache lines
}

func newSleeper() *sleeper { return &sleeper{ch: make(chan struct{}, 1)} }

// await returns once ready() holds: at once, after spinning, or after sleeping. A wake
// is only a hint (it may come late, from the condition of an earlier wait): await checks
// ready() again after each.
func (s *sleeper) await(ready func() bool) {
	for {
		if ready() {
			return
		}
		start := time.Now()
		for i := 1; ; i++ {
			runtime.Gosched()
			if ready() {
				return
			}
			if i%16 == 0 && time.Since(start) > spinTime {
				break
			}
		}
		s.asleep.Store(true)
		if ready() && s.asleep.CompareAndSwap(true, false) {
			return
		}
		// asleep, or a waker has just cleared the flag: either way a token comes
		<-s.ch
	}
}

// wake wakes s if it sleeps or is about to; the waker made the condition true first.
// Exactly one token answers each time s goes to sleep: wake sends one only when it
// clears the flag s set, and s takes it unless it cleared the flag itself.
func (s *sleeper) wake() {
	if s.asleep.CompareAndSwap(true, false) {
		s.ch <- struct{}{}
	}
}

func newPool(n int, do func(kind, w int)) *pool {
	p := &pool{n: n, do: do, main: newSleeper()}
	for w := 1; w < n; w++ {
		s := newSleeper()
		p.ws = append(p.ws, s)
		go p.loop(s, w)
	}
	return p
}

func (p *pool) loop(s *sleeper, w int) {
	seen := uint64(0)
	for {
		s.await(func() bool { return p.gen.Load() != seen })
		if p.stopped.Load() {
			return
		}
		seen = p.gen.Load()
		p.do(p.kind, w)
		if p.left.Add(-1) == 0 {
			p.main.wake()
		}
	}
}

// run calls do(kind, w) for every worker w and returns when all have returned.
func (p *pool) run(kind int) {
	if len(p.ws) == 0 {
		p.do(kind, 0)
		return
	}
	p.kind = kind
	p.left.Store(int64(len(p.ws)))
	p.gen.Add(1)
	for _, s := range p.ws {
		s.wake()
	}
	p.do(kind, 0)
	p.main.await(func() bool { return p.left.Load() == 0 })
}

// stop ends the goroutines; the pool must not be used after.
func (p *pool) stop() {
	p.stopped.Store(true)
	p.gen.Add(1)
	for _, s := range p.ws {
		s.wake()
	}
	p.ws = nil
}
