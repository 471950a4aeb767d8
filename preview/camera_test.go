package preview

import (
	"math"
	"testing"
	"time"

	"github.com/vpbench/vpbench/surface"
)

func TestCameraProjects(t *testing.T) {
	box := Box{Max: [3]float64{0.1, 0.1, 0.04}}
	for _, name := range Presets() {
		cam, err := PresetCamera(name, box)
		if err != nil {
			t.Fatal(err)
		}
		// The target lands in the middle of the picture; every corner of the box is in
		// it, and the box fills it: the corners span at least 85% of the picture's width
		// or height, and the middle of what they span is the picture's middle.
		x, y, ok := cam.Project(cam.Target, 640, 480)
		if !ok || math.Abs(x-320) > 1e-6 || math.Abs(y-240) > 1e-6 {
			t.Errorf("%s: the target projects to (%g, %g) %v", name, x, y, ok)
		}
		cam, _ = FitCamera(name, box, 640.0/480)
		xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, c := range [][3]float64{{0, 0, 0}, {0.1, 0, 0}, {0, 0.1, 0}, {0.1, 0.1, 0}, {0, 0, 0.04}, {0.1, 0, 0.04}, {0, 0.1, 0.04}, {0.1, 0.1, 0.04}} {
			x, y, ok := cam.Project(c, 640, 480)
			if !ok {
				t.Errorf("%s: corner %v is outside the picture", name, c)
			}
			xlo, xhi, ylo, yhi = min(xlo, x), max(xhi, x), min(ylo, y), max(yhi, y)
		}
		if (xhi-xlo)/640 < 0.85 && (yhi-ylo)/480 < 0.85 {
			t.Errorf("%s: the box spans %.0f x %.0f pixels of 640 x 480", name, xhi-xlo, yhi-ylo)
		}
		if math.Abs((xlo+xhi)/2-320) > 3 || math.Abs((ylo+yhi)/2-240) > 3 {
			t.Errorf("%s: the box spans x %.1f-%.1f, y %.1f-%.1f: not centred", name, xlo, xhi, ylo, yhi)
		}
		if d := dist(cam.Eye(), cam.Target); math.Abs(d-cam.Distance) > 1e-9 {
			t.Errorf("%s: eye %g from the target, want %g", name, d, cam.Distance)
		}
	}
	// A point above the target is higher in the picture (smaller y), from any view but top.
	cam := DefaultCamera(box)
	_, y0, _ := cam.Project(box.Center(), 640, 480)
	c := box.Center()
	c[2] += 0.01
	if _, y1, _ := cam.Project(c, 640, 480); !(y1 < y0) {
		t.Errorf("a point above the target projects lower (%g >= %g)", y1, y0)
	}
	if _, err := PresetCamera("sideways", box); err == nil {
		t.Error("an unknown view is accepted")
	}
	cam.Orbit(0, 10)
	if cam.Pitch > maxPitch {
		t.Errorf("pitch %g beyond the limit", cam.Pitch)
	}
}

// meshFrame is a frame at time t showing the liquid surface m.
func meshFrame(t float64, m *surface.Mesh) Frame {
	return Frame{Time: t, Positions: m.Positions, Normals: m.Normals, Opacity: m.Opacity, Indices: m.Indices}
}

func TestMailboxKeepsNewestAndTopology(t *testing.T) {
	mb := NewMailbox()
	if f, ok := mb.Take(nil); ok || f != nil {
		t.Fatal("an empty mailbox gave a frame")
	}
	m := &surface.Mesh{Positions: []float32{0, 0, 0, 1, 0, 0, 0, 1, 0}, Normals: []float32{0, 0, 1, 0, 0, 1, 0, 0, 1}, Opacity: []float32{1, 1, 1}, Indices: []uint32{0, 1, 2}}
	mb.Publish(meshFrame(1, m))
	m.Positions[2] = 0.5 // heights change, triangles do not
	mb.Publish(meshFrame(2, m))
	f, ok := mb.Take(nil)
	if !ok || f.Time != 2 || f.Positions[2] != 0.5 || f.Seq != 2 {
		t.Fatalf("took %+v, want the second frame", f)
	}
	topo := f.Topology
	if _, ok := mb.Take(f); ok {
		t.Error("a frame taken twice")
	}
	mb.Publish(meshFrame(3, m))
	f, _ = mb.Take(f)
	if f.Topology != topo {
		t.Errorf("topology changed from %d to %d with the same triangles", topo, f.Topology)
	}
	m.Indices = []uint32{0, 2, 1}
	mb.Publish(meshFrame(4, m))
	f, _ = mb.Take(f)
	if f.Topology == topo {
		t.Error("new triangles kept the topology number")
	}
	// Once warm, publishing and taking allocate nothing.
	allocs := testing.AllocsPerRun(100, func() {
		mb.Publish(meshFrame(5, m))
		f, _ = mb.Take(f)
	})
	if allocs != 0 {
		t.Errorf("%g allocations per frame", allocs)
	}
}

func TestMailboxConcurrent(t *testing.T) {
	mb := NewMailbox()
	m := &surface.Mesh{Positions: make([]float32, 300), Normals: make([]float32, 300), Opacity: make([]float32, 100), Indices: make([]uint32, 99)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 2000 {
			for k := range m.Positions {
				m.Positions[k] = float32(i)
			}
			mb.Publish(meshFrame(float64(i), m))
		}
	}()
	var f *Frame
	last := -1.0
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ok bool
		f, ok = mb.Take(f)
		if ok {
			for _, p := range f.Positions {
				if float64(p) != f.Time { // a torn frame
					t.Fatalf("frame %g holds a position %g", f.Time, p)
				}
			}
			if f.Time < last {
				t.Fatalf("frame %g after %g", f.Time, last)
			}
			last = f.Time
		}
		select {
		case <-done:
			return
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("publisher stuck")
		}
	}
}

// TestPublishWakesTheWindow: a frame published while a window shows the source wakes
// the window's event wait (once a frame); with no window open nothing is woken.
func TestPublishWakesTheWindow(t *testing.T) {
	src := NewSource("s.lua")
	m := &surface.Mesh{Positions: []float32{0, 0, 0, 1, 0, 0, 0, 1, 0}, Normals: []float32{0, 0, 1, 0, 0, 1, 0, 0, 1}, Opacity: []float32{1, 1, 1}, Indices: []uint32{0, 1, 2}}
	woken := 0
	wake := func() { woken++ }
	src.wake.Store(&wake)
	src.Publish(meshFrame(1, m))
	if woken != 0 {
		t.Fatalf("woken %d times with no window open", woken)
	}
	src.windows.Add(1)
	src.Publish(meshFrame(2, m))
	src.Publish(meshFrame(3, m))
	if woken != 2 {
		t.Fatalf("woken %d times for 2 frames", woken)
	}
	if f, ok := src.mb.Take(nil); !ok || f.Time != 3 {
		t.Fatalf("the window would take %+v, want the frame at t = 3", f)
	}
}
