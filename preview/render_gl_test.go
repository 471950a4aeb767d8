//go:build cgo && !nopreview

package preview

import (
	"testing"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"
)

// TestRenderLoopWarm: once warm, a frame of the render loop (upload of the positions,
// normals and opacity into the reused buffers, draw, wait for the GPU) allocates
// nothing; it logs the time per frame (the figure in docs/preview.md).
func TestRenderLoopWarm(t *testing.T) {
	needGL(t)
	sc := loadLibrary(t, "bowl.lua", 3, nil)
	cam := DefaultCamera(bowlBox)
	withCamera(t, sc, cam, true)
	m, err := sc.Scene().BuildSurface()
	if err != nil {
		t.Fatal(err)
	}
	f, err := FrameOf(sc.Scene(), m)
	if err != nil {
		t.Fatal(err)
	}
	f.Topology = 1
	if _, _, err := testHost.Render(&f, cam, 1280, 720, RenderOptions{}); err != nil { // warm: buffers, framebuffer
		t.Fatal(err)
	}
	var allocs float64
	var per, unshadowed time.Duration
	var renderer string
	err = testHost.do(func() error {
		o := testHost.gs.off
		o.win.MakeContextCurrent()
		gl.BindFramebuffer(gl.FRAMEBUFFER, o.fbo.ms)
		frame := func() {
			o.r.upload(&f)
			o.r.draw(cam, 1280, 720, f.Color, drawOptions{})
			gl.Finish()
		}
		frame()
		allocs = testing.AllocsPerRun(5, frame)
		// Timed with and without the key light's shadow, alternately (the machine is
		// shared: the fastest of three rounds of each).
		measure := func() time.Duration {
			t0 := time.Now()
			const n = 5
			for range n {
				frame()
			}
			return time.Since(t0) / n
		}
		sm := o.r.shadow
		per, unshadowed = time.Hour, time.Hour
		for range 3 {
			per = min(per, measure())
			o.r.shadow = nil
			unshadowed = min(unshadowed, measure())
			o.r.shadow = sm
		}
		renderer = gl.GoStr(gl.GetString(gl.RENDERER))
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bowl at t = 3 s, %d liquid and %d terrain triangles, 1280x720: %.2f ms a frame (upload + draw + finish, %s), %.2f ms without the shadow",
		len(f.Indices)/3, f.Terrain.NumTriangles(), float64(per)/1e6, renderer, float64(unshadowed)/1e6)
	if allocs != 0 {
		t.Errorf("%g allocations per warm frame", allocs)
	}
}
