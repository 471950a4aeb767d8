package preview

import (
	"image"
	"math"
	"testing"

	"github.com/vpbench/vpbench/script"
)

// TestLightViewProjectionFitsTheBox: every corner of the box lands inside the light's
// clip volume, the extremes on its faces, and a point nearer the light has a smaller
// depth (it occludes what lies behind it).
func TestLightViewProjectionFitsTheBox(t *testing.T) {
	lo, hi := [3]float64{0, 0, 0}, [3]float64{0.1, 0.08, 0.03}
	for _, dir := range [][3]float32{{0.3, -0.4, 0.866}, {0, 0, 1}, {-0.57, 0.2, 0.8}} {
		n := float32(math.Sqrt(float64(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2])))
		dir = [3]float32{dir[0] / n, dir[1] / n, dir[2] / n}
		m := lightViewProjection(dir, lo, hi)
		clip := func(p [3]float64) [3]float64 {
			var q [3]float64
			for r := range 3 {
				q[r] = m[r]*p[0] + m[4+r]*p[1] + m[8+r]*p[2] + m[12+r]
			}
			return q
		}
		var ext [3]float64
		for i := range 8 {
			p := lo
			for a := range 3 {
				if i&(1<<a) != 0 {
					p[a] = hi[a]
				}
			}
			q := clip(p)
			for a := range 3 {
				if math.Abs(q[a]) > 1 {
					t.Errorf("light %v: corner %v at clip %v, outside [-1, 1]", dir, p, q)
				}
				ext[a] = math.Max(ext[a], math.Abs(q[a]))
			}
		}
		for a := range 3 {
			if ext[a] < 0.99 {
				t.Errorf("light %v: the box spans only %.3f of clip axis %d: not fitted", dir, ext[a], a)
			}
		}
		c := [3]float64{0.05, 0.04, 0.015}
		towards := [3]float64{c[0] + 0.01*float64(dir[0]), c[1] + 0.01*float64(dir[1]), c[2] + 0.01*float64(dir[2])}
		if clip(towards)[2] >= clip(c)[2] {
			t.Errorf("light %v: a point nearer the light has depth %.4f, not below %.4f", dir, clip(towards)[2], clip(c)[2])
		}
	}
}

// shadowScene is a floor 2 mm up with, when block is true, a block 10 mm square and 20 mm
// tall standing on it at the centre.
func shadowScene(block bool) string {
	s := `
local sim = vp.sim{ size = {0.1, 0.1}, height = 0.04, dx = 0.001, layers = 1 }
local floor = vp.box{ min = {0, 0, 0}, max = {0.1, 0.1, 0.002} }
`
	if block {
		return s + `sim:terrain(vp.union(floor, vp.box{ min = {0.045, 0.045, 0}, max = {0.055, 0.055, 0.022} }))`
	}
	return s + `sim:terrain(floor)`
}

// TestKeyLightCastsShadows: seen from above, the floor where the block stands between it
// and the key light (5 mm beyond the block's foot, away from the light; the shadow
// reaches 20 mm / tan(55 degrees) = 14 mm) is darker than the same floor without the
// block by a clear margin, and the floor on the block's lit side is as bright as without
// it.
func TestKeyLightCastsShadows(t *testing.T) {
	needGL(t)
	cam, _ := PresetCamera("top", bowlBox)
	k := keyLight(cam)
	kh := normalize([3]float64{float64(k[0]), float64(k[1]), 0})
	// From the centre to the block's side along kh is at most 5*sqrt(2) mm; 12 mm is past it.
	shade := [3]float64{0.05 - 0.012*kh[0], 0.05 - 0.012*kh[1], 0.002}
	lit := [3]float64{0.05 + 0.012*kh[0], 0.05 + 0.012*kh[1], 0.002}
	render := func(block bool) *image.RGBA {
		sc, err := script.LoadSource("shadow.lua", []byte(shadowScene(block)), script.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		return renderScenario(t, sc, cam, picW, picH, RenderOptions{})
	}
	with, without := render(true), render(false)
	keep(t, "block", with)
	ls, l0 := luma(px(t, with, cam, shade)), luma(px(t, without, cam, shade))
	ll, l1 := luma(px(t, with, cam, lit)), luma(px(t, without, cam, lit))
	t.Logf("floor behind the block: luma %.0f (%.0f without it); on its lit side %.0f (%.0f)", ls, l0, ll, l1)
	if !(ls < 0.7*l0) {
		t.Errorf("the floor in the block's shadow has luma %.0f, %.0f without the block: want below 70%%", ls, l0)
	}
	if math.Abs(ll-l1) > 0.05*l1 {
		t.Errorf("the floor on the block's lit side has luma %.0f, %.0f without the block: want within 5%%", ll, l1)
	}
}
