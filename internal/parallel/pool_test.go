package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestDoRunsEachWorkerOnce(t *testing.T) {
	p := New(4)
	defer p.Stop()
	for k := 1; k <= 5; k++ {
		var hits [4]atomic.Int32
		job := func(w int) { hits[w].Add(1) }
		for range 100 {
			p.Do(k, job)
		}
		for w := range 4 {
			want := int32(0)
			if w < min(k, 4) {
				want = 100
			}
			if got := hits[w].Load(); got != want {
				t.Fatalf("k = %d: worker %d ran %d times, want %d", k, w, got, want)
			}
		}
	}
}

func TestDoAfterParking(t *testing.T) {
	p := New(3)
	defer p.Stop()
	var n atomic.Int32
	job := func(int) { n.Add(1) }
	p.Do(3, job)
	time.Sleep(20 * time.Millisecond) // long past the spin: the workers park
	p.Do(3, job)
	if n.Load() != 6 {
		t.Fatalf("%d job calls, want 6", n.Load())
	}
}

func TestDoAllocatesNothing(t *testing.T) {
	p := New(2)
	defer p.Stop()
	var sink atomic.Int64
	job := func(w int) { sink.Add(int64(w)) }
	if a := testing.AllocsPerRun(100, func() { p.Do(2, job) }); a != 0 {
		t.Fatalf("Do allocates %v times", a)
	}
}

func TestStopEndsWorkers(t *testing.T) {
	before := runtime.NumGoroutine()
	p := New(5)
	p.Do(5, func(int) {})
	p.Stop()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Stop, %d before", n, before)
	}
}

// A pool with a spin window runs every job on every worker exactly once, and the caller
// sees the workers' writes when Do returns, whether the workers and the caller caught
// the next job while spinning or the workers had parked (waits longer than the window),
// with a slow worker (the caller waits long), and with more workers than threads.
func TestSpinWindow(t *testing.T) {
	const spin = 50 * time.Microsecond
	for _, n := range []int{2, 3, 5} {
		p := NewSpin(n, spin)
		runs, last := make([]int, n), make([]int, n)
		var i int
		job := func(w int) {
			runs[w]++
			last[w] = i
			if i%50 == 7 && w == n-1 {
				time.Sleep(2 * spin) // the caller waits long
			}
		}
		for i = range 2000 {
			p.Do(n, job)
			for w := range n {
				if runs[w] != i+1 || last[w] != i {
					t.Fatalf("%d workers, job %d: worker %d ran %d jobs, the last %d", n, i, w, runs[w], last[w])
				}
			}
			if i%50 == 20 {
				time.Sleep(4 * spin) // the workers park
			}
		}
		p.Stop()
	}
}

func TestSpinWindowAllocatesNothing(t *testing.T) {
	p := NewSpin(2, 50*time.Microsecond)
	defer p.Stop()
	var sink atomic.Int64
	job := func(w int) { sink.Add(int64(w)) }
	if a := testing.AllocsPerRun(100, func() { p.Do(2, job) }); a != 0 {
		t.Fatalf("Do allocates %v times", a)
	}
}

// Chunk splits [0, n) into k contiguous chunks in order, covering it once, their sizes
// within one of each other.
func TestChunk(t *testing.T) {
	for n := range 40 {
		for k := 1; k <= 9; k++ {
			next, least, most := 0, n, 0
			for w := range k {
				lo, hi := Chunk(n, k, w)
				if lo != next || hi < lo {
					t.Fatalf("n %d, k %d: chunk %d is [%d, %d), after %d", n, k, w, lo, hi, next)
				}
				next = hi
				least, most = min(least, hi-lo), max(most, hi-lo)
			}
			if next != n || most-least > 1 {
				t.Fatalf("n %d, k %d: chunks end at %d, sizes %d to %d", n, k, next, least, most)
			}
		}
	}
}
