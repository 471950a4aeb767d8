package engine

import (
	"context"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vpbench/vpbench/preview"
)

// fakeShooter draws a plain picture whose grey level is the frame's time in 2 ms units.
type fakeShooter struct{ draws int }

func (s *fakeShooter) RenderPNG(src *preview.Source, f *preview.Frame, path string) (time.Duration, error) {
	img, took, _ := s.RenderImage(src, f, 32, 24)
	return took, preview.WritePNG(path, img)
}

func (s *fakeShooter) RenderImage(_ *preview.Source, f *preview.Frame, w, h int) (*image.RGBA, time.Duration, error) {
	if w == 0 || h == 0 {
		w, h = 33, 25 // odd: a recording evens it
	}
	s.draws++
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	g := uint8(int(math.Round(f.Time*500)) % 256) // 2 ms a level
	for i := range w * h {
		img.Set(i%w, i/w, color.RGBA{g, g, g, 255})
	}
	return img, time.Millisecond, nil
}

// TestRecordPictures: sim:record at t = 0.1 s, 20 pictures a simulated second, stopped
// at 0.4 s: the pictures at 0.1, 0.15, ..., 0.4 (7), numbered from 0, the size evened; a
// second recording left running when the run ends is finished with it.
func TestRecordPictures(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	src := `local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, dt = 0.0025, layers = 1 }
sim:source{ at = {0.01, 0.01, 0.005}, radius = 0.003, rate = 1e-6 }
local rec
sim:at(0.1, function() rec = sim:record{ path = "a/f_%03d.png", fps = 20 } end)
sim:at(0.4, function() rec:stop() end)
sim:at(0.5, function() sim:record{ path = "b/g_%d.png", fps = 10 } end)
`
	shooter := &fakeShooter{}
	p := &probe{}
	r := New(Config{Source: []byte(src), SourceName: "rec.lua", Speed: Speed{Max: true}, Headless: true, Until: 0.7, Shooter: shooter}, p.send)
	r.Run(context.Background())
	if err := r.Result().Err; err != nil {
		t.Fatalf("run: %v\n%s", err, p.logText())
	}
	files, _ := filepath.Glob("a/f_*.png")
	if len(files) != 7 {
		t.Fatalf("%d pictures (%v), want 7 (0.1 to 0.4 s at 20 a second)\n%s", len(files), files, p.logText())
	}
	for i, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != 32 || img.Bounds().Dy() != 24 {
			t.Errorf("%s: %v %v, want 32x24 (33x25 evened)", name, img.Bounds(), err)
		}
		// Picture i shows the first step boundary at or after 0.1 + i/20 s.
		want := 0.1 + float64(i)/20
		gray := color.GrayModel.Convert(img.At(0, 0)).(color.Gray).Y
		if got := float64(gray) / 500; got < want-0.002 || got > want+0.0025+0.002 {
			t.Errorf("%s shows t = %g s, want the step at or after %g", name, got, want)
		}
	}
	if g, _ := filepath.Glob("b/g_*.png"); len(g) != 3 { // 0.5, 0.6, 0.7
		t.Errorf("the recording left running: %d pictures %v, want 3", len(g), g)
	}
	if !strings.Contains(p.logText(), "recorded a/f_%03d.png: 7 pictures") {
		t.Errorf("the log does not say what was recorded:\n%s", p.logText())
	}
}
