package engine

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vpbench/vpbench/internal/fileout"
	"github.com/vpbench/vpbench/script"
)

// The timeline: a row of the run's figures every Timeline.Every simulated seconds (a row
// at the load, one at the first frame end at or after each multiple of Every, and one at
// the end of the run), with the latest values the script handed over through sim:report.
//
// Two formats, chosen by the file's extension:
//
//   - JSON lines (.jsonl): streamed, one complete line a row written as the row is made,
//     so that a run that is killed keeps every row before it and the file can be followed
//     while the run goes on. Each row carries the reports as an object ("report": {...}),
//     so a name reported late is no problem.
//   - CSV (.csv): a CSV header cannot grow once written, and sim:report's names may
//     appear at any time, so the rows are kept in memory and the file is written once,
//     atomically (internal/fileout), when the run ends: at its end, on a script error, at
//     Ctrl-C (the context's end) and, in the UI, at quit. Its columns are the fixed ones
//     and then report.NAME for every name reported during the run, in the order first
//     reported; a row before a name's first report leaves its cell empty. A run killed
//     outright (SIGKILL, a crash) writes no CSV: use JSON lines for such runs.
//
// After a reload (the UI) the new run's rows follow in the same file, its time starting
// again at 0.

// DefaultTimelineEvery is the simulated seconds between two timeline rows when
// Timeline.Every is 0.
const DefaultTimelineEvery = 0.1

// Timeline says where the run's time series goes.
type Timeline struct {
	// Path is the file: FILE.csv or FILE.jsonl ("": no timeline).
	Path string
	// Every is the simulated seconds between rows (0: DefaultTimelineEvery).
	Every float64
}

// TimelineColumns are the fixed columns of a timeline row, in order (the CSV header
// before the report.NAME columns; the keys of a JSON line beside "report").
var TimelineColumns = []string{"time_s", "steps", "volume_m3", "added_m3", "removed_m3", "outflow_m3", "rejected_m3",
	"airborne_m3", "particles", "wet_columns", "frames", "sim_ms", "surface_ms"}

// Validate checks the path's extension and the interval.
func (t Timeline) Validate() error {
	if t.Path == "" {
		return nil
	}
	if timelineFormat(t.Path) == "" {
		return fmt.Errorf("--timeline %q: the file must end in .csv or .jsonl (JSON lines)", t.Path)
	}
	if math.IsNaN(t.Every) || math.IsInf(t.Every, 0) || t.Every < 0 {
		return fmt.Errorf("--timeline-every is %v: it must be a number of simulated seconds > 0", t.Every)
	}
	return nil
}

func timelineFormat(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return "csv"
	case ".jsonl":
		return "jsonl"
	}
	return ""
}

// timelineRow is one row: the state at Time and the frames since the row before.
type timelineRow struct {
	Time                                                float64
	Steps                                               int64
	Volume, Added, Removed, Outflow, Rejected, Airborne float64
	Particles, Wet, Frames                              int
	SimMs, SurfMs                                       float64 // mean ms a frame over the interval; NaN: none
	Report                                              []script.Reported
}

// cells are the row's fixed columns as text ("" for an undefined mean).
func (r timelineRow) cells() []string {
	f := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	// The time is a sum of steps: 12 significant digits drop its rounding noise
	// (0.10200000000000001 is 0.102) and keep every step apart.
	tm := strconv.FormatFloat(r.Time, 'g', 12, 64)
	return []string{tm, i(r.Steps), f(r.Volume), f(r.Added), f(r.Removed), f(r.Outflow), f(r.Rejected),
		f(r.Airborne), i(int64(r.Particles)), i(int64(r.Wet)), i(int64(r.Frames)), f(r.SimMs), f(r.SurfMs)}
}

// timeline is the runner's part that keeps the time series: when the next row is due,
// the frames' timings since the last row, and the file. It is fed each frame's figures
// (frame); the runner hands it the rows (row) when it says one is due.
type timeline struct {
	cfg     Timeline
	every   float64
	base    float64 // the load's simulated time
	k       int     // rows due so far since the load: the next is at base + (k+1) every
	last    float64 // the time of the last row (NaN: none since the load)
	frames  int
	sim     time.Duration
	surfN   int
	surf    time.Duration
	w       timelineWriter
	err     error // the first write error: the timeline stops there
	started bool
}

type timelineWriter interface {
	write(r timelineRow) error
	close() error
}

func newTimeline(cfg Timeline) *timeline {
	if cfg.Path == "" {
		return nil
	}
	tl := &timeline{cfg: cfg, every: cfg.Every}
	if tl.every <= 0 {
		tl.every = DefaultTimelineEvery
	}
	if timelineFormat(cfg.Path) == "csv" {
		tl.w = &csvTimeline{path: cfg.Path}
	} else {
		tl.w = &jsonlTimeline{path: cfg.Path}
	}
	return tl
}

// loaded starts the rows of a (re)loaded scenario at simulated time t: a row is due now.
func (tl *timeline) loaded(t float64) {
	tl.base, tl.k, tl.last = t, 0, math.NaN()
	tl.frames, tl.sim, tl.surfN, tl.surf = 0, 0, 0, 0
}

// frame adds a frame's timings and says whether a row is due at its end.
func (tl *timeline) frame(f frameDone) (due bool) {
	if f.Steps > 0 {
		tl.frames++
		tl.sim += f.Sim
		if f.Surf > 0 {
			tl.surfN++
			tl.surf += f.Surf
		}
	}
	if f.Time < tl.base+float64(tl.k+1)*tl.every-1e-9 {
		return false
	}
	for tl.base+float64(tl.k+1)*tl.every <= f.Time+1e-9 {
		tl.k++
	}
	return true
}

// endDue says whether the run's end at t needs its last row (none was written at t).
func (tl *timeline) endDue(t float64) bool { return math.IsNaN(tl.last) || t > tl.last }

// row writes row (the state now) with the frames' mean timings since the last row. After
// a write error it writes nothing more; the error is returned once, to be logged.
func (tl *timeline) row(row timelineRow) error {
	row.Frames, row.SimMs, row.SurfMs = tl.frames, math.NaN(), math.NaN()
	if tl.frames > 0 {
		row.SimMs = tl.sim.Seconds() * 1e3 / float64(tl.frames)
	}
	if tl.surfN > 0 {
		row.SurfMs = tl.surf.Seconds() * 1e3 / float64(tl.surfN)
	}
	tl.frames, tl.sim, tl.surfN, tl.surf = 0, 0, 0, 0
	tl.last = row.Time
	if tl.err != nil {
		return nil
	}
	if err := tl.w.write(row); err != nil {
		tl.err = fmt.Errorf("timeline: %w (no more rows are written)", err)
		return tl.err
	}
	return nil
}

// close writes (CSV) or closes (JSON lines) the file and returns the timeline's first
// error: a row's or the file's.
func (tl *timeline) close() error {
	if err := tl.w.close(); err != nil && tl.err == nil {
		tl.err = fmt.Errorf("timeline: %w", err)
	}
	return tl.err
}

// The runner's side: it feeds the timeline and hands it the rows.

// timelineLoaded starts the rows of a (re)loaded scenario: a row at its time now.
func (r *Runner) timelineLoaded() {
	if r.tl == nil || r.sc == nil {
		return
	}
	r.tl.loaded(r.scene.Time())
	r.timelineRow()
}

// timelineFrame feeds the timeline a frame and writes the row when one is due.
func (r *Runner) timelineFrame(f frameDone) {
	if r.tl != nil && r.sc != nil && r.tl.frame(f) {
		r.timelineRow()
	}
}

// timelineEnd writes the run's last row (unless a row was written at its time).
func (r *Runner) timelineEnd() {
	if r.tl != nil && r.sc != nil && r.tl.endDue(r.scene.Time()) {
		r.timelineRow()
	}
}

// closeTimeline ends the file; its error, if any, is in the log and the Result.
func (r *Runner) closeTimeline() {
	if r.tl == nil {
		return
	}
	before := r.tl.err
	if err := r.tl.close(); err != nil && before == nil {
		r.out.logf(LogError, "%v", err)
	}
	r.result.Timeline = r.tl.err
}

// timelineRow writes the row of the state now: the scene's figures and the reports.
func (r *Runner) timelineRow() {
	r.scene.Sync()
	sn := r.scene.Snapshot()
	row := timelineRow{Time: sn.Time, Steps: sn.Steps, Volume: sn.Volume, Added: sn.Added, Removed: sn.Removed,
		Outflow: sn.Outflow, Rejected: sn.Rejected, Airborne: sn.Airborne, Particles: len(sn.Particles), Wet: sn.Wet,
		Report: r.sc.Reported()}
	if err := r.tl.row(row); err != nil {
		r.out.logf(LogError, "%v", err)
	}
}

// jsonlTimeline streams JSON lines: the file is made at the first row, and every row is
// written whole, in one write, as it comes.
type jsonlTimeline struct {
	path string
	f    *os.File
	buf  bytes.Buffer
}

func (j *jsonlTimeline) write(r timelineRow) error {
	if j.f == nil {
		if err := os.MkdirAll(filepath.Dir(j.path), 0o755); err != nil {
			return err
		}
		f, err := os.Create(j.path)
		if err != nil {
			return err
		}
		j.f = f
	}
	j.buf.Reset()
	j.buf.WriteByte('{')
	for i, c := range r.cells() {
		if c == "" {
			c = "null"
		}
		fmt.Fprintf(&j.buf, "%q:%s,", TimelineColumns[i], c)
	}
	rep := make(map[string]float64, len(r.Report))
	for _, p := range r.Report {
		rep[p.Name] = p.Value
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	j.buf.WriteString(`"report":`)
	j.buf.Write(b)
	j.buf.WriteString("}\n")
	_, err = j.f.Write(j.buf.Bytes())
	return err
}

func (j *jsonlTimeline) close() error {
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// csvTimeline keeps the rows and writes the file at close (see the top of this file).
type csvTimeline struct {
	path  string
	rows  []timelineRow
	names []string // every report name, in the order first reported
	seen  map[string]bool
}

func (c *csvTimeline) write(r timelineRow) error {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	for _, p := range r.Report {
		if !c.seen[p.Name] {
			c.seen[p.Name] = true
			c.names = append(c.names, p.Name)
		}
	}
	c.rows = append(c.rows, r)
	return nil
}

func (c *csvTimeline) close() error {
	if len(c.rows) == 0 {
		return nil
	}
	rows := c.rows
	c.rows = nil
	return fileout.Write(c.path, func(w io.Writer) error { return writeTimelineCSV(w, rows, c.names) })
}

// writeTimelineCSV writes the header and the rows, with a column for each report name.
func writeTimelineCSV(w io.Writer, rows []timelineRow, names []string) error {
	cw := csv.NewWriter(w)
	header := append([]string(nil), TimelineColumns...)
	for _, n := range names {
		header = append(header, "report."+n)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	col := make(map[string]int, len(names))
	for i, n := range names {
		col[n] = len(TimelineColumns) + i
	}
	for _, r := range rows {
		rec := append(r.cells(), make([]string, len(names))...)
		for _, p := range r.Report {
			rec[col[p.Name]] = strconv.FormatFloat(p.Value, 'g', -1, 64)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
