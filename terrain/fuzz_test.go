package terrain

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// checkModelSolid builds the solid of a model that parsed and checks that it answers
// without NaN; errors are fine, panics are not (the fuzzers' property).
func checkModelSolid(t *testing.T, m *Model) {
	s, err := m.Solid()
	if err != nil {
		if err.Error() == "" {
			t.Fatal("an empty error message")
		}
		return
	}
	lo, hi := m.Bounds()
	for _, p := range []Vec3{lo, hi, lo.Add(hi).Scale(0.5), {0, 0, 0}, {1, -1, 0.5}} {
		if d := s.Dist(p); math.IsNaN(d) {
			t.Fatalf("Dist%v is NaN", p)
		}
	}
}

// FuzzReadSTL reads arbitrary bytes as an STL file: an error or a model, never a panic
// or a NaN distance. The seeds are the cube in both formats, a binary file with a
// "solid" header, and broken variants.
func FuzzReadSTL(f *testing.F) {
	cube, err := ReadOBJ(strings.NewReader(cubeOBJ), "cube.obj")
	if err != nil {
		f.Fatal(err)
	}
	bin := binarySTL(cube, "solid cube")
	ascii := asciiSTL(cube)
	for _, seed := range [][]byte{
		bin, binarySTL(cube, ""), bin[:300], bin[:84], []byte(ascii), []byte(ascii[:200]),
		[]byte("solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nvertex 0 0 1\nendloop\nendfacet\nendsolid\n"),
		[]byte("solid\n"), nil,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadSTL(bytes.NewReader(data), int64(len(data)), "fuzz.stl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.stl") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		checkModelSolid(t, m)
	})
}

// FuzzParseOBJ reads arbitrary text as an OBJ file, as FuzzReadSTL does STL.
func FuzzParseOBJ(f *testing.F) {
	for _, seed := range []string{
		cubeOBJ, cubeOBJ[:150], "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n",
		"v 0 0 0\nf -1 -1 -1\n", "f 1 2 3\n", "v 1e308 1e308 1e308\nv -1e308 0 0\nv 0 -1e308 0\nf 1 2 3\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ReadOBJ(strings.NewReader(src), "fuzz.obj")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.obj") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		checkModelSolid(t, m)
	})
}
