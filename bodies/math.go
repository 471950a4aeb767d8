package bodies

import (
	"math"

	"github.com/vpbench/vpbench/terrain"
)

// vec is a 3-vector in float64.
type vec = terrain.Vec3

// mat3 is a 3x3 matrix, row major.
type mat3 [3][3]float64

func (m mat3) mul(v vec) vec {
	return vec{
		X: m[0][0]*v.X + m[0][1]*v.Y + m[0][2]*v.Z,
		Y: m[1][0]*v.X + m[1][1]*v.Y + m[1][2]*v.Z,
		Z: m[2][0]*v.X + m[2][1]*v.Y + m[2][2]*v.Z,
	}
}

// mulT multiplies by the transpose.
func (m mat3) mulT(v vec) vec {
	return vec{
		X: m[0][0]*v.X + m[1][0]*v.Y + m[2][0]*v.Z,
		Y: m[0][1]*v.X + m[1][1]*v.Y + m[2][1]*v.Z,
		Z: m[0][2]*v.X + m[1][2]*v.Y + m[2][2]*v.Z,
	}
}

func (m mat3) mulM(n mat3) mat3 {
	var r mat3
	for i := range 3 {
		for j := range 3 {
			r[i][j] = m[i][0]*n[0][j] + m[i][1]*n[1][j] + m[i][2]*n[2][j]
		}
	}
	return r
}

func (m mat3) transpose() mat3 {
	var r mat3
	for i := range 3 {
		for j := range 3 {
			r[i][j] = m[j][i]
		}
	}
	return r
}

func (m mat3) add(n mat3) mat3 {
	for i := range 3 {
		for j := range 3 {
			m[i][j] += n[i][j]
		}
	}
	return m
}

func (m mat3) scale(k float64) mat3 {
	for i := range 3 {
		for j := range 3 {
			m[i][j] *= k
		}
	}
	return m
}

// inverse is m's inverse (m symmetric positive definite here); a singular m gives the
// identity.
func (m mat3) inverse() mat3 {
	var r mat3
	for c := range 3 {
		e := vec{X: b2f(c == 0), Y: b2f(c == 1), Z: b2f(c == 2)}
		x := m.solve(e)
		r[0][c], r[1][c], r[2][c] = x.X, x.Y, x.Z
	}
	return r
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// solve returns x with m x = b (m symmetric positive definite here); a singular m gives
// b unchanged.
func (m mat3) solve(b vec) vec {
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
		m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
		m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	if det == 0 || math.IsNaN(det) {
		return b
	}
	inv := mat3{
		{m[1][1]*m[2][2] - m[1][2]*m[2][1], m[0][2]*m[2][1] - m[0][1]*m[2][2], m[0][1]*m[1][2] - m[0][2]*m[1][1]},
		{m[1][2]*m[2][0] - m[1][0]*m[2][2], m[0][0]*m[2][2] - m[0][2]*m[2][0], m[0][2]*m[1][0] - m[0][0]*m[1][2]},
		{m[1][0]*m[2][1] - m[1][1]*m[2][0], m[0][1]*m[2][0] - m[0][0]*m[2][1], m[0][0]*m[1][1] - m[0][1]*m[1][0]},
	}
	return inv.mul(b).Scale(1 / det)
}

// addPoint adds w (|r|^2 I - r r^T) to m: the inertia tensor's term of a point mass w
// at r.
func (m *mat3) addPoint(r vec, w float64) {
	r2 := r.Dot(r)
	m[0][0] += w * (r2 - r.X*r.X)
	m[1][1] += w * (r2 - r.Y*r.Y)
	m[2][2] += w * (r2 - r.Z*r.Z)
	m[0][1] -= w * r.X * r.Y
	m[0][2] -= w * r.X * r.Z
	m[1][2] -= w * r.Y * r.Z
	m[1][0], m[2][0], m[2][1] = m[0][1], m[0][2], m[1][2]
}

// quat is a unit quaternion (w, x, y, z), a rotation.
type quat struct{ W, X, Y, Z float64 }

var identity = quat{W: 1}

func (q quat) normalized() quat {
	n := math.Sqrt(q.W*q.W + q.X*q.X + q.Y*q.Y + q.Z*q.Z)
	if n == 0 || math.IsNaN(n) {
		return identity
	}
	return quat{q.W / n, q.X / n, q.Y / n, q.Z / n}
}

func (q quat) mul(p quat) quat {
	return quat{
		W: q.W*p.W - q.X*p.X - q.Y*p.Y - q.Z*p.Z,
		X: q.W*p.X + q.X*p.W + q.Y*p.Z - q.Z*p.Y,
		Y: q.W*p.Y - q.X*p.Z + q.Y*p.W + q.Z*p.X,
		Z: q.W*p.Z + q.X*p.Y - q.Y*p.X + q.Z*p.W,
	}
}

// rotate turns q by the rotation vector w*dt (axis-angle, exact).
func (q quat) rotate(w vec, dt float64) quat {
	a := w.Len() * dt
	if a == 0 {
		return q
	}
	axis := w.Scale(1 / w.Len())
	s := math.Sin(a / 2)
	return quat{math.Cos(a / 2), axis.X * s, axis.Y * s, axis.Z * s}.mul(q).normalized()
}

// matrix is q's rotation matrix.
func (q quat) matrix() mat3 {
	w, x, y, z := q.W, q.X, q.Y, q.Z
	return mat3{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}

// axisAngle is q as a rotation axis (unit) and an angle in radians in [0, pi].
func (q quat) axisAngle() (vec, float64) {
	q = q.normalized()
	if q.W < 0 {
		q = quat{-q.W, -q.X, -q.Y, -q.Z}
	}
	s := math.Sqrt(q.X*q.X + q.Y*q.Y + q.Z*q.Z)
	if s < 1e-12 {
		return vec{Z: 1}, 0
	}
	return vec{X: q.X / s, Y: q.Y / s, Z: q.Z / s}, 2 * math.Atan2(s, q.W)
}
