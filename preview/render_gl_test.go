//go:build cgo && !nopreview

package preview

import (
	"testing"
)

// TestRenderLoopWarm: once warm, a frame of the render loop (upload of the positions,
// normals and opacity into the reused buffers, draw, wait for the GPU) allocates
// nothing. BenchmarkRenderLoop times it (the figures in docs/preview.md).
func TestRenderLoopWarm(t *testing.T) {
	needGL(t)
	l := newRenderLoop(t)
	for _, bodies := range []bool{false, true} {
		if bodies { // a floating body too: uploaded and drawn into the shadow map each frame
			l.addBodies(t)
		}
		var allocs float64
		err := l.on(func(_ *renderer, frame func()) {
			frame()
			allocs = testing.AllocsPerRun(5, frame)
		})
		if err != nil {
			t.Fatal(err)
		}
		if allocs != 0 {
			t.Errorf("bodies %v: %g allocations per warm frame", bodies, allocs)
		}
	}
}
