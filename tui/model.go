package tui

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/internal/fileout"
)

// Preview is the optional preview window (package preview, GLFW on the main thread).
type Preview interface {
	// Toggle opens the window when it is closed and closes it when it is open, and says
	// which it is now.
	Toggle() (open bool, err error)
}

// maxLogLines is how many log lines the UI keeps (the oldest go first).
const maxLogLines = 5000

// angleStep is the contact angle keys' step: 5 degrees.
const angleStep = 5 * math.Pi / 180

// keyMap is the keys the UI answers to; the help line lists them.
type keyMap struct {
	Pause, Step, Speed, Reload, Layer, Preview, ViscUp, ViscDown, Falling, Shot, Record, Quit key.Binding
	AngleDown, AngleUp, Capillarity, Waves, Bodies                                            key.Binding
	Up, Down, PgUp, PgDown, End                                                               key.Binding
}

func newKeyMap() keyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Pause:    b([]string{"space", "p"}, "space", "pause"),
		Step:     b([]string{"s", "."}, "s", "step"),
		Speed:    b([]string{"f"}, "f", "speed"),
		Reload:   b([]string{"r"}, "r", "reload"),
		Layer:    b([]string{"l"}, "l", "layer"),
		Preview:  b([]string{"w"}, "w", "preview"),
		ViscUp:   b([]string{"+", "="}, "+/-", "viscosity"),
		ViscDown: b([]string{"-", "_"}, "-", "viscosity ÷2"),
		Falling:  b([]string{"d"}, "d", "drops"),
		// The contact angle in steps of 5 degrees; capillarity on or off.
		AngleDown:   b([]string{"a"}, "a/A", "contact angle"),
		AngleUp:     b([]string{"A"}, "A", "contact angle +5°"),
		Capillarity: b([]string{"t"}, "t", "surface tension"),
		Waves:       b([]string{"W"}, "W", "waves"),
		Bodies:      b([]string{"b"}, "b", "bodies"),
		Shot:        b([]string{"c"}, "c", "screenshot"),
		Record:      b([]string{"v"}, "v", "record"),
		Quit:        b([]string{"q", "ctrl+c", "esc"}, "q", "quit"),
		Up:          b([]string{"up", "k"}, "↑↓", "log"),
		Down:        b([]string{"down", "j"}, "", ""),
		PgUp:        b([]string{"pgup"}, "", ""),
		PgDown:      b([]string{"pgdown"}, "", ""),
		End:         b([]string{"end", "G"}, "", ""),
	}
}

// ShortHelp is the help line (help.KeyMap).
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Quit, k.Pause, k.Step, k.Speed, k.ViscUp, k.Layer, k.Reload, k.Preview, k.Shot, k.Record, k.Falling}
}

// FullHelp is every key, in columns (help.KeyMap).
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Pause, k.Step, k.Speed}, {k.ViscUp, k.ViscDown, k.Falling, k.Layer}, {k.Capillarity, k.AngleDown, k.AngleUp, k.Waves, k.Bodies},
		{k.Reload, k.Preview, k.Shot, k.Record, k.Quit}}
}

// ModelOptions are the UI's hooks.
type ModelOptions struct {
	// Preview toggles the preview window; nil: not available in this build or session.
	Preview Preview
	// Screenshot saves a screenshot to path (the preview's picture); nil: the UI saves a
	// text screenshot of its own view instead.
	Screenshot func(path string) error
	// ScreenshotDir is where screenshots go ("" = the working folder; the command gives
	// --out-dir, vpbench-out by default), made when first needed.
	ScreenshotDir string
}

// Model is the Bubble Tea model of the terminal UI. It holds no engine state: only the
// copies that the runner sends (engine.State, engine.Log). Keys become Commands on the runner's
// channel, sent without blocking.
type Model struct {
	cmds chan<- engine.Command
	opt  ModelOptions
	keys keyMap
	help help.Model

	width, height int
	st            engine.State
	have          bool // a State has arrived
	log           []engine.LogLine
	logView       viewport.Model
	follow        bool // the log shows its newest lines
	note          string
	mapCols       int // the room the depth map was last offered
	mapRows       int
	side          bool // the log is beside the map (wide windows), not under it
	quitting      bool
}

// NewModel makes the UI; cmds is the runner's command channel.
func NewModel(cmds chan<- engine.Command, opt ModelOptions) *Model {
	m := &Model{cmds: cmds, opt: opt, keys: newKeyMap(), help: help.New(), follow: true,
		logView: viewport.New(), width: 80, height: 24}
	m.logView.SoftWrap = true // long errors wrap rather than lose their end
	return m
}

// noteMsg sets the transient note under the log (a key's outcome).
type noteMsg string

// savedMsg is a note that also goes to the log: where a file went (its full path).
type savedMsg string

// Init is part of tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// Update is part of tea.Model. It returns at once: work that takes time runs in a tea.Cmd
// (screenshots, the preview) or on the runner.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.layout()
	case engine.State:
		m.st, m.have = msg, true
		m.layout()
	case engine.Log:
		m.appendLog(msg.Lines)
	case noteMsg:
		m.note = string(msg)
	case savedMsg:
		m.note = string(msg)
		m.appendLog([]engine.LogLine{{Level: engine.LogInfo, Text: string(msg)}})
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// send queues a command for the runner without blocking: if the runner has 64 commands
// waiting already, the key is dropped and the note says so.
func (m *Model) send(c engine.Command) {
	select {
	case m.cmds <- c:
	default:
		m.note = "the runner is busy: key ignored"
	}
}

func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	m.note = ""
	switch {
	case key.Matches(k, m.keys.Quit):
		m.quitting = true
		m.send(engine.Command{Kind: engine.CmdQuit})
		return tea.Quit
	case key.Matches(k, m.keys.Pause):
		m.send(engine.Command{Kind: engine.CmdTogglePause})
	case key.Matches(k, m.keys.Step):
		m.send(engine.Command{Kind: engine.CmdStep})
	case key.Matches(k, m.keys.Speed):
		m.send(engine.Command{Kind: engine.CmdCycleSpeed})
	case key.Matches(k, m.keys.Reload):
		m.send(engine.Command{Kind: engine.CmdReload})
	case key.Matches(k, m.keys.Layer):
		m.send(engine.Command{Kind: engine.CmdCycleLayer})
	case key.Matches(k, m.keys.ViscUp):
		m.send(engine.Command{Kind: engine.CmdViscosity, Factor: 2})
	case key.Matches(k, m.keys.ViscDown):
		m.send(engine.Command{Kind: engine.CmdViscosity, Factor: 0.5})
	case key.Matches(k, m.keys.Falling):
		m.send(engine.Command{Kind: engine.CmdToggleFalling})
	case key.Matches(k, m.keys.AngleDown):
		m.send(engine.Command{Kind: engine.CmdContactAngle, Factor: -angleStep})
	case key.Matches(k, m.keys.AngleUp):
		m.send(engine.Command{Kind: engine.CmdContactAngle, Factor: angleStep})
	case key.Matches(k, m.keys.Capillarity):
		m.send(engine.Command{Kind: engine.CmdToggleCapillarity})
	case key.Matches(k, m.keys.Waves):
		m.send(engine.Command{Kind: engine.CmdToggleWaves})
	case key.Matches(k, m.keys.Bodies):
		m.send(engine.Command{Kind: engine.CmdLogBodies})
	case key.Matches(k, m.keys.Preview):
		return m.togglePreview()
	case key.Matches(k, m.keys.Shot):
		return m.screenshot()
	case key.Matches(k, m.keys.Record):
		m.send(engine.Command{Kind: engine.CmdRecord})
	case key.Matches(k, m.keys.Up):
		m.logView.ScrollUp(1)
		m.follow = m.logView.AtBottom()
	case key.Matches(k, m.keys.Down):
		m.logView.ScrollDown(1)
		m.follow = m.logView.AtBottom()
	case key.Matches(k, m.keys.PgUp):
		m.logView.PageUp()
		m.follow = m.logView.AtBottom()
	case key.Matches(k, m.keys.PgDown):
		m.logView.PageDown()
		m.follow = m.logView.AtBottom()
	case key.Matches(k, m.keys.End):
		m.logView.GotoBottom()
		m.follow = true
	}
	return nil
}

func (m *Model) togglePreview() tea.Cmd {
	if m.opt.Preview == nil {
		m.note = "preview window not available in this build/session"
		return nil
	}
	p := m.opt.Preview
	return func() tea.Msg {
		open, err := p.Toggle()
		switch {
		case err != nil && strings.HasPrefix(err.Error(), "preview"):
			return noteMsg(err.Error())
		case err != nil:
			return noteMsg("preview: " + err.Error())
		case open:
			return noteMsg("preview window open")
		default:
			return noteMsg("preview window closed")
		}
	}
}

// screenshot saves the preview's picture through Options.Screenshot, or else (or when
// that fails: no display, a paused run) the UI's own view as text, and says where it went.
func (m *Model) screenshot() tea.Cmd {
	stamp := time.Now().Format("20060102-150405.000")
	stamp = strings.Replace(stamp, ".", "-", 1)
	dir := m.opt.ScreenshotDir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // the note and the log give the full path
	}
	base := filepath.Join(dir, "vpbench-"+stamp)
	text := ansi.Strip(m.render()) + "\n"
	writeText := func(prefix string) tea.Msg {
		// Through fileout, as every file vpbench writes: a temporary name, then the real one.
		if err := fileout.Write(base+".txt", func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
			return noteMsg(prefix + "screenshot: " + err.Error())
		}
		return savedMsg(prefix + "text screenshot saved to " + base + ".txt")
	}
	shot := m.opt.Screenshot
	return func() tea.Msg {
		// The output folder is made when first needed.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return noteMsg("screenshot: " + err.Error())
		}
		if shot == nil {
			return writeText("")
		}
		if err := shot(base + ".png"); err != nil {
			return writeText("preview screenshot failed (" + err.Error() + "); ")
		}
		return savedMsg("screenshot saved to " + base + ".png")
	}
}

func (m *Model) appendLog(lines []engine.LogLine) {
	m.log = append(m.log, lines...)
	if n := len(m.log); n > maxLogLines {
		m.log = append(m.log[:0], m.log[n-maxLogLines:]...)
	}
	m.refreshLog()
}

// refreshLog sets the log view's lines, wrapped at word boundaries to its width (the
// viewport's own soft wrap cuts words: "7508 we" / "t columns").
func (m *Model) refreshLog() {
	out := make([]string, len(m.log))
	for i, l := range m.log {
		out[i] = styleLog(l, m.logView.Width())
	}
	m.logView.SetContentLines(out)
	if m.follow {
		m.logView.GotoBottom()
	}
}

// fixedRows is the rows of everything but the depth map and the log: title, pace, the
// timings table, volumes, columns, settings, the map's legend, the log's title, the note
// and the help line.
const fixedRows = 17

// sideBySideWidth is the least window width at which the log goes to the right of the
// depth map rather than under it.
const sideBySideWidth = 100

// layout sizes the depth map and the log for the window, and tells the runner the map's
// room when it changed. Wide windows put the log beside the map (the map gets up to half
// the width and the whole height); narrow ones put it under (the map gets 3/5 of the
// rows).
func (m *Model) layout() {
	avail := max(m.height-fixedRows, 1)
	m.side = m.width >= sideBySideWidth && avail >= 4
	cols, rows := m.width, 0
	switch {
	case m.side:
		cols, rows = m.width/2, avail+1
	case avail >= 6:
		rows = avail * 3 / 5
	}
	if rows != m.mapRows || cols != m.mapCols {
		m.mapRows, m.mapCols = rows, cols
		m.send(engine.Command{Kind: engine.CmdMapSize, Cols: cols, Rows: rows})
	}
	used := min(rows, (m.st.Map.H+1)/2)
	oldWidth := m.logView.Width()
	if m.side {
		m.logView.SetWidth(max(m.width-m.st.Map.W-3, 10))
		m.logView.SetHeight(avail)
	} else {
		m.logView.SetWidth(m.width)
		m.logView.SetHeight(max(avail-used, 1))
	}
	if m.logView.Width() != oldWidth {
		m.refreshLog()
	}
	if m.follow {
		m.logView.GotoBottom()
	}
}

// View is part of tea.Model.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "vpbench " + m.st.Name
	return v
}

// Rendered is the screen the model shows now, without colours (for tests and text
// screenshots).
func (m *Model) Rendered() string { return ansi.Strip(m.render()) }

func (m *Model) String() string { return fmt.Sprintf("tui.Model(%s)", m.st.Name) }
