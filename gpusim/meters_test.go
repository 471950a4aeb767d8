package gpusim

import (
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// flatFloor is nx x ny cells of dx 1 mm with a flat floor 1 mm up, one column a cell up
// to 30 mm.
func flatFloor(t *testing.T, nx, ny int) *terrain.Columns {
	t.Helper()
	cells := make([][]terrain.Interval, nx*ny)
	for i := range cells {
		cells[i] = []terrain.Interval{{Min: 0.001, Base: 0.001, Max: 0.03}}
	}
	cols, err := terrain.FromIntervals(nx, ny, 0.001, 0.03, 1, cells)
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// channel is a 60 x 10 cell channel of dx 1 mm, flat, open at +x, water 3 mm deep, with a
// 2 ml/s source over its first cells.
func channel(t *testing.T, workers int) *Sim {
	t.Helper()
	const ny, dx = 10, 0.001
	cols := flatFloor(t, 60, ny)
	st := DefaultSettings()
	st.Workers = workers
	st.Sides[SidePlusX] = SideOpen
	sim := newSim(t, cols, st)
	if _, err := sim.Fill(dx/2, dx/2, 0.0015, 0.004); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.AddEmitter(Emitter{X: 2 * dx, Y: ny * dx / 2, Z: 0.002, Radius: 0.004, Rate: 2e-6, Stop: math.Inf(1)}); err != nil {
		t.Fatal(err)
	}
	return sim
}

// TestFlowMeter: a meter across a channel fed 2 ml/s reads the source's rate once the
// flow is steady (within 1%); its total and the volume upstream of it balance what the
// source added to rounding at every step; the reversed segment reads the opposite; the
// same bits with 1 and 3 workers.
func TestFlowMeter(t *testing.T) {
	var totals [2]float64
	for k, workers := range []int{1, 3} {
		sim := channel(t, workers)
		mid := 0.030 // between the centres of cells 29 and 30
		// Looking from y = 0 towards y = 10 mm, -x is on the left: downstream is positive.
		id, err := sim.AddMeter(Meter{X1: mid, Y1: 0, X2: mid, Y2: 0.010, Zmin: math.Inf(-1), Zmax: math.Inf(1)})
		if err != nil {
			t.Fatal(err)
		}
		back, err := sim.AddMeter(Meter{X1: mid, Y1: 0.010, X2: mid, Y2: 0, Zmin: math.Inf(-1), Zmax: math.Inf(1)})
		if err != nil {
			t.Fatal(err)
		}
		c := sim.Columns()
		upstream := func() float64 { // liquid in the cells left of the meter, m^3
			h := sim.LiveHeights(nil)
			r := make([]float32, len(h))
			sim.be.readResidual(r)
			var v float64
			for y := range c.Ny {
				for x := range 30 {
					lo, _ := c.Cell(x, y)
					v += float64(h[lo]) - float64(c.Base[lo]) + float64(r[lo])
				}
			}
			return v * c.Dx * c.Dx
		}
		v0 := upstream()
		added0, _, _ := sim.Accounting() // the fill
		for step := 0; sim.Time() < 3; step++ {
			sim.Step(7)
			added, _, _ := sim.Accounting()
			total, _ := sim.MeterTotal(id)
			if d := upstream() - (v0 + added - added0 - total); math.Abs(d) > 1e-12 {
				t.Fatalf("t = %.3f s: upstream %g m^3 off its balance (added %g, through the meter %g)", sim.Time(), d, added, total)
			}
		}
		rate, _ := sim.MeterRate(id)
		if math.Abs(rate-2e-6) > 0.01*2e-6 {
			t.Errorf("steady, the meter reads %.4g ml/s, the source pours 2", rate*1e6)
		}
		rb, _ := sim.MeterRate(back)
		tb, _ := sim.MeterTotal(back)
		total, _ := sim.MeterTotal(id)
		if rb != -rate || tb != -total {
			t.Errorf("the reversed meter reads %g (total %g), the meter %g (total %g)", rb, tb, rate, total)
		}
		totals[k] = total
		t.Logf("workers %d: %.4f ml/s, %.4f ml through in 3 s", workers, rate*1e6, total*1e6)
	}
	if totals[0] != totals[1] {
		t.Errorf("the totals differ with 1 and 3 workers: %v, %v", totals[0], totals[1])
	}
}

// TestFlowMeterErrors: bad meters are refused naming the problem.
func TestFlowMeterErrors(t *testing.T) {
	sim := channel(t, 1)
	inf := math.Inf(1)
	for _, c := range []struct {
		m    Meter
		want string
	}{
		{Meter{X1: 0.01, Y1: 0.01, X2: 0.01, Y2: 0.01, Zmin: -inf, Zmax: inf}, "same point"},
		{Meter{X1: 0.01, Y1: 0, X2: 0.01, Y2: 0.5, Zmin: -inf, Zmax: inf}, "outside the domain"},
		{Meter{X1: math.NaN(), Y1: 0, X2: 0.01, Y2: 0.01, Zmin: -inf, Zmax: inf}, "finite number"},
		{Meter{X1: 0.0305, Y1: 0, X2: 0.0305, Y2: 0.01, Zmin: 0.05, Zmax: 0.06}, "no pipe"},
		{Meter{X1: 0.0305, Y1: 0, X2: 0.0305, Y2: 0.01, Zmin: 0.02, Zmax: 0.01}, "empty"},
		{Meter{X1: 0.0301, Y1: 0.0051, X2: 0.0302, Y2: 0.0052, Zmin: -inf, Zmax: inf}, "no pipe"},
	} {
		if _, err := sim.AddMeter(c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.m, err, c.want)
		}
	}
	if _, err := sim.MeterRate(5); err == nil {
		t.Error("MeterRate of a meter never made: no error")
	}
}

// TestHeldLevel: a source holding 5 mm over a 40 x 10 mm basin while a sink at its other
// end drains 1 ml/s keeps its columns within a millimetre of the level (it adds what
// flows away, up to its 3 ml/s); over liquid standing higher it adds nothing; the
// accounting stays exact.
func TestHeldLevel(t *testing.T) {
	cols := flatFloor(t, 40, 10)
	st := DefaultSettings()
	st.Workers = 2
	sim := newSim(t, cols, st)
	const level = 0.006 // 5 mm over the floor
	if _, err := sim.AddEmitter(Emitter{X: 0.003, Y: 0.005, Z: 0.002, Radius: 0.003, Rate: 3e-6, Stop: math.Inf(1), Holds: true, Level: level}); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.AddEmitter(Emitter{X: 0.037, Y: 0.005, Z: 0.002, Radius: 0.002, Rate: -1e-6, Stop: math.Inf(1)}); err != nil {
		t.Fatal(err)
	}
	lo, _ := cols.Cell(3, 5)
	worst := 0.0
	for sim.Time() < 6 {
		sim.Step(10)
		if sim.Time() > 3 {
			worst = max(worst, math.Abs(float64(sim.LiveHeights(nil)[lo])-level))
		}
	}
	if worst > 0.001 {
		t.Errorf("the held column strays %.3g mm from its level", worst*1e3)
	}
	added, removed, _ := sim.Accounting()
	if v := sim.Volume(); math.Abs(v-(added-removed)) > 1e-12 {
		t.Errorf("volume %g, added - removed %g", v, added-removed)
	}
	if removed < 2e-6 {
		t.Errorf("the sink took %.3g ml in 6 s: it did not drain", removed*1e6)
	}
	// Over liquid standing higher than its level, it adds nothing.
	if _, err := sim.Fill(0.02, 0.005, 0.002, 0.008); err != nil {
		t.Fatal(err)
	}
	a0, _, _ := sim.Accounting()
	sim.Step(5)
	if a1, _, _ := sim.Accounting(); a1 != a0 {
		t.Errorf("over liquid above its level the source added %g m^3", a1-a0)
	}
	t.Logf("held within %.3f mm; drained %.3f ml", worst*1e3, removed*1e6)
	for _, bad := range []Emitter{
		{X: 0.01, Y: 0.005, Z: 0.002, Rate: 1e-6, Holds: true, Level: math.NaN()},
		{X: 0.01, Y: 0.005, Z: 0.01, Rate: 1e-6, Holds: true, Level: level, Falls: true},
	} {
		if _, err := sim.AddEmitter(bad); err == nil || !strings.Contains(err.Error(), "level") {
			t.Errorf("%+v: %v, want an error about the level", bad, err)
		}
	}
}
