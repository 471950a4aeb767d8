package tui

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vpbench/vpbench/engine"
)

var updateDoc = flag.Bool("update", false, "rewrite docs/tui.md's key table from keyTable")

const tuiDoc = "../docs/tui.md"

// docKeyRow is keyTable's row as docs/tui.md's key table has it: key, does, help line.
func docKeyRow(r keyRow) string {
	help := "—"
	if r.Help != "" {
		help = "`" + r.Help + " " + r.HelpText + "`"
	}
	return "| " + r.Doc + " | " + r.Does + " | " + help + " |"
}

// docKeyTable finds the key table in the doc's "## Keys" section: its lines and where its
// rows start and end (the header and the separator before them).
func docKeyTable(t *testing.T, lines []string) (start, end int) {
	t.Helper()
	sec := slices.Index(lines, "## Keys")
	if sec < 0 {
		t.Fatalf("%s has no \"## Keys\" section", tuiDoc)
	}
	head := -1
	for i := sec; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "| key |") {
			head = i
			break
		}
	}
	if head < 0 || head+1 >= len(lines) || !strings.HasPrefix(lines[head+1], "| ---") {
		t.Fatalf("%s's Keys section has no table with a \"| key |\" header", tuiDoc)
	}
	start, end = head+2, head+2
	for end < len(lines) && strings.HasPrefix(lines[end], "|") {
		end++
	}
	return start, end
}

// TestKeysDocAgrees: docs/tui.md's key table is keyTable, row for row: the keys, what
// they do and their entry on the help line; every key the doc names is one the row binds.
// `go test ./tui/ -run TestKeysDocAgrees -update` rewrites the doc's table from keyTable.
func TestKeysDocAgrees(t *testing.T) {
	b, err := os.ReadFile(tuiDoc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	start, end := docKeyTable(t, lines)
	rows := keyTable()
	if *updateDoc {
		var table []string
		for _, r := range rows {
			table = append(table, docKeyRow(r))
		}
		out := append(append(slices.Clone(lines[:start]), table...), lines[end:]...)
		if err := os.WriteFile(tuiDoc, []byte(strings.Join(out, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	doc := lines[start:end]
	if len(doc) != len(rows) {
		t.Errorf("%s's key table has %d rows, keyTable %d (go test ./tui/ -run TestKeysDocAgrees -update rewrites it)", tuiDoc, len(doc), len(rows))
	}
	for i := range min(len(doc), len(rows)) {
		if want := docKeyRow(rows[i]); doc[i] != want {
			t.Errorf("%s's key table, row %d:\n  %s\nkeyTable has:\n  %s\n(go test ./tui/ -run TestKeysDocAgrees -update rewrites it)", tuiDoc, i+1, doc[i], want)
		}
	}
	quoted := regexp.MustCompile("`([^`]+)`")
	for _, r := range rows {
		var bound []string
		for _, b := range r.Binds {
			bound = append(bound, b.Keys...)
		}
		for _, m := range quoted.FindAllStringSubmatch(r.Doc, -1) {
			name := m[1]
			if n, ok := docKeyNames[name]; ok {
				name = n
			}
			if !slices.Contains(bound, name) {
				t.Errorf("the doc's key %q (row %s) is not one the row binds (%q)", m[1], r.Doc, bound)
			}
		}
		if r.Help != "" && !strings.Contains(r.Doc, "`"+strings.Split(r.Help, "/")[0]+"`") {
			t.Errorf("row %s: the help line's key %q is not among the doc's keys", r.Doc, r.Help)
		}
	}
	// No key is bound twice.
	seen := map[string]string{}
	for _, r := range rows {
		for _, b := range r.Binds {
			for _, k := range b.Keys {
				if prev, ok := seen[k]; ok {
					t.Errorf("key %q is bound in rows %s and %s", k, prev, r.Doc)
				}
				seen[k] = r.Doc
			}
		}
	}
}

// TestHelpLineIsTheKeyTable: the help line lists every key keyTable puts on it, and no
// other (d, the log's keys), in whole entries, wrapped between keys where the window is
// narrow, at most maxHelpRows rows, none wider than the window.
func TestHelpLineIsTheKeyTable(t *testing.T) {
	for _, w := range []int{80, 100, 200} {
		m, _ := newTestModel(t, w, 40)
		m.Update(knownState())
		rows := helpLines(m.keys, w, maxHelpRows)
		text := stripRows(rows)
		if len(rows) > maxHelpRows {
			t.Errorf("width %d: the help line takes %d rows", w, len(rows))
		}
		for _, it := range helpItems(m.keys) {
			if !strings.Contains(text, it) {
				t.Errorf("width %d: the help line lacks %q:\n%s", w, it, text)
			}
		}
		for _, want := range []string{"t tension", "a/A angle", "W waves", "b bodies", "q quit", "s step"} {
			if !strings.Contains(text, want) {
				t.Errorf("width %d: the help line lacks %q", w, want)
			}
		}
		if regexp.MustCompile(`(?m)(^|• )d `).MatchString(text) {
			t.Errorf("width %d: the help line shows d, which keyTable (and the doc) keep off it:\n%s", w, text)
		}
		v := m.Rendered()
		for _, r := range strings.Split(text, "\n") {
			if !strings.Contains(v, r) {
				t.Errorf("width %d: the screen lacks the help row %q:\n%s", w, r, v)
			}
		}
	}
	// A window too narrow for the rows the height allows: the last row ends in an ellipsis.
	rows := helpLines(keyTable(), 30, 2)
	if len(rows) != 2 || !strings.HasSuffix(stripRows(rows[1:]), "…") {
		t.Errorf("30 columns, 2 rows: %q; want 2 rows, the last cut with …", stripRows(rows))
	}
}

func stripRows(rows []string) string {
	var out []string
	for _, r := range rows {
		out = append(out, ansi.Strip(r))
	}
	return strings.Join(out, "\n")
}

// allOptionalRows is a state with every row the head shows only at times: the waves'
// and the 3D region's Table 1 rows and the waves' count, liquid in the air, flow meters,
// bodies, a recording; and a lagging status line with --until and outflow. (A scene
// takes no bodies with a region: the UI shows them all the same.)
func allOptionalRows() engine.State {
	st := knownState()
	st.Particles, st.Airborne, st.FallDrop = 12, 0.0123e-6, 0.004
	st.Waves, st.WaveCount = true, 321
	st.Total.Waves.Frames = 412
	st.Bodies, st.Sprays = 3, 1
	st.HasRegion, st.Region.NX, st.Region.NY, st.Region.NZ, st.Region.H = true, 16, 10, 30, 0.001
	st.Total.Region.Frames = 300
	st.MeterRates, st.MeterTotals = []float64{2e-6}, []float64{5e-6}
	st.Recording = "/tmp/vpbench-out/vpbench-20261124-200000.mp4"
	st.Lagging, st.Until, st.Outflow = true, 10, 1e-7
	return st
}

// TestNoteShowsWithEveryOptionalRow: on a 50-row terminal with every optional row on,
// and a full log, the note line and the help line still show (issue 41: the note went
// off the bottom when the waves row, bodies or liquid in the air were on screen).
func TestNoteShowsWithEveryOptionalRow(t *testing.T) {
	for _, w := range []int{90, 130, 200} {
		m, _ := newTestModel(t, w, 50)
		var lines []engine.LogLine
		for i := range 300 {
			lines = append(lines, engine.LogLine{Text: "log line " + strings.Repeat("x", i%50)})
		}
		m.Update(engine.Log{Lines: lines})
		m.Update(allOptionalRows())
		m.Update(noteMsg("the note of the last key"))
		v := m.Rendered()
		rows := strings.Split(v, "\n")
		if len(rows) > 50 {
			t.Errorf("width %d: %d rows in a 50-row window", w, len(rows))
		}
		wantIn(t, v, "the note of the last key", "q quit", "in the air", "waves on: 321", "floating bodies 3", "flow meters", "● recording", "3D region")
		if !strings.Contains(rows[len(rows)-1], "•") {
			t.Errorf("width %d: the last row is not the help line: %q", w, rows[len(rows)-1])
		}
		// The error that stopped the run shows there too when there is no note.
		st := allOptionalRows()
		st.Status, st.Err = engine.StatusFailed, "scene.lua:3: boom"
		m.Update(st)
		press(m, "x") // any key clears the note
		wantIn(t, m.Rendered(), "error: scene.lua:3: boom")
	}
	// Windows shorter than the head: the note and the help line stay, the log goes first.
	for _, h := range []int{12, 20, 24} {
		m, _ := newTestModel(t, 100, h)
		m.Update(allOptionalRows())
		m.Update(noteMsg("the note of the last key"))
		v := m.Rendered()
		if n := strings.Count(v, "\n") + 1; n > h {
			t.Errorf("height %d: %d rows", h, n)
		}
		wantIn(t, v, "the note of the last key", "q quit")
	}
}

// noDisplayPreview fails as the preview does without a display.
type noDisplayPreview struct{ err error }

func (p noDisplayPreview) Toggle() (bool, error) { return false, p.err }

// TestPreviewKeyWithoutDisplay: w without a display says, on every press, what a window
// needs and what to use instead (c, v, vpbench render), on the note line and in the log,
// not the preview's advice to install Xvfb (issue 41), even with every optional row on.
func TestPreviewKeyWithoutDisplay(t *testing.T) {
	for _, msg := range []string{
		"preview: no display: set DISPLAY, or run under xvfb-run (the window needs a screen)",
		"preview: no display: set DISPLAY, or install Xvfb (apt-get install xvfb) for offscreen pictures, or run under xvfb-run " +
			"(the only display is the private Xvfb used for offscreen pictures; the run goes on)",
	} {
		m, _ := newTestModel(t, 100, 50)
		m.Update(allOptionalRows())
		m.opt.Preview = noDisplayPreview{errors.New(msg)}
		for press1 := 1; press1 <= 3; press1++ {
			cmd := press(m, "w")
			if cmd == nil {
				t.Fatal("w returned no tea.Cmd")
			}
			m.Update(cmd())
			v := m.Rendered()
			wantIn(t, v, noWindowNote)
			if strings.Contains(v, "install Xvfb") {
				t.Errorf("press %d: the screen tells people to install Xvfb:\n%s", press1, v)
			}
			n := 0
			for _, l := range m.log {
				if l.Text == noWindowLog {
					n++
				}
			}
			if n != press1 {
				t.Errorf("press %d: the log has the no-display line %d times", press1, n)
			}
			press(m, "x") // another key clears the note
			if strings.Contains(m.Rendered(), noWindowNote) {
				t.Errorf("press %d: the note outlived the next key", press1)
			}
		}
		for _, want := range []string{"display", "`c`", "`v`", "vpbench render"} {
			if !strings.Contains(noWindowLog, strings.Trim(want, "`")) {
				t.Errorf("the log line lacks %q: %s", want, noWindowLog)
			}
		}
	}
	// An error that says so by its NoDisplay method, whatever its text.
	if !noDisplay(fmt.Errorf("wrapped: %w", displayErr{})) || noDisplay(errors.New("preview: OpenGL 3.3 is not available")) {
		t.Error("noDisplay: want true for an error whose NoDisplay says so, false for another")
	}
	// A display that does not open (GLFW cannot start on it): its error, and what to use.
	m, _ := newTestModel(t, 300, 50)
	m.opt.Preview = noDisplayPreview{errors.New(`preview: cannot start GLFW on display ":7": X11: failed to open display`)}
	m.Update(press(m, "w")())
	wantIn(t, m.Rendered(), `preview: cannot start GLFW on display ":7"`)
	if l := m.log[len(m.log)-1].Text; !strings.Contains(l, "vpbench render") || !strings.Contains(l, ":7") {
		t.Errorf("log line %q: want the error and what to use instead", l)
	}
}

type displayErr struct{}

func (displayErr) Error() string   { return "the window has nowhere to go" }
func (displayErr) NoDisplay() bool { return true }

// TestRecordingSaysTheSpeed: while a clip records, the line under the status line gives
// the real-time factor the run keeps and says the clip plays at real speed.
func TestRecordingSaysTheSpeed(t *testing.T) {
	m, _ := newTestModel(t, 120, 40)
	st := knownState()
	m.Update(st)
	if v := m.Rendered(); strings.Contains(v, "recording") {
		t.Errorf("not recording, the screen says recording:\n%s", v)
	}
	st.Recording, st.RealTime = "vpbench-20261124-200000.mp4", 0.16
	m.Update(st)
	v := m.Rendered()
	wantIn(t, v, "● recording: 0.16× real time; the clip plays at real speed")
	if rows := strings.Split(v, "\n"); !strings.Contains(rows[2], "recording") {
		t.Errorf("the recording's line is not under the status line:\n%s", v)
	}
	st.Status = engine.StatusPaused
	m.Update(st)
	wantIn(t, m.Rendered(), "● recording: paused; the clip goes on when the run does")
}

// TestEveryKeyDoesSomething: each key in keyTable has an action, and pressing it (with
// the runner's channel drained) never panics.
func TestEveryKeyDoesSomething(t *testing.T) {
	m, cmds := newTestModel(t, 100, 40)
	m.Update(knownState())
	for _, r := range keyTable() {
		for _, b := range r.Binds {
			if b.Do == nil {
				t.Errorf("row %s: keys %q do nothing", r.Doc, b.Keys)
			}
			for _, k := range b.Keys {
				if k == "q" || k == "esc" || k == "ctrl+c" {
					continue
				}
				if m.action(keyPress(k)) == nil {
					t.Errorf("key %q (row %s) is not matched", k, r.Doc)
				}
				for len(cmds) > 0 {
					<-cmds
				}
			}
		}
	}
}

// keyPress is the key press Bubble Tea gives for a key's name.
func keyPress(name string) tea.KeyPressMsg {
	switch name {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	}
	return tea.KeyPressMsg{Text: name, Code: []rune(name)[0]}
}

// TestOptionalRowsKeepTheirRoom: an optional row that comes and goes (liquid in the air)
// keeps its room until the window's size changes, so the map is not resized back and
// forth, and the help line stays on the last row.
func TestOptionalRowsKeepTheirRoom(t *testing.T) {
	m, cmds := newTestModel(t, 90, 40)
	st := knownState()
	m.Update(st)
	sizes := func() (n int, last engine.Command) {
		for len(cmds) > 0 {
			if c := <-cmds; c.Kind == engine.CmdMapSize {
				n, last = n+1, c
			}
		}
		return n, last
	}
	_, first := sizes()
	st.Particles, st.Airborne = 5, 1e-9
	m.Update(st)
	n, shrunk := sizes()
	if n != 1 || shrunk.Rows >= first.Rows {
		t.Fatalf("liquid in the air: %d map sizes, the last %+v; want one, fewer rows than %+v", n, shrunk, first)
	}
	for range 3 {
		st.Particles = 0
		m.Update(st)
		rows := strings.Split(m.Rendered(), "\n")
		if len(rows) != 40 || !strings.Contains(rows[39], "•") {
			t.Errorf("without the row: %d rows, the last %q; want 40, the help line last", len(rows), rows[len(rows)-1])
		}
		st.Particles = 5
		m.Update(st)
	}
	if n, c := sizes(); n != 0 {
		t.Errorf("the row came and went: %d more map sizes (the last %+v); want none", n, c)
	}
	st.Particles = 0
	m.Update(st)
	m.Update(tea.WindowSizeMsg{Width: 90, Height: 40})
	if _, c := sizes(); c.Rows != first.Rows {
		t.Errorf("after a resize without the row: map rows %d; want %d again", c.Rows, first.Rows)
	}
}
