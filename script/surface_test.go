package script

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportMesh: sim:export_mesh writes the liquid surface as OBJ and PLY, with the
// surface settings from sim:set; unsafe paths are refused with the script's line.
func TestExportMesh(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	src := `
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, layers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} })
sim:fill{ at = {0.01, 0.01, 0.002}, level = 0.003 }
sim:set{ contact_angle = 0.5, meniscus_length = 0.002, depth_max = 0.001, meniscus = true }
sim:export_mesh("out/pool.obj")
sim:export_mesh("out/pool.ply")
`
	sc, err := LoadSource("export.lua", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	obj, err := os.ReadFile(filepath.Join(dir, "out", "pool.obj"))
	if err != nil {
		t.Fatal(err)
	}
	var v, f int
	sc2 := bufio.NewScanner(strings.NewReader(string(obj)))
	for sc2.Scan() {
		switch {
		case strings.HasPrefix(sc2.Text(), "v "):
			v++
		case strings.HasPrefix(sc2.Text(), "f "):
			f++
		}
	}
	// A flat pool over 20 x 20 cells: a vertex per column, two triangles per quartet.
	if v < 400 || f < 2*19*19 {
		t.Errorf("OBJ has %d vertices and %d faces, want at least 400 and %d", v, f, 2*19*19)
	}
	ply, err := os.ReadFile(filepath.Join(dir, "out", "pool.ply"))
	if err != nil || !strings.HasPrefix(string(ply), "ply") {
		t.Fatalf("PLY: %v", err)
	}
	for _, bad := range []string{`sim:export_mesh("/tmp/x.obj")`, `sim:export_mesh("../x.obj")`, `sim:set{ contact_angle = 7 }`, `sim:set{ meniscus = 1 }`} {
		_, err := LoadSource("bad.lua", []byte("local sim = vp.sim{ size = {0.01, 0.01}, dx = 0.001 }\n"+bad+"\n"), Options{})
		if err == nil || !strings.Contains(err.Error(), "bad.lua:2") {
			t.Errorf("%s: error %v, want one at bad.lua:2", bad, err)
		}
	}
}

// TestExportDrops: liquid in the air is in the exported mesh after the surface: two drops
// far apart, each its own smooth body (a lone drop of the air's surface is its ellipsoid
// template, 42 vertices and 80 triangles); sim:drop, sim:stats and sim:info see it.
func TestExportDrops(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	src := `
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.03, dx = 0.001, layers = 1, fall_drop = 0.002 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} })
sim:export_mesh("out/dry.obj")
sim:drop{ at = {0.005, 0.005, 0.02}, volume = 1e-10 }
sim:drop{ at = {0.015, 0.015, 0.02}, volume = 2e-10, velocity = {0.1, 0, 0} }
local st, info = sim:stats(), sim:info()
assert(st.particles == 2, "particles " .. st.particles)
assert(math.abs(st.airborne - 3e-10) < 1e-20, "airborne " .. st.airborne)
assert(math.abs(sim:volume() - 3e-10) < 1e-20, "volume " .. sim:volume())
assert(info.falling == "particles" and info.fall_drop == 0.002, "info " .. info.falling .. " " .. info.fall_drop)
sim:export_mesh("out/drops.obj")
`
	sc, err := LoadSource("drops.lua", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	count := func(name string) (v, f int) {
		obj, err := os.ReadFile(filepath.Join(dir, "out", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(obj), "\n") {
			switch {
			case strings.HasPrefix(l, "v "):
				v++
			case strings.HasPrefix(l, "f "):
				f++
			}
		}
		return v, f
	}
	v0, f0 := count("dry.obj")
	v, f := count("drops.obj")
	if v-v0 != 84 || f-f0 != 160 {
		t.Errorf("two drops added %d vertices and %d faces to the mesh, want 84 and 160", v-v0, f-f0)
	}
}

// TestFallingSourceScript: sim:source{falls = true, velocity = ...} pours from its point
// into the air; the drops land and the volume is what it poured.
func TestFallingSourceScript(t *testing.T) {
	src := `
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.03, dx = 0.001, layers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} })
sim:source{ at = {0.01, 0.01, 0.02}, radius = 0.002, rate = 1e-6, stop = 0.05, falls = true, velocity = {0.1, 0, 0} }
`
	sc, err := LoadSource("pour.lua", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if _, err := sc.Advance(10); err != nil {
		t.Fatal(err)
	}
	if st := sc.Scene().Stats(); st.Particles == 0 || st.Wet != 0 {
		t.Fatalf("after 10 steps: %d particles, %d wet columns; want the stream in the air, not yet down", st.Particles, st.Wet)
	}
	if _, err := sc.Advance(200); err != nil {
		t.Fatal(err)
	}
	st := sc.Scene().Stats()
	if st.Particles != 0 || st.Wet == 0 || st.Added == 0 || (st.Volume-st.Added) > 1e-12*st.Added || (st.Added-st.Volume) > 1e-12*st.Added {
		t.Fatalf("after 210 steps: %d particles, %d wet, volume %g, added %g", st.Particles, st.Wet, st.Volume, st.Added)
	}
}
