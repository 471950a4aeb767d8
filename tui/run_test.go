package tui

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vpbench/vpbench/engine"
)

// lockedBuffer is a bytes.Buffer safe for the program's writer and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRunQuitsCleanly runs the whole UI (program and runner) on a pipe, presses q, and
// checks that Run returns nil and leaves no goroutine behind.
func TestRunQuitsCleanly(t *testing.T) {
	before := goroutines()
	in, keys := io.Pipe()
	out := &lockedBuffer{}
	done := make(chan error, 1)
	var res engine.Result
	finished := 0
	go func() {
		done <- Run(context.Background(), Options{
			Runner: engine.Config{Source: []byte(small), SourceName: "small.lua", Speed: engine.Speed{Max: true}},
			Input:  in, Output: out, Width: 100, Height: 40,
			Finished: func(r engine.Result) { res, finished = r, finished+1 },
		})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "small.lua loaded") {
		if time.Now().After(deadline) {
			t.Fatalf("the UI never showed the scenario; output:\n%q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v after q; want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s of q")
	}
	keys.Close()
	// Finished ran once, after the UI ended, with the run's figures (the command prints
	// its summary from them).
	if finished != 1 || !res.Loaded || res.State.Steps == 0 || res.State.Total.Simulation.Frames == 0 || res.Info.Name != "small.lua" {
		t.Errorf("Finished ran %d time(s) with %+v; want once, loaded, with steps and frames", finished, res.State)
	}
	checkGoroutines(t, before)
}

// TestRunStopsWithItsContext ends the context (the command's Ctrl-C handler) instead.
func TestRunStopsWithItsContext(t *testing.T) {
	before := goroutines()
	in, keys := io.Pipe()
	defer keys.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{
			Runner: engine.Config{Source: []byte(small), SourceName: "small.lua"},
			Input:  in, Output: io.Discard, Width: 80, Height: 24,
		})
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v when its context ended; want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s of its context's end")
	}
	keys.Close()
	checkGoroutines(t, before)
}

// goroutines counts the goroutines but os/signal's loop, which the first signal.Notify
// of a process starts for good.
func goroutines() int {
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	return strings.Count("\n"+stacks, "\ngoroutine ") - strings.Count(stacks, "os/signal.loop()")
}

// checkGoroutines waits for the goroutine count to fall back to before.
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for goroutines() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines after Run returned, %d before:\n%s", goroutines(), before, buf[:n])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// small is a scenario that steps fast: 20 x 20 cells of 5 mm, a source pouring for 1 s.
const small = `local sim = vp.sim{ size = {0.1, 0.1}, height = 0.04, dx = 0.005, dt = "auto", layers = 1 }
sim:terrain(vp.box{ min = {0, 0, 0}, max = {0.1, 0.1, 0.005} })
sim:source{ at = {0.05, 0.05, 0.03}, radius = 0.01, rate = 5e-6, start = 0, stop = 1 }
`
