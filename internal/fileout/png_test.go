package fileout

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestWritePNG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{200, 100, 50, 255})
	path := filepath.Join(t.TempDir(), "pics", "p.png")
	if err := WritePNG(path, img); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds() != img.Bounds() {
		t.Fatalf("bounds %v, want %v", got.Bounds(), img.Bounds())
	}
	if r, g, b, a := got.At(1, 1).RGBA(); r>>8 != 200 || g>>8 != 100 || b>>8 != 50 || a>>8 != 255 {
		t.Errorf("pixel (1, 1) reads %d %d %d %d", r>>8, g>>8, b>>8, a>>8)
	}
}
