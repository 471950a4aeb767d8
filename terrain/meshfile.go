package terrain

import (
	"fmt"
	"io"

	"github.com/vpbench/vpbench/internal/fileout"
	"github.com/vpbench/vpbench/internal/meshio"
)

// Write writes m in format f: OBJ ("v", "vn", "f a//a b//b c//c") or PLY (binary or
// ASCII; per vertex the float properties x y z nx ny nz, per face a list of three uint
// indices), the same layout as the liquid surface's files without its opacity, so that
// a frame's terrain and liquid import side by side (Blender, Houdini).
func (m *Mesh) Write(w io.Writer, f meshio.Format) error {
	nv := m.NumVertices()
	if len(m.Positions) != 3*nv || len(m.Normals) != 3*nv || len(m.Indices)%3 != 0 {
		return fmt.Errorf("terrain: mesh has %d position, %d normal and %d index values", len(m.Positions), len(m.Normals), len(m.Indices))
	}
	for _, i := range m.Indices {
		if int(i) >= nv {
			return fmt.Errorf("terrain: mesh index %d out of %d vertices", i, nv)
		}
	}
	return meshio.Write(w, f, &meshio.Mesh{Comment: "vpbench terrain", Positions: m.Positions, Normals: m.Normals, Indices: m.Indices})
}

// WriteFile writes m to path: binary PLY when the name ends in .ply, OBJ otherwise
// (WriteFileFormat for ASCII PLY). Missing folders are made; a failed write leaves any
// earlier file at path as it was.
func (m *Mesh) WriteFile(path string) error {
	return m.WriteFileFormat(path, meshio.ByExt(path, false))
}

// WriteFileFormat is WriteFile in format f, whatever the name's extension.
func (m *Mesh) WriteFileFormat(path string, f meshio.Format) error {
	return fileout.Write(path, func(w io.Writer) error { return m.Write(w, f) })
}
