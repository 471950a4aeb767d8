// Package fileout writes the files vpbench makes (meshes, pictures, reports) so that a
// failed write never leaves a truncated file in place of a good one: the content goes to
// a temporary file in the same folder, which replaces the target only once it is
// complete. Missing folders are made.
package fileout

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces the file at path with what write writes.
func Write(path string, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return named("create", path, err) // not the temporary name the user never gave
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return named("replace", path, err)
	}
	return nil
}

// named is err about path, with the cause err carries.
func named(op, path string, err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &os.PathError{Op: op, Path: path, Err: err}
}
