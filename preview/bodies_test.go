package preview

import (
	"image"
	"testing"

	"github.com/vpbench/vpbench/script"
)

// TestMailboxCopiesBodies: Publish copies the bodies' arrays, so the writer may change
// its buffers at once without changing the frame taken.
func TestMailboxCopiesBodies(t *testing.T) {
	mb := NewMailbox()
	f := Frame{
		BodyPositions: []float32{0, 0, 1, 1, 0, 1, 0, 1, 1},
		BodyNormals:   []float32{0, 0, 1, 0, 0, 1, 0, 0, 1},
		BodyColors:    []float32{1, 0, 0, 1, 0, 0, 1, 0, 0},
		BodyIndices:   []uint32{0, 1, 2},
	}
	mb.Publish(f)
	f.BodyPositions[2], f.BodyNormals[2], f.BodyColors[0], f.BodyIndices[1] = 9, -1, 0, 2
	got, ok := mb.Take(nil)
	if !ok {
		t.Fatal("no frame taken")
	}
	if len(got.BodyPositions) != 9 || len(got.BodyNormals) != 9 || len(got.BodyColors) != 9 || len(got.BodyIndices) != 3 {
		t.Fatalf("took body arrays of %d, %d, %d and %d values, want 9, 9, 9 and 3",
			len(got.BodyPositions), len(got.BodyNormals), len(got.BodyColors), len(got.BodyIndices))
	}
	if got.BodyPositions[2] != 1 || got.BodyNormals[2] != 1 || got.BodyColors[0] != 1 || got.BodyIndices[1] != 1 {
		t.Errorf("the taken frame changed with the writer's buffers: position %g, normal %g, colour %g, index %d",
			got.BodyPositions[2], got.BodyNormals[2], got.BodyColors[0], got.BodyIndices[1])
	}
	// The frame that held the bodies, handed back, is filled again by a frame without
	// bodies: it has none then.
	withBodies := got
	mb.Publish(Frame{})
	got, _ = mb.Take(withBodies) // withBodies becomes the mailbox's
	mb.Publish(Frame{})
	mb.Publish(Frame{}) // into withBodies
	got, _ = mb.Take(got)
	if got != withBodies {
		t.Fatal("the mailbox's frames did not rotate as expected")
	}
	if len(got.BodyPositions)+len(got.BodyNormals)+len(got.BodyColors)+len(got.BodyIndices) != 0 {
		t.Errorf("a frame without bodies was taken with %d body positions and %d indices", len(got.BodyPositions), len(got.BodyIndices))
	}
}

// hoveringBox is a floor 2 mm thick with a red box, 10 mm square and 6 mm tall, held as
// a floating body 10 mm above it (its centre at bodyCentre), at rest (t = 0).
const hoveringBox = `
local sim = vp.sim{ size = {0.1, 0.1}, height = 0.04, dx = 0.001, layers = 1 }
sim:terrain(vp.box{ min = {0, 0, 0}, max = {0.1, 0.1, 0.002} })
sim:body{ solid = vp.box{ min = {0.045, 0.045, 0.012}, max = {0.055, 0.055, 0.018} }, density = 500, color = {0.85, 0.1, 0.1} }
`

var bodyCentre = [3]float64{0.05, 0.05, 0.015}

const floorTop = 0.002

// isRed tells the red body from the grey floor.
func isRed(c [3]float64) bool { return c[0]-c[1] > 80 && c[0]-c[2] > 80 }

// hoveringBoxFrame is the frame of hoveringBox (FrameOf: the bodies' arrays filled).
func hoveringBoxFrame(t testing.TB) Frame {
	t.Helper()
	sc, err := script.LoadSource("hovering_box.lua", []byte(hoveringBox), script.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sc.Close)
	f, err := FrameOf(sc.Scene(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.BodyIndices) == 0 || len(f.BodyPositions) == 0 || len(f.BodyNormals) != len(f.BodyPositions) || len(f.BodyColors) != len(f.BodyPositions) {
		t.Fatalf("FrameOf gave body arrays of %d, %d, %d and %d values", len(f.BodyPositions), len(f.BodyNormals), len(f.BodyColors), len(f.BodyIndices))
	}
	return f
}

// shadowOn is where the key light's ray through p meets the floor (cam's key light).
func shadowOn(cam Camera, p [3]float64) [3]float64 {
	k := keyLight(cam)
	s := (p[2] - floorTop) / float64(k[2])
	return [3]float64{p[0] - s*float64(k[0]), p[1] - s*float64(k[1]), floorTop}
}

// pixelAt is img's colour where p lands (cam, the picture's size), false outside it.
func pixelAt(img *image.RGBA, cam Camera, p [3]float64) ([3]float64, bool) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	x, y, ok := cam.Project(p, w, h)
	if !ok || x < 1 || y < 1 || x > float64(w-2) || y > float64(h-2) {
		return [3]float64{}, false
	}
	c := img.RGBAAt(int(x), int(y))
	return [3]float64{float64(c.R), float64(c.G), float64(c.B)}, true
}

// checkHoveringBox checks a picture of hoveringBox (the body's centre at centre) from
// cam: red around the projection of the box's top's centre, and the floor where the key
// light's ray through the box's centre meets it darker (below 70%) than the floor far
// from the box.
func checkHoveringBox(t *testing.T, img *image.RGBA, cam Camera, centre [3]float64, what string) {
	t.Helper()
	top := centre[2] + 0.003
	for _, o := range [][2]float64{{0, 0}, {0.002, 0}, {-0.002, 0}, {0, 0.002}, {0, -0.002}} {
		p := [3]float64{centre[0] + o[0], centre[1] + o[1], top}
		c, ok := pixelAt(img, cam, p)
		if !ok {
			t.Fatalf("%s: %s is outside the picture", what, fmtPoint(p))
		}
		if !isRed(c) {
			t.Errorf("%s: the box's top at %s is %v: want the body's red", what, fmtPoint(p), c)
		}
	}
	shade := shadowOn(cam, centre)
	far := [3]float64{0.015, 0.085, floorTop}
	cs, ok1 := pixelAt(img, cam, shade)
	cf, ok2 := pixelAt(img, cam, far)
	if !ok1 || !ok2 {
		t.Fatalf("%s: the floor's samples %s and %s are not both in the picture", what, fmtPoint(shade), fmtPoint(far))
	}
	if isRed(cs) {
		t.Fatalf("%s: the shadow's sample %s shows the box (%v), not the floor: the test's geometry is wrong", what, fmtPoint(shade), cs)
	}
	ls, lf := luma(cs), luma(cf)
	t.Logf("%s: floor in the box's shadow at %s: luma %.0f; far from it at %s: %.0f", what, fmtPoint(shade), ls, fmtPoint(far), lf)
	if !(ls < 0.7*lf) {
		t.Errorf("%s: the floor in the box's shadow has luma %.0f, the floor far from it %.0f: want below 70%%", what, ls, lf)
	}
}

// TestBodyDrawnAndShadowed: a red box held as a floating body 10 mm above a flat floor,
// drawn from above (FrameOf, then a picture as screenshots and clips draw it): the box is
// drawn in its colour, and it casts the key light's shadow on the floor.
func TestBodyDrawnAndShadowed(t *testing.T) {
	needGL(t)
	f := hoveringBoxFrame(t)
	cam, _ := PresetCamera("top", bowlBox)
	img, _, err := testHost.Render(&f, cam, picW, picH, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	keep(t, "box", img)
	checkHoveringBox(t, img, cam, bodyCentre, "picture")
	// The liquid alone leaves the body out.
	bare, _, err := testHost.Render(&f, cam, picW, picH, RenderOptions{HideTerrain: true})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := pixelAt(bare, cam, [3]float64{bodyCentre[0], bodyCentre[1], bodyCentre[2] + 0.003}); isRed(c) {
		t.Errorf("the body is drawn with HideTerrain (the liquid alone): %v", c)
	}
}
