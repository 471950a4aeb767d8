package waves

import "sync"

// pool runs one job kind on every worker at once: workers 1 .. n-1 are goroutines that
// live as long as the pool, worker 0 is the caller. Dispatching sends an int on a
// buffered channel, so a warm pool allocates nothing.
type pool struct {
	n  int
	ch []chan int
	wg sync.WaitGroup
	do func(kind, w int)
}

func newPool(n int, do func(kind, w int)) *pool {
	p := &pool{n: n, do: do}
	for w := 1; w < n; w++ {
		ch := make(chan int, 1)
		p.ch = append(p.ch, ch)
		go p.loop(ch, w)
	}
	return p
}

func (p *pool) loop(ch chan int, w int) {
	for kind := range ch {
		p.do(kind, w)
		p.wg.Done()
	}
}

// run calls do(kind, w) for every worker w and returns when all have returned.
func (p *pool) run(kind int) {
	p.wg.Add(len(p.ch))
	for _, ch := range p.ch {
		ch <- kind
	}
	p.do(kind, 0)
	p.wg.Wait()
}

// stop ends the goroutines; the pool must not be used after.
func (p *pool) stop() {
	for _, ch := range p.ch {
		close(ch)
	}
	p.ch = nil
}
