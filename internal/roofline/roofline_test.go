package roofline

import (
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestTriadArithmetic(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 5, 17} {
		a := make([]float64, n)
		b := make([]float64, n)
		c := make([]float64, n)
		for i := range n {
			b[i], c[i] = float64(i), float64(2*i+1)
		}
		triad(a, b, c, 3)
		for i := range n {
			if want := float64(i) + 3*float64(2*i+1); a[i] != want {
				t.Fatalf("n=%d: a[%d] = %v, want %v", n, i, a[i], want)
			}
		}
	}
}

func TestParallelForCovers(t *testing.T) {
	for _, w := range []int{1, 2, 3, 7} {
		for _, n := range []int{7, 10, 100} {
			seen := make([]int32, n)
			parallelFor(w, n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			})
			for i, s := range seen {
				if s != 1 {
					t.Fatalf("w=%d n=%d: element %d covered %d times", w, n, i, s)
				}
			}
		}
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int{"48K": 48 << 10, "2M": 2 << 20, "1G": 1 << 30, "512": 512, "x": 0, "": 0, "-1K": 0} {
		if got := parseSize(s); got != want {
			t.Errorf("parseSize(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestElementsBounds(t *testing.T) {
	if n := Elements(); n < 16<<20 || n > 64<<20 {
		t.Fatalf("Elements() = %d, outside [16 Mi, 64 Mi]", n)
	}
}

// TestTriadSane: a small triad (in cache, quick) gives a positive, finite bandwidth no
// faster than a generous 10 TB/s.
func TestTriadSane(t *testing.T) {
	for _, w := range []int{0, 1, 3} {
		bw := TriadN(w, 1<<16, time.Millisecond)
		if !(bw > 0) || math.IsInf(bw, 0) || bw > 1e13 {
			t.Fatalf("TriadN(%d) = %g B/s", w, bw)
		}
	}
}

// BenchmarkTriad reports the memory bandwidth Triad measures (and, as ns/op, one
// measurement).
func BenchmarkTriad(b *testing.B) {
	var bw float64
	for range b.N {
		bw = Triad(0, 0)
	}
	b.ReportMetric(bw/1e9, "GB/s")
}

func TestProcessorNamesSomething(t *testing.T) {
	p := Processor()
	if p == "" {
		t.Fatal("Processor() is empty")
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil && strings.Contains(string(data), "model name") && p == runtime.GOARCH {
		t.Errorf("/proc/cpuinfo has a model name but Processor() gave %q", p)
	}
}
