package preview

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/vpbench/vpbench/terrain"
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
	// Reach, when > 0, is how far beyond the target the scene may extend, m: the far
	// plane clears Distance + Reach. A camera set by its eye and target (LookAt) may
	// stand close to a target far from the scene's middle; the presets leave it 0.
	Reach float64
}

// Limits of the orbit camera.
const (
	minPitch = -80 * math.Pi / 180
	maxPitch = 89 * math.Pi / 180
	fovY     = 35 * math.Pi / 180
)

// presets are the named views: yaw and pitch in degrees. The distance and the target
// are fitted to the box (Camera.Fit).
var presets = map[string]struct{ yaw, pitch float64 }{
	"default": {-100, 42},
	"top":     {-90, 89},
	"front":   {-90, 20},
	"side":    {0, 20},
	"low":     {-120, 12},
	"back":    {80, 42},
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

// DefaultAspect is the picture's width/height the presets are fitted for when the
// caller does not say (1280 x 720, 800 x 450).
const DefaultAspect = 16.0 / 9.0

// fillMargin is how much of the picture's half-width or half-height (whichever binds)
// the fitted box fills.
const fillMargin = 0.94

// PresetCamera returns the named view of box (see Presets), fitted for DefaultAspect; an
// unknown name is an error that lists the known ones.
func PresetCamera(name string, box Box) (Camera, error) {
	return FitCamera(name, box, DefaultAspect)
}

// FitCamera returns the named view of box for a picture of the given aspect
// (width/height): looking from the preset's direction, the box fills the picture
// (Camera.Fit).
func FitCamera(name string, box Box, aspect float64) (Camera, error) {
	p, ok := presets[name]
	if !ok {
		return Camera{}, fmt.Errorf("unknown view %q: want one of %s", name, strings.Join(Presets(), ", "))
	}
	c := Camera{Yaw: p.yaw * math.Pi / 180, Pitch: p.pitch * math.Pi / 180, FovY: fovY}
	c.Fit(box, aspect)
	return c, nil
}

// Fit keeps the camera's direction and field of view and sets its target and distance
// so that the eight corners of box fill fillMargin of the picture (aspect = width /
// height) in the dimension that binds, centred (FitPoints). An empty box is taken as a
// 5 cm cube at its centre.
func (c *Camera) Fit(box Box, aspect float64) {
	if !(box.Radius() > 0) {
		ctr := box.Center()
		box = Box{Min: [3]float64{ctr[0] - 0.025, ctr[1] - 0.025, ctr[2] - 0.025}, Max: [3]float64{ctr[0] + 0.025, ctr[1] + 0.025, ctr[2] + 0.025}}
	}
	var corners [][3]float64
	for i := range 8 {
		var p [3]float64
		for k := range 3 {
			p[k] = box.Min[k]
			if i>>k&1 == 1 {
				p[k] = box.Max[k]
			}
		}
		corners = append(corners, p)
	}
	c.FitPoints(corners, aspect)
}

// FitPoints keeps the camera's direction and field of view and sets its target and
// distance so that the points fill fillMargin of the picture (aspect = width / height)
// in the dimension that binds, centred on the screen. Fitted to a scene's own vertices
// (Frame.ScenePoints), the scene fills the picture; fitted to a box's corners, the
// corners do, and the scene within may be smaller. No points: nothing changes.
func (c *Camera) FitPoints(pts [][3]float64, aspect float64) {
	if len(pts) == 0 {
		return
	}
	if !(aspect > 0) || math.IsInf(aspect, 0) {
		aspect = DefaultAspect
	}
	if !(c.FovY > 0 && c.FovY < math.Pi) {
		c.FovY = fovY
	}
	var bound Box
	bound.Min, bound.Max = pts[0], pts[0]
	for _, p := range pts {
		for k := range 3 {
			bound.Min[k], bound.Max[k] = min(bound.Min[k], p[k]), max(bound.Max[k], p[k])
		}
	}
	minDist := max(bound.Radius(), 1e-3) * 0.5
	tanY := math.Tan(c.FovY/2) * fillMargin
	tanX := tanY * aspect
	c.Target = bound.Center()
	// The camera's basis as View builds it: forward f (eye to target), right s, up u.
	cp := math.Cos(c.Pitch)
	f := [3]float64{-cp * math.Cos(c.Yaw), -cp * math.Sin(c.Yaw), -math.Sin(c.Pitch)}
	s := cross(f, [3]float64{0, 0, 1})
	if length(s) < 1e-9 {
		s = [3]float64{-math.Sin(c.Yaw), math.Cos(c.Yaw), 0}
	}
	s = normalize(s)
	u := cross(s, f)
	// With the eye at target - d f, a point q (relative to the target) lies at depth
	// d + q.f, and is in the picture when |q.s| <= (d + q.f) tanX and likewise for u:
	// the least such d over the points. Then the target moves to the middle of what the
	// points span on the screen, and d is found again.
	for i := range 4 {
		d := 0.0
		for _, p := range pts {
			q := sub(p, c.Target)
			z := dot(q, f)
			d = max(d, math.Abs(dot(q, s))/tanX-z, math.Abs(dot(q, u))/tanY-z)
		}
		d = max(d, minDist)
		c.Distance = d
		xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			q := sub(p, c.Target)
			z := d + dot(q, f)
			x, y := dot(q, s)/z, dot(q, u)/z // tangents of the angles off the axis
			xlo, xhi, ylo, yhi = min(xlo, x), max(xhi, x), min(ylo, y), max(yhi, y)
		}
		mx, my := (xlo+xhi)/2, (ylo+yhi)/2
		if i == 3 || math.Abs(mx) < 1e-4*tanX && math.Abs(my) < 1e-4*tanY {
			break
		}
		for k := range 3 {
			c.Target[k] += (s[k]*mx + u[k]*my) * d
		}
	}
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
	if c.Reach > 0 {
		far = max(far, (c.Distance+c.Reach)*1.05)
	}
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

// SceneBox is what the camera frames: the bounding box of the terrain mesh and the liquid
// surface (positions as xyz triples), within the domain box; the domain box when there
// is neither. The domain's height is often far above the terrain: framing the domain
// left most of the picture empty.
func SceneBox(domain Box, terrainMesh *terrain.Mesh, liquid []float32) Box {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	add := func(p []float32) {
		for i := 0; i+2 < len(p); i += 3 {
			for k := range 3 {
				v := float64(p[i+k])
				lo[k], hi[k] = min(lo[k], v), max(hi[k], v)
			}
		}
	}
	if terrainMesh != nil {
		add(terrainMesh.Positions)
	}
	add(liquid)
	if !(lo[0] <= hi[0]) {
		return domain
	}
	var b Box
	for k := range 3 {
		b.Min[k], b.Max[k] = lo[k], hi[k]
		if domain.Max[k] > domain.Min[k] {
			b.Min[k] = min(max(lo[k], domain.Min[k]), domain.Max[k])
			b.Max[k] = min(max(hi[k], domain.Min[k]), domain.Max[k])
		}
	}
	return b
}

// SceneBox is the frame's SceneBox.
func (f *Frame) SceneBox() Box { return SceneBox(f.Box, f.Terrain, f.Positions) }

// maxScenePoints bounds the vertices a camera is fitted to.
const maxScenePoints = 100000

// ScenePoints are the vertices the camera frames: the terrain's and the liquid's
// (every k-th of them beyond maxScenePoints), within the domain box.
func (f *Frame) ScenePoints() [][3]float64 {
	var n int
	if f.Terrain != nil {
		n += len(f.Terrain.Positions) / 3
	}
	n += len(f.Positions) / 3
	stride := max(1, (n+maxScenePoints-1)/maxScenePoints)
	pts := make([][3]float64, 0, n/stride+1)
	inDomain := func(p [3]float64) bool {
		for k := range 3 {
			if f.Box.Max[k] > f.Box.Min[k] && (p[k] < f.Box.Min[k]-1e-9 || p[k] > f.Box.Max[k]+1e-9) {
				return false
			}
		}
		return true
	}
	add := func(pos []float32) {
		for i := 0; i+2 < len(pos); i += 3 * stride {
			p := [3]float64{float64(pos[i]), float64(pos[i+1]), float64(pos[i+2])}
			if inDomain(p) {
				pts = append(pts, p)
			}
		}
	}
	if f.Terrain != nil {
		add(f.Terrain.Positions)
	}
	add(f.Positions)
	return pts
}

// FrameCamera is the named view of f (see Presets) fitted to its terrain and liquid
// (ScenePoints) for a picture of the given aspect; the domain box's corners when the
// frame has neither.
func FrameCamera(name string, f *Frame, aspect float64) (Camera, error) {
	c, err := FitCamera(name, f.Box, aspect)
	if err != nil {
		return c, err
	}
	if pts := f.ScenePoints(); len(pts) > 0 {
		c.FitPoints(pts, aspect)
	}
	return c, nil
}
