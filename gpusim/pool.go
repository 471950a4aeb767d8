package gpusim

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// workerPool runs a job on n workers: the caller is worker 0, goroutines are workers
// 1..n-1. A job is short (one Step call: a few hundred microseconds) and the next one
// usually follows at once, so after a job the workers spin for a while on the job counter
// before they park: woken from a parked state, a worker starts too late to share a
// one-step job (measured: a one-step Step with two workers was no faster than with one).
type workerPool struct {
	n     int
	run   func(w, steps int)
	steps int           // the job's parameter, written before gen is incremented
	gen   atomic.Uint64 // job counter
	done  atomic.Int32  // workers 1..n-1 that finished the current job
	quit  atomic.Bool
	mu    sync.Mutex
	cond  *sync.Cond // parked workers wait here for gen to change or quit
}

// spinRounds is how long an idle worker spins before parking (each round checks the job
// counter; every 64th yields the processor): a few hundred microseconds.
const spinRounds = 1 << 14

func startPool(n int, run func(w, steps int)) *workerPool {
	p := &workerPool{n: n, run: run}
	p.cond = sync.NewCond(&p.mu)
	for w := 1; w < n; w++ {
		go p.work(w)
	}
	return p
}

// do runs one job of steps on every worker and returns when all are done.
func (p *workerPool) do(steps int) {
	p.steps = steps
	p.done.Store(0)
	p.gen.Add(1)
	p.mu.Lock() // no parked worker misses the new job: they check gen under mu
	p.cond.Broadcast()
	p.mu.Unlock()
	p.run(0, steps)
	for i := 0; p.done.Load() != int32(p.n-1); i++ {
		if i&63 == 63 {
			runtime.Gosched()
		}
	}
}

func (p *workerPool) work(w int) {
	var last uint64
	for {
		for i := 0; p.gen.Load() == last; i++ {
			if p.quit.Load() {
				return
			}
			if i < spinRounds {
				if i&63 == 63 {
					runtime.Gosched()
				}
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
		p.run(w, p.steps)
		p.done.Add(1)
	}
}

// stop ends the workers (between jobs).
func (p *workerPool) stop() {
	p.quit.Store(true)
	p.mu.Lock()
	p.cond.Broadcast()
	p.mu.Unlock()
}
