package gpusim

// PassageRebuilds is how many times s's backend has rebuilt its passages and openings
// (for the external tests and benchmarks of this package, which run library scenarios).
func PassageRebuilds(s *Sim) int {
	switch be := s.be.(type) {
	case *cpuBackend:
		if be.ext != nil {
			return be.ext.rebuilds
		}
	case *deviceBackend:
		return be.rebuilds
	}
	return 0
}

// FlipAndRebuild flips the full flag of s's k-th capped column (k modulo their number)
// as a height phase would, and rebuilds the passages and openings as the next step would
// (CPU backend; false if it has no extended pipes). Calling it twice with the same k
// flips the column back.
func FlipAndRebuild(s *Sim, k int) bool {
	be, ok := s.be.(*cpuBackend)
	if !ok || be.ext == nil || be.ext.mode == ExtendedOff {
		return false
	}
	e := be.ext
	i := int(e.capped[k%len(e.capped)])
	h := e.cols.Max[i]
	if e.full[i] {
		h = e.cols.Base[i] // (a column thinner than the tolerance stays full)
	}
	if e.updateFull(i, h) {
		e.flips[0]++
	}
	e.rebuild(be.h)
	return true
}
