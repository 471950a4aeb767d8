package script

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/internal/meshio"
)

// TestExportTerrain: sim:export_terrain writes the scene's terrain mesh (binary PLY, ASCII
// PLY with {ascii = true}, OBJ) with its vertex and triangle counts, a terrain change
// writes a different one, and sim:export_mesh's PLY is binary with the opacity.
func TestExportTerrain(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	src := `
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, layers = 1 }
sim:terrain(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} })
sim:fill{ at = {0.01, 0.01, 0.002}, level = 0.003 }
sim:export_terrain("out/t.ply")
sim:export_terrain("out/t_ascii.ply", { ascii = true })
sim:export_terrain("out/t.obj")
sim:export_mesh("out/l.ply")
sim:export_mesh("out/l_ascii.ply", { ascii = true })
sim:terrain(vp.union(vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} }, vp.box{ min = {0.005, 0.005, 0}, max = {0.01, 0.01, 0.004} }))
sim:export_terrain("out/t2.ply")
`
	sc := mustLoad(t, "export.lua", src, opts(nil))
	read := func(name string, want meshio.Format) *meshio.Mesh {
		t.Helper()
		m, f, err := meshio.ReadFile(filepath.Join(dir, "out", name))
		if err != nil || f != want {
			t.Fatalf("%s: %v as %v, want %v", name, err, f, want)
		}
		return m
	}
	tm := read("t.ply", meshio.PLY)
	ta := read("t_ascii.ply", meshio.PLYASCII)
	to := read("t.obj", meshio.OBJ)
	for _, m := range []*meshio.Mesh{tm, ta, to} {
		if len(m.Positions) != len(tm.Positions) || len(m.Indices) != len(tm.Indices) || len(m.Alpha) != 0 || len(tm.Indices) == 0 {
			t.Errorf("terrain files of %d and %d values, want the same counts", len(m.Positions), len(tm.Positions))
		}
	}
	t2 := read("t2.ply", meshio.PLY)
	cur, _, err := sc.scene.TerrainMesh()
	if err != nil {
		t.Fatal(err)
	}
	if len(t2.Positions) != len(cur.Positions) || len(t2.Indices) != len(cur.Indices) || len(t2.Indices) == len(tm.Indices) {
		t.Errorf("after the terrain change: %d vertices and %d triangles written, the mesh has %d and %d (before: %d triangles)",
			len(t2.Positions)/3, len(t2.Indices)/3, cur.NumVertices(), cur.NumTriangles(), len(tm.Indices)/3)
	}
	lb, la := read("l.ply", meshio.PLY), read("l_ascii.ply", meshio.PLYASCII)
	if len(lb.Alpha) == 0 || len(lb.Alpha) != len(la.Alpha) || len(lb.Indices) != len(la.Indices) {
		t.Errorf("liquid: binary %d opacities, %d triangles; ASCII %d, %d", len(lb.Alpha), len(lb.Indices)/3, len(la.Alpha), len(la.Indices)/3)
	}
	for i := range lb.Positions {
		if lb.Positions[i] != la.Positions[i] {
			t.Fatalf("liquid: binary and ASCII positions differ at %d: %g, %g", i, lb.Positions[i], la.Positions[i])
		}
	}
	for _, c := range []struct{ call, msg string }{
		{`sim:export_terrain("../x.ply")`, "leaves the working folder"},
		{`sim:export_terrain("/tmp/x.ply")`, "absolute path"},
		{`sim:export_terrain(3)`, "want a file name"},
		{`sim:export_terrain("x.ply", { binary = true })`, "unknown field"},
		{`sim:export_mesh("x.ply", { ascii = 1 })`, "ascii"},
	} {
		_, err := LoadSource("bad.lua", []byte(small+c.call+"\n"), opts(nil))
		wantError(t, err, "bad.lua", 2, c.msg)
	}
}

// TestCamera: sim:camera sets the scene's camera (fov 35 by default), a new call a new
// version, sim:camera(nil) clears it; bad cameras are refused with messages that say why.
func TestCamera(t *testing.T) {
	sc := mustLoad(t, "cam.lua", small+`sim:camera{ eye = {0.05, -0.05, 0.04}, target = {0.005, 0.005, 0} }
`, opts(nil))
	c, v1, ok := sc.scene.Camera()
	if !ok || c.Eye != [3]float64{0.05, -0.05, 0.04} || c.Target != [3]float64{0.005, 0.005, 0} || c.Fov != 35 || v1 == 0 {
		t.Fatalf("camera %+v, version %d, set %v", c, v1, ok)
	}
	sc2 := mustLoad(t, "cam2.lua", small+`sim:camera{ eye = {0, 0, 1}, target = {0, 0, 0}, fov = 60 }
sim:camera{ eye = {1, 0, 1}, target = {0, 0, 0}, fov = 20 }
`, opts(nil))
	c2, v2, ok := sc2.scene.Camera()
	if !ok || c2.Fov != 20 || c2.Eye != [3]float64{1, 0, 1} || v2 != 2 {
		t.Errorf("second camera %+v version %d", c2, v2)
	}
	sc3 := mustLoad(t, "cam3.lua", small+`sim:camera{ eye = {0, 0, 1}, target = {0, 0, 0} }
sim:camera(nil)
`, opts(nil))
	if _, _, ok := sc3.scene.Camera(); ok {
		t.Error("sim:camera(nil) left the camera set")
	}
	for _, c := range []struct{ call, msg string }{
		{`sim:camera{ eye = {0, 0, 1}, target = {0, 0, 1} }`, "eye != target"},
		{`sim:camera{ eye = {0, 0, 1}, target = {0, 0, 0}, fov = 1 }`, "fov is 1: it must be a vertical field of view in degrees in (1, 170)"},
		{`sim:camera{ eye = {0, 0, 1}, target = {0, 0, 0}, fov = 170 }`, "fov is 170"},
		{`sim:camera{ eye = {0, 0, 1}, target = {0, 0, 0}, fov = "wide" }`, "fov is a string, want a number"},
		{`sim:camera{ target = {0, 0, 0} }`, "eye is missing"},
		{`sim:camera{ eye = {0, 0, 1} }`, "target is missing"},
		{`sim:camera{ eye = {0, 1}, target = {0, 0, 0} }`, "eye has 2 values"},
		{`sim:camera{ eye = {0, 0, 1}, target = {0, 0, 0}, fovy = 30 }`, "unknown field"},
		{`sim:camera("top")`, "want a table"},
		{`sim.camera{ eye = {0, 0, 1}, target = {0, 0, 0} }`, "call it with a colon"},
	} {
		_, err := LoadSource("bad.lua", []byte(small+c.call+"\n"), opts(nil))
		e := wantError(t, err, "bad.lua", 2, c.msg)
		if e != nil && !strings.Contains(e.Msg, "sim:camera") {
			t.Errorf("%s: %q does not name sim:camera", c.call, e.Msg)
		}
	}
}
