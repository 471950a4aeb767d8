package meshio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Read reads back a mesh this package wrote (OBJ, or PLY ASCII or binary, with the
// properties Write writes): tests and tools check exports with it. It is not a general
// reader: other property layouts are refused.
func Read(r io.Reader) (*Mesh, Format, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(4)
	if err != nil {
		return nil, OBJ, fmt.Errorf("meshio: %w", err)
	}
	if string(head) == "ply\n" {
		return readPLY(br)
	}
	m, err := readOBJ(br)
	return m, OBJ, err
}

// ReadFile is Read of the file at path.
func ReadFile(path string) (*Mesh, Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, OBJ, err
	}
	defer f.Close()
	return Read(f)
}

func readOBJ(br *bufio.Reader) (*Mesh, error) {
	m := &Mesh{}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || fs[0] == "#" {
			continue
		}
		switch fs[0] {
		case "v", "vn":
			if len(fs) != 4 {
				return nil, fmt.Errorf("meshio: OBJ line %q", sc.Text())
			}
			for _, s := range fs[1:] {
				x, err := strconv.ParseFloat(s, 32)
				if err != nil {
					return nil, fmt.Errorf("meshio: OBJ: %w", err)
				}
				if fs[0] == "v" {
					m.Positions = append(m.Positions, float32(x))
				} else {
					m.Normals = append(m.Normals, float32(x))
				}
			}
		case "f":
			if len(fs) != 4 {
				return nil, fmt.Errorf("meshio: OBJ face %q is not a triangle", sc.Text())
			}
			for _, s := range fs[1:] {
				i, err := strconv.ParseUint(strings.SplitN(s, "/", 2)[0], 10, 32)
				if err != nil || i == 0 {
					return nil, fmt.Errorf("meshio: OBJ face %q", sc.Text())
				}
				m.Indices = append(m.Indices, uint32(i-1))
			}
		}
	}
	return m, sc.Err()
}

func readPLY(br *bufio.Reader) (*Mesh, Format, error) {
	var nv, nf int
	var props []string
	f := PLYASCII
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, f, fmt.Errorf("meshio: PLY header: %w", err)
		}
		fs := strings.Fields(line)
		switch {
		case len(fs) == 0:
		case fs[0] == "end_header":
			return readPLYBody(br, f, nv, nf, props)
		case fs[0] == "format" && len(fs) == 3:
			switch fs[1] {
			case "ascii":
			case "binary_little_endian":
				f = PLY
			default:
				return nil, f, fmt.Errorf("meshio: PLY format %q", fs[1])
			}
		case fs[0] == "element" && len(fs) == 3:
			n, err := strconv.Atoi(fs[2])
			if err != nil || n < 0 {
				return nil, f, fmt.Errorf("meshio: PLY %q", strings.TrimSpace(line))
			}
			if fs[1] == "vertex" {
				nv = n
			} else {
				nf = n
			}
		case fs[0] == "property" && len(fs) == 3 && fs[1] == "float":
			props = append(props, fs[2])
		case fs[0] == "property" && strings.Join(fs, " ") == "property list uchar uint vertex_indices":
		case fs[0] == "property":
			return nil, f, fmt.Errorf("meshio: PLY %q is not a property this package writes", strings.TrimSpace(line))
		}
	}
}

func readPLYBody(br *bufio.Reader, f Format, nv, nf int, props []string) (*Mesh, Format, error) {
	want := "x y z nx ny nz"
	if got := strings.Join(props, " "); got != want && got != want+" alpha" {
		return nil, f, fmt.Errorf("meshio: PLY vertex properties %q", got)
	}
	m := &Mesh{Positions: make([]float32, 0, 3*nv), Normals: make([]float32, 0, 3*nv), Indices: make([]uint32, 0, 3*nf)}
	if len(props) == 7 {
		m.Alpha = make([]float32, 0, nv)
	}
	var words *bufio.Scanner
	if f == PLYASCII {
		words = bufio.NewScanner(br)
		words.Split(bufio.ScanWords)
	}
	var b4 [4]byte
	float := func() (float32, error) {
		if words != nil {
			if !words.Scan() {
				return 0, io.ErrUnexpectedEOF
			}
			x, err := strconv.ParseFloat(words.Text(), 32)
			return float32(x), err
		}
		if _, err := io.ReadFull(br, b4[:]); err != nil {
			return 0, err
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b4[:])), nil
	}
	uint := func(size int) (uint32, error) {
		if words != nil {
			if !words.Scan() {
				return 0, io.ErrUnexpectedEOF
			}
			x, err := strconv.ParseUint(words.Text(), 10, 32)
			return uint32(x), err
		}
		if _, err := io.ReadFull(br, b4[:size]); err != nil {
			return 0, err
		}
		if size == 1 {
			return uint32(b4[0]), nil
		}
		return binary.LittleEndian.Uint32(b4[:]), nil
	}
	for range nv {
		for k := range props {
			x, err := float()
			if err != nil {
				return nil, f, fmt.Errorf("meshio: PLY vertex: %w", err)
			}
			switch {
			case k < 3:
				m.Positions = append(m.Positions, x)
			case k < 6:
				m.Normals = append(m.Normals, x)
			default:
				m.Alpha = append(m.Alpha, x)
			}
		}
	}
	for range nf {
		n, err := uint(1)
		if err != nil || n != 3 {
			return nil, f, fmt.Errorf("meshio: PLY face of %d corners (%v)", n, err)
		}
		for range 3 {
			i, err := uint(4)
			if err != nil {
				return nil, f, fmt.Errorf("meshio: PLY face: %w", err)
			}
			m.Indices = append(m.Indices, i)
		}
	}
	if words != nil && words.Scan() {
		return nil, f, fmt.Errorf("meshio: PLY: data after the last face")
	}
	if words == nil {
		if _, err := br.ReadByte(); err != io.EOF {
			return nil, f, fmt.Errorf("meshio: PLY: data after the last face")
		}
	}
	return m, f, nil
}
