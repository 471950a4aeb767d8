package script

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/internal/meshio"
	"github.com/vpbench/vpbench/scene"
)

// meshFormat is the format of a mesh file a script writes to path: OBJ, or PLY when the
// name ends in .ply, binary unless argument n, an optional table {ascii = true}, asks
// for ASCII.
func (c call) meshFormat(path string, n int) meshio.Format {
	t := c.optTable(n, "{ascii = true}")
	c.keys(t, "ascii")
	return meshio.ByExt(path, c.boolean(t, "ascii", false))
}

// simExportTerrain is sim:export_terrain(path[, {ascii = true}]): the terrain's triangle
// mesh, the one the preview draws, OBJ or PLY.
func (s *Scenario) simExportTerrain(L *lua.LState) int {
	return s.exportMeshCall(L, "export_terrain", func(path string, f meshio.Format) error {
		_, err := s.scene.ExportTerrain(path, f)
		return err
	})
}

// simExportBodies is sim:export_bodies(path[, {ascii = true}]): the floating bodies'
// surfaces as they are now, OBJ or PLY.
func (s *Scenario) simExportBodies(L *lua.LState) int {
	return s.exportMeshCall(L, "export_bodies", s.scene.ExportBodies)
}

// exportMeshCall is sim:export_mesh's and sim:export_terrain's call: the path (a safe
// output path), the format from its name and the options table, then write, with the
// watchdog paused (a first call builds the terrain mesh).
func (s *Scenario) exportMeshCall(L *lua.LState, name string, write func(path string, f meshio.Format) error) int {
	c := s.simCall(L, name)
	c.ensureSolver()
	path := c.pathArg(2)
	if err := safeOutputPath(path); err != nil {
		c.fail("%v", err)
	}
	format := c.meshFormat(path, 3)
	resume := s.pauseWatchdog()
	err := write(path, format)
	resume()
	if err != nil {
		c.fail("%v", err)
	}
	return 0
}

// simCamera is sim:camera{ eye = {x, y, z}, target = {x, y, z}, fov = 35 }: the camera
// the preview window (until the user moves it), screenshots, recordings and `vpbench
// render` draw from, instead of the default preset. sim:camera(nil) goes back to the
// presets.
func (s *Scenario) simCamera(L *lua.LState) int {
	c := s.simCall(L, "camera")
	if L.Get(2) == lua.LNil {
		s.scene.ClearCamera()
		return 0
	}
	t := c.table(2, "{eye = {x, y, z}, target = {x, y, z}, fov = 35}")
	c.keys(t, "eye", "target", "fov")
	eye, target := c.vec(t, "eye", 3), c.vec(t, "target", 3)
	cam := scene.Camera{Eye: [3]float64(eye), Target: [3]float64(target), Fov: c.num(t, "fov", numField{def: scene.DefaultFov})}
	if err := s.scene.SetCamera(cam); err != nil {
		c.fail("%v", err)
	}
	return 0
}
