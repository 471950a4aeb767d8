package sweep

import (
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// TestLogAxisWithZero: values spanning two decades or more get a log axis; with a 0
// among them (nu = 0), the zeros are drawn a decade below the smallest value above 0,
// with a tick labelled 0 there; a negative value, or a narrow span, keeps the axis linear.
func TestLogAxisWithZero(t *testing.T) {
	xy := func(xs ...float64) plotter.XYs {
		var p plotter.XYs
		for _, x := range xs {
			p = append(p, plotter.XY{X: x})
		}
		return p
	}
	for _, c := range []struct {
		xs   []float64
		log  bool
		zero float64
	}{
		{[]float64{0, 4e-6, 4e-5, 4e-4, 4e-3, 0.4}, true, 4e-7},
		{[]float64{4e-6, 4e-3}, true, 0},
		{[]float64{0, 1, 2, 3}, false, 0},
		{[]float64{-1, 1, 1000}, false, 0},
		{[]float64{0}, false, 0},
	} {
		zero, log := logAxis(xy(c.xs...))
		if log != c.log || zero != c.zero {
			t.Errorf("%v: log %v zero %g, want %v %g", c.xs, log, zero, c.log, c.zero)
		}
	}
	ticks := zeroLogTicks{zero: 4e-7}.Ticks(4e-7, 0.4)
	if len(ticks) < 3 || ticks[0].Label != "0" || ticks[0].Value != 4e-7 {
		t.Fatalf("ticks %v: want the first labelled 0 at 4e-7", ticks)
	}
	for _, tk := range ticks[1:] {
		if tk.Value < 4e-6*(1-1e-9) {
			t.Errorf("a tick at %g, between the zero and the next decade", tk.Value)
		}
		if strings.Contains(tk.Label, "999") || strings.Contains(tk.Label, "000000") {
			t.Errorf("tick label %q: float noise", tk.Label)
		}
	}
}
