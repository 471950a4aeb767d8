// Package meshio writes triangle meshes as Wavefront OBJ and PLY (ASCII or
// binary_little_endian) for the liquid surface (package surface) and the terrain
// (package terrain): one writer, so that both files of a frame read the same way.
package meshio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vpbench/vpbench/internal/fileout"
)

// Format is a mesh file format.
type Format int

const (
	// OBJ is Wavefront OBJ: positions, normals and triangles (no per-vertex extras).
	OBJ Format = iota
	// PLY is binary_little_endian PLY: the same properties as PLYASCII in about 55 % of
	// the bytes (28 a vertex, 13 a triangle), the floats exact. Blender, Houdini, MeshLab, Open3D, trimesh
	// and plyfile read it.
	PLY
	// PLYASCII is ASCII PLY, readable in a text editor.
	PLYASCII
)

// Names are the format names the command line and scripts take ("ply" is binary).
var Names = []string{"obj", "ply", "ply-ascii"}

// ParseFormat reads a format name (Names).
func ParseFormat(name string) (Format, error) {
	switch name {
	case "obj":
		return OBJ, nil
	case "ply":
		return PLY, nil
	case "ply-ascii":
		return PLYASCII, nil
	}
	return OBJ, fmt.Errorf("unknown mesh format %q: want \"obj\", \"ply\" (binary) or \"ply-ascii\"", name)
}

// Ext is the file name extension of f, without the dot: "obj" or "ply".
func (f Format) Ext() string {
	if f == OBJ {
		return "obj"
	}
	return "ply"
}

// String is f's name (Names).
func (f Format) String() string { return Names[f] }

// ByExt is the format a file name asks for: PLY (binary, or ASCII when ascii is set)
// when it ends in .ply (any case), OBJ otherwise.
func ByExt(path string, ascii bool) Format {
	if !strings.EqualFold(filepath.Ext(path), ".ply") {
		return OBJ
	}
	if ascii {
		return PLYASCII
	}
	return PLY
}

// Mesh is what is written: xyz triples of positions and normals, an optional value a
// vertex (Alpha, written as the PLY float property "alpha"; nil: none) and triangles.
type Mesh struct {
	Comment   string // one line, written in the file's header
	Positions []float32
	Normals   []float32
	Alpha     []float32
	Indices   []uint32
}

func (m *Mesh) numVertices() int  { return len(m.Positions) / 3 }
func (m *Mesh) numTriangles() int { return len(m.Indices) / 3 }

// Write writes m to w in format f.
func Write(w io.Writer, f Format, m *Mesh) error {
	switch f {
	case OBJ:
		return writeOBJ(w, m)
	case PLY:
		return writePLY(w, m, true)
	case PLYASCII:
		return writePLY(w, m, false)
	}
	return fmt.Errorf("meshio: unknown format %d", f)
}

// WriteFile writes m to path in format f through fileout: missing folders are made, and
// a failed write leaves any earlier file at path as it was.
func WriteFile(path string, f Format, m *Mesh) error {
	return fileout.Write(path, func(w io.Writer) error { return Write(w, f, m) })
}

func writeOBJ(w io.Writer, m *Mesh) error {
	bw := bufio.NewWriter(w)
	buf := make([]byte, 0, 128)
	buf = fmt.Appendf(buf, "# %s: %d vertices, %d triangles\n", m.Comment, m.numVertices(), m.numTriangles())
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

// writePLY writes the header and then, per vertex, the float properties x y z nx ny nz
// (and alpha when m has it), per face a list of three uint indices (uchar count).
func writePLY(w io.Writer, m *Mesh, bin bool) error {
	bw := bufio.NewWriter(w)
	nv, nt := m.numVertices(), m.numTriangles()
	format := "ascii"
	if bin {
		format = "binary_little_endian"
	}
	fmt.Fprintf(bw, "ply\nformat %s 1.0\ncomment %s\nelement vertex %d\n", format, m.Comment, nv)
	props := []string{"x", "y", "z", "nx", "ny", "nz"}
	if m.Alpha != nil {
		props = append(props, "alpha")
	}
	for _, p := range props {
		fmt.Fprintf(bw, "property float %s\n", p)
	}
	fmt.Fprintf(bw, "element face %d\nproperty list uchar uint vertex_indices\nend_header\n", nt)
	buf := make([]byte, 0, 160)
	for v := range nv {
		buf = buf[:0]
		vals := [7]float32{m.Positions[3*v], m.Positions[3*v+1], m.Positions[3*v+2], m.Normals[3*v], m.Normals[3*v+1], m.Normals[3*v+2]}
		n := 6
		if m.Alpha != nil {
			vals[6], n = m.Alpha[v], 7
		}
		for c, x := range vals[:n] {
			if bin {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
				continue
			}
			if c > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendFloat(buf, float64(x), 'g', -1, 32)
		}
		if !bin {
			buf = append(buf, '\n')
		}
		bw.Write(buf)
	}
	for t := range nt {
		if bin {
			buf = append(buf[:0], 3)
			for c := range 3 {
				buf = binary.LittleEndian.AppendUint32(buf, m.Indices[3*t+c])
			}
		} else {
			buf = append(buf[:0], '3')
			for c := range 3 {
				buf = append(buf, ' ')
				buf = strconv.AppendUint(buf, uint64(m.Indices[3*t+c]), 10)
			}
			buf = append(buf, '\n')
		}
		bw.Write(buf)
	}
	return bw.Flush()
}
