package gpusim

import (
	"math"
	"testing"
)

// BenchmarkSWEStepVariants: BenchmarkSWEStep's dam break with surface tension (water at
// 30 degrees, with the capillary pressure, -tension; with the contact line's heads alone,
// as the library's scenes run it, -heads) for both methods on the
// general layout, and a pool on mostly dry cells against the same pool under liquid
// everywhere (the dry cells' cost). Reports as benchDamBreak.
func BenchmarkSWEStepVariants(b *testing.B) {
	tension := func(m Method) Settings {
		st := sweSettings(m, 0.003, 2)
		st.SurfaceTension, st.Density, st.ContactAngle, st.CapillaryPressure = 0.072, 1000, 30*math.Pi/180, true
		return st
	}
	// heads: surface tension as the library's scenes run it (the contact line's heads,
	// no capillary pressure: the default).
	heads := func(m Method) Settings { st := tension(m); st.CapillaryPressure = false; return st }
	one := func(st Settings) Settings { st.Workers = 1; return st }
	b.Run("pipes-general-w1", func(b *testing.B) { benchDamBreak(b, sweSettings(MethodPipes, 0.003, 1), true, b.N) })
	b.Run("swe-w1", func(b *testing.B) { benchDamBreak(b, sweSettings(MethodSWE, 0.003, 1), true, b.N) })
	b.Run("pipes-general-tension", func(b *testing.B) { benchDamBreak(b, tension(MethodPipes), true, b.N) })
	b.Run("swe-tension", func(b *testing.B) { benchDamBreak(b, tension(MethodSWE), true, b.N) })
	b.Run("pipes-general-tension-w1", func(b *testing.B) { benchDamBreak(b, one(tension(MethodPipes)), true, b.N) })
	b.Run("swe-tension-w1", func(b *testing.B) { benchDamBreak(b, one(tension(MethodSWE)), true, b.N) })
	b.Run("pipes-general-heads-w1", func(b *testing.B) { benchDamBreak(b, one(heads(MethodPipes)), true, b.N) })
	b.Run("swe-heads-w1", func(b *testing.B) { benchDamBreak(b, one(heads(MethodSWE)), true, b.N) })
	for _, w := range []int{2, 1} {
		for _, m := range []Method{MethodPipes, MethodSWE} {
			for _, wet := range []bool{false, true} {
				name := "pipes-general"
				if m == MethodSWE {
					name = "swe"
				}
				if wet {
					name += "-pool-wet"
				} else {
					name += "-pool-dry"
				}
				if w == 1 {
					name += "-w1"
				}
				b.Run(name, func(b *testing.B) { benchPool(b, sweSettings(m, 0.003, w), wet) })
			}
		}
	}
}

// benchPool times steps of a 200 x 200 floor (dx 0.5 mm) with a pit 10 mm deep of 60 x 60
// cells in its middle, its liquid sloshing (a surface tilted by 1 mm across it). Dry: the
// pit alone holds liquid, its surface 1 mm below the rim (91% of the columns dry); wet:
// the same tilted surface 2 mm above the rim, over the whole floor.
func benchPool(b *testing.B, st Settings, wet bool) {
	const n, dx = 200, 0.0005
	pit := func(x, y float64) bool {
		lo, hi := 70*dx, 130*dx
		return x > lo && x < hi && y > lo && y < hi
	}
	c := layeredScene(b, n, n, dx, 0.05, 1, func(x, y float64) float64 {
		if pit(x, y) {
			return 0.001
		}
		return 0.011
	}, nil)
	sim := newSimWith(b, c, st, backendOptions{general: true})
	h := sim.Heights(nil)
	level := 0.010
	if wet {
		level = 0.013
	}
	for y := range c.Ny {
		for x := range c.Nx {
			cx, cy := (float64(x)+0.5)*dx, (float64(y)+0.5)*dx
			lo, _ := c.Cell(x, y)
			if !wet && !pit(cx, cy) {
				continue
			}
			h[lo] = float32(level + 0.001*(cx/(n*dx)-0.5))
		}
	}
	if err := sim.SetHeights(h); err != nil {
		b.Fatal(err)
	}
	sim.Step(33)
	sub0 := sim.Stats().Substeps
	b.ResetTimer()
	sim.Step(b.N)
	b.StopTimer()
	ms := float64(b.Elapsed().Nanoseconds()) / 1e6 / float64(b.N)
	b.ReportMetric(ms, "ms/step")
	if sub := sim.Stats().Substeps - sub0; sub > 0 {
		b.ReportMetric(float64(sub)/float64(b.N), "substeps/step")
		b.ReportMetric(ms*float64(b.N)/float64(sub), "ms/substep")
	}
}

// TestSWEStepNoAllocs: a step of the SWE allocates nothing, with and without surface
// tension, on 1 and 2 workers (the claimed chunks, the fused passes).
func TestSWEStepNoAllocs(t *testing.T) {
	for _, w := range []int{1, 2} {
		for _, tension := range []bool{false, true} {
			st := sweSettings(MethodSWE, 0.003, w)
			if tension {
				st.SurfaceTension, st.Density, st.ContactAngle, st.CapillaryPressure = 0.072, 1000, 30*math.Pi/180, true
			}
			c := flatScene(t, 40, 30, 0.0005)
			sim := newSim(t, c, st)
			h := sim.Heights(nil)
			for i := range h[:len(h)/2] {
				h[i] += 0.004
			}
			if err := sim.SetHeights(h); err != nil {
				t.Fatal(err)
			}
			sim.Step(5)
			if a := testing.AllocsPerRun(20, func() { sim.Step(3) }); a != 0 {
				t.Errorf("%d workers, tension %v: %g allocations a call of 3 steps", w, tension, a)
			}
		}
	}
}
