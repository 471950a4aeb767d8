package script

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/scene"
)

const previewScene = `
local sim = vp.sim{ size = {0.01, 0.01}, height = 0.005, dx = 0.001, layers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} })
`

func TestLiquidColour(t *testing.T) {
	for _, tc := range []struct {
		set  string
		name string
		rgb  [3]float32
	}{
		{"", "water", scene.LiquidColors["water"]},
		{"sim:set{ liquid = 'blood' }", "blood", scene.LiquidColors["blood"]},
		{"sim:set{ liquid = 'coffee', viscosity = 2e-6 }", "coffee", scene.LiquidColors["coffee"]},
		{"sim:set{ liquid = {0.25, 0.5, 1} }", "custom", [3]float32{0.25, 0.5, 1}},
	} {
		sc, err := LoadSource("c.lua", []byte(previewScene+tc.set), Options{Workers: 1})
		if err != nil {
			t.Fatalf("%s: %v", tc.set, err)
		}
		l := sc.Scene().Settings().Liquid
		rgb, name := l.Color, l.Name
		if name != tc.name || rgb != tc.rgb {
			t.Errorf("%q: liquid %s %v, want %s %v", tc.set, name, rgb, tc.name, tc.rgb)
		}
		sc.Close()
	}
	// A bad key elsewhere in the table changes nothing, the colour included.
	sc, err := LoadSource("c.lua", []byte(previewScene+"pcall(sim.set, sim, { liquid = 'blood', damping = -1 })"), Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if name := sc.Scene().Settings().Liquid.Name; name != "water" {
		t.Errorf("a failed sim:set changed the liquid to %s", name)
	}
}

// TestLiquidAbsorption: a named liquid brings its absorption, a custom colour none (the
// preview derives one from the colour) unless absorption is given, absorption alone keeps
// the colour, and a bad absorption fails the call with nothing changed.
func TestLiquidAbsorption(t *testing.T) {
	for _, tc := range []struct {
		set  string
		name string
		abs  [3]float32
	}{
		{"", "water", scene.LiquidAbsorptions["water"]},
		{"sim:set{ liquid = 'blood' }", "blood", scene.LiquidAbsorptions["blood"]},
		{"sim:set{ liquid = {0.25, 0.5, 1} }", "custom", [3]float32{}},
		{"sim:set{ liquid = {0.25, 0.5, 1}, absorption = {100, 200, 300} }", "custom", [3]float32{100, 200, 300}},
		{"sim:set{ liquid = 'coffee' } sim:set{ absorption = {0, 5e3, 1e4} }", "coffee", [3]float32{0, 5e3, 1e4}},
		{"sim:set{ absorption = {1, 2, 3} }", "water", [3]float32{1, 2, 3}},
	} {
		sc, err := LoadSource("a.lua", []byte(previewScene+tc.set), Options{Workers: 1})
		if err != nil {
			t.Fatalf("%s: %v", tc.set, err)
		}
		l := sc.Scene().Settings().Liquid
		if name, a := l.Name, l.Absorption; name != tc.name || a != tc.abs {
			t.Errorf("%q: liquid %s absorption %v, want %s %v", tc.set, name, a, tc.name, tc.abs)
		}
		sc.Close()
	}
	for _, bad := range []struct{ set, want string }{
		{"sim:set{ liquid = 'blood', absorption = {1, -2, 3} }", "absorption[2] is -2"},
		{"sim:set{ absorption = 5 }", "absorption is a number"},
		{"sim:set{ absorption = {1, 2} }", "absorption"},
		{"sim:set{ absorption = {1, 2, 1e9} }", "absorption[3]"},
	} {
		_, err := LoadSource("a.lua", []byte(previewScene+bad.set), Options{Workers: 1})
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one naming %q", bad.set, err, bad.want)
		}
		sc, err := LoadSource("a.lua", []byte(previewScene+"pcall(function() "+bad.set+" end)"), Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if l := sc.Scene().Settings().Liquid; l.Name != "water" || l.Absorption != scene.LiquidAbsorptions["water"] {
			t.Errorf("%q failed but changed the liquid to %s %v", bad.set, l.Name, l.Absorption)
		}
		sc.Close()
	}
}

func TestScreenshotHook(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var got []string
	opt := Options{Workers: 1, Screenshot: func(sc *scene.Scene, path string) error {
		m, version, err := sc.TerrainMesh()
		if err != nil {
			return err
		}
		if m == nil || m.NumTriangles() == 0 || version < 1 {
			t.Errorf("terrain mesh %v, version %d", m, version)
		}
		got = append(got, path)
		if path == "fail.png" {
			return errors.New("no display here")
		}
		return nil
	}}
	src := previewScene + `
sim:screenshot("shots/a.png")
local ok, err = pcall(sim.screenshot, sim, "fail.png")
assert(not ok and err:find("no display here"), err)
`
	sc, err := LoadSource("s.lua", []byte(src), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if strings.Join(got, " ") != filepath.Join("shots", "a.png")+" fail.png" {
		t.Errorf("hook calls %q", got)
	}
}
