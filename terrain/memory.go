package terrain

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strconv"
	"strings"
)

const (
	// ColumnBytes is what Columns stores per column: Min, Base and Max as float32.
	ColumnBytes = 3 * 4
	// FallbackMemory is the memory assumed available when /proc/meminfo cannot be read.
	FallbackMemory = 8 << 30
)

// MemoryEstimate returns the bytes the Columns of an nx x ny grid with up to layers
// columns per cell may take: nx*ny*layers*ColumnBytes, plus the per-cell index. What a
// solver keeps beside them is the solver's to count (gpusim.MemoryEstimate adds it). It
// saturates at the largest uint64 instead of overflowing, and returns 0 when an argument
// is below 1.
func MemoryEstimate(nx, ny, layers int) uint64 {
	if nx < 1 || ny < 1 || layers < 1 {
		return 0
	}
	cells := mulSat(uint64(nx), uint64(ny))
	cols := mulSat(cells, uint64(layers))
	return addSat(mulSat(cols, ColumnBytes), mulSat(addSat(cells, 1), 4))
}

// CheckMemory returns an error, naming the grid and both byte counts, when
// MemoryEstimate(nx, ny, layers) exceeds AvailableMemory(); also when an argument is
// below 1.
func CheckMemory(nx, ny, layers int) error {
	if nx < 1 || ny < 1 || layers < 1 {
		return fmt.Errorf("terrain: a %d x %d grid with %d layers is empty: each must be >= 1", nx, ny, layers)
	}
	need, have := MemoryEstimate(nx, ny, layers), AvailableMemory()
	if need > have {
		return fmt.Errorf("terrain: a %d x %d grid with %d layers needs about %s (%d bytes) but %s (%d bytes) of memory are available: use a larger dx, a smaller domain or fewer layers",
			nx, ny, layers, FormatBytes(need), need, FormatBytes(have), have)
	}
	return nil
}

// CheckBytes is CheckMemory for a workspace of need bytes (what names it in the
// message).
func CheckBytes(what string, need uint64) error { return checkBytes(what, need) }

// checkBytes is CheckMemory for a workspace of need bytes that is not a column grid.
func checkBytes(what string, need uint64) error {
	if have := AvailableMemory(); need > have {
		return fmt.Errorf("terrain: %s needs about %s (%d bytes) but %s (%d bytes) of memory are available",
			what, FormatBytes(need), need, FormatBytes(have), have)
	}
	return nil
}

// AvailableMemory returns MemAvailable from /proc/meminfo in bytes, or FallbackMemory
// (8 GiB) when it cannot be read.
func AvailableMemory() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return FallbackMemory
	}
	defer f.Close()
	if n, ok := parseMemAvailable(f); ok {
		return n
	}
	return FallbackMemory
}

// parseMemAvailable reads the "MemAvailable: N kB" line of a meminfo file.
func parseMemAvailable(r io.Reader) (uint64, bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil || kb > 1<<53 {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}

// FormatBytes prints a byte count in binary units (1.5 GiB).
func FormatBytes(n uint64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, unit := float64(n)/1024, 0
	for v >= 1024 && unit < 5 {
		v /= 1024
		unit++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTPE"[unit])
}

func mulSat(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return ^uint64(0)
	}
	return lo
}

func addSat(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return ^uint64(0)
	}
	return s
}
