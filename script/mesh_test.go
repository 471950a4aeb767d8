package script

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// boxSTL is a binary STL of the box [0, a] x [0, b] x [0, c], in the file's units.
func boxSTL(a, b, c float32) []byte {
	v := [8][3]float32{{0, 0, 0}, {a, 0, 0}, {a, b, 0}, {0, b, 0}, {0, 0, c}, {a, 0, c}, {a, b, c}, {0, b, c}}
	faces := [12][3]int{{0, 3, 2}, {0, 2, 1}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4}, {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}}
	var buf bytes.Buffer
	buf.Write(make([]byte, 80))
	binary.Write(&buf, binary.LittleEndian, uint32(len(faces)))
	for _, f := range faces {
		binary.Write(&buf, binary.LittleEndian, [3]float32{})
		for _, i := range f {
			binary.Write(&buf, binary.LittleEndian, v[i])
		}
		binary.Write(&buf, binary.LittleEndian, uint16(0))
	}
	return buf.Bytes()
}

// meshDir is a folder holding box.STL, the box [0, 1] x [0, 2] x [0, 3] (millimetres, say).
func meshDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "box.STL"), boxSTL(1, 2, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMeshOptions: scale, up and place move the model as docs/scripting.md says; the
// solid is the box they predict, at random points.
func TestMeshOptions(t *testing.T) {
	dir := meshDir(t)
	for _, c := range []struct {
		name, opts string
		lo, hi     terrain.Vec3
	}{
		{"none", "", terrain.Vec3{}, terrain.Vec3{X: 1, Y: 2, Z: 3}},
		{"empty table", "{}", terrain.Vec3{}, terrain.Vec3{X: 1, Y: 2, Z: 3}},
		{"scale", "{ scale = 0.001 }", terrain.Vec3{}, terrain.Vec3{X: 0.001, Y: 0.002, Z: 0.003}},
		// up = "y": (x, y, z) -> (x, -z, y).
		{"up y", "{ scale = 0.001, up = 'y' }", terrain.Vec3{Y: -0.003}, terrain.Vec3{X: 0.001, Z: 0.002}},
		{"up z", "{ scale = 0.001, up = 'z', place = 'none' }", terrain.Vec3{}, terrain.Vec3{X: 0.001, Y: 0.002, Z: 0.003}},
		{"floor", "{ scale = 0.001, up = 'y', place = 'floor' }", terrain.Vec3{Y: -0.003}, terrain.Vec3{X: 0.001, Z: 0.002}},
		{"floor at", "{ scale = 0.001, up = 'y', place = 'floor', at = {0.005, 0.006} }",
			terrain.Vec3{X: 0.0045, Y: 0.0045}, terrain.Vec3{X: 0.0055, Y: 0.0075, Z: 0.002}},
		// at without place = "floor" centres horizontally and keeps z.
		{"at only", "{ scale = 0.001, at = {0.005, 0.005} }", terrain.Vec3{X: 0.0045, Y: 0.004}, terrain.Vec3{X: 0.0055, Y: 0.006, Z: 0.003}},
	} {
		t.Run(c.name, func(t *testing.T) {
			arg := ""
			if c.opts != "" {
				arg = ", " + c.opts
			}
			// vp.sim comes after vp.mesh: the domain checks are skipped (the box in
			// file units is larger than the domain).
			log := &printLog{}
			s := mustLoad(t, filepath.Join(dir, "mesh.lua"), "M = vp.mesh('box.STL'"+arg+")\n"+small, opts(log))
			got := globalSolid(t, s, "M")
			want, err := terrain.Box(c.lo, c.hi)
			if err != nil {
				t.Fatal(err)
			}
			size := c.hi.Sub(c.lo).Len()
			rng := rand.New(rand.NewPCG(9, 10))
			for range 300 {
				p := terrain.Vec3{X: rng.Float64(), Y: rng.Float64(), Z: rng.Float64()}.Scale(2 * size).Add(c.lo).Sub(terrain.Vec3{X: size / 2, Y: size / 2, Z: size / 2})
				g, w := got.Dist(p), want.Dist(p)
				// A mesh reports its distance exactly up to 1/32 of its diagonal.
				if reach := size / 32; math.Abs(w) > reach {
					w = math.Copysign(reach, w)
				}
				if math.Abs(g-w) > 1e-9*size {
					t.Fatalf("Dist%v = %g, the box [%v, %v] gives %g", p, g, c.lo, c.hi, w)
				}
			}
			if strings.Contains(log.text(), "warning") {
				t.Errorf("unexpected warning: %s", log.text())
			}
		})
	}
}

// TestMeshOptionErrors: every option is checked, and the error names it.
func TestMeshOptionErrors(t *testing.T) {
	dir := meshDir(t)
	for _, c := range []struct{ name, call, want string }{
		{"unknown key", "vp.mesh('box.STL', { scael = 2 })", `vp.mesh: unknown field "scael" (did you mean scale?): allowed fields are scale, up, place, at`},
		{"positional", "vp.mesh('box.STL', { 0.001 })", "vp.mesh: unexpected value [1] = 0.001: fields are named"},
		{"not a table", "vp.mesh('box.STL', 0.001)", "vp.mesh: want a table {scale = s"},
		{"three arguments", "vp.mesh('box.STL', {}, {})", "vp.mesh: takes a path and an options table, got 3 arguments"},
		{"scale zero", "vp.mesh('box.STL', { scale = 0 })", "vp.mesh: scale is 0: it must be > 0"},
		{"scale negative", "vp.mesh('box.STL', { scale = -1 })", "vp.mesh: scale is -1: it must be > 0"},
		{"scale nan", "vp.mesh('box.STL', { scale = 0/0 })", "vp.mesh: scale is nan: it must be a finite number"},
		{"scale inf", "vp.mesh('box.STL', { scale = 1/0 })", "vp.mesh: scale is inf: it must be a finite number"},
		{"scale string", "vp.mesh('box.STL', { scale = 'mm' })", "vp.mesh: scale is a string, want a number"},
		{"up x", "vp.mesh('box.STL', { up = 'x' })", `vp.mesh: up is "x": want "z", "y"`},
		{"up number", "vp.mesh('box.STL', { up = 1 })", `vp.mesh: up is 1: want "z", "y"`},
		{"place", "vp.mesh('box.STL', { place = 'center' })", `vp.mesh: place is "center": want "none", "floor"`},
		{"at length", "vp.mesh('box.STL', { place = 'floor', at = {1, 2, 3} })", "vp.mesh: at has an unexpected entry [3]: want 2 numbers {x, y}"},
		{"at type", "vp.mesh('box.STL', { at = 'middle' })", "vp.mesh: at is a string, want a table of 2 numbers {x, y}"},
		{"at nan", "vp.mesh('box.STL', { at = {0/0, 0} })", "vp.mesh: at[1] is nan: it must be a finite number"},
		{"vanishing", "vp.mesh('box.STL', { scale = 1e-4 })",
			"vp.mesh: box.STL with scale = 0.0001 is 0.0003 m across, less than the cell size dx = 0.001 m: it would vanish"},
		{"overflow", "vp.mesh('box.STL', { scale = 1e308 })", "vp.mesh: scale = 1e+308 makes the coordinates of box.STL overflow"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, "case.lua")
			_, err := LoadSource(file, []byte(small+"local m = "+c.call+"\n"), opts(nil))
			wantError(t, err, file, 2, c.want)
		})
	}
}

// TestMeshWarnings: a placed model reaching out of the domain, and an unplaced one larger
// than the domain, are warnings naming both boxes; a model inside is not.
func TestMeshWarnings(t *testing.T) {
	dir := meshDir(t)
	for _, c := range []struct{ name, call, want string }{
		{"inside", "vp.mesh('box.STL', { scale = 0.001, place = 'floor', at = {0.005, 0.005} })", ""},
		{"unplaced, small", "vp.mesh('box.STL', { scale = 0.001 }):translate{0.004, 0.004, 0}", ""},
		{"placed outside", "vp.mesh('box.STL', { scale = 0.001, place = 'floor', at = {0.0098, 0.005} })",
			"warning: " + filepath.Join(dir, "case.lua") + ":2: vp.mesh: box.STL placed is [0.0093, 0.0103] x [0.004, 0.006] x [0, 0.003] m, (partly) outside the domain [0, 0.01] x [0, 0.01] x [0, 0.01] m"},
		{"too large", "vp.mesh('box.STL', { scale = 0.004 })",
			"vp.mesh: box.STL is [0, 0.004] x [0, 0.008] x [0, 0.012] m, larger than the domain [0, 0.01] x [0, 0.01] x [0, 0.01] m (is scale right"},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := &printLog{}
			mustLoad(t, filepath.Join(dir, "case.lua"), small+"local m = "+c.call+"\n", opts(log))
			out := log.text()
			if c.want == "" && strings.Contains(out, "warning") {
				t.Errorf("unexpected warning: %s", out)
			}
			if c.want != "" && !strings.Contains(out, c.want) {
				t.Errorf("printed %q, want %q", out, c.want)
			}
		})
	}
}
