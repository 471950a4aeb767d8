package gpusim

import (
	"math"
	"testing"
	"time"

	"github.com/vpbench/vpbench/terrain"
)

// benchStep runs b.N steps of sim and reports column-steps per second, counting every real
// column (wet or dry).
func benchStep(b *testing.B, sim *Sim) {
	b.Helper()
	sim.Step(10) // warm the pool and caches
	b.ResetTimer()
	t0 := time.Now()
	for done := 0; done < b.N; {
		n := min(b.N-done, 100)
		sim.Step(n)
		done += n
	}
	el := time.Since(t0).Seconds()
	b.ReportMetric(float64(sim.Columns().NumColumns())*float64(b.N)/el, "colsteps/s")
}

// filmEverywhere wets every column with a film of the given depth.
func filmEverywhere(b *testing.B, sim *Sim, depth float32) {
	c := sim.Columns()
	h := make([]float32, c.NumColumns())
	for i := range h {
		h[i] = min(c.Base[i]+depth, c.Max[i])
	}
	if err := sim.SetHeights(h); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStepIncline200: the paper's viscosity scene size, 200x200x1 at dx = 0.5 mm,
// dt = 3 ms, nu = 4e-6, a 15 degree incline wet all over with a 1 mm film and a source at
// the top: every column and pipe is active.
func BenchmarkStepIncline200(b *testing.B) {
	c := inclineScene(b, 200, 200, 0.0005, 15*math.Pi/180)
	sim := newSim(b, c, settings(0.003, 4e-6, 0))
	filmEverywhere(b, sim, 0.001)
	if _, err := sim.AddEmitter(Emitter{X: 0.09, Y: 0.05, Z: 0.05, Radius: 0.005, Rate: 1e-5}); err != nil {
		b.Fatal(err)
	}
	benchStep(b, sim)
}

// BenchmarkStepLayers200x5: 200x200 with up to five columns a cell (four pierced slabs),
// flooded to 20 mm from below and fed from above, nu = 4e-6.
func BenchmarkStepLayers200x5(b *testing.B) {
	c := fiveLayerScene(b, 200, 200, 0.0005)
	sim := newSim(b, c, settings(0.003, 4e-6, 0))
	if _, err := sim.Fill(0.05, 0.05, 0.004, 0.02); err != nil {
		b.Fatal(err)
	}
	if _, err := sim.AddEmitter(Emitter{X: 0.05, Y: 0.05, Z: 0.05, Radius: 0.005, Rate: 1e-5}); err != nil {
		b.Fatal(err)
	}
	benchStep(b, sim)
}

// BenchmarkStepSingle1024: 1024x1024x1 over a bumpy floor, flooded to 4 mm (partly wet).
func BenchmarkStepSingle1024(b *testing.B) {
	c := layeredScene(b, 1024, 1024, 0.0005, 0.02, 1, bumpyFloor, nil)
	sim := newSim(b, c, settings(0.003, 4e-6, 0))
	if _, err := sim.Fill(0.25, 0.25, 0.01, 0.004); err != nil {
		b.Fatal(err)
	}
	benchStep(b, sim)
}

var _ = terrain.Interval{}
