// Command argsgen writes the Go twins of the CUDA kernels' argument blocks from the C
// header that declares them (gpusim/kernels/vp_args.h), so that the two cannot drift
// apart: args_gen.go (a Go struct per C struct, field for field, with the header's
// comments, and kernels.ArgLayouts, the table of their C offsets) and vp_args_layout.h (the
// same table from the C compiler, for the host tests to compare).
//
// It runs from gpusim/kernels/kernels.go's go:generate line:
//
//	go generate ./gpusim/kernels/
//
// With -check it writes nothing and fails when a generated file differs from what it
// would write (make generate-check; its test does the same).
//
// Go names: a C field's name with its first letter upper-cased (dtOverDx2d: DtOverDx2d),
// a struct VPName's NameArgs; a /* go:Name */ comment right after a name overrides it
// (typedef struct VPSwe /* go:SWEArgs */ {). The header's subset of C is in parse.go.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// The files, in the kernels' directory.
const (
	headerFile = "vp_args.h"
	goOut      = "args_gen.go"
	cOut       = "vp_args_layout.h"
	goPackage  = "kernels"
)

func main() {
	dir := flag.String("dir", ".", "the kernels' directory (gpusim/kernels)")
	check := flag.Bool("check", false, "write nothing; fail when a generated file is stale")
	flag.Parse()
	stale, err := run(*dir, *check)
	if err != nil {
		fmt.Fprintln(os.Stderr, "argsgen:", err)
		os.Exit(1)
	}
	if len(stale) > 0 {
		for _, f := range stale {
			fmt.Fprintf(os.Stderr, "argsgen: %s is stale: run go generate ./gpusim/kernels/ (or make generate)\n", f)
		}
		os.Exit(1)
	}
}

// outputs returns the generated files' names and contents from the header's.
func outputs(header []byte) (map[string][]byte, error) {
	h, err := parse(headerFile, string(header))
	if err != nil {
		return nil, err
	}
	g, err := goFile(h, goPackage)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{goOut: g, cOut: cFile(h, headerFile)}, nil
}

// run generates the files in dir, or (check) lists those that differ.
func run(dir string, check bool) (stale []string, err error) {
	src, err := os.ReadFile(filepath.Join(dir, headerFile))
	if err != nil {
		return nil, err
	}
	out, err := outputs(src)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{goOut, cOut} {
		path := filepath.Join(dir, name)
		old, err := os.ReadFile(path)
		if err == nil && bytes.Equal(old, out[name]) {
			continue
		}
		if check {
			stale = append(stale, path)
			continue
		}
		if err := os.WriteFile(path, out[name], 0o644); err != nil {
			return nil, err
		}
	}
	return stale, nil
}
