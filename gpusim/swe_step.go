package gpusim

import "sync/atomic"

// One step of the shallow water equations on the CPU backend (swe.go): its schedule of
// passes and barriers, and how the workers share the SWE's own passes.
//
// A step is:
//
//	columns (with the fastest wave)    chunks       | barrier; worker 0 cuts the step into m substeps | barrier
//	m times:
//	  (the capillary head, with surface tension: capColumns, its own columns | its barriers)
//	  flux, with the sides inline       chunks       | barrier
//	  outflow, inflow, final           the general layout's phases (kernels_csr.go), a barrier each
//	  heights, then the next substep's columns, over the worker's own columns | barrier
//
// Every element (column or pipe) is computed from the previous phase's results alone, so
// the split of the work is free: the SWE's own passes are cut into chunks that the
// workers claim from a counter (sweCounter), so that a worker whose share is dry (and
// fast: the dry fast paths in swe.go) or who was descheduled does not leave the other
// waiting at the barrier; the bits are those of any split. The columns of substep k > 0
// need the fluxes the final phase made (before the last barrier) and their own column's
// height alone, so they follow the height update of the same columns with no barrier
// between (a pass over memory and a barrier a substep less than a pass of their own).
// The flux finds the neighbours' velocity on the one side of each end it needs itself
// (sweFlux), so the sides need no pass, and no barrier, of their own: a substep has the
// general layout's five barriers, as a step of the pipes has.

// Chunk sizes of the claimed passes: columns and pipes.
const (
	sweColChunk  = 1024
	swePipeChunk = 2048
)

// sweCounter hands out chunks of a pass. It is reset by worker 0 in a phase after the
// pass's closing barrier and before the barrier that opens its next use.
type sweCounter struct {
	next atomic.Int32
	_    [60]byte // its own cache line
}

// claim returns the next chunk of [0, n) of size chunk, ok false when none is left.
func (k *sweCounter) claim(n, chunk int) (lo, hi int, ok bool) {
	lo = int(k.next.Add(int32(chunk))) - chunk
	if lo >= n {
		return 0, 0, false
	}
	return lo, min(lo+chunk, n), true
}

func (k *sweCounter) reset() { k.next.Store(0) }

// sweStep is one worker's share of one SWE step (see above).
func (c *cpuBackend) sweStep(w int, first bool) {
	s := c.swe
	n, np := len(c.h), len(c.f)
	var vmax float32
	for {
		lo, hi, ok := s.colNext.claim(n, sweColChunk)
		if !ok {
			break
		}
		vmax = c.sweColumns(lo, hi, true, vmax)
	}
	s.speed[w] = vmax
	c.bar.wait()
	if w == 0 {
		s.colNext.reset()
		var v float32
		for _, x := range s.speed {
			v = max(v, x)
		}
		s.setSubsteps(substepsFor(float64(v), s.full.dt, s.full.dx))
		c.p = s.sub
		s.substeps += int64(s.subM)
	}
	c.bar.wait()
	cr := c.ranges[w]
	for k := range s.subM {
		c.skipDead(w) // each substep's dead units (csrskip.go): liquid moves one face a substep
		if c.p.cap.on {
			c.capColumnsLive(w, cr[0], cr[1], first && k == 0 && c.capSt.fresh) // the call's first step only, as runGeneral's; ends with a barrier
		}
		// The flux phase: csrStep's, with the SWE's flux, then the general layout's phases
		// after it (csrAfterFlux).
		ext := c.csrExtended(w)
		for {
			lo, hi, ok := s.fluxNext.claim(np, swePipeChunk)
			if !ok {
				break
			}
			c.sweFlux(lo, hi)
		}
		c.bar.wait()
		if w == 0 {
			s.fluxNext.reset()
		}
		c.csrAfterFlux(w, ext)
		if k+1 < s.subM {
			c.sweColumns(cr[0], cr[1], false, 0)
			c.bar.wait()
		}
	}
}
