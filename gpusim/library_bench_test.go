//go:build librarybench

package gpusim_test

// The library's flooded scenes (scripts/), run through the script package: how often the
// CPU backend rebuilds its passages, and what one rebuild costs on the real scene. Behind
// a build tag so that gpusim's tests do not depend on the script package building:
//
//	go test -tags librarybench -run '^$' -bench Library -benchtime 300x ./gpusim/

import (
	"bytes"
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
	for sc.Scene().Time() < warm-1e-9 {
		if _, err := sc.Advance(50); err != nil {
			tb.Fatal(err)
		}
	}
	return sc
}

// solverOf is a solver of the benchmark's own in the state of sc's scene, bit for bit:
// the scene's solver checkpoint (WriteSolverCheckpoint) read into a Sim on the same
// columns with the same settings. The scene hands out no solver (it is the only door to
// it); the passage hooks (PassageRebuilds, FlipAndRebuild) need one. Its full flags are
// set from the heights before it is returned (one FlipAndRebuild, whose rebuild after a
// checkpoint sets every flag from the heights), as the scene's are after its last step.
func solverOf(tb testing.TB, sc *script.Scenario) *gpusim.Sim {
	tb.Helper()
	scn := sc.Scene()
	var buf bytes.Buffer
	if err := scn.WriteSolverCheckpoint(&buf); err != nil {
		tb.Fatal(err)
	}
	sim, err := gpusim.New(scn.Columns(), scn.SolverSettings())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(sim.Close)
	if err := sim.ReadCheckpoint(&buf); err != nil {
		tb.Fatal(err)
	}
	gpusim.FlipAndRebuild(sim, 0)
	return sim
}

// BenchmarkLibraryRebuilds: a library scene stepped from t = 1 s (one op is one step):
// rebuilds/step is the share of steps that rebuilt the passages, after a full flag
// flipped. The steps are those of the scene's solver state at t = 1 s in a solver of the
// benchmark's own (solverOf), in chunks of 25: the script's callbacks after t = 1 s (the
// surgery's viscosity change at 1.5 s, the prints) do not run.
//
//	go test -tags librarybench -run '^$' -bench LibraryRebuilds -benchtime 300x ./gpusim/
func BenchmarkLibraryRebuilds(b *testing.B) {
	for _, name := range []string{"surgery", "coffee"} {
		b.Run(name, func(b *testing.B) {
			sim := solverOf(b, loadLibrary(b, name+".lua", 1))
			s0, r0 := sim.Steps(), gpusim.PassageRebuilds(sim)
			b.ResetTimer()
			t0 := time.Now()
			for int(sim.Steps()-s0) < b.N {
				sim.Step(min(25, b.N-int(sim.Steps()-s0)))
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
			sim := solverOf(b, loadLibrary(b, name+".lua", 1))
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
