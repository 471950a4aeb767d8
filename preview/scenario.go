package preview

import (
	"errors"
	"fmt"

	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/surface"
)

// FrameOf is the frame of sc's current state with the surface surf (from
// sc.BuildSurface; nil for no liquid). Its arrays are surf's, not copies: use it before
// the next build. Runner goroutine only.
func FrameOf(sc *script.Scenario, surf *surface.Mesh) (Frame, error) {
	tm, version, err := sc.TerrainMesh()
	if err != nil {
		return Frame{}, err
	}
	sx, sy, h := sc.Extent()
	rgb, _ := sc.LiquidColor()
	f := Frame{
		Time:           sc.Time(),
		Box:            Box{Max: [3]float64{sx, sy, h}},
		Color:          rgb,
		Terrain:        tm,
		TerrainVersion: uint64(version),
	}
	if surf != nil {
		f.Positions, f.Normals, f.Opacity, f.Indices = surf.Positions, surf.Normals, surf.Opacity, surf.Indices
	}
	return f, nil
}

// Apply gives the scenario's surface what the window asks for before a build: the
// camera position (the convex-meniscus cap) and the meniscus switch (M key). When the
// switch goes back to the script's setting, the script's value is restored. Runner
// goroutine only.
func (s *Source) Apply(sc *script.Scenario) error {
	st := sc.SurfaceSettings()
	changed := false
	eye := s.Eye()
	switch {
	case eye == nil && st.Camera != nil:
		st.Camera, changed = nil, true
	case eye != nil && (st.Camera == nil || *st.Camera != *eye):
		e := *eye
		st.Camera, changed = &e, true
	}
	on, set := s.MeniscusOverride()
	switch {
	case set && !s.overridden:
		s.saved, s.overridden = st.Meniscus, true
		fallthrough
	case set:
		if st.Meniscus != on {
			st.Meniscus, changed = on, true
		}
	case s.overridden:
		s.overridden = false
		if st.Meniscus != s.saved {
			st.Meniscus, changed = s.saved, true
		}
	}
	if !changed {
		return nil
	}
	return sc.SetSurfaceSettings(st)
}

// Feed is the runner's per-frame call while Wanted: it applies the window's camera and
// meniscus switch, builds the surface and publishes the frame. It returns the surface
// mesh it built.
func (s *Source) Feed(sc *script.Scenario) (*surface.Mesh, error) {
	if err := s.Apply(sc); err != nil {
		return nil, err
	}
	m, err := sc.BuildSurface()
	if err != nil {
		return nil, err
	}
	f, err := FrameOf(sc, m)
	if err != nil {
		return nil, err
	}
	s.Publish(f, m)
	return m, nil
}

// ScreenshotHook is script.Options.Screenshot for scenarios run by a command with a
// Host: it builds the surface, renders the view offscreen (the window's camera and size
// when the window shows src, the default view at 1280 x 720 otherwise) and writes the
// PNG. src may be nil.
func ScreenshotHook(h *Host, src *Source) func(sc *script.Scenario, path string) error {
	return func(sc *script.Scenario, path string) error {
		if h == nil {
			return errors.New("screenshots need the preview host: run the scenario with vpbench run, vpbench render or the UI")
		}
		if src != nil {
			if err := src.Apply(sc); err != nil {
				return err
			}
		}
		m, err := sc.BuildSurface()
		if err != nil {
			return err
		}
		f, err := FrameOf(sc, m)
		if err != nil {
			return err
		}
		cam, w, ht := h.viewFor(src, f.Box)
		img, took, err := h.Render(&f, cam, w, ht, RenderOptions{})
		if err != nil {
			return err
		}
		sc.RecordFrame(0, 0, took)
		if err := WritePNG(path, img); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	}
}
