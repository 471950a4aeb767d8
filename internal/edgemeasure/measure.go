package edgemeasure

import "image"

// SpeckPixels is the size under which a piece of liquid counts as a speck, pixels.
const SpeckPixels = 40

// SmoothRadius is the radius of the disc the roughness's opening and closing use, pixels.
const SmoothRadius = 2

// Edge is what Measure finds in a picture.
type Edge struct {
	Pixels    int     // liquid pixels
	Pieces    int     // 4-connected pieces of liquid
	Specks    int     // pieces under SpeckPixels pixels
	Boundary  int     // the liquid mask's boundary length, pixel edges
	Smoothed  int     // the boundary length after the opening and closing, pixel edges
	Roughness float64 // Boundary / Smoothed; 0 when the smoothed mask is empty
}

// Measure finds the liquid of colour col (sRGB in [0, 1]) in img (LiquidMask) and
// measures its edge.
func Measure(img *image.RGBA, col [3]float32) Edge {
	b := img.Bounds()
	return MeasureMask(LiquidMask(img, col), b.Dx(), b.Dy())
}

// MeasureMask measures the edge of a mask of w x h pixels in row order.
func MeasureMask(mask []bool, w, h int) Edge {
	e := Edge{}
	for _, m := range mask {
		if m {
			e.Pixels++
		}
	}
	e.Pieces, e.Specks = pieces(mask, w, h)
	e.Boundary = boundary(mask, w, h)
	disc := discOffsets(SmoothRadius)
	a := erode(mask, w, h, disc)
	a = dilate(a, w, h, disc) // opened
	a = dilate(a, w, h, disc)
	a = erode(a, w, h, disc) // then closed
	e.Smoothed = boundary(a, w, h)
	if e.Smoothed > 0 {
		e.Roughness = float64(e.Boundary) / float64(e.Smoothed)
	}
	return e
}

// boundary counts the pixel edges between a mask pixel and a pixel outside the mask
// (4-neighbours; outside the picture counts as outside the mask).
func boundary(mask []bool, w, h int) int {
	n := 0
	for y := range h {
		for x := range w {
			if !mask[y*w+x] {
				continue
			}
			if x == 0 || !mask[y*w+x-1] {
				n++
			}
			if x == w-1 || !mask[y*w+x+1] {
				n++
			}
			if y == 0 || !mask[(y-1)*w+x] {
				n++
			}
			if y == h-1 || !mask[(y+1)*w+x] {
				n++
			}
		}
	}
	return n
}

// pieces counts the 4-connected pieces of the mask, and those under SpeckPixels pixels.
func pieces(mask []bool, w, h int) (all, specks int) {
	seen := make([]bool, len(mask))
	var stack []int
	for start, m := range mask {
		if !m || seen[start] {
			continue
		}
		all++
		size := 0
		seen[start] = true
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			size++
			x, y := p%w, p/w
			for _, q := range [4]int{p - 1, p + 1, p - w, p + w} {
				switch {
				case q == p-1 && x == 0, q == p+1 && x == w-1, q == p-w && y == 0, q == p+w && y == h-1:
					continue
				}
				if mask[q] && !seen[q] {
					seen[q] = true
					stack = append(stack, q)
				}
			}
		}
		if size < SpeckPixels {
			specks++
		}
	}
	return all, specks
}

// discOffsets are the pixel offsets of a disc of radius r: dx^2 + dy^2 <= r^2 + 1, the
// digital disc (5 x 5 less its corners for r = 2).
func discOffsets(r int) [][2]int {
	var o [][2]int
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if dx*dx+dy*dy <= r*r+1 {
				o = append(o, [2]int{dx, dy})
			}
		}
	}
	return o
}

// erode keeps the pixels whose whole disc lies in the mask (outside the picture counts
// as outside the mask).
func erode(mask []bool, w, h int, disc [][2]int) []bool {
	out := make([]bool, len(mask))
	for y := range h {
		for x := range w {
			in := mask[y*w+x]
			for _, d := range disc {
				if !in {
					break
				}
				px, py := x+d[0], y+d[1]
				in = px >= 0 && py >= 0 && px < w && py < h && mask[py*w+px]
			}
			out[y*w+x] = in
		}
	}
	return out
}

// dilate sets the pixels whose disc meets the mask.
func dilate(mask []bool, w, h int, disc [][2]int) []bool {
	out := make([]bool, len(mask))
	for y := range h {
		for x := range w {
			if !mask[y*w+x] {
				continue
			}
			for _, d := range disc {
				if px, py := x+d[0], y+d[1]; px >= 0 && py >= 0 && px < w && py < h {
					out[py*w+px] = true
				}
			}
		}
	}
	return out
}
