//go:build cgo && !nopreview

package preview

import (
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"
)

// TestSoftwareWindowSingleSampled: on a software renderer the window's own framebuffer
// has one sample a pixel (it only receives the stretched picture; four samples made every
// frame's stretch and swap cost 7-10 ms more), on a GPU four.
func TestSoftwareWindowSingleSampled(t *testing.T) {
	needGL(t)
	a := Adapter{Host: testHost, Source: NewSource("samples")}
	if open, err := a.Toggle(); err != nil || !open {
		t.Fatalf("Toggle: open %v, %v", open, err)
	}
	defer a.Toggle()
	var samples int32
	var software bool
	err := testHost.do(func() error {
		w := testHost.gs.win
		w.glfw.MakeContextCurrent()
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		gl.GetIntegerv(gl.SAMPLES, &samples)
		software = w.r.software
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("software renderer %v, %d samples a pixel", software, samples)
	if software && samples > 1 {
		t.Errorf("a software renderer's window has %d samples a pixel: want one", samples)
	}
	if !software && samples < 2 {
		t.Errorf("a GPU's window has %d samples a pixel: want four", samples)
	}
}
