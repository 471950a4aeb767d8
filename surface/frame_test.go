package surface

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestBuildDoesNotAllocateOnceWarm(t *testing.T) {
	c, tm, h := layersScene(t, 40, mm, 3)
	cam := [3]float64{0.02, -0.05, 0.05}
	s := DefaultSettings()
	s.Camera = &cam
	b := newBuilder(t, c, tm, s)
	// Alternate two states so that buffers must hold the larger one.
	h2 := slices.Clone(h)
	for i := range h2 {
		if i%7 == 0 {
			h2[i] = c.Base[i]
		}
	}
	b.Build(h)
	b.Build(h2)
	k := 0
	if a := testing.AllocsPerRun(20, func() {
		if k++; k%2 == 0 {
			b.Build(h)
		} else {
			b.Build(h2)
		}
	}); a != 0 {
		t.Fatalf("Build allocates %g times per frame once warm", a)
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	c, tm, h := layersScene(t, 40, mm, 3)
	b1 := newBuilder(t, c, tm, DefaultSettings())
	b2 := newBuilder(t, c, tm, DefaultSettings())
	var w1, w2 bytes.Buffer
	m := b1.Build(h)
	if err := m.WritePLY(&w1); err != nil {
		t.Fatal(err)
	}
	b2.Build(make([]float32, len(h))) // a different frame first: state must not leak
	if err := b2.Build(h).WritePLY(&w2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
		t.Fatal("two builders give different meshes for the same heights")
	}
}

func TestBuildRejectsWrongLength(t *testing.T) {
	c := grid(t, 2, 1, floor(1), floor(1))
	b := newBuilder(t, c, nil, DefaultSettings())
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a short height slice")
		}
	}()
	b.Build(make([]float32, 1))
}

func TestSettingsValidate(t *testing.T) {
	bad := []func(*Settings){
		func(s *Settings) { s.DepthMax = 0 },
		func(s *Settings) { s.DepthMax = math.NaN() },
		func(s *Settings) { s.MeniscusLength = -1 },
		func(s *Settings) { s.ContactAngle = 4 },
		func(s *Settings) { s.Camera = &[3]float64{0, math.Inf(1), 0} },
	}
	for k, f := range bad {
		s := DefaultSettings()
		f(&s)
		if s.Validate() == nil {
			t.Errorf("case %d: %+v accepted", k, s)
		}
	}
	if err := DefaultSettings().Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestWriters writes OBJ and PLY and parses them back: the counts and values match.
func TestWriters(t *testing.T) {
	c, tm, h := bowlScene(t, 20, mm)
	b := newBuilder(t, c, tm, DefaultSettings())
	m := b.Build(h)
	if m.NumTriangles() == 0 {
		t.Fatal("empty mesh")
	}

	var obj bytes.Buffer
	if err := m.WriteOBJ(&obj); err != nil {
		t.Fatal(err)
	}
	var nv, nn, nf int
	sc := bufio.NewScanner(&obj)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] == "#" {
			continue
		}
		switch f[0] {
		case "v", "vn":
			var x, y, z float32
			if _, err := fmt.Sscan(strings.Join(f[1:], " "), &x, &y, &z); err != nil || len(f) != 4 {
				t.Fatalf("bad line %q", sc.Text())
			}
			if f[0] == "v" {
				if x != m.Positions[3*nv] || z != m.Positions[3*nv+2] {
					t.Fatalf("vertex %d reads back as %g %g %g", nv, x, y, z)
				}
				nv++
			} else {
				nn++
			}
		case "f":
			for _, g := range f[1:] {
				var a, bb int
				if _, err := fmt.Sscanf(g, "%d//%d", &a, &bb); err != nil || a != bb || a < 1 || a > m.NumVertices() {
					t.Fatalf("bad face %q", sc.Text())
				}
			}
			if uint32(mustAtoi(t, strings.Split(f[1], "/")[0])-1) != m.Indices[3*nf] {
				t.Fatalf("face %d reads back wrong", nf)
			}
			nf++
		default:
			t.Fatalf("unexpected OBJ line %q", sc.Text())
		}
	}
	if nv != m.NumVertices() || nn != nv || nf != m.NumTriangles() {
		t.Fatalf("OBJ: %d v, %d vn, %d f; want %d, %d, %d", nv, nn, nf, m.NumVertices(), m.NumVertices(), m.NumTriangles())
	}

	var ply bytes.Buffer
	if err := m.WritePLY(&ply); err != nil {
		t.Fatal(err)
	}
	sc = bufio.NewScanner(&ply)
	var props []string
	var ev, ef int
	for sc.Scan() {
		l := sc.Text()
		if l == "end_header" {
			break
		}
		f := strings.Fields(l)
		switch {
		case len(f) == 3 && f[0] == "element" && f[1] == "vertex":
			ev = mustAtoi(t, f[2])
		case len(f) == 3 && f[0] == "element" && f[1] == "face":
			ef = mustAtoi(t, f[2])
		case len(f) == 3 && f[0] == "property":
			props = append(props, f[2])
		}
	}
	if want := []string{"x", "y", "z", "nx", "ny", "nz", "alpha"}; !slices.Equal(props, want) {
		t.Fatalf("PLY vertex properties %v, want %v", props, want)
	}
	if ev != m.NumVertices() || ef != m.NumTriangles() {
		t.Fatalf("PLY header: %d vertices, %d faces", ev, ef)
	}
	for v := range ev {
		if !sc.Scan() {
			t.Fatal("PLY: vertices cut short")
		}
		var p [7]float32
		if _, err := fmt.Sscan(sc.Text(), &p[0], &p[1], &p[2], &p[3], &p[4], &p[5], &p[6]); err != nil {
			t.Fatalf("PLY vertex %d: %q: %v", v, sc.Text(), err)
		}
		if p[2] != m.Positions[3*v+2] || p[5] != m.Normals[3*v+2] || p[6] != m.Opacity[v] {
			t.Fatalf("PLY vertex %d reads back as %v", v, p)
		}
	}
	for f := range ef {
		if !sc.Scan() {
			t.Fatal("PLY: faces cut short")
		}
		var n int
		var a, bb, cc uint32
		if _, err := fmt.Sscan(sc.Text(), &n, &a, &bb, &cc); err != nil || n != 3 || a != m.Indices[3*f] || cc != m.Indices[3*f+2] {
			t.Fatalf("PLY face %d: %q", f, sc.Text())
		}
	}
	if sc.Scan() {
		t.Fatalf("PLY: trailing %q", sc.Text())
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// TestWorkersDoNotChangeTheResult builds the same frames serially and split over 3
// goroutines (every phase split, however small): the meshes are identical.
func TestWorkersDoNotChangeTheResult(t *testing.T) {
	c, tm, h := layersScene(t, 40, mm, 3)
	cam := [3]float64{0.02, -0.05, 0.05}
	s := DefaultSettings()
	s.Camera = &cam
	b1, err := newBuilderWorkers(c, tm, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	b3, err := newBuilderWorkers(c, tm, s, 3)
	if err != nil {
		t.Fatal(err)
	}
	b3.pool.force = true
	h2 := slices.Clone(h)
	for i := range h2 {
		if i%5 == 0 {
			h2[i] = c.Base[i]
		}
	}
	for _, hh := range [][]float32{h, h2, h} {
		var w1, w3 bytes.Buffer
		if err := b1.Build(hh).WritePLY(&w1); err != nil {
			t.Fatal(err)
		}
		if err := b3.Build(hh).WritePLY(&w3); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w1.Bytes(), w3.Bytes()) {
			t.Fatal("1 and 3 workers give different meshes")
		}
	}
}
