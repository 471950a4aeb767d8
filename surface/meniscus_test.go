package surface

import (
	"math"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// poolRow builds a 6 x 3 grid whose cells x < wetX are floor at 1 mm and the others the
// given boundary cell; it returns the columns and the heights with the pool at 3 mm.
func poolRow(t *testing.T, wetX int, boundary func() []terrain.Interval) (*terrain.Columns, []float32) {
	t.Helper()
	var cells [][]terrain.Interval
	for range 3 {
		for x := range 6 {
			if x < wetX {
				cells = append(cells, floor(1))
			} else {
				cells = append(cells, boundary())
			}
		}
	}
	c := grid(t, 6, 3, cells...)
	h := make([]float32, c.NumColumns())
	for i := range h {
		h[i] = c.Base[i]
		if c.Base[i] < 2*mm {
			h[i] = 3 * mm
		}
	}
	return c, h
}

// normalAt returns the normal of the vertex of column (x, y) (lowest column).
func normalAt(t *testing.T, b *Builder, m *Mesh, x, y int) [3]float64 {
	t.Helper()
	v := vertexOf(b, col(b.cols, x, y, 0))
	if v < 0 {
		t.Fatalf("column (%d,%d) has no vertex", x, y)
	}
	return [3]float64{float64(m.Normals[3*v]), float64(m.Normals[3*v+1]), float64(m.Normals[3*v+2])}
}

func TestMeniscusAgainstWall(t *testing.T) {
	// A flat pool (x = 0..4) against a wall (x = 5, top 20 mm): the solid rises at
	// beta = atan(19 mm / 1 mm) towards the boundary, psi = beta - alpha > 0: a concave
	// meniscus, normals tilted away from the wall by psi (1 - d / L).
	c, h := poolRow(t, 5, func() []terrain.Interval { return floor(20) })
	s := DefaultSettings()
	b := newBuilder(t, c, nil, s)
	m := b.Build(h)
	checkMesh(t, b, m)
	psi := math.Atan2(19, 1) - s.ContactAngle
	for x, d := range map[int]float64{4: 1, 3: 2, 2: 3} {
		n := normalAt(t, b, m, x, 1)
		theta := 0.0
		if d*mm < s.MeniscusLength {
			beta := math.Atan2(19, d)
			theta = (beta - s.ContactAngle) * (1 - d*mm/s.MeniscusLength)
		}
		want := [3]float64{-math.Sin(theta), 0, math.Cos(theta)}
		for k := range 3 {
			if !near(n[k], want[k], 1e-5) {
				t.Fatalf("x = %d (d = %g mm): normal %v, want %v (psi at the wall %g deg)", x, d, n, want, psi*180/math.Pi)
			}
		}
	}
	// The wall's dry vertices take the mean of their wet neighbours' tilted normals.
	if n := normalAt(t, b, m, 5, 1); !(n[0] < -0.3) {
		t.Fatalf("wall vertex normal %v: not tilted like its neighbours", n)
	}
	// Off: straight up.
	s.Meniscus = false
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	m = b.Build(h)
	if n := normalAt(t, b, m, 4, 1); n != [3]float64{0, 0, 1} {
		t.Fatalf("meniscus off: normal %v", n)
	}
}

func TestMeniscusFlatEdgeConvex(t *testing.T) {
	// A pool on a flat floor ending at x = 3 (dry floor beyond): beta = 0, psi = -alpha:
	// the normals tilt towards the boundary (convex edge).
	c, h := poolRow(t, 3, func() []terrain.Interval { return floor(1) })
	for y := range 3 {
		for x := 3; x < 6; x++ {
			i := col(c, x, y, 0)
			h[i] = c.Base[i]
		}
	}
	// The paper's convex tilt (Settings.ConvexTilt); by default the contour draws such
	// an edge and the normals stay flat (checked last).
	s := DefaultSettings()
	s.ConvexTilt = true
	b := newBuilder(t, c, nil, s)
	m := b.Build(h)
	checkMesh(t, b, m)
	theta := -s.ContactAngle * (1 - 1*mm/s.MeniscusLength)
	n := normalAt(t, b, m, 2, 1)
	if !near(n[0], math.Sin(-theta), 1e-5) || !near(n[2], math.Cos(theta), 1e-5) {
		t.Fatalf("edge normal %v, want tilt %g deg towards +x", n, -theta*180/math.Pi)
	}
	// The boundary distance grows by dx per column inward.
	for x, d := range map[int]float32{2: 1, 1: 2, 0: 3} {
		i := col(c, x, 1, 0)
		if got := b.dist[b.vertexOfNode(i)]; !near(float64(got), float64(d)*mm, 1e-9) {
			t.Errorf("x = %d: distance %g, want %g mm", x, got, d)
		}
	}
	b = newBuilder(t, c, nil, DefaultSettings())
	m = b.Build(h)
	checkMesh(t, b, m)
	if n := normalAt(t, b, m, 2, 1); n != [3]float64{0, 0, 1} && !(near(n[0], 0, 1e-6) && near(n[2], 1, 1e-6)) {
		t.Fatalf("default settings: edge normal %v, want flat (the contour draws a convex edge)", n)
	}
}

func TestConvexCapFacesCamera(t *testing.T) {
	c, h := poolRow(t, 3, func() []terrain.Interval { return floor(1) })
	for y := range 3 {
		for x := 3; x < 6; x++ {
			i := col(c, x, y, 0)
			h[i] = c.Base[i]
		}
	}
	// A camera low on the far side: the view vector from the edge points to -x and a
	// little up; a normal tilted 19 deg to +x faces away from it.
	cam := [3]float64{-0.1, 1.5 * mm, 0.02}
	// The surface's vertices only: the sides' faces keep their outward normals (sides.go).
	facing := func(b *Builder, m *Mesh) (worst float64) {
		worst = 1
		for v := range int(b.sideStart) {
			var vv [3]float64
			l := 0.0
			for k := range 3 {
				vv[k] = cam[k] - float64(m.Positions[3*v+k])
				l += vv[k] * vv[k]
			}
			l = math.Sqrt(l)
			dot := 0.0
			for k := range 3 {
				dot += float64(m.Normals[3*v+k]) * vv[k] / l
			}
			worst = min(worst, dot)
		}
		return worst
	}
	s := DefaultSettings()
	s.ConvexTilt = true // the paper's convex tilt, which the cap caps (by default the contour draws a convex edge)
	b := newBuilder(t, c, nil, s)
	m := b.Build(h)
	if w := facing(b, m); !(w < 0) {
		t.Fatalf("the scene does not test the cap: without it the worst n.v is %g", w)
	}
	s.Camera = &cam
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	m = b.Build(h)
	checkMesh(t, b, m)
	if w := facing(b, m); w < 0 {
		t.Fatalf("with the cap a normal faces away from the camera: n.v = %g", w)
	}
	n := normalAt(t, b, m, 2, 1)
	if !(n[0] > 0) {
		t.Fatalf("capped edge normal %v lost its tilt towards the boundary", n)
	}
}
