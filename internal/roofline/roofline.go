// Package roofline measures the machine's memory bandwidth in the running process, the
// yardstick a memory-bound kernel is compared against: its "roofline".
//
// Triad is McCalpin's STREAM triad, a[i] = b[i] + s*c[i] over float64 arrays much larger
// than the caches, split across workers, best of several repetitions, counting 24 bytes
// per element (two reads and one write; the write-allocate read of a is not counted, as
// STREAM does not count it). A kernel that must move B bytes per element of work can do at
// most Triad/B elements per second; gpusim.BytesPerColumnStep is that B for the solver,
// so its column-steps per second over Triad()/gpusim.BytesPerColumnStep is its fraction
// of the bound (gpusim's step benchmarks report it as "of-bound"; the names Triad and
// gpusim.BytesPerColumnStep are what `vpbench bench --roofline` is to use for the same).
//
// The bound holds for data streamed from memory: a kernel whose data stays in a cache (a
// small grid, or a large one on a processor with a large last-level cache) can exceed it.
//
// The triad is measured, not looked up, because the machines this runs on are shared
// VMs: what a process gets from memory varies from run to run, so a kernel's fraction of
// the bound is only meaningful against a triad measured in the same run.
package roofline

import (
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BytesPerElement is what the triad counts per element: b and c read, a written.
const BytesPerElement = 24

// Elements is the length of each of the triad's three arrays: four times the last-level
// cache the system reports (STREAM's rule), at least 16 Mi elements (128 MiB an array)
// and at most 64 Mi (512 MiB an array), so that a VM that reports its host's whole cache
// does not make the measurement take gigabytes.
func Elements() int {
	const lo, hi = 16 << 20, 64 << 20
	n := 4 * lastLevelCache() / 8
	return min(max(n, lo), hi)
}

// lastLevelCache is the largest data or unified cache cpu0 reports in sysfs, in bytes,
// or 0 when there is none to read (not Linux).
func lastLevelCache() int {
	best := 0
	for i := range 8 {
		dir := "/sys/devices/system/cpu/cpu0/cache/index" + strconv.Itoa(i) + "/"
		typ, err := os.ReadFile(dir + "type")
		if err != nil {
			break
		}
		if strings.TrimSpace(string(typ)) == "Instruction" {
			continue
		}
		size, err := os.ReadFile(dir + "size")
		if err != nil {
			continue
		}
		if n := parseSize(strings.TrimSpace(string(size))); n > best {
			best = n
		}
	}
	return best
}

// parseSize reads a sysfs cache size such as "48K", "2048K" or "30M"; 0 if malformed.
func parseSize(s string) int {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n * mult
}

// Triad measures the STREAM triad bandwidth with the given number of worker goroutines
// (0 = GOMAXPROCS) over arrays of Elements() float64s each, repeating for at least
// minDuration (and at least three times), and returns the best repetition's bytes per
// second (24 bytes per element). It allocates the arrays (3 * 8 * Elements() bytes) for
// the call only.
func Triad(workers int, minDuration time.Duration) (bytesPerSec float64) {
	return TriadN(workers, Elements(), minDuration)
}

// TriadN is Triad over arrays of n elements each: small n measures a cache's bandwidth
// instead of memory's.
func TriadN(workers, n int, minDuration time.Duration) (bytesPerSec float64) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(min(workers, n), 1)
	a := make([]float64, n)
	b := make([]float64, n)
	c := make([]float64, n)
	// Touch every page in the workers' own shares, as the timed loops will (first touch
	// places pages on the toucher's NUMA node).
	parallelFor(workers, n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i], b[i], c[i] = 1, 2, 0.5
		}
	})
	const s = 3.0
	best := math.Inf(1)
	start := time.Now()
	for rep := 0; rep < 3 || time.Since(start) < minDuration; rep++ {
		t0 := time.Now()
		parallelFor(workers, n, func(lo, hi int) { triad(a[lo:hi], b[lo:hi], c[lo:hi], s) })
		best = min(best, time.Since(t0).Seconds())
	}
	runtime.KeepAlive(a)
	return float64(BytesPerElement) * float64(n) / best
}

// triad is a[i] = b[i] + s*c[i], unrolled by four (Go does not vectorize; four
// independent operations a loop keep more loads in flight).
func triad(a, b, c []float64, s float64) {
	b, c = b[:len(a)], c[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		aa, bb, cc := a[i:i+4:i+4], b[i:i+4:i+4], c[i:i+4:i+4]
		aa[0] = bb[0] + s*cc[0]
		aa[1] = bb[1] + s*cc[1]
		aa[2] = bb[2] + s*cc[2]
		aa[3] = bb[3] + s*cc[3]
	}
	for ; i < len(a); i++ {
		a[i] = b[i] + s*c[i]
	}
}

// parallelFor runs f over [0, n) cut into w contiguous ranges, one goroutine each, and
// returns when all are done.
func parallelFor(w, n int, f func(lo, hi int)) {
	var wg sync.WaitGroup
	for i := range w {
		wg.Go(func() { f(n*i/w, n*(i+1)/w) })
	}
	wg.Wait()
}

// Processor is the processor's model name as /proc/cpuinfo gives it ("model name", or
// "Hardware"/"cpu model" on other architectures), or runtime.GOARCH where there is none
// to read: every speed figure is to be reported with it.
func Processor() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			key, val, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(key) {
			case "model name", "Hardware", "cpu model":
				if v := strings.TrimSpace(val); v != "" {
					return v
				}
			}
		}
	}
	return runtime.GOARCH
}
