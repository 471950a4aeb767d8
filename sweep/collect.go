package sweep

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/vpbench/vpbench/internal/fileout"
)

// Table is a study's results: one row per task, finished or not.
type Table struct {
	Manifest Manifest
	// Columns are the output columns (reported.* expanded).
	Columns []string
	Rows    []Row
}

// Row is one task's row.
type Row struct {
	Task Task
	// Status is StatusOK, StatusFailed or "missing" (no result yet).
	Status  string
	Error   string
	Outputs map[string]float64
	WallS   float64
	Host    string
	// Pictures are the task's pictures, relative to the folder (Result.Pictures).
	Pictures []string
}

// StatusMissing is a task with no result.
const StatusMissing = "missing"

// Collect reads a study folder's results into a table, outputs taken afresh from each
// task's report (the manifest's outputs: the study's when it last ran or was submitted).
func Collect(dir Folder) (*Table, error) {
	m, err := dir.Manifest()
	if err != nil {
		return nil, fmt.Errorf("%s is not a study folder (no plan.json: made by vpbench sweep run, slurm, k8s or task): %w", string(dir), err)
	}
	var results []Result
	byIndex := map[int]Result{}
	for _, t := range m.Tasks {
		r, ok, err := dir.Result(t.Index, m.Plan)
		if err != nil {
			return nil, err
		}
		if ok {
			r.Outputs = Extract(m.Outputs, r.Report, r.Reported)
			results = append(results, r)
			byIndex[t.Index] = r
		}
	}
	tab := &Table{Manifest: m, Columns: OutputColumns(m.Outputs, results)}
	for _, t := range m.Tasks {
		row := Row{Task: t, Status: StatusMissing}
		if r, ok := byIndex[t.Index]; ok {
			row.Status, row.Error, row.Outputs, row.WallS, row.Host = r.Status, r.Error, r.Outputs, r.WallS, r.Host
			row.Pictures = r.Pictures
		}
		tab.Rows = append(tab.Rows, row)
	}
	return tab, nil
}

// Counts are the rows by status.
func (t *Table) Counts() (ok, failed, missing int) {
	for _, r := range t.Rows {
		switch r.Status {
		case StatusOK:
			ok++
		case StatusFailed:
			failed++
		default:
			missing++
		}
	}
	return
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// WriteCSV writes the table: index, repeat, every parameter, status, the outputs, error.
// Wall times and hosts are in the JSON only: the CSV of a study is the same whoever ran
// it, with however many jobs, when its outputs are (timings are not).
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := append([]string{"index", "repeat"}, t.Manifest.Params...)
	head = append(head, "status")
	head = append(head, t.Columns...)
	head = append(head, "error")
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		rec := []string{strconv.Itoa(r.Task.Index), strconv.Itoa(r.Task.Repeat)}
		pm := r.Task.ParamMap()
		for _, p := range t.Manifest.Params {
			rec = append(rec, pm[p])
		}
		rec = append(rec, r.Status)
		for _, c := range t.Columns {
			if v, ok := r.Outputs[c]; ok {
				rec = append(rec, fmtNum(v))
			} else {
				rec = append(rec, "")
			}
		}
		rec = append(rec, r.Error)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonRow is a row of results.json.
type jsonRow struct {
	Index   int                `json:"index"`
	Repeat  int                `json:"repeat"`
	Params  map[string]string  `json:"params"`
	Status  string             `json:"status"`
	Outputs map[string]float64 `json:"outputs,omitempty"`
	Error   string             `json:"error,omitempty"`
	WallS   float64            `json:"wall_s,omitempty"`
	Host    string             `json:"host,omitempty"`
}

// Write writes results.csv, results.json, a plot of each output against each swept
// numeric parameter (plots/OUTPUT_vs_PARAM.png) and summary.md into the folder; it
// returns the files written.
func (t *Table) Write(dir Folder) ([]string, error) {
	var files []string
	csvPath := filepath.Join(string(dir), "results.csv")
	if err := fileout.Write(csvPath, t.WriteCSV); err != nil {
		return files, err
	}
	files = append(files, csvPath)
	rows := make([]jsonRow, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = jsonRow{r.Task.Index, r.Task.Repeat, r.Task.ParamMap(), r.Status, r.Outputs, r.Error, r.WallS, r.Host}
	}
	jsonPath := filepath.Join(string(dir), "results.json")
	if err := writeJSONFile(jsonPath, map[string]any{"study": t.Manifest.Study, "plan": t.Manifest.Plan,
		"scenario": t.Manifest.Scenario, "until": t.Manifest.Until, "outputs": t.Columns, "tasks": rows}); err != nil {
		return files, err
	}
	files = append(files, jsonPath)
	plots, err := t.plots(dir)
	files = append(files, plots...)
	if err != nil {
		return files, err
	}
	mdPath := filepath.Join(string(dir), "summary.md")
	if err := fileout.Write(mdPath, func(w io.Writer) error { return t.writeSummary(w, dir, plots) }); err != nil {
		return files, err
	}
	return append(files, mdPath), nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// plots draws each output against each swept parameter whose values are all numbers:
// a point per finished task, and a line through the means over the repeats, one line per
// combination of the other swept parameters. A parameter spanning two decades or more,
// all above 0, gets a log axis.
func (t *Table) plots(dir Folder) ([]string, error) {
	var files []string
	for _, param := range t.Manifest.Swept {
		xs := map[int]float64{}
		numeric := true
		for _, r := range t.Rows {
			v, err := strconv.ParseFloat(r.Task.ParamMap()[param], 64)
			if err != nil {
				numeric = false
				break
			}
			xs[r.Task.Index] = v
		}
		if !numeric {
			continue
		}
		for _, out := range t.Columns {
			groups := map[string]map[float64][]float64{}
			var keys []string
			var all plotter.XYs
			for _, r := range t.Rows {
				y, ok := r.Outputs[out]
				if r.Status != StatusOK || !ok {
					continue
				}
				var other []string
				for _, p := range t.Manifest.Swept {
					if p != param {
						other = append(other, p+"="+r.Task.ParamMap()[p])
					}
				}
				k := strings.Join(other, " ")
				if groups[k] == nil {
					groups[k] = map[float64][]float64{}
					keys = append(keys, k)
				}
				groups[k][xs[r.Task.Index]] = append(groups[k][xs[r.Task.Index]], y)
				all = append(all, plotter.XY{X: xs[r.Task.Index], Y: y})
			}
			if len(all) == 0 {
				continue
			}
			p := plot.New()
			p.Title.Text = fmt.Sprintf("%s against %s", out, param)
			p.X.Label.Text = param
			p.Y.Label.Text = out
			// A log axis; where the values include 0 (nu = 0, an ideal liquid), the zeros
			// stand apart, a decade below the smallest value, labelled 0, off the lines.
			zero, logX := logAxis(all)
			if logX {
				p.X.Scale = plot.LogScale{}
				p.X.Tick.Marker = zeroLogTicks{zero: zero}
				for i := range all {
					if all[i].X == 0 {
						all[i].X = zero
					}
				}
			}
			sc, err := plotter.NewScatter(all)
			if err != nil {
				return files, err
			}
			p.Add(sc, plotter.NewGrid())
			for i, k := range keys {
				var line plotter.XYs
				for x, ys := range groups[k] {
					if logX && x == 0 {
						continue // the zero's points stand apart (above)
					}
					sum := 0.0
					for _, y := range ys {
						sum += y
					}
					line = append(line, plotter.XY{X: x, Y: sum / float64(len(ys))})
				}
				sort.Slice(line, func(a, b int) bool { return line[a].X < line[b].X })
				l, err := plotter.NewLine(line)
				if err != nil {
					return files, err
				}
				l.Color = plotColor(i)
				p.Add(l)
				if k != "" {
					p.Legend.Add(k, l)
				}
			}
			name := fmt.Sprintf("%s_vs_%s.png", unsafeName.ReplaceAllString(out, "_"), unsafeName.ReplaceAllString(param, "_"))
			path := filepath.Join(string(dir), "plots", name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return files, err
			}
			if err := p.Save(6*vg.Inch, 4*vg.Inch, path); err != nil {
				return files, fmt.Errorf("plot %s: %w", path, err)
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// logAxis says whether x gets a log axis: its values above 0 span two decades or more,
// and none is below 0. Where some are 0, zero is where they are drawn: a decade below the
// smallest value above 0 (0 otherwise).
func logAxis(pts plotter.XYs) (zero float64, ok bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	zeros := false
	for _, p := range pts {
		switch {
		case p.X < 0:
			return 0, false
		case p.X == 0:
			zeros = true
		default:
			lo, hi = min(lo, p.X), max(hi, p.X)
		}
	}
	if math.IsInf(lo, 1) || hi/lo < 100 {
		return 0, false
	}
	if zeros {
		zero = lo / 10
	}
	return zero, true
}

// zeroLogTicks are a log axis's ticks with, when zero > 0, a tick labelled 0 at zero
// (where logAxis draws the zeros) and none between it and the next decade.
type zeroLogTicks struct{ zero float64 }

func (z zeroLogTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" { // 1e-05, not the power's float noise 9.999999999999999e-06
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 3, 64)
		}
	}
	if z.zero <= 0 {
		return ticks
	}
	out := []plot.Tick{{Value: z.zero, Label: "0"}}
	for _, t := range ticks {
		if t.Value >= z.zero*10*(1-1e-9) {
			out = append(out, t)
		}
	}
	return out
}

// writeSummary writes summary.md: the study, the counts, the table, what failed or is
// missing and why, and the plots.
func (t *Table) writeSummary(w io.Writer, dir Folder, plots []string) error {
	m := t.Manifest
	ok, failed, missing := t.Counts()
	fmt.Fprintf(w, "# Study %s\n\n", filepath.Base(m.Study))
	fmt.Fprintf(w, "- study: `%s` (plan %s)\n- scenario: `%s`, until %g s, mode %s, %d repeat(s)\n", m.Study, m.Plan, m.Scenario, m.Until, m.Mode, m.Repeats)
	fmt.Fprintf(w, "- tasks: %d: %d ok, %d failed, %d missing\n\n", len(t.Rows), ok, failed, missing)
	head := append([]string{"task"}, m.Swept...)
	head = append(head, "status")
	head = append(head, t.Columns...)
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat(" --- |", len(head)))
	for _, r := range t.Rows {
		cells := []string{strconv.Itoa(r.Task.Index)}
		pm := r.Task.ParamMap()
		for _, p := range m.Swept {
			cells = append(cells, pm[p])
		}
		cells = append(cells, r.Status)
		for _, c := range t.Columns {
			if v, ok := r.Outputs[c]; ok {
				cells = append(cells, strconv.FormatFloat(v, 'g', 6, 64))
			} else {
				cells = append(cells, "")
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	if failed+missing > 0 {
		fmt.Fprintf(w, "\n## Failed and missing tasks\n\n")
		for _, r := range t.Rows {
			switch r.Status {
			case StatusFailed:
				fmt.Fprintf(w, "- task %d (%s): failed: %s\n", r.Task.Index, label(m, r.Task), oneLine(r.Error))
			case StatusMissing:
				fmt.Fprintf(w, "- task %d (%s): missing: no result in %s (not run yet, running, or cut off: `vpbench sweep run` or a resubmission runs it)\n",
					r.Task.Index, label(m, r.Task), filepath.Join("tasks", filepath.Base(dir.ResultPath(r.Task.Index))))
			}
		}
	}
	pictures := false
	for _, r := range t.Rows {
		pictures = pictures || len(r.Pictures) > 0
	}
	if pictures {
		fmt.Fprintf(w, "\n## Pictures\n\n")
		for _, r := range t.Rows {
			if len(r.Pictures) == 0 {
				continue
			}
			fmt.Fprintf(w, "task %d (%s):\n\n", r.Task.Index, label(m, r.Task))
			for _, p := range r.Pictures {
				fmt.Fprintf(w, "![task %d, %s](%s)\n", r.Task.Index, strings.TrimSuffix(filepath.Base(p), ".png"), filepath.ToSlash(p))
			}
			fmt.Fprintln(w)
		}
	}
	if len(plots) > 0 {
		fmt.Fprintf(w, "\n## Plots\n\n")
		for _, p := range plots {
			rel, err := filepath.Rel(string(dir), p)
			if err != nil {
				rel = p
			}
			fmt.Fprintf(w, "![%s](%s)\n", strings.TrimSuffix(filepath.Base(p), ".png"), filepath.ToSlash(rel))
		}
	}
	return nil
}

// label is a task's swept parameters from the manifest.
func label(m Manifest, t Task) string {
	var parts []string
	pm := t.ParamMap()
	for _, p := range m.Swept {
		parts = append(parts, p+"="+pm[p])
	}
	if m.Repeats > 1 {
		parts = append(parts, fmt.Sprintf("#%d", t.Repeat+1))
	}
	if len(parts) == 0 {
		return "no swept parameter"
	}
	return strings.Join(parts, " ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// plotColor is the i-th line's colour (gonum's plotutil palette).
func plotColor(i int) color.Color { return plotutil.Color(i) }
