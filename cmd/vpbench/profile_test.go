package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProfileWrittenWhole: --cpuprofile's file appears under its name only once the
// profile is complete; while it runs, only a temporary file beside it exists.
func TestProfileWrittenWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	stop, err := startProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the profile exists under its name while it is written: %v", err)
	}
	stop()
	st, err := os.Stat(path)
	if err != nil || st.Size() == 0 {
		t.Fatalf("after stop: %v, %v", st, err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
