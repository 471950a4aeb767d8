package preview

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Box is the axis-aligned extent of a scene in metres (the simulation domain): the
// camera orbits its centre and its presets are fitted to it.
type Box struct {
	Min, Max [3]float64
}

// Center is the middle of the box.
func (b Box) Center() [3]float64 {
	return [3]float64{(b.Min[0] + b.Max[0]) / 2, (b.Min[1] + b.Max[1]) / 2, (b.Min[2] + b.Max[2]) / 2}
}

// Radius is half the box's diagonal.
func (b Box) Radius() float64 {
	dx, dy, dz := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1], b.Max[2]-b.Min[2]
	return math.Sqrt(dx*dx+dy*dy+dz*dz) / 2
}

// Camera is an orbit camera: it looks at Target from Distance metres away, from the
// direction given by Yaw (radians about +z from +x: 0 puts the eye on the +x side) and
// Pitch (radians above the horizontal, in (-pi/2, pi/2)), with a vertical field of view
// FovY (radians). z is up.
type Camera struct {
	Target   [3]float64
	Distance float64
	Yaw      float64
	Pitch    float64
	FovY     float64
}

// Limits of the orbit camera.
const (
	minPitch = -80 * math.Pi / 180
	maxPitch = 89 * math.Pi / 180
	fovY     = 35 * math.Pi / 180
)

// presets are the named views: yaw and pitch in degrees, and the distance as a multiple
// of the box's radius.
var presets = map[string]struct{ yaw, pitch, dist float64 }{
	"default": {-120, 42, 3.3},
	"top":     {-90, 89, 2.8},
	"front":   {-90, 20, 2.9},
	"side":    {0, 20, 2.9},
	"low":     {-120, 12, 2.9},
	"back":    {60, 42, 3.3},
}

// Presets lists the names of the preset views, sorted ("default" first).
func Presets() []string {
	names := make([]string, 0, len(presets))
	for k := range presets {
		if k != "default" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return append([]string{"default"}, names...)
}

// PresetCamera returns the named view of box (see Presets); an unknown name is an error
// that lists the known ones.
func PresetCamera(name string, box Box) (Camera, error) {
	p, ok := presets[name]
	if !ok {
		return Camera{}, fmt.Errorf("unknown view %q: want one of %s", name, strings.Join(Presets(), ", "))
	}
	r := box.Radius()
	if !(r > 0) {
		r = 0.05
	}
	return Camera{
		Target:   box.Center(),
		Distance: p.dist * r,
		Yaw:      p.yaw * math.Pi / 180,
		Pitch:    p.pitch * math.Pi / 180,
		FovY:     fovY,
	}, nil
}

// DefaultCamera is PresetCamera("default", box).
func DefaultCamera(box Box) Camera {
	c, _ := PresetCamera("default", box)
	return c
}

// Eye is the camera's position: Target + Distance (cos Pitch cos Yaw, cos Pitch sin Yaw,
// sin Pitch).
func (c Camera) Eye() [3]float64 {
	cp := math.Cos(c.Pitch)
	return [3]float64{
		c.Target[0] + c.Distance*cp*math.Cos(c.Yaw),
		c.Target[1] + c.Distance*cp*math.Sin(c.Yaw),
		c.Target[2] + c.Distance*math.Sin(c.Pitch),
	}
}

// Orbit turns the camera by dyaw and dpitch radians (pitch clamped to the limits).
func (c *Camera) Orbit(dyaw, dpitch float64) {
	c.Yaw = math.Remainder(c.Yaw+dyaw, 2*math.Pi)
	c.Pitch = min(max(c.Pitch+dpitch, minPitch), maxPitch)
}

// Zoom multiplies the distance by factor, kept within [minD, maxD].
func (c *Camera) Zoom(factor, minD, maxD float64) {
	c.Distance = min(max(c.Distance*factor, minD), maxD)
}

// Mat4 is a 4x4 matrix in column-major order (OpenGL's).
type Mat4 [16]float64

// Mul returns a*b.
func (a Mat4) Mul(b Mat4) Mat4 {
	var r Mat4
	for col := range 4 {
		for row := range 4 {
			var s float64
			for k := range 4 {
				s += a[k*4+row] * b[col*4+k]
			}
			r[col*4+row] = s
		}
	}
	return r
}

// Float32 converts m for glUniformMatrix4fv.
func (m Mat4) Float32() (f [16]float32) {
	for i, v := range m {
		f[i] = float32(v)
	}
	return f
}

// View is the world-to-eye matrix (a look-at with z up).
func (c Camera) View() Mat4 {
	eye := c.Eye()
	f := normalize(sub(c.Target, eye))
	up := [3]float64{0, 0, 1}
	s := cross(f, up)
	if length(s) < 1e-9 { // looking straight down or up
		s = [3]float64{-math.Sin(c.Yaw), math.Cos(c.Yaw), 0}
	}
	s = normalize(s)
	u := cross(s, f)
	return Mat4{
		s[0], u[0], -f[0], 0,
		s[1], u[1], -f[1], 0,
		s[2], u[2], -f[2], 0,
		-dot(s, eye), -dot(u, eye), dot(f, eye), 1,
	}
}

// clipRange returns the near and far planes: the far plane clears the scene seen from
// Distance, the near plane is a small fraction of it (depth precision).
func (c Camera) clipRange() (near, far float64) {
	far = c.Distance * 4
	near = max(c.Distance/200, 1e-5)
	return near, far
}

// Projection is the perspective matrix for an aspect ratio width/height.
func (c Camera) Projection(aspect float64) Mat4 {
	near, far := c.clipRange()
	fov := c.FovY
	if !(fov > 0 && fov < math.Pi) {
		fov = fovY
	}
	f := 1 / math.Tan(fov/2)
	return Mat4{
		f / aspect, 0, 0, 0,
		0, f, 0, 0,
		0, 0, (far + near) / (near - far), -1,
		0, 0, 2 * far * near / (near - far), 0,
	}
}

// ViewProjection is Projection(width/height) * View.
func (c Camera) ViewProjection(width, height int) Mat4 {
	return c.Projection(float64(width) / float64(max(height, 1))).Mul(c.View())
}

// Project returns the pixel (x to the right, y down from the top-left corner, as in
// image.Image) where world point p lands in a width x height picture from c, and whether
// it is in front of the camera and inside the picture.
func (c Camera) Project(p [3]float64, width, height int) (x, y float64, ok bool) {
	m := c.ViewProjection(width, height)
	cx := m[0]*p[0] + m[4]*p[1] + m[8]*p[2] + m[12]
	cy := m[1]*p[0] + m[5]*p[1] + m[9]*p[2] + m[13]
	cw := m[3]*p[0] + m[7]*p[1] + m[11]*p[2] + m[15]
	if cw <= 0 {
		return 0, 0, false
	}
	x = (cx/cw + 1) / 2 * float64(width)
	y = (1 - cy/cw) / 2 * float64(height)
	return x, y, x >= 0 && y >= 0 && x < float64(width) && y < float64(height)
}

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func length(a [3]float64) float64    { return math.Sqrt(dot(a, a)) }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func normalize(a [3]float64) [3]float64 {
	l := length(a)
	if l == 0 {
		return a
	}
	return [3]float64{a[0] / l, a[1] / l, a[2] / l}
}
