package preview

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/scene"
)

// LookAt is the camera at eye looking at target with a vertical field of view of fov
// degrees (z up): a scenario's camera (sim:camera, scene.Camera) or `vpbench render
// --eye --target --fov`. It is an orbit camera about target like the presets' (the
// window's mouse and keys move it from there): Distance is |eye - target|, Yaw and Pitch
// the direction from target to eye. Its far plane clears box (the scene), wherever the
// target lies in it. The checks are scene.Camera.Validate's.
func LookAt(eye, target [3]float64, fov float64, box Box) (Camera, error) {
	if err := (scene.Camera{Eye: eye, Target: target, Fov: fov}).Validate(); err != nil {
		return Camera{}, err
	}
	d := sub(eye, target)
	dist := length(d)
	c := Camera{
		Target:   target,
		Distance: dist,
		Yaw:      math.Atan2(d[1], d[0]),
		Pitch:    math.Asin(max(-1, min(1, d[2]/dist))),
		FovY:     fov * math.Pi / 180,
	}
	if r := box.Radius(); r > 0 {
		c.Reach = length(sub(box.Center(), target)) + r
	}
	return c, nil
}

// SceneCamera is LookAt of the scene's camera (scene.Scene.Camera) over box.
func SceneCamera(c scene.Camera, box Box) (Camera, error) {
	cam, err := LookAt(c.Eye, c.Target, c.Fov, box)
	if err != nil {
		return Camera{}, fmt.Errorf("camera: %w", err)
	}
	return cam, nil
}
