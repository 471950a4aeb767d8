package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// startProfile starts a CPU profile into path ("" : none) for `go tool pprof`; stop ends
// it and closes the file. The profile is written to a temporary name beside path and
// renamed when it is complete, as every file vpbench writes (internal/fileout): a run
// that dies leaves no half profile under the real name.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, usagef("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			os.Remove(f.Name())
			fmt.Fprintf(os.Stderr, "vpbench: --cpuprofile %s: %v\n", path, err)
			return
		}
		if err := os.Rename(f.Name(), path); err != nil {
			os.Remove(f.Name())
			fmt.Fprintf(os.Stderr, "vpbench: --cpuprofile %s: %v\n", path, err)
		}
	}, nil
}
