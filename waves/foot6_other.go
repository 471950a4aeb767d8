//go:build !amd64

package waves

// addFoots adds the jobs' footprints to dst, in order (foot6.go): addFootsGo off amd64.
func addFoots(dst []float32, jobs []foot6) { addFootsGo(dst, jobs) }
