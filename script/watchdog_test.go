package script

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// withinCPU runs fn and fails when the process used more than d of CPU time meanwhile: a
// bound on the work done, which a loaded machine does not stretch the way it stretches
// wall time. It returns the CPU time used.
func withinCPU(t *testing.T, d time.Duration, fn func()) time.Duration {
	t.Helper()
	c0, t0 := processCPU(), time.Now()
	fn()
	used := processCPU() - c0
	t.Logf("used %v of CPU time in %v", used, time.Since(t0))
	if used > d {
		t.Errorf("used %v of CPU time, want under %v", used, d)
	}
	return used
}

// wantNotHeld fails when the watchdog still holds an OS thread locked after the entries
// into Lua returned (an arm without its disarm).
func wantNotHeld(t *testing.T, s *Scenario) {
	t.Helper()
	s.wd.mu.Lock()
	defer s.wd.mu.Unlock()
	if len(s.wd.held) != 0 || s.wd.armed {
		t.Errorf("after the entry: held threads %v, armed %v; want none", s.wd.held, s.wd.armed)
	}
}

// threadClockWorks skips a test that needs the thread's CPU clock where the watchdog
// counts wall time.
func threadClockWorks(t *testing.T) {
	t.Helper()
	tid, c := lockThread()
	defer runtime.UnlockOSThread()
	if _, ok := c.read(); !ok || tid == 0 {
		t.Skip("no thread CPU clock here: the watchdog counts wall time")
	}
}

// TestWatchdogCountsCPU: waiting does not use the budget, running does.
func TestWatchdogCountsCPU(t *testing.T) {
	threadClockWorks(t)
	var cancelled atomic.Bool
	w := &watchdog{cancel: func() { cancelled.Store(true) }}

	// Wall time passes (four budgets), CPU time does not: the watchdog does not fire and
	// the budget is nearly all left.
	w.arm(50 * time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	left, fired := w.disarm()
	if fired || cancelled.Load() {
		t.Fatalf("fired after a sleep")
	}
	// Had the 200 ms of wall time counted, nothing would be left; the thread's own CPU
	// time around the sleep (arming, the runtime's work on it: 12 ms once under -race in a
	// loaded make test) is all that may go.
	if left < 10*time.Millisecond || left > 50*time.Millisecond {
		t.Errorf("%v left after a sleep of four budgets, want most of the 50ms", left)
	}

	// Spinning uses it: the watchdog fires once the thread has used 50 ms, and not before.
	_, clock := lockThread()
	defer runtime.UnlockOSThread()
	start, _ := clock.read()
	w.arm(50 * time.Millisecond)
	t0 := time.Now()
	for !cancelled.Load() && time.Since(t0) < time.Minute { // (the minute only ends a hang)
	}
	used, _ := clock.read()
	used -= start
	left, fired = w.disarm()
	if !fired || !cancelled.Load() {
		t.Fatalf("did not fire after %v of CPU time (%v of wall time)", used, time.Since(t0))
	}
	if used < 50*time.Millisecond || used > 300*time.Millisecond {
		t.Errorf("fired after %v of CPU time, want 50ms and a little more", used)
	}
	t.Logf("fired after %v of CPU time, %v of wall time; %v left", used, time.Since(t0), left)
	if len(w.held) != 0 {
		t.Errorf("held %v after disarm", w.held)
	}
}

// TestWatchdogLocksBalanced: an entry, its pauses, and the heightfield calls that other
// goroutines make meanwhile leave no goroutine locked to its thread, and the entry stays
// on one thread while armed.
func TestWatchdogLocksBalanced(t *testing.T) {
	threadClockWorks(t)
	w := &watchdog{cancel: func() {}}
	held := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.held)
	}
	w.arm(time.Minute)
	tid := currentThread()
	for i := 0; i < 100; i++ {
		runtime.Gosched()
		if got := currentThread(); got != tid {
			t.Fatalf("the armed goroutine moved from thread %d to %d", tid, got)
		}
	}
	w.arm(time.Minute) // armed again on the same thread: one level still
	if n := held(); n != 1 {
		t.Fatalf("%d threads held, want 1", n)
	}
	resume := w.pause()
	if n := held(); n != 0 {
		t.Fatalf("%d threads held during a pause, want 0", n)
	}
	done := make(chan struct{})
	go func() { // a heightfield fn's call on an extraction goroutine
		defer close(done)
		for i := 0; i < 10; i++ {
			w.arm(time.Minute)
			w.disarm()
		}
	}()
	<-done
	resume()
	if n := held(); n != 1 {
		t.Fatalf("%d threads held after resume, want 1", n)
	}
	if _, fired := w.disarm(); fired {
		t.Fatal("fired")
	}
	w.disarm() // a second disarm (Close) changes nothing
	if n := held(); n != 0 {
		t.Fatalf("%d threads held after disarm, want 0", n)
	}
}

// sleepFn is a Go function for Lua that sleeps s seconds: wall time passes, the Lua
// thread uses no CPU.
func sleepFn(L *lua.LState) int {
	time.Sleep(time.Duration(float64(L.CheckNumber(1)) * float64(time.Second)))
	return 0
}

// TestCallbackTimeoutWaitDoesNotCount: a callback, main and a heightfield fn that wait
// three times the time limit are not stopped: the limit counts the script's CPU time,
// so a slow disk or a busy machine does not stop a script.
func TestCallbackTimeoutWaitDoesNotCount(t *testing.T) {
	threadClockWorks(t)
	o := Options{Workers: -1, CallbackTimeout: 100 * time.Millisecond}
	log := &printLog{}
	o.Print = log.print
	src := small + `sim:at(0.005, function()
	for i = 1, 6 do sleep(0.05) local x = 0 for j = 1, 100 do x = x + j end end
	print("callback done")
end)
function main()
	vp.wait(0.01)
	sleep(0.3)
	print("main done")
	sim:terrain(vp.heightfield{ fn = function(x, y)
		if not slept then slept = true sleep(0.3) end
		return 0.001
	end })
	print("terrain done")
end
`
	s := mustLoad(t, "wait.lua", src, o)
	s.L.SetGlobal("sleep", s.L.NewFunction(sleepFn))
	t0 := time.Now()
	if err := runToEnd(t, s, 1000); err != nil {
		t.Fatalf("a script that waits was stopped after %v: %v", time.Since(t0), err)
	}
	for _, want := range []string{"callback done", "main done", "terrain done"} {
		if !strings.Contains(log.text(), want) {
			t.Errorf("output %q lacks %q", log.text(), want)
		}
	}
	wantNotHeld(t, s)
}
