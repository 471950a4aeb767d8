package surface

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vpbench/vpbench/internal/fileout"
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
}

// NumVertices returns the number of vertices.
func (m *Mesh) NumVertices() int { return len(m.Positions) / 3 }

// NumTriangles returns the number of triangles.
func (m *Mesh) NumTriangles() int { return len(m.Indices) / 3 }

// WriteOBJ writes m as a Wavefront OBJ: "v x y z", "vn x y z" and "f a//a b//b c//c"
// (1-based). OBJ has no per-vertex opacity: use WritePLY to keep it.
func (m *Mesh) WriteOBJ(w io.Writer) error {
	if err := m.check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	buf := make([]byte, 0, 128)
	buf = fmt.Appendf(buf, "# vpbench liquid surface: %d vertices, %d triangles\n", m.NumVertices(), m.NumTriangles())
	bw.Write(buf)
	for _, s := range []struct {
		tag string
		v   []float32
	}{{"v", m.Positions}, {"vn", m.Normals}} {
		for k := 0; k+2 < len(s.v); k += 3 {
			buf = append(buf[:0], s.tag...)
			for c := range 3 {
				buf = append(buf, ' ')
				buf = strconv.AppendFloat(buf, float64(s.v[k+c]), 'g', -1, 32)
			}
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	}
	for k := 0; k+2 < len(m.Indices); k += 3 {
		buf = append(buf[:0], 'f')
		for c := range 3 {
			i := uint64(m.Indices[k+c]) + 1
			buf = append(buf, ' ')
			buf = strconv.AppendUint(buf, i, 10)
			buf = append(buf, '/', '/')
			buf = strconv.AppendUint(buf, i, 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// WritePLY writes m as an ASCII PLY: per vertex the float properties x y z nx ny nz
// alpha (the opacity), per face a list of three uint indices.
func (m *Mesh) WritePLY(w io.Writer) error {
	if err := m.check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	nv, nt := m.NumVertices(), m.NumTriangles()
	fmt.Fprintf(bw, "ply\nformat ascii 1.0\ncomment vpbench liquid surface\nelement vertex %d\n", nv)
	for _, p := range []string{"x", "y", "z", "nx", "ny", "nz", "alpha"} {
		fmt.Fprintf(bw, "property float %s\n", p)
	}
	fmt.Fprintf(bw, "element face %d\nproperty list uchar uint vertex_indices\nend_header\n", nt)
	buf := make([]byte, 0, 160)
	for v := range nv {
		buf = buf[:0]
		for c := range 3 {
			buf = strconv.AppendFloat(buf, float64(m.Positions[3*v+c]), 'g', -1, 32)
			buf = append(buf, ' ')
		}
		for c := range 3 {
			buf = strconv.AppendFloat(buf, float64(m.Normals[3*v+c]), 'g', -1, 32)
			buf = append(buf, ' ')
		}
		buf = strconv.AppendFloat(buf, float64(m.Opacity[v]), 'g', -1, 32)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	for t := range nt {
		buf = append(buf[:0], '3')
		for c := range 3 {
			buf = append(buf, ' ')
			buf = strconv.AppendUint(buf, uint64(m.Indices[3*t+c]), 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
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

// WriteFile writes the mesh to path: PLY (with per-vertex opacity) when the name ends in
// .ply, OBJ otherwise. Missing folders are made; a failed write leaves any earlier file
// at path as it was.
func (m *Mesh) WriteFile(path string) error {
	return fileout.Write(path, func(w io.Writer) error {
		if strings.EqualFold(filepath.Ext(path), ".ply") {
			return m.WritePLY(w)
		}
		return m.WriteOBJ(w)
	})
}
