package terrain

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/vpbench/vpbench/internal/meshio"
)

// TestMeshWriteFile: the terrain mesh written as OBJ, binary PLY and ASCII PLY reads back
// with its vertex and triangle counts, and binary PLY with the very same numbers.
func TestMeshWriteFile(t *testing.T) {
	d := Domain{SizeX: 1, SizeY: 1, Height: 1, Dx: 0.1}
	m, err := SurfaceMesh(mustOf(t)(Sphere(Vec3{0.5, 0.5, 0.5}, 0.3)), d)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		f    meshio.Format
	}{{"t.obj", meshio.OBJ}, {"t.ply", meshio.PLY}, {"a.ply", meshio.PLYASCII}} {
		path := filepath.Join(dir, c.name)
		if c.f == meshio.PLYASCII {
			err = m.WriteFileFormat(path, c.f)
		} else {
			err = m.WriteFile(path)
		}
		if err != nil {
			t.Fatal(err)
		}
		got, f, err := meshio.ReadFile(path)
		if err != nil || f != c.f {
			t.Fatalf("%s: read back as %v: %v", c.name, f, err)
		}
		if len(got.Positions) != len(m.Positions) || len(got.Indices) != len(m.Indices) || got.Alpha != nil {
			t.Errorf("%s: %d vertices and %d triangles read back, wrote %d and %d", c.name,
				len(got.Positions)/3, len(got.Indices)/3, m.NumVertices(), m.NumTriangles())
		}
		if c.f != meshio.OBJ && (!slices.Equal(got.Positions, m.Positions) || !slices.Equal(got.Normals, m.Normals) || !slices.Equal(got.Indices, m.Indices)) {
			t.Errorf("%s: the numbers read back differ", c.name)
		}
	}
	bad := &Mesh{Positions: []float32{0, 0, 0}, Normals: []float32{0, 0, 1}, Indices: []uint32{0, 0, 1}}
	if err := bad.WriteFile(filepath.Join(dir, "bad.ply")); err == nil {
		t.Error("a mesh with an index out of range was written")
	}
}
