package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The watcher on a real file and a synthetic clock: it checks the file only when a check
// is due, so these tests say when.

func TestScriptWatcherSeesASave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.lua")
	writeFile(t, path, "a = 1\n")
	w := newScriptWatcher(path, time.Second)
	t0 := time.Unix(1000, 0)
	w.loaded(t0)
	if changed, err := w.poll(t0.Add(time.Second)); changed || err != nil {
		t.Fatalf("an unchanged file: changed %v, err %v", changed, err)
	}
	// A new size makes a new stamp even where the file system's clock is coarse.
	writeFile(t, path, "a = 22\n")
	if changed, _ := w.poll(t0.Add(1500 * time.Millisecond)); changed {
		t.Error("checked the file before the interval since the last check had passed")
	}
	if changed, err := w.poll(t0.Add(2 * time.Second)); !changed || err != nil {
		t.Errorf("a saved file: changed %v, err %v; want a change", changed, err)
	}
	if changed, _ := w.poll(t0.Add(3 * time.Second)); !changed {
		t.Error("the change is forgotten before the file is loaded again")
	}
	w.loaded(t0.Add(3 * time.Second))
	if changed, _ := w.poll(t0.Add(4 * time.Second)); changed {
		t.Error("the version just loaded counts as a change")
	}
}

func TestScriptWatcherTellsEachErrorOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.lua")
	writeFile(t, path, "a = 1\n")
	w := newScriptWatcher(path, time.Second)
	now := time.Unix(1000, 0)
	w.loaded(now)
	poll := func() (bool, error) {
		now = now.Add(time.Second)
		return w.poll(now)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if changed, err := poll(); changed || err == nil {
		t.Fatalf("a deleted file: changed %v, err %v; want no change and its error", changed, err)
	}
	if changed, err := poll(); changed || err != nil {
		t.Errorf("the same error again: changed %v, err %v; want it told once", changed, err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := poll(); err == nil {
		t.Error("a folder where the file was: a new error, not told")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := poll(); err == nil {
		t.Error("the folder gone: the file's absence again, not told")
	}
	writeFile(t, path, "a = 333\n")
	if changed, err := poll(); !changed || err != nil {
		t.Errorf("the file is back, changed: changed %v, err %v", changed, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := poll(); err == nil {
		t.Error("deleted again after a good check: the error is not told again")
	}
}

func TestScriptWatcherWait(t *testing.T) {
	w := newScriptWatcher("", time.Second)
	t0 := time.Unix(1000, 0)
	w.loaded(t0)
	if d := w.wait(t0); d != 0 {
		t.Errorf("no file watched: an idle runner waits %v, want 0 (until a command)", d)
	}
	if changed, err := w.poll(t0.Add(time.Hour)); changed || err != nil {
		t.Errorf("no file watched: changed %v, err %v", changed, err)
	}
	path := filepath.Join(t.TempDir(), "s.lua")
	writeFile(t, path, "a = 1\n")
	w = newScriptWatcher(path, 300*time.Millisecond)
	w.loaded(t0)
	if d := w.wait(t0.Add(100 * time.Millisecond)); d != 200*time.Millisecond {
		t.Errorf("100 ms after the load: wait %v, want 200ms", d)
	}
	if d := w.wait(t0.Add(time.Second)); d != time.Millisecond {
		t.Errorf("a check overdue: wait %v, want 1ms", d)
	}
}
