package main

import (
	"bytes"
	"context"
	"fmt"
	"image/gif"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/preview"
)

// testProcess is what main gives the commands, for the tests' run calls: TestMain's
// preview host.
var testProcess process

// TestMain serves the preview host on the main thread, as main does (a private Xvfb is
// started when there is no display).
func TestMain(m *testing.M) {
	previewHost := preview.NewHost()
	previewHost.AutoXvfb = true
	testProcess = process{host: previewHost, executable: os.Executable}
	ctx, cancel := context.WithCancel(context.Background())
	code := 0
	go func() {
		defer cancel()
		code = m.Run()
	}()
	previewHost.Serve(ctx)
	os.Exit(code)
}

// skipNoGL skips when OpenGL cannot be had and VPBENCH_REQUIRE_DISPLAY is unset.
func skipNoGL(t *testing.T, errOut string) {
	t.Helper()
	if strings.Contains(errOut, "no display") || strings.Contains(errOut, "OpenGL") || strings.Contains(errOut, "GLFW") || strings.Contains(errOut, "without the preview") {
		if os.Getenv("VPBENCH_REQUIRE_DISPLAY") == "" {
			t.Skipf("no OpenGL here: %s", errOut)
		}
	}
}

func TestRenderWritesPNG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pic", "bowl.png")
	code, stdout, errOut := runCLI(t, "render", "--at", "0.3", "--width", "320", "--height", "200", "--view", "top", "--liquid", "coffee", "../../scripts/bowl.lua", "--png", out)
	if code != exitOK {
		skipNoGL(t, errOut)
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "wrote "+out) || !strings.Contains(stdout, "render") {
		t.Errorf("output: %s", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 200 {
		t.Errorf("picture is %v, want 320x200", b)
	}
}

func TestRenderBadArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"render", "--at", "-1", "x.lua"}, "--at is -1"},
		{[]string{"render", "--view", "sideways", "x.lua"}, `unknown view "sideways"`},
		{[]string{"render", "--width", "4", "x.lua"}, "--width and --height"},
		{[]string{"render", "--liquid", "milk", "x.lua"}, `--liquid "milk"`},
		{[]string{"render"}, "takes one scenario file"},
		{[]string{"run", "--headless", "--preview", "x.lua"}, "--preview opens a window"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestScreenshotFromScript: sim:screenshot in a headless run writes the preview's view.
func TestScreenshotFromScript(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	path := writeScript(t, "shot.lua", pourScript+`
sim:set{ liquid = "blood" }
sim:at(0.2, function() sim:screenshot("shots/at02.png") end)
`)
	code, _, errOut := runCLI(t, "run", "--headless", "--until", "0.25", path)
	if code != exitOK {
		skipNoGL(t, errOut)
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(filepath.Join(dir, "shots", "at02.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width != 1280 || cfg.Height != 720 {
		t.Errorf("screenshot %+v, %v: want a 1280x720 PNG", cfg, err)
	}
}

// TestPreviewWithoutDisplay: --preview where no window can open says why and runs on.
func TestPreviewWithoutDisplay(t *testing.T) {
	if testProcess.host.WindowOnXvfb {
		t.Skip("the host opens windows on Xvfb")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	path := writeScript(t, "pour.lua", pourScript)
	code, out, errOut := runCLI(t, "run", "--preview", "--until", "0.1", path)
	_ = out
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "the run goes on") {
		t.Errorf("stderr does not say the run goes on without the window: %s", errOut)
	}
}

// clipScript is a small scenario for clips: a source on a tilted plane.
const clipScript = `local sim = vp.sim{ size = {0.03, 0.02}, height = 0.01, dx = 0.001, dt = 0.003, layers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.002}, normal = {0.1, 0, 1} })
sim:source{ at = {0.02, 0.01, 0.006}, radius = 0.004, rate = 2e-6 }
`

// TestRenderClipPictures: --from 0.05 --to 0.15 at 40 a second writes the pictures at
// 0.05, 0.075, 0.1, 0.125 and 0.15 s as f_000.png .. f_004.png.
func TestRenderClipPictures(t *testing.T) {
	path := writeScript(t, "clip.lua", clipScript)
	dir := filepath.Join(t.TempDir(), "frames")
	code, stdout, errOut := runCLI(t, "render", "--from", "0.05", "--to", "0.15", "--fps", "40", "--width", "64", "--height", "48",
		"--out", filepath.Join(dir, "f_%03d.png"), path)
	if code != exitOK {
		skipNoGL(t, errOut)
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "5 pictures") {
		t.Errorf("output: %s", stdout)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "f_*.png"))
	if len(files) != 5 {
		t.Fatalf("%d pictures written (%v), want 5", len(files), files)
	}
	for i, name := range files {
		if want := filepath.Join(dir, fmt.Sprintf("f_%03d.png", i)); name != want {
			t.Errorf("picture %d is %s, want %s", i, name, want)
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != 64 || img.Bounds().Dy() != 48 {
			t.Errorf("%s: %v, %v: want a 64x48 PNG", name, img.Bounds(), err)
		}
	}
}

// TestRenderClipVideo writes an H.264 clip through ffmpeg (skipped without ffmpeg unless
// VPBENCH_REQUIRE_FFMPEG is set, as `make test` does); a failing run leaves an earlier
// clip of the same name as it was.
func TestRenderClipVideo(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("VPBENCH_REQUIRE_FFMPEG") != "" {
			t.Fatal("ffmpeg is not installed and VPBENCH_REQUIRE_FFMPEG is set: `make test` installs it (mk/video.mk)")
		}
		t.Skip("ffmpeg is not installed (`make test` installs it; apt-get install ffmpeg)")
	}
	path := writeScript(t, "clip.lua", clipScript)
	out := filepath.Join(t.TempDir(), "clip.mp4")
	code, _, errOut := runCLI(t, "render", "--to", "0.2", "--fps", "30", "--width", "64", "--height", "48", "--out", out, path)
	if code != exitOK {
		skipNoGL(t, errOut)
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if probe, err := exec.LookPath("ffprobe"); err == nil {
		b, err := exec.Command(probe, "-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames,width,height,codec_name", "-of", "compact", out).CombinedOutput()
		if err != nil || !strings.Contains(string(b), "codec_name=h264") || !strings.Contains(string(b), "width=64") || !strings.Contains(string(b), "nb_read_frames=7") {
			t.Errorf("ffprobe %s: %s %v; want h264, 64 wide, 7 frames (0 to 0.2 s at 30)", out, b, err)
		}
	} else if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Fatalf("no video: %v", err)
	}
	// A script error mid-clip: the clip of that name stays as it was, no partial file.
	before, _ := os.ReadFile(out)
	bad := writeScript(t, "bad.lua", clipScript+"sim:at(0.1, function() error(\"boom\") end)\n")
	if code, _, errOut := runCLI(t, "render", "--to", "0.2", "--width", "64", "--height", "48", "--out", out, bad); code != exitRun || !strings.Contains(errOut, "boom") {
		t.Errorf("a failing clip: exit %d, %q", code, errOut)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Error("a failing run changed the earlier clip")
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*part*")); len(left) > 0 {
		t.Errorf("partial files left: %v", left)
	}
}

// TestRenderClipGIF writes an animated GIF through ffmpeg (an odd width is fine there):
// Go's decoder reads it back with one picture per time, 0 to 0.2 s at 10 a second.
func TestRenderClipGIF(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("VPBENCH_REQUIRE_FFMPEG") != "" {
			t.Fatal("ffmpeg is not installed and VPBENCH_REQUIRE_FFMPEG is set: `make test` installs it (mk/video.mk)")
		}
		t.Skip("ffmpeg is not installed (`make test` installs it; apt-get install ffmpeg)")
	}
	path := writeScript(t, "clip.lua", clipScript)
	out := filepath.Join(t.TempDir(), "clip.gif")
	code, _, errOut := runCLI(t, "render", "--to", "0.2", "--fps", "10", "--width", "65", "--height", "48", "--out", out, path)
	if code != exitOK {
		skipNoGL(t, errOut)
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if len(g.Image) != 3 || g.Config.Width != 65 || g.Config.Height != 48 || g.LoopCount != 0 {
		t.Errorf("%s: %d pictures, %dx%d, loop count %d; want 3, 65x48, 0 (for ever)", out, len(g.Image), g.Config.Width, g.Config.Height, g.LoopCount)
	}
}

func TestRenderClipBadArguments(t *testing.T) {
	noFFmpeg := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"render", "--to", "0.1", "--from", "0.2", "--out", "c.mp4", "x.lua"}, "--to 0.1 is not after --from 0.2", exitUsage},
		{[]string{"render", "--from", "0.1", "--out", "c.mp4", "x.lua"}, "a clip needs --to", exitUsage},
		{[]string{"render", "--to", "1", "--out", "c.txt", "x.lua"}, `--out "c.txt"`, exitUsage},
		{[]string{"render", "--to", "1", "--out", "frames/f.png", "x.lua"}, "frame-number verb", exitUsage},
		{[]string{"render", "--to", "1", "--at", "0.5", "--out", "c.mp4", "x.lua"}, "give one or the other", exitUsage},
		{[]string{"render", "--to", "1", "--fps", "0", "--out", "c.mp4", "x.lua"}, "--fps is 0", exitUsage},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	// Without ffmpeg a video is refused before anything runs, with what to do instead.
	path := writeScript(t, "clip.lua", clipScript)
	t.Setenv("PATH", noFFmpeg)
	code, _, errOut := runCLI(t, "render", "--to", "0.1", "--out", filepath.Join(t.TempDir(), "c.mp4"), path)
	if code == exitOK || !strings.Contains(errOut, "needs the ffmpeg program") || !strings.Contains(errOut, "f_%04d.png") {
		t.Errorf("no ffmpeg: exit %d, %q", code, errOut)
	}
}
