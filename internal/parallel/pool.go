// Package parallel runs short jobs on a fixed set of goroutines, for the solver's steps
// and the surface's frames: a job lasts from tens of microseconds to a few milliseconds,
// and the next one usually follows at once.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Pool runs a job on up to Workers() workers: worker 0 is the caller, workers 1..n-1 are
// goroutines started once. After a job the goroutines spin on the job counter, yielding
// the processor now and then, before they park: woken from a parked state (a channel, a
// cond) a worker starts too late to share a short job. (Measured in the solver: a
// one-step Step with two workers parked on channels was no faster than with one worker;
// with spinning workers it takes half the time. In the waves: a parked worker started
// each job 30-90 us late on a 2-vCPU VM, several times a frame.) The caller waiting for
// the workers spins too (it has nothing else to do, and yields as they do).
//
// Do must be called from one goroutine at a time. A job must not call Do.
type Pool struct {
	n    int
	spin time.Duration // the spin window; 0: SpinRounds rounds
	job  func(w int)
	k    int           // workers that take part in the current job
	gen  atomic.Uint64 // job counter: workers run a job when it changes
	done atomic.Int32  // goroutines that finished the current job
	quit atomic.Bool
	mu   sync.Mutex
	cond *sync.Cond // parked workers wait here for gen to change or quit
}

// SpinRounds is how long an idle worker of a New pool spins before parking (each round
// checks the job counter; every 64th yields the processor): 35-60 us on the 2-vCPU AMD
// EPYC VM of docs/benchmarks.md, longer where yielding costs more.
const SpinRounds = 1 << 14

// New starts a pool of n workers (n < 1: runtime.GOMAXPROCS(0)) whose idle goroutines
// spin SpinRounds rounds before they park.
func New(n int) *Pool { return NewSpin(n, 0) }

// NewSpin is New with a spin window measured on the clock: an idle worker spins for
// about spin (read every 64 rounds), whatever a round costs on the machine, then parks.
// spin <= 0 is New's SpinRounds rounds.
func NewSpin(n int, spin time.Duration) *Pool {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	p := &Pool{n: n, spin: max(spin, 0)}
	p.cond = sync.NewCond(&p.mu)
	for w := 1; w < n; w++ {
		go p.work(w)
	}
	return p
}

// Workers is the number of workers, the caller included.
func (p *Pool) Workers() int { return p.n }

// Do calls job(w) for every w in [0, k) (k is clamped to [1, Workers()]), job(0) on the
// calling goroutine, and returns when all have returned. job should be a function value
// made once (a method value bound in advance): passing it allocates nothing.
func (p *Pool) Do(k int, job func(w int)) {
	k = min(max(k, 1), p.n)
	if k == 1 {
		job(0)
		return
	}
	p.job, p.k = job, k
	p.done.Store(0)
	p.gen.Add(1)
	p.mu.Lock() // a parked worker checks gen under mu, so it cannot miss the job
	p.cond.Broadcast()
	p.mu.Unlock()
	job(0)
	for i := 0; p.done.Load() != int32(p.n-1); i++ {
		if i&63 == 63 {
			runtime.Gosched()
		}
	}
	p.job = nil
}

func (p *Pool) work(w int) {
	var last uint64
	for {
		var start time.Time // the spin's, read at its first yield (not for a job that comes at once)
		for i := 0; p.gen.Load() == last; i++ {
			if p.quit.Load() {
				return
			}
			if i&63 != 63 {
				continue
			}
			if p.spin == 0 {
				if i+1 < SpinRounds {
					runtime.Gosched()
					continue
				}
			} else if i == 63 {
				start = time.Now()
				runtime.Gosched()
				continue
			} else if time.Since(start) < p.spin {
				runtime.Gosched()
				continue
			}
			p.mu.Lock()
			for p.gen.Load() == last && !p.quit.Load() {
				p.cond.Wait()
			}
			p.mu.Unlock()
		}
		if p.quit.Load() {
			return
		}
		last = p.gen.Load()
		if w < p.k {
			p.job(w)
		}
		p.done.Add(1)
	}
}

// Chunk is the bounds [lo, hi) of chunk w (0 <= w < k) of [0, n) split into k contiguous
// chunks, in order: n*w/k .. n*(w+1)/k, sizes differing by at most one. The split
// depends on n, k and w alone, never on timing: a job whose worker w writes only chunk
// w's items (lists built per chunk joined in chunk order) gives the same result however
// the goroutines are scheduled.
func Chunk(n, k, w int) (lo, hi int) { return n * w / k, n * (w + 1) / k }

// Stop ends the goroutines. It must not be called while Do runs; the pool must not be
// used after.
func (p *Pool) Stop() {
	p.quit.Store(true)
	p.mu.Lock()
	p.cond.Broadcast()
	p.mu.Unlock()
}
