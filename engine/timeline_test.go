package engine

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vpbench/vpbench/script"
)

// TestTimelineCSVWrittenAtCancel: a headless run that never ends by itself, stopped by
// its context (Ctrl-C), still writes its CSV: a row every 0.05 s and the last state.
func TestTimelineCSVWrittenAtCancel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.lua")
	writeFile(t, path, small+"sim:every(0.05, function(t) sim:report{ v = sim:volume() } end)\n")
	tl := filepath.Join(dir, "out", "tl.csv")
	p := &probe{}
	r := New(Config{Path: path, Script: script.Options{Workers: 1}, Speed: Speed{Max: true}, Headless: true, NoMap: true,
		Timeline: Timeline{Path: tl, Every: 0.05}}, p.send)
	ctx, cancel := context.WithCancel(context.Background())
	go r.Run(ctx)
	p.waitState(t, "t >= 0.3", func(s State) bool { return s.Time >= 0.3 })
	if _, err := os.Stat(tl); err == nil {
		t.Errorf("the CSV exists before the run ends")
	}
	cancel()
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the runner did not stop")
	}
	res := r.Result()
	if res.Timeline != nil {
		t.Fatal(res.Timeline)
	}
	f, err := os.Open(tl)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != strings.Join(TimelineColumns, ",")+",report.v" {
		t.Errorf("header %s", got)
	}
	if len(recs) < 8 { // the header, t = 0, 0.05 ... 0.3
		t.Fatalf("%d records", len(recs))
	}
	last := recs[len(recs)-1]
	if want := strconv.FormatFloat(res.State.Volume, 'g', -1, 64); last[2] != want || last[len(last)-1] == "" {
		t.Errorf("last row %v, final volume %s", last, want)
	}
}

// TestTimelineJSONLAcrossReload: in the UI, a reload's rows follow in the same JSON
// lines file, starting again at its time 0; quitting closes the file.
func TestTimelineJSONLAcrossReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.lua")
	writeFile(t, path, small)
	tl := filepath.Join(dir, "tl.jsonl")
	r, p := startRunner(t, Config{Path: path, Speed: Speed{Max: true}, Timeline: Timeline{Path: tl}})
	p.waitState(t, "t >= 0.25", func(s State) bool { return s.Time >= 0.25 })
	r.Commands() <- Command{Kind: CmdReload}
	n0 := -1
	p.waitState(t, "the reload at t >= 0.15", func(s State) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		if n0 < 0 && strings.Count(p.logText(), "loaded in") >= 2 {
			n0 = p.states // the states after this one are the new run's
		}
		return n0 >= 0 && p.states > n0+1 && s.Time >= 0.15
	})
	r.Commands() <- Command{Kind: CmdQuit}
	<-r.Done()
	f, err := os.Open(tl)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var times []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct {
			Time float64 `json:"time_s"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		times = append(times, row.Time)
	}
	zeros := 0
	for i, tt := range times {
		if tt == 0 {
			zeros++
		} else if i > 0 && tt <= times[i-1] {
			t.Errorf("row %d at %g after %g", i, tt, times[i-1])
		}
	}
	if zeros != 2 || len(times) < 6 {
		t.Errorf("times %v: want two runs from 0", times)
	}
}

// TestTimelineTimeWithoutNoise: a row's time, a sum of steps, is written without its
// rounding noise (0.10200000000000001 is 0.102), and two steps a microsecond apart stay
// apart.
func TestTimelineTimeWithoutNoise(t *testing.T) {
	for _, c := range []struct {
		t    float64
		want string
	}{{0.10200000000000001, "0.102"}, {3 * 0.1, "0.3"}, {12.000001, "12.000001"}, {0, "0"}} {
		if got := (timelineRow{Time: c.t}).cells()[0]; got != c.want {
			t.Errorf("time %v written %q, want %q", c.t, got, c.want)
		}
	}
}
