package meshio

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func sample(alpha bool) *Mesh {
	m := &Mesh{
		Comment:   "vpbench test",
		Positions: []float32{0, 0, 0, 1, 0, 0, 0, 1, 0, 0.1, 0.2, 1e-7},
		Normals:   []float32{0, 0, 1, 0, 0, 1, 0, 0, 1, 0.6, 0, 0.8},
		Indices:   []uint32{0, 1, 2, 1, 3, 2},
	}
	if alpha {
		m.Alpha = []float32{0, 0.25, 1, 0.3333}
	}
	return m
}

// TestRoundTrip: every format reads back to the same vertices, normals, opacities and
// triangles (OBJ has no opacity).
func TestRoundTrip(t *testing.T) {
	for _, f := range []Format{OBJ, PLY, PLYASCII} {
		for _, alpha := range []bool{false, true} {
			in := sample(alpha)
			var b bytes.Buffer
			if err := Write(&b, f, in); err != nil {
				t.Fatal(err)
			}
			out, got, err := Read(&b)
			if err != nil || got != f {
				t.Fatalf("%v alpha %v: read back as %v, %v", f, alpha, got, err)
			}
			if !slices.Equal(out.Positions, in.Positions) || !slices.Equal(out.Normals, in.Normals) || !slices.Equal(out.Indices, in.Indices) {
				t.Errorf("%v alpha %v: read back %+v, wrote %+v", f, alpha, out, in)
			}
			if f != OBJ && !slices.Equal(out.Alpha, in.Alpha) {
				t.Errorf("%v: alpha %v, wrote %v", f, out.Alpha, in.Alpha)
			}
		}
	}
}

// TestBinaryPLYLayout: the binary PLY is the header, then 28 bytes a vertex (7 floats)
// and 13 a triangle (a count byte and three uint32), little-endian.
func TestBinaryPLYLayout(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, PLY, sample(true)); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if !strings.HasPrefix(s, "ply\nformat binary_little_endian 1.0\n") || !strings.Contains(s, "property float alpha\n") {
		t.Fatalf("header: %q", s[:min(len(s), 200)])
	}
	i := strings.Index(s, "end_header\n") + len("end_header\n")
	if body := len(s) - i; body != 4*28+2*13 {
		t.Errorf("body of %d bytes, want %d", body, 4*28+2*13)
	}
	if s[i+4*28] != 3 {
		t.Errorf("first face's count byte %d, want 3", s[i+4*28])
	}
}

func TestFormatNames(t *testing.T) {
	for _, n := range Names {
		f, err := ParseFormat(n)
		if err != nil || f.String() != n {
			t.Errorf("%q: %v, %v", n, f, err)
		}
	}
	if _, err := ParseFormat("stl"); err == nil {
		t.Error("stl parsed")
	}
	if ByExt("a/b.PLY", false) != PLY || ByExt("b.ply", true) != PLYASCII || ByExt("b.obj", true) != OBJ {
		t.Error("ByExt")
	}
	if PLYASCII.Ext() != "ply" || OBJ.Ext() != "obj" {
		t.Error("Ext")
	}
}

func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "m.ply")
	if err := WriteFile(path, PLY, sample(true)); err != nil {
		t.Fatal(err)
	}
	m, f, err := ReadFile(path)
	if err != nil || f != PLY || m.numVertices() != 4 || m.numTriangles() != 2 {
		t.Fatalf("%v %v %v", m, f, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
