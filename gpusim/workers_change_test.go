package gpusim

import (
	"math"
	"runtime"
	"testing"
)

// TestWorkersChangeSameBits: the solver's workers changed between steps (SetSpareCores,
// the scene's overlap; sim:set's workers) give the bits of a run that kept one worker,
// through flooding passages (their full flags flip in one step's height phase and the
// next step acts on them: a new worker count must keep them), a pour landing, surface
// tension and the dense and general layouts.
func TestWorkersChangeSameBits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	for _, o := range []backendOptions{{general: true}, {}} {
		for _, tension := range []bool{false, true} {
			for _, layers := range []int{1, 2} {
				run := func(change bool) []uint64 {
					st := settings(0.003, 1e-6, 0)
					st.Falling = FallingParticles
					if tension {
						st.SurfaceTension, st.ContactHysteresis = 0.072, 0.15
					}
					var slabs []slab
					level := 0.0025
					if layers == 2 { // a slab over the low rows with a hole: a passage floods
						slabs = []slab{{0.003, 0.005, func(x, y float64) bool {
							return y > 0.01 || (x-0.012)*(x-0.012)+(y-0.005)*(y-0.005) < 0.002*0.002
						}}}
						level = 0.0029 // up into the hole: the liquid under the slab fills it
					}
					sim := newSimWith(t, layeredScene(t, 48, 70, 0.0005, 0.04, layers, tiltedFloor(0.2, true, 3), slabs), st, o)
					if _, err := sim.Fill(0.012, 0.001, 0.002, level); err != nil {
						t.Fatal(err)
					}
					for _, e := range []Emitter{
						{X: 0.012, Y: 0.025, Z: 0.03, Radius: 0.0007, Rate: 4e-7, Falls: true, Stop: 0.2}, // a pour landing
						{X: 0.006, Y: 0.004, Z: 0.001, Radius: 0.001, Rate: 4e-7, Stop: 0.15},             // under the slab: it floods
						{X: 0.018, Y: 0.004, Z: 0.001, Radius: 0.001, Rate: -8e-7, Start: 0.15},           // and drains again
					} {
						if _, err := sim.AddEmitter(e); err != nil {
							t.Fatal(err)
						}
					}
					var out []uint64
					ext := 0
					for k := range 120 { // a new worker count before every step
						if change {
							sim.SetSpareCores([]int{0, 2, 1}[k%3]) // 3, 1, 2 workers
						} else if k == 0 {
							sim.SetSpareCores(2) // one worker throughout
						}
						sim.Step(1)
						p, _ := sim.be.extendedCounts()
						ext = max(ext, p)
						if k%10 == 9 {
							for _, f := range snapshot(sim).Height {
								out = append(out, uint64(math.Float32bits(f)))
							}
							for _, f := range sim.Fluxes(nil) {
								out = append(out, uint64(math.Float32bits(f)))
							}
						}
					}
					if layers == 2 && ext == 0 && !change {
						t.Fatal("no extended pipe in the two-layer scene: the passage did not flood") // 16 to 42 as written
					}
					return out
				}
				sameRun(t, "workers changed between steps", run(true), run(false), "a run on one worker")
			}
		}
	}
}
