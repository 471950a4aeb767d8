//go:build !amd64 || purego

package waves

// foot6Asm: this build has no assembly for addFoots.
const foot6Asm = false

// addFoots adds the jobs' footprints to dst, in order (foot6.go): addFootsGo.
func addFoots(vector bool, dst []float32, jobs []foot6) { addFootsGo(dst, jobs) }
