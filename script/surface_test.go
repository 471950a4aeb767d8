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
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
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
