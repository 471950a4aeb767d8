package gpusim_test

import (
	"fmt"
	"log"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// A 1 x 1 cm tray (10 x 10 cells of 1 mm, floor at 1 mm, open to 2 cm) filled to 3 mm,
// fed by a source for the first second and drained by a sink in the second; the books
// balance: volume = filled + added by the source - removed by the sink.
func ExampleSim() {
	const n, dx = 10, 0.001
	cells := make([][]terrain.Interval, n*n)
	for k := range cells {
		cells[k] = []terrain.Interval{{Min: 0.001, Base: 0.001, Max: 0.02}}
	}
	cols, err := terrain.FromIntervals(n, n, dx, 0.02, 1, cells)
	if err != nil {
		log.Fatal(err)
	}
	st := gpusim.DefaultSettings()
	st.Dt = 1.0 / 256 // s
	sim, err := gpusim.New(cols, st)
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()

	filled, err := sim.Fill(0.005, 0.005, 0.002, 0.003) // 2 mm deep: 0.2 ml
	if err != nil {
		log.Fatal(err)
	}
	// 1e-8 m^3/s = 0.01 ml/s for 1 s, then a sink of 0.005 ml/s for 1 s.
	if _, err := sim.AddEmitter(gpusim.Emitter{X: 0.005, Y: 0.005, Z: 0.01, Radius: 0.002, Rate: 1e-8, Stop: 1}); err != nil {
		log.Fatal(err)
	}
	if _, err := sim.AddEmitter(gpusim.Emitter{X: 0.005, Y: 0.005, Z: 0.01, Radius: 0.002, Rate: -5e-9, Start: 1, Stop: 2}); err != nil {
		log.Fatal(err)
	}
	sim.Step(768) // 3 s

	var s gpusim.Snapshot
	sim.Snapshot(&s)
	fmt.Printf("filled %.4f ml\n", filled*1e6)
	fmt.Printf("t = %.2f s after %d steps\n", s.Time, s.Steps)
	fmt.Printf("added %.4f ml (fill and source), removed %.4f ml\n", s.Added*1e6, s.Removed*1e6)
	fmt.Printf("volume %.4f ml, %d of %d columns wet\n", s.Volume*1e6, s.Wet, cols.NumColumns())
	// Output:
	// filled 0.2000 ml
	// t = 3.00 s after 768 steps
	// added 0.2100 ml (fill and source), removed 0.0050 ml
	// volume 0.2050 ml, 100 of 100 columns wet
}
