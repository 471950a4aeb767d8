package fileout

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteMakesFoldersAndReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "out.txt")
	for _, text := range []string{"first", "second, longer"} {
		if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != text {
			t.Fatalf("read %q, %v; want %q", got, err, text)
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

func TestFailedWriteKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mesh.obj")
	if err := os.WriteFile(path, []byte("good"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "good" {
		t.Errorf("the old file now reads %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files left in the folder, want 1 (no temporary file)", len(entries))
	}
}

func TestWriteIntoAFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(file, "x.png"), func(io.Writer) error { return nil }); err == nil {
		t.Error("writing below a plain file gave no error")
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(ro, "view.png")
	err := Write(target, func(io.Writer) error { return nil })
	if os.Geteuid() != 0 { // root writes anywhere
		if err == nil || !strings.Contains(err.Error(), target) || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("read-only folder: %v, want an error naming %s", err, target)
		}
	}
}

func TestErrorsNameTheTarget(t *testing.T) {
	cause := &os.PathError{Op: "open", Path: "/d/.view.png.123.tmp", Err: os.ErrPermission}
	err := named("create", "/d/view.png", cause)
	if got := err.Error(); got != "create /d/view.png: permission denied" {
		t.Errorf("got %q", got)
	}
	if !errors.Is(err, os.ErrPermission) {
		t.Error("the cause is lost")
	}
	link := &os.LinkError{Op: "rename", Old: "/d/.x.tmp", New: "/d/x", Err: os.ErrExist}
	if got := named("replace", "/d/x", link).Error(); got != "replace /d/x: file already exists" {
		t.Errorf("got %q", got)
	}
}
