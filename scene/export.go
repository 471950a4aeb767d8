package scene

import (
	"errors"

	"github.com/vpbench/vpbench/internal/meshio"
	"github.com/vpbench/vpbench/terrain"
)

// ExportMeshFormat writes the liquid surface mesh of the current state to path in
// format f (OBJ, binary or ASCII PLY), whatever the name's extension. Missing folders
// are made.
func (s *Scene) ExportMeshFormat(path string, f meshio.Format) error {
	s.Sync()
	m, err := s.BuildSurface()
	if err != nil {
		return err
	}
	return m.WriteFileFormat(path, f)
}

// ExportTerrain writes the terrain's triangle mesh (TerrainMesh: the mesh the preview
// draws and the surface is built on, closed into a diorama with its floor slab) to path
// in format f: positions, normals and triangles, in the same frame and units as the
// liquid surface's files. It returns the terrain's version (TerrainMesh), which changes
// whenever the terrain does. The first call builds the mesh (marching cubes).
func (s *Scene) ExportTerrain(path string, f meshio.Format) (version int, err error) {
	m, version, err := s.TerrainMesh()
	if err != nil {
		return 0, err
	}
	return version, m.WriteFileFormat(path, f)
}

// ErrNoBodies is ExportBodies' error when the scene has no floating bodies.
var ErrNoBodies = errors.New("there are no floating bodies to export (sim:body makes one)")

// ExportBodies writes the floating bodies' surfaces as they are now (BodyMesh: every
// body in one mesh, in the world frame of the terrain's and the liquid's files) to path
// in format f.
func (s *Scene) ExportBodies(path string, f meshio.Format) error {
	bm, err := s.BodyMesh()
	if err != nil {
		return err
	}
	if bm == nil {
		return ErrNoBodies
	}
	m := terrain.Mesh{Positions: bm.Positions, Normals: bm.Normals, Indices: bm.Indices}
	return m.WriteFileFormat(path, f)
}
