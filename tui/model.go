package tui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	keys []keyRow // keyTable()

	width, height int
	st            engine.State
	have          bool // a State has arrived
	log           []engine.LogLine
	logView       viewport.Model
	following     bool // the log shows its newest lines
	note          string
	mapCols       int // the room the depth map was last offered
	mapRows       int
	side          bool // the log is beside the map (wide windows), not under it
	headRows      int  // the head's room: the most rows it had since the window's size changed
	quitting      bool
}

// NewModel makes the UI; cmds is the runner's command channel.
func NewModel(cmds chan<- engine.Command, opt ModelOptions) *Model {
	m := &Model{cmds: cmds, opt: opt, keys: keyTable(), following: true,
		logView: viewport.New(), width: 80, height: 24}
	m.logView.SoftWrap = true // long errors wrap rather than lose their end
	return m
}

// noteMsg sets the transient note under the log (a key's outcome).
type noteMsg string

// savedMsg is a note that also goes to the log: where a file went (its full path).
type savedMsg string

// loggedNote is a short note for the note line and a longer line for the log, which
// wraps (the note line is cut to the window's width).
type loggedNote struct{ note, log string }

// Init is part of tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// Update is part of tea.Model. It returns at once: work that takes time runs in a tea.Cmd
// (screenshots, the preview) or on the runner.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.headRows = 0
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
	case loggedNote:
		m.note = msg.note
		m.appendLog([]engine.LogLine{{Level: engine.LogInfo, Text: msg.log}})
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

// key carries out a key press: what keyTable says it does.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	m.note = ""
	if do := m.action(k); do != nil {
		return do(m)
	}
	return nil
}

// togglePreview opens or closes the preview window (the w key). Without a display every
// press says what a window needs and what to use instead, on the note line and in the log.
func (m *Model) togglePreview() tea.Cmd {
	if m.opt.Preview == nil {
		m.note = "preview window not available in this build/session"
		return nil
	}
	p := m.opt.Preview
	return func() tea.Msg {
		open, err := p.Toggle()
		switch {
		case err != nil && noDisplay(err):
			return loggedNote{note: noWindowNote, log: noWindowLog}
		case err != nil && strings.Contains(err.Error(), "display"): // a display that would not open
			msg := err.Error()
			if !strings.HasPrefix(msg, "preview") {
				msg = "preview: " + msg
			}
			return loggedNote{note: msg, log: msg + "; " + noWindowInstead}
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

// What the w key says when there is no display to open a window on: the note line's
// short form and the log's full one. The preview's own message is not shown: it told
// people to install Xvfb while Xvfb was installed and vpbench's private Xvfb ran (for
// offscreen pictures, on which no one can see a window).
const (
	noWindowNote    = "no preview window: it needs a display; c saves a still, v records a clip (log: more)"
	noWindowInstead = "without one, c saves a still and v records a clip of the run (both drawn offscreen, through a private Xvfb " +
		"where Xvfb is installed), and `vpbench render` draws stills (--at T --png) and clips (--from A --to B --out clip.mp4) " +
		"of a scenario from the command line"
	noWindowLog = "no preview window: a window needs a display (DISPLAY: a desktop session, ssh -X) and this session has none; " +
		noWindowInstead
)

// noDisplay reports whether the preview's error says there is no display to open a
// window on: an error with a NoDisplay method that says so, or else one whose text says
// "no display" (the preview's messages today: "preview: no display: ...").
func noDisplay(err error) bool {
	var nd interface{ NoDisplay() bool }
	if errors.As(err, &nd) {
		return nd.NoDisplay()
	}
	return strings.Contains(strings.ToLower(err.Error()), "no display")
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
	if m.following {
		m.logView.GotoBottom()
	}
}

// sideBySideWidth is the least window width at which the log goes to the right of the
// depth map rather than under it.
const sideBySideWidth = 100

// layout sizes the depth map and the log for the window, and tells the runner the map's
// room when it changed. The map and the log get the rows the head (title to settings,
// with whatever optional rows the state has now), the map's legend, the log's title and
// the foot (the note and the help line) leave. Wide windows put the log beside the map
// (the map gets up to half the width and the whole height); narrow ones put it under
// (the map gets 3/5 of the rows).
func (m *Model) layout() {
	// The head's room only grows (until the window's size changes): an optional row that
	// comes and goes (liquid in the air) would otherwise resize the map back and forth.
	m.headRows = max(m.headRows, len(m.headLines()))
	avail := max(m.height-m.headRows-2-len(m.footLines()), 1)
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
	if m.following {
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
