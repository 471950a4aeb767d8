//go:build cgo && !nopreview

package preview

import (
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/vpbench/vpbench/scene"
)

// BenchmarkRenderLoop times a warm frame of the render loop (upload of the positions,
// normals and opacity into the reused buffers, draw, wait for the GPU: what
// TestRenderLoopWarm checks allocates nothing), the bowl at t = 3 s at 1280 x 720, with
// the key light's shadow and without it, and with the shadow and a floating body (the
// hovering box of TestBodyDrawnAndShadowed: uploaded, drawn, and drawn into the shadow
// map over the terrain's copied depth every frame):
//
//	VPBENCH_REQUIRE_DISPLAY=1 go test -run '^$' -bench RenderLoop ./preview/
//
// ms/frame is the time a frame (ns/op in milliseconds).
func BenchmarkRenderLoop(b *testing.B) {
	needGL(b)
	l := newRenderLoop(b)
	b.Logf("bowl at t = 3 s, %d liquid and %d terrain triangles, %dx%d, %s",
		len(l.f.Indices)/3, l.f.Terrain.NumTriangles(), l.w, l.h, l.renderer)
	for _, bc := range []struct {
		name           string
		shadow, bodies bool
	}{{"shadow", true, false}, {"noshadow", false, false}, {"bodies", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			if bc.bodies {
				l.addBodies(b)
				defer l.removeBodies()
			}
			err := l.on(func(r *renderer, frame func()) {
				off := r.shadowsOff
				r.shadowsOff = !bc.shadow
				defer func() { r.shadowsOff = off }()
				frame() // the shadow map drawn, if any
				for b.Loop() {
					frame()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/frame")
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// renderLoop is the frame TestRenderLoopWarm and BenchmarkRenderLoop draw again and
// again in the test host's offscreen context, as the window's render loop does.
type renderLoop struct {
	f        Frame
	cam      Camera
	w, h     int
	renderer string // GL_RENDERER
}

// newRenderLoop loads the bowl, runs it to t = 3 s and renders its frame once through
// the test host (which makes the buffers and the framebuffer). OpenGL must be there
// (needGL).
func newRenderLoop(tb testing.TB) *renderLoop {
	tb.Helper()
	sc := loadLibrary(tb, "bowl.lua", 3, nil)
	l := &renderLoop{cam: DefaultCamera(bowlBox), w: 1280, h: 720}
	eye, meniscus := l.cam.Eye(), true // as withCamera(t, sc, cam, true)
	sc.Scene().SetView(scene.View{Eye: &eye, Meniscus: &meniscus})
	m, err := sc.Scene().BuildSurface()
	if err != nil {
		tb.Fatal(err)
	}
	if l.f, err = FrameOf(sc.Scene(), m); err != nil {
		tb.Fatal(err)
	}
	l.f.Topology = 1
	if _, _, err := testHost.Render(&l.f, l.cam, l.w, l.h, RenderOptions{}); err != nil { // warm: buffers, framebuffer
		tb.Fatal(err)
	}
	err = testHost.do(func() error {
		testHost.gs.off.win.MakeContextCurrent()
		l.renderer = gl.GoStr(gl.GetString(gl.RENDERER))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// addBodies gives the loop's frame the hovering box of TestBodyDrawnAndShadowed (over
// the bowl's rim: the same domain).
func (l *renderLoop) addBodies(tb testing.TB) {
	tb.Helper()
	bf := hoveringBoxFrame(tb)
	l.f.BodyPositions = append([]float32(nil), bf.BodyPositions...)
	l.f.BodyNormals = append([]float32(nil), bf.BodyNormals...)
	l.f.BodyColors = append([]float32(nil), bf.BodyColors...)
	l.f.BodyIndices = append([]uint32(nil), bf.BodyIndices...)
	tb.Logf("a floating body: %d vertices, %d triangles", len(bf.BodyPositions)/3, len(bf.BodyIndices)/3)
}

// removeBodies takes the bodies out of the loop's frame.
func (l *renderLoop) removeBodies() {
	l.f.BodyPositions, l.f.BodyNormals, l.f.BodyColors, l.f.BodyIndices = nil, nil, nil, nil
}

// on runs fn on the host's thread with the offscreen context current and its
// multisampled framebuffer bound; frame draws one frame of the loop and waits for it.
func (l *renderLoop) on(fn func(r *renderer, frame func())) error {
	return testHost.do(func() error {
		o := testHost.gs.off
		o.win.MakeContextCurrent()
		gl.BindFramebuffer(gl.FRAMEBUFFER, o.fbo.ms)
		defer gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		fn(o.r, func() {
			o.r.upload(&l.f)
			o.r.draw(l.cam, l.w, l.h, l.f.Color, drawOptions{})
			gl.Finish()
		})
		return nil
	})
}
