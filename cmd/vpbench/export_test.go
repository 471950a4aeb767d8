package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vpbench/vpbench/internal/meshio"
)

// changeScript sets a floor, then a floor with a block at t = 0.05 s; it writes its own
// terrain files with sim:export_terrain for comparison.
const changeScript = `
local sim = vp.sim{ size = {0.02, 0.02}, height = 0.01, dx = 0.001, layers = 1 }
local floor = vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} }
sim:terrain(floor)
sim:export_terrain("ref/t0.ply")
sim:source{ at = {0.01, 0.01, 0.01}, radius = 0.002, rate = 1e-6, stop = 0.2 }
sim:at(0.05, function()
  sim:terrain(vp.union(floor, vp.box{ min = {0.002, 0.002, 0}, max = {0.006, 0.006, 0.004} }))
  sim:export_terrain("ref/t1.ply")
end)
`

// TestExportTerrainPerVersion: --export-every writes the terrain once per terrain version
// beside the liquid frames (terrain_NAME_0000, a new one after sim:terrain), in the
// chosen format: the same mesh as sim:export_terrain's; binary PLY by default for "ply",
// ASCII for "ply-ascii", with the liquid's opacity.
func TestExportTerrainPerVersion(t *testing.T) {
	for _, c := range []struct {
		format string
		want   meshio.Format
	}{{"ply", meshio.PLY}, {"ply-ascii", meshio.PLYASCII}, {"obj", meshio.OBJ}} {
		t.Run(c.format, func(t *testing.T) {
			work := t.TempDir()
			t.Chdir(work)
			path := writeScript(t, "change.lua", changeScript)
			dir := filepath.Join(work, "meshes")
			code, out, errOut := runCLI(t, "run", "--headless", "--until", "0.1", "--frame-steps", "1", "--export-every", "2",
				"--export-dir", dir, "--export-format", c.format, path)
			if code != exitOK {
				t.Fatalf("exit %d, stderr: %s", code, errOut)
			}
			ext := c.want.Ext()
			terrains, _ := filepath.Glob(filepath.Join(dir, "terrain_change_*."+ext))
			if len(terrains) != 2 {
				t.Fatalf("terrain files %q: want terrain_change_0000 and _0001\n%s", terrains, out)
			}
			for k := range 2 {
				got, f, err := meshio.ReadFile(filepath.Join(dir, fmt.Sprintf("terrain_change_%04d.%s", k, ext)))
				if err != nil || f != c.want {
					t.Fatalf("terrain %d: %v, format %v", k, err, f)
				}
				ref, _, err := meshio.ReadFile(filepath.Join(work, "ref", fmt.Sprintf("t%d.ply", k)))
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Positions) != len(ref.Positions) || len(got.Indices) != len(ref.Indices) || len(ref.Indices) == 0 {
					t.Errorf("terrain %d: %d vertices and %d triangles, sim:export_terrain's %d and %d", k,
						len(got.Positions)/3, len(got.Indices)/3, len(ref.Positions)/3, len(ref.Indices)/3)
				}
			}
			liquids, _ := filepath.Glob(filepath.Join(dir, "change_0*."+ext))
			if len(liquids) < 2 {
				t.Fatalf("liquid files %q", liquids)
			}
			m, f, err := meshio.ReadFile(liquids[len(liquids)-1])
			if err != nil || f != c.want || len(m.Indices) == 0 {
				t.Fatalf("%s: %v, format %v, %d triangles", liquids[len(liquids)-1], err, f, len(m.Indices)/3)
			}
			if c.want != meshio.OBJ && len(m.Alpha) != len(m.Positions)/3 {
				t.Errorf("liquid PLY: %d opacities for %d vertices", len(m.Alpha), len(m.Positions)/3)
			}
		})
	}
}
