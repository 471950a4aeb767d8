package preview

// Picture tests: the bowl and the three-layer scenes of the library, rendered offscreen
// and checked pixel by pixel at points projected with the camera's own matrix.

import (
	"image"
	"math"
	"testing"

	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/surface"
)

const picW, picH = 640, 480

// px is the colour at the pixel where world point p lands (with a 1-pixel margin).
func px(t *testing.T, img *image.RGBA, cam Camera, p [3]float64) [3]float64 {
	t.Helper()
	x, y, ok := cam.Project(p, picW, picH)
	if !ok || x < 1 || y < 1 || x > picW-2 || y > picH-2 {
		t.Fatalf("%v projects to (%.0f, %.0f), outside the %dx%d picture", p, x, y, picW, picH)
	}
	o := img.PixOffset(int(x), int(y))
	return [3]float64{float64(img.Pix[o]), float64(img.Pix[o+1]), float64(img.Pix[o+2])}
}

// isWater tells water's blue from the grey terrain and the dark background.
func isWater(c [3]float64) bool { return c[2]-c[0] > 35 && c[2] > 120 }

// isBlood tells blood's red from the grey terrain.
func isBlood(c [3]float64) bool { return c[0]-c[1] > 50 && c[0]-c[2] > 50 }

func luma(c [3]float64) float64 { return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2] }

// withCamera builds the surface with the camera set (the convex-meniscus cap), as the
// window does.
func withCamera(t *testing.T, sc *script.Scenario, cam Camera, meniscus bool) {
	t.Helper()
	st := sc.SurfaceSettings()
	eye := cam.Eye()
	st.Camera, st.Meniscus = &eye, meniscus
	if err := sc.SetSurfaceSettings(st); err != nil {
		t.Fatal(err)
	}
}

var bowlBox = Box{Max: [3]float64{0.1, 0.1, 0.04}}

// TestBowlPicture: 20 ml in the bowl at t = 3 s (surface about 17 mm up, shoreline at
// about 31 mm from the centre). Liquid colour at the bowl's centre and on its floor
// around it, none on the table, the rim or the outer wall.
func TestBowlPicture(t *testing.T) {
	needGL(t)
	sc := loadLibrary(t, "bowl.lua", 3, nil)
	cam := DefaultCamera(bowlBox)
	withCamera(t, sc, cam, true)
	img := renderScenario(t, sc, cam, picW, picH, RenderOptions{})
	keep(t, "bowl", img)
	const cx, cy, zs = 0.05, 0.05, 0.017
	for _, p := range [][3]float64{{cx, cy, zs}, {cx + 0.02, cy, zs}, {cx - 0.02, cy, zs}, {cx, cy + 0.02, zs}, {cx, cy - 0.02, zs}} {
		if c := px(t, img, cam, p); !isWater(c) {
			t.Errorf("no liquid colour at %v (inside the bowl): %v", p, c)
		}
	}
	for _, p := range [][3]float64{
		{0.012, 0.012, 0}, {0.088, 0.012, 0}, {0.012, 0.088, 0}, {0.088, 0.088, 0}, // the table
		{cx, cy - 0.0405, 0.025}, {cx + 0.0405, cy, 0.025}, // the rim
		{cx, cy - 0.042, 0.012}, {cx - 0.042*math.Sqrt(0.5), cy - 0.042*math.Sqrt(0.5), 0.012}, // the outer wall
	} {
		if c := px(t, img, cam, p); isWater(c) {
			t.Errorf("liquid colour at %v (dry): %v", p, c)
		}
	}
	// Without the liquid, the bowl's centre is terrain grey.
	dry := renderScenario(t, sc, cam, picW, picH, RenderOptions{HideLiquid: true})
	if c := px(t, dry, cam, [3]float64{cx, cy, 0.005}); isWater(c) {
		t.Errorf("the bowl's floor drawn without liquid is %v", c)
	}
}

// boundaryBand returns the pixels within r pixels of the projected boundary (dry and
// extra) vertices of m.
func boundaryBand(m *surface.Mesh, cam Camera, r int) []int {
	mark := make([]bool, picW*picH)
	for v := range m.NumVertices() {
		if m.Opacity[v] > 0 {
			continue
		}
		p := [3]float64{float64(m.Positions[3*v]), float64(m.Positions[3*v+1]), float64(m.Positions[3*v+2])}
		x, y, ok := cam.Project(p, picW, picH)
		if !ok {
			continue
		}
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				xx, yy := int(x)+dx, int(y)+dy
				if xx >= 0 && yy >= 0 && xx < picW && yy < picH && dx*dx+dy*dy <= r*r {
					mark[yy*picW+xx] = true
				}
			}
		}
	}
	var band []int
	for i, ok := range mark {
		if ok {
			band = append(band, i)
		}
	}
	return band
}

func lumaAt(img *image.RGBA, i int) float64 {
	return luma([3]float64{float64(img.Pix[4*i]), float64(img.Pix[4*i+1]), float64(img.Pix[4*i+2])})
}

// stillBowl is the bowl of bowl.lua filled at rest to 17 mm with sim:fill (no stream,
// no waves): the only tilted normals are the meniscus's and the surface's own rise at
// the wall.
const stillBowl = `
local sim = vp.sim{ size = {0.1, 0.1}, height = 0.04, dx = 0.0005, dt = 0.003, layers = 1, viscosity = 4e-6 }
local body = vp.cylinder{ base = {0.05, 0.05, 0}, axis = {0, 0, 1}, radius = 0.042, length = 0.025 }
local cavity = vp.sphere{ center = {0.05, 0.05, 0.053}, radius = 0.048 }
sim:terrain(vp.difference(body, cavity))
sim:fill{ at = {0.05, 0.05, 0.01}, level = 0.017 }
sim:set{ liquid = "blood" }
`

// TestMeniscusHighlightBand: the meniscus-corrected normals along the shoreline catch
// the light. Rendered with the meniscus on and off (the liquid alone, so that the
// terrain's own brightness does not count), the pixels within 8 pixels of the projected
// boundary that are brighter than the deep liquid by a clear margin are many with the
// meniscus and few without.
func TestMeniscusHighlightBand(t *testing.T) {
	needGL(t)
	sc, err := script.LoadSource("still_bowl.lua", []byte(stillBowl), script.Options{Workers: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for _, view := range []string{"default", "top"} {
		t.Run(view, func(t *testing.T) {
			cam, _ := PresetCamera(view, bowlBox)
			count := map[bool]int{}
			for _, on := range []bool{true, false} {
				withCamera(t, sc, cam, on)
				m, err := sc.BuildSurface()
				if err != nil {
					t.Fatal(err)
				}
				band := boundaryBand(m, cam, 8)
				img := renderScenario(t, sc, cam, picW, picH, RenderOptions{HideTerrain: true})
				keep(t, map[bool]string{true: "on", false: "off"}[on], img)
				ref := luma(px(t, img, cam, [3]float64{0.05, 0.05, 0.017}))
				for _, i := range band {
					if lumaAt(img, i) > ref+40 {
						count[on]++
					}
				}
				t.Logf("meniscus %v: %d band pixels, deep liquid luma %.0f, %d highlights", on, len(band), ref, count[on])
			}
			if count[true] < 300 || count[false]*3 > count[true] {
				t.Errorf("highlight band pixels: %d with the meniscus, %d without: want >= 300 and 3 times as many", count[true], count[false])
			}
		})
	}
}

func dist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// TestThreeLayersPicture: at t = 3 s the top tray holds liquid (liquid colour there),
// the floor outside the trays and the top tray's lip are dry, and where the liquid on
// the top tray is shallow (opacity below 0.6) the terrain shows through: the pixel is
// nearer to the terrain drawn alone than the deep liquid's colour is.
func TestThreeLayersPicture(t *testing.T) {
	needGL(t)
	sc := loadLibrary(t, "three_layers.lua", 3, map[string]string{})
	sc.SetLiquid("blood")
	cam, _ := PresetCamera("top", bowlBox)
	withCamera(t, sc, cam, true)
	img := renderScenario(t, sc, cam, picW, picH, RenderOptions{})
	under := renderScenario(t, sc, cam, picW, picH, RenderOptions{HideLiquid: true})
	keep(t, "three_layers", img)
	deep := [3]float64{0.045, 0.06, 0.027}
	if c := px(t, img, cam, deep); !isBlood(c) {
		t.Errorf("no liquid colour on the top tray at %v: %v", deep, c)
	}
	for _, p := range [][3]float64{{0.004, 0.004, 0}, {0.096, 0.05, 0}, {0.021, 0.05, 0.029}, {0.05, 0.074, 0.029}} {
		if c := px(t, img, cam, p); isBlood(c) {
			t.Errorf("liquid colour at %v (dry): %v", p, c)
		}
	}
	m, err := sc.BuildSurface()
	if err != nil {
		t.Fatal(err)
	}
	liquid := px(t, img, cam, deep)
	var shallow, through int
	for v := range m.NumVertices() {
		op := m.Opacity[v]
		p := [3]float64{float64(m.Positions[3*v]), float64(m.Positions[3*v+1]), float64(m.Positions[3*v+2])}
		if op < 0.15 || op > 0.6 || p[2] < 0.026 {
			continue
		}
		shallow++
		a, b := px(t, img, cam, p), px(t, under, cam, p)
		if dist(a, b) < dist(liquid, b) && dist(a, b) > 3 {
			through++
		}
	}
	t.Logf("%d shallow vertices on the top tray, terrain seen through at %d", shallow, through)
	if shallow < 20 || through < shallow*3/4 {
		t.Errorf("terrain seen through shallow liquid at %d of %d shallow vertices: want at least 20 vertices and 3 in 4", through, shallow)
	}
}

// TestDefaultViewFillsThePicture: the default camera frames the scene (SceneBox: the
// terrain and the liquid, not the domain's empty height), so that the scene covers at
// least 35% of an 800 x 450 picture (it covered 13-18% when the camera framed the
// domain's box).
func TestDefaultViewFillsThePicture(t *testing.T) {
	needGL(t)
	const w, h = 800, 450
	for _, name := range []string{"bowl.lua", "surgery.lua", "coffee.lua", "three_layers.lua"} {
		sc := loadLibrary(t, name, 0.5, nil)
		m, err := sc.BuildSurface()
		if err != nil {
			t.Fatal(err)
		}
		f, err := frameOf(sc, m)
		if err != nil {
			t.Fatal(err)
		}
		cam, err := FrameCamera("default", &f, float64(w)/h)
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := testHost.Render(&f, cam, w, h, RenderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bg := img.RGBAAt(0, 0)
		covered := 0
		for y := range h {
			for x := range w {
				c := img.RGBAAt(x, y)
				d := max(absDiff(c.R, bg.R), absDiff(c.G, bg.G), absDiff(c.B, bg.B))
				if d > 6 {
					covered++
				}
			}
		}
		if frac := float64(covered) / (w * h); frac < 0.35 {
			keep(t, "coverage-"+name, img)
			t.Errorf("%s: the scene covers %.1f%% of the default %dx%d picture, want >= 35%%", name, 100*frac, w, h)
		} else {
			t.Logf("%s: the scene covers %.1f%% of the picture", name, 100*frac)
		}
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
