package scripts_test

import (
	"math"
	"testing"
	"time"

	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/terrain"
)

// benchLibraryCPU times the CPU backend on a library scenario from the simulated time
// warm on: it loads the scenario, runs it to warm (untimed), then runs b.N solver steps
// through Advance (callbacks fire as in a real run). It reports colsteps/s (every real
// column times steps, per wall second, as gpusim's benchStep counts) and ms/step, so the
// figure compares with gpusim's BenchmarkStep* of the same run. A fixed -benchtime Nx
// times the same simulated interval in every run.
func benchLibraryCPU(b *testing.B, name string, warm float64) {
	benchLibraryCPUWith(b, name, warm, nil)
}

// benchLibraryCPUWith is benchLibraryCPU with setup called once warm, before the timing.
func benchLibraryCPUWith(b *testing.B, name string, warm float64, setup func(*script.Scenario)) {
	benchLibraryMethod(b, name, "", warm, setup)
}

// benchLibraryMethod is benchLibraryCPUWith with the run's method set from outside
// (--method; "" keeps the script's). With the SWE it also reports substeps/step.
func benchLibraryMethod(b *testing.B, name, method string, warm float64, setup func(*script.Scenario)) {
	sc, err := script.Load(name, script.Options{Print: func(string) {}, Backend: "cpu", Method: method, Workers: 0})
	if err != nil {
		b.Fatal(err)
	}
	defer sc.Close()
	for sc.Scene().Time() < warm-1e-9 {
		if _, err := sc.Advance(50); err != nil {
			b.Fatal(err)
		}
	}
	if setup != nil {
		setup(sc)
	}
	scn := sc.Scene()
	cols := scn.Columns().NumColumns()
	s0, sub0 := scn.Steps(), scn.Stats().Substeps
	b.ResetTimer()
	t0 := time.Now()
	var bodies time.Duration
	for int(scn.Steps()-s0) < b.N {
		advDone, err := sc.Advance(min(25, b.N-int(scn.Steps()-s0)))
		done := advDone.Done
		if err != nil {
			b.Fatal(err)
		}
		bodies += sc.Scene().LastBodies()
		if done {
			b.Fatalf("the scenario ended at t = %.3f s", sc.Scene().Time())
		}
	}
	el := time.Since(t0).Seconds()
	b.StopTimer()
	n := float64(scn.Steps() - s0)
	b.ReportMetric(float64(cols)*n/el, "colsteps/s")
	b.ReportMetric(el/n*1e3, "ms/step")
	if bodies > 0 {
		b.ReportMetric(bodies.Seconds()/n*1e3, "bodies-ms/step") // the floating bodies' updates (scene.LastBodies)
	}
	st := scn.Stats()
	if st.Substeps > sub0 {
		b.ReportMetric(float64(st.Substeps-sub0)/n, "substeps/step")
	}
	b.ReportMetric(float64(st.Passages), "passages")
	b.ReportMetric(float64(st.Extended), "extpipes")
}

// BenchmarkLibrarySurgeryCPU: the surgery scene (200 x 200 x 5 cells, 45,534 columns) on
// the CPU backend from t = 1 s, when the gap under the vertebral body is flooded and
// liquid against ceilings keeps flipping full flags (the passages are rebuilt in about
// half the steps). Compare with gpusim's BenchmarkStepLayers200x5 run back to back:
//
//	go test -run '^$' -bench LibrarySurgeryCPU -benchtime 300x ./scripts/
//	go test -run '^$' -bench StepLayers200x5 ./gpusim/
func BenchmarkLibrarySurgeryCPU(b *testing.B) { benchLibraryCPU(b, "surgery.lua", 1) }

// BenchmarkLibraryCoffeeCPU: the coffee scene on the CPU backend from t = 1 s.
func BenchmarkLibraryCoffeeCPU(b *testing.B) { benchLibraryCPU(b, "coffee.lua", 1) }

// BenchmarkLibraryGeneralCPU: the other scenes on the general layout (multi-layer
// terrains) from t = 1 s, where much of their ground is still dry (docs/solver.md,
// "Leaving dry, still ground alone (the general layout)").
func BenchmarkLibraryGeneralCPU(b *testing.B) {
	for _, name := range []string{"gauze", "rock", "waterfall"} {
		b.Run(name, func(b *testing.B) { benchLibraryCPU(b, name+".lua", 1) })
	}
}

// BenchmarkLibrarySurgeryBodiesCPU: the surgery scene from t = 1.5 s, as
// BenchmarkLibrarySurgeryCPU, with 0 and 10 floating bodies (swabs 8 x 8 x 2 mm of
// density 300 let go in a ring over the wound at t = 1.5 s), timed from their drop
// (landing: they fall, bounce and come to rest in the blood and on the wound's floor) and
// from 1 s after it (settled): the bodies' share of a step is the ratio to bodies=0,
// run back to back; bodies-ms/step is the updates' own time (docs/benchmarks.md):
//
//	go test -run '^$' -bench LibrarySurgeryBodiesCPU -benchtime 900x -count 3 ./scripts/
func BenchmarkLibrarySurgeryBodiesCPU(b *testing.B) {
	for _, c := range []struct {
		name   string
		n      int
		settle float64
	}{{"bodies=0", 0, 0}, {"bodies=10,landing", 10, 0}, {"bodies=10,settled", 10, 1}} {
		n := c.n
		b.Run(c.name, func(b *testing.B) {
			benchLibraryCPUWith(b, "surgery.lua", 1.5, func(sc *script.Scenario) {
				for k := range n {
					a := 2 * math.Pi * float64(k) / float64(n)
					swab, err := terrain.Box(terrain.Vec3{X: -0.004, Y: -0.004, Z: -0.001}, terrain.Vec3{X: 0.004, Y: 0.004, Z: 0.001})
					if err != nil {
						b.Fatal(err)
					}
					at := [3]float64{0.05 + 0.024*math.Cos(a), 0.05 + 0.024*math.Sin(a), 0.012}
					if _, err := sc.Scene().AddBody(swab, 300, &at, nil, nil); err != nil {
						b.Fatal(err)
					}
				}
				for end := sc.Scene().Time() + c.settle; sc.Scene().Time() < end-1e-9; {
					if _, err := sc.Advance(50); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkLibrarySWE: the surgery and viscosity scenes stepped by each method from
// t = 1 s (the SWE by --method swe), back to back: the SWE's cost a step against the
// pipes' on the same scene (docs/benchmarks.md, "The shallow water equations").
//
//	go test -run '^$' -bench LibrarySWE -benchtime 300x -count 3 ./scripts/
func BenchmarkLibrarySWE(b *testing.B) {
	for _, name := range []string{"surgery", "viscosity"} {
		for _, m := range []string{"pipes", "swe"} {
			b.Run(name+"/"+m, func(b *testing.B) { benchLibraryMethod(b, name+".lua", m, 1, nil) })
		}
	}
}

// BenchmarkLibrarySurface: the liquid surface of a library scene (Scene.BuildSurface: the
// heightfield's mesh, the waves' displacement, the liquid in the air) built again and
// again on its state at t = 2 s, with every core: a frame's surface work without the
// solver's, to weigh against bench's surface row.
//
//	go test -run '^$' -bench LibrarySurface -benchtime 200x ./scripts/
func BenchmarkLibrarySurface(b *testing.B) {
	for _, name := range []string{"coffee", "fountain", "rain", "rock", "gauze"} {
		b.Run(name, func(b *testing.B) {
			sc, err := script.Load(name+".lua", script.Options{Print: func(string) {}, Backend: "cpu"})
			if err != nil {
				b.Fatal(err)
			}
			defer sc.Close()
			for sc.Scene().Time() < 2-1e-9 {
				if _, err := sc.Advance(50); err != nil {
					b.Fatal(err)
				}
			}
			scn := sc.Scene()
			if _, err := scn.BuildSurface(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := scn.BuildSurface(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1e3, "ms/frame")
		})
	}
}
