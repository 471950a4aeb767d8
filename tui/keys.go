package tui

import (
	"math"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/vpbench/vpbench/engine"
)

// The keys: one table (keyTable) is the only source of what each key does, of the help
// line and of docs/tui.md's key table. TestKeysDocAgrees parses the doc's table and
// checks it against this one (`go test ./tui/ -run TestKeysDocAgrees -update` rewrites
// the doc's table from it).

// angleStep is the contact angle keys' step: 5 degrees.
const angleStep = 5 * math.Pi / 180

// keyRow is one row of docs/tui.md's key table: one key, or a few that go together
// (`+` / `-`).
type keyRow struct {
	// Doc is the doc's key column, in Markdown: "`space`, `p`". Every name in backquotes
	// is one of Binds' keys (the test checks it).
	Doc string
	// Help and HelpText are the row's entry on the help line, "s" and "step"; Help "" keeps
	// the row off it.
	Help, HelpText string
	// Does is the doc's "does" column, in Markdown.
	Does string
	// Binds are the keys (Bubble Tea's names: "space", "ctrl+c", "pgup") and what each does.
	Binds []keyBind
}

// keyBind is a few keys that do the same.
type keyBind struct {
	Keys []string
	Do   func(m *Model) tea.Cmd
}

// sends is a key that sends c to the runner.
func sends(c engine.Command) func(*Model) tea.Cmd {
	return func(m *Model) tea.Cmd { m.send(c); return nil }
}

// keyTable is every key, in the order of the help line and of the doc's table. (A
// function, not a variable: the keys' actions reach the view, which reads the table.)
func keyTable() []keyRow {
	return []keyRow{
		{Doc: "`q`, `Esc`, `Ctrl-C`", Help: "q", HelpText: "quit",
			Does:  "quit: the summary `vpbench run` prints goes to the terminal (see Quitting)",
			Binds: []keyBind{{[]string{"q", "ctrl+c", "esc"}, (*Model).quit}}},
		{Doc: "`space`, `p`", Help: "space", HelpText: "pause",
			Does:  "pause / resume",
			Binds: []keyBind{{[]string{"space", "p"}, sends(engine.Command{Kind: engine.CmdTogglePause})}}},
		{Doc: "`s`, `.`", Help: "s", HelpText: "step",
			Does: "single step: pause, then advance one frame: the solver steps up to the next frame time (a multiple of 1/60 s " +
				"of simulated time at `--fps 60`, about 5.5 steps at dt 3 ms), or N steps with `--frame-steps N`; at least one step. " +
				"The status line's t and steps show how far it went",
			Binds: []keyBind{{[]string{"s", "."}, sends(engine.Command{Kind: engine.CmdStep})}}},
		{Doc: "`f`", Help: "f", HelpText: "speed",
			Does:  "speed: real time → as fast as possible → 0.1× → 0.5× → 2× → real time",
			Binds: []keyBind{{[]string{"f"}, sends(engine.Command{Kind: engine.CmdCycleSpeed})}}},
		{Doc: "`+` (`=`) / `-`", Help: "+/-", HelpText: "viscosity",
			Does: "viscosity × 2 / ÷ 2 (from 0, `+` starts at water's 1e-6 m²/s)",
			Binds: []keyBind{{[]string{"+", "="}, sends(engine.Command{Kind: engine.CmdViscosity, Factor: 2})},
				{[]string{"-", "_"}, sends(engine.Command{Kind: engine.CmdViscosity, Factor: 0.5})}}},
		{Doc: "`t`", Help: "t", HelpText: "tension",
			Does: "surface tension on / off (`sim:set{ capillarity = ... }` from the keyboard): on, a puddle stops at the thickness " +
				"the log says (`capillarity on: surface tension 0.072 N/m, capillary length 2.71 mm, wetting head 1.40 mm`)",
			Binds: []keyBind{{[]string{"t"}, sends(engine.Command{Kind: engine.CmdToggleCapillarity})}}},
		{Doc: "`a` / `A`", Help: "a/A", HelpText: "angle",
			Does: "contact angle − / + 5 degrees, within [0, 180]: the meniscus shading's, and with surface tension on the puddles' " +
				"thickness (the log gives the new wetting head); the receding angle turns with it (down to 0)",
			Binds: []keyBind{{[]string{"a"}, sends(engine.Command{Kind: engine.CmdContactAngle, Factor: -angleStep})},
				{[]string{"A"}, sends(engine.Command{Kind: engine.CmdContactAngle, Factor: angleStep})}}},
		{Doc: "`W`", Help: "W", HelpText: "waves",
			Does: "waves on / off (`sim:set{ waves = ... }` from the keyboard): while on, Table 1 has a `waves` row (the wave " +
				"particles' impacts and propagation per frame; their field is part of `surface`) and a line gives the wave particles' count",
			Binds: []keyBind{{[]string{"W"}, sends(engine.Command{Kind: engine.CmdToggleWaves})}}},
		{Doc: "`b`", Help: "b", HelpText: "bodies",
			Does: "floating bodies: each body's place, how much of it is under the surface, its lowest point and its speed, a line " +
				"each, into the log. While a scenario has bodies or sprays, a line counts them ([bodies.md](bodies.md)); while it " +
				"has flow meters (`sim:flow`), a line gives each one's rate and total ([scripting.md](scripting.md))",
			Binds: []keyBind{{[]string{"b"}, sends(engine.Command{Kind: engine.CmdLogBodies})}}},
		{Doc: "`d`",
			Does: "falling liquid: particles → off → particles (`sim:set{ falling = ... }` from the keyboard). Turned off, no more " +
				"liquid is released and the particles already in the air still land; the log says `falling: particles -> off`",
			Binds: []keyBind{{[]string{"d"}, sends(engine.Command{Kind: engine.CmdToggleFalling})}}},
		{Doc: "`l`", Help: "l", HelpText: "layer",
			Does:  "the depth map's layer: top → all → 1 → 2 → ... → top",
			Binds: []keyBind{{[]string{"l"}, sends(engine.Command{Kind: engine.CmdCycleLayer})}}},
		{Doc: "`r`", Help: "r", HelpText: "reload",
			Does:  "reload the script from its file (the demo: from the built-in copy)",
			Binds: []keyBind{{[]string{"r"}, sends(engine.Command{Kind: engine.CmdReload})}}},
		{Doc: "`w`", Help: "w", HelpText: "window",
			Does: "open or close the preview window on the run. A window needs a display (`DISPLAY`: a desktop session, " +
				"`ssh -X`); without one each press says so on the note line and in the log, with what to use instead: `c` for " +
				"a still and `v` for a clip (both drawn offscreen), `vpbench render` for stills and clips from the command line",
			Binds: []keyBind{{[]string{"w"}, (*Model).togglePreview}}},
		{Doc: "`c`", Help: "c", HelpText: "still",
			Does: "screenshot into the output folder (`--out-dir`, `vpbench-out/` by default, made when first needed): the " +
				"preview's picture of the next frame as `vpbench-<time>.png` (offscreen, so it works without a window and, with " +
				"Xvfb installed, without a display); when that cannot be had (no preview, a paused run) the UI's screen as text, " +
				"`vpbench-<time>.txt`. The note line and the log give its full path",
			Binds: []keyBind{{[]string{"c"}, (*Model).screenshot}}},
		{Doc: "`v`", Help: "v", HelpText: "clip",
			Does: "record: start or stop a clip of the preview's view into the output folder (`--out-dir`, `vpbench-out/` by " +
				"default), `vpbench-<date>-<time>.mp4` (30 pictures a simulated second, through ffmpeg; numbered PNGs in a folder " +
				"of that name when ffmpeg is missing). Each picture is drawn before the run goes on, so the run slows down while " +
				"it records; the clip still plays at real speed (its pictures fall every 1/30 s of simulated time). The title bar " +
				"shows `● rec` and the file, and the line under the status line the speed: `● recording: 0.16× real time; the " +
				"clip plays at real speed`. The log gives the clip's full path and says what was recorded. The pictures are " +
				"encoded on a goroutine of their own behind a queue of 4: when ffmpeg falls behind, a picture is dropped from the " +
				"clip rather than the run slowed, and the log says how many so far (at most once a second) and in all when the " +
				"clip ends. [scripting.md](scripting.md) has the details (`sim:record`)",
			Binds: []keyBind{{[]string{"v"}, sends(engine.Command{Kind: engine.CmdRecord})}}},
		{Doc: "`↑` `↓` `PgUp` `PgDn` `End`",
			Does: "scroll the log (also `k`, `j`, `G`); End follows it again. The log's title names them",
			Binds: []keyBind{{[]string{"up", "k"}, (*Model).scrollUp}, {[]string{"down", "j"}, (*Model).scrollDown},
				{[]string{"pgup"}, (*Model).pageUp}, {[]string{"pgdown"}, (*Model).pageDown}, {[]string{"end", "G"}, (*Model).follow}}},
	}
}

// docKeyNames maps the doc's names of keys to Bubble Tea's where they differ.
var docKeyNames = map[string]string{"Esc": "esc", "Ctrl-C": "ctrl+c", "↑": "up", "↓": "down", "PgUp": "pgup", "PgDn": "pgdown", "End": "end"}

// action is what key k does (nil: nothing).
func (m *Model) action(k tea.KeyPressMsg) func(*Model) tea.Cmd {
	name := k.String()
	for _, row := range m.keys {
		for _, b := range row.Binds {
			if slices.Contains(b.Keys, name) {
				return b.Do
			}
		}
	}
	return nil
}

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	m.send(engine.Command{Kind: engine.CmdQuit})
	return tea.Quit
}

func (m *Model) scrollUp() tea.Cmd {
	m.logView.ScrollUp(1)
	m.following = m.logView.AtBottom()
	return nil
}

func (m *Model) scrollDown() tea.Cmd {
	m.logView.ScrollDown(1)
	m.following = m.logView.AtBottom()
	return nil
}

func (m *Model) pageUp() tea.Cmd {
	m.logView.PageUp()
	m.following = m.logView.AtBottom()
	return nil
}

func (m *Model) pageDown() tea.Cmd {
	m.logView.PageDown()
	m.following = m.logView.AtBottom()
	return nil
}

func (m *Model) follow() tea.Cmd {
	m.logView.GotoBottom()
	m.following = true
	return nil
}

// helpStyles are the help line's colours (bubbles' help, dark background).
var helpStyles = help.DefaultDarkStyles()

// helpSeparator goes between two keys on the help line.
const helpSeparator = " • "

// helpItems are the help line's entries, "q quit", in the table's order.
func helpItems(rows []keyRow) []string {
	var items []string
	for _, r := range rows {
		if r.Help != "" {
			items = append(items, r.Help+" "+r.HelpText)
		}
	}
	return items
}

// helpLines is the help line wrapped between keys to width, in at most maxRows rows (the
// last one cut with an ellipsis when they do not all fit), coloured.
func helpLines(rows []keyRow, width, maxRows int) []string {
	var out []string
	var cur []string
	curW := 0
	sep := ansi.StringWidth(helpSeparator)
	for _, it := range helpItems(rows) {
		w := ansi.StringWidth(it)
		if len(cur) > 0 && curW+sep+w > width {
			out = append(out, strings.Join(cur, helpSeparator))
			cur, curW = nil, 0
		}
		if len(cur) > 0 {
			curW += sep
		}
		cur = append(cur, it)
		curW += w
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, helpSeparator))
	}
	maxRows = max(maxRows, 1)
	if len(out) > maxRows {
		out = out[:maxRows]
		last := out[maxRows-1] + helpSeparator + "…"
		out[maxRows-1] = ansi.Truncate(last, width, "…")
	}
	for i, l := range out {
		out[i] = styleHelp(l)
	}
	return out
}

// styleHelp colours a help row: keys bright, their text and the separators dim.
func styleHelp(row string) string {
	var b strings.Builder
	for i, it := range strings.Split(row, helpSeparator) {
		if i > 0 {
			b.WriteString(helpStyles.ShortSeparator.Render(helpSeparator))
		}
		k, text, _ := strings.Cut(it, " ")
		b.WriteString(helpStyles.ShortKey.Render(k))
		if text != "" {
			b.WriteString(helpStyles.ShortDesc.Render(" " + text))
		}
	}
	return b.String()
}
