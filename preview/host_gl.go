//go:build cgo && !nopreview

package preview

import (
	"context"
	"fmt"
	"image"
	"os"
	"runtime"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// GLFW and OpenGL calls must come from the main OS thread: main() runs there, and so
// does Serve when main calls it.
func init() { runtime.LockOSThread() }

// Available reports whether this build has the preview (cgo, GLFW and OpenGL).
const Available = true

// glState is what Serve's thread owns.
type glState struct {
	initErr  error // glfw.Init's failure, kept so that every request says it
	inited   bool
	xvfb     *xvfb
	noSystem bool // the display was missing before a private Xvfb was started

	off *offscreen
	win *window
	// software is whether OpenGL runs on the CPU here (GL_RENDERER), once a context has
	// said so: 0 not yet known, 1 yes, -1 no.
	software int8
}

// Serve runs the preview's requests and its window on the calling goroutine, which must
// be the main one (main thread), until ctx ends; then it closes the window and the
// offscreen context, and stops a private Xvfb.
func (h *Host) Serve(ctx context.Context) {
	h.serving.Store(true)
	close(h.started)
	defer func() {
		h.serving.Store(false)
		close(h.done)
		h.shutdown()
	}()
	for {
		if h.gs.win == nil {
			select {
			case r := <-h.reqs:
				r.reply <- h.run(r.fn)
			case <-ctx.Done():
				return
			}
			continue
		}
		// A window is open: draw, handle its events and take requests between frames.
		h.safely(func() error { glfw.WaitEventsTimeout(1.0 / 120); return nil })
		for more := true; more; {
			select {
			case r := <-h.reqs:
				r.reply <- h.run(r.fn)
			case <-ctx.Done():
				return
			default:
				more = false
			}
		}
		if w := h.gs.win; w != nil {
			if err := h.safely(w.frame); err != nil {
				h.logf("preview: the window failed and was closed: %v", err)
				h.closeWindow()
			} else if w.glfw.ShouldClose() {
				h.closeWindow()
			}
		}
	}
}

// run runs fn, turning a panic (GLFW reports some errors by panicking) into an error.
func (h *Host) run(fn func() error) error { return h.safely(fn) }

func (h *Host) safely(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("preview: %v", r)
		}
	}()
	return fn()
}

// noDisplayMsg says what the preview's offscreen pictures need when no display can be had.
const noDisplayMsg = "no display: set DISPLAY, or install Xvfb (apt-get install xvfb) for offscreen pictures, or run under xvfb-run"

// noWindowMsg says what a window needs: a screen a person sees (a private Xvfb is none).
const noWindowMsg = "no display to open a window on: a window needs a screen (set DISPLAY, or run where one is); without one, vpbench render draws pictures and clips"

// initGLFW starts GLFW once (starting a private Xvfb first for offscreen work when
// allowed and there is no display).
func (h *Host) initGLFW(offscreenOnly bool) error {
	gs := &h.gs
	if gs.inited {
		return nil
	}
	if gs.initErr != nil {
		return gs.initErr
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		if !offscreenOnly {
			return &NoDisplayError{Msg: noWindowMsg}
		}
		if !h.AutoXvfb {
			return &NoDisplayError{Msg: noDisplayMsg}
		}
		x, err := startXvfb()
		if err != nil {
			return fmt.Errorf("preview: %s (%v)", noDisplayMsg, err)
		}
		gs.xvfb, gs.noSystem = x, true
		os.Setenv("DISPLAY", x.display)
		h.logf("preview: no display; started a private Xvfb on %s for offscreen rendering", x.display)
	}
	if err := glfw.Init(); err != nil {
		gs.initErr = fmt.Errorf("preview: cannot start GLFW on display %q: %v", os.Getenv("DISPLAY"), err)
		return gs.initErr
	}
	gs.inited = true
	h.wakeMu.Lock()
	h.glfwUp = true
	h.wakeMu.Unlock()
	return nil
}

// wake ends the window's event wait from any goroutine (glfw.PostEmptyEvent may be
// called from any thread), unless GLFW is down.
func (h *Host) wake() {
	h.wakeMu.Lock()
	defer h.wakeMu.Unlock()
	if h.glfwUp {
		h.safely(func() error { glfw.PostEmptyEvent(); return nil })
	}
}

// contextHints asks for an OpenGL 3.3 core context whose window has samples samples
// per pixel (0: single-sampled).
func contextHints(visible bool, samples int) {
	glfw.DefaultWindowHints()
	glfw.WindowHint(glfw.ContextVersionMajor, 3)
	glfw.WindowHint(glfw.ContextVersionMinor, 3)
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	glfw.WindowHint(glfw.Samples, samples)
	if visible {
		glfw.WindowHint(glfw.Visible, glfw.True)
	} else {
		glfw.WindowHint(glfw.Visible, glfw.False)
	}
}

// glInit loads OpenGL's functions for the current context.
func glInit() error {
	if err := gl.Init(); err != nil {
		return fmt.Errorf("preview: OpenGL 3.3 is not available: %v", err)
	}
	return nil
}

// createWindow makes a GLFW window with a 3.3 core context, current on return, its
// framebuffer multisampled samples times (0: single-sampled).
func createWindow(w, h int, title string, visible bool, samples int) (*glfw.Window, error) {
	contextHints(visible, samples)
	win, err := glfw.CreateWindow(w, h, title, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("preview: cannot make an OpenGL 3.3 core context (the preview needs OpenGL 3.3: Mesa's llvmpipe or a GPU driver): %v", err)
	}
	win.MakeContextCurrent()
	if err := glInit(); err != nil {
		win.Destroy()
		return nil, err
	}
	return win, nil
}

// onSoftware tells whether OpenGL runs on the CPU, asking a small hidden context the
// first time no context has said yet.
func (h *Host) onSoftware() (bool, error) {
	gs := &h.gs
	if gs.software == 0 {
		win, err := createWindow(16, 16, "vpbench probe", false, 0)
		if err != nil {
			return false, err
		}
		gs.learnRenderer()
		win.Destroy()
	}
	return gs.software > 0, nil
}

// learnRenderer records from the current context whether OpenGL runs on the CPU.
func (gs *glState) learnRenderer() {
	gs.software = -1
	if isSoftwareRenderer(gl.GoStr(gl.GetString(gl.RENDERER))) {
		gs.software = 1
	}
}

// shutdown frees everything Serve made.
func (h *Host) shutdown() {
	gs := &h.gs
	h.safely(func() error {
		h.closeWindow()
		if gs.off != nil {
			gs.off.destroy()
			gs.off = nil
		}
		if gs.inited {
			h.wakeMu.Lock()
			h.glfwUp = false
			h.wakeMu.Unlock()
			glfw.Terminate()
			gs.inited = false
		}
		return nil
	})
	if gs.xvfb != nil {
		gs.xvfb.stop()
		gs.xvfb = nil
	}
}

// renderOffscreen draws f into the offscreen framebuffer and reads it back.
func (h *Host) renderOffscreen(f *Frame, cam Camera, width, height int, opt RenderOptions) (*image.RGBA, time.Duration, error) {
	if err := h.initGLFW(true); err != nil {
		return nil, 0, err
	}
	gs := &h.gs
	if gs.off == nil {
		off, err := newOffscreen()
		if err != nil {
			return nil, 0, err
		}
		gs.off = off
		gs.learnRenderer()
	}
	return gs.off.render(f, cam, width, height, opt)
}

// offscreen is a hidden window's context with a multisampled framebuffer object.
type offscreen struct {
	win  *glfw.Window
	r    *renderer
	fbo  framebuffer
	w, h int
	pix  []byte
}

// framebuffer is a multisampled FBO and the single-sampled one it resolves into.
type framebuffer struct {
	ms, msColor, msDepth uint32
	res, resColor        uint32
	samples              int32
}

func newOffscreen() (*offscreen, error) {
	win, err := createWindow(64, 64, "vpbench offscreen", false, 0) // it draws into its own FBO
	if err != nil {
		return nil, err
	}
	r, err := newRenderer(true)
	if err != nil {
		win.Destroy()
		return nil, err
	}
	return &offscreen{win: win, r: r}, nil
}

func (o *offscreen) destroy() {
	o.win.MakeContextCurrent()
	o.fbo.delete()
	o.r.delete()
	o.win.Destroy()
}

// make (re)creates the framebuffers for width x height.
func (fb *framebuffer) make(width, height int) error {
	fb.delete()
	var maxSamples int32
	gl.GetIntegerv(gl.MAX_SAMPLES, &maxSamples)
	fb.samples = min(4, maxSamples)
	w, h := int32(width), int32(height)
	gl.GenFramebuffers(1, &fb.ms)
	gl.BindFramebuffer(gl.FRAMEBUFFER, fb.ms)
	gl.GenRenderbuffers(1, &fb.msColor)
	gl.BindRenderbuffer(gl.RENDERBUFFER, fb.msColor)
	gl.RenderbufferStorageMultisample(gl.RENDERBUFFER, fb.samples, gl.RGBA8, w, h)
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, fb.msColor)
	gl.GenRenderbuffers(1, &fb.msDepth)
	gl.BindRenderbuffer(gl.RENDERBUFFER, fb.msDepth)
	gl.RenderbufferStorageMultisample(gl.RENDERBUFFER, fb.samples, gl.DEPTH_COMPONENT24, w, h)
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, fb.msDepth)
	if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		return fmt.Errorf("preview: the offscreen framebuffer is incomplete (status 0x%x)", st)
	}
	gl.GenFramebuffers(1, &fb.res)
	gl.BindFramebuffer(gl.FRAMEBUFFER, fb.res)
	gl.GenRenderbuffers(1, &fb.resColor)
	gl.BindRenderbuffer(gl.RENDERBUFFER, fb.resColor)
	gl.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA8, w, h)
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, fb.resColor)
	if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		return fmt.Errorf("preview: the offscreen resolve framebuffer is incomplete (status 0x%x)", st)
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	return nil
}

func (fb *framebuffer) delete() {
	for _, id := range []*uint32{&fb.ms, &fb.res} {
		if *id != 0 {
			gl.DeleteFramebuffers(1, id)
			*id = 0
		}
	}
	for _, id := range []*uint32{&fb.msColor, &fb.msDepth, &fb.resColor} {
		if *id != 0 {
			gl.DeleteRenderbuffers(1, id)
			*id = 0
		}
	}
}

// render draws f and returns the picture (top row first).
func (o *offscreen) render(f *Frame, cam Camera, width, height int, opt RenderOptions) (*image.RGBA, time.Duration, error) {
	o.win.MakeContextCurrent()
	if width != o.w || height != o.h || o.fbo.ms == 0 {
		if err := o.fbo.make(width, height); err != nil {
			o.fbo.delete()
			o.w, o.h = 0, 0
			return nil, 0, err
		}
		o.w, o.h = width, height
		o.pix = make([]byte, 4*width*height)
	}
	t0 := time.Now()
	gl.BindFramebuffer(gl.FRAMEBUFFER, o.fbo.ms)
	o.r.haveLiquid = false // frames come from any source: send the indices too
	o.r.upload(f)
	o.r.draw(cam, width, height, f.Color, drawOptions{hideLiquid: opt.HideLiquid, hideTerrain: opt.HideTerrain, hideWalls: opt.HideTerrain, hideBodies: opt.HideTerrain, hideSinks: opt.HideTerrain})
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, o.fbo.ms)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, o.fbo.res)
	gl.BlitFramebuffer(0, 0, int32(width), int32(height), 0, 0, int32(width), int32(height), gl.COLOR_BUFFER_BIT, gl.NEAREST)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, o.fbo.res)
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(0, 0, int32(width), int32(height), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(o.pix))
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	took := time.Since(t0)
	if e := gl.GetError(); e != gl.NO_ERROR {
		return nil, took, fmt.Errorf("preview: OpenGL error 0x%x while rendering", e)
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	row := 4 * width
	for y := range height { // GL's rows go up from the bottom
		copy(img.Pix[y*img.Stride:y*img.Stride+row], o.pix[(height-1-y)*row:(height-y)*row])
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255 // the background is opaque; blending leaves alpha < 1 on liquid
	}
	return img, took, nil
}
