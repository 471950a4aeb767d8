package liquid3d

import (
	"encoding/binary"

	"github.com/vpbench/vpbench/internal/parallel"
)

// extrapLayers is how many layers of faces beyond the liquid get a velocity: a particle
// in a liquid cell reads faces one cell away, and its midpoint half a cell further.
const extrapLayers = 2

// extrapolate carries the liquid's velocities into the air, layer by layer: an open
// face without a valid velocity takes the mean of its valid neighbours (in its own
// grid), read from the layer before; those still without one after the last layer hold
// 0. Each layer reads the states of the one before and writes the next's into a second
// array (g*), swapped after the layer, and writes velocities only into faces that were
// not valid, which no one reads: the workers never write what another reads.
func (s *Sim) extrapolate() {
	for s.layer = 0; s.layer < extrapLayers; s.layer++ {
		s.par(phExtrapU)
		s.par(phExtrapV)
		s.par(phExtrapW)
		s.fu, s.gu = s.gu, s.fu
		s.fv, s.gv = s.gv, s.fv
		s.fw, s.gw = s.gw, s.fw
	}
}

func (s *Sim) extrapLayer(w, comp int) {
	f, a, fl, n0, n1, n2, _ := s.faceGrid(comp)
	g := [3][]uint8{s.gu, s.gv, s.gw}[comp]
	lastLayer := s.layer == extrapLayers-1
	lo, hi := parallel.Chunk(n1*n2, s.kc, w)
	plane := n0 * n1
	for r := lo; r < hi; r++ {
		j, k := r%n1, r/n1
		if row := fl[n0*r : n0*r+n0]; !s.fullExtrap && !anyValid(row) &&
			(j == 0 || !anyValid(fl[n0*(r-1):n0*r])) && (j+1 == n1 || !anyValid(fl[n0*(r+1):n0*(r+2)])) &&
			(k == 0 || !anyValid(fl[n0*(r-n1):n0*(r-n1+1)])) && (k+1 == n2 || !anyValid(fl[n0*(r+n1):n0*(r+n1+1)])) {
			// No valid face in the row or the four rows beside it (most of the air):
			// what the loop below gives every face of it, without its neighbour tests.
			clear(g[n0*r : n0*r+n0])
			if lastLayer {
				fr, ar := f[n0*r:n0*r+n0], a[n0*r:n0*r+n0]
				for i := range fr {
					if ar[i] != 0 {
						fr[i] = 0
					}
				}
			}
			continue
		}
		for i := 0; i < n0; i++ {
			c := i + n0*r
			if fl[c] != 0 || a[c] == 0 {
				g[c] = fl[c]
				continue
			}
			sum, cnt := float32(0), 0
			if i > 0 && fl[c-1] != 0 {
				sum, cnt = sum+f[c-1], cnt+1
			}
			if i+1 < n0 && fl[c+1] != 0 {
				sum, cnt = sum+f[c+1], cnt+1
			}
			if j > 0 && fl[c-n0] != 0 {
				sum, cnt = sum+f[c-n0], cnt+1
			}
			if j+1 < n1 && fl[c+n0] != 0 {
				sum, cnt = sum+f[c+n0], cnt+1
			}
			if k > 0 && fl[c-plane] != 0 {
				sum, cnt = sum+f[c-plane], cnt+1
			}
			if k+1 < n2 && fl[c+plane] != 0 {
				sum, cnt = sum+f[c+plane], cnt+1
			}
			switch {
			case cnt > 0:
				f[c] = sum / float32(cnt)
				g[c] = faceValid
			case lastLayer:
				f[c] = 0
				g[c] = 0
			default:
				g[c] = 0
			}
		}
	}
}

// anyValid tells whether some face of row holds a valid velocity (a flag not 0), eight
// flags at a time.
func anyValid(row []uint8) bool {
	i := 0
	for ; i+8 <= len(row); i += 8 {
		if binary.LittleEndian.Uint64(row[i:]) != 0 {
			return true
		}
	}
	for ; i < len(row); i++ {
		if row[i] != 0 {
			return true
		}
	}
	return false
}
