//go:build librarybench

package gpusim_test

// The library's flooded scenes (scripts/), run through the script package: how often the
// CPU backend rebuilds its passages, and what one rebuild costs on the real scene. Behind
// a build tag so that gpusim's tests do not depend on the script package building:
//
//	go test -tags librarybench -run '^$' -bench Library -benchtime 300x ./gpusim/

import (
	"testing"
	"time"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/script"
)

// loadLibrary loads ../scripts/<name> on the CPU backend with all cores and runs it to
// the simulated time warm.
func loadLibrary(tb testing.TB, name string, warm float64) *script.Scenario {
	tb.Helper()
	sc, err := script.Load("../scripts/"+name, script.Options{Print: func(string) {}, Backend: "cpu", Workers: 0})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(sc.Close)
	for sc.Time() < warm-1e-9 {
		if _, err := sc.Advance(50); err != nil {
			tb.Fatal(err)
		}
	}
	return sc
}

// BenchmarkLibraryRebuilds: a library scene stepped from t = 1 s (one op is one step):
// rebuilds/step is the share of steps that rebuilt the passages, after a full flag
// flipped.
//
//	go test -tags librarybench -run '^$' -bench LibraryRebuilds -benchtime 300x ./gpusim/
func BenchmarkLibraryRebuilds(b *testing.B) {
	for _, name := range []string{"surgery", "coffee"} {
		b.Run(name, func(b *testing.B) {
			sc := loadLibrary(b, name+".lua", 1)
			sim := sc.Sim()
			s0, r0 := sim.Steps(), gpusim.PassageRebuilds(sim)
			b.ResetTimer()
			t0 := time.Now()
			for int(sim.Steps()-s0) < b.N {
				if _, err := sc.Advance(min(25, b.N-int(sim.Steps()-s0))); err != nil {
					b.Fatal(err)
				}
			}
			el := time.Since(t0).Seconds()
			n := float64(sim.Steps() - s0)
			b.ReportMetric(float64(gpusim.PassageRebuilds(sim)-r0)/n, "rebuilds/step")
			b.ReportMetric(float64(sim.Columns().NumColumns())*n/el, "colsteps/s")
		})
	}
}

// BenchmarkLibraryRebuild: one rebuild of the passages and openings (one op), from the
// state of a library scene at t = 1 s, after one full flag flipped (a capped column of a
// passage, its flag flipped and flipped back in turn: the passage splits or shrinks and
// grows back): the serial work a step after a flip adds.
func BenchmarkLibraryRebuild(b *testing.B) {
	for _, name := range []string{"surgery", "coffee"} {
		b.Run(name, func(b *testing.B) {
			sim := loadLibrary(b, name+".lua", 1).Sim()
			var s gpusim.Snapshot
			sim.Snapshot(&s)
			// The capped columns of the largest passage's region: those at their ceiling.
			c := s.Columns
			var full []int
			k := 0
			for i := range s.Height {
				if float64(c.Max[i]) < c.Height*(1-1e-6) {
					if s.Height[i] >= c.Max[i]-float32(0.01*c.Dx) {
						full = append(full, k)
					}
					k++
				}
			}
			if len(full) == 0 || !gpusim.FlipAndRebuild(sim, full[0]) || !gpusim.FlipAndRebuild(sim, full[0]) {
				b.Fatal("no full column")
			}
			b.ResetTimer()
			for n := range b.N {
				gpusim.FlipAndRebuild(sim, full[n/2*7919%len(full)])
			}
		})
	}
}
