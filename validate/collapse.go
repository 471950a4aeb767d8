package validate

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/liquid3d"
	"github.com/vpbench/vpbench/terrain"
)

// The collapse of a water column (Martin and Moyce, 1952, n^2 = 2): a column a wide and
// 2a tall at rest against the -x wall of a box 5a long and 2.5a tall, 2 cells thick in y
// between walls (the 2D case), released at t = 0 and simulated whole by the 3D region
// (package liquid3d). A heightfield alone cannot follow it: the shallow water equations
// run the front out far ahead, towards their dry-bed speed (Z = 2.54 at T = 1.08, where
// Martin and Moyce measured 1.37), since the column is anything but shallow as it falls.
const (
	collapseA          = 0.025 // the column's width a, m
	collapseCells      = 32    // cells across a
	collapseShortCells = 16    // with Options.Short
	collapseDT         = 0.05  // the front is sampled every collapseDT in T
	collapseSamples    = 70    // to T = 3.5 (Z about 4.7 of the box's 5)
	collapseTol        = 0.10  // the target: Z within 10% at T = 1, 2 and 3
)

// CollapseRun is the collapse's front: Z = x / a at every T = t sqrt(2 g / a) sampled
// (from 0, collapseDT apart), and the run's volume error and effort.
type CollapseRun struct {
	Cells       int // across a
	T, Z        []float64
	VolumeError float64 // |volume + out - added| / added at the end
	Particles   int
	Substeps    int
	Iterations  int // the conjugate gradient's, over the substeps
}

// At is Z at the sample T (within 1e-9), NaN when there is none.
func (r *CollapseRun) At(T float64) float64 {
	for i, t := range r.T {
		if math.Abs(t-T) < 1e-9 {
			return r.Z[i]
		}
	}
	return math.NaN()
}

// Collapse runs the column with the given cells across a, inviscid, free slip, on the
// given workers (the same bits for any number).
func Collapse(cells, workers int) (*CollapseRun, error) {
	const a = collapseA
	h := a / float64(cells)
	set := liquid3d.DefaultSettings(5*cells, 2, 5*cells/2, h)
	set.Gravity = Gravity
	set.Workers = workers
	s, err := liquid3d.New(set)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if _, _, err := s.FillBox(terrain.Vec3{}, terrain.Vec3{X: a, Y: 2 * h, Z: 2 * a}, terrain.Vec3{}); err != nil {
		return nil, err
	}
	r := &CollapseRun{Cells: cells, Particles: s.Count(), T: []float64{0}, Z: []float64{liquid3d.SurgeFront(s) / a}}
	scale := math.Sqrt(2 * Gravity / a) // T = t scale
	for i := 1; i <= collapseSamples; i++ {
		T := collapseDT * float64(i)
		if err := s.Step(T/scale - s.Time()); err != nil {
			return nil, fmt.Errorf("T = %.2f: %w", T, err)
		}
		st := s.LastStats()
		r.Substeps += st.Substeps
		r.Iterations += st.Iterations
		r.T, r.Z = append(r.T, T), append(r.Z, liquid3d.SurgeFront(s)/a)
	}
	added, out := s.Accounting()
	r.VolumeError = math.Abs(s.Volume()+out-added) / added
	return r, nil
}

func runCollapse(o Options, _ gpusim.Method) Outcome {
	cells := collapseCells
	if o.Short {
		cells = collapseShortCells
	}
	oc := Outcome{Setup: fmt.Sprintf("Martin and Moyce's collapse of a water column (1952, n^2 = 2): a column a = %g mm "+
		"wide and 2a tall at rest against the -x wall of a box 5a long and 2.5a tall, 2 cells thick in y between walls "+
		"(the 2D case), released at t = 0 and simulated whole by the 3D region (package liquid3d: a MAC grid with APIC "+
		"particles, 8 a cell) with %d cells across a (%d x 2 x %d cells), inviscid, free slip; the surge front "+
		"Z = x / a against T = t sqrt(2 g / a).", collapseA*1e3, cells, 5*cells, 5*cells/2)}
	r, err := Collapse(cells, o.Workers)
	if err != nil {
		oc.Err = err
		return oc
	}
	for _, T := range []float64{1, 2, 3} {
		// Open: the model's front leads the measured one by 18%, 14% and 11% at any
		// resolution (docs/validation.md, "collapse").
		oc.Results = append(oc.Results, Result{Quantity: fmt.Sprintf("front Z = x/a at T = %g", T), Measured: r.At(T),
			Expected: liquid3d.MartinMoyceAt(T), Tolerance: collapseTol, Open: true})
	}
	oc.Results = append(oc.Results,
		Result{Quantity: "front speed dZ/dT, T = 2 to 3", Measured: r.At(3) - r.At(2),
			Expected: liquid3d.MartinMoyceAt(3) - liquid3d.MartinMoyceAt(2), Tolerance: collapseTol},
		Result{Quantity: "volume's relative error", Measured: r.VolumeError, Expected: 1e-9, Limit: AtMost})
	oc.Notes = append(oc.Notes,
		"The front is the farthest particle in the lowest layer of cells plus a quarter cell (the edge of the volume "+
			"it stands for), over a; Martin and Moyce's curve is interpolated linearly between their points. The "+
			"targets at T = 1, 2 and 3 (10% of their Z) are open: the model's column is let go at once, theirs by "+
			"removing a diaphragm, which took time, and the real front is slowed by the floor's friction and blunted by "+
			"surface tension, which the model lacks; its front leads theirs by about 18%, 14% and 11% at any resolution "+
			"from 16 to 64 cells across a. The front's speed between T = 2 and 3, which a late start does not change, "+
			"is a target. A heightfield alone is far further off: the shallow water equations run the front out far "+
			"ahead, towards their dry-bed speed, Z = 2.54 at T = 1.08 where Martin and Moyce measured 1.37.",
		fmt.Sprintf("%d particles; %d substeps, %.1f conjugate gradient iterations a substep.", r.Particles, r.Substeps,
			float64(r.Iterations)/float64(max(r.Substeps, 1))))
	mm := liquid3d.MartinMoyce()
	mx, my := make([]float64, len(mm)), make([]float64, len(mm))
	for i, p := range mm {
		mx[i], my[i] = p[0], p[1]
	}
	oc.Plot = &Plot{Title: "Collapse of a water column (n^2 = 2)", XLabel: "T = t sqrt(2 g / a)", YLabel: "Z = x / a",
		LegendBottom: true, Series: []Series{
			{Label: fmt.Sprintf("3D region, %d cells across a", cells), X: r.T, Y: r.Z},
			{Label: "Martin and Moyce (1952)", X: mx, Y: my, Analytic: true}}}
	return oc
}
