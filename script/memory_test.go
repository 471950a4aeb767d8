package script

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const testMemLimit = 64 << 20

// memOpts are test options with a 64 MiB memory limit and a watchdog too long to
// interfere.
func memOpts() Options {
	o := opts(nil)
	o.MemoryLimit = testMemLimit
	o.CallbackTimeout = 30 * time.Second
	return o
}

// crossWatch samples the heap every millisecond from now and records when it first grew
// more than limit above base (garbage included, so it may see the crossing early), and
// the process's CPU time then.
type crossWatch struct {
	crossed    atomic.Int64 // UnixNano, 0 until crossed
	crossedCPU atomic.Int64 // processCPU then
	done       chan struct{}
}

func watchCrossing(base, limit int64) *crossWatch {
	w := &crossWatch{done: make(chan struct{})}
	go func() {
		for {
			select {
			case <-w.done:
				return
			case <-time.After(time.Millisecond):
			}
			if heapBytes()-base > limit && w.crossed.Load() == 0 {
				w.crossedCPU.Store(int64(processCPU()))
				w.crossed.Store(time.Now().UnixNano())
			}
		}
	}()
	return w
}

// stop ends the sampling and returns the time from the crossing to now, wall and the
// process's CPU time. A crossing the samples missed (on a loaded machine this goroutine
// may not run for milliseconds, and a string doubled past the limit without the race
// detector was stopped and collected inside that gap: a CI run) is taken from the
// monitor's own first sample over the limit, monitorCrossed and its CPU time, which
// came no earlier than the crossing; a monitor that recorded none fails the test.
func (w *crossWatch) stop(t *testing.T, monitorCrossed time.Time, monitorCPU time.Duration) (wall, cpu time.Duration) {
	t.Helper()
	cpu = processCPU()
	close(w.done)
	c := w.crossed.Load()
	if c == 0 {
		if monitorCrossed.IsZero() {
			t.Fatalf("the heap never grew past the limit")
		}
		t.Logf("the samples missed the crossing: timed from the monitor's first sample over the limit")
		return time.Since(monitorCrossed), cpu - monitorCPU
	}
	return time.Since(time.Unix(0, c)), cpu - time.Duration(w.crossedCPU.Load())
}

func wantMemoryError(t *testing.T, err error, file string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want a *script.Error", err, err)
	}
	want := file + ": the script used more than 64 MiB of memory (--script-memory): stopped"
	if e.Error() != want {
		t.Errorf("error %q, want %q", e.Error(), want)
	}
}

// TestMemoryRunaway runs the two runaway scripts, in a callback and in main: each stops
// with the limit's error soon after crossing it, and the scenario keeps its state.
func TestMemoryRunaway(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"table", `local t = {} while true do t[#t+1] = {} end`},
		{"string", `local s = "x" while true do s = s .. s end`},
	} {
		for _, where := range []string{"callback", "main"} {
			t.Run(tc.name+"/"+where, func(t *testing.T) {
				src := small + `sim:fill{ at = {0.005, 0.005, 0}, level = 0.003 }
`
				if where == "callback" {
					src += "sim:at(0.01, function()\n" + tc.body + "\nend)\n"
				} else {
					src += "function main()\nvp.wait(0.01)\n" + tc.body + "\nend\n"
				}
				runtime.GC()
				s := mustLoad(t, "runaway.lua", src, memOpts())
				s.mem.mu.Lock()
				base := s.mem.base
				s.mem.mu.Unlock()
				vol0 := s.Scene().Volume()
				w := watchCrossing(base, testMemLimit)
				var err error
				t0 := time.Now()
				for i := 0; i < 1000 && err == nil; i++ {
					_, err = s.Advance(1000)
				}
				took := time.Since(t0)
				s.mem.mu.Lock()
				monitorCrossed, monitorCPU := s.mem.crossed, s.mem.crossedCPU
				detected := s.mem.stopped.Sub(s.mem.crossed)
				detectedCPU := s.mem.stoppedCPU - s.mem.crossedCPU
				s.mem.mu.Unlock()
				late, lateCPU := w.stop(t, monitorCrossed, monitorCPU)
				wantMemoryError(t, err, "runaway.lua")
				t.Logf("Advance returned %v (%v of CPU time) after the heap crossed the limit, cancelled %v (%v of CPU time) after the monitor's first sample over it; the call took %v",
					late, lateCPU, detected, detectedCPU, took)
				// The bounds are on the process's CPU time, the work done from the crossing to
				// the stop: a loaded machine stretches wall time, not CPU time (at load 8 on
				// two cores the string in a callback took 20.7 s against a 10 s wall bound).
				//
				// A concatenation under way when the context is cancelled runs to its end
				// (it cannot be interrupted): a string doubled past the limit may take a
				// step more. And the collection that measures the live heap (the monitor's
				// proof) runs beside that copy: under the race detector on two cores it
				// finished 1.38 s after the first sample over the limit (a fresh-clone CI
				// run), so the string's detection has a looser bound.
				bound := 2 * time.Second
				if tc.name == "string" {
					bound = 10 * time.Second
				}
				if detectedCPU > bound {
					t.Errorf("cancelled after %v of CPU time from the monitor's first sample over the limit, want under %v", detectedCPU, bound)
				}
				if lateCPU > bound {
					t.Errorf("stopped after %v of CPU time from crossing the limit, want under %v", lateCPU, bound)
				}
				// The state is kept, and later calls report the same error without stepping.
				tm := s.Scene().Time()
				if tm < 0.01 || tm > 0.02 {
					t.Errorf("time %g after the stop, want about 0.01", tm)
				}
				if v := s.Scene().Volume(); math.Abs(v-vol0) > 1e-12*math.Max(1, vol0) || vol0 <= 0 {
					t.Errorf("volume %g after the stop, %g before", v, vol0)
				}
				for i := 0; i < 3; i++ {
					advDone, err2 := s.Advance(10)
					done := advDone.Done
					if done || err2 == nil || err2.Error() != err.Error() {
						t.Fatalf("Advance after the stop: done %v, %v; want the same error", done, err2)
					}
				}
				if s.Scene().Time() != tm {
					t.Errorf("time moved from %g to %g after the stop", tm, s.Scene().Time())
				}
			})
		}
	}
}

// TestMemoryRunawayTopLevel stops a runaway set-up: Load returns the error.
func TestMemoryRunawayTopLevel(t *testing.T) {
	o := memOpts()
	withinCPU(t, 20*time.Second, func() { // (under -race a table grows slowly)
		_, err := LoadSource("setup.lua", []byte(small+`local t = {} while true do t[#t+1] = {} end`), o)
		wantMemoryError(t, err, "setup.lua")
	})
}

// TestMemoryRunawayHeightfield stops a heightfield fn that doubles a string.
func TestMemoryRunawayHeightfield(t *testing.T) {
	src := small + `sim:terrain(vp.heightfield{ fn = function(x, y)
	local s = "x" while true do s = s .. s end
end })
`
	// A heightfield call is measured from its start: the monitor waits for two
	// collections begun after it, and a collection cannot end while a concatenation of
	// hundreds of MiB runs, so the string may reach 1.5 to 3 GiB (up to 12 s of CPU time,
	// the collector's idle workers spinning meanwhile, in runs on two cores). The bound
	// only catches a monitor that never stops it.
	withinCPU(t, 60*time.Second, func() {
		t0 := time.Now()
		_, err := LoadSource("hf.lua", []byte(src), memOpts())
		t.Logf("stopped after %v", time.Since(t0))
		wantMemoryError(t, err, "hf.lua")
	})
}

// TestMemoryUnderLimit allocates far more than the limit in garbage (about 160 MiB a
// churn call) and keeps a table of about 13 MiB: the script runs to its end.
func TestMemoryUnderLimit(t *testing.T) {
	src := small + `keep = {}
for i = 1, 100000 do keep[i] = {i} end -- about 13 MiB, kept across callbacks
local function churn()
	for i = 1, 10 do
		local t = {}
		for j = 1, 50000 do t[j] = {j, tostring(j)} end -- about 9 MiB each
	end
	local s = string.rep("y", 8 * 1024 * 1024)
	for i = 1, 10 do local u = s .. i end -- 80 MiB of strings, one at a time
end
sim:every(0.01, churn)
function main()
	churn()
	vp.wait(0.03)
	print("done", #keep)
end
`
	var log printLog
	o := memOpts()
	o.Print = log.print
	// 128 MiB: the script keeps about 40 MiB at its peak; the rest of the package's
	// tests may leave goroutines that hold memory for a while, which counts too.
	o.MemoryLimit = 128 << 20
	runtime.GC() // the runaway tests' strings are not this script's
	s := mustLoad(t, "churn.lua", src, o)
	if err := runToEnd(t, s, 1000); err != nil {
		t.Fatalf("a script under the limit was stopped: %v", err)
	}
	if !strings.Contains(log.text(), "done\t100000") {
		t.Errorf("main did not finish: %q", log.text())
	}
}

// TestMemoryCreditsSolver: building a solver larger than the limit is Go work, not the
// script's memory.
func TestMemoryCreditsSolver(t *testing.T) {
	o := opts(nil)
	o.MemoryLimit = 4 << 20
	src := `local sim = vp.sim{ size = {0.2, 0.2}, height = 0.01, dx = 0.0005, workers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} })
function main() vp.wait(0.002) sim:terrain(vp.plane{ point = {0, 0, 0.002}, normal = {0, 0, 1} }) vp.wait(0.002) end
`
	s := mustLoad(t, "big.lua", src, o)
	if err := runToEnd(t, s, 1000); err != nil {
		t.Fatalf("%v (solver memory %s)", err, FormatBytes(int64(s.Info().MemoryBytes)))
	}
}

func TestMemoryOptions(t *testing.T) {
	if _, err := LoadSource("x.lua", []byte(small), Options{Workers: -1, MemoryLimit: -1}); err == nil || !strings.Contains(err.Error(), "memory limit") {
		t.Errorf("a negative MemoryLimit gave %v", err)
	}
	for n, want := range map[int64]string{1 << 30: "1 GiB", 512 << 20: "512 MiB", 1e9: "953.7 MiB", 1500: "1.5 KiB", 100: "100 bytes", 3 << 40: "3 TiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestMemoryOverLimitJudgesHeldBytes: when the watchdog stops a script first, the memory
// monitor's final judgement names memory only for what the script still holds, not for
// garbage it made.
func TestMemoryOverLimitJudgesHeldBytes(t *testing.T) {
	const limit = 16 << 20
	var m memMonitor // start collects first: the earlier tests' garbage is not the base
	m.start(limit, func() {})
	m.enter()
	held := make([][]byte, 0, 48)
	for range 48 { // 48 MiB held: three times the limit
		held = append(held, make([]byte, 1<<20))
	}
	m.leave()
	if !m.overLimit() {
		t.Errorf("48 MiB held against a 16 MiB limit: overLimit false")
	}
	runtime.KeepAlive(held)
	if !m.hasFired() {
		t.Errorf("overLimit true but the monitor is not marked fired")
	}

	var g memMonitor
	g.start(limit, func() {})
	g.enter()
	for range 48 { // the same bytes made and dropped
		_ = append([]byte(nil), make([]byte, 1<<20)...)
	}
	g.leave()
	if g.overLimit() {
		t.Errorf("garbage only: overLimit true")
	}
	g.stop()
	m.stop()
}
