package engine

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vpbench/vpbench/internal/clip"

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

// gatedWriter is a slow fake encoder: each Write waits for the gate (a channel closed by
// the test), as ffmpeg does when it falls behind.
type gatedWriter struct {
	gate   chan struct{}
	mu     sync.Mutex
	writes int
	closed bool
}

func (g *gatedWriter) Write(*image.RGBA) error {
	<-g.gate
	g.mu.Lock()
	g.writes++
	g.mu.Unlock()
	return nil
}

func (g *gatedWriter) Close(bool) error {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	return nil
}

// TestRecordSlowEncoderDropsPictures: the UI's v key records into Config.OutDir (its
// full path in the log); an encoder that falls behind never holds up the run loop: the
// queue holds encodeQueue pictures, the rest are dropped from the clip, and the log says
// how many (at most once a second), and again when the clip ends.
func TestRecordSlowEncoderDropsPictures(t *testing.T) {
	t.Chdir(t.TempDir())
	wd, _ := os.Getwd()
	slow := &gatedWriter{gate: make(chan struct{})}
	var path string
	newClip := func(_ context.Context, out string, _, _ int, _ float64) (clip.Writer, error) {
		path = out
		return slow, nil
	}
	r := commandRunner(t, "small.lua", small, Config{Speed: Speed{Max: true}, Shooter: &fakeShooter{}, OutDir: "clips", NewClip: newClip})
	r.handle(Command{Kind: CmdRecord})
	if r.rec.rec == nil {
		t.Fatalf("v did not start a recording: %q", logged(r))
	}
	if dir := filepath.Join(wd, "clips"); filepath.Dir(path) != dir && filepath.Dir(filepath.Dir(path)) != dir {
		t.Errorf("the clip goes to %s: want it under %s", path, dir)
	}
	start := time.Now()
	dt := r.scene.Dt()
	frames := 0
	for r.scene.Time() < 1 { // 30 pictures due in one simulated second
		r.step(max(1, int(1.0/60/dt)))
		frames++
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("%d frames took %v with a stuck encoder: the run loop waits for it", frames, took)
	}
	rec := r.rec.rec
	if rec.w.written > encodeQueue+1 || rec.w.dropped < 20 {
		t.Errorf("a stuck encoder: %d pictures queued, %d dropped; want at most %d queued (and one in hand), the rest dropped", rec.w.written, rec.w.dropped, encodeQueue+1)
	}
	got := strings.Join(logged(r), "\n")
	if !strings.Contains(got, "recording "+path) || !strings.Contains(got, "dropped from the clip so far") {
		t.Errorf("the log does not name the clip and the drops:\n%s", got)
	}
	if n := strings.Count(got, "dropped from the clip so far"); n != 1 {
		t.Errorf("%d drop reports within a second; want 1:\n%s", n, got)
	}
	close(slow.gate) // the encoder catches up
	r.handle(Command{Kind: CmdRecord})
	got = strings.Join(logged(r), "\n")
	want := fmt.Sprintf("recorded %s: %d pictures", path, rec.w.written)
	if !strings.Contains(got, want) || !strings.Contains(got, fmt.Sprintf("%d more dropped", rec.w.dropped)) {
		t.Errorf("the end of the clip: want %q and the drops; logged:\n%s", want, got)
	}
	if slow.writes != rec.w.written || !slow.closed {
		t.Errorf("the encoder wrote %d of %d queued pictures (closed: %v)", slow.writes, rec.w.written, slow.closed)
	}
}
