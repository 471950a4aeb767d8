package preview

import (
	"image/png"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestWindowLifecycle: the window opens on a running scenario's Source, draws the frames
// the runner publishes (reporting each render time), hands the camera position back for
// the convex-meniscus cap; it closes while the run goes on, and opens again. A
// screenshot from another goroutine uses the window's view.
func TestWindowLifecycle(t *testing.T) {
	needGL(t)
	sc := loadLibrary(t, "bowl.lua", 0.3, nil)
	src := NewSource("bowl.lua")
	var renders atomic.Int32
	src.OnRender(func(d time.Duration) {
		if d > 0 {
			renders.Add(1)
		}
	})
	a := Adapter{Host: testHost, Source: src}
	// The runner: step and feed while the preview wants frames.
	stop := make(chan struct{})
	ran := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				ran <- nil
				return
			default:
			}
			if _, err := sc.Advance(1); err != nil {
				ran <- err
				return
			}
			if src.Wanted() {
				if err := feed(src, sc); err != nil {
					ran <- err
					return
				}
			} else {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	defer func() {
		close(stop)
		if err := <-ran; err != nil {
			t.Error(err)
		}
	}()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for round := range 2 {
		open, err := a.Toggle()
		if err != nil || !open || !testHost.IsOpen() {
			t.Fatalf("round %d: Toggle: open %v, %v", round, open, err)
		}
		n0 := renders.Load()
		waitFor("two drawn frames", func() bool { return renders.Load() >= n0+2 })
		if src.Eye() == nil {
			t.Error("the window gave no camera position")
		}
		if src.wake.Load() == nil {
			t.Error("the open window gave its source no wake-up: a published frame would wait for the event timeout")
		}
		if round == 0 {
			p := filepath.Join(t.TempDir(), "shot.png")
			if err := a.Screenshot(p); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(f)
			f.Close()
			if err != nil || cfg.Width != 1024 && cfg.Width < 100 {
				t.Errorf("screenshot: %+v, %v", cfg, err)
			}
		}
		open, err = a.Toggle()
		if err != nil || open || testHost.IsOpen() {
			t.Fatalf("round %d: second Toggle: open %v, %v", round, open, err)
		}
		if src.Wanted() || src.Eye() != nil || src.wake.Load() != nil {
			t.Error("a closed window still wants frames, gives a camera or is woken")
		}
	}
	// The run goes on with the window closed: its time moves (waited for, not timed: on a
	// busy machine the stepping goroutine may wait for a core).
	t0 := sc.Scene().Time()
	waitFor("the run to go on with the window closed", func() bool { return sc.Scene().Time() > t0 })
}

func TestNotServing(t *testing.T) {
	h := NewHost()
	close(h.done) // as after Serve returned
	if err := h.Open(NewSource("x")); err != ErrNotServing {
		t.Errorf("Open on a stopped host: %v", err)
	}
	if _, err := (Adapter{}).Toggle(); err != ErrNotServing {
		t.Errorf("Toggle without a host: %v", err)
	}
	if err := (Adapter{}).Screenshot("x.png"); err != ErrNotServing {
		t.Errorf("Screenshot without a host: %v", err)
	}
}
