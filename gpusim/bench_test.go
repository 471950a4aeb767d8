package gpusim

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/vpbench/vpbench/internal/roofline"
)

// triadBound is the STREAM triad bandwidth (bytes/s) with GOMAXPROCS workers, measured
// once per test binary run and GOMAXPROCS (-cpu), the first time a benchmark asks: the
// roofline each step benchmark is compared against in the same run (the machine is
// shared, so a bound measured in another run says little).
func triadBound() float64 {
	procs := runtime.GOMAXPROCS(0)
	triadMu.Lock()
	defer triadMu.Unlock()
	bw, ok := triadBy[procs]
	if !ok {
		bw = roofline.Triad(procs, time.Second)
		triadBy[procs] = bw
		debug.FreeOSMemory()
	}
	return bw
}

var (
	triadMu sync.Mutex
	triadBy = map[int]float64{}
)

// benchStep runs b.N steps of sim and reports column-steps per second, counting every real
// column (wet or dry), and their fraction of the memory bound (of-bound: colsteps/s over
// triad / BytesPerColumnStep, the triad measured in the same run; above 1 where the grid's
// state fits in a cache, as the 200x200 grids and, on a processor with a large last-level
// cache, the 1024x1024 one do).
func benchStep(b *testing.B, sim *Sim) { benchStepReset(b, sim, 0, nil) }

// benchStepReset is benchStep that calls reset, untimed, every period steps (0: never),
// for a scene whose state would otherwise drift from what the benchmark describes.
func benchStepReset(b *testing.B, sim *Sim, period int, reset func()) {
	b.Helper()
	var bound float64
	if !testing.Short() { // -short: no triad (a second and 1.5 GB), e.g. under valgrind
		// Before the timed steps: the triad's arrays are freed and handed back to the
		// system now, not by the runtime's background scavenger while the steps run
		// (on two cores that took a tenth of a 200x200 grid's step rate).
		bound = triadBound() / BytesPerColumnStep
		debug.FreeOSMemory()
	}
	sim.Step(10) // warm the pool and caches
	b.ResetTimer()
	var el float64
	for done := 0; done < b.N; {
		n := b.N - done
		if period > 0 {
			n = min(n, period)
		}
		el += stepTimed(sim, n, 100)
		done += n
		if period > 0 && done < b.N {
			b.StopTimer()
			reset()
			b.StartTimer()
		}
	}
	rate := float64(sim.Columns().NumColumns()) * float64(b.N) / el
	b.ReportMetric(rate, "colsteps/s")
	if bound > 0 {
		b.ReportMetric(rate/bound, "of-bound")
	}
}

// BenchmarkTriad reports the memory bandwidth the step benchmarks' "of-bound" divides by
// (GB/s, measured once per run and -cpu) and the column-steps a second it allows
// (bound-colsteps/s = triad / BytesPerColumnStep); each op measures a fresh triad.
func BenchmarkTriad(b *testing.B) {
	bw := triadBound()
	b.ResetTimer()
	for range b.N {
		roofline.Triad(0, 0)
	}
	b.ReportMetric(bw/1e9, "GB/s")
	b.ReportMetric(bw/BytesPerColumnStep, "bound-colsteps/s")
}

// stepTimed runs n steps of sim in Step calls of at most chunk steps and returns the
// wall seconds they took.
func stepTimed(sim *Sim, n, chunk int) float64 {
	t0 := time.Now()
	for done := 0; done < n; {
		k := min(n-done, chunk)
		sim.Step(k)
		done += k
	}
	return time.Since(t0).Seconds()
}

// filmEverywhere wets every column with a film of the given depth.
func filmEverywhere(b testing.TB, sim *Sim, depth float32) {
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
// the top: every column and pipe is active. The source (10 ml/s) fills the box to its
// top in about 20,000 steps, after which every column is capped and the benchmark would
// measure a full box: the film is laid again every 2,000 steps (6 simulated s), untimed.
func BenchmarkStepIncline200(b *testing.B) { benchStepIncline200(b, backendOptions{}) }

// BenchmarkStepIncline200Wetting is BenchmarkStepIncline200 with water's surface tension
// on (the contact-line law in every flux update): its cost against the same benchmark
// without.
func BenchmarkStepIncline200Wetting(b *testing.B) {
	benchStepIncline200With(b, backendOptions{}, func(s *Settings) { s.SurfaceTension = 0.072 })
}

// benchStepIncline200 is BenchmarkStepIncline200 with backends made with o.
func benchStepIncline200(b *testing.B, o backendOptions) { benchStepIncline200With(b, o, nil) }

// benchStepIncline200With is benchStepIncline200 with settings changed by edit (nil: none).
func benchStepIncline200With(b *testing.B, o backendOptions, edit func(*Settings)) {
	c := inclineScene(b, 200, 200, 0.0005, 15*math.Pi/180)
	st := settings(0.003, 4e-6, 0)
	if edit != nil {
		edit(&st)
	}
	sim := newSimWith(b, c, st, o)
	filmEverywhere(b, sim, 0.001)
	if _, err := sim.AddEmitter(Emitter{X: 0.09, Y: 0.05, Z: 0.05, Radius: 0.005, Rate: 1e-5}); err != nil {
		b.Fatal(err)
	}
	benchStepReset(b, sim, 2000, func() { filmEverywhere(b, sim, 0.001) })
}

// BenchmarkStepLayers200x5: 200x200 with up to five columns a cell (four pierced slabs),
// flooded to 20 mm from below and fed from above, nu = 4e-6.
func BenchmarkStepLayers200x5(b *testing.B) { benchStepLayers200x5(b, nil) }

// BenchmarkStepLayers200x5Wetting is BenchmarkStepLayers200x5 with water's surface
// tension on.
func BenchmarkStepLayers200x5Wetting(b *testing.B) {
	benchStepLayers200x5(b, func(s *Settings) { s.SurfaceTension = 0.072 })
}

// benchStepLayers200x5 is BenchmarkStepLayers200x5 with settings changed by edit (nil:
// none).
func benchStepLayers200x5(b *testing.B, edit func(*Settings)) {
	c := fiveLayerScene(b, 200, 200, 0.0005)
	st := settings(0.003, 4e-6, 0)
	if edit != nil {
		edit(&st)
	}
	sim := newSim(b, c, st)
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

// floodedPassages is the paper's four-passage scene (Fig. 20) flooded to 6 mm, above the
// tunnels' roofs, with a source at the centre: four passages, 48 unified pipes.
func floodedPassages(b *testing.B, mode ExtendedPipes) *Sim {
	c, _, _ := fourPassages(b)
	st := settings(0, 4e-6, 0)
	st.ExtendedPipes = mode
	sim := newSim(b, c, st)
	if _, err := sim.Fill(0.005, 0.005, 0.001, 0.006); err != nil {
		b.Fatal(err)
	}
	if _, err := sim.AddEmitter(Emitter{X: 0.05, Y: 0.05, Z: 0.03, Radius: 0.01, Rate: 1e-5}); err != nil {
		b.Fatal(err)
	}
	sim.Step(50)
	return sim
}

// BenchmarkStepPassages: one step of the flooded four-passage scene (100x100, up to two
// columns a cell), for each extended-pipe mode.
func BenchmarkStepPassages(b *testing.B) {
	for _, mode := range []ExtendedPipes{ExtendedOff, ExtendedAxis, ExtendedUnified} {
		b.Run(mode.String(), func(b *testing.B) {
			benchStep(b, floodedPassages(b, mode))
		})
	}
}

// BenchmarkPassageDetection: the extended pipes' serial work of one step alone (finding
// the passages and their openings, the raw and the final fluxes) on the same scene. Its
// ns/op over BenchmarkStepPassages' is the share of the step it takes.
func BenchmarkPassageDetection(b *testing.B) {
	for _, mode := range []ExtendedPipes{ExtendedAxis, ExtendedUnified} {
		b.Run(mode.String(), func(b *testing.B) {
			sim := floodedPassages(b, mode)
			be := sim.be.(*cpuBackend)
			if p, _ := be.extendedCounts(); p == 0 {
				b.Fatal("no extended pipe in the flooded scene")
			}
			b.ResetTimer()
			for range b.N {
				be.ext.rawFluxes(be.h, &be.p)
				be.ext.final(be.k, be.s, be.r, &be.p)
			}
		})
	}
}

// BenchmarkStepIncline200General: BenchmarkStepIncline200's scene on the general
// layout (kernels_csr.go), which every terrain with more than one column in a cell
// uses: the general kernels' cost per column against the dense ones' on the same scene.
func BenchmarkStepIncline200General(b *testing.B) {
	benchStepIncline200(b, backendOptions{general: true})
}

// BenchmarkDenseTension: the dense layout's step with water's surface tension off and on,
// side by side in one run (issue 39: with it on, at least 0.8 of the speed with it off).
// film-*: BenchmarkStepIncline200's scene (a 1 mm film on a 15 degree incline, every
// column wet and moving, a source), so the pair is BenchmarkStepIncline200 and
// BenchmarkStepIncline200Wetting. puddle-*: a disc of water 2 mm deep and 80 mm across
// laid on a flat 200 x 200 plate, half of it dry: with surface tension the disc's edge is
// a contact line (the capillary head's rows with dry columns, rows.CapHeadRow), without
// it the water spreads over the plate; laid again every 2,000 steps, untimed.
func BenchmarkDenseTension(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := map[bool]string{false: "off", true: "on"}[on]
		b.Run("film-"+name, func(b *testing.B) {
			benchStepIncline200With(b, backendOptions{}, func(s *Settings) {
				if on {
					s.SurfaceTension = 0.072
				}
			})
		})
	}
	for _, on := range []bool{false, true} {
		name := map[bool]string{false: "off", true: "on"}[on]
		b.Run("puddle-"+name, func(b *testing.B) {
			st := settings(0.003, 1e-6, 0)
			if on {
				st.SurfaceTension = 0.072
			}
			sim := newSim(b, flatScene(b, 200, 200, 0.0005), st)
			c := sim.Columns()
			h := append([]float32(nil), c.Base...)
			for y := range c.Ny {
				for x := range c.Nx {
					if math.Hypot(float64(x)-99.5, float64(y)-99.5) < 80 {
						h[y*c.Nx+x] += 0.002
					}
				}
			}
			lay := func() {
				if err := sim.SetHeights(h); err != nil {
					b.Fatal(err)
				}
			}
			lay()
			benchStepReset(b, sim, 2000, lay)
		})
	}
}

// BenchmarkDenseStill: the dense layout's step where liquid covers a fifth of the columns,
// against the same scene wet all over (issue 39: at most half its cost, by leaving dry and
// still rows alone: denseSweep). A 200 x 200 plate tilted 3 degrees along y (dx 0.5 mm),
// filled from its low side: to 1.05 mm over the lowest floor, the lowest 40 rows (fifth),
// or to 1.05 mm over the highest (full); a source pours into the pool; the state is laid again
// every 2,000 steps, untimed. fifth-noskip is fifth sweeping every row
// (backendOptions.noSkip). disc-* are a disc of water 1.5 mm deep covering a fifth of a
// flat plate (100 of its 200 rows) with water's surface tension, and the plate wet all
// over, where the liquid has an edge (a contact line) all round. general-* are the tilted
// plate's on the general layout (backendOptions.general), which leaves dead units alone
// (csrskip.go). Reported: wet (the fraction of wet columns) and swept (the fraction of
// columns swept a step, denseRange; on the general layout, of units computed).
func BenchmarkDenseStill(b *testing.B) {
	for _, tc := range []struct {
		name  string
		level float64 // the rows filled, as the width of plate the pool covers (m); 0: the disc
		full  bool
		o     backendOptions
	}{
		{"fifth", 0.02, false, backendOptions{}},
		{"full", 0.02, true, backendOptions{}},
		{"fifth-noskip", 0.02, false, backendOptions{noSkip: true}},
		{"disc-fifth", 0, false, backendOptions{}},
		{"disc-full", 0, true, backendOptions{}},
		{"general-fifth", 0.02, false, backendOptions{general: true}},
		{"general-full", 0.02, true, backendOptions{general: true}},
		{"general-fifth-noskip", 0.02, false, backendOptions{general: true, noSkip: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			st := settings(0.003, 1e-6, 0)
			var sim *Sim
			var h []float32
			if tc.level > 0 {
				slope := math.Tan(3 * math.Pi / 180)
				sim = newSimWith(b, layeredScene(b, 200, 200, 0.0005, 0.03, 1, tiltedFloor(slope, false, 0), nil), st, tc.o)
				level := 0.001 + slope*tc.level // the floor 40 rows up
				if tc.full {
					level += slope * 0.1 // as deep over the highest floor
				}
				if _, err := sim.Fill(0.05, 0.0002, 0.0011, level); err != nil {
					b.Fatal(err)
				}
				if _, err := sim.AddEmitter(Emitter{X: 0.05, Y: 0.004, Z: 0.02, Radius: 0.002, Rate: 1e-8}); err != nil {
					b.Fatal(err)
				}
				h = snapshot(sim).Height
			} else {
				st.SurfaceTension = 0.072
				sim = newSimWith(b, flatScene(b, 200, 200, 0.0005), st, tc.o)
				c := sim.Columns()
				h = append([]float32(nil), c.Base...)
				for y := range c.Ny {
					for x := range c.Nx {
						if tc.full || math.Hypot(float64(x)-99.5, float64(y)-99.5) < 50.5 {
							h[y*c.Nx+x] += 0.0015
						}
					}
				}
			}
			lay := func() {
				if err := sim.SetHeights(h); err != nil {
					b.Fatal(err)
				}
			}
			lay()
			wet := 0
			for i, v := range h {
				if v-sim.Columns().Base[i] > DryDepth {
					wet++
				}
			}
			be := sim.be.(*cpuBackend)
			swept := func() (n int64) { // columns swept, or units left alone (general)
				if be.dense == nil {
					for _, l := range be.skip.left {
						n += l
					}
					return n
				}
				for _, d := range be.dense.work {
					n += d.swept
				}
				return n
			}
			swept0 := swept()
			benchStepReset(b, sim, 2000, lay)
			b.ReportMetric(float64(wet)/float64(len(h)), "wet")
			per := float64(swept()-swept0) / float64(b.N+10)
			if be.dense == nil {
				b.ReportMetric(1-per/float64(len(be.skip.units)), "swept")
			} else {
				b.ReportMetric(per/float64(len(h)), "swept")
			}
		})
	}
}
