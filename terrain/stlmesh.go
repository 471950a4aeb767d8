package terrain

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LoadModel reads a triangle mesh file as a Model: STL when the name ends in .stl (any
// case), Wavefront OBJ otherwise. Errors name the path.
func LoadModel(path string) (*Model, error) {
	if strings.EqualFold(filepath.Ext(path), ".stl") {
		return loadSTL(path)
	}
	return loadOBJ(path)
}

// LoadSTL reads a triangle mesh from an STL file as a solid; see ReadSTL and
// ParseOBJ.
func LoadSTL(path string) (Solid, error) {
	m, err := loadSTL(path)
	if err != nil {
		return nil, err
	}
	return m.Solid()
}

func loadSTL(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("terrain: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("terrain: %w", err)
	}
	return ReadSTL(f, st.Size(), path) // STL whatever the name (LoadSTL)
}

// stlBytesPerTriangle is what reading and building a solid of one STL triangle may take
// at the peak, in bytes (three vertices, their merge map and edge map, the BVH, the
// triangles copied in BVH order): what is checked against the available memory before
// a binary STL's triangles are allocated.
const stlBytesPerTriangle = 640

// stlMaxTriangles keeps vertex indices (three a triangle) within int32.
const stlMaxTriangles = math.MaxInt32 / 3

// ReadSTL reads an STL file of size bytes, binary or ASCII, as a Model; name labels
// errors. Coordinates are taken as they are (STL has no unit; scale the Model or the
// solid to metres).
//
// The format is told the standard way: a file of exactly 84 + 50 n bytes, where n is the
// triangle count at bytes 80-83, is binary (even when its header begins with "solid", as
// many exporters write); otherwise a file beginning with "solid" is ASCII, and anything
// else is a binary file whose size disagrees with its count, an error. Binary errors
// name the triangle (counting from 1), ASCII errors the line. Errors: a truncated file,
// a count that disagrees with the size, a NaN or infinite coordinate, no triangles, a
// count whose model would not fit in the available memory (checked before allocating);
// in ASCII also a statement out of place ("vertex" outside "outer loop", a facet with
// fewer than 3 vertices, ...). Facet normals are ignored: inside and outside come from
// the geometry, as for OBJ. ASCII facets with more than 3 vertices are triangulated as
// fans. Model.Solid then checks the geometry (not all degenerate, enclosing something).
func ReadSTL(r io.Reader, size int64, name string) (*Model, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(84)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(head) == 84 {
		n := int64(binary.LittleEndian.Uint32(head[80:84]))
		if 84+50*n == size {
			return readBinarySTL(br, n, name)
		}
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) >= 5 && strings.EqualFold(string(trimmed[:5]), "solid") && !looksBinary(br) {
		return readASCIISTL(br, name)
	}
	switch {
	case size == 0:
		return nil, fmt.Errorf("%s: the file is empty: no triangles", name)
	case len(head) < 84 || size < 84:
		return nil, fmt.Errorf("%s: truncated: %d bytes, a binary STL has at least 84 (an 80-byte header and the triangle count) and an ASCII one begins with \"solid\"", name, size)
	}
	n := int64(binary.LittleEndian.Uint32(head[80:84]))
	return nil, fmt.Errorf("%s: binary STL with %d triangles should have 84 + 50 x %d = %d bytes, the file has %d (truncated, or not an STL file)", name, n, n, 84+50*n, size)
}

// looksBinary reports whether the first bytes of a file that begins with "solid" hold
// bytes no ASCII STL has (NUL and other control characters): a binary STL whose size
// disagrees with its count is reported as such, not as a syntax error on line 1.
func looksBinary(br *bufio.Reader) bool {
	b, _ := br.Peek(512)
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' {
			return true
		}
	}
	return false
}

func readBinarySTL(r io.Reader, n int64, name string) (*Model, error) {
	if n == 0 {
		return nil, fmt.Errorf("%s: the binary STL has 0 triangles", name)
	}
	if n > stlMaxTriangles {
		return nil, fmt.Errorf("%s: the binary STL has %d triangles, at most %d are supported", name, n, stlMaxTriangles)
	}
	if err := checkBytes(fmt.Sprintf("%s: a model of %d triangles", name, n), uint64(n)*stlBytesPerTriangle); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(r, make([]byte, 84)); err != nil {
		return nil, fmt.Errorf("%s: truncated in the header: %w", name, err)
	}
	m := &Model{Name: name, Verts: make([]Vec3, 0, 3*n), Tris: make([][3]int32, 0, n), src: make([]int32, 0, n), byIndex: true}
	var rec [50]byte
	for t := int64(0); t < n; t++ {
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			return nil, fmt.Errorf("%s: triangle %d: truncated (the file ends within the %d triangles it declares)", name, t+1, n)
		}
		k := int32(len(m.Verts))
		for v := 0; v < 3; v++ {
			var c [3]float64
			for i := range c {
				c[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(rec[12+12*v+4*i:])))
				if !finite(c[i]) {
					return nil, fmt.Errorf("%s: triangle %d: vertex %d coordinate %c is %g: it must be a finite number", name, t+1, v+1, "xyz"[i], c[i])
				}
			}
			m.Verts = append(m.Verts, Vec3{c[0], c[1], c[2]})
		}
		m.Tris = append(m.Tris, [3]int32{k, k + 1, k + 2})
		m.src = append(m.src, int32(t+1))
	}
	return m, nil
}

// readASCIISTL parses
//
//	solid name
//	  facet normal nx ny nz
//	    outer loop
//	      vertex x y z   (three or more)
//	    endloop
//	  endfacet
//	endsolid name
//
// with several solids one after another allowed; keywords in any case.
func readASCIISTL(r io.Reader, name string) (*Model, error) {
	const (
		top      = iota // between solids
		inSolid         // after solid or endfacet
		inFacet         // after facet
		inLoop          // after outer loop
		loopDone        // after endloop
	)
	m := &Model{Name: name}
	state := top
	var loop []int32 // the current loop's vertex indices
	facetLine, solidLine := 0, 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	ln := 0
	fail := func(format string, a ...any) (*Model, error) {
		return nil, fmt.Errorf("%s:%d: %s", name, ln, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		ln++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		kw := strings.ToLower(f[0])
		switch {
		case kw == "solid" && state == top:
			state, solidLine = inSolid, ln
		case kw == "endsolid" && state == inSolid:
			state = top
		case kw == "facet" && state == inSolid:
			state, facetLine = inFacet, ln
		case kw == "outer" && state == inFacet:
			if len(f) < 2 || strings.ToLower(f[1]) != "loop" {
				return fail("%q: want \"outer loop\"", sc.Text())
			}
			state, loop = inLoop, loop[:0]
		case kw == "vertex" && state == inLoop:
			if len(f) != 4 {
				return fail("vertex has %d coordinates, want x y z", len(f)-1)
			}
			var c [3]float64
			for i := range c {
				x, err := strconv.ParseFloat(f[1+i], 64)
				if err != nil || !finite(x) {
					return fail("vertex coordinate %q is not a finite number", f[1+i])
				}
				c[i] = x
			}
			if len(m.Verts) >= math.MaxInt32 {
				return fail("more than %d vertices", math.MaxInt32)
			}
			loop = append(loop, int32(len(m.Verts)))
			m.Verts = append(m.Verts, Vec3{c[0], c[1], c[2]})
		case kw == "endloop" && state == inLoop:
			if len(loop) < 3 {
				return fail("the facet of line %d has %d vertices, want at least 3", facetLine, len(loop))
			}
			for i := 1; i+1 < len(loop); i++ {
				m.Tris = append(m.Tris, [3]int32{loop[0], loop[i], loop[i+1]})
				m.src = append(m.src, int32(min(facetLine, math.MaxInt32)))
			}
			state = loopDone
		case kw == "endfacet" && state == loopDone:
			state = inSolid
		default:
			want := map[int]string{top: `"solid"`, inSolid: `"facet" or "endsolid"`, inFacet: `"outer loop"`, inLoop: `"vertex" or "endloop"`, loopDone: `"endfacet"`}[state]
			return fail("unexpected %q: want %s", truncate(f[0], 40), want)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line is longer than %d bytes", name, ln+1, 1<<20)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch state {
	case inFacet, inLoop, loopDone:
		return nil, fmt.Errorf("%s:%d: truncated: the file ends inside the facet of line %d", name, ln, facetLine)
	case inSolid:
		return nil, fmt.Errorf("%s:%d: truncated: the file ends before the \"endsolid\" of the solid of line %d", name, ln, solidLine)
	}
	if len(m.Tris) == 0 {
		return nil, fmt.Errorf("%s: no facets: a solid needs a closed triangle mesh", name)
	}
	return m, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
