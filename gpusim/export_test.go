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

// RebuildPassages rebuilds s's passages and openings from its current state as a step
// after a flip would (CPU backend; false if it has no extended pipes). A rebuild with no
// flag changed since the last one gives the same lists and fluxes.
func RebuildPassages(s *Sim) bool {
	be, ok := s.be.(*cpuBackend)
	if !ok || be.ext == nil || be.ext.mode == ExtendedOff {
		return false
	}
	be.ext.rebuild(be.h)
	return true
}
