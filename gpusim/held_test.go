package gpusim

// Held columns (docs/solver.md, "Held columns"): columns whose liquid a holder owns
// (Sim.Hold), the border pipes computed but moved by neither end, the exchange with the
// holder booked exactly.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// heldBlock is the columns of the cells [x0, x1) x [y0, y1) of a terrain with one column
// a cell.
func heldBlock(c *terrain.Columns, x0, y0, x1, y1 int) []int {
	var out []int
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			lo, _ := c.Cell(x, y)
			out = append(out, lo)
		}
	}
	return out
}

// waveTank is a flat 30 x 8 mm tank (dx 1 mm, floor at 1 mm) filled to 5 mm with a hump
// 2 mm high over its first 6 cells: a wave on its way along x.
func waveTank(t *testing.T, st Settings, o backendOptions) *Sim {
	t.Helper()
	cols := flatFloor(t, 30, 8)
	sim := newSimWith(t, cols, st, o)
	if _, err := sim.Fill(0.0005, 0.0005, 0.002, 0.005); err != nil {
		t.Fatal(err)
	}
	h := slices.Clone(sim.LiveHeights(nil))
	for y := range cols.Ny {
		for x := range 6 {
			lo, _ := cols.Cell(x, y)
			h[lo] = 0.007
		}
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	return sim
}

// checkHeldBalance: Volume = added - removed - Outflow + Exchanged, to 1e-12 of scale.
func checkHeldBalance(t *testing.T, sim *Sim, scale float64, when string) {
	t.Helper()
	added, removed, _ := sim.Accounting()
	want := added - removed - sim.Outflow() + sim.Exchanged()
	if v := sim.Volume(); math.Abs(v-want) > 1e-12*scale {
		t.Fatalf("%s: volume %.17g, the books say %.17g (%.3g relative)", when, v, want, (v-want)/scale)
	}
}

// TestHoldLetGoSameBits: holding columns and letting them go at once moves the Sim to the
// general layout and changes nothing else: a wave runs the same bits as without (on the
// dense layout), the vector kernels' and the Go loops', and Exchanged is back at 0. With
// surface tension (the capillary pressure and the contact line: the wave's tank half
// filled, its edge on dry floor), held mid-run, so that the layout's change carries the
// capillary head's last pass (its heights and wetted flags).
func TestHoldLetGoSameBits(t *testing.T) {
	t.Parallel()
	t.Run("no tension", func(t *testing.T) { holdLetGo(t, settings(0, 1e-6, 2), false) })
	t.Run("tension", func(t *testing.T) {
		st := settings(0, 1e-6, 2)
		st.SurfaceTension, st.CapillaryPressure = 0.072, true
		holdLetGo(t, st, true)
	})
}

func holdLetGo(t *testing.T, st Settings, edge bool) {
	t.Parallel()
	run := func(o backendOptions, hold bool) []float32 {
		sim := waveTank(t, st, o)
		if edge { // the last third of the tank dry: a contact line
			h := slices.Clone(sim.LiveHeights(nil))
			for y := range sim.Columns().Ny {
				for x := 20; x < sim.Columns().Nx; x++ {
					lo, _ := sim.Columns().Cell(x, y)
					h[lo] = float32(sim.Floor(lo))
				}
			}
			mustDo(t, sim.SetHeights(h))
		}
		sim.Step(40)
		if hold {
			if err := sim.Hold(heldBlock(sim.Columns(), 12, 2, 20, 6)); err != nil {
				t.Fatal(err)
			}
			if err := sim.Hold(nil); err != nil {
				t.Fatal(err)
			}
			if sim.be.(*cpuBackend).dense != nil {
				t.Fatal("a Sim that held columns is still on the dense layout")
			}
			// Out and back in: the same depths, summed in another order after the steps.
			if e := sim.Exchanged(); math.Abs(e) > 1e-12*sim.Volume() {
				t.Errorf("exchanged %g after holding and letting go", e)
			}
		}
		sim.Step(260)
		return slices.Clone(sim.LiveHeights(nil))
	}
	want := run(backendOptions{}, false)
	for _, c := range []struct {
		name string
		o    backendOptions
	}{{"vector kernels", backendOptions{}}, {"Go kernels", backendOptions{noSIMD: true}}} {
		if got := run(c.o, true); !slices.Equal(got, want) {
			t.Errorf("%s: held and let go, the heights differ from the plain run's", c.name)
		}
	}
}

// TestHoldKeepsLifts: a Sim moved to the general layout by Hold keeps the floors bodies
// lifted elsewhere, and the liquid on them: a lifted tank held in part steps the same
// bits as one on the general layout from the start.
func TestHoldKeepsLifts(t *testing.T) {
	t.Parallel()
	run := func(o backendOptions, hold bool) []float32 {
		sim := waveTank(t, settings(0, 1e-6, 2), o)
		mustDo(t, sim.LiftFloors([]int32{3, 4, 33}, []float32{0.001, 0.002, 0.0005}, sim.LiveHeights(nil)))
		if hold {
			mustDo(t, sim.Hold(heldBlock(sim.Columns(), 12, 2, 20, 6)))
			if f := sim.be.(*cpuBackend).base[4]; f != sim.Floor(4) || f == sim.Columns().Base[4] {
				t.Errorf("the lifted floor of column 4 is %g in the backend, %g in the Sim", f, sim.Floor(4))
			}
			mustDo(t, sim.Hold(nil))
		}
		sim.Step(200)
		return slices.Clone(sim.LiveHeights(nil))
	}
	if !slices.Equal(run(backendOptions{}, true), run(backendOptions{general: true}, false)) {
		t.Error("held and let go, the lifted tank's heights differ from the general layout's")
	}
}

// TestHoldBorderMovesNothing: a tank at rest 5 mm deep whose middle block is held at 3
// mm: the border pipes carry a flux into the held block (from the head difference) and
// move nothing, so every free column keeps its height to the bit, the held ones keep
// the heights written, and the free volume holds; the same with the Go loops.
func TestHoldBorderMovesNothing(t *testing.T) {
	t.Parallel()
	for _, o := range []backendOptions{{}, {noSIMD: true}} {
		cols := flatFloor(t, 30, 8)
		sim := newSimWith(t, cols, settings(0, 1e-6, 2), o)
		if _, err := sim.Fill(0.0005, 0.0005, 0.002, 0.005); err != nil {
			t.Fatal(err)
		}
		held := heldBlock(cols, 10, 2, 20, 6)
		if err := sim.Hold(held); err != nil {
			t.Fatal(err)
		}
		v0 := sim.Volume()
		want := 0.004 * float64(30*8-len(held)) * 1e-6
		if math.Abs(v0-want) > 1e-6*want {
			t.Errorf("free volume %g, want %g", v0, want)
		}
		out := 0.004 * float64(len(held)) * 1e-6
		if e := sim.Exchanged(); math.Abs(e+out) > 1e-6*out {
			t.Errorf("exchanged %g, want %g (the held columns' liquid out)", e, -out)
		}
		h0 := slices.Clone(sim.LiveHeights(nil))
		hs := make([]float64, len(held))
		for k := range hs {
			hs[k] = 0.003
		}
		inner, border := sim.HeldPipes()
		if len(border) != 2*10+2*4 || len(inner) != 9*4+10*3 {
			t.Fatalf("%d border and %d inner pipes, want 28 and 66", len(border), len(inner))
		}
		for range 50 {
			if err := sim.SetHeld(hs, make([]float32, len(inner))); err != nil {
				t.Fatal(err)
			}
			sim.Step(1)
		}
		h := slices.Clone(sim.LiveHeights(nil))
		for i := range h {
			if slices.Contains(held, i) {
				if h[i] != 0.003 {
					t.Errorf("held column %d at %g, written 0.003", i, h[i])
				}
			} else if h[i] != h0[i] {
				t.Errorf("free column %d moved from %g to %g", i, h0[i], h[i])
			}
		}
		f := sim.PipeFluxes(border, nil)
		for k, p := range border {
			a, _ := sim.Pipe(p)
			into := f[k]
			if slices.Contains(held, a) {
				into = -into
			}
			if !(into > 0) {
				t.Errorf("border pipe %d carries %g into the held block, want > 0", p, into)
			}
		}
		if v := sim.Volume(); v != v0 {
			t.Errorf("free volume %.17g, was %.17g", v, v0)
		}
		checkHeldBalance(t, sim, v0, "after 50 steps")
	}
}

// TestHoldExchange: what a holder moves is booked exactly: liquid moved into and out of
// free columns (Move, once below a column's floor: it owes the rest and repays it), a
// parcel released over the free columns lands in them, one released over the held block
// lands there and comes back out (TakeLanded) with its volume; Volume = added - removed -
// Outflow + Exchanged to 1e-12 after every step, and the same bits for 1 and 3 workers.
func TestHoldExchange(t *testing.T) {
	t.Parallel()
	run := func(workers int) ([]float32, []Particle, float64) {
		st := settings(0, 1e-6, workers)
		st.Falling = FallingParticles
		sim := waveTank(t, st, backendOptions{})
		v0 := sim.Volume()
		held := heldBlock(sim.Columns(), 12, 2, 20, 6)
		if err := sim.Hold(held); err != nil {
			t.Fatal(err)
		}
		hs := sim.Levels(held, nil)
		var landed []Particle
		var gave float64
		for k := range 200 {
			if err := sim.SetHeld(hs, nil); err != nil {
				t.Fatal(err)
			}
			sim.Step(1)
			switch k {
			case 10:
				mustDo(t, sim.Move(3, 2e-9))
				mustDo(t, sim.Move(200, -1e-9))
			case 20: // a column gives what it holds and 0.1 um over its area more: it owes that
				c := heldBlock(sim.Columns(), 25, 1, 26, 2)[0]
				l := sim.Levels([]int{c}, nil)[0]
				mustDo(t, sim.Move(c, -((l-0.001)*1e-6+1e-13)))
				if l := sim.Levels([]int{c}, nil)[0]; !(l < 0.001) {
					t.Errorf("column %d at %g after taking more than it held, want below its floor", c, l)
				}
			case 30:
				mustDo(t, sim.Release(0.0155, 0.0045, 0.012, 3e-9, 0.01, 0, 0)) // over the held block
				mustDo(t, sim.Release(0.0045, 0.0045, 0.012, 2e-9, 0, 0, 0))    // over free columns
				gave += 5e-9
			}
			got := sim.TakeLanded(nil)
			for _, p := range got {
				gave -= p.Volume
			}
			landed = append(landed, got...)
			checkHeldBalance(t, sim, v0, fmt.Sprint("step ", k))
		}
		if len(landed) != 1 || landed[0].Volume != 3e-9 {
			t.Errorf("landed on the held block: %v, want one parcel of 3e-9 m^3", landed)
		}
		if len(landed) > 0 && !(landed[0].X >= 0.012 && landed[0].X < 0.020 && landed[0].Y >= 0.002 && landed[0].Y < 0.006) {
			t.Errorf("the parcel landed at (%g, %g), outside the held block", landed[0].X, landed[0].Y)
		}
		if n := len(sim.Particles(nil)); n != 0 {
			t.Errorf("%d parcels still in the air", n)
		}
		return slices.Clone(sim.LiveHeights(nil)), landed, gave
	}
	h1, l1, g1 := run(1)
	h3, l3, g3 := run(3)
	if !slices.Equal(h1, h3) || !slices.Equal(l1, l3) || g1 != g3 {
		t.Error("1 and 3 workers differ")
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestHoldRefused: what cannot be held, and what a held column refuses, are errors that
// name why, and change nothing.
func TestHoldRefused(t *testing.T) {
	t.Parallel()
	cols := flatFloor(t, 12, 6)
	block := heldBlock(cols, 4, 2, 8, 4)
	mk := func(edit func(*Settings)) *Sim {
		st := settings(0, 1e-6, 1)
		edit(&st)
		sim := newSim(t, cols, st)
		if _, err := sim.Fill(0.0005, 0.0005, 0.002, 0.004); err != nil {
			t.Fatal(err)
		}
		return sim
	}
	for _, c := range []struct {
		name string
		edit func(*Settings)
		cols []int
		want string
	}{
		{"outside", func(*Settings) {}, []int{-1}, "outside"},
		{"twice", func(*Settings) {}, []int{3, 3}, "twice"},
		{"swe", func(s *Settings) { s.Method = MethodSWE }, block, "pipes only"},
		{"open side", func(s *Settings) { s.Sides[SideMinusX] = SideOpen }, heldBlock(cols, 0, 2, 3, 4), "open side"},
	} {
		sim := mk(c.edit)
		if err := sim.Hold(c.cols); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
		if sim.Held() != nil {
			t.Errorf("%s: refused, yet columns are held", c.name)
		}
	}
	sim := mk(func(*Settings) {})
	if _, err := sim.AddEmitter(Emitter{X: 0.0055, Y: 0.0025, Z: 0.002, Rate: 1e-9}); err != nil {
		t.Fatal(err)
	}
	if err := sim.Hold(block); err == nil || !strings.Contains(err.Error(), "target") {
		t.Errorf("an emitter's target: %v", err)
	}

	sim = mk(func(*Settings) {})
	mustDo(t, sim.Hold(block))
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"emitter", func() error {
			_, err := sim.AddEmitter(Emitter{X: 0.0055, Y: 0.0025, Z: 0.002, Rate: 1e-9})
			return err
		}(), "held"},
		{"move", sim.Move(block[0], 1e-9), "held"},
		{"move past max", sim.Move(0, 1), "above its max"},
		{"set held length", sim.SetHeld([]float64{0.002}, nil), "heights for"},
		{"set held range", sim.SetHeld(slices.Repeat([]float64{0.5}, len(block)), nil), "outside"},
		{"set held fluxes", sim.SetHeld(slices.Repeat([]float64{0.002}, len(block)), []float32{1}), "fluxes for"},
		{"lift", sim.LiftFloors([]int32{int32(block[0])}, []float32{0.001}, nil), "held"},
		{"swe", sim.Set(settings(0, 1e-6, 1).with(func(s *Settings) { s.Method = MethodSWE })), "held"},
		{"checkpoint version 6", sim.writeCheckpoint(&bytes.Buffer{}, 6), "held, or were (Hold): version 6 cannot save them"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, c.err, c.want)
		}
	}
	if e, out := sim.Exchanged(), 0.003*float64(len(block))*1e-6; math.Abs(e+out) > 1e-6*out {
		t.Errorf("exchanged %g after the refusals, want %g", e, -out)
	}
}

// TestHoldNearCapped: a held column may stand three cells off a capped one (a roof over
// a cell: passages may form there and extended pipes end beside it) and no nearer, on
// the terrain Hold is given and on a new one (SetTerrain); the error names both columns.
func TestHoldNearCapped(t *testing.T) {
	t.Parallel()
	roofed := func(rx int) *terrain.Columns { // 12 x 6, a roof at 4 mm over cell (rx, 3)
		cells := make([][]terrain.Interval, 12*6)
		for i := range cells {
			cells[i] = []terrain.Interval{{Min: 0.001, Base: 0.001, Max: 0.03}}
		}
		cells[3*12+rx] = []terrain.Interval{{Min: 0.001, Base: 0.001, Max: 0.004}, {Min: 0.005, Base: 0.005, Max: 0.03}}
		cols, err := terrain.FromIntervals(12, 6, 0.001, 0.03, 2, cells)
		if err != nil {
			t.Fatal(err)
		}
		return cols
	}
	for _, c := range []struct {
		rx int
		ok bool
	}{{10, true}, {9, false}, {8, false}} {
		cols := roofed(c.rx)
		sim := newSim(t, cols, settings(0, 1e-6, 1))
		err := sim.Hold(heldBlock(cols, 4, 2, 8, 4)) // cells 4 to 7: the roof 3, 2 or 1 cells off
		if c.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "lies under a solid")) {
			t.Errorf("a roof over cell (%d, 3): %v", c.rx, err)
		}
	}
	sim := newSim(t, roofed(10), settings(0, 1e-6, 1))
	mustDo(t, sim.Hold(heldBlock(sim.Columns(), 4, 2, 8, 4)))
	if _, err := sim.SetTerrain(roofed(9)); err == nil || !strings.Contains(err.Error(), "in cell (9, 3) lies under a solid") {
		t.Errorf("a new terrain with the roof two cells off: %v", err)
	}
}

// with returns s changed by edit.
func (s Settings) with(edit func(*Settings)) Settings {
	edit(&s)
	return s
}

// TestPublish: what a holder moves and writes after a step shows in the snapshot once it
// publishes, not before.
func TestPublish(t *testing.T) {
	t.Parallel()
	sim := waveTank(t, settings(0, 1e-6, 1), backendOptions{})
	held := heldBlock(sim.Columns(), 12, 2, 20, 6)
	mustDo(t, sim.Hold(held))
	sim.Step(1)
	hs := sim.Levels(held, nil)
	for k := range hs {
		hs[k] += 1e-4
	}
	mustDo(t, sim.SetHeld(hs, nil))
	mustDo(t, sim.Move(3, 2e-9))
	var before, after Snapshot
	sim.Snapshot(&before)
	sim.Publish()
	sim.Snapshot(&after)
	live := sim.LiveHeights(nil)
	if before.Height[held[0]] == live[held[0]] || before.Height[3] == live[3] {
		t.Errorf("the step's snapshot already shows the writes after it")
	}
	if !slices.Equal(after.Height, live) {
		t.Errorf("after Publish the snapshot's heights are not the live ones")
	}
}

// TestHoldCheckpoint: a checkpoint of a Sim holding columns (version 7) saves which, the
// exchanged volume and a parcel landed on them not yet taken; a fresh Sim (dense layout,
// other settings) that reads it holds the same columns and, driven by the same holder,
// steps on to the same bits: heights, residuals, fluxes, particles, the books, Exchanged
// and what lands. After Hold(nil), the exchanged volume alone is saved. The refusals: a
// reader that holds columns, a held column out of range.
func TestHoldCheckpoint(t *testing.T) {
	t.Parallel()
	st := settings(0, 1e-6, 2)
	st.Falling = FallingParticles
	var hs []float64
	drive := func(sim *Sim, k int) []Particle {
		t.Helper()
		if sim.Held() != nil {
			mustDo(t, sim.SetHeld(hs, nil))
		}
		sim.Step(1)
		switch k {
		case 10:
			mustDo(t, sim.Move(3, 2e-9))
		case 20, 45:
			mustDo(t, sim.Release(0.0155, 0.0045, 0.012, 3e-9, 0.01, 0, 0)) // over the held block
			mustDo(t, sim.Release(0.0045, 0.0045, 0.012, 2e-9, 0, 0, 0))    // over free columns
		}
		if k%7 == 0 { // the landed parcels wait a few steps: some are in the checkpoint
			return sim.TakeLanded(nil)
		}
		return nil
	}
	for _, letGo := range []bool{false, true} {
		a := waveTank(t, st, backendOptions{})
		held := heldBlock(a.Columns(), 12, 2, 20, 6)
		mustDo(t, a.Hold(held))
		hs = a.Levels(held, nil)
		k := 0
		for ; k < 40 || len(a.fall.heldLanded) == 0; k++ {
			drive(a, k)
			if k > 200 {
				t.Fatal("no parcel landed on the held block")
			}
		}
		if letGo {
			mustDo(t, a.Hold(nil))
		}
		data := checkpointOf(t, a)
		b := newSim(t, flatFloor(t, 30, 8), DefaultSettings())
		if err := b.ReadCheckpoint(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Held(), b.Held()) || a.Exchanged() != b.Exchanged() {
			t.Fatalf("let go %v: held %v, exchanged %g; resumed %v, %g", letGo, a.Held(), a.Exchanged(), b.Held(), b.Exchanged())
		}
		ai, ab := a.HeldPipes()
		bi, bb := b.HeldPipes()
		if !slices.Equal(ai, bi) || !slices.Equal(ab, bb) {
			t.Fatal("the held pipes differ")
		}
		if !reflect.DeepEqual(decodeAll(t, checkpointOf(t, b)), decodeAll(t, data)) { // but Workers and Backend
			t.Fatalf("let go %v: the resumed Sim's checkpoint differs from the one it read", letGo)
		}
		for m := 0; m < 60; m, k = m+1, k+1 {
			la, lb := drive(a, k), drive(b, k)
			if !slices.Equal(la, lb) {
				t.Fatalf("let go %v, step %d: landed %v, resumed %v", letGo, k, la, lb)
			}
			ckSame(t, fmt.Sprint("let go ", letGo, ", step ", k), ckRead(a), ckRead(b))
			if math.Float64bits(a.Exchanged()) != math.Float64bits(b.Exchanged()) {
				t.Fatalf("step %d: exchanged %g, resumed %g", k, a.Exchanged(), b.Exchanged())
			}
		}
		t.Logf("let go %v: %d bytes, exchanged %g m^3 at the end", letGo, len(data), a.Exchanged())
		if letGo {
			continue
		}
		// A reader that holds columns refuses; a held column out of range is corrupt.
		mustDo(t, b.Hold(held[:2]))
		if err := b.ReadCheckpoint(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "let them go") {
			t.Errorf("a reader holding columns: %v", err)
		}
		cp := decodeAll(t, data)
		bad := slices.Clone(data)
		// The held list follows the method byte (the pipes: no face depths): find it by
		// its count and first column, and put a column out of range there.
		var pat []byte
		pat = binary.LittleEndian.AppendUint64(pat, uint64(len(cp.held)))
		pat = binary.LittleEndian.AppendUint32(pat, uint32(cp.held[0]))
		at := bytes.LastIndex(bad, pat)
		if at < 0 {
			t.Fatal("the held list is not in the checkpoint")
		}
		binary.LittleEndian.PutUint32(bad[at+8:], 100000)
		c := newSim(t, flatFloor(t, 30, 8), DefaultSettings())
		if err := c.ReadCheckpoint(bytes.NewReader(reCRC(bad))); err == nil || !strings.Contains(err.Error(), "held column 100000") {
			t.Errorf("a held column out of range: %v", err)
		}
		if c.Held() != nil {
			t.Error("the refused read held columns")
		}
	}
}
