package validate

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// TableHeader is the header of the table WriteRows prints.
const TableHeader = "case            method  quantity                                     measured     expected      error   tol  pass"

// WriteRows prints one line per result of an outcome: case, method, quantity, measured,
// expected (or its bound), relative error, tolerance and pass ("ok", "FAIL", "fail (a known
// gap)" for a target the case marks open, or "fail (not expected to pass)" for a result not
// expected to pass), then the case's wall time.
func WriteRows(w io.Writer, oc Outcome) {
	for _, r := range oc.Results {
		fmt.Fprintf(w, "%-15s %-7s %-40s %12s %12s %9s %5s  %s\n", r.Case, r.Method, trim(r.Quantity, 40),
			num(r.Measured), expected(r), pct(r.RelErr), pct(r.Tolerance), passWord(r))
	}
	if oc.Err != nil {
		fmt.Fprintf(w, "%-15s %-7s error: %v\n", oc.Case, oc.Method, oc.Err)
	}
	fmt.Fprintf(w, "%-15s %-7s (%.1f s)\n", oc.Case, oc.Method, oc.Elapsed.Seconds())
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "~"
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.5g", v)
}

// expected is a result's expected value, with its bound when it is one ("<= 0.005").
func expected(r Result) string {
	if r.Limit != "" {
		return r.Limit + " " + num(r.Expected)
	}
	return num(r.Expected)
}

func pct(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func passWord(r Result) string {
	switch {
	case r.Pass:
		return "ok"
	case r.ExpectPass:
		return "FAIL"
	case r.Open:
		return "fail (a known gap)"
	}
	return "fail (not expected to pass)"
}

// PlotFile is the name of an outcome's plot: <case>_<method>.png ("-" becomes "all").
func PlotFile(oc Outcome) string {
	m := oc.Method
	if m == "-" {
		m = "all"
	}
	return oc.Case + "_" + m + ".png"
}

// CheckDir makes dir (and its parents) and checks that a file can be written in it.
func CheckDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".validate-*")
	if err != nil {
		return fmt.Errorf("--out %s: cannot write there: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// WritePlot saves an outcome's plot as dir/PlotFile(oc); nothing when it has none.
func WritePlot(dir string, oc Outcome) error {
	if oc.Plot == nil {
		return nil
	}
	p := plot.New()
	p.Title.Text = oc.Plot.Title
	p.X.Label.Text = oc.Plot.XLabel
	p.Y.Label.Text = oc.Plot.YLabel
	p.Legend.Top = !oc.Plot.LegendBottom
	p.Add(plotter.NewGrid())
	colour := -1
	for _, s := range oc.Plot.Series {
		if len(s.X) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(s.X))
		for k := range s.X {
			if !math.IsNaN(s.Y[k]) && !math.IsInf(s.Y[k], 0) && !math.IsNaN(s.X[k]) {
				pts = append(pts, plotter.XY{X: s.X[k], Y: s.Y[k]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		if !s.Analytic || colour < 0 {
			colour++
		}
		l.Color = plotutil.Color(colour)
		l.Width = vg.Points(1.2)
		if s.Analytic {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			l.Width = vg.Points(1)
		}
		p.Add(l)
		p.Legend.Add(s.Label, l)
	}
	path := filepath.Join(dir, PlotFile(oc))
	if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}

// WriteReport writes dir/report.md: the table, each case's set-up and notes, and the
// plots (written beside it by WritePlot).
func WriteReport(dir string, outs []Outcome, o Options, total time.Duration) error {
	var b strings.Builder
	mode := "full size"
	if o.Short {
		mode = "short (--short)"
	}
	fmt.Fprintf(&b, "# vpbench validation report\n\n")
	fmt.Fprintf(&b, "Run %s, %s, in %.1f s. Each row is a measured number against its analytic value; the error is "+
		"relative to the scale the case names (docs/validation.md). **%s**.\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		mode, total.Seconds(), verdict(outs))
	b.WriteString("| case | method | quantity | measured | expected | error | tolerance | pass |\n|---|---|---|---|---|---|---|---|\n")
	for _, oc := range outs {
		for _, r := range oc.Results {
			unit := ""
			if r.Unit != "" {
				unit = " " + r.Unit
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s%s | %s%s | %s | %s | %s |\n", r.Case, r.Method, r.Quantity,
				num(r.Measured), unit, expected(r), unit, pct(r.RelErr), pct(r.Tolerance), passWord(r))
		}
	}
	fmt.Fprintf(&b, "\n%s\n", PipesNote)
	seen := map[string]bool{}
	for _, oc := range outs {
		if !seen[oc.Case] {
			seen[oc.Case] = true
			title := oc.Case
			for _, c := range Cases() {
				if c.Name == oc.Case {
					title = c.Name + ": " + c.Title
				}
			}
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", title, oc.Setup)
			for _, n := range oc.Notes {
				fmt.Fprintf(&b, "\n%s\n", n)
			}
		}
		fmt.Fprintf(&b, "\n### %s, method %s (%.1f s)\n\n", oc.Case, oc.Method, oc.Elapsed.Seconds())
		if oc.Err != nil {
			fmt.Fprintf(&b, "Error: %v\n\n", oc.Err)
		}
		if oc.Plot != nil {
			fmt.Fprintf(&b, "![%s](%s)\n", oc.Plot.Title, PlotFile(oc))
		}
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(b.String()), 0o644)
}

func verdict(outs []Outcome) string {
	if OK(outs) {
		return "Every result expected to pass passed"
	}
	return "Failed: " + strings.Join(Failures(outs), ", ")
}
