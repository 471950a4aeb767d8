package preview

import (
	"image"
	"math"
	"testing"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/terrain"
)

// onSink tells whether p lies on a sink's mark (its disc, a tenth wider).
func onSink(sinks []scene.Sink, p [3]float64) bool {
	for _, s := range sinks {
		if math.Hypot(p[0]-s.X, p[1]-s.Y) < 1.1*s.Radius {
			return true
		}
	}
	return false
}

// TestSinkDecal: the decal of a sink of radius 3 mm on a terrain of a floor (1 mm
// squares at z = 0), a ledge 5 mm above it over part of the disc and a wall across it:
// only floor triangles (z = 0, facing up) that meet the disc, each corner's place on
// the disc its (x, y) less the centre over the radius; they cover the disc (every point
// of a 0.25 mm grid on it lies in one); a sink of radius 0 has none; the arrays are
// reused.
func TestSinkDecal(t *testing.T) {
	m := &terrain.Mesh{}
	quad := func(a, b, c, d [3]float32, n [3]float32) {
		v := uint32(m.NumVertices())
		for _, p := range [][3]float32{a, b, c, d} {
			m.Positions = append(m.Positions, p[:]...)
			m.Normals = append(m.Normals, n[:]...)
		}
		m.Indices = append(m.Indices, v, v+1, v+2, v, v+2, v+3)
	}
	up := [3]float32{0, 0, 1}
	for i := range 20 {
		for j := range 20 {
			x, y := float32(i)*0.001, float32(j)*0.001
			quad([3]float32{x, y, 0}, [3]float32{x + 0.001, y, 0}, [3]float32{x + 0.001, y + 0.001, 0}, [3]float32{x, y + 0.001, 0}, up)
		}
	}
	quad([3]float32{0.01, 0.01, 0.005}, [3]float32{0.02, 0.01, 0.005}, [3]float32{0.02, 0.02, 0.005}, [3]float32{0.01, 0.02, 0.005}, up) // the ledge
	quad([3]float32{0, 0.01, 0}, [3]float32{0.02, 0.01, 0}, [3]float32{0.02, 0.01, 0.005}, [3]float32{0, 0.01, 0.005}, [3]float32{0, -1, 0})
	s := scene.Sink{X: 0.01, Y: 0.01, Z: 0, Radius: 0.003}
	var d sinkDecal
	d.build(m, []scene.Sink{s})
	n := len(d.pos) / 9
	if n == 0 || len(d.nrm) != len(d.pos) || len(d.disc) != 6*n {
		t.Fatalf("%d triangles; arrays of %d, %d and %d values", n, len(d.pos), len(d.nrm), len(d.disc))
	}
	type tri [3][2]float64
	var tris []tri
	for k := range n {
		var tr tri
		for c := range 3 {
			v := 3*k + c
			x, y, z := float64(d.pos[3*v]), float64(d.pos[3*v+1]), float64(d.pos[3*v+2])
			if z != 0 || d.nrm[3*v+2] != 1 {
				t.Fatalf("triangle %d: a corner at z = %g with normal z %g: not the floor", k, z, d.nrm[3*v+2])
			}
			if u, w := float64(d.disc[2*v]), float64(d.disc[2*v+1]); math.Abs(u-(x-s.X)/s.Radius) > 1e-5 || math.Abs(w-(y-s.Y)/s.Radius) > 1e-5 {
				t.Fatalf("triangle %d: corner (%g, %g) has disc place (%g, %g)", k, x, y, u, w)
			}
			tr[c] = [2]float64{x, y}
		}
		tris = append(tris, tr)
	}
	inside := func(tr tri, p [2]float64) bool {
		sgn := func(a, b [2]float64) float64 { return (b[0]-a[0])*(p[1]-a[1]) - (b[1]-a[1])*(p[0]-a[0]) }
		d0, d1, d2 := sgn(tr[0], tr[1]), sgn(tr[1], tr[2]), sgn(tr[2], tr[0])
		return (d0 >= 0 && d1 >= 0 && d2 >= 0) || (d0 <= 0 && d1 <= 0 && d2 <= 0)
	}
	for x := -s.Radius; x <= s.Radius; x += 0.00025 {
		for y := -s.Radius; y <= s.Radius; y += 0.00025 {
			if x*x+y*y > s.Radius*s.Radius {
				continue
			}
			p, in := [2]float64{s.X + x, s.Y + y}, false
			for _, tr := range tris {
				in = in || inside(tr, p)
			}
			if !in {
				t.Fatalf("the disc's point (%.2f, %.2f) mm lies in no triangle of the decal", 1e3*p[0], 1e3*p[1])
			}
		}
	}
	if n > 2*7*7 {
		t.Errorf("%d triangles: more than the floor's squares the disc's box meets", n)
	}
	pos := &d.pos[0]
	d.build(m, []scene.Sink{{X: 0.01, Y: 0.01, Radius: 0}})
	if len(d.pos) != 0 {
		t.Errorf("a sink of radius 0: %d triangles", len(d.pos)/9)
	}
	d.build(m, []scene.Sink{s})
	if &d.pos[0] != pos {
		t.Errorf("the decal's arrays were not reused")
	}
}

// drainScene is a table 2 mm thick with a sink of radius 6 mm at its middle, dry.
const drainScene = `
local sim = vp.sim{ size = {0.1, 0.1}, height = 0.04, dx = 0.001, layers = 1 }
sim:terrain(vp.box{ min = {0, 0, 0}, max = {0.1, 0.1, 0.002} })
drain = sim:sink{ at = {0.05, 0.05, 0.003}, radius = 0.006, rate = 1e-6 }
`

// drainFrame is drainScene's frame, its sink stopped first when stopped.
func drainFrame(t testing.TB, stopped bool) Frame {
	t.Helper()
	src := drainScene
	if stopped {
		src += "drain:stop()\n"
	}
	sc, err := script.LoadSource("drain.lua", []byte(src), script.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sc.Close)
	f, err := FrameOf(sc.Scene(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSinkDrawnAsDrain: a sink is drawn on the floor as a drain (seen from above, dry):
// FrameOf carries its mark (its centre, its radius, the floor's height); its middle is
// dark (below 0.3 of the floor's luma beside it), its rim light (at least 2.5 times the
// middle); the floor a radius and a half out is the floor's, and a sink stopped for
// good leaves no mark.
func TestSinkDrawnAsDrain(t *testing.T) {
	needGL(t)
	f := drainFrame(t, false)
	if s := f.Sinks; len(s) != 1 || s[0].X != 0.05 || s[0].Y != 0.05 || math.Abs(s[0].Z-floorTop) > 1e-6 || s[0].Radius != 0.006 {
		t.Fatalf("the frame's sinks: %+v, want the drain at (50, 50, 2) mm, radius 6 mm", f.Sinks)
	}
	cam, _ := PresetCamera("top", bowlBox)
	img, _, err := testHost.Render(&f, cam, picW, picH, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	keep(t, "drain", img)
	gone := drainFrame(t, true)
	if len(gone.Sinks) != 0 {
		t.Fatalf("a stopped sink: the frame has marks %+v", gone.Sinks)
	}
	bare, _, err := testHost.Render(&gone, cam, picW, picH, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	at := func(img *image.RGBA, dx, dy float64) float64 {
		c, ok := pixelAt(img, cam, [3]float64{0.05 + dx, 0.05 + dy, floorTop})
		if !ok {
			t.Fatalf("(%g, %g) off the picture", dx, dy)
		}
		return luma(c)
	}
	// The middle: between the grate's bars (0.45 radii apart, across x).
	mid, floor := at(img, 0.0012, 0.0006), at(bare, 0.0012, 0.0006)
	rim := at(img, 0, 0.86*0.006)
	out, outBare := at(img, 0.009, 0.002), at(bare, 0.009, 0.002)
	t.Logf("luma: the drain's middle %.0f (the floor there %.0f), its rim %.0f; the floor 1.5 radii out %.0f (%.0f without the sink)", mid, floor, rim, out, outBare)
	if !(mid < 0.3*floor) {
		t.Errorf("the drain's middle has luma %.0f, the floor %.0f: want below 0.3 of it", mid, floor)
	}
	if !(rim > 2.5*mid) {
		t.Errorf("the drain's rim has luma %.0f, its middle %.0f: want a light rim", rim, mid)
	}
	if math.Abs(out-outBare) > 3 {
		t.Errorf("the floor 1.5 radii out: luma %.0f with the sink, %.0f without", out, outBare)
	}
}
