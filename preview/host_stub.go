//go:build !cgo || nopreview

package preview

import (
	"context"
	"errors"
	"image"
	"time"
)

// Available reports whether this build has the preview (cgo, GLFW and OpenGL).
const Available = false

// errNoPreview is every request's answer in a build without the preview.
var errNoPreview = errors.New("preview: this vpbench was built without the preview (it needs cgo and the X11 and OpenGL development packages; see docs/preview.md)")

type glState struct{}

// Serve answers requests until ctx ends; in this build every request fails with a
// message saying why.
func (h *Host) Serve(ctx context.Context) {
	h.serving.Store(true)
	close(h.started)
	defer func() {
		h.serving.Store(false)
		close(h.done)
	}()
	for {
		select {
		case r := <-h.reqs:
			r.reply <- r.fn()
		case <-ctx.Done():
			return
		}
	}
}

func (h *Host) openWindow(*Source) error { return errNoPreview }
func (h *Host) closeWindow()             {}
func (h *Host) wake()                    {}

func (h *Host) renderOffscreen(*Frame, Camera, int, int, RenderOptions) (*image.RGBA, time.Duration, error) {
	return nil, 0, errNoPreview
}
