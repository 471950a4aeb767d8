//go:build cgo

package gpusim

// The CUDA kernels (gpusim/kernels/vpbench.cu), compiled for the host by
// internal/hostkernels and driven by the device backend exactly as on a GPU, against the
// CPU backend: random multi-layer states, step by step, with extended pipes, sources and
// sinks. CI has no GPU; this is what proves the kernels' arithmetic and the launches'
// order there (docs/cuda.md).

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim/internal/hostkernels"
	"github.com/vpbench/vpbench/terrain"
)

func init() { RegisterHostKernelBackends() }

// conformanceCase is a scene, a random start and what acts on it.
type conformanceCase struct {
	name     string
	cols     func(t testing.TB) *terrain.Columns
	st       Settings
	general  bool // force the general layout on the CPU and the device
	emitters []Emitter
	steps    int
	flux     float64 // scale of the random start fluxes, m^3/s
	// dam starts from a dam break (deep liquid over the low x half, shallow or dry beyond,
	// random within) instead of retopoState's random heights.
	dam bool
}

func conformanceCases() []conformanceCase {
	st := func(cs CrossSection, ext ExtendedPipes, nu float64) Settings {
		s := settings(0.003, nu, 2)
		s.CrossSection, s.ExtendedPipes = cs, ext
		return s
	}
	src := []Emitter{
		{X: 0.006, Y: 0.007, Z: 0.05, Radius: 0.002, Rate: 2e-6, Stop: math.Inf(1)},
		{X: 0.011, Y: 0.004, Z: 0.05, Radius: 0.0015, Rate: -3e-6, Start: 0.03, Stop: math.Inf(1)},
		// Overlaps the first: its targets share columns, which makes the kernel serial.
		{X: 0.007, Y: 0.007, Z: 0.05, Radius: 0.001, Rate: 1e-6, Start: 0.0137, Stop: 0.0907}, // starts and stops within steps
	}
	// src at the fine step of the angle cases: the sink and the overlap within 3 ms.
	fine := []Emitter{src[0], src[1], src[2]}
	fine[1].Start, fine[2].Start, fine[2].Stop = 0.0013, 0.00037, 0.0021
	pour := []Emitter{{X: 0.004, Y: 0.0025, Z: 0.03, Radius: 0.0015, Rate: 2e-6, Stop: math.Inf(1)}}
	// Held levels (Emitter.held): a source and a sink holding 6 mm over the same columns
	// (both ways: one thread for all), a weir at 4.5 mm elsewhere, and an add-only inlet.
	held := []Emitter{
		{X: 0.006, Y: 0.007, Z: 0.05, Radius: 0.002, Rate: 4e-6, Stop: math.Inf(1), Holds: true, Level: 0.006},
		{X: 0.006, Y: 0.007, Z: 0.05, Radius: 0.002, Rate: -4e-6, Stop: math.Inf(1), Holds: true, Level: 0.006},
		{X: 0.011, Y: 0.004, Z: 0.05, Radius: 0.0015, Rate: -3e-6, Start: 0.01, Stop: math.Inf(1), Holds: true, Level: 0.0045},
		{X: 0.003, Y: 0.003, Z: 0.05, Radius: 0.001, Rate: 2e-6, Stop: math.Inf(1), Holds: true, Level: 0.005},
	}
	// The same on the three-layer terrain's top layer (its upper slab's top is at 18 mm).
	heldHigh := slices.Clone(held)
	for k := range heldHigh {
		heldHigh[k].Level += 0.0145
	}
	// Surface tension on: the contact-line law holds fluxes into dry columns, edges
	// recede, and the capillary pressure (smoothed at dt 3 ms) acts.
	wetting := func(s Settings) Settings {
		s.SurfaceTension, s.ContactAngle, s.CapillaryPressure = 0.072, 1, true
		return s
	}
	// The contact line alone, with hysteresis: the capillary head without smoothing.
	contact := func(s Settings) Settings {
		s = wetting(s)
		s.CapillaryPressure, s.ContactHysteresis = false, 0.3
		return s
	}
	// The capillary pressure exact (a step fine enough for no smoothing): the contact
	// angle at the line (capangle.go), with hysteresis for the pinned range.
	angle := func(s Settings) Settings {
		s = wetting(s)
		s.Dt, s.ContactHysteresis = 5e-5, 0.3
		return s
	}
	// The shallow water equations (swe.go): the general layout, several substeps a step.
	swe := func(s Settings) Settings {
		s.Method = MethodSWE
		return s
	}
	return []conformanceCase{
		{name: "swe/dense-dam", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: swe(st(CrossPaper, ExtendedUnified, 4e-6)), emitters: src[:2], steps: 60, flux: 2e-8, dam: true},
		{name: "swe/three-layer/unified", cols: func(t testing.TB) *terrain.Columns {
			return overhangScene(t, 30, 30, 0.0005)
		}, st: swe(st(CrossPaper, ExtendedUnified, 4e-6)), emitters: src, steps: 80, flux: 2e-8},
		{name: "swe/dense-wetting-film", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 24, 29, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: swe(wetting(st(CrossFilm, ExtendedUnified, 0))), emitters: src, steps: 60, flux: 2e-8, dam: true},
		{name: "swe/three-layer/axis-open", cols: func(t testing.TB) *terrain.Columns {
			return overhangScene(t, 30, 30, 0.0005)
		}, st: swe(sides(contact(st(CrossFilm, ExtendedAxis, 4e-6)), SideOpen, SideWall, SideOpen, SideWall)), emitters: src, steps: 80, flux: 2e-8},
		{name: "dense/contact-line", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: contact(st(CrossPaper, ExtendedUnified, 4e-6)), emitters: src[:2], steps: 60, flux: 2e-8},
		{name: "dense/angle", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: angle(st(CrossPaper, ExtendedUnified, 4e-6)), emitters: fine[:2], steps: 60, flux: 2e-8},
		{name: "three-layer/angle-film", cols: func(t testing.TB) *terrain.Columns {
			return overhangScene(t, 30, 30, 0.0005)
		}, st: angle(st(CrossFilm, ExtendedUnified, 4e-6)), emitters: fine, steps: 80, flux: 2e-8},
		{name: "swe/dense-angle", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 24, 29, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: swe(angle(st(CrossFilm, ExtendedUnified, 4e-6))), emitters: fine, steps: 60, flux: 2e-8, dam: true},
		{name: "dense/wetting", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: wetting(st(CrossPaper, ExtendedUnified, 4e-6)), emitters: src[:2], steps: 60, flux: 2e-8},
		{name: "three-layer/wetting-film", cols: func(t testing.TB) *terrain.Columns {
			return overhangScene(t, 30, 30, 0.0005)
		}, st: wetting(st(CrossFilm, ExtendedUnified, 4e-6)), emitters: src, steps: 80, flux: 2e-8},
		{name: "dense/paper", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: st(CrossPaper, ExtendedUnified, 4e-6), emitters: src[:2], steps: 60, flux: 2e-8},
		{name: "dense/film-inviscid", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 24, 29, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: st(CrossFilm, ExtendedUnified, 0), emitters: src, steps: 60, flux: 2e-8},
		{name: "general-on-dense", general: true, cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 20, 17, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: st(CrossPaper, ExtendedOff, 4e-5), emitters: src[:1], steps: 40, flux: 2e-8},
		{name: "three-layer/unified", cols: func(t testing.TB) *terrain.Columns {
			return overhangScene(t, 30, 30, 0.0005)
		}, st: st(CrossPaper, ExtendedUnified, 4e-6), emitters: src, steps: 80, flux: 2e-8},
		{name: "three-layer/axis-film", cols: func(t testing.TB) *terrain.Columns {
			return overhangScene(t, 30, 30, 0.0005)
		}, st: st(CrossFilm, ExtendedAxis, 4e-6), emitters: src, steps: 80, flux: 2e-8},
		{name: "five-layer/off", cols: func(t testing.TB) *terrain.Columns {
			return fiveLayerScene(t, 28, 28, 0.0005)
		}, st: st(CrossPaper, ExtendedOff, 4e-6), emitters: src[:2], steps: 60, flux: 2e-8},
		{name: "five-layer/unified", cols: func(t testing.TB) *terrain.Columns {
			return fiveLayerScene(t, 28, 28, 0.0005)
		}, st: st(CrossPaper, ExtendedUnified, 4e-6), emitters: src, steps: 60, flux: 2e-8},
		// Liquid that falls: the particles run on the host for either backend, so the
		// state must stay the same bits with liquid released, in flight and landing.
		{name: "ledge/particles", cols: func(t testing.TB) *terrain.Columns {
			return ledgeScene(t, 40, 10, 0.0005, 0.008, 0.021, 0.001, 0.04)
		}, st: falling(st(CrossPaper, ExtendedUnified, 4e-6)), emitters: pour, steps: 120, flux: 2e-8},
		{name: "floor/falling-source", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: falling(st(CrossPaper, ExtendedUnified, 4e-6)), emitters: []Emitter{
			{X: 0.007, Y: 0.006, Z: 0.02, Radius: 0.002, Rate: 2e-6, Stop: math.Inf(1), Falls: true, VX: 0.05},
			src[1],
		}, steps: 80, flux: 2e-8},
		{name: "shelf/particles", cols: func(t testing.TB) *terrain.Columns {
			return shelfScene(t, 40, 10, 0.0005, 0.012, 0.021, 0.001, 0.04)
		}, st: falling(st(CrossFilm, ExtendedUnified, 4e-6)), emitters: pour, steps: 120, flux: 2e-8},
		// Open sides (sides_test.go): every layer of the border cells drains after the
		// emitters. Two open sides and no emitter on the border: one thread a target and a
		// drain; all four open with a sink on the border: one thread for all.
		{name: "three-layer/open-sides", cols: func(t testing.TB) *terrain.Columns {
			return overhangScene(t, 30, 30, 0.0005)
		}, st: sides(st(CrossPaper, ExtendedUnified, 4e-6), SideOpen, SideWall, SideOpen, SideWall), emitters: src, steps: 80, flux: 2e-8},
		{name: "dense/open-sides-film", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: sides(st(CrossFilm, ExtendedUnified, 4e-6), SideOpen, SideOpen, SideOpen, SideOpen), emitters: append([]Emitter{
			{X: 0.0002, Y: 0.006, Z: 0.05, Radius: 0.001, Rate: -1e-6, Stop: math.Inf(1)}}, src[:2]...), steps: 60, flux: 2e-8},
		// Free outfall of deep liquid: a dam break 3-5 mm deep against the open -x side,
		// where the drain's step (coef sqrt(d) = 0.6) is far from its shallow limit, with
		// the pipes and with the shallow water equations.
		{name: "dense/dam-outfall", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: sides(st(CrossPaper, ExtendedUnified, 4e-6), SideOpen, SideOpen, SideWall, SideOpen), emitters: src[:2], steps: 60, flux: 2e-8, dam: true},
		{name: "dense/held-levels", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: st(CrossPaper, ExtendedUnified, 4e-6), emitters: held, steps: 60, flux: 2e-8},
		{name: "three-layer/held-levels", cols: func(t testing.TB) *terrain.Columns {
			return overhangScene(t, 30, 30, 0.0005)
		}, st: contact(st(CrossFilm, ExtendedUnified, 4e-6)), emitters: heldHigh, steps: 80, flux: 2e-8},
		{name: "swe/dense-held-levels", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: swe(st(CrossFilm, ExtendedUnified, 4e-6)), emitters: held, steps: 60, flux: 2e-8, dam: true},
		{name: "swe/dense-dam-outfall", cols: func(t testing.TB) *terrain.Columns {
			return layeredScene(t, 31, 23, 0.0005, 0.03, 1, bumpyFloor, nil)
		}, st: swe(sides(st(CrossFilm, ExtendedUnified, 4e-6), SideOpen, SideWall, SideOpen, SideOpen)), emitters: src[:2], steps: 60, flux: 2e-8, dam: true},
	}
}

// sides is st with the given sides (-x, +x, -y, +y).
func sides(st Settings, s ...Side) Settings {
	copy(st.Sides[:], s)
	return st
}

// falling is st with falling particles on.
func falling(st Settings) Settings {
	st.Falling = FallingParticles
	return st
}

// pair makes tc's scene on the cpu backend and on backend, from the same random start
// (seed), with tc's sources and sinks added to both; tc.general forces the general layout
// on both.
func (tc conformanceCase) pair(t *testing.T, backend string, seed uint64) (cpu, dev *Sim) {
	t.Helper()
	o := backendOptions{general: tc.general}
	c := tc.cols(t)
	cpu = newSimWith(t, c, tc.st, o)
	st := tc.st
	st.Backend = backend
	dev = newSimWith(t, c, st, o)
	if tc.dam {
		damStart(t, seed, tc.flux, cpu, dev)
	} else {
		startState(t, seed, tc.flux, cpu, dev)
	}
	for _, e := range tc.emitters {
		for _, s := range []*Sim{cpu, dev} {
			if _, err := s.AddEmitter(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	return cpu, dev
}

// startState puts the same random heights, residuals and fluxes into every sim.
func startState(t *testing.T, seed uint64, scale float64, sims ...*Sim) {
	t.Helper()
	c := sims[0].Columns()
	h, r := retopoState(c, seed)
	installStart(t, h, r, rand.New(rand.NewPCG(seed, 11)), scale, sims)
}

// installStart puts heights h, residuals r and fluxes drawn from rng in (-scale, scale)
// into every sim, and publishes them.
func installStart(t *testing.T, h, r []float32, rng *rand.Rand, scale float64, sims []*Sim) {
	t.Helper()
	f := make([]float32, sims[0].NumPipes())
	for p := range f {
		f[p] = float32((2*rng.Float64() - 1) * scale)
	}
	for _, s := range sims {
		if err := s.SetHeights(h); err != nil {
			t.Fatal(err)
		}
		s.be.writeResidual(r)
		s.be.writeFlux(f)
		s.publish()
	}
}

// damStart puts the same dam break into every sim: over the low x half of the domain
// liquid a random 3-5 mm deep (where the columns have room), beyond it a random film up to
// 0.3 mm or dry floor, with random residuals and fluxes.
func damStart(t *testing.T, seed uint64, scale float64, sims ...*Sim) {
	t.Helper()
	c := sims[0].Columns()
	rng := rand.New(rand.NewPCG(seed, 13))
	h := make([]float32, c.NumColumns())
	for x := range c.Nx {
		for y := range c.Ny {
			lo, hi := c.Cell(x, y)
			for i := lo; i < hi; i++ {
				d := 0.003 + 0.002*rng.Float64()
				if x >= c.Nx/2 {
					d = 0.0003 * rng.Float64()
					if rng.IntN(3) == 0 {
						d = 0
					}
				}
				h[i] = min(float32(float64(c.Base[i])+d), c.Max[i])
			}
		}
	}
	_, r := retopoState(c, seed)
	installStart(t, h, r, rng, scale, sims)
}

// state is a sim's heights, residuals and fluxes, read back.
type state struct{ h, r, f []float32 }

func readState(s *Sim) state {
	n := s.Columns().NumColumns()
	st := state{h: make([]float32, n), r: make([]float32, n)}
	s.be.readHeight(st.h)
	s.be.readResidual(st.r)
	st.f = s.Fluxes(nil)
	return st
}

// firstDiff returns the index of the first value whose bits differ, or -1.

// TestHostKernelsMatchCPU steps the CPU backend and the kernels side by side from random
// multi-layer states and requires the same heights, residuals and fluxes after every
// step, bit for bit: the kernels do internal/element's operations in its order, without
// fused multiply-adds, so anything else is a bug. Each case runs with the grid's threads
// in index order and backwards, so no kernel may depend on the order its threads run in.
// Extended pipes (unified and axis, with passages forming and draining), sources and
// sinks (one pair sharing columns) and both cross-sections are covered; the accounting
// sums the same float64 terms in another order, so it is checked to 1e-12.
func TestHostKernelsMatchCPU(t *testing.T) {
	for _, tc := range conformanceCases() {
		for _, rtName := range []string{"host-kernels", "host-kernels-reverse"} {
			t.Run(tc.name+"/"+rtName, func(t *testing.T) {
				cpu, dev := tc.pair(t, rtName, 42)
				c := cpu.Columns()
				db := dev.be.(*deviceBackend)
				if db.dense != (cpu.be.(*cpuBackend).dense != nil) {
					t.Fatalf("layouts differ: device dense %v", db.dense)
				}
				v0 := dev.Volume()
				a0, _, _ := dev.Accounting() // SetHeights booked the start as added
				maxExt, maxPass, rebuilt, maxAir := 0, 0, 0, 0
				lastPass := -1
				for step := 1; step <= tc.steps; step++ {
					cpu.Step(1)
					dev.Step(1)
					a, b := readState(cpu), readState(dev)
					for _, x := range []struct {
						what string
						a, b []float32
					}{{"height", a.h, b.h}, {"residual", a.r, b.r}, {"flux", a.f, b.f}} {
						if i := firstDiffBits(x.a, x.b); i >= 0 {
							t.Fatalf("step %d: %s %d: cpu %g, kernels %g", step, x.what, i, x.a[i], x.b[i])
						}
					}
					if pc, pd := cpu.fall.particles(nil), dev.fall.particles(nil); !slices.Equal(pc, pd) {
						t.Fatalf("step %d: particles differ: cpu %d, kernels %d", step, len(pc), len(pd))
					}
					maxAir = max(maxAir, len(dev.fall.vol))
					ce, cp := cpu.be.extendedCounts()
					de, dp := dev.be.extendedCounts()
					if ce != de || cp != dp {
						t.Fatalf("step %d: extended pipes/passages: cpu %d/%d, kernels %d/%d", step, ce, cp, de, dp)
					}
					if dp != lastPass {
						rebuilt++
						lastPass = dp
					}
					maxExt, maxPass = max(maxExt, de), max(maxPass, dp)
					if cs, ds := cpu.Stats().Substeps, dev.Stats().Substeps; cs != ds {
						t.Fatalf("step %d: substeps so far: cpu %d, kernels %d", step, cs, ds)
					}
					ca, cr, cj := cpu.Accounting()
					da, dr, dj := dev.Accounting()
					co, do := cpu.Outflow(), dev.Outflow()
					for _, v := range [][2]float64{{ca, da}, {cr, dr}, {cj, dj}, {co, do}} {
						if math.Abs(v[0]-v[1]) > 1e-12*max(math.Abs(v[0]), 1e-12) {
							t.Fatalf("step %d: accounting (added, removed, rejected, outflow) cpu %g %g %g %g, kernels %g %g %g %g", step, ca, cr, cj, co, da, dr, dj, do)
						}
					}
				}
				// Several steps per call (one host sync per call), with a rate changed.
				for _, s := range []*Sim{cpu, dev} {
					if err := s.SetEmitterRate(0, 5e-6); err != nil {
						t.Fatal(err)
					}
					if tc.emitters[0].Holds { // a held level moved mid-run
						if err := s.SetEmitterLevel(0, tc.emitters[0].Level+0.001); err != nil {
							t.Fatal(err)
						}
					}
					s.Step(17)
				}
				a, b := readState(cpu), readState(dev)
				if i := firstDiffBits(a.h, b.h); i >= 0 || firstDiffBits(a.f, b.f) >= 0 || firstDiffBits(a.r, b.r) >= 0 {
					t.Fatalf("after Step(17): state differs (first height %d)", i)
				}
				var sc, sd Snapshot
				cpu.Snapshot(&sc)
				dev.Snapshot(&sd)
				if firstDiffBits(sc.Height, sd.Height) >= 0 || sc.Volume != sd.Volume || sc.Time != sd.Time {
					t.Fatalf("snapshots differ: volume %g vs %g, time %g vs %g", sc.Volume, sd.Volume, sc.Time, sd.Time)
				}
				added, removed, rejected := dev.Accounting()
				added -= a0
				v := dev.Volume()
				// The same bits as the CPU, so the same conservation: 1e-16 of the volume
				// without passages; the unified pipes' float32 residual fix-up leaves up
				// to 5e-16 m^3 (1.2e-10 of it) after 60 steps with 350 passages flooded
				// at once by the random start (docs/solver.md: 1e-15 m^3 a step at most).
				out := dev.Outflow() // the open sides' drains
				if err := math.Abs(v - (v0 + added - removed - out)); err > 1e-9*v0 {
					t.Errorf("volume %g, start %g + added %g - removed %g - outflow %g: off by %g", v, v0, added, removed, out, err)
				}
				if open := tc.st.Sides != [4]Side{}; open != (out > 0) {
					t.Errorf("outflow %g m^3 with sides %s", out, tc.st.SidesString())
				}
				if added == 0 || (len(tc.emitters) > 1 && removed == 0) {
					t.Errorf("sources and sinks did nothing: added %g removed %g", added, removed)
				}
				t.Logf("%d steps bit-identical; extended pipes up to %d in %d passages (%d changes); added %.3g removed %.3g rejected %.3g m^3",
					tc.steps, maxExt, maxPass, rebuilt, added, removed, rejected)
				if tc.st.Method == MethodSWE {
					sub := dev.Stats().Substeps
					t.Logf("the SWE: %d substeps in %d steps", sub, tc.steps+17)
					if sub <= int64(tc.steps+17) {
						t.Errorf("the SWE took %d substeps in %d steps: the case does not test substeps", sub, tc.steps+17)
					}
				}
				if tc.st.Falling == FallingParticles && maxAir == 0 {
					t.Errorf("no particle flew: the case does not test them")
				}
				if tc.st.ExtendedPipes != ExtendedOff && c.NumColumns() != c.Nx*c.Ny && maxExt == 0 {
					t.Errorf("no extended pipe formed: the case does not test them")
				}
			})
		}
	}
}

// TestHostKernelsPipelined steps the kernels pipelined (Sim.SetPipelined) on a runtime
// that defers all device work until the host waits, in calls of 1 to 9 steps, against
// the CPU backend stepping the same calls. It checks:
//   - each call publishes the state of the call before it, bit for bit, and Sync the
//     state of the last one (a read of the read-back before the wait would see stale
//     memory under the deferred runtime);
//   - a full flag that flips inside a call stops the rest of it on the device, and the
//     rest runs after the rebuild with the same result as the CPU's step by step;
//   - the host waits for the device once a call, plus once per round resumed after a
//     flip: never once a step, and a rebuild adds no wait of its own. (The random starts
//     flood and drain passages all the time, so many calls here rebuild.)
func TestHostKernelsPipelined(t *testing.T) {
	for _, tc := range conformanceCases() {
		if tc.st.Falling == FallingParticles {
			continue // while liquid may fall, Step runs one step at a time, not pipelined
		}
		t.Run(tc.name, func(t *testing.T) {
			cpu, dev := tc.pair(t, "host-kernels-deferred", 7)
			c := cpu.Columns()
			db := dev.be.(*deviceBackend)
			rt := db.rt.(*hostkernels.Runtime)
			dev.SetPipelined(true)
			cpu.SetPipelined(true) // the CPU backend steps as before
			rng := rand.New(rand.NewPCG(3, 5))
			var prev, got Snapshot
			cpu.Snapshot(&prev)
			calls, steps, quiet := 0, 0, 0
			for steps < 3*tc.steps {
				n := 1 + rng.IntN(9)
				syncs, resumes := rt.Syncs, db.resumes
				cpu.Step(n)
				dev.Step(n)
				calls++
				steps += n
				// One wait for the frame, and one per round resumed after a flip (the
				// rebuild itself reads the read-back and queues its uploads). (The first
				// call also uploads the emitters.)
				if calls > 1 {
					want := 1 + db.resumes - resumes
					if tc.st.Method == MethodSWE {
						want += n // the SWE reads each step's fastest wave back (sweSteps)
					}
					if d := rt.Syncs - syncs; d != want {
						t.Fatalf("call %d (%d steps, %d resumed): the host waited %d times, want %d", calls, n, db.resumes-resumes, d, want)
					}
				}
				if db.resumes == resumes {
					quiet++
				}
				dev.Snapshot(&got)
				if calls == 1 {
					if got.Steps != 0 {
						t.Fatalf("first pipelined call published step %d, want the state before it", got.Steps)
					}
				} else if got.Steps != prev.Steps || got.Time != prev.Time || firstDiffBits(got.Height, prev.Height) >= 0 {
					t.Fatalf("call %d: published step %d (t %g), want the previous call's %d (t %g); first height off %d",
						calls, got.Steps, got.Time, prev.Steps, prev.Time, firstDiffBits(got.Height, prev.Height))
				}
				cpu.Snapshot(&prev)
				if dev.Time() != cpu.Time() {
					t.Fatalf("call %d: Time %g, cpu %g", calls, dev.Time(), cpu.Time())
				}
			}
			dev.Sync()
			dev.Snapshot(&got)
			if got.Steps != prev.Steps || firstDiffBits(got.Height, prev.Height) >= 0 {
				t.Fatalf("after Sync: step %d, cpu %d; first height off %d", got.Steps, prev.Steps, firstDiffBits(got.Height, prev.Height))
			}
			a, b := readState(cpu), readState(dev)
			if firstDiffBits(a.h, b.h) >= 0 || firstDiffBits(a.r, b.r) >= 0 || firstDiffBits(a.f, b.f) >= 0 {
				t.Fatalf("after %d steps in %d calls: state differs from the cpu's", steps, calls)
			}
			ca, cr, cj := cpu.Accounting()
			da, dr, dj := dev.Accounting()
			for _, v := range [][2]float64{{ca, da}, {cr, dr}, {cj, dj}, {cpu.Outflow(), dev.Outflow()}} {
				if math.Abs(v[0]-v[1]) > 1e-12*max(math.Abs(v[0]), 1e-12) {
					t.Fatalf("accounting (added, removed, rejected) cpu %g %g %g, kernels %g %g %g; outflow cpu %g, kernels %g", ca, cr, cj, da, dr, dj, cpu.Outflow(), dev.Outflow())
				}
			}
			t.Logf("%d steps in %d calls: %d host waits, %d passage rebuilds, %d frames resumed after a flip; %d calls not resumed",
				steps, calls, rt.Syncs, db.rebuilds, db.resumes, quiet)
			if tc.st.ExtendedPipes != ExtendedOff && c.NumColumns() != c.Nx*c.Ny && db.resumes == 0 {
				t.Errorf("no frame was stopped by a flip: the case does not test the halt")
			}
		})
	}
}

// TestBackendSelection: names, errors and the fixed backend.
func TestBackendSelection(t *testing.T) {
	c := layeredScene(t, 8, 8, 0.0005, 0.03, 1, bumpyFloor, nil)
	st := DefaultSettings()
	st.Backend = "host-kernels"
	sim := newSim(t, c, st)
	if got := sim.Stats().Backend; got != "host-kernels" {
		t.Errorf("Stats.Backend = %q", got)
	}
	st.Backend = "cpu"
	if err := sim.Set(st); err == nil || !strings.Contains(err.Error(), "cannot change mid-run") {
		t.Errorf("changing the backend mid-run: %v", err)
	}
	st.Backend = "gpu"
	if _, err := New(c, st); err == nil || !strings.Contains(err.Error(), `backend is "gpu"`) {
		t.Errorf("unknown backend: %v", err)
	}
	st.Backend = "cuda"
	_, err := New(c, st)
	if _, cerr := CUDAAvailable(); cerr != nil {
		if err == nil || err.Error() != cerr.Error() {
			t.Errorf("cuda without cuda: New gives %v, CUDAAvailable %v", err, cerr)
		}
		st.Backend = "auto"
		if sim, err := New(c, st); err != nil || sim.Stats().Backend != "cpu" {
			t.Errorf("auto without cuda: %v", err)
		}
	}
}

// TestDeviceStepAllocs: the device backend's Step allocates nothing, pipelined or not,
// with sources and sinks and extended pipes active, and with particles poured, flying
// and landing, and with the SWE (the host-kernel runtime; the cuda one adds only cgo
// calls).
func TestDeviceStepAllocs(t *testing.T) {
	for _, tc := range conformanceCases() {
		if tc.name != "three-layer/unified" && tc.name != "dense/paper" && tc.name != "floor/falling-source" && tc.name != "swe/three-layer/unified" {
			continue
		}
		for _, pipelined := range []bool{false, true} {
			st := tc.st
			st.Backend = "host-kernels"
			sim := newSim(t, tc.cols(t), st)
			for _, e := range tc.emitters {
				if _, err := sim.AddEmitter(e); err != nil {
					t.Fatal(err)
				}
			}
			sim.SetPipelined(pipelined)
			sim.Step(40) // sizes the read-back stages and the passages' lists
			sim.Step(40)
			if n := sim.Stats().Particles; tc.emitters[0].Falls && n == 0 {
				t.Fatalf("%s: no particle in the air: the case does not test the particle phase", tc.name)
			}
			if a := testing.AllocsPerRun(20, func() { sim.Step(5) }); a != 0 {
				t.Errorf("%s, pipelined %v: Step(5) allocates %g times", tc.name, pipelined, a)
			}
		}
	}
}

// TestCheckpointDeviceSWE: a run of the shallow water equations checkpointed on the cpu
// backend resumes on the host kernels, and the host kernels' checkpoint on the cpu
// backend, each going on to the same bits as the run that never stopped (the face depths
// saved and restored: with the fluxes they are the SWE's state). The scene is
// checkpoint_test.go's overhang/swe: passages, capillary pressure, open sides, falling
// particles. A device Sim of the pipes refuses the SWE's checkpoint (it cannot change the
// method mid-run).
func TestCheckpointDeviceSWE(t *testing.T) {
	var sc ckScene
	for _, s := range ckScenes() {
		if s.st.Method == MethodSWE {
			sc = s
		}
	}
	sc.m = 20
	a := sc.start(t, 2, "")
	data := checkpointOf(t, a)
	resume := func(data []byte, backend string, m Method) (*Sim, error) {
		st := DefaultSettings() // the checkpoint brings the rest
		st.Backend, st.Workers, st.Method = backend, 1, m
		sim := newSim(t, sc.cols(t), st)
		return sim, sim.ReadCheckpoint(bytes.NewReader(data))
	}
	if _, err := resume(data, "host-kernels", MethodPipes); err == nil || !strings.Contains(err.Error(), "cpu backend only") || !strings.Contains(err.Error(), `make this Sim with method "swe"`) {
		t.Errorf("an SWE checkpoint into a device Sim of the pipes: %v", err)
	}
	dev, err := resume(data, "host-kernels", MethodSWE)
	if err != nil {
		t.Fatal(err)
	}
	ckSame(t, "read into the host kernels", ckRead(a), ckRead(dev))
	ckStepBoth(t, "cpu -> device", a, dev, sc.m)
	cpu := ckResume(t, sc, checkpointOf(t, dev), 3, "", false)
	ckStepBoth(t, "device -> cpu", dev, cpu, sc.m)
	for done, k := 0, 0; done < sc.m; k++ { // the run that never stopped, as ckStepBoth steps
		n := min(1+k%4, sc.m-done)
		a.Step(n)
		done += n
	}
	ckSame(t, "the run that never stopped", ckRead(a), ckRead(cpu))
	if s := dev.Stats().Substeps; s == 0 {
		t.Errorf("the device took no substeps")
	}
}

// TestSWEMethodChangeDevice: the SWE runs on a device backend, and a method change there
// is refused (the CPU backend only remakes itself; swe_test.go's TestSWEMethodChange).
func TestSWEMethodChangeDevice(t *testing.T) {
	st := DefaultSettings()
	st.Method, st.Backend = MethodSWE, "host-kernels"
	RegisterHostKernelBackends()
	dev, err := New(flatScene(t, 10, 10, 0.001), st)
	if err != nil {
		t.Fatalf("the SWE on a device backend: %v", err)
	}
	st.Method = MethodPipes
	if err := dev.Set(st); err == nil || !strings.Contains(err.Error(), "cpu backend only") {
		t.Errorf("a method change on a device backend: %v", err)
	}
}

// TestFillMovingHostKernels: a moving fill on the device kernels (compiled for the host)
// gives the CPU backend's bits, then and over 30 steps with an open side, with either
// method (the fluxes, and the SWE's face depths, are uploaded by writeFlux).
func TestFillMovingHostKernels(t *testing.T) {
	t.Parallel()
	for _, method := range []Method{MethodPipes, MethodSWE} {
		var runs [2]state
		for k, backend := range []string{"", "host-kernels"} {
			st := settings(0.003, 1e-6, 2)
			st.Method, st.Backend = method, backend
			st.Sides[SidePlusX] = SideOpen
			sim := newSim(t, layeredScene(t, 30, 20, 0.0005, 0.03, 1, bumpyFloor, nil), st)
			if _, err := sim.FillMoving(0.005, 0.005, 0.004, 0.005, 0.05, 0.02); err != nil {
				t.Fatal(err)
			}
			sim.Step(30)
			runs[k] = readState(sim)
		}
		if i := firstDiffBits(runs[0].h, runs[1].h); i >= 0 || firstDiffBits(runs[0].f, runs[1].f) >= 0 {
			t.Fatalf("%v: the host kernels differ from the CPU (first height %d)", method, i)
		}
	}
}
