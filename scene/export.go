package scene

import "github.com/vpbench/vpbench/internal/meshio"

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
