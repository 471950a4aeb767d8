package waves

// addFoots adds the jobs' footprints to dst, in order (foot6.go), with addFootsSSE. It
// does not check the rows: fieldBand makes them from the grid's rows (and TestAddFoots
// runs addFootsGo, which does, on the same jobs).
func addFoots(dst []float32, jobs []foot6) {
	if len(jobs) == 0 || len(dst) == 0 {
		return
	}
	addFootsSSE(&dst[0], &jobs[0], len(jobs))
}

// addFootsSSE is addFootsGo in SSE2 assembly (foot6_amd64.s), on n jobs whose rows the
// caller checked.
//
//go:noescape
func addFootsSSE(dst *float32, jobs *foot6, n int)
