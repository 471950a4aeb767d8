package surface

import (
	"fmt"
	"io"

	"github.com/vpbench/vpbench/internal/fileout"
	"github.com/vpbench/vpbench/internal/meshio"
)

// Mesh is the liquid surface of one frame: an indexed triangle mesh with a normal and an
// opacity per vertex. Vertices come in a fixed order: the wet columns (in column order),
// then the dry columns linked to them, then the extra vertices; a vertex may be used by
// no triangle (a wet column linked to nothing, a dry one whose triangles had no wet
// corner). See the package documentation for the invariants.
type Mesh struct {
	Positions []float32 // xyz per vertex, m
	Normals   []float32 // xyz per vertex, unit (meniscus-corrected when enabled)
	Opacity   []float32 // per vertex, in [0, 1]
	Indices   []uint32  // triangles, counter-clockwise seen from above
	// SideTop is the highest surface the liquid's sides reach on each side of the
	// domain (-x, +x, -y, +y: the solver's order), m; -Inf where no liquid reaches that
	// side (or Settings.Sides is off). A viewer raises the walls' glass to it.
	SideTop [4]float32
	// SideIndex is where the liquid's sides' triangles lie in Indices: side s's in
	// Indices[SideIndex[s]:SideIndex[s+1]], the surface's before SideIndex[0]; what comes
	// after SideIndex[4] was appended later (the liquid in the air). A viewer may draw
	// the sides against walls only: at an open side the liquid runs off the domain.
	SideIndex [5]int
}

// NumVertices returns the number of vertices.
func (m *Mesh) NumVertices() int { return len(m.Positions) / 3 }

// NumTriangles returns the number of triangles.
func (m *Mesh) NumTriangles() int { return len(m.Indices) / 3 }

// WriteOBJ writes m as a Wavefront OBJ: "v x y z", "vn x y z" and "f a//a b//b c//c"
// (1-based). OBJ has no per-vertex opacity: use WritePLY to keep it.
func (m *Mesh) WriteOBJ(w io.Writer) error { return m.Write(w, meshio.OBJ) }

// WritePLY writes m as an ASCII PLY: per vertex the float properties x y z nx ny nz
// alpha (the opacity), per face a list of three uint indices. Write(w, meshio.PLY)
// writes the same as binary_little_endian, a third of the size.
func (m *Mesh) WritePLY(w io.Writer) error { return m.Write(w, meshio.PLYASCII) }

// Write writes m in format f: OBJ, or PLY (binary or ASCII) with the opacity as the
// per-vertex float property alpha.
func (m *Mesh) Write(w io.Writer, f meshio.Format) error {
	if err := m.check(); err != nil {
		return err
	}
	return meshio.Write(w, f, &meshio.Mesh{Comment: "vpbench liquid surface", Positions: m.Positions, Normals: m.Normals,
		Alpha: m.Opacity, Indices: m.Indices})
}

// check reports arrays whose lengths do not describe a mesh.
func (m *Mesh) check() error {
	nv := len(m.Positions) / 3
	if len(m.Positions) != 3*nv || len(m.Normals) != 3*nv || len(m.Opacity) != nv || len(m.Indices)%3 != 0 {
		return fmt.Errorf("surface: mesh has %d position, %d normal, %d opacity and %d index values",
			len(m.Positions), len(m.Normals), len(m.Opacity), len(m.Indices))
	}
	for _, i := range m.Indices {
		if int(i) >= nv {
			return fmt.Errorf("surface: mesh index %d out of %d vertices", i, nv)
		}
	}
	return nil
}

// WriteFile writes the mesh to path: binary PLY (with per-vertex opacity) when the name
// ends in .ply, OBJ otherwise. Missing folders are made; a failed write leaves any
// earlier file at path as it was.
func (m *Mesh) WriteFile(path string) error {
	return m.WriteFileFormat(path, meshio.ByExt(path, false))
}

// WriteFileFormat is WriteFile in format f, whatever the name's extension.
func (m *Mesh) WriteFileFormat(path string, f meshio.Format) error {
	if err := m.check(); err != nil {
		return err
	}
	return fileout.Write(path, func(w io.Writer) error { return m.Write(w, f) })
}
