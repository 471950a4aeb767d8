package preview

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// galleryStills are the README's stills (mk/gallery.mk's GALLERY_STILLS).
var galleryStills = []string{"bowl", "three_layers", "coffee", "surgery", "rock", "passages", "waterfall", "rain"}

// TestGalleryStillsFlatTopsHaveNoSpeckle counts the acne and specks on the README's
// stills themselves: each library scene of the gallery drawn as `make gallery` draws it
// (800 x 450, the default view), its terrain alone. Every flat top of its terrain (the
// floor, a tray, a table, a shelf's lip: the terrain mesh's upward faces) is sampled at
// its faces' centres, where the point and four around it 1.5 mm away (a cell of the simplified
// terrain a software renderer draws) lie on the same top,
// 0.6 mm clear of the checker's lines and 3 mm of the domain's sides (the glass rim), and
// sphere tracing the solid finds nothing between them and the eye, nor between them and
// the key light. Such a pixel is lit, so it shows its checker square's lit shade: none may
// be darker than the median of its scene's samples of the same checker parity by more
// than 4 (of 255 in luma), the step a speck or a self-shadow makes (the shadow's shade is
// about a quarter of the lit one).
func TestGalleryStillsFlatTopsHaveNoSpeckle(t *testing.T) {
	needGL(t)
	const w, h = 800, 450
	var total, specks int
	for _, name := range galleryStills {
		sc := loadLibrary(t, name+".lua", 0, nil)
		img, cam, f := defaultPictureWith(t, sc, RenderOptions{HideLiquid: true})
		mesh, _, err := sc.Scene().TerrainMesh()
		if err != nil {
			t.Fatal(err)
		}
		sx, sy, height := sc.Scene().Extent()
		lit := flatTopSamples(mesh, sc.Scene().Solid(), [3]float64{sx, sy, height}, cam.Eye(), keyLight(cam))
		var shades [2][]float64
		type sample struct {
			p      [3]float64
			parity int
			luma   float64
			x, y   int
		}
		var samples []sample
		for _, p := range lit {
			if onSink(f.Sinks, p) {
				continue // a drain's mark, not a speck (sinks.go)
			}
			x, y, ok := cam.Project(p, w, h)
			if !ok || x < 1 || y < 1 || x > w-2 || y > h-2 {
				continue
			}
			c := img.RGBAAt(int(x), int(y))
			l := luma([3]float64{float64(c.R), float64(c.G), float64(c.B)})
			// The shader takes a cell's height a twentieth of a square below the top.
			par := int(math.Floor(p[0]/0.01)+math.Floor(p[1]/0.01)+math.Floor(p[2]/0.01-0.05)) & 1
			shades[par] = append(shades[par], l)
			samples = append(samples, sample{p, par, l, int(x), int(y)})
		}
		var median [2]float64
		for k, v := range shades {
			if len(v) == 0 {
				continue
			}
			s := append([]float64(nil), v...)
			sort.Float64s(s)
			median[k] = s[len(s)/2]
		}
		bad := 0
		for _, s := range samples {
			if s.luma < median[s.parity]-4 {
				if bad < 5 {
					t.Logf("%s: a speck at %s: luma %.0f, its shade's %.0f", name, fmtPoint(s.p), s.luma, median[s.parity])
				}
				bad++
				img.Set(s.x, s.y, color.RGBA{255, 0, 255, 255}) // marked in the kept picture
			}
		}
		keep(t, "still-"+name, img)
		t.Logf("%s: %d lit flat-top samples (shades' luma %.0f and %.0f): %d specks", name, len(samples), median[0], median[1], bad)
		if len(samples) < 200 {
			t.Errorf("%s: only %d lit flat-top samples: the test sees too little of the still", name, len(samples))
		}
		total += len(samples)
		specks += bad
	}
	if specks > 0 {
		t.Errorf("%d of %d lit flat-top samples of the gallery's stills are darker than their shade: want none", specks, total)
	}
}

func fmtPoint(p [3]float64) string {
	return fmt.Sprintf("(%.1f, %.1f, %.1f) mm", 1e3*p[0], 1e3*p[1], 1e3*p[2])
}

// flatTopSamples returns the centres of m's upward faces that lie on a flat top of s (the
// domain's floor counting as solid) with a 1.5 mm margin on it, clear of the checker's lines
// and the domain's sides, and see both the eye and the light (towards light) unobstructed.
func flatTopSamples(m *terrain.Mesh, s terrain.Solid, size, eye [3]float64, light [3]float32) [][3]float64 {
	const eps, margin, clear, side = 1e-4, 0.0015, 0.0006, 0.003
	solid := func(p [3]float64) bool {
		return p[2] <= 0 || s.Dist(terrain.Vec3{X: p[0], Y: p[1], Z: p[2]}) <= 0
	}
	// blocked marches from p towards dir (unit, or to the point to when dir is zero)
	// until it leaves the domain's box: whether it meets the solid first.
	blocked := func(p, to, dir [3]float64) bool {
		far := math.Inf(1)
		if dir == [3]float64{} {
			d := [3]float64{to[0] - p[0], to[1] - p[1], to[2] - p[2]}
			far = math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
			dir = [3]float64{d[0] / far, d[1] / far, d[2] / far}
		}
		for tt := 0.0002; tt < far; {
			q := [3]float64{p[0] + tt*dir[0], p[1] + tt*dir[1], p[2] + tt*dir[2]}
			if q[0] < 0 || q[1] < 0 || q[0] > size[0] || q[1] > size[1] || q[2] > size[2] {
				return false
			}
			if q[2] <= 0 {
				return true
			}
			d := s.Dist(terrain.Vec3{X: q[0], Y: q[1], Z: q[2]})
			if d <= 0 {
				return true
			}
			tt += max(d, 5e-5)
		}
		return false
	}
	toLight := [3]float64{float64(light[0]), float64(light[1]), float64(light[2])}
	n := m.NumTriangles()
	var out [][3]float64
	// Up to 3000 samples, the faces visited in a scattered order (a stride prime to n)
	// so that they spread over every top.
	stride := 7919
	for n%stride == 0 {
		stride += 2
	}
	for i := 0; i < n && len(out) < 3000; i++ {
		t := int((int64(i) * int64(stride)) % int64(n))
		var c [3]float64
		flat := true
		for k := range 3 {
			v := m.Indices[3*t+k]
			for a := range 3 {
				c[a] += float64(m.Positions[3*int(v)+a]) / 3
			}
			if m.Normals[3*v+2] < 0.9999 {
				flat = false
			}
		}
		if !flat || c[0] < side || c[1] < side || c[0] > size[0]-side || c[1] > size[1]-side {
			continue
		}
		if fx, fy := math.Mod(c[0], 0.01), math.Mod(c[1], 0.01); min(fx, 0.01-fx) < clear || min(fy, 0.01-fy) < clear {
			continue
		}
		ok := true
		for _, o := range [5][2]float64{{0, 0}, {margin, 0}, {-margin, 0}, {0, margin}, {0, -margin}} {
			q := [3]float64{c[0] + o[0], c[1] + o[1], c[2]}
			above, below := q, q
			above[2] += eps
			below[2] -= eps
			if solid(above) || !solid(below) || blocked(above, eye, [3]float64{}) || blocked(above, [3]float64{}, toLight) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, c)
		}
	}
	return out
}
