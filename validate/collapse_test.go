package validate

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/liquid3d"
)

// TestCollapseShort: the short collapse passes what it counts (the front's speed between T
// = 2 and 3 within 10% of Martin and Moyce's, the volume exact to 1e-9), marks the 10% at
// T = 1, 2 and 3 open and holds the front to what the model gives there (a lead of at most
// 20%, 15% and 12%, as liquid3d's TestCollapse does), starts at Z = 1, and gives the same
// bits on 1 and 3 workers.
func TestCollapseShort(t *testing.T) {
	cs, err := Select([]string{"collapse"})
	if err != nil {
		t.Fatal(err)
	}
	var outs [2]Outcome
	for k, w := range []int{1, 3} {
		got := Run(context.Background(), cs, Options{Short: true, Workers: w, Methods: []gpusim.Method{gpusim.MethodSWE}}, nil)
		if len(got) != 1 {
			t.Fatalf("%d workers: %d outcomes, want 1", w, len(got))
		}
		outs[k] = got[0]
	}
	oc := outs[0]
	var b strings.Builder
	WriteRows(&b, oc)
	t.Log("\n" + b.String())
	if oc.Err != nil || oc.Method != "-" {
		t.Fatalf("collapse: method %q, error %v", oc.Method, oc.Err)
	}
	if len(oc.Results) != 5 {
		t.Fatalf("%d results, want 5", len(oc.Results))
	}
	for k, r := range oc.Results {
		if r.ExpectPass && !r.Pass {
			t.Errorf("%s: measured %g, expected %g: error %.2f%% > %.2f%%", r.Quantity, r.Measured, r.Expected, 100*r.RelErr, 100*r.Tolerance)
		}
		if k < 3 {
			lead := r.Measured/r.Expected - 1
			if !r.Open || r.ExpectPass {
				t.Errorf("%s: not marked open", r.Quantity)
			}
			if lim := [3]float64{0.20, 0.15, 0.12}[k]; !(lead <= lim && lead >= -0.05) {
				t.Errorf("%s: %.3f against %.3f: %+.1f%%, want -5%% to %+.0f%%", r.Quantity, r.Measured, r.Expected, 100*lead, 100*lim)
			}
		} else if r.Open || !r.ExpectPass {
			t.Errorf("%s: not counted", r.Quantity)
		}
	}
	if oc.Plot == nil || len(oc.Plot.Series) != 2 {
		t.Fatal("no plot of the front and Martin and Moyce's curve")
	}
	z := oc.Plot.Series[0]
	if len(z.X) != collapseSamples+1 || z.X[0] != 0 || math.Abs(z.Y[0]-1) > 1e-9 {
		t.Errorf("the front's curve: %d samples from T = %g, Z = %g; want %d from T = 0, Z = 1", len(z.X), z.X[0], z.Y[0], collapseSamples+1)
	}
	if len(oc.Plot.Series[1].X) != len(liquid3d.MartinMoyce()) {
		t.Errorf("Martin and Moyce's curve has %d points, want %d", len(oc.Plot.Series[1].X), len(liquid3d.MartinMoyce()))
	}
	for i, r := range outs[1].Results {
		if r.Measured != oc.Results[i].Measured {
			t.Errorf("%s: %v on 1 worker, %v on 3", r.Quantity, oc.Results[i].Measured, r.Measured)
		}
	}
	for i, y := range outs[1].Plot.Series[0].Y {
		if y != z.Y[i] {
			t.Errorf("T = %g: Z = %v on 1 worker, %v on 3", z.X[i], z.Y[i], y)
			break
		}
	}
}
