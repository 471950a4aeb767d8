package gpusim

import (
	"runtime"
	"testing"
	"time"
)

// TestWorkersStop checks that Close stops the worker goroutines, and that a Sim dropped
// without Close stops them once it is collected.
func TestWorkersStop(t *testing.T) {
	settle := func(want int) int {
		n := 0
		for range 100 {
			runtime.GC()
			if n = runtime.NumGoroutine(); n <= want {
				return n
			}
			time.Sleep(5 * time.Millisecond)
		}
		return n
	}
	base := settle(0)
	c := overhangScene(t, 20, 20, 0.001)
	sim, err := New(c, settings(0, 0, 4))
	if err != nil {
		t.Fatal(err)
	}
	sim.Step(3)
	if n := runtime.NumGoroutine(); n < base+3 {
		t.Fatalf("%d goroutines with 4 workers, %d before: the pool did not start", n, base)
	}
	sim.Close()
	if n := settle(base); n > base {
		t.Fatalf("%d goroutines after Close, %d before", n, base)
	}

	func() {
		sim, err := New(c, settings(0, 0, 4))
		if err != nil {
			t.Fatal(err)
		}
		sim.Step(3)
	}()
	if n := settle(base); n > base {
		t.Fatalf("%d goroutines after dropping an unclosed Sim, %d before", n, base)
	}
}
