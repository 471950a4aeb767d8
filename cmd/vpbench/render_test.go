package main

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/preview"
)

// TestMain serves the preview host on the main thread, as main does (a private Xvfb is
// started when there is no display).
func TestMain(m *testing.M) {
	previewHost = preview.NewHost()
	previewHost.AutoXvfb = true
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
	if previewHost.WindowOnXvfb {
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
