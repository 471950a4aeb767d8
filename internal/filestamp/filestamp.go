// Package filestamp tells one version of a file from the next, for reloading a scenario
// when its file changes. It polls: no OS watcher is needed, and an editor that replaces
// the file on save is seen like one that rewrites it.
package filestamp

import (
	"context"
	"errors"
	"os"
	"time"
)

// Stamp is what tells one version of a file from the next: its modification time and size.
type Stamp struct {
	mod  time.Time
	size int64
}

// Of returns the stamp of the file at path; a folder is an error.
func Of(path string) (Stamp, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	if st.IsDir() {
		return Stamp{}, errors.New(path + " is a folder, not a script")
	}
	return Stamp{st.ModTime(), st.Size()}, nil
}

// WaitForChange polls path every interval until its stamp differs from s (true) or ctx
// ends (false). A file that cannot be read (being saved, say) is not a change.
func WaitForChange(ctx context.Context, path string, s Stamp, interval time.Duration) bool {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			if now, err := Of(path); err == nil && now != s {
				return true
			}
		}
	}
}
