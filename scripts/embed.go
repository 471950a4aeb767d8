package scripts

import "embed"

// FS holds the scenario library, built into the binary: `vpbench bench` runs it when no
// folder is given.
//
//go:embed *.lua models/*.stl
var FS embed.FS

// Demo is the built-in demo scenario that `vpbench` runs without a file.
//
//go:embed demo.lua
var Demo []byte
