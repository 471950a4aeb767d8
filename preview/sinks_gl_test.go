//go:build cgo && !nopreview

package preview

import (
	"image"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"
)

// TestScaledTargetDrawsSinks: the window's scaled target (a software renderer's window)
// draws the sinks' marks every frame, not from its terrain cache: a frame with the
// drain shows it, the next frame, the same terrain and view with the sink stopped, shows
// the floor there (the cache was drawn without the mark), and the frame after, with the
// sink again, shows the drain.
func TestScaledTargetDrawsSinks(t *testing.T) {
	needGL(t)
	with, without := drainFrame(t, false), drainFrame(t, true)
	without.Terrain, without.TerrainVersion = with.Terrain, with.TerrainVersion // the same terrain: the cache holds
	cam, _ := PresetCamera("top", bowlBox)
	const w, h = 400, 300
	var pics [3]*image.RGBA
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
		for i, fr := range []*Frame{&with, &without, &with} {
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
	keep(t, "stopped", pics[1])
	mid := [3]float64{0.0512, 0.0506, floorTop} // between the grate's bars
	var l [3]float64
	for i, p := range pics {
		c, ok := pixelAt(p, cam, mid)
		if !ok {
			t.Fatal("the drain is off the picture")
		}
		l[i] = luma(c)
	}
	if !(l[0] < 0.3*l[1] && l[2] < 0.3*l[1]) {
		t.Errorf("the drain's middle: luma %.0f, %.0f with the sink stopped, %.0f again: want it dark, then the floor, then dark", l[0], l[1], l[2])
	}
}
