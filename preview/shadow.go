package preview

import "math"

// The key light's shadow: the terrain (and the floating bodies) is drawn from the light
// into a depth map (shadow_gl.go), and the terrain's, the bodies' and the liquid's
// shaders darken the key light's contribution where the map says something lies between
// them and the light, so that the liquid sits on the ground, overhangs shade what is
// under them and a floating body shadows the liquid and the floor.

// lightViewProjection is the orthographic world-to-clip matrix of the key light (dir:
// towards the light, unit) that fits the box [lo, hi] tightly: the light looks along
// -dir, and x, y and depth span exactly the box's eight corners as the light sees them.
func lightViewProjection(dir [3]float32, lo, hi [3]float64) Mat4 {
	k := normalize([3]float64{float64(dir[0]), float64(dir[1]), float64(dir[2])})
	up := [3]float64{0, 0, 1}
	if math.Abs(k[2]) > 0.99 {
		up = [3]float64{0, 1, 0}
	}
	s := normalize(cross(up, k)) // the light's x
	u := cross(k, s)             // its y
	// Eye space: x along s, y along u, z along k (towards the light), the origin at 0.
	view := Mat4{
		s[0], u[0], k[0], 0,
		s[1], u[1], k[1], 0,
		s[2], u[2], k[2], 0,
		0, 0, 0, 1,
	}
	mn := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	mx := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := range 8 {
		p := [3]float64{lo[0], lo[1], lo[2]}
		for a := range 3 {
			if i&(1<<a) != 0 {
				p[a] = hi[a]
			}
		}
		q := [3]float64{dot(p, s), dot(p, u), dot(p, k)}
		for a := range 3 {
			mn[a], mx[a] = math.Min(mn[a], q[a]), math.Max(mx[a], q[a])
		}
	}
	for a := range 3 { // a margin keeps the corners strictly inside
		pad := 1e-3*(mx[a]-mn[a]) + 1e-9
		mn[a] -= pad
		mx[a] += pad
	}
	// Orthographic: x, y to [-1, 1]; the eye looks down -z, so near is -mx[2] (the
	// point nearest the light) and far -mn[2]; depth to [-1, 1].
	near, far := -mx[2], -mn[2]
	proj := Mat4{
		2 / (mx[0] - mn[0]), 0, 0, 0,
		0, 2 / (mx[1] - mn[1]), 0, 0,
		0, 0, -2 / (far - near), 0,
		-(mx[0] + mn[0]) / (mx[0] - mn[0]), -(mx[1] + mn[1]) / (mx[1] - mn[1]), -(far + near) / (far - near), 1,
	}
	return proj.Mul(view)
}

// meshBounds is the bounding box of a flat xyz array; ok is false when it is empty.
func meshBounds(pos []float32) (lo, hi [3]float64, ok bool) {
	if len(pos) < 3 {
		return lo, hi, false
	}
	for a := range 3 {
		lo[a], hi[a] = math.Inf(1), math.Inf(-1)
	}
	for i := 0; i+2 < len(pos); i += 3 {
		for a := range 3 {
			v := float64(pos[i+a])
			lo[a], hi[a] = math.Min(lo[a], v), math.Max(hi[a], v)
		}
	}
	return lo, hi, true
}

// keyLight is the key light's direction (towards the light) for a camera: 55 degrees
// up, 50 degrees to the left of the viewer (a flat surface seen from any pitch does not
// mirror it).
func keyLight(c Camera) [3]float32 {
	yaw := c.Yaw + 50*math.Pi/180
	el := 55 * math.Pi / 180
	k := normalize([3]float64{math.Cos(el) * math.Cos(yaw), math.Cos(el) * math.Sin(yaw), math.Sin(el)})
	return [3]float32{float32(k[0]), float32(k[1]), float32(k[2])}
}
