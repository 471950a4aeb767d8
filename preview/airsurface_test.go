package preview

import (
	"image"
	"math"
	"testing"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/surface"
)

// TestStreamReadsAsRope: the waterfall's stream at t = 1.5 s, seen from the side across
// the basin. Two drops a little more than a diameter apart (2.05 to 2.45 radii between
// their centres) drawn as spheres (Mesh.AppendDrops) leave a gap between them: the point
// midway shows what lies behind. Drawn as liquid in the air (surface.AirSurface, what
// the scene builds) they are one body: at most such midpoints the picture shows water.
func TestStreamReadsAsRope(t *testing.T) {
	cam, img, beads, ps := waterfallSide(t)
	at := func(img [][3]float64, x, y float64) [3]float64 { return img[int(y)*picW+int(x)] }
	pixels := func(src []uint8) [][3]float64 {
		out := make([][3]float64, picW*picH)
		for i := range out {
			out[i] = [3]float64{float64(src[4*i]), float64(src[4*i+1]), float64(src[4*i+2])}
		}
		return out
	}
	liquid, spheres := pixels(img.Pix), pixels(beads.Pix)
	gaps, bridged := 0, 0
	for i, p := range ps {
		for _, q := range ps[i+1:] {
			d := math.Sqrt(float64((p.X-q.X)*(p.X-q.X)+(p.Y-q.Y)*(p.Y-q.Y)+(p.Z-q.Z)*(p.Z-q.Z))) / ((p.Radius() + q.Radius()) / 2)
			if d < 2.05 || d > 2.45 {
				continue
			}
			mid := [3]float64{float64(p.X+q.X) / 2, float64(p.Y+q.Y) / 2, float64(p.Z+q.Z) / 2}
			x, y, ok := cam.Project(mid, picW, picH)
			if !ok || mid[2] < 0.004 || x < 1 || y < 1 || x > picW-2 || y > picH-2 {
				continue
			}
			if isWater(at(spheres, x, y)) {
				continue // liquid in front or behind: no gap to see
			}
			gaps++
			if isWater(at(liquid, x, y)) {
				bridged++
			}
		}
	}
	t.Logf("%d drops; %d pairs 2.05-2.45 radii apart show a gap as spheres, %d of them water as liquid in the air", len(ps), gaps, bridged)
	if gaps < 10 || bridged*10 < gaps*8 {
		t.Errorf("%d of %d gaps between drops drawn as spheres are water as liquid in the air: want 8 in 10", bridged, gaps)
	}
}

// waterfallSide renders the waterfall at t = 1.5 s seen from the side across the basin
// twice: as the scene draws it (liquid in the air: img) and with its drops as spheres
// (Mesh.AppendDrops: beads), and returns the particles in the air.
func waterfallSide(t *testing.T) (cam Camera, img, beads *image.RGBA, ps []scene.Particle) {
	t.Helper()
	needGL(t)
	sc := loadLibrary(t, "waterfall.lua", 1.5, nil)
	cam, err := LookAt([3]float64{0.11, 0.045, 0.022}, [3]float64{0.056, 0.05, 0.017}, 35, Box{Max: [3]float64{0.1, 0.1, 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	withCamera(t, sc, cam, true)
	img = renderScenario(t, sc, cam, picW, picH, RenderOptions{})
	keep(t, "liquid", img)
	b, err := sc.Scene().SurfaceBuilder()
	if err != nil {
		t.Fatal(err)
	}
	m := b.Build(sc.Scene().Heights(nil))
	ps = sc.Scene().Particles(nil)
	drops := make([]surface.Drop, len(ps))
	for i, p := range ps {
		drops[i] = surface.Drop{X: p.X, Y: p.Y, Z: p.Z, Radius: float32(p.Radius())}
	}
	m.AppendDrops(drops, b.Settings().DepthMax)
	f, err := FrameOf(sc.Scene(), m)
	if err != nil {
		t.Fatal(err)
	}
	beads, _, err = testHost.Render(&f, cam, picW, picH, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	keep(t, "spheres", beads)
	return cam, img, beads, ps
}
