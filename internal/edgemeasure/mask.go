package edgemeasure

import (
	"image"
	"math"
)

// The liquid pixels: a pixel reads as the liquid when its hue lies within HueTolerance
// degrees of the liquid colour's, its HSV saturation is at least MinSaturation and its
// value at least MinValue. The preview's terrain is a near-neutral grey (saturation under
// 0.1 lit, up to 0.15 in the bluish ambient of its shadows), its background a dark
// blue-grey (0.16) and the walls' glass a pale blue-grey over them (under 0.2); the named
// liquids are water (hue 210 degrees), blood (359), coffee (24) and paint (42), and each
// tints what lies under it past 0.25 wherever enough of it lies to read as liquid. Thin
// films, the highlights the surface mirrors and bare terrain fall out. The thresholds
// sit between the two with a margin on each side: at 0.35 the measure follows the
// gradient of a thinning edge (the surgery picture's roughness reads 1.72 there against
// 1.29 at 0.25) instead of the liquid's outline.
const (
	HueTolerance  = 30   // degrees
	MinSaturation = 0.25 // HSV saturation, [0, 1]
	MinValue      = 0.1  // HSV value, [0, 1]
)

// LiquidMask returns, for each pixel of img in row order, whether it reads as a liquid
// of colour col (sRGB in [0, 1], as preview.Frame.Color). A grey colour (no hue) has no
// liquid pixels.
func LiquidMask(img *image.RGBA, col [3]float32) []bool {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	mask := make([]bool, w*h)
	hue, sat, _ := HSV(float64(col[0]), float64(col[1]), float64(col[2]))
	if sat == 0 {
		return mask
	}
	for y := range h {
		row := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):]
		for x := range w {
			p := row[4*x : 4*x+3 : 4*x+3]
			ph, ps, pv := HSV(float64(p[0])/255, float64(p[1])/255, float64(p[2])/255)
			if ps >= MinSaturation && pv >= MinValue && hueDistance(ph, hue) <= HueTolerance {
				mask[y*w+x] = true
			}
		}
	}
	return mask
}

// HSV returns the hue (degrees in [0, 360)), saturation and value of an RGB colour in
// [0, 1].
func HSV(r, g, b float64) (h, s, v float64) {
	mx, mn := max(r, g, b), min(r, g, b)
	v = mx
	if mx <= 0 {
		return 0, 0, 0
	}
	d := mx - mn
	s = d / mx
	switch {
	case d == 0:
		return 0, 0, v
	case mx == r:
		h = 60 * math.Mod((g-b)/d, 6)
	case mx == g:
		h = 60 * ((b-r)/d + 2)
	default:
		h = 60 * ((r-g)/d + 4)
	}
	if h < 0 {
		h += 360
	}
	return h, s, v
}

// hueDistance is the angle between two hues, degrees in [0, 180].
func hueDistance(a, b float64) float64 {
	d := math.Abs(a - b)
	return min(d, 360-d)
}
