package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// watchInterval is how often the scenario file is checked for changes.
const watchInterval = 300 * time.Millisecond

// watchScenario runs a scenario and starts it again from the new script whenever its file
// changes. A script error is reported and the last report stays on screen until the file
// is fixed; Ctrl-C ends it.
func watchScenario(ctx context.Context, path string, o runOptions, stdout, stderr io.Writer) error {
	for {
		stamp, err := fileStamp(path)
		if err != nil {
			return usagef("%v", err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		changed := make(chan struct{})
		go func() {
			if waitForChange(runCtx, path, stamp) {
				close(changed)
				cancel()
			}
		}()
		err = runScenario(runCtx, path, o, stdout, stderr)
		if ctx.Err() != nil {
			cancel()
			return nil
		}
		if err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
		}
		select {
		case <-changed:
		default:
			fmt.Fprintf(stderr, "waiting for %s to change (Ctrl-C quits)\n", path)
			<-runCtx.Done()
			if ctx.Err() != nil {
				cancel()
				return nil
			}
		}
		cancel()
		fmt.Fprintf(stderr, "%s changed: reloading\n", path)
	}
}

// fileStamp is what tells one version of a file from the next.
type stamp struct {
	mod  time.Time
	size int64
}

func fileStamp(path string) (stamp, error) {
	st, err := os.Stat(path)
	if err != nil {
		return stamp{}, err
	}
	return stamp{st.ModTime(), st.Size()}, nil
}

// waitForChange polls path until its stamp differs from s (true) or ctx ends (false).
// Polling needs no OS watcher and survives editors that replace the file on save.
func waitForChange(ctx context.Context, path string, s stamp) bool {
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			if now, err := fileStamp(path); err == nil && now != s {
				return true
			}
		}
	}
}
