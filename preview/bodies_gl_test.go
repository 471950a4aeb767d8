//go:build cgo && !nopreview

package preview

import (
	"image"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"
)

// TestScaledTargetDrawsMovingBodies: the window's scaled target (a software renderer's
// window) draws the floating bodies every frame, not from its terrain cache. The
// hovering box is drawn, then moved 25 mm along x (the next frame's arrays) and drawn
// again from the same view: the second picture shows it, in its colour, at its new place
// and its shadow under it, and not at the old place: with the shadow off (the terrain
// cached) and on (the bodies' shadow falls on the terrain: drawn every frame).
func TestScaledTargetDrawsMovingBodies(t *testing.T) {
	needGL(t)
	f := hoveringBoxFrame(t)
	moved := f
	moved.BodyPositions = append([]float32(nil), f.BodyPositions...)
	const dx = 0.025
	for i := 0; i < len(moved.BodyPositions); i += 3 {
		moved.BodyPositions[i] += dx
	}
	there := [3]float64{bodyCentre[0] + dx, bodyCentre[1], bodyCentre[2]}
	cam, _ := PresetCamera("top", bowlBox)
	const w, h = 400, 300
	for _, shadows := range []bool{false, true} {
		name := map[bool]string{false: "shadow off", true: "shadow on"}[shadows]
		var pics [2]*image.RGBA
		err := testHost.do(func() error {
			testHost.gs.off.win.MakeContextCurrent()
			r, err := newRenderer(false) // as a window's
			if err != nil {
				return err
			}
			defer r.delete()
			st, err := newScaledTarget()
			if err != nil {
				return err
			}
			defer st.delete()
			r.shadowsOff = !shadows
			for i, fr := range []*Frame{&f, &moved} {
				r.upload(fr)
				if err := st.draw(r, cam, w, h, fr.Color); err != nil {
					return err
				}
				pics[i] = readPicture(st.pic.fbo, w, h)
			}
			gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		keep(t, name+"_moved", pics[1])
		if shadows {
			checkHoveringBox(t, pics[0], cam, bodyCentre, name+", first frame")
			checkHoveringBox(t, pics[1], cam, there, name+", moved")
			// The floor where the shadow was is lit again.
			old := shadowOn(cam, bodyCentre)
			c0, _ := pixelAt(pics[0], cam, old)
			c1, _ := pixelAt(pics[1], cam, old)
			if !(luma(c1) > 1.3*luma(c0)) {
				t.Errorf("%s: the floor where the shadow was has luma %.0f, %.0f in the shadow: want it lit again", name, luma(c1), luma(c0))
			}
		} else {
			for i, c := range [][3]float64{bodyCentre, there} {
				p := [3]float64{c[0], c[1], c[2] + 0.003}
				if got, _ := pixelAt(pics[i], cam, p); !isRed(got) {
					t.Errorf("%s, frame %d: the box's top at %s is %v: want the body's red", name, i+1, fmtPoint(p), got)
				}
			}
		}
		p := [3]float64{bodyCentre[0], bodyCentre[1], bodyCentre[2] + 0.003}
		if c, _ := pixelAt(pics[1], cam, p); isRed(c) {
			t.Errorf("%s: the box is still drawn where it was (%v at %s): cached", name, c, fmtPoint(p))
		}
	}
}

// readPicture reads the colour of framebuffer fbo (w x h), top row first.
func readPicture(fbo uint32, w, h int) *image.RGBA {
	pix := make([]byte, 4*w*h)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, fbo)
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(pix))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	row := 4 * w
	for y := range h {
		copy(img.Pix[y*img.Stride:y*img.Stride+row], pix[(h-1-y)*row:(h-y)*row])
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img
}
