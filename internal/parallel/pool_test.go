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
