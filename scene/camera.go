package scene

import (
	"fmt"
	"math"
)

// Camera is a camera the scenario sets (sim:camera, `vpbench render --eye`): the eye
// position and the point it looks at, m, and the vertical field of view, degrees. z is
// up. The preview draws from it (preview.Frame.Camera) until the user moves the view.
type Camera struct {
	Eye, Target [3]float64
	Fov         float64 // vertical field of view, degrees, in (MinFov, MaxFov)
}

// The field of view's bounds, degrees (both excluded).
const (
	MinFov = 1.0
	MaxFov = 170.0
)

// DefaultFov is the field of view of a camera that names none, degrees: the presets'.
const DefaultFov = 35.0

// Validate says what is wrong with c, if anything: a position that is not finite, an
// eye on its target (no direction to look in), a field of view out of (MinFov, MaxFov).
func (c Camera) Validate() error {
	for _, p := range []struct {
		name string
		v    [3]float64
	}{{"eye", c.Eye}, {"target", c.Target}} {
		for _, x := range p.v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s is {%g, %g, %g}: each coordinate must be a finite number of metres", p.name, p.v[0], p.v[1], p.v[2])
			}
		}
	}
	d := [3]float64{c.Target[0] - c.Eye[0], c.Target[1] - c.Eye[1], c.Target[2] - c.Eye[2]}
	if math.Sqrt(d[0]*d[0]+d[1]*d[1]+d[2]*d[2]) < 1e-9 {
		return fmt.Errorf("eye and target are both {%g, %g, %g}: the camera needs a direction to look in (eye != target)", c.Eye[0], c.Eye[1], c.Eye[2])
	}
	if !(c.Fov > MinFov && c.Fov < MaxFov) {
		return fmt.Errorf("fov is %g: it must be a vertical field of view in degrees in (%g, %g)", c.Fov, MinFov, MaxFov)
	}
	return nil
}

// camera is the scene's camera state: the scenario's camera and a version that changes
// with each SetCamera (0: none set).
type camera struct {
	c       Camera
	version uint64
}

// SetCamera sets the scenario's camera after validating it (an invalid one changes
// nothing). Each call gives it a new version, so that a window whose user moved the view
// takes the camera set again.
func (s *Scene) SetCamera(c Camera) error {
	if err := c.Validate(); err != nil {
		return err
	}
	s.camera.c = c
	s.camera.version++
	return nil
}

// ClearCamera drops the scenario's camera: the preview goes back to its presets (a
// window keeps the view it shows).
func (s *Scene) ClearCamera() {
	if s.camera.version != 0 {
		s.camera = camera{version: s.camera.version + 1}
		s.camera.c = Camera{}
	}
}

// Camera is the scenario's camera and its version; ok is false when none is set.
func (s *Scene) Camera() (c Camera, version uint64, ok bool) {
	if s.camera.c == (Camera{}) {
		return Camera{}, s.camera.version, false
	}
	return s.camera.c, s.camera.version, true
}
