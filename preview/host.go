package preview

import (
	"errors"
	"fmt"
	"image"
	"sync"
	"sync/atomic"
	"time"
)

// Host owns the preview's windowing and OpenGL, which must live on the main OS thread:
// make one in main(), call Serve on the main goroutine (the package's init locks it to
// the main thread), and run everything else on other goroutines. Open, Close, Toggle,
// Render and Screenshot are safe from any goroutine: they hand their work to Serve and
// wait for it. Nothing touches the display or OpenGL before the first request, so a
// program that never asks for a picture runs anywhere (no display, no GL).
type Host struct {
	reqs    chan request
	serving atomic.Bool
	started chan struct{} // closed when Serve starts
	done    chan struct{} // closed when Serve returns
	gs      glState       // Serve's thread only

	// AutoXvfb lets offscreen rendering start a private Xvfb when there is no display
	// (DISPLAY unset and Xvfb on PATH); it is stopped when Serve returns. The window
	// never uses it (nobody would see it).
	AutoXvfb bool
	// WindowOnXvfb lets the window open on the private Xvfb too (tests: nobody sees it,
	// but the window's code runs).
	WindowOnXvfb bool
	// Log receives one-line notices (the private Xvfb starting, a window failing); nil
	// discards them.
	Log func(string)

	open atomic.Bool // a window is open (read by IsOpen from any goroutine)

	// glfwUp is whether GLFW is initialised, under wakeMu: a window's wake-up (from the
	// run loop's goroutine) posts an event only then.
	wakeMu sync.Mutex
	glfwUp bool
	// wakeWindow is wake, bound once: the open window's Source holds it (Source.wake),
	// so that a frame published wakes the window's event wait.
	wakeWindow func()

	// The window's view, for screenshots from other goroutines.
	viewMu       sync.Mutex
	viewSrc      *Source
	viewCam      Camera
	viewW, viewH int
}

// request is work for the main thread; its error goes back on reply.
type request struct {
	fn    func() error
	reply chan error
}

// ErrNotServing is returned by requests made when no Serve loop runs (before Serve, or
// after it returned).
var ErrNotServing = errors.New("preview: the preview host is not running (it runs on the main thread of vpbench run/render and the terminal UI)")

// NewHost returns a Host; nothing is opened until a request needs it.
func NewHost() *Host {
	h := &Host{reqs: make(chan request), started: make(chan struct{}), done: make(chan struct{})}
	h.wakeWindow = h.wake
	return h
}

// do runs fn on Serve's thread and waits for it. A request made just before Serve
// starts (main starts the command's goroutine first) waits up to 5 s for it.
func (h *Host) do(fn func() error) error {
	if h == nil {
		return ErrNotServing
	}
	if !h.serving.Load() {
		t := time.NewTimer(5 * time.Second)
		defer t.Stop()
		select {
		case <-h.started:
		case <-h.done:
			return ErrNotServing
		case <-t.C:
			return ErrNotServing
		}
	}
	r := request{fn: fn, reply: make(chan error, 1)}
	select {
	case h.reqs <- r:
	case <-h.done:
		return ErrNotServing
	}
	select {
	case err := <-r.reply:
		return err
	case <-h.done:
		return ErrNotServing
	}
}

func (h *Host) logf(format string, a ...any) {
	if h.Log != nil {
		h.Log(fmt.Sprintf(format, a...))
	}
}

// IsOpen reports whether the window is open.
func (h *Host) IsOpen() bool { return h.open.Load() }

// Open opens the window on src (or shows src in the open window). Without a display it
// returns an error saying what is missing; the caller goes on.
func (h *Host) Open(src *Source) error {
	if src == nil {
		return errors.New("preview: nothing to show (no scenario is running)")
	}
	return h.do(func() error { return h.openWindow(src) })
}

// Close closes the window, if open; the run goes on.
func (h *Host) Close() error {
	return h.do(func() error { h.closeWindow(); return nil })
}

// Toggle opens the window on src if it is closed and closes it if it is open; it
// returns whether it is open afterwards.
func (h *Host) Toggle(src *Source) (open bool, err error) {
	if h.IsOpen() {
		return false, h.Close()
	}
	if err := h.Open(src); err != nil {
		return false, err
	}
	return true, nil
}

// RenderOptions choose what a picture shows besides the frame and the camera.
type RenderOptions struct {
	HideLiquid  bool // no liquid: the terrain, the floating bodies and the walls' glass (Frame.Walls) (comparisons, tests)
	HideTerrain bool // the liquid alone (no terrain, no bodies)
}

// Render draws f from cam into a width x height picture offscreen (a hidden window's
// framebuffer object; no window shows) and returns it with the time the drawing took
// (upload, draw, read back). f must not change during the call.
func (h *Host) Render(f *Frame, cam Camera, width, height int, opt RenderOptions) (*image.RGBA, time.Duration, error) {
	if f == nil {
		return nil, 0, errors.New("preview: no frame to render")
	}
	if width < 16 || height < 16 || width > 8192 || height > 8192 {
		return nil, 0, fmt.Errorf("preview: picture size %dx%d: each side must be in [16, 8192]", width, height)
	}
	var img *image.RGBA
	var took time.Duration
	err := h.do(func() error {
		var err error
		img, took, err = h.renderOffscreen(f, cam, width, height, opt)
		return err
	})
	return img, took, err
}

// Adapter binds a Host to one running scenario's Source, for the terminal UI: Toggle
// opens or closes the window on it, Screenshot writes the preview's view to a PNG.
type Adapter struct {
	Host   *Host
	Source *Source
}

// Toggle opens the window on the adapter's source, or closes it.
func (a Adapter) Toggle() (open bool, err error) {
	if a.Host == nil {
		return false, ErrNotServing
	}
	return a.Host.Toggle(a.Source)
}

// Screenshot writes the preview's view of the source's newest frame to path (PNG):
// the window's camera when it is open, the default view otherwise.
func (a Adapter) Screenshot(path string) error {
	if a.Host == nil {
		return ErrNotServing
	}
	return a.Host.Screenshot(a.Source, path, 0, 0)
}

// Screenshot renders src's next frame (it asks the runner for one and waits up to 2 s)
// with the window's camera and size (the default view at 1280 x 720 when it is closed)
// and writes it to path as PNG. width and height > 0 set the size.
func (h *Host) Screenshot(src *Source, path string, width, height int) error {
	if src == nil {
		return errors.New("preview: nothing to show (no scenario is running)")
	}
	f, ok := src.nextShot(2 * time.Second)
	if !ok {
		return errors.New("preview: no frame from the run in 2 s (is it paused or finished?)")
	}
	cam, w, hgt := h.viewFor(src, f)
	if width > 0 && height > 0 {
		w, hgt = width, height
	}
	img, _, err := h.Render(f, cam, w, hgt, RenderOptions{})
	if err != nil {
		return err
	}
	return WritePNG(path, img)
}

// RenderPNG draws f as the preview shows src (the window's camera and size when a
// window shows src, the default view at 1280 x 720 otherwise; src may be nil) and writes
// the picture to path as PNG. It returns the render time. This is sim:screenshot's
// drawing: the run loop builds the frame on its own goroutine and calls it there.
func (h *Host) RenderPNG(src *Source, f *Frame, path string) (time.Duration, error) {
	if h == nil {
		return 0, ErrNotServing
	}
	cam, w, ht := h.viewFor(src, f)
	img, took, err := h.Render(f, cam, w, ht, RenderOptions{})
	if err != nil {
		return 0, err
	}
	if err := WritePNG(path, img); err != nil {
		return took, fmt.Errorf("writing %s: %w", path, err)
	}
	return took, nil
}

// RenderImage draws f as the preview shows src (the window's camera when a window shows
// src, the default view fitted to f otherwise; src may be nil) at width x height, or at
// the window's size (1280 x 720 without one) when width or height is 0. It returns the
// picture and the render time: a recording's pictures (sim:record, the UI's v key).
func (h *Host) RenderImage(src *Source, f *Frame, width, height int) (*image.RGBA, time.Duration, error) {
	if h == nil {
		return nil, 0, ErrNotServing
	}
	cam, w, ht := h.viewFor(src, f)
	if width > 0 && height > 0 {
		w, ht = width, height
	}
	return h.Render(f, cam, w, ht, RenderOptions{})
}

// viewFor is the camera and picture size of the window when it shows src, else the
// scenario's camera (Frame.Camera) or, without one, the default view fitted to f
// (FrameCamera) at 1280 x 720.
func (h *Host) viewFor(src *Source, f *Frame) (Camera, int, int) {
	h.viewMu.Lock()
	if h.viewSrc == src && h.open.Load() {
		defer h.viewMu.Unlock()
		return h.viewCam, h.viewW, h.viewH
	}
	h.viewMu.Unlock()
	if f.CameraVersion != 0 { // the scenario's camera
		return f.Camera, 1280, 720
	}
	cam, _ := FrameCamera("default", f, 1280.0/720)
	return cam, 1280, 720
}

// NoDisplayError is the preview's error when no display can be had: the terminal UI
// reads NoDisplay to say what a window needs and what to use instead.
type NoDisplayError struct{ Msg string }

func (e *NoDisplayError) Error() string { return "preview: " + e.Msg }

// NoDisplay reports that the error is the lack of a display.
func (e *NoDisplayError) NoDisplay() bool { return true }
