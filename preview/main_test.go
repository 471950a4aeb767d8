package preview

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/scripts"
)

// testHost serves on the test binary's main thread (TestMain) for every test; it starts
// a private Xvfb when there is no display.
var testHost *Host

func TestMain(m *testing.M) {
	testHost = NewHost()
	testHost.AutoXvfb = true
	testHost.WindowOnXvfb = true
	ctx, cancel := context.WithCancel(context.Background())
	code := 0
	go func() {
		defer cancel()
		code = m.Run()
	}()
	testHost.Serve(ctx)
	os.Exit(code)
}

var (
	glOnce sync.Once
	glErr  error
)

// needGL skips the test when no display and no Xvfb can be had, unless
// VPBENCH_REQUIRE_DISPLAY is set (make test sets it): then it fails.
func needGL(t testing.TB) {
	t.Helper()
	glOnce.Do(func() {
		f := &Frame{Box: Box{Max: [3]float64{1, 1, 1}}}
		_, _, glErr = testHost.Render(f, DefaultCamera(f.Box), 32, 32, RenderOptions{})
	})
	if glErr == nil {
		return
	}
	if os.Getenv("VPBENCH_REQUIRE_DISPLAY") != "" {
		t.Fatalf("VPBENCH_REQUIRE_DISPLAY is set but OpenGL cannot be used: %v", glErr)
	}
	t.Skipf("no OpenGL here (set VPBENCH_REQUIRE_DISPLAY=1 to make this a failure): %v", glErr)
}

// loadLibrary loads a scenario of the library with params and runs it to time until.
func loadLibrary(t testing.TB, name string, until float64, params map[string]string) *script.Scenario {
	t.Helper()
	src, err := scripts.FS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := script.LoadSource(name, src, script.Options{Workers: 0, Params: params, Files: scripts.FS})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sc.Close)
	for sc.Scene().Time() < until-sc.Scene().Dt()/2 {
		if _, err := sc.Advance(max(1, int((until-sc.Scene().Time())/sc.Scene().Dt()+0.5))); err != nil {
			t.Fatal(err)
		}
	}
	return sc
}

// renderScenario renders sc's current state from cam.
func renderScenario(t *testing.T, sc *script.Scenario, cam Camera, w, h int, opt RenderOptions) *image.RGBA {
	t.Helper()
	m, err := sc.Scene().BuildSurface()
	if err != nil {
		t.Fatal(err)
	}
	f, err := FrameOf(sc.Scene(), m)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := testHost.Render(&f, cam, w, h, opt)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// feed builds sc's surface and publishes its frame to src, as the run loop does while
// the preview wants frames.
func feed(src *Source, sc *script.Scenario) error {
	m, err := sc.Scene().BuildSurface()
	if err != nil {
		return err
	}
	f, err := FrameOf(sc.Scene(), m)
	if err != nil {
		return err
	}
	src.Publish(f)
	return nil
}

// keep writes img under $VPBENCH_PREVIEW_OUT (for looking at the pictures) when set.
func keep(t *testing.T, name string, img image.Image) {
	dir := os.Getenv("VPBENCH_PREVIEW_OUT")
	if dir == "" {
		return
	}
	p := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+"_"+name+".png")
	if err := WritePNG(p, img); err != nil {
		t.Error(err)
	}
}
