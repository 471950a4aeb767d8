package tui

import (
	"fmt"
	"strings"

	"github.com/vpbench/vpbench/engine"
)

// rgb is a 24-bit colour.
type rgb struct{ r, g, b uint8 }

var (
	colourNone    = rgb{16, 16, 16} // no column: solid all the way
	colourDryLow  = rgb{70, 62, 52} // dry terrain at the floor
	colourDryHigh = rgb{190, 180, 160}
	colourShallow = rgb{150, 225, 255} // a thin film
	colourDeep    = rgb{10, 40, 150}   // the map's deepest liquid
)

func lerp(a, b rgb, t float32) rgb {
	t = min(max(t, 0), 1)
	f := func(x, y uint8) uint8 { return uint8(float32(x) + (float32(y)-float32(x))*t + 0.5) }
	return rgb{f(a.r, b.r), f(a.g, b.g), f(a.b, b.b)}
}

// wetThreshold is the depth below which a pixel counts as dry on the map, m (0.1 um: the
// solver's rounding leaves traces far below it).
const wetThreshold = 1e-7

// pixelColour is the colour of pixel k of m.
func pixelColour(m *engine.DepthMap, k int) rgb {
	d := m.Depth[k]
	switch {
	case d < 0:
		return colourNone
	case d <= wetThreshold:
		return lerp(colourDryLow, colourDryHigh, m.Ground[k])
	default:
		return lerp(colourShallow, colourDeep, d/max(m.MaxDepth, wetThreshold))
	}
}

// renderDepthMap draws the map as rows of upper half blocks: each character's foreground is the
// upper pixel and its background the lower one. Colours are 24-bit SGR sequences (Bubble
// Tea downsamples them to what the terminal supports); a run of equal colours shares one
// sequence.
func renderDepthMap(m *engine.DepthMap) []string {
	rows := make([]string, 0, (m.H+1)/2)
	for r := 0; r < (m.H+1)/2; r++ {
		var b strings.Builder
		var last [2]rgb
		first := true
		for x := range m.W {
			top := pixelColour(m, 2*r*m.W+x)
			bot := colourNone
			if 2*r+1 < m.H {
				bot = pixelColour(m, (2*r+1)*m.W+x)
			}
			if first || top != last[0] || bot != last[1] {
				fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%d;48;2;%d;%d;%dm", top.r, top.g, top.b, bot.r, bot.g, bot.b)
				last, first = [2]rgb{top, bot}, false
			}
			b.WriteString("▀")
		}
		b.WriteString("\x1b[m")
		rows = append(rows, b.String())
	}
	return rows
}

// depthLegend is the map's colour scale: dry, then shallow to deep up to MaxDepth.
func depthLegend(m *engine.DepthMap) string {
	var b strings.Builder
	sw := func(c rgb) { fmt.Fprintf(&b, "\x1b[48;2;%d;%d;%dm  \x1b[m", c.r, c.g, c.b) }
	sw(colourNone)
	b.WriteString(" solid  ")
	sw(lerp(colourDryLow, colourDryHigh, 0.5))
	b.WriteString(" dry  ")
	for k := range 5 {
		sw(lerp(colourShallow, colourDeep, float32(k)/4))
	}
	fmt.Fprintf(&b, " 0 to %s deep", formatDepth(float64(m.MaxDepth)))
	return b.String()
}

// formatDepth writes a depth in mm (um below 0.1 mm).
func formatDepth(d float64) string {
	if d < 1e-4 {
		return fmt.Sprintf("%.1f um", d*1e6)
	}
	return fmt.Sprintf("%.2f mm", d*1e3)
}
