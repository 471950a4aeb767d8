package engine

import (
	"time"

	"github.com/vpbench/vpbench/internal/filestamp"
)

// watchInterval is how often the scenario file is checked for changes (Config.Watch).
const watchInterval = 300 * time.Millisecond

// scriptWatcher tells when the scenario's file has changed since it was last loaded
// (Config.Watch: reload on save). It polls the file's stamp at most every interval,
// rather than asking the OS, so an editor that replaces the file on save is seen like
// one that rewrites it. A watcher of no file (Watch off, or the built-in demo) never says
// anything.
type scriptWatcher struct {
	path     string // "": none
	interval time.Duration
	stamp    filestamp.Stamp // the file as it was loaded
	next     time.Time       // when the file is checked next
	lastErr  string          // the error last reported, so that it is reported once
}

// newScriptWatcher watches path ("" for none) every interval.
func newScriptWatcher(path string, interval time.Duration) scriptWatcher {
	return scriptWatcher{path: path, interval: interval}
}

// loaded takes the stamp of the file being loaded now: the next change is a change from
// this version, whether or not it loads. A file that cannot be read keeps the old stamp.
func (w *scriptWatcher) loaded(now time.Time) {
	if w.path == "" {
		return
	}
	if st, err := filestamp.Of(w.path); err == nil {
		w.stamp = st
	}
	w.next = now.Add(w.interval)
}

// poll checks the file if a check is due at now. It reports whether the file has changed
// since loaded, and an error that stops the check when it differs from the last one
// reported (nil otherwise): a file being saved, or deleted, is no change, and its error
// is told once.
func (w *scriptWatcher) poll(now time.Time) (changed bool, err error) {
	if w.path == "" || now.Before(w.next) {
		return false, nil
	}
	w.next = now.Add(w.interval)
	st, err := filestamp.Of(w.path)
	if err != nil {
		if msg := err.Error(); msg != w.lastErr {
			w.lastErr = msg
			return false, err
		}
		return false, nil
	}
	w.lastErr = ""
	return st != w.stamp, nil
}

// wait is how long an idle runner may sleep at now before the next check (0: forever,
// nothing is watched).
func (w *scriptWatcher) wait(now time.Time) time.Duration {
	if w.path == "" {
		return 0
	}
	return max(w.next.Sub(now), time.Millisecond)
}
