package tui

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/timing"
)

// knownState is a state with a value in every field the view shows.
func knownState() engine.State {
	st := engine.State{
		Run: engine.Run{Status: engine.StatusRunning, Name: "scene.lua", StepsPerSec: 331, RealTime: 0.98, Speed: engine.RealTime},
		WorldView: engine.WorldView{Backend: "cpu", Workers: 2, Time: 1.25, Steps: 412, Dt: 0.00303,
			Volume: 9.812e-6, Added: 10e-6, Removed: 0, Rejected: 0.188e-6,
			Wet: 1234, Columns: 40000, Pipes: 79600, Extended: 3, Passages: 1,
			Nx: 200, Ny: 200, Layers: 1, Dx: 0.0005,
			Settings: gpusim.Settings{Viscosity: 8e-6, Damping: 0.5, CrossSection: gpusim.CrossFilm, ExtendedPipes: gpusim.ExtendedAxis}},
		FrameTimes: engine.FrameTimes{
			Window: engine.Window{
				Simulation: timing.PhaseTiming{Frames: 50, AvgMs: 0.512, MaxMs: 1.204},
				Surface:    timing.PhaseTiming{Frames: 50, AvgMs: 0.25, MaxMs: 0.75},
				Render:     timing.PhaseTiming{Frames: 10, AvgMs: 2.5, MaxMs: math.NaN()},
			},
			Total: timing.Timings{
				Simulation: timing.PhaseTiming{Frames: 412, AvgMs: 0.498, MaxMs: 3.1},
				Surface:    timing.PhaseTiming{Frames: 412, AvgMs: 0.3, MaxMs: 0.9},
			},
			Spark: []float64{1, 2, 4, 8},
		},
	}
	st.Map = engine.DepthMap{W: 2, H: 2, MaxDepth: 0.002, Depth: []float32{0.002, 0, -1, 0.001}, Ground: []float32{0, 0, 0, 0}}
	return st
}

func newTestModel(t *testing.T, w, h int) (*Model, chan engine.Command) {
	t.Helper()
	cmds := make(chan engine.Command, 64)
	m := NewModel(cmds, ModelOptions{ScreenshotDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m, cmds
}

func press(m *Model, s string) tea.Cmd {
	k := tea.KeyPressMsg{Text: s, Code: []rune(s)[0]}
	if s == " " {
		k = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	_, cmd := m.Update(k)
	return cmd
}

func wantIn(t *testing.T, view string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(view, p) {
			t.Errorf("the view lacks %q:\n%s", p, view)
		}
	}
}

// TestViewShowsTheMethod: the title names the shallow water equations and their
// substeps a step.
func TestViewShowsTheMethod(t *testing.T) {
	m, _ := newTestModel(t, 120, 40)
	st := knownState()
	st.Settings.Method = gpusim.MethodSWE
	st.Substeps = 2.5 * 412
	m.Update(st)
	wantIn(t, m.Rendered(), "cpu, 2 worker(s) │ swe, 2.5 substeps/step")
}

func TestViewShowsTheState(t *testing.T) {
	for _, w := range []int{90, 130} { // the log under the map, and beside it
		m, _ := newTestModel(t, w, 40)
		st := knownState()
		st.Particles, st.Airborne, st.FallDrop = 12, 0.0123e-6, 0.004
		m.Update(st)
		v := m.Rendered()
		wantIn(t, v,
			"scene.lua", "real time", "cpu, 2 worker(s) │ pipes",
			"▶ running", "t = 1.250 s │ 331 steps/s │ 0.98× real time │ steps 412 │ dt 3.03 ms",
			"simulation       0.512     1.204     0.498     3.100       412",
			"surface          0.250     0.750     0.300     0.900       412",
			"render           2.500         —         —         —         0",
			"▁▂▄█ 1.000 to 8.000 ms",
			"volume 9.8120 ml", "added 10.0000 ml", "removed 0.0000 ml", "rejected 0.1880 ml",
			"columns 40000 (200×200×1, dx 0.5 mm)", "wet 1234", "pipes 79600", "extended 3 in 1 passage(s)",
			"viscosity 8e-06 m²/s", "damping 0.5", "cross-section film", "extended pipes: axis",
			"in the air 0.0123 ml in 12 drops (part of the volume)",
			"depth map (top; l: next)", "0 to 2.00 mm deep",
			"q quit • space pause • s step • f speed • +/- viscosity",
			"w window • c still • v clip",
		)
		if w > 110 {
			wantIn(t, v, "extended pipes: axis │ falling: particles below 4 mm")
			wantIn(t, v, "q quit • space pause • s step • f speed • +/- viscosity • t tension • a/A angle • W waves • b bodies • l layer • r reload")
		}
		if strings.Contains(v, "cannot keep up") {
			t.Errorf("the view says it cannot keep up while engine.State.Lagging is false")
		}
		for _, line := range strings.Split(v, "\n") {
			if n := ansi.StringWidth(line); n > w {
				t.Errorf("line wider than the window (%d > %d): %q", n, w, line)
			}
		}
		if n := strings.Count(v, "\n") + 1; n > 40 {
			t.Errorf("%d lines in a 40-line window", n)
		}
	}
}

func TestViewDrawsTheDepthMapCells(t *testing.T) {
	m, _ := newTestModel(t, 90, 40)
	st := knownState()
	m.Update(st)
	raw := m.render()
	// One character row: deep over solid, then dry over half depth.
	half := lerp(colourShallow, colourDeep, 0.5)
	want := sgrPair(colourDeep, colourNone) + "▀" + sgrPair(colourDryLow, half) + "▀"
	if !strings.Contains(raw, want) {
		t.Errorf("the view lacks the depth map's cells %q", want)
	}
}

func sgrPair(fg, bg rgb) string {
	return "\x1b[38;2;" + itoa(fg.r) + ";" + itoa(fg.g) + ";" + itoa(fg.b) + ";48;2;" + itoa(bg.r) + ";" + itoa(bg.g) + ";" + itoa(bg.b) + "m"
}

func itoa(v uint8) string { return strconv.Itoa(int(v)) }

func TestViewLaggingPausedAndErrors(t *testing.T) {
	m, _ := newTestModel(t, 100, 40)
	st := knownState()
	st.Lagging = true
	m.Update(st)
	wantIn(t, m.Rendered(), "⚠ cannot keep up with real time")

	st.Lagging, st.Status = false, engine.StatusPaused
	m.Update(st)
	wantIn(t, m.Rendered(), "⏸ paused", "t = 1.250 s")

	m.Update(engine.Log{Lines: []engine.LogLine{
		{Level: engine.LogPrint, Text: "t=0.1 volume=0.500 ml"},
		{Level: engine.LogWarn, Text: "warning: dt = 6 ms is above the stability limit"},
		{Level: engine.LogError, Text: "scene.lua:12: boom (in the sim:at(0.2) callback defined at scene.lua:11)"},
	}})
	st.Status, st.Err = engine.StatusFailed, "scene.lua:12: boom (in the sim:at(0.2) callback defined at scene.lua:11)"
	m.Update(st)
	v := m.Rendered()
	wantIn(t, v, "✖ stopped on an error", "t=0.1 volume=0.500 ml", "warning: dt = 6 ms",
		"error: scene.lua:12: boom", "t = 1.250 s", "volume 9.8120 ml")
	// The error is on the log line and on the line above the help.
	if n := strings.Count(v, "error: scene.lua:12: boom"); n != 2 {
		t.Errorf("the error shows %d times; want 2 (log and status line):\n%s", n, v)
	}
}

func TestViewSmallWindows(t *testing.T) {
	for _, size := range [][2]int{{40, 10}, {20, 5}, {1, 1}, {200, 80}} {
		m, _ := newTestModel(t, size[0], size[1])
		m.Update(knownState())
		m.Update(engine.Log{Lines: []engine.LogLine{{Text: strings.Repeat("long line ", 30)}}})
		v := m.Rendered()
		lines := strings.Split(v, "\n")
		if len(lines) > size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > size[0] {
				t.Errorf("%dx%d: a line of width %d", size[0], size[1], ansi.StringWidth(l))
			}
		}
	}
}

func TestKeysSendCommands(t *testing.T) {
	m, cmds := newTestModel(t, 100, 40)
	// The window size told the runner the map's room.
	// 40 rows: 13 of the head, the map's legend and 3 of the foot (the note, the help line
	// on 2 rows at 100 columns) leave 23; the log's title is beside the map.
	if c := <-cmds; c.Kind != engine.CmdMapSize || c.Cols != 50 || c.Rows != 23 {
		t.Errorf("first command %+v; want the map size 50 x 23 (half the width, the rows the head and the foot leave)", c)
	}
	for _, tc := range []struct {
		key  string
		want engine.Command
	}{
		{" ", engine.Command{Kind: engine.CmdTogglePause}},
		{"p", engine.Command{Kind: engine.CmdTogglePause}},
		{"s", engine.Command{Kind: engine.CmdStep}},
		{".", engine.Command{Kind: engine.CmdStep}},
		{"f", engine.Command{Kind: engine.CmdCycleSpeed}},
		{"r", engine.Command{Kind: engine.CmdReload}},
		{"l", engine.Command{Kind: engine.CmdCycleLayer}},
		{"+", engine.Command{Kind: engine.CmdViscosity, Factor: 2}},
		{"=", engine.Command{Kind: engine.CmdViscosity, Factor: 2}},
		{"-", engine.Command{Kind: engine.CmdViscosity, Factor: 0.5}},
		{"d", engine.Command{Kind: engine.CmdToggleFalling}},
		{"a", engine.Command{Kind: engine.CmdContactAngle, Factor: -5 * math.Pi / 180}},
		{"A", engine.Command{Kind: engine.CmdContactAngle, Factor: 5 * math.Pi / 180}},
		{"t", engine.Command{Kind: engine.CmdToggleCapillarity}},
		{"W", engine.Command{Kind: engine.CmdToggleWaves}},
		{"b", engine.Command{Kind: engine.CmdLogBodies}},
	} {
		if cmd := press(m, tc.key); cmd != nil {
			t.Errorf("key %q returned a tea.Cmd; want none", tc.key)
		}
		select {
		case c := <-cmds:
			if c != tc.want {
				t.Errorf("key %q sent %+v; want %+v", tc.key, c, tc.want)
			}
		default:
			t.Errorf("key %q sent nothing", tc.key)
		}
	}
	cmd := press(m, "q")
	if c := <-cmds; c.Kind != engine.CmdQuit {
		t.Errorf("q sent %+v; want engine.CmdQuit", c)
	}
	if cmd == nil {
		t.Fatal("q returned no tea.Cmd; want tea.Quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Errorf("q's tea.Cmd gave %T; want tea.QuitMsg", cmd())
	}
}

func TestKeysNeverBlock(t *testing.T) {
	cmds := make(chan engine.Command) // nobody reads it
	m := NewModel(cmds, ModelOptions{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	press(m, " ")
	wantIn(t, m.Rendered(), "the runner is busy: key ignored")
}

func TestPreviewKey(t *testing.T) {
	m, _ := newTestModel(t, 100, 40)
	press(m, "w")
	wantIn(t, m.Rendered(), "preview window not available in this build/session")

	p := &fakePreview{}
	m.opt.Preview = p
	msg := press(m, "w")()
	m.Update(msg)
	wantIn(t, m.Rendered(), "preview window open")
	m.Update(press(m, "w")())
	wantIn(t, m.Rendered(), "preview window closed")
}

type fakePreview struct{ open bool }

func (p *fakePreview) Toggle() (bool, error) {
	p.open = !p.open
	return p.open, nil
}

func TestTextScreenshot(t *testing.T) {
	m, _ := newTestModel(t, 100, 40)
	m.Update(knownState())
	cmd := press(m, "c")
	if cmd == nil {
		t.Fatal("c returned no tea.Cmd")
	}
	m.Update(cmd())
	v := m.Rendered()
	// The note line (the last mention; the log gives it too, maybe wrapped).
	i := strings.LastIndex(v, "text screenshot saved to ")
	after, ok := v[max(i, 0)+len("text screenshot saved to "):], i >= 0
	if !ok {
		t.Fatalf("no note of where the screenshot went:\n%s", v)
	}
	path := strings.Fields(after)[0]
	if filepath.Dir(path) != m.opt.ScreenshotDir || !strings.HasPrefix(filepath.Base(path), "vpbench-") || filepath.Ext(path) != ".txt" {
		t.Errorf("screenshot path %q: want vpbench-<time>.txt in %s", path, m.opt.ScreenshotDir)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, "t = 1.250 s") || strings.Contains(s, "\x1b[") {
		t.Errorf("the screenshot is not the view as plain text:\n%s", s)
	}

	var got string
	m.opt.Screenshot = func(p string) error { got = p; return nil }
	m.Update(press(m, "c")())
	if filepath.Ext(got) != ".png" {
		t.Errorf("the Screenshot hook got %q; want a .png path", got)
	}
	wantIn(t, m.Rendered(), "screenshot saved to "+got)

	// A failing hook (no display, a paused run) still gives the user a file.
	m.opt.Screenshot = func(string) error { return errors.New("no frame from the run in 2 s") }
	m.Update(tea.WindowSizeMsg{Width: 300, Height: 40}) // room for the long note
	m.Update(press(m, "c")())
	v = m.Rendered()
	wantIn(t, v, "preview screenshot failed (no frame from the run in 2 s); text screenshot saved to ")
	_, after, _ = strings.Cut(v, "text screenshot saved to ")
	if _, err := os.Stat(strings.Fields(after)[0]); err != nil {
		t.Errorf("no text screenshot after the hook failed: %v", err)
	}
}

func TestLogScrollsAndFollows(t *testing.T) {
	m, _ := newTestModel(t, 90, 30)
	m.Update(knownState())
	var lines []engine.LogLine
	for i := range 100 {
		lines = append(lines, engine.LogLine{Level: engine.LogPrint, Text: "line " + strconv.Itoa(i)})
	}
	m.Update(engine.Log{Lines: lines})
	wantIn(t, m.Rendered(), "line 99")
	m.Update(tea.KeyPressMsg{Code: tea.KeyPgUp})
	v := m.Rendered()
	if strings.Contains(v, "line 99") {
		t.Errorf("page up still shows the newest line")
	}
	wantIn(t, v, "scrolled")
	m.Update(engine.Log{Lines: []engine.LogLine{{Text: "line new"}}})
	if strings.Contains(m.Rendered(), "line new") {
		t.Errorf("a scrolled log jumped to a new line")
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	wantIn(t, m.Rendered(), "line new")
}

// TestLogWrapsAtWords: a log line longer than the log's width wraps between words, each
// word whole on one line (the viewport's own wrap cut "wet" into "we" and "t").
func TestLogWrapsAtWords(t *testing.T) {
	m, _ := newTestModel(t, 90, 30)
	m.Update(knownState())
	text := "t = 10.0 s: blood 0.50 ml (bled 2.40, sucked 1.90), 7508 wet columns in the wound cavity and around it"
	m.Update(engine.Log{Lines: []engine.LogLine{{Level: engine.LogPrint, Text: text}}})
	v := ansi.Strip(m.Rendered())
	for _, word := range strings.Fields(text) {
		if !regexp.MustCompile(`(^|[\s│(])` + regexp.QuoteMeta(word) + `([\s│,)]|$)`).MatchString(v) {
			t.Errorf("the word %q is not whole on the screen:\n%s", word, v)
		}
	}
}

// TestRecordKey: v asks the runner to start or stop a recording; the title shows the
// clip while it records.
func TestRecordKey(t *testing.T) {
	m, cmds := newTestModel(t, 120, 40)
	m.Update(knownState())
	for len(cmds) > 0 { // the layout's map size
		<-cmds
	}
	m.Update(tea.KeyPressMsg{Code: 'v', Text: "v"})
	select {
	case c := <-cmds:
		if c.Kind != engine.CmdRecord {
			t.Errorf("v sent %v, want CmdRecord", c.Kind)
		}
	default:
		t.Fatal("v sent nothing")
	}
	if strings.Contains(m.Rendered(), "● rec") {
		t.Error("the title says recording before the runner does")
	}
	st := knownState()
	st.Recording = "vpbench-20261124-200000.mp4"
	m.Update(st)
	wantIn(t, m.Rendered(), "● rec vpbench-20261124-200000.mp4")
}

// TestViewFramesPerSecondMeasured: the sim/step row shows the frames a second measured
// over the window, with the target beside it only where they differ.
func TestViewFramesPerSecondMeasured(t *testing.T) {
	m, _ := newTestModel(t, 130, 40)
	st := knownState()
	st.FPS = 60
	for _, c := range []struct {
		speed    engine.Speed
		measured float64
		want     string
	}{
		{engine.RealTime, 26.2, "26 frames/s (target 60), 0.0 steps/frame lately"},
		{engine.RealTime, 59.6, "60 frames/s, 0.0 steps/frame lately"},
		{engine.Speed{Factor: 0.5}, 58.4, "58 frames/s, 0.0 steps/frame lately"},
		{engine.Speed{Max: true}, 28, "28 frames/s"},
	} {
		st.Speed, st.FramesPerSec = c.speed, c.measured
		m.Update(st)
		v := m.Rendered()
		wantIn(t, v, c.want)
	}
	st.FrameSteps, st.FPS, st.FramesPerSec = 5, 0, 31
	m.Update(st)
	wantIn(t, m.Rendered(), "31 frames/s of 5 steps")
}

// TestScreenshotIntoOutDir: c writes under the output folder (--out-dir, relative to the
// working folder), made when first needed, and the note and the log give the full path.
func TestScreenshotIntoOutDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cmds := make(chan engine.Command, 64)
	m := NewModel(cmds, ModelOptions{ScreenshotDir: filepath.Join("vpbench-out", "shots")})
	m.Update(tea.WindowSizeMsg{Width: 300, Height: 40})
	m.Update(knownState())
	if _, err := os.Stat("vpbench-out"); !os.IsNotExist(err) {
		t.Fatalf("the output folder exists before the first screenshot (%v)", err)
	}
	m.Update(press(m, "c")())
	want := filepath.Join(dir, "vpbench-out", "shots")
	ents, err := os.ReadDir(want)
	if err != nil || len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "vpbench-") {
		t.Fatalf("the screenshot is not in %s: %v %v", want, ents, err)
	}
	full := filepath.Join(want, ents[0].Name())
	wantIn(t, m.Rendered(), "text screenshot saved to "+full) // the note
	logged := false
	for _, l := range m.log {
		logged = logged || strings.Contains(l.Text, full)
	}
	if !logged {
		t.Errorf("the log does not give the screenshot's full path %s", full)
	}
}

// TestViewShowsTheWaves: while waves run, Table 1 has their row and a line gives the
// particles' count; without them neither shows.
func TestViewShowsTheWaves(t *testing.T) {
	m, _ := newTestModel(t, 130, 40)
	st := knownState()
	m.Update(st)
	if v := m.Rendered(); strings.Contains(v, "wave particles") || strings.Contains(v, "\nwaves ") {
		t.Errorf("waves off, the view shows them:\n%s", v)
	}
	st.Waves, st.WaveCount = true, 1234
	st.Total.Waves = timing.PhaseTiming{Frames: 412, AvgMs: 0.4, MaxMs: 1.5}
	st.Window.Waves = timing.PhaseTiming{Frames: 100, AvgMs: 0.5, MaxMs: 1.25}
	m.Update(st)
	wantIn(t, m.Rendered(), "waves            0.500     1.250     0.400     1.500       412", "waves on: 1234 wave particles (W: off)")
}

// TestViewShowsBodiesAndMeters: a line counts the floating bodies and sprays, another
// gives each flow meter's rate and total; without them neither shows.
func TestViewShowsBodiesAndMeters(t *testing.T) {
	m, _ := newTestModel(t, 130, 40)
	st := knownState()
	m.Update(st)
	if v := m.Rendered(); strings.Contains(v, "floating bodies") || strings.Contains(v, "flow meters") {
		t.Errorf("no bodies nor meters, the view shows them:\n%s", v)
	}
	st.Bodies, st.Sprays = 6, 1
	st.MeterRates, st.MeterTotals = []float64{2e-6, -1e-7}, []float64{5.5e-6, -3e-7}
	m.Update(st)
	wantIn(t, m.Rendered(), "floating bodies 6 (b: each one's depth and speed in the log) │ sprays 1", "flow meters: #1", "#2")
}

// TestViewShowsTheRegion: while a 3D region is in place Table 1 has its row (its own time
// per frame, part of the simulation row, which stays as it is) with its particles and
// liquid cells, and the settings line names it first (it is cut to the window's width);
// without one neither shows, even with
// the region's clocks from an earlier region.
func TestViewShowsTheRegion(t *testing.T) {
	m, _ := newTestModel(t, 130, 40)
	st := knownState()
	st.Total.Region = timing.PhaseTiming{Frames: 300, AvgMs: 0.35, MaxMs: 2.5}
	st.Window.Region = timing.PhaseTiming{Frames: 50, AvgMs: 0.4, MaxMs: 0.9}
	m.Update(st)
	if v := m.Rendered(); strings.Contains(v, "3D region") || strings.Contains(v, "region ") {
		t.Errorf("no region in place, the view shows one:\n%s", v)
	}
	st.HasRegion = true
	st.Region.NX, st.Region.NY, st.Region.NZ, st.Region.H = 16, 10, 30, 0.001
	st.Region.Particles, st.Region.LiquidCells = 12345, 1500
	m.Update(st)
	v := m.Rendered()
	wantIn(t, v,
		"simulation       0.512     1.204     0.498     3.100       412",
		"3D region        0.400     0.900     0.350     2.500       300 │ 12345 particles, 1500 of 4800 cells liquid",
		"region 16×10×30 cells of 1 mm │ viscosity 8e-06 m²/s")
	for _, line := range strings.Split(v, "\n") {
		if n := ansi.StringWidth(line); n > 130 {
			t.Errorf("line wider than the window (%d > 130): %q", n, line)
		}
	}
	st.Region.H = 0.002 / 3 // refine 3
	m.Update(st)
	wantIn(t, m.Rendered(), "region 16×10×30 cells of 0.667 mm")
	narrow, _ := newTestModel(t, 80, 40) // the settings line is cut: the region's name stays
	narrow.Update(st)
	wantIn(t, narrow.Rendered(), "\nregion 16×10×30 cells of 0.667 mm │ viscosity", "\n3D region        0.400     0.900")
}
