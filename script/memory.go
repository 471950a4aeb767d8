package script

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// DefaultMemoryLimit is how much memory a script may use when Options.MemoryLimit is 0
// (1 GiB).
const DefaultMemoryLimit = 1 << 30

// memSampleInterval is how often the memory monitor samples the Go heap while Lua runs.
const memSampleInterval = 10 * time.Millisecond

// heapMetric is the Go heap's bytes in objects, live or not yet collected.
const heapMetric = "/memory/classes/heap/objects:bytes"

// heapBytes samples the Go heap (about 0.3 µs, no stop of the world).
func heapBytes() int64 {
	s := [1]metrics.Sample{{Name: heapMetric}}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// memMonitor stops a script that uses more memory than its limit. gopher-lua has no
// allocator hook, so it watches the Go heap: while Lua runs (an entry into Lua, a
// heightfield fn call) a goroutine samples the heap every memSampleInterval, and when the
// heap has grown by more than the limit since the script started it forces a garbage
// collection (so that garbage does not count) and, if the heap is still over, cancels the
// scenario's context, the watchdog's path: Lua fails at its next instruction.
//
// The script's memory is estimated as the heap now minus base: the heap when the
// scenario was loaded, plus what Go work inside the scenario kept (building the solver,
// extracting the terrain: windows measured by pause/resume, credited when they grew the
// heap by more than a sixteenth of the limit, after a collection). The estimate is
// approximate: other goroutines' memory (the UI's) that grows for good counts as the
// script's.
//
// The limit is on bytes, never on time: on a busy machine the samples and the collections
// come later, so a runaway script grows further before it is stopped, but nothing here
// stops a script for being slow (the times kept below are for tests and logs).
type memMonitor struct {
	mu     sync.Mutex
	limit  int64
	cancel func()
	base   int64 // heap bytes that are not the script's

	active bool  // Lua is running
	ref    int64 // while active, the script uses extra + heap - ref
	extra  int64

	paused       bool  // Go work inside a vp call (Lua is not running)
	pausedScript int64 // the script's estimate when the pause began

	startCycles uint64 // garbage collections finished when the script started
	cycles      uint64 // the collections that do not count (startCycles, or a heightfield call's)
	running     bool   // the sampling goroutine is alive
	collecting  bool   // a collection the monitor asked for runs
	fired       bool

	// crossed is when a sample first saw the heap over the limit (for tests and logs),
	// stopped when the context was cancelled; crossedCPU and stoppedCPU are the process's
	// CPU time then (processCPU), which a busy machine does not stretch.
	crossed, stopped       time.Time
	crossedCPU, stoppedCPU time.Duration
}

// start sets the limit and takes the heap's baseline: call before the script runs. The
// baseline is taken after a collection: the heap's objects count the garbage the process
// holds, and a process that ran other scripts before (a test binary, the UI reloading,
// a sweep) held tens of MiB of it, which the script could then grow into unseen (a
// table of 1 MB strings reached the watchdog's 2 s before it passed a 32 MiB limit,
// TestScriptMemoryFlag under -race). A collection at a load costs milliseconds.
func (m *memMonitor) start(limit int64, cancel func()) {
	if limit > 0 {
		runtime.GC()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.limit, m.cancel = limit, cancel
	m.base = heapBytes()
	m.startCycles = readHeap().cycles
}

// enter starts watching: Lua runs from now until leave.
func (m *memMonitor) enter() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fired || m.limit <= 0 {
		return
	}
	if m.paused {
		// A heightfield fn called during extraction: the extraction's own memory is not
		// the script's, so only what this call adds counts, on top of what the script
		// used when the extraction began.
		m.ref, m.extra = heapBytes(), m.pausedScript
		m.cycles = readHeap().cycles
	} else {
		m.ref, m.extra = m.base, 0
		m.cycles = m.startCycles
	}
	m.active = true
	if !m.running {
		m.running = true
		go m.watch()
	}
}

// leave stops watching; it reports whether the monitor has stopped the script.
func (m *memMonitor) leave() (fired bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.active = false
	return m.fired
}

// hasFired reports whether the monitor has stopped the script.
func (m *memMonitor) hasFired() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fired
}

// overLimit collects the garbage and reports whether the script, as the entry running
// measures it, holds more than the limit; it marks the monitor fired if so (the caller
// stops Lua). The watchdog calls it before it stops a script, so that the stop of a
// fast-growing script the samples did not catch is named for its memory.
func (m *memMonitor) overLimit() bool {
	m.mu.Lock()
	if m.fired || m.limit <= 0 || m.paused {
		fired := m.fired
		m.mu.Unlock()
		return fired
	}
	m.mu.Unlock()
	runtime.GC()
	h := readHeap()
	m.mu.Lock()
	defer m.mu.Unlock()
	if h.live-m.ref+m.extra > m.limit {
		m.fired = true
	}
	return m.fired
}

// stop ends watching for good (Close).
func (m *memMonitor) stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.active = false
	m.limit = 0
}

// pause stops watching for Go work that is not Lua (extraction, building the solver);
// the returned func resumes and credits what the work kept to base. It works whether or
// not Lua was running (finishLoad builds the empty domain outside any entry).
func (m *memMonitor) pause() (resume func()) {
	m.mu.Lock()
	if m.paused || m.limit <= 0 {
		m.mu.Unlock()
		return func() {}
	}
	wasActive := m.active
	h0 := heapBytes()
	m.pausedScript = max(h0-m.base, 0)
	m.paused, m.active = true, false
	m.mu.Unlock()
	return func() {
		d := heapBytes() - h0
		if d > 0 && d >= m.limit/16 {
			// Measure what the work kept, not its garbage (a collection costs about what
			// allocating this much did; small windows are not worth one).
			runtime.GC()
			d = heapBytes() - h0
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		m.paused = false
		if m.limit <= 0 {
			return
		}
		if d > 0 && d >= m.limit/16 {
			m.base += d
		}
		if wasActive && !m.fired {
			m.ref, m.extra = m.base, 0
			m.cycles = m.startCycles
			m.active = true
			if !m.running {
				m.running = true
				go m.watch()
			}
		}
	}
}

// watch samples the heap while Lua runs; it ends when Lua is not running at a sample.
//
// A sample over the limit is not enough (garbage counts in it): the script is stopped
// when the live heap that a garbage collection finished while Lua ran measured is over
// the limit. A sample over the limit starts a collection, in the background, so that the
// next samples can tell; the collections the runtime makes by itself as the heap grows
// count too.
func (m *memMonitor) watch() {
	for {
		time.Sleep(memSampleInterval)
		m.mu.Lock()
		if !m.active || m.fired || m.limit <= 0 {
			m.running = false
			m.mu.Unlock()
			return
		}
		h := readHeap()
		// Only a collection that began after the script started (for a heightfield
		// call, after the call began) measures what it holds: one under way then may
		// have marked what an earlier script held.
		trusted := h.cycles > m.cycles+1
		if trusted && h.live-m.ref+m.extra > m.limit {
			if m.crossed.IsZero() {
				m.crossed, m.crossedCPU = time.Now(), processCPU()
			}
			m.fired = true
			m.stopped, m.stoppedCPU = time.Now(), processCPU()
			m.running = false
			m.mu.Unlock()
			m.cancel()
			return
		}
		if trusted && h.live < m.ref {
			// What was garbage when the script (or this heightfield call) started is
			// gone: count from the live heap.
			if !m.paused {
				m.base = h.live
			}
			m.ref = h.live
		}
		if h.objects-m.ref+m.extra > m.limit {
			if m.crossed.IsZero() {
				m.crossed, m.crossedCPU = time.Now(), processCPU()
			}
			// Collect when what was allocated since the last collection could put the
			// script over (an eighth of the limit at least: a script just under the
			// limit does not make the runtime collect without end).
			if !m.collecting && h.objects-h.live >= m.limit/8 {
				m.collecting = true
				go func() {
					runtime.GC()
					m.mu.Lock()
					m.collecting = false
					m.mu.Unlock()
				}()
			}
		} else {
			m.crossed = time.Time{} // garbage only
		}
		m.mu.Unlock()
	}
}

// heapStats are the heap's numbers the monitor reads.
type heapStats struct {
	objects int64  // bytes in objects, live or not yet collected
	live    int64  // bytes the last garbage collection found live
	cycles  uint64 // garbage collections finished
}

// readHeap reads them (about 0.3 µs, no stop of the world).
func readHeap() heapStats {
	s := [3]metrics.Sample{{Name: heapMetric}, {Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s[:])
	var h heapStats
	if s[0].Value.Kind() == metrics.KindUint64 {
		h.objects = int64(s[0].Value.Uint64())
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		h.live = int64(s[1].Value.Uint64())
	}
	if s[2].Value.Kind() == metrics.KindUint64 {
		h.cycles = s[2].Value.Uint64()
	}
	return h
}

// memoryError is the error of a script the memory monitor stopped.
func (s *Scenario) memoryError() *Error {
	return &Error{File: s.file, Msg: fmt.Sprintf("the script used more than %s of memory (--script-memory): stopped", FormatBytes(s.memLimit()))}
}

// memLimit is the limit in force: Options.MemoryLimit, or DefaultMemoryLimit.
func (s *Scenario) memLimit() int64 {
	if s.opt.MemoryLimit > 0 {
		return s.opt.MemoryLimit
	}
	return DefaultMemoryLimit
}

// FormatBytes writes a size in bytes for messages: "1 GiB", "512 MiB", "953.7 MiB".
func FormatBytes(n int64) string {
	units := []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	for _, u := range units {
		if n >= u.size {
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
