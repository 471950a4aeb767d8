//go:build linux

package script

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// threadClock reads the CPU time of one OS thread of this process, as the scheduler
// counts it (user and system time), from any goroutine: the watchdog's timer reads the
// clock of the thread that runs Lua.
type threadClock struct {
	id  int32 // the thread's CPU clock: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)
	tid int
}

// lockThread locks the calling goroutine to its OS thread (the caller unlocks it) and
// returns the thread's id and CPU clock.
func lockThread() (tid int, c threadClock) {
	runtime.LockOSThread()
	tid = unix.Gettid()
	return tid, threadClock{id: ^int32(tid)<<3 | 6, tid: tid}
}

// currentThread is the calling goroutine's OS thread id.
func currentThread() int { return unix.Gettid() }

// read returns the thread's CPU time; ok is false when it cannot be read (the thread is
// gone).
func (c threadClock) read() (d time.Duration, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(c.id, &ts); err == nil {
		return time.Duration(ts.Nano()), true
	}
	// No per-thread clocks (a sandbox that filters clock ids): the scheduler's statistics
	// (time on the CPU, time waiting for it, time slices).
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(c.tid) + "/schedstat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	return time.Duration(n), err == nil
}

// processCPU is the CPU time the whole process has used (its threads, the garbage
// collector's included).
func processCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
