package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/scene"
)

// TestCameraFlags: --eye, --target and --fov parse into a camera (fov 35 by default), go
// together, exclude --view, and are validated as sim:camera is.
func TestCameraFlags(t *testing.T) {
	parse := func(args ...string) (scene.Camera, bool, error) {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var c cameraFlags
		c.register(fs)
		fs.String("view", "default", "")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return c.camera(func(n string) bool { return flagGiven(fs, n) })
	}
	cam, set, err := parse("--eye", "0.05, -0.1,0.08", "--target", "0.025,0.025,0")
	if err != nil || !set || cam.Eye != [3]float64{0.05, -0.1, 0.08} || cam.Target != [3]float64{0.025, 0.025, 0} || cam.Fov != 35 {
		t.Errorf("camera %+v, set %v, %v", cam, set, err)
	}
	if cam, _, err := parse("--eye", "1,2,3", "--target", "0,0,0", "--fov", "70"); err != nil || cam.Fov != 70 {
		t.Errorf("--fov 70: %+v, %v", cam, err)
	}
	if _, set, err := parse(); set || err != nil {
		t.Errorf("no flags: set %v, %v", set, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--eye", "1,2,3"}, "--eye and --target go together"},
		{[]string{"--target", "1,2,3"}, "--eye and --target go together"},
		{[]string{"--fov", "50"}, "--fov goes with --eye and --target"},
		{[]string{"--eye", "1,2,3", "--target", "0,0,0", "--view", "top"}, "give one or the other"},
		{[]string{"--eye", "1,2", "--target", "0,0,0"}, `--eye "1,2": want three numbers`},
		{[]string{"--eye", "1,2,3", "--target", "0,x,0"}, `"x" is not a finite number`},
		{[]string{"--eye", "1,2,NaN", "--target", "0,0,0"}, `"NaN" is not a finite number`},
		{[]string{"--eye", "1,2,3", "--target", "1,2,3"}, "eye != target"},
		{[]string{"--eye", "1,2,3", "--target", "0,0,0", "--fov", "0.5"}, "fov is 0.5"},
		{[]string{"--eye", "1,2,3", "--target", "0,0,0", "--fov", "175"}, "in (1, 170)"},
	} {
		_, _, err := parse(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
	// Through the command: usage errors, exit 2.
	code, _, errOut := runCLI(t, "render", "--eye", "1,2,3", "--target", "1,2,3", "x.lua")
	if code != exitUsage || !strings.Contains(errOut, "eye != target") {
		t.Errorf("render --eye = --target: exit %d, %q", code, errOut)
	}
}

// TestRenderCamera: a picture from --eye/--target/--fov is the picture from the same
// sim:camera in the script, and differs from the default preset's.
func TestRenderCamera(t *testing.T) {
	dir := t.TempDir()
	src := `
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, layers = 1 }
sim:terrain(vp.union(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} }, vp.box{ min = {0.002, 0.002, 0}, max = {0.008, 0.006, 0.004} }))
sim:fill{ at = {0.015, 0.015, 0.002}, level = 0.003 }
`
	plain := writeScript(t, "plain.lua", src)
	scripted := writeScript(t, "scripted.lua", src+`sim:camera{ eye = {0.04, -0.03, 0.03}, target = {0.01, 0.01, 0.002}, fov = 45 }
`)
	render := func(name string, args ...string) []byte {
		t.Helper()
		out := filepath.Join(dir, name)
		code, _, errOut := runCLI(t, append([]string{"render", "--width", "160", "--height", "120", "--png", out}, args...)...)
		if code != exitOK {
			skipNoGL(t, errOut)
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	byFlags := render("flags.png", "--eye", "0.04,-0.03,0.03", "--target", "0.01,0.01,0.002", "--fov", "45", plain)
	byScript := render("script.png", scripted)
	preset := render("preset.png", plain)
	overridden := render("overridden.png", "--view", "default", scripted)
	if !bytes.Equal(byFlags, byScript) {
		t.Error("--eye/--target/--fov and the same sim:camera drew different pictures")
	}
	if bytes.Equal(byFlags, preset) {
		t.Error("the camera's picture is the default preset's")
	}
	if !bytes.Equal(preset, overridden) {
		t.Error("--view default did not win over the script's camera")
	}
}
