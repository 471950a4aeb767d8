package engine

import (
	"math"

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
