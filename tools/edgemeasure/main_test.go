package main

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"github.com/vpbench/vpbench/internal/edgemeasure"
	"github.com/vpbench/vpbench/scene"
)

func TestGuessNamesTheLiquid(t *testing.T) {
	for path, want := range map[string]string{
		"out/rock3.png": "paint", "coffee_02.png": "coffee", "b0.1_surgery.png": "blood",
		"gauze.jpg": "blood", "x/blood_rock.png": "blood", "fountain.png": "water",
	} {
		if got := guess(path); got != want {
			t.Errorf("guess(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestMarksRingTheSpecks: a picture with one large piece of coffee and one speck of 4
// pixels gets a magenta ring about the speck and none about the large piece.
func TestMarksRingTheSpecks(t *testing.T) {
	col := scene.LiquidColors["coffee"]
	c := color.RGBA{uint8(col[0] * 255), uint8(col[1] * 255), uint8(col[2] * 255), 255}
	img := image.NewRGBA(image.Rect(0, 0, 60, 40))
	for y := range 40 {
		for x := range 60 {
			img.SetRGBA(x, y, color.RGBA{200, 200, 200, 255})
		}
	}
	for y := 5; y < 25; y++ {
		for x := 5; x < 25; x++ {
			img.SetRGBA(x, y, c)
		}
	}
	for _, p := range [][2]int{{45, 20}, {46, 20}, {45, 21}, {46, 21}} {
		img.SetRGBA(p[0], p[1], c)
	}
	mask := edgemeasure.LiquidMask(img, col)
	if e := edgemeasure.MeasureMask(mask, 60, 40); e.Specks != 1 || e.Pieces != 2 {
		t.Fatalf("the synthetic picture: %d pieces, %d specks; want 2 and 1", e.Pieces, e.Specks)
	}
	out := filepath.Join(t.TempDir(), "m.png")
	if err := writeMarks(out, img, mask); err != nil {
		t.Fatal(err)
	}
	got, err := load(out)
	if err != nil {
		t.Fatal(err)
	}
	magenta := color.RGBA{255, 0, 255, 255}
	if got.RGBAAt(42, 20) != magenta || got.RGBAAt(49, 20) != magenta {
		t.Errorf("no magenta ring 3 pixels about the speck: %v, %v", got.RGBAAt(42, 20), got.RGBAAt(49, 20))
	}
	for y := range 40 {
		for x := range 30 {
			if got.RGBAAt(x, y) == magenta {
				t.Fatalf("magenta at (%d, %d), about the large piece", x, y)
			}
		}
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}
