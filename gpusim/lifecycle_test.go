package gpusim

import (
	"math"
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

// TestHeightsIsTheSnapshotsHeight checks that Heights gives the published heights that
// Snapshot gives, state after state, reusing the caller's buffer.
func TestHeightsIsTheSnapshotsHeight(t *testing.T) {
	c := overhangScene(t, 20, 20, 0.001)
	sim, err := New(c, settings(0, 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	if _, err := sim.AddEmitter(Emitter{X: 0.01, Y: 0.01, Z: 0.05, Radius: 0.003, Rate: 1e-6, Stop: math.Inf(1)}); err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	var h []float32
	for round := range 5 {
		sim.Step(7)
		h = sim.Heights(h)
		sim.Snapshot(&snap)
		if len(h) != len(snap.Height) {
			t.Fatalf("round %d: %d heights, snapshot has %d", round, len(h), len(snap.Height))
		}
		wet := 0
		for i := range h {
			if h[i] != snap.Height[i] {
				t.Fatalf("round %d, column %d: Heights %g, Snapshot %g", round, i, h[i], snap.Height[i])
			}
			if h[i] > c.Base[i] {
				wet++
			}
		}
		if round > 0 && wet == 0 {
			t.Fatalf("round %d: nothing wet: the emitter did not run", round)
		}
	}
	if allocs := testing.AllocsPerRun(10, func() { h = sim.Heights(h) }); allocs != 0 {
		t.Errorf("Heights allocated %v times with a large enough buffer", allocs)
	}
}
