package liquid3d

import (
	"flag"
	"fmt"
	"math"
	"strings"
	"testing"
)

var (
	collapseCells = flag.Int("liquid3d.cells", 0, "TestCollapse: cells across the column (0: 32, 16 with -short)")
	collapseNu    = flag.Float64("liquid3d.nu", 0, "TestCollapse: the liquid's kinematic viscosity, m^2/s, with no slip at the walls (0: inviscid, free slip)")
)

type collapseRun struct {
	T, Z []float64 // every sample
	at   [3]float64
	sub  int
	it   int
}

// collapse releases a column a wide and 2a tall at the -x end of a box 5a long and 2.5a
// tall, cells across a thin in y (2 cells, walls: the 2D case), water of viscosity nu
// with no slip at the walls (nu = 0: inviscid, free slip).
func collapse(t testing.TB, cells int, nu float64, workers int) collapseRun {
	const a, g = 0.025, 9.81
	h := a / float64(cells)
	set := DefaultSettings(5*cells, 2, 5*cells/2, h)
	set.Workers = workers
	if nu > 0 {
		set.Viscosity = nu
		set.NoSlip = true
	}
	s := newSim(t, set)
	fillBox(t, s, v3(0, 0, 0), v3(a, 2*h, 2*a), v3(0, 0, 0))
	scale := math.Sqrt(2 * g / a) // T = t scale
	var r collapseRun
	for i := 1; i <= 70; i++ {
		T := 0.05 * float64(i)
		st := step(t, s, T/scale-s.Time())
		r.sub += st.Substeps
		r.it += st.Iterations
		z := SurgeFront(s) / a
		r.T, r.Z = append(r.T, T), append(r.Z, z)
		for k, want := range []float64{1, 2, 3} {
			if math.Abs(T-want) < 1e-9 {
				r.at[k] = z
			}
		}
	}
	checkVolume(t, s)
	return r
}

// TestCollapse: the surge front of a collapsing column (inviscid, free slip) against
// Martin and Moyce's measurements. The simulated front leads the measured one, as every
// simulation of an instant release does (their column was let go by removing a
// diaphragm, which took time; and the real front is slowed by the floor's friction and
// blunted by surface tension, which the model lacks: docs/method.md, "The 3D region"):
// the test holds the lead to what the model gives (at most 20%, 15% and 12% at T = 1,
// 2 and 3, and never behind by more than 5%) and the front's speed between T = 2 and 3,
// which a late start does not change, within 10% of the measured. 32 cells across the
// column; 16 with -short. -liquid3d.cells and -liquid3d.nu change the resolution and
// the viscosity (with no slip).
func TestCollapse(t *testing.T) {
	cells := 32
	if testing.Short() {
		cells = 16
	}
	if *collapseCells > 0 {
		cells = *collapseCells
	}
	r := collapse(t, cells, *collapseNu, 0)
	var b strings.Builder
	for i := range r.T {
		if i%4 == 3 {
			fmt.Fprintf(&b, " T=%.2f Z=%.3f (MM %.3f);", r.T[i], r.Z[i], MartinMoyceAt(r.T[i]))
		}
	}
	t.Logf("%d cells across a, viscosity %g: %d substeps, %.1f CG iterations a substep;%s", cells, *collapseNu, r.sub, float64(r.it)/float64(r.sub), b.String())
	for k, T := range []float64{1, 2, 3} {
		want := MartinMoyceAt(T)
		lead := r.at[k]/want - 1
		t.Logf("T = %g: Z = %.3f, Martin and Moyce %.3f (%+.1f%%)", T, r.at[k], want, 100*lead)
		if lim := [3]float64{0.20, 0.15, 0.12}[k]; lead > lim || lead < -0.05 {
			t.Errorf("T = %g: Z = %.3f, Martin and Moyce %.3f: %+.1f%%, want -5%% to %+.0f%%", T, r.at[k], want, 100*lead, 100*lim)
		}
	}
	speed, want := r.at[2]-r.at[1], MartinMoyceAt(3)-MartinMoyceAt(2)
	t.Logf("dZ/dT between T = 2 and 3: %.3f, Martin and Moyce %.3f (%+.1f%%)", speed, want, 100*(speed/want-1))
	if math.Abs(speed/want-1) > 0.10 {
		t.Errorf("the front's speed between T = 2 and 3 is %.3f, Martin and Moyce's %.3f: more than 10%% apart", speed, want)
	}
}

// TestMartinMoyce: Martin and Moyce's curve as MartinMoyce gives it: their points in
// increasing T, a copy, and MartinMoyceAt through its points.
func TestMartinMoyce(t *testing.T) {
	mm := MartinMoyce()
	if len(mm) != 15 || mm[0] != [2]float64{0.41, 1.11} || mm[14] != [2]float64{3.33, 4.11} {
		t.Fatalf("MartinMoyce() = %v", mm)
	}
	for i, p := range mm {
		if i > 0 && !(p[0] > mm[i-1][0] && p[1] > mm[i-1][1]) {
			t.Errorf("point %d %v does not follow %v", i, p, mm[i-1])
		}
		if got := MartinMoyceAt(p[0]); math.Abs(got-p[1]) > 1e-12 {
			t.Errorf("MartinMoyceAt(%g) = %g, want %g", p[0], got, p[1])
		}
	}
	mm[0][1] = 99
	if MartinMoyce()[0][1] != 1.11 {
		t.Error("MartinMoyce() hands out its own table")
	}
	if got := MartinMoyceAt(1); math.Abs(got-(1.22+0.16/0.35*0.22)) > 1e-12 {
		t.Errorf("MartinMoyceAt(1) = %g", got)
	}
}
