//go:build !linux

package script

import "time"

// threadClock reads wall time where the watchdog cannot read an OS thread's CPU time:
// there a callback's time limit counts wall time (a busy machine may stop a slow
// script).
type threadClock struct{}

var wallEpoch = time.Now()

// lockThread does not lock: without a thread clock the thread does not matter.
func lockThread() (tid int, c threadClock) { return 0, threadClock{} }

// currentThread is 0: no thread is held.
func currentThread() int { return 0 }

func (threadClock) read() (time.Duration, bool) { return time.Since(wallEpoch), true }

// processCPU is wall time here (tests compare it with bounds).
func processCPU() time.Duration { return time.Since(wallEpoch) }
