package main

import (
	"flag"
	"math"
	"strconv"
	"strings"

	"github.com/vpbench/vpbench/preview"
	"github.com/vpbench/vpbench/scene"
)

// cameraFlags are `vpbench render`'s --eye, --target and --fov: a camera by position,
// beside the --view presets.
type cameraFlags struct {
	eye, target string
	fov         float64
}

func (c *cameraFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.eye, "eye", "", "camera position x,y,z in m (with --target; instead of --view and the script's sim:camera)")
	fs.StringVar(&c.target, "target", "", "the point the camera looks at, x,y,z in m (with --eye)")
	fs.Float64Var(&c.fov, "fov", scene.DefaultFov, "the camera's vertical field of view, degrees in (1, 170) (with --eye)")
}

// camera checks the flags: set is false when --eye is not given (the script's camera or
// --view then), the camera when it is. given says whether a flag was on the command line.
func (c *cameraFlags) camera(given func(string) bool) (cam scene.Camera, set bool, err error) {
	if !given("eye") && !given("target") {
		if given("fov") {
			return cam, false, usagef("--fov goes with --eye and --target (the presets frame the scene at their own field of view)")
		}
		return cam, false, nil
	}
	if !given("eye") || !given("target") {
		return cam, false, usagef("--eye and --target go together: the camera's position and the point it looks at")
	}
	if given("view") {
		return cam, false, usagef("--view picks a preset, --eye and --target place the camera: give one or the other")
	}
	if cam.Eye, err = parseVec3("--eye", c.eye); err != nil {
		return cam, false, err
	}
	if cam.Target, err = parseVec3("--target", c.target); err != nil {
		return cam, false, err
	}
	cam.Fov = c.fov
	if err := cam.Validate(); err != nil {
		return cam, false, usagef("--eye %s --target %s --fov %g: %v", c.eye, c.target, c.fov, err)
	}
	return cam, true, nil
}

// parseVec3 reads "x,y,z": three finite numbers (spaces allowed).
func parseVec3(flagName, s string) ([3]float64, error) {
	var v [3]float64
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return v, usagef("%s %q: want three numbers x,y,z in m, e.g. 0.05,-0.1,0.08", flagName, s)
	}
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return v, usagef("%s %q: %q is not a finite number (want x,y,z in m)", flagName, s, strings.TrimSpace(p))
		}
		v[i] = x
	}
	return v, nil
}

// renderCamera is the camera of a picture of sc: the command line's (--eye), else the
// script's sim:camera unless --view was given, else the --view preset fitted once to the
// first picture (fitted: nil when the preset is wanted).
func renderCamera(sc *scene.Scene, flagCam *scene.Camera, viewGiven bool) (*preview.Camera, error) {
	sx, sy, h := sc.Extent()
	box := preview.Box{Max: [3]float64{sx, sy, h}}
	if flagCam != nil {
		c, err := preview.SceneCamera(*flagCam, box)
		return &c, err
	}
	if c, _, ok := sc.Camera(); ok && !viewGiven {
		cam, err := preview.SceneCamera(c, box)
		return &cam, err
	}
	return nil, nil
}
