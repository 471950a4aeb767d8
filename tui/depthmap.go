package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/vpbench/vpbench/terrain"
)

// DepthMap is a top-down picture of the liquid, sampled down from the grid: W x H pixels,
// row 0 at the top (the domain's largest y), drawn two pixels a character (half blocks).
type DepthMap struct {
	W, H  int
	Layer Layer
	// Depth is the liquid depth of each pixel in metres (row-major, W*H); a negative value
	// means that no column is there (solid, or fewer columns than the layer asked for).
	Depth []float32
	// Ground is the pixel's column floor as a fraction of the domain height (0..1): the
	// shade of dry terrain.
	Ground []float32
	// MaxDepth is the largest depth on the map, m (the colour scale's top).
	MaxDepth float32
}

// samplesPerAxis is how many cells a pixel looks at along each axis when it covers more
// than one: it shows the deepest of them, so that thin streams stay visible when sampled
// down, at a bounded cost (W*H*9 cells at most).
const samplesPerAxis = 3

// fitMap returns the pixel size of a map of an nx x ny grid that fits cols x rows
// characters (two pixels a character vertically) with square cells.
func fitMap(nx, ny, cols, rows int) (w, h int) {
	if nx <= 0 || ny <= 0 || cols <= 0 || rows <= 0 {
		return 0, 0
	}
	s := math.Min(float64(cols)/float64(nx), float64(2*rows)/float64(ny))
	w = min(cols, max(1, int(math.Round(float64(nx)*s))))
	h = min(2*rows, max(1, int(math.Round(float64(ny)*s))))
	return w, h
}

// cellDepth is the depth and ground of cell (x, y) for a layer; ok is false when the cell
// has no such column.
func cellDepth(c *terrain.Columns, height []float32, x, y int, layer Layer) (depth, ground float32, ok bool) {
	lo, hi := c.Cell(x, y)
	if hi <= lo {
		return 0, 0, false
	}
	i := hi - 1
	switch {
	case layer == LayerAll:
		for j := lo; j < hi; j++ {
			depth += height[j] - c.Base[j]
		}
	case layer > 0:
		i = lo + int(layer) - 1
		if i >= hi {
			return 0, 0, false
		}
		fallthrough
	default:
		depth = height[i] - c.Base[i]
	}
	if c.Height > 0 {
		ground = c.Base[i] / float32(c.Height)
	}
	return max(depth, 0), ground, true
}

// computeDepthMap samples heights (a snapshot's Height over columns c) into a w x h map.
func computeDepthMap(c *terrain.Columns, height []float32, layer Layer, w, h int) DepthMap {
	m := DepthMap{W: w, H: h, Layer: layer}
	if c == nil || w <= 0 || h <= 0 || len(height) < c.NumColumns() {
		m.W, m.H = 0, 0
		return m
	}
	m.Depth = make([]float32, w*h)
	m.Ground = make([]float32, w*h)
	var xs, ys [samplesPerAxis]int
	for py := range h {
		// Row 0 is the top of the picture: the largest y.
		y1 := c.Ny - py*c.Ny/h
		y0 := min(c.Ny-(py+1)*c.Ny/h, y1-1)
		for px := range w {
			x0 := px * c.Nx / w
			x1 := max((px+1)*c.Nx/w, x0+1)
			best, ground, found := float32(-1), float32(0), false
			for _, y := range samples(&ys, y0, y1) {
				for _, x := range samples(&xs, x0, x1) {
					d, g, ok := cellDepth(c, height, x, y, layer)
					if ok && (!found || d > best) {
						best, ground, found = d, g, true
					}
				}
			}
			k := py*w + px
			m.Depth[k], m.Ground[k] = best, ground
			m.MaxDepth = max(m.MaxDepth, best)
		}
	}
	return m
}

// samples returns up to samplesPerAxis evenly spread indices in [lo, hi) in buf.
func samples(buf *[samplesPerAxis]int, lo, hi int) []int {
	n := hi - lo
	if n <= samplesPerAxis {
		for i := range n {
			buf[i] = lo + i
		}
		return buf[:max(n, 0)]
	}
	for k := range buf {
		buf[k] = lo + (2*k+1)*n/(2*samplesPerAxis)
	}
	return buf[:]
}

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
func (m *DepthMap) pixelColour(k int) rgb {
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

// Render draws the map as rows of upper half blocks: each character's foreground is the
// upper pixel and its background the lower one. Colours are 24-bit SGR sequences (Bubble
// Tea downsamples them to what the terminal supports); a run of equal colours shares one
// sequence.
func (m *DepthMap) Render() []string {
	rows := make([]string, 0, (m.H+1)/2)
	for r := 0; r < (m.H+1)/2; r++ {
		var b strings.Builder
		var last [2]rgb
		first := true
		for x := range m.W {
			top := m.pixelColour(2*r*m.W + x)
			bot := colourNone
			if 2*r+1 < m.H {
				bot = m.pixelColour((2*r+1)*m.W + x)
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

// Legend is the map's colour scale: dry, then shallow to deep up to MaxDepth.
func (m *DepthMap) Legend() string {
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
