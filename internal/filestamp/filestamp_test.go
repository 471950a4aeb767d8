package filestamp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestStampChangesWithTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.lua")
	if err := os.WriteFile(path, []byte("a = 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Of(path)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Of(path); again != s {
		t.Fatal("the stamp of an unchanged file changed")
	}
	done := make(chan bool)
	go func() { done <- WaitForChange(context.Background(), path, s, 5*time.Millisecond) }()
	if err := os.WriteFile(path, []byte("a = 22"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case changed := <-done:
		if !changed {
			t.Fatal("WaitForChange returned false for a changed file")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WaitForChange did not see the change")
	}
}

func TestWaitForChangeEndsWithTheContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.lua")
	if err := os.WriteFile(path, []byte("a = 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := Of(path)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if WaitForChange(ctx, path, s, 5*time.Millisecond) {
		t.Fatal("WaitForChange reported a change of an unchanged file")
	}
}

func TestFolderAndMissingFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Of(dir); err == nil {
		t.Error("a folder gave no error")
	}
	if _, err := Of(filepath.Join(dir, "missing.lua")); err == nil {
		t.Error("a missing file gave no error")
	}
}
