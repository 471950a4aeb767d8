//go:build cgo && !nopreview

package preview

import (
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// window is the live preview: a visible GLFW window drawing a Source's newest frame.
type window struct {
	h     *Host
	glfw  *glfw.Window
	r     *renderer
	src   *Source
	front *Frame // the frame drawn (the mailbox's reader buffer)

	cam       Camera
	camSeen   uint64 // the last scenario camera taken (Frame.CameraVersion)
	box       Box
	haveBox   bool
	dragging  bool
	lastX     float64
	lastY     float64
	dirty     bool // the camera moved: draw even without a new frame
	title     []byte
	lastTitle time.Time
	renderMs  float64 // smoothed render time
	frameMs   float64 // smoothed time between drawn frames
	lastFrame time.Time
	// On a software renderer the window draws at res.scale() times its size into scaled
	// (the terrain cached while the view holds) and stretches that onto itself; both nil
	// elsewhere.
	scaled *scaledTarget
	res    *drawScale
}

// openWindow opens the window on src (Serve's thread).
func (h *Host) openWindow(src *Source) error {
	gs := &h.gs
	if gs.win != nil {
		if gs.win.src != src { // show the new run in the open window
			gs.win.src.windows.Add(-1)
			gs.win.src.wake.Store(nil)
			gs.win.src = src
			src.wake.Store(&h.wakeWindow)
			gs.win.front = nil
			gs.win.haveBox = false
			gs.win.camSeen = 0
			gs.win.r.haveLiquid = false
			src.windows.Add(1)
		}
		gs.win.glfw.Focus()
		return nil
	}
	if err := h.initGLFW(h.WindowOnXvfb); err != nil {
		return err
	}
	if gs.noSystem && !h.WindowOnXvfb {
		return &NoDisplayError{Msg: noWindowMsg + " (the only display here is vpbench's private Xvfb for offscreen pictures, which nobody sees; the run goes on)"}
	}
	// A GPU draws the window's picture straight into its framebuffer, four samples a
	// pixel. A software renderer draws a smaller picture and stretches it onto the window
	// (scaledTarget), where more samples would only add work: the stretch shaded at four
	// samples a pixel, and every swap resolving them (docs/preview.md: 7-10 ms a frame).
	software, err := h.onSoftware()
	if err != nil {
		return err
	}
	samples := 4
	if software {
		samples = 0
	}
	gw, err := createWindow(1024, 720, "vpbench preview: "+src.Name(), true, samples)
	if err != nil {
		return err
	}
	r, err := newRenderer(false)
	if err != nil {
		gw.Destroy()
		return err
	}
	glfw.SwapInterval(1)
	r.shadowsOff = r.software // a third of a frame on the CPU: the S key turns it on
	w := &window{h: h, glfw: gw, r: r, src: src, dirty: true, title: make([]byte, 0, 256)}
	if r.software {
		if st, err := newScaledTarget(); err == nil {
			w.scaled, w.res = st, newDrawScale(drawBudget)
		}
	}
	gw.SetMouseButtonCallback(w.onMouseButton)
	gw.SetCursorPosCallback(w.onCursor)
	gw.SetScrollCallback(w.onScroll)
	gw.SetKeyCallback(w.onKey)
	gw.SetFramebufferSizeCallback(func(*glfw.Window, int, int) { w.dirty = true })
	gs.win = w
	src.windows.Add(1)
	src.wake.Store(&h.wakeWindow)
	h.open.Store(true)
	return nil
}

// closeWindow closes the window, if open (Serve's thread); the run goes on.
func (h *Host) closeWindow() {
	w := h.gs.win
	if w == nil {
		return
	}
	h.gs.win = nil
	h.open.Store(false)
	w.src.windows.Add(-1)
	w.src.wake.Store(nil)
	w.src.eye.Store(nil)
	w.src.meniscus.Store(meniscusScript)
	w.glfw.MakeContextCurrent()
	if w.scaled != nil {
		w.scaled.delete()
	}
	w.r.delete()
	w.glfw.Destroy()
	h.viewMu.Lock()
	h.viewSrc = nil
	h.viewMu.Unlock()
}

// frame draws the newest frame if there is one, or again if the camera moved.
func (w *window) frame() error {
	f, fresh := w.src.mb.Take(w.front)
	w.front = f
	if f == nil || (!fresh && !w.dirty) {
		return nil
	}
	if !w.haveBox && f.Box != (Box{}) {
		w.box, w.haveBox = f.SceneBox(), true
		w.cam = w.preset("default")
		w.publishCamera()
	}
	if f.CameraVersion != 0 && f.CameraVersion != w.camSeen { // the scenario set a camera: show it
		w.camSeen, w.cam = f.CameraVersion, f.Camera
		w.publishCamera()
	}
	w.glfw.MakeContextCurrent()
	fw, fh := w.glfw.GetFramebufferSize()
	if fw <= 0 || fh <= 0 { // minimised
		return nil
	}
	t0 := time.Now()
	if fresh {
		w.r.upload(f)
	}
	drawn := false
	if w.scaled != nil {
		sc := w.res.scale()
		dw, dh := max(1, int(float64(fw)*sc+0.5)), max(1, int(float64(fh)*sc+0.5))
		if err := w.scaled.draw(w.r, w.cam, int32(dw), int32(dh), f.Color); err == nil {
			w.scaled.present(int32(fw), int32(fh))
			drawn = true
		} else { // draw directly from now on
			w.scaled.delete()
			w.scaled, w.res = nil, nil
		}
	}
	if !drawn {
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		w.r.draw(w.cam, fw, fh, f.Color, drawOptions{})
	}
	gl.Finish()
	took := time.Since(t0)
	w.glfw.SwapBuffers()
	w.dirty = false
	if fresh {
		w.src.rendered(took)
	}
	now := time.Now()
	ms := float64(took) / 1e6
	w.renderMs += 0.1 * (ms - w.renderMs)
	if !w.lastFrame.IsZero() {
		w.frameMs += 0.1 * (float64(now.Sub(w.lastFrame))/1e6 - w.frameMs)
	}
	w.lastFrame = now
	if w.res != nil && w.res.observe(took, now) {
		w.lastTitle = time.Time{}
	}
	w.h.viewMu.Lock()
	w.h.viewSrc, w.h.viewCam, w.h.viewW, w.h.viewH = w.src, w.cam, fw, fh
	w.h.viewMu.Unlock()
	if now.Sub(w.lastTitle) > 250*time.Millisecond {
		w.lastTitle = now
		w.setTitle(f.Time)
	}
	return nil
}

// setTitle shows the simulated time and the frame and render times, built in a reused
// buffer (no allocation).
func (w *window) setTitle(t float64) {
	b := append(w.title[:0], "vpbench preview: "...)
	b = append(b, w.src.Name()...)
	b = append(b, "   t = "...)
	b = strconv.AppendFloat(b, t, 'f', 3, 64)
	b = append(b, " s   frame "...)
	b = strconv.AppendFloat(b, w.frameMs, 'f', 1, 64)
	b = append(b, " ms   render "...)
	b = strconv.AppendFloat(b, w.renderMs, 'f', 2, 64)
	b = append(b, " ms"...)
	if on, set := w.src.MeniscusOverride(); set {
		if on {
			b = append(b, "   meniscus on"...)
		} else {
			b = append(b, "   meniscus off"...)
		}
	}
	if w.r.shadowsOff {
		b = append(b, "   shadows off"...)
	}
	if w.res != nil {
		b = append(b, "   drawn at "...)
		b = strconv.AppendInt(b, int64(100*w.res.scale()+0.5), 10)
		b = append(b, "%"...)
	}
	w.title = b
	w.glfw.SetTitle(unsafe.String(unsafe.SliceData(b), len(b))) // GLFW copies it
}

// publishCamera hands the eye position to the runner (the convex-meniscus cap).
func (w *window) publishCamera() {
	eye := w.cam.Eye()
	w.src.eye.Store(&eye)
	w.dirty = true
}

func (w *window) onMouseButton(_ *glfw.Window, b glfw.MouseButton, a glfw.Action, _ glfw.ModifierKey) {
	if b == glfw.MouseButtonLeft {
		w.dragging = a == glfw.Press
		w.lastX, w.lastY = w.glfw.GetCursorPos()
	}
}

func (w *window) onCursor(_ *glfw.Window, x, y float64) {
	if !w.dragging {
		return
	}
	dx, dy := x-w.lastX, y-w.lastY
	w.lastX, w.lastY = x, y
	w.cam.Orbit(-dx*0.008, dy*0.008)
	w.publishCamera()
}

func (w *window) onScroll(_ *glfw.Window, _, dy float64) {
	r := w.box.Radius()
	w.cam.Zoom(math.Pow(0.9, dy), 0.2*r, 10*r)
	w.publishCamera()
}

// presetKeys are the keys of the preset views.
var presetKeys = map[glfw.Key]string{
	glfw.Key1: "default", glfw.Key2: "top", glfw.Key3: "front", glfw.Key4: "side", glfw.Key5: "low", glfw.Key6: "back",
}

func (w *window) onKey(_ *glfw.Window, k glfw.Key, _ int, a glfw.Action, _ glfw.ModifierKey) {
	if a != glfw.Press && a != glfw.Repeat {
		return
	}
	const step = 5 * math.Pi / 180
	switch k {
	case glfw.KeyR, glfw.KeyHome: // the scenario's camera, else the default view
		w.cam = w.preset("default")
		if w.front != nil && w.front.CameraVersion != 0 {
			w.cam = w.front.Camera
		}
	case glfw.KeyLeft:
		w.cam.Orbit(-step, 0)
	case glfw.KeyRight:
		w.cam.Orbit(step, 0)
	case glfw.KeyUp:
		w.cam.Orbit(0, step)
	case glfw.KeyDown:
		w.cam.Orbit(0, -step)
	case glfw.KeyEqual, glfw.KeyKPAdd:
		w.cam.Zoom(0.9, 0.2*w.box.Radius(), 10*w.box.Radius())
	case glfw.KeyMinus, glfw.KeyKPSubtract:
		w.cam.Zoom(1/0.9, 0.2*w.box.Radius(), 10*w.box.Radius())
	case glfw.KeyM: // meniscus: script's setting -> off -> on -> script's
		next := map[int32]int32{meniscusScript: meniscusOff, meniscusOff: meniscusOn, meniscusOn: meniscusScript}
		w.src.meniscus.Store(next[w.src.meniscus.Load()])
		w.lastTitle = time.Time{}
	case glfw.KeyS: // the key light's shadow on the terrain
		w.r.shadowsOff = !w.r.shadowsOff
		w.lastTitle = time.Time{}
	case glfw.KeyEscape, glfw.KeyQ:
		w.glfw.SetShouldClose(true)
		return
	default:
		name, ok := presetKeys[k]
		if !ok {
			return
		}
		w.cam = w.preset(name)
	}
	w.publishCamera()
}

// preset is the named view fitted to the frame on screen (its terrain and liquid) for
// the window's aspect; to the scene box when there is no frame yet.
func (w *window) preset(name string) Camera {
	aspect := DefaultAspect
	if fw, fh := w.glfw.GetFramebufferSize(); fw > 0 && fh > 0 {
		aspect = float64(fw) / float64(fh)
	}
	if w.front != nil {
		if c, err := FrameCamera(name, w.front, aspect); err == nil {
			return c
		}
	}
	c, _ := FitCamera(name, w.box, aspect)
	return c
}
