package bodies

import (
	"math"
	"testing"
)

// BenchmarkCouple10: one update (World.Couple) of ten swabs (8 x 8 x 2 mm, 300 kg/m^3)
// floating on a 100 x 100 mm pool of water 5 mm deep at dx = 0.5 mm (200 x 200 columns,
// the surgery scene's grid), after they settled: what ten bodies add to a solver step is
// this over the steps between two updates (docs/benchmarks.md, "Floating bodies").
//
//	go test -run '^$' -bench Couple10 ./bodies/
func BenchmarkCouple10(b *testing.B) {
	sim, w := pool(b, 200, 0.0005, 0.03, 0.005, 2)
	sh := box(b, vec{X: 0.5, Y: 0.5, Z: 0.5}, vec{X: 0.008, Y: 0.008, Z: 0.002})
	for k := range 10 {
		a := 2 * math.Pi * float64(k) / 10
		if _, err := w.Add(sh, 300, [3]float64{0.05 + 0.025*math.Cos(a), 0.05 + 0.025*math.Sin(a), floorZ + 0.0055}, nil); err != nil {
			b.Fatal(err)
		}
	}
	run(b, sim, w, 1)
	dt := float64(max(1, int(math.Floor(Interval/sim.Dt())))) * sim.Dt()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := w.Couple(sim, dt); err != nil {
			b.Fatal(err)
		}
	}
}
