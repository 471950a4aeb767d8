package edgemeasure

import (
	"image"
	"image/color"
	"slices"
	"testing"
)

// disc is a w x h mask holding a disc of radius r at (cx, cy).
func disc(w, h int, cx, cy, r float64) []bool {
	m := make([]bool, w*h)
	for y := range h {
		for x := range w {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			m[y*w+x] = dx*dx+dy*dy <= r*r
		}
	}
	return m
}

// TestSmoothDiscScoresAsClean: a disc is one piece, no speck, and loses little to the
// smoothing (the stairs of its pixel boundary are kept); five lone pixels beside it are
// five specks; a boundary torn by notches two pixels wide every four scores past 1.4.
func TestSmoothDiscScoresAsClean(t *testing.T) {
	const w, h = 200, 200
	m := disc(w, h, 100, 100, 60)
	e := MeasureMask(m, w, h)
	if e.Pieces != 1 || e.Specks != 0 || !(e.Roughness >= 1 && e.Roughness <= 1.3) {
		t.Fatalf("disc: %+v; want one piece, no speck, roughness in [1, 1.3]", e)
	}
	for k := range 5 {
		m[5*w+10+4*k] = true
	}
	if e := MeasureMask(m, w, h); e.Pieces != 6 || e.Specks != 5 {
		t.Fatalf("disc and 5 pixels: %+v; want 6 pieces, 5 specks", e)
	}
	torn := disc(w, h, 100, 100, 60)
	for y := range h {
		for x := range w {
			dx, dy := float64(x)+0.5-100, float64(y)+0.5-100
			if r2 := dx*dx + dy*dy; r2 > 55*55 && (x/2+y/2)%2 == 0 {
				torn[y*w+x] = false
			}
		}
	}
	if e := MeasureMask(torn, w, h); !(e.Roughness > 1.4) {
		t.Fatalf("torn disc: roughness %.3f, want > 1.4", e.Roughness)
	}
}

// TestLiquidMaskReadsTheLiquid: pixels of the liquid's hue and enough saturation are
// liquid; grey terrain, a pale tint and another hue are not; a grey colour has none.
func TestLiquidMaskReadsTheLiquid(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 1))
	img.SetRGBA(0, 0, color.RGBA{110, 60, 30, 255})   // coffee, deep
	img.SetRGBA(1, 0, color.RGBA{200, 200, 198, 255}) // terrain
	img.SetRGBA(2, 0, color.RGBA{200, 185, 175, 255}) // a pale film (saturation 0.13)
	img.SetRGBA(3, 0, color.RGBA{40, 90, 200, 255})   // water's blue
	coffee := [3]float32{0.44, 0.24, 0.12}
	got := LiquidMask(img, coffee)
	if want := []bool{true, false, false, false}; !slices.Equal(got, want) {
		t.Fatalf("mask %v, want %v", got, want)
	}
	for _, v := range LiquidMask(img, [3]float32{0.5, 0.5, 0.5}) {
		if v {
			t.Fatal("a grey colour has liquid pixels")
		}
	}
}
