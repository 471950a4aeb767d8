//go:build !purego

package waves

// foot6Asm: this build has addFoots' assembly. It needs SSE2 alone, which every amd64
// processor has, so there is no feature to check.
const foot6Asm = true

// addFoots adds the jobs' footprints to dst, in order (foot6.go): with addFootsSSE where
// vector is set (the System's choice, core.vector), else addFootsGo. It does not check
// the rows: fieldBand makes them from the grid's rows (and TestAddFoots runs
// addFootsGo, which does, on the same jobs).
func addFoots(vector bool, dst []float32, jobs []foot6) {
	if !vector {
		addFootsGo(dst, jobs)
		return
	}
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
