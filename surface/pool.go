package surface

import (
	"runtime"

	"github.com/vpbench/vpbench/internal/parallel"
)

// maxWorkers caps the goroutines a Builder uses.
const maxWorkers = 8

// The least number of items worth handing to another goroutine: waking it and moving
// the data to its core costs some tens of microseconds, measured on a 2-core machine.
// Light items are a few nanoseconds of work (classifying a column, a normal), heavy
// ones some tens (the links of a vertex, a quartet, a meniscus tilt).
const (
	minLight = 8192
	minHeavy = 1024
)

// pool runs a range of work split over a fixed set of workers (internal/parallel, the
// solver's and the waves' pool too: they spin briefly between phases, since a frame's
// phases follow each other within microseconds), so that a frame allocates nothing. Every phase writes only what its
// items own, and lists built per chunk are joined in chunk order, so the result does not
// depend on the number of workers.
type pool struct {
	workers int
	force   bool // split every range over all workers, however small (tests)
	par     *parallel.Pool
	bounds  [maxWorkers + 1]int
	f       func(w, lo, hi int) // the phase in flight
	chunk   func(w int)         // bound once: runs chunk w of f
	solo    func()              // runBeside's work for worker 0
	// besideChunk is bound once: worker 0 runs solo, worker w > 0 chunk w-1 of f.
	besideChunk func(w int)
}

// newPool starts the workers (the caller is the first one). They stop when stop is
// called, or when the Builder owning the pool is collected (see NewBuilder).
func newPool(workers int) *pool {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(max(workers, 1), maxWorkers)
	p := &pool{workers: workers, par: parallel.New(workers)}
	p.chunk = func(w int) { p.f(w, p.bounds[w], p.bounds[w+1]) }
	p.besideChunk = func(w int) {
		if w == 0 {
			p.solo()
			return
		}
		p.f(w, p.bounds[w-1], p.bounds[w])
	}
	return p
}

// stop ends the goroutines. The pool must not be used after.
func (p *pool) stop() { p.par.Stop() }

// run calls f(w, lo, hi) over [0, n) split into contiguous chunks of at least minItems,
// chunk w to worker w, and returns the number of chunks when all are done. Small ranges
// run on the caller alone.
func (p *pool) run(n, minItems int, f func(w, lo, hi int)) int {
	if p.force {
		minItems = 1
	}
	k := min(p.workers, n/minItems)
	if k <= 1 {
		f(0, 0, n)
		return 1
	}
	for w := range k {
		p.bounds[w], _ = parallel.Chunk(n, k, w)
	}
	p.bounds[k] = n
	p.runBounds(k, f)
	return k
}

// runWeighted is run over n items whose cumulative weights are cum (len n+1), split so
// that the chunks carry near-equal weight.
func (p *pool) runWeighted(n int, cum []int32, minItems int, f func(w, lo, hi int)) int {
	total := int(cum[n])
	if p.force {
		minItems = 1
	}
	k := min(p.workers, total/minItems)
	if k <= 1 {
		f(0, 0, n)
		return 1
	}
	p.splitWeighted(n, cum, k)
	p.runBounds(k, f)
	return k
}

// splitWeighted sets bounds[0..k] to split n items of cumulative weights cum (len n+1)
// into k chunks of near-equal weight.
func (p *pool) splitWeighted(n int, cum []int32, k int) {
	total := int(cum[n])
	p.bounds[0] = 0
	i := 0
	for c := 1; c < k; c++ {
		target := int32(total * c / k)
		for i < n && cum[i] < target {
			i++
		}
		p.bounds[c] = i
	}
	p.bounds[k] = n
}

// runBeside runs solo on the caller and, at the same time, f over n items of cumulative
// weights cum split as runWeighted does over the other workers (chunk c on worker c+1,
// whose scratch it uses). It returns the first and last+1 worker index that ran a
// chunk of f. With one worker, solo runs and then f over all items as worker 0.
func (p *pool) runBeside(solo func(), n int, cum []int32, minItems int, f func(w, lo, hi int)) (first, end int) {
	if p.workers < 2 {
		solo()
		f(0, 0, n)
		return 0, 1
	}
	total := int(cum[n])
	if p.force {
		minItems = 1
	}
	k := max(1, min(p.workers-1, total/minItems))
	p.splitWeighted(n, cum, k)
	p.f, p.solo = f, solo
	p.par.Do(k+1, p.besideChunk)
	p.f, p.solo = nil, nil
	return 1, k + 1
}

func (p *pool) runBounds(k int, f func(w, lo, hi int)) {
	p.f = f
	p.par.Do(k, p.chunk)
	p.f = nil
}
