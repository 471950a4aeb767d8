package terrain

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// binarySTL writes m's triangles as a binary STL whose 80-byte header begins with header.
func binarySTL(m *Model, header string) []byte {
	var b bytes.Buffer
	h := make([]byte, 80)
	copy(h, header)
	b.Write(h)
	binary.Write(&b, binary.LittleEndian, uint32(len(m.Tris)))
	for _, t := range m.Tris {
		binary.Write(&b, binary.LittleEndian, [3]float32{}) // normal: ignored
		for _, i := range t {
			v := m.Verts[i]
			binary.Write(&b, binary.LittleEndian, [3]float32{float32(v.X), float32(v.Y), float32(v.Z)})
		}
		binary.Write(&b, binary.LittleEndian, uint16(0))
	}
	return b.Bytes()
}

// asciiSTL writes m's triangles as an ASCII STL.
func asciiSTL(m *Model) string {
	var b strings.Builder
	b.WriteString("solid test\n")
	for _, t := range m.Tris {
		b.WriteString("  facet normal 0 0 0\n    outer loop\n")
		for _, i := range t {
			v := m.Verts[i]
			fmt.Fprintf(&b, "      vertex %g %g %g\n", v.X, v.Y, v.Z)
		}
		b.WriteString("    endloop\n  endfacet\n")
	}
	b.WriteString("endsolid test\n")
	return b.String()
}

func readOBJModel(t testing.TB, src string) *Model {
	t.Helper()
	m, err := ReadOBJ(strings.NewReader(src), "test.obj")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readSTL(t testing.TB, data []byte, name string) Solid {
	t.Helper()
	m, err := ReadSTL(bytes.NewReader(data), int64(len(data)), name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Solid()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSTLCubeMatchesBox: the OBJ cube written as binary STL (with a plain header and with
// one beginning "solid", as many exporters write) and as ASCII STL is the box.
func TestSTLCubeMatchesBox(t *testing.T) {
	cube := readOBJModel(t, cubeOBJ)
	box := mustOf(t)(Box(Vec3{0, 0, 0}, Vec3{1, 2, 3}))
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"binary", binarySTL(cube, "exported by a test")},
		{"binary solid header", binarySTL(cube, "solid cube exported by a CAD tool")},
		{"ascii", []byte(asciiSTL(cube))},
		{"ascii upper case", []byte(strings.ToUpper(asciiSTL(cube)))},
	} {
		s := readSTL(t, c.data, c.name+".stl")
		if n := len(s.(*meshSolid).tris); n != 12 {
			t.Errorf("%s: %d triangles, want 12", c.name, n)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for range 500 {
			p := randomPoint(rng, -1, 4)
			if got, want := s.Dist(p), capped(s, box.Dist(p)); !near(got, want, 1e-12) {
				t.Fatalf("%s: Dist%v = %g, the box gives %g", c.name, p, got, want)
			}
		}
	}
}

// TestSTLIcosphere: a 20,480-triangle binary STL of a sphere (float32 coordinates, split
// vertices as STL has them) is the sphere within the facets' depth.
func TestSTLIcosphere(t *testing.T) {
	src, in := icosphere(5, Vec3{0.5, 0.5, 0.5}, 0.4, true)
	s := readSTL(t, binarySTL(readOBJModel(t, src), ""), "ball.stl")
	sphere := mustOf(t)(Sphere(Vec3{0.5, 0.5, 0.5}, 0.4))
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		p := randomPoint(rng, 0, 1)
		if got, want := s.Dist(p), capped(s, sphere.Dist(p)); !near(got, want, 0.4-in+1e-6) {
			t.Fatalf("Dist%v = %g, the sphere gives %g", p, got, want)
		}
	}
}

func TestSTLErrors(t *testing.T) {
	cube := readOBJModel(t, cubeOBJ)
	bin := binarySTL(cube, "")
	ascii := asciiSTL(cube)
	withCount := func(b []byte, n uint32) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[80:], n)
		return b
	}
	withFloat := func(b []byte, tri, off int, f float32) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[84+50*tri+off:], math.Float32bits(f))
		return b
	}
	// Two triangles over the same three points: closed in the edge count, zero area.
	flat := &Model{Verts: []Vec3{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}, Tris: [][3]int32{{0, 1, 2}, {0, 2, 1}}}
	patch := &Model{Verts: cube.Verts, Tris: cube.Tris[:1]} // one face: open, encloses nothing
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "bad.stl: the file is empty"},
		{"short", []byte("abc"), "bad.stl: truncated: 3 bytes"},
		{"truncated", bin[:len(bin)-7], "bad.stl: binary STL with 12 triangles should have 84 + 50 x 12 = 684 bytes, the file has 677"},
		{"count too large", withCount(bin, 13), "bad.stl: binary STL with 13 triangles should have 84 + 50 x 13 = 734 bytes, the file has 684"},
		{"count huge", withCount(bin, 0xffffffff), "binary STL with 4294967295 triangles"},
		{"zero triangles", withCount(bin[:84], 0), "bad.stl: the binary STL has 0 triangles"},
		{"binary nan", withFloat(bin, 4, 12+12+4, float32(math.NaN())), "bad.stl: triangle 5: vertex 2 coordinate y is NaN"},
		{"binary inf", withFloat(bin, 0, 12, float32(math.Inf(-1))), "bad.stl: triangle 1: vertex 1 coordinate x is -Inf"},
		{"binary patch", binarySTL(patch, ""), "bad.stl: the mesh encloses nothing"},
		{"binary zero area", binarySTL(flat, ""), "bad.stl: every face has zero area"},
		{"binary solid header truncated", binarySTL(cube, "solid x")[:600], "bad.stl: binary STL with 12 triangles should have"},
		{"ascii no facets", []byte("solid x\nendsolid x\n"), "bad.stl: no facets"},
		{"ascii nan", []byte(strings.Replace(ascii, "vertex 1 0 0", "vertex 1 nan 0", 1)), "bad.stl:13: vertex coordinate \"nan\" is not a finite number"},
		{"ascii bad number", []byte(strings.Replace(ascii, "vertex 1 0 0", "vertex 1 0 0x", 1)), "bad.stl:13: vertex coordinate \"0x\""},
		{"ascii short vertex", []byte(strings.Replace(ascii, "vertex 1 0 0", "vertex 1 0", 1)), "bad.stl:13: vertex has 2 coordinates"},
		{"ascii truncated in facet", []byte(ascii[:strings.Index(ascii, "endloop")]), "bad.stl:7: truncated: the file ends inside the facet of line 2"},
		{"ascii no endsolid", []byte(strings.TrimSuffix(ascii, "endsolid test\n")), "truncated: the file ends before the \"endsolid\" of the solid of line 1"},
		{"ascii two vertices", []byte("solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid\n"), "bad.stl:6: the facet of line 2 has 2 vertices, want at least 3"},
		{"ascii vertex outside loop", []byte("solid x\nfacet normal 0 0 1\nvertex 0 0 0\n"), "bad.stl:3: unexpected \"vertex\": want \"outer loop\""},
		{"ascii stray", []byte(ascii + "garbage\n"), "unexpected \"garbage\": want \"solid\""},
		{"ascii patch", []byte(asciiSTL(patch)), "bad.stl: the mesh encloses nothing"},
		{"ascii zero area", []byte(asciiSTL(flat)), "bad.stl: every face has zero area"},
		{"not an stl", []byte(strings.Repeat("hello world\n", 20)), "bad.stl: binary STL with"},
	} {
		m, err := ReadSTL(bytes.NewReader(c.data), int64(len(c.data)), "bad.stl")
		if err == nil {
			_, err = m.Solid()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestLoadModel: the extension picks the format, in any case, and errors name the path.
func TestLoadModel(t *testing.T) {
	dir := t.TempDir()
	cube := readOBJModel(t, cubeOBJ)
	files := map[string][]byte{
		"cube.stl": binarySTL(cube, "solid"),
		"cube.STL": []byte(asciiSTL(cube)),
		"cube.obj": []byte(cubeOBJ),
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := LoadModel(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if lo, hi := m.Bounds(); lo != (Vec3{0, 0, 0}) || hi != (Vec3{1, 2, 3}) {
			t.Errorf("%s: bounds %v %v, want (0, 0, 0) (1, 2, 3)", name, lo, hi)
		}
	}
	if _, err := LoadSTL(filepath.Join(dir, "cube.stl")); err != nil {
		t.Errorf("LoadSTL: %v", err)
	}
	// An OBJ named .stl is read as STL: its error says so.
	bad := filepath.Join(dir, "obj.stl")
	os.WriteFile(bad, []byte(cubeOBJ), 0o644)
	if _, err := LoadModel(bad); err == nil || !strings.Contains(err.Error(), bad+": binary STL with") {
		t.Errorf("OBJ text named .stl: error %v", err)
	}
	if _, err := LoadModel(filepath.Join(dir, "missing.stl")); err == nil || !strings.Contains(err.Error(), "missing.stl") {
		t.Errorf("missing file: error %v, want one naming the file", err)
	}
}

// TestModelTransform: Transform moves the vertices, and the solid follows exactly.
func TestModelTransform(t *testing.T) {
	m := readOBJModel(t, cubeOBJ)
	m.Transform(func(v Vec3) Vec3 { return Vec3{v.X * 0.5, -v.Z * 0.5, v.Y * 0.5} })
	lo, hi := m.Bounds()
	if lo != (Vec3{0, -1.5, 0}) || hi != (Vec3{0.5, 0, 1}) {
		t.Fatalf("bounds %v %v", lo, hi)
	}
	s, err := m.Solid()
	if err != nil {
		t.Fatal(err)
	}
	box := mustOf(t)(Box(lo, hi))
	rng := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		p := randomPoint(rng, -2, 2)
		if got, want := s.Dist(p), capped(s, box.Dist(p)); !near(got, want, 1e-12) {
			t.Fatalf("Dist%v = %g, the box gives %g", p, got, want)
		}
	}
	m.Transform(func(v Vec3) Vec3 { return v.Scale(1e308).Scale(10) })
	if _, err := m.Solid(); err == nil || !strings.Contains(err.Error(), "test.obj:17: vertex (0, -0, +Inf) is not finite") {
		t.Errorf("an overflowing scale: error %v, want one naming the face's line", err)
	}
}

// BenchmarkSTLSolid reads a 327,680-triangle binary STL (16 MB) and builds its solid.
func BenchmarkSTLSolid(b *testing.B) {
	src, _ := icosphere(7, Vec3{}, 1, false)
	data := binarySTL(readOBJModel(b, src), "")
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := ReadSTL(bytes.NewReader(data), int64(len(data)), "big.stl")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Solid(); err != nil {
			b.Fatal(err)
		}
	}
}
