package terrain

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
)

// ReadModel reads a triangle mesh of size bytes from r as a Model, by name's ending as
// LoadModel does: STL for .stl (any case), Wavefront OBJ otherwise. name labels errors.
func ReadModel(r io.Reader, size int64, name string) (*Model, error) {
	if strings.EqualFold(filepath.Ext(name), ".stl") {
		return ReadSTL(r, size, name)
	}
	return ReadOBJ(r, name)
}

// LoadModelFS is LoadModel for a file of fsys (an embedded scenario library, say).
func LoadModelFS(fsys fs.FS, path string) (*Model, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, fmt.Errorf("terrain: %w", err)
	}
	defer f.Close()
	return readModelFile(f, path)
}

// readModelFile reads the open file f (named name) by its ending, as ReadModel does.
func readModelFile(f fs.File, name string) (*Model, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("terrain: %w", err)
	}
	return ReadModel(f, st.Size(), name)
}
