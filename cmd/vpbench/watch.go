package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/vpbench/vpbench/internal/filestamp"
)

// watchInterval is how often the scenario file is checked for changes.
const watchInterval = 300 * time.Millisecond

// watchScenario runs a scenario and starts it again from the new script whenever its file
// changes. A script error is reported and the last report stays on screen until the file
// is fixed; Ctrl-C ends it.
func watchScenario(ctx context.Context, path string, o runOptions, stdout, stderr io.Writer) error {
	for {
		stamp, err := filestamp.Of(path)
		if err != nil {
			return usagef("%v", err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		changed := make(chan struct{})
		go func() {
			if filestamp.WaitForChange(runCtx, path, stamp, watchInterval) {
				close(changed)
				cancel()
			}
		}()
		err = runScenario(runCtx, path, o, stdout, stderr)
		o.ckpt.resume = "" // a reload starts afresh (docs/checkpoints.md)
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
