package tui

import (
	"fmt"
	"math"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/timing"
)

var (
	styleTitle   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#FFFFFF")).Background(lipgloss.Color("#2B4C7E"))
	styleDim     = lipgloss.NewStyle().Foreground(lipgloss.Color("#8A8A8A"))
	styleHead    = lipgloss.NewStyle().Bold(true)
	styleWarn    = lipgloss.NewStyle().Foreground(lipgloss.Color("#E5C07B"))
	styleErr     = lipgloss.NewStyle().Foreground(lipgloss.Color("#FF5F5F")).Bold(true)
	styleInfo    = lipgloss.NewStyle().Foreground(lipgloss.Color("#61AFEF"))
	styleRunning = lipgloss.NewStyle().Foreground(lipgloss.Color("#98C379")).Bold(true)
	styleSpark   = lipgloss.NewStyle().Foreground(lipgloss.Color("#56B6C2"))
)

// The text is wrapped at word boundaries to width (0: not wrapped) before it is styled,
// so that every wrapped line carries the style.
func styleLog(l engine.LogLine, width int) string {
	wrap := func(s string) string {
		if width > 0 {
			return ansi.Wrap(s, width, "")
		}
		return s
	}
	switch l.Level {
	case engine.LogError:
		return styleErr.Render(wrap("error: " + l.Text))
	case engine.LogWarn:
		return styleWarn.Render(wrap(l.Text))
	case engine.LogInfo:
		return styleInfo.Render(wrap("» " + l.Text))
	default:
		return wrap(l.Text)
	}
}

// statusBadge is the run's state in a word or two, with a symbol.
func statusBadge(s engine.Status) string {
	switch s {
	case engine.StatusRunning:
		return styleRunning.Render("▶ running")
	case engine.StatusPaused:
		return styleWarn.Render("⏸ paused")
	case engine.StatusFinished:
		return styleInfo.Render("■ finished")
	case engine.StatusFailed:
		return styleErr.Render("✖ stopped on an error")
	case engine.StatusNoScene:
		return styleErr.Render("✖ not loaded")
	default:
		return styleDim.Render("… loading")
	}
}

// render draws the whole screen: the head (title, status, timings, volumes, settings),
// the depth map and the log, and the foot (the note or error line and the help line).
// Every line is cut to the window width. The foot always shows: layout gives the map and
// the log the rows the head and the foot leave, whatever optional rows the head has.
func (m *Model) render() string {
	if m.quitting {
		return ""
	}
	st := &m.st
	lines := m.headLines()

	mapRows := min(m.mapRows, (st.Map.H+1)/2)
	var mapLines []string
	if mapRows > 0 {
		lines = append(lines, styleHead.Render("depth map")+fmt.Sprintf(" (%s; l: next) ", st.Layer)+depthLegend(&st.Map))
		mapLines = renderDepthMap(&st.Map)[:mapRows]
	} else {
		lines = append(lines, styleHead.Render("depth map")+styleDim.Render(" (no room: make the window taller)"))
	}
	logTitle := "log (↑↓ pgup pgdn scroll)"
	if !m.following {
		logTitle = "log (scrolled: end follows)"
	}
	if m.side {
		right := append([]string{styleDim.Render(padRight("── "+logTitle+" ", m.logView.Width(), '─'))},
			strings.Split(m.logView.View(), "\n")...)
		for i := range max(len(mapLines), len(right)) {
			l := strings.Repeat(" ", st.Map.W)
			if i < len(mapLines) {
				l = mapLines[i]
			}
			if i < len(right) {
				l += " " + styleDim.Render("│") + " " + right[i]
			}
			lines = append(lines, l)
		}
	} else {
		lines = append(lines, mapLines...)
		lines = append(lines, styleDim.Render(padRight("── "+logTitle+" ", m.width, '─')))
		lines = append(lines, m.logView.View())
	}

	body := strings.Split(strings.Join(lines, "\n"), "\n")
	foot := m.footLines()
	if m.height > 0 && len(body)+len(foot) > m.height {
		// A window too short for everything: the log's (and then the map's) last rows
		// go, never the note and the help line; the head goes last.
		body = body[:max(m.height-len(foot), 0)]
	}
	for m.height > 0 && len(body)+len(foot) < m.height {
		body = append(body, "") // the room of an optional row that went: the foot stays at the bottom
	}
	rows := append(body, foot...)
	if m.height > 0 && len(rows) > m.height {
		rows = rows[len(rows)-m.height:]
	}
	for i, r := range rows {
		rows[i] = ansi.Truncate(r, m.width, "…")
	}
	return strings.Join(rows, "\n")
}

// headLines are the rows above the depth map: title, status, the recording's speed
// while it records, Table 1 (with the waves' and the 3D region's rows while they run),
// the volumes, the optional rows (in the air, waves, flow meters, bodies), columns and
// settings (naming the 3D region in place). Each is one row once cut to the width.
func (m *Model) headLines() []string {
	st := &m.st
	var lines []string
	add := func(format string, a ...any) { lines = append(lines, fmt.Sprintf(format, a...)) }

	backend := "—"
	if st.Backend != "" {
		backend = engine.BackendName(st.Backend, st.Workers)
		if st.SurfaceWorkers > 0 { // the frames overlap (engine.Config.Overlap)
			backend += fmt.Sprintf(", surface beside on %d", st.SurfaceWorkers)
		}
	}
	name := st.Name
	if name == "" {
		name = "(loading)"
	}
	title := fmt.Sprintf(" vpbench │ %s │ %s │ %s │ %s ", name, st.Speed, backend, method(st))
	if st.Recording != "" {
		title += fmt.Sprintf("│ ● rec %s ", st.Recording)
	}
	lines = append(lines, styleTitle.Render(padRight(title, m.width)))

	pace := fmt.Sprintf("%.0f steps/s │ %.2f× real time", st.StepsPerSec, st.RealTime)
	if st.Status != engine.StatusRunning {
		pace = styleDim.Render(pace)
	}
	line := fmt.Sprintf("%s  t = %.3f s │ %s", statusBadge(st.Status), st.Time, pace)
	if st.Lagging {
		line += " " + styleWarn.Render("⚠ cannot keep up with "+st.Speed.String())
	}
	line += fmt.Sprintf(" │ steps %d │ dt %.3g ms", st.Steps, st.Dt*1e3)
	if st.Until > 0 {
		line += fmt.Sprintf(" │ until %g s", st.Until)
	}
	lines = append(lines, line)
	lines = append(lines, recordingLine(st)) // blank unless it records: the row is always there

	lines = append(lines, styleHead.Render(fmt.Sprintf("%-12s %9s %9s %9s %9s %9s", "ms/frame", "avg 2 s", "max 2 s", "avg all", "max all", "frames")))
	row := func(name string, w, t timing.PhaseTiming) {
		add("%-12s %9s %9s %9s %9s %9d", name, ms(w.AvgMs, w.Frames), ms(w.MaxMs, w.Frames), ms(t.AvgMs, t.Frames), ms(t.MaxMs, t.Frames), t.Frames)
	}
	row("simulation", st.Window.Simulation, st.Total.Simulation)
	row("surface", st.Window.Surface, st.Total.Surface)
	row("render", st.Window.Render, st.Total.Render)
	if st.Waves || st.Total.Waves.Frames > 0 { // the wave particles' own line, while they run or ran
		row("waves", st.Window.Waves, st.Total.Waves)
	}
	if st.HasRegion { // the 3D region's own line while one is in place: its share of simulation
		row("3D region", st.Window.Region, st.Total.Region)
		lines[len(lines)-1] += " │ " + regionLoad(st)
	}
	add("%-12s %9s %9s %9s %9s │ %s", "sim/step", ms(perStep(st.Window.Simulation, st.Window.Steps), st.Window.Simulation.Frames), "",
		ms(st.Total.StepMs(), st.Total.Simulation.Frames), "", frameLine(st))
	lines = append(lines, fmt.Sprintf("%-12s ", "recent")+sparkline(st.Spark, max(m.width-34, 8)))
	lines = append(lines, "")

	errRel := ""
	if st.Added > 0 {
		errRel = fmt.Sprintf(" (conservation error %.2g)", (st.Volume-(st.Added-st.Removed-st.Outflow))/st.Added)
	}
	outflow := "" // what left through open sides: shown once there is some
	if st.Outflow != 0 {
		outflow = " │ outflow " + volume(st.Outflow)
	}
	add("volume %s │ added %s │ removed %s%s │ rejected %s%s", volume(st.Volume), volume(st.Added), volume(st.Removed), outflow, volume(st.Rejected), errRel)
	// Liquid falling, or gathering at dripping edges before it falls: a line only while
	// there is some, each part named for what it is.
	switch air := st.Airborne - st.Hanging; {
	case st.Particles > 0 && st.Hanging > 0:
		add("in the air %s in %d drops │ gathering at edges %s (part of the volume)", volume(air), st.Particles, volume(st.Hanging))
	case st.Particles > 0:
		add("in the air %s in %d drops (part of the volume)", volume(air), st.Particles)
	case st.Hanging > 0:
		add("gathering at edges %s, to drip (part of the volume)", volume(st.Hanging))
	}
	if st.Waves {
		add("waves on: %d wave particles (W: off)", st.WaveCount)
	}
	if len(st.MeterRates) > 0 {
		var b strings.Builder
		for i, q := range st.MeterRates {
			if i > 0 {
				b.WriteString(" │ ")
			}
			fmt.Fprintf(&b, "#%d %s/s (%s through)", i+1, volume(q), volume(st.MeterTotals[i]))
		}
		add("flow meters: %s", b.String())
	}
	if st.Bodies > 0 || st.Sprays > 0 {
		add("floating bodies %d (b: each one's depth and speed in the log) │ sprays %d", st.Bodies, st.Sprays)
	}
	add("columns %d (%d×%d×%d, dx %g mm) │ wet %d │ pipes %d │ extended %d in %d passage(s)",
		st.Columns, st.Nx, st.Ny, st.Layers, st.Dx*1e3, st.Wet, st.Pipes, st.Extended, st.Passages)
	settings := fmt.Sprintf("viscosity %.3g m²/s │ damping %g │ cross-section %s │ extended pipes: %s │ falling: %s │ %s",
		st.Settings.Viscosity, st.Settings.Damping, st.Settings.CrossSection, st.Settings.ExtendedPipes, falling(st), capillarity(st))
	if st.HasRegion {
		// First: the line is some 125 cells wide already and is cut to the window, and the
		// region is what sets this scene apart (capillarity, last, is off with one).
		settings = regionName(st) + " │ " + settings
	}
	lines = append(lines, settings)
	return lines
}

// recordingLine is the row under the status line: while a clip records, the speed the
// run keeps (drawing each picture slows it) and that the clip plays at real speed all
// the same (its pictures fall at fixed simulated times); blank otherwise.
func recordingLine(st *engine.State) string {
	switch {
	case st.Recording == "":
		return ""
	case st.Status == engine.StatusRunning:
		return styleErr.Render("● recording") + fmt.Sprintf(": %.2f× real time; the clip plays at real speed", st.RealTime)
	default:
		return styleErr.Render("● recording") + ": paused; the clip goes on when the run does"
	}
}

// footLines are the rows under the log: the note (a key's outcome) or the error that
// stopped the scenario, then the help line, wrapped between keys (up to 3 rows where the
// window is tall enough).
func (m *Model) footLines() []string {
	var note string
	switch {
	case m.note != "":
		note = styleInfo.Render(m.note)
	case m.st.Err != "":
		note = styleErr.Render("error: " + m.st.Err)
	}
	helpRows := min(max((m.height-minBodyRows)/3, 1), maxHelpRows)
	return append([]string{note}, helpLines(m.keys, max(m.width, 1), helpRows)...)
}

// maxHelpRows is the most rows the help line wraps onto; minBodyRows the rows the rest
// needs (without optional rows) before the help line takes a second.
const (
	maxHelpRows = 3
	minBodyRows = 17
)

// ms formats a time in ms, or a dash when no frame ran the phase (or the value is not
// known).
// perStep is a window's simulation time per solver step, ms.
func perStep(sim timing.PhaseTiming, steps int64) float64 {
	return timing.Timings{Simulation: sim, Steps: steps}.StepMs()
}

// frameLine says how frames are paced: the frames a second or the fixed steps a frame,
// and the steps a frame took on average recently.
func frameLine(st *engine.State) string {
	pace := fmt.Sprintf("%g frames/s", st.FPS)
	if st.FrameSteps > 0 {
		pace = fmt.Sprintf("%d steps/frame", st.FrameSteps)
	}
	if f := st.Window.Simulation.Frames; f > 0 {
		pace = framesPerSec(st)
	}
	if f := st.Window.Simulation.Frames; f > 0 {
		pace += fmt.Sprintf(", %.1f steps/frame lately", float64(st.Window.Steps)/float64(f))
	}
	return pace
}

// framesPerSec is the frames a wall second measured over the window, with the target
// beside it where they differ by more than fpsTolerance: the FPS asked in real time; as
// fast as possible none (a frame then covers as many 1/60 s of simulated time as the
// solver runs in two frame periods: docs/tui.md, "Pacing"); with --frame-steps the
// steps a frame.
func framesPerSec(st *engine.State) string {
	got := fmt.Sprintf("%.0f frames/s", st.FramesPerSec)
	switch {
	case st.FrameSteps > 0:
		return fmt.Sprintf("%s of %d steps", got, st.FrameSteps)
	case st.FPS <= 0 || st.Speed.Max:
		return got
	case math.Abs(st.FramesPerSec-st.FPS) > fpsTolerance*st.FPS:
		return fmt.Sprintf("%s (target %g)", got, st.FPS)
	}
	return got
}

// fpsTolerance is how far (a fraction of the target) the measured frames a second may be
// from the target before the line shows the target beside it.
const fpsTolerance = 0.03

func ms(v float64, frames int) string {
	if frames == 0 || math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.3f", v)
}

// volume formats m^3 in ml (litres from 1 l).
func volume(v float64) string {
	if math.Abs(v) >= 1e-3 {
		return fmt.Sprintf("%.4f l", v*1e3)
	}
	return fmt.Sprintf("%.4f ml", v*1e6)
}

var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last width values from 0 to their maximum, and their range.
func sparkline(v []float64, width int) string {
	if len(v) == 0 {
		return styleDim.Render("— (no frames yet)")
	}
	width = max(width-20, 4)
	if len(v) > width {
		v = v[len(v)-width:]
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	var b strings.Builder
	for _, x := range v {
		k := 0
		if hi > 0 {
			k = int(x / hi * float64(len(sparkRunes)-1))
		}
		b.WriteRune(sparkRunes[min(max(k, 0), len(sparkRunes)-1)])
	}
	return styleSpark.Render(b.String()) + fmt.Sprintf(" %.3f to %.3f ms", lo, hi)
}

// padRight pads s with fill (a space by default) to width cells.
func padRight(s string, width int, fill ...rune) string {
	f := ' '
	if len(fill) > 0 {
		f = fill[0]
	}
	if n := width - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(string(f), n)
	}
	return s
}

// capillarity is the surface tension and contact angle as people read them, short: the
// settings line is wide already.
func capillarity(st *engine.State) string {
	if st.Settings.SurfaceTension <= 0 {
		return "surface tension off"
	}
	s := st.Settings
	pressure := ""
	if s.CapillaryPressure {
		pressure = " +pressure"
		if s.ContactLine(st.Dt, st.Dx) == "angle" { // exact: the contact angle acts at the line
			pressure = " +pressure, angle at the line"
		}
	}
	if s.ContactHysteresis > 0 { // advancing/receding angles, and the band a puddle rests in
		return fmt.Sprintf("σ %.3g N/m%s, θ %.0f/%.0f°: puddles %.2f-%.2f mm", s.SurfaceTension, pressure,
			s.ContactAngle*180/math.Pi, s.RecedingAngle()*180/math.Pi, s.RecedingHead()*1e3, s.WettingHead()*1e3)
	}
	return fmt.Sprintf("σ %.3g N/m%s, θ %.0f°: puddles %.2f mm", s.SurfaceTension, pressure,
		s.ContactAngle*180/math.Pi, s.WettingHead()*1e3)
}

// regionName names the 3D region in place for the settings line, short (the line is
// wide already): its cells and their edge, "region 16×10×30 cells of 1 mm".
func regionName(st *engine.State) string {
	in := &st.Region
	return fmt.Sprintf("region %d×%d×%d cells of %.3g mm", in.NX, in.NY, in.NZ, in.H*1e3)
}

// regionLoad is what Table 1's region row adds after its timings: what its step's cost
// follows, its particles and the liquid cells of its last pressure solve among its cells.
func regionLoad(st *engine.State) string {
	in := &st.Region
	return fmt.Sprintf("%d particles, %d of %d cells liquid", in.Particles, in.LiquidCells, in.NX*in.NY*in.NZ)
}

// falling is the falling setting with the release threshold in use, as people read it.
func falling(st *engine.State) string {
	if f := st.Settings.Falling.String(); f != "particles" {
		return f
	}
	return fmt.Sprintf("particles below %.3g mm", st.FallDrop*1e3)
}

// method names the heightfield method in the title: "pipes", or "swe" with the substeps
// a step it has taken so far.
func method(st *engine.State) string {
	if st.Settings.Method.String() != "swe" {
		return "pipes"
	}
	if st.Steps > 0 && st.Substeps > 0 {
		return fmt.Sprintf("swe, %.1f substeps/step", float64(st.Substeps)/float64(st.Steps))
	}
	return "swe"
}
