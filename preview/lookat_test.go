package preview

import (
	"math"
	"strings"
	"testing"
)

// lookAtMatrix is the textbook look-at (gluLookAt with z up), for comparison.
func lookAtMatrix(eye, target [3]float64) Mat4 {
	f := normalize(sub(target, eye))
	s := normalize(cross(f, [3]float64{0, 0, 1}))
	u := cross(s, f)
	return Mat4{
		s[0], u[0], -f[0], 0,
		s[1], u[1], -f[1], 0,
		s[2], u[2], -f[2], 0,
		-dot(s, eye), -dot(u, eye), dot(f, eye), 1,
	}
}

// TestLookAt: the camera from eye, target and fov has the textbook view matrix, puts
// the eye where asked and the target at the picture's centre, and takes the fov in
// degrees; its far plane clears the scene box.
func TestLookAt(t *testing.T) {
	box := Box{Max: [3]float64{0.2, 0.1, 0.05}}
	for _, c := range []struct{ eye, target [3]float64 }{
		{[3]float64{0.3, -0.2, 0.15}, [3]float64{0.1, 0.05, 0}},
		{[3]float64{-0.1, 0.05, 0.01}, [3]float64{0.2, 0.05, 0.02}},
		{[3]float64{0.1, 0.3, 0.5}, [3]float64{0.1, 0.05, 0.0}},
		{[3]float64{0.001, 0.001, 0.001}, [3]float64{0.002, 0.0015, 0}}, // close to a corner
	} {
		cam, err := LookAt(c.eye, c.target, 50, box)
		if err != nil {
			t.Fatal(err)
		}
		got, want := cam.View(), lookAtMatrix(c.eye, c.target)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Fatalf("eye %v target %v: view %v, want %v", c.eye, c.target, got, want)
			}
		}
		if e := cam.Eye(); length(sub(e, c.eye)) > 1e-12 {
			t.Errorf("Eye() %v, want %v", e, c.eye)
		}
		if math.Abs(cam.FovY-50*math.Pi/180) > 1e-15 {
			t.Errorf("FovY %g rad, want 50 degrees", cam.FovY)
		}
		if x, y, ok := cam.Project(c.target, 640, 480); !ok || math.Abs(x-320) > 1e-6 || math.Abs(y-240) > 1e-6 {
			t.Errorf("the target lands at (%g, %g) %v, want the centre", x, y, ok)
		}
		// Every corner of the box lies before the far plane.
		_, far := cam.clipRange()
		for i := range 8 {
			p := [3]float64{box.Max[0] * float64(i&1), box.Max[1] * float64(i>>1&1), box.Max[2] * float64(i>>2&1)}
			if d := length(sub(p, c.eye)); d > far {
				t.Errorf("corner %v at %g m, beyond the far plane %g", p, d, far)
			}
		}
	}
	// Straight down: a view matrix with no NaN.
	cam, err := LookAt([3]float64{0.1, 0.05, 1}, [3]float64{0.1, 0.05, 0}, 35, box)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range cam.View() {
		if math.IsNaN(v) {
			t.Fatalf("looking straight down: view %v", cam.View())
		}
	}
	// The field of view scales the projection: f = 1/tan(fov/2).
	p := cam.Projection(1)
	if math.Abs(p[5]-1/math.Tan(35*math.Pi/360)) > 1e-12 {
		t.Errorf("projection[1][1] = %g, want 1/tan(17.5 degrees)", p[5])
	}
	for _, bad := range []struct {
		eye, target [3]float64
		fov         float64
		msg         string
	}{
		{[3]float64{1, 1, 1}, [3]float64{1, 1, 1}, 35, "eye != target"},
		{[3]float64{1, 1, 1}, [3]float64{0, 0, 0}, 1, "fov is 1"},
		{[3]float64{1, 1, 1}, [3]float64{0, 0, 0}, 170, "fov is 170"},
		{[3]float64{math.NaN(), 1, 1}, [3]float64{0, 0, 0}, 35, "finite"},
	} {
		if _, err := LookAt(bad.eye, bad.target, bad.fov, box); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("LookAt(%v, %v, %g): %v, want an error with %q", bad.eye, bad.target, bad.fov, err, bad.msg)
		}
	}
}

// TestFrameCarriesTheCamera: the mailbox hands the scenario's camera on with the frame.
func TestFrameCarriesTheCamera(t *testing.T) {
	cam, _ := LookAt([3]float64{1, 0, 1}, [3]float64{0, 0, 0}, 40, Box{})
	mb := NewMailbox()
	mb.Publish(Frame{Camera: cam, CameraVersion: 3})
	f, ok := mb.Take(nil)
	if !ok || f.Camera != cam || f.CameraVersion != 3 {
		t.Errorf("took camera %+v version %d", f.Camera, f.CameraVersion)
	}
}
