package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/engine"
)

// tlScript pours and reports its own volume every 0.1 s, and a name that appears late.
const tlScript = `
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, layers = 1, workers = 1, dt = 1e-3 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0.2, 0, 1} })
sim:source{ at = {0.01, 0.01, 0.008}, radius = 0.002, rate = 1e-6, stop = 0.4 }
local n = 0
sim:every(0.1, function(t) n = n + 1 sim:report{ vol = sim:volume(), n = n } end)
sim:at(0.3, function() sim:report{ late = 7 } end)
`

// tlRow is a timeline row as read back: the fixed columns and the reports (absent: not
// reported yet).
type tlRow struct {
	fixed  map[string]float64
	report map[string]float64
}

func readTimelineCSV(t *testing.T, path string) ([]string, []tlRow) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := recs[0]
	var rows []tlRow
	for _, rec := range recs[1:] {
		r := tlRow{map[string]float64{}, map[string]float64{}}
		for i, c := range rec {
			if c == "" {
				continue
			}
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				t.Fatalf("column %s: %v", header[i], err)
			}
			if name, ok := strings.CutPrefix(header[i], "report."); ok {
				r.report[name] = v
			} else {
				r.fixed[header[i]] = v
			}
		}
		rows = append(rows, r)
	}
	return header, rows
}

func readTimelineJSONL(t *testing.T, path string) []tlRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []tlRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		r := tlRow{map[string]float64{}, map[string]float64{}}
		for _, c := range engine.TimelineColumns {
			v, ok := m[c]
			if !ok {
				t.Fatalf("row %q lacks %s", sc.Text(), c)
			}
			if v != nil {
				r.fixed[c] = v.(float64)
			}
		}
		for k, v := range m["report"].(map[string]any) {
			r.report[k] = v.(float64)
		}
		if len(m) != len(engine.TimelineColumns)+1 {
			t.Errorf("row %q: %d keys, want %d", sc.Text(), len(m), len(engine.TimelineColumns)+1)
		}
		rows = append(rows, r)
	}
	return rows
}

// checkTimeline checks the rows of a run to 0.5 s at every 0.1 s against the script's
// reports and the final report.
func checkTimeline(t *testing.T, rows []tlRow, rep runReport, every float64) {
	t.Helper()
	want := int(math.Round(0.5/every)) + 1
	if len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	for i, r := range rows {
		tt := r.fixed["time_s"]
		if math.Abs(tt-float64(i)*every) > 1.5e-3 { // the first step boundary at or after
			t.Errorf("row %d at t = %g, want %g", i, tt, float64(i)*every)
		}
		if i == 0 {
			if r.fixed["steps"] != 0 || r.fixed["frames"] != 0 || len(r.report) != 0 {
				t.Errorf("row 0: %v %v", r.fixed, r.report)
			}
			if _, ok := r.fixed["sim_ms"]; ok {
				t.Errorf("row 0 has a sim_ms with no frame")
			}
			continue
		}
		if r.fixed["frames"] < 1 || r.fixed["sim_ms"] < 0 {
			t.Errorf("row %d: frames %g, sim_ms %g", i, r.fixed["frames"], r.fixed["sim_ms"])
		}
		if every == 0.1 {
			// The script reported its volume at this very time: the same figure.
			if v, ok := r.report["vol"]; !ok || v != r.fixed["volume_m3"] || r.report["n"] != float64(i) {
				t.Errorf("row %d: volume %.17g, reported vol %.17g n %g", i, r.fixed["volume_m3"], v, r.report["n"])
			}
		}
		_, late := r.report["late"]
		if late != (tt >= 0.3-1e-9) || late && r.report["late"] != 7 {
			t.Errorf("row %d at %g: late %v %g", i, tt, late, r.report["late"])
		}
	}
	last := rows[len(rows)-1].fixed
	if math.Abs(last["volume_m3"]*1e6-rep.VolumeMl) > 1e-9*math.Max(1, rep.VolumeMl) || int64(last["steps"]) != rep.Steps ||
		int(last["wet_columns"]) != rep.Wet || math.Abs(last["added_m3"]*1e6-rep.AddedMl) > 1e-9 {
		t.Errorf("last row %v, final report volume %g ml added %g ml steps %d wet %d", last, rep.VolumeMl, rep.AddedMl, rep.Steps, rep.Wet)
	}
	if last["volume_m3"] <= rows[1].fixed["volume_m3"] {
		t.Errorf("the pour does not show: %v", rows)
	}
}

// TestRunTimeline: --timeline writes a row at the load and every 0.1 s (or
// --timeline-every), in CSV (report.NAME columns, empty before a name's first report)
// and JSON lines, with volumes equal to what the script saw at those times and to the
// final report.
func TestRunTimeline(t *testing.T) {
	path := writeScript(t, "pour.lua", tlScript)
	dir := t.TempDir()
	for _, tc := range []struct {
		file  string
		every string
	}{{"tl.csv", ""}, {"sub/tl.jsonl", ""}, {"e.csv", "0.25"}} {
		tl, js := filepath.Join(dir, tc.file), filepath.Join(dir, tc.file+".json")
		args := []string{"run", "--headless", "--until", "0.5", "--timeline", tl, "--json", js}
		every := 0.1
		if tc.every != "" {
			args = append(args, "--timeline-every", tc.every)
			every, _ = strconv.ParseFloat(tc.every, 64)
		}
		code, out, errOut := runCLI(t, append(args, path)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		rep := readReport(t, js)
		var rows []tlRow
		if strings.HasSuffix(tc.file, ".csv") {
			var header []string
			header, rows = readTimelineCSV(t, tl)
			want := strings.Join(engine.TimelineColumns, ",") + ",report.n,report.vol,report.late"
			if strings.Join(header, ",") != want {
				t.Errorf("header %v\nwant %s", header, want)
			}
		} else {
			rows = readTimelineJSONL(t, tl)
		}
		t.Logf("%s: %d rows, last %v %v", tc.file, len(rows), rows[len(rows)-1].fixed, rows[len(rows)-1].report)
		checkTimeline(t, rows, rep, every)
	}
}

// TestRunTimelineErrors: a bad sim:report stops the run with an error naming the key (the
// rows so far are written); bad flags are usage errors.
func TestRunTimelineErrors(t *testing.T) {
	dir := t.TempDir()
	for key, bad := range map[string]string{"flow": `"fast"`, "level": "0/0", "depth": "1/0"} {
		src := tlScript + "sim:at(0.2, function() sim:report{ ok = 1, " + key + " = " + bad + " } end)\n"
		path := writeScript(t, "bad.lua", src)
		tl := filepath.Join(dir, key+".csv")
		code, out, errOut := runCLI(t, "run", "--headless", "--until", "0.5", "--timeline", tl, path)
		if code != exitRun || !strings.Contains(errOut+out, "sim:report") || !strings.Contains(errOut+out, key) {
			t.Errorf("%s = %s: exit %d\n%s\n%s", key, bad, code, out, errOut)
		}
		_, rows := readTimelineCSV(t, tl)
		if n := len(rows); n < 3 {
			t.Errorf("%s: %d rows before the error, want 3 (0, 0.1, 0.2)", key, n)
		}
		if _, ok := rows[len(rows)-1].report["ok"]; ok {
			t.Errorf("%s: a refused report recorded ok", key)
		}
	}
	path := writeScript(t, "pour.lua", tlScript)
	for _, args := range [][]string{
		{"--timeline", filepath.Join(dir, "x.txt")},
		{"--timeline", filepath.Join(dir, "x.csv"), "--timeline-every", "0"},
		{"--timeline", filepath.Join(dir, "x.csv"), "--timeline-every", "-1"},
		{"--timeline-every", "0.2"},
	} {
		code, _, errOut := runCLI(t, append(append([]string{"run", "--headless", "--until", "0.1"}, args...), path)...)
		if code != exitUsage || !strings.Contains(errOut, "timeline") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}
