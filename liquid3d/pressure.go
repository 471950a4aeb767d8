package liquid3d

import (
	"math"
	"time"

	"github.com/vpbench/vpbench/internal/parallel"
)

// The pressure projection. The unknown of liquid cell c is q_c = p_c dt / (rho H): the
// change of a face's velocity across which q rises by 1 is -1 m/s. A face of open share
// a between liquid cells c and n gives A_cc += a, A_cn = -a; between liquid c and air
// (an air cell, or the outside beyond an open side) the ghost-fluid condition puts p = 0
// on the surface where the cells' level set (phi = 0.5 - the volume fraction about the
// centre, in cells) crosses zero, a share theta of the way from c: A_cc += a / theta.
// Closed faces (a = 0: walls, the solid) give nothing, and nor do a columns side's wet
// faces (below their columns' level: their velocity is prescribed, columns.go) but for
// their term of the divergence. The right-hand side is minus the divergence, sum over
// faces of +-a u. The system is solved by the conjugate gradient
// preconditioned with the modified incomplete Cholesky factor MIC(0), in float64.

// thetaMin bounds theta below, as Bridson's book does (a cell whose surface crosses at
// its very centre keeps a finite equation).
const thetaMin = 0.01

// theta is the share of the way from a liquid cell's centre (level set pl) to an air
// neighbour's (pa) where the surface lies, in [thetaMin, 1].
func theta(pl, pa float32) float64 {
	l, a := float64(min(pl, 0)), float64(max(pa, 0))
	if l-a == 0 {
		return thetaMin
	}
	return min(max(l/(l-a), thetaMin), 1)
}

// blockSize is the length of the blocks the solve's sums are made over: fixed, so that a
// dot product is the same sum of the same partial sums whatever the number of workers.
const blockSize = 1024

// solveSplit is the number of liquid cells from which the solve's passes are split
// across the workers (a variable for the tests, which split every solve).
var solveSplit = 8192

// project makes the velocities divergence-free in the liquid. It returns the conjugate
// gradient's iterations and whether it stopped at the cap.
func (s *Sim) project() (int, bool) {
	s.markLiquid()
	nl := len(s.lcell)
	if nl == 0 {
		s.par(phApplyU)
		s.par(phApplyV)
		s.par(phApplyW)
		return 0, false
	}
	k := s.solveWorkers(nl)
	s.parK(phBuild, k)
	s.micFactor()
	iters, capped := s.solve(k, s.set.MaxIterations, s.set.Tolerance)
	s.par(phApplyU)
	s.par(phApplyV)
	s.par(phApplyW)
	return iters, capped
}

// solveWorkers is the workers the solve's passes of nl cells are split over.
func (s *Sim) solveWorkers(nl int) int {
	// The conjugate gradient's passes are short (a few microseconds on a small grid):
	// below solveSplit cells a worker would wait to start longer than it helps.
	if nl < solveSplit {
		return 1
	}
	return s.k
}

// solve runs the conjugate gradient on the matrix build made and MIC(0)'s factor, from
// pres = 0 with the right-hand side res, on k workers, until the largest residual is at
// most tol times the largest before, for at most most iterations. It returns the
// iterations and whether it stopped at the cap.
func (s *Sim) solve(k, most int, tol float64) (int, bool) {
	nl := len(s.lcell)
	nb := (nl + blockSize - 1) / blockSize
	s.partial = s.partial[:nb]
	r0 := maxAbs(s.res)
	iters, capped := 0, false
	if r0 > 0 {
		tol := tol * r0
		sigma := s.micApply()
		copy(s.sv, s.zv)
		for {
			s.parK(phMatvec, k) // q = A s, partial: q . s
			qs := s.sum()
			if qs == 0 {
				break
			}
			s.alpha = sigma / qs
			s.parK(phUpdate, k) // p += alpha s, r -= alpha q, partial: max |r|
			iters++
			if s.maxPartial() <= tol {
				break
			}
			if iters >= most {
				capped = true
				break
			}
			sn := s.micApply()
			s.beta = sn / sigma
			sigma = sn
			s.parK(phDirection, k) // s = z + beta s
		}
	}
	return iters, capped
}

// markLiquid numbers the liquid cells (those holding particles, not wholly closed) in
// the grid's order and sizes the solve's vectors.
func (s *Sim) markLiquid() {
	s.lcell = s.lcell[:0]
	for k := 0; k < s.nz; k++ {
		for j := 0; j < s.ny; j++ {
			for i := 0; i < s.nx; i++ {
				c := s.cellIndex(i, j, k)
				key := i*s.sx + j*s.sy + k*s.sz
				s.cellToM[c] = -1
				if s.cellStart[key+1] == s.cellStart[key] {
					continue
				}
				if s.au[s.uIndex(i, j, k)]+s.au[s.uIndex(i+1, j, k)]+s.av[s.vIndex(i, j, k)]+s.av[s.vIndex(i, j+1, k)]+
					s.aw[s.wIndex(i, j, k)]+s.aw[s.wIndex(i, j, k+1)] == 0 {
					continue
				}
				s.cellToM[c] = int32(len(s.lcell))
				s.lcell = append(s.lcell, int32(c))
			}
		}
	}
	nl := len(s.lcell)
	if cap(s.diag) < nl {
		n := nl + nl/4
		s.nbr = make([]int32, 6*n)
		s.diag, s.offx, s.offy, s.offz = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		s.precon, s.pres, s.res = make([]float64, n), make([]float64, n), make([]float64, n)
		s.zv, s.sv, s.qv = make([]float64, n), make([]float64, n), make([]float64, n)
		s.partial = make([]float64, (n+blockSize-1)/blockSize)
	}
	s.nbr = s.nbr[:6*nl]
	s.diag, s.offx, s.offy, s.offz = s.diag[:nl], s.offx[:nl], s.offy[:nl], s.offz[:nl]
	s.precon, s.pres, s.res = s.precon[:nl], s.pres[:nl], s.res[:nl]
	s.zv, s.sv, s.qv = s.zv[:nl], s.sv[:nl], s.qv[:nl]
	s.partial = s.partial[:cap(s.partial)]
}

// build makes the rows of the liquid cells of worker w's chunk: diagonal, couplings,
// neighbours and right-hand side.
func (s *Sim) build(w int) {
	lo, hi := parallel.Chunk(len(s.lcell), s.kc, w)
	nx, ny, nz := s.nx, s.ny, s.nz
	for m := lo; m < hi; m++ {
		c := int(s.lcell[m])
		i, j, k := c%nx, (c/nx)%ny, c/(nx*ny)
		pc := 0.5 - s.rho[c]
		d, div := 0.0, 0.0
		nb := s.nbr[6*m : 6*m+6]
		var off [3]float64
		// face: its open share and velocity; inBox: the neighbour is a cell (else the
		// outside, air); n: the neighbour cell; dir: 0..5 (-x +x -y +y -z +z).
		face := func(a, u float32, inBox bool, n, dir int) {
			nb[dir] = -1
			sign := float64(1)
			if dir&1 == 0 {
				sign = -1
			}
			if a == 0 {
				return
			}
			af := float64(a)
			div += sign * af * float64(u)
			if !inBox && dir < 4 && s.cols[dir] != nil {
				col := j
				if dir >= 2 {
					col = i
				}
				if s.wetFace(Side(dir), col, k) {
					return // a prescribed velocity: a known term
				}
			}
			pa := float32(0.5)
			if inBox {
				if mn := s.cellToM[n]; mn >= 0 {
					d += af
					nb[dir] = mn
					if dir&1 == 1 {
						off[dir/2] = -af
					}
					return
				}
				pa = 0.5 - s.rho[n]
			}
			d += af / theta(pc, pa)
		}
		fu := s.uIndex(i, j, k)
		face(s.au[fu], s.u[fu], i > 0, c-1, 0)
		face(s.au[fu+1], s.u[fu+1], i+1 < nx, c+1, 1)
		fv := s.vIndex(i, j, k)
		face(s.av[fv], s.v[fv], j > 0, c-nx, 2)
		face(s.av[fv+nx], s.v[fv+nx], j+1 < ny, c+nx, 3)
		fw := s.wIndex(i, j, k)
		face(s.aw[fw], s.w[fw], k > 0, c-nx*ny, 4)
		face(s.aw[fw+nx*ny], s.w[fw+nx*ny], k+1 < nz, c+nx*ny, 5)
		s.diag[m] = d
		s.offx[m], s.offy[m], s.offz[m] = off[0], off[1], off[2]
		s.res[m] = -div
		s.pres[m] = 0
	}
}

// MIC(0)'s constants, as in Bridson's book.
const (
	micTau   = 0.97
	micSigma = 0.25
)

// micFactor computes the modified incomplete Cholesky factor's inverse diagonal: a
// sweep in the grid's order, sequential (each cell needs its -x, -y and -z neighbours').
func (s *Sim) micFactor() {
	for m := range s.lcell {
		a := s.diag[m]
		e := a
		nb := s.nbr[6*m : 6*m+6]
		if n := nb[0]; n >= 0 {
			o, p := s.offx[n], s.precon[n]
			e -= o*p*o*p + micTau*o*(s.offy[n]+s.offz[n])*p*p
		}
		if n := nb[2]; n >= 0 {
			o, p := s.offy[n], s.precon[n]
			e -= o*p*o*p + micTau*o*(s.offx[n]+s.offz[n])*p*p
		}
		if n := nb[4]; n >= 0 {
			o, p := s.offz[n], s.precon[n]
			e -= o*p*o*p + micTau*o*(s.offx[n]+s.offy[n])*p*p
		}
		if e < micSigma*a {
			e = a
		}
		s.precon[m] = 1 / math.Sqrt(e)
	}
}

// micApply sets z = M^-1 r (the forward then the backward triangular solve: sequential,
// the solve's part that does not split across workers) and returns z . r, summed in the
// backward sweep's order.
func (s *Sim) micApply() float64 {
	t0 := time.Now()
	defer func() { s.cur.Precondition += time.Since(t0) }()
	q, z, r, pc := s.zv, s.zv, s.res, s.precon
	for m := range s.lcell {
		t := r[m]
		nb := s.nbr[6*m : 6*m+6]
		if n := nb[0]; n >= 0 {
			t -= s.offx[n] * pc[n] * q[n]
		}
		if n := nb[2]; n >= 0 {
			t -= s.offy[n] * pc[n] * q[n]
		}
		if n := nb[4]; n >= 0 {
			t -= s.offz[n] * pc[n] * q[n]
		}
		q[m] = t * pc[m]
	}
	sum := 0.0
	for m := len(s.lcell) - 1; m >= 0; m-- {
		t := q[m]
		nb := s.nbr[6*m : 6*m+6]
		if n := nb[1]; n >= 0 {
			t -= s.offx[m] * pc[m] * z[n]
		}
		if n := nb[3]; n >= 0 {
			t -= s.offy[m] * pc[m] * z[n]
		}
		if n := nb[5]; n >= 0 {
			t -= s.offz[m] * pc[m] * z[n]
		}
		z[m] = t * pc[m]
		sum += z[m] * r[m]
	}
	return sum
}

// matvec: q = A s over worker w's blocks, and each block's q . s.
func (s *Sim) matvec(w int) {
	nb := len(s.partial)
	lo, hi := parallel.Chunk(nb, s.kc, w)
	sv, q := s.sv, s.qv
	for b := lo; b < hi; b++ {
		sum := 0.0
		for m := b * blockSize; m < min((b+1)*blockSize, len(sv)); m++ {
			nbr := s.nbr[6*m : 6*m+6]
			t := s.diag[m] * sv[m]
			if n := nbr[0]; n >= 0 {
				t += s.offx[n] * sv[n]
			}
			if n := nbr[1]; n >= 0 {
				t += s.offx[m] * sv[n]
			}
			if n := nbr[2]; n >= 0 {
				t += s.offy[n] * sv[n]
			}
			if n := nbr[3]; n >= 0 {
				t += s.offy[m] * sv[n]
			}
			if n := nbr[4]; n >= 0 {
				t += s.offz[n] * sv[n]
			}
			if n := nbr[5]; n >= 0 {
				t += s.offz[m] * sv[n]
			}
			q[m] = t
			sum += t * sv[m]
		}
		s.partial[b] = sum
	}
}

// update: p += alpha s, r -= alpha q over worker w's blocks, and each block's max |r|.
func (s *Sim) update(w int) {
	lo, hi := parallel.Chunk(len(s.partial), s.kc, w)
	a := s.alpha
	for b := lo; b < hi; b++ {
		mx := 0.0
		for m := b * blockSize; m < min((b+1)*blockSize, len(s.sv)); m++ {
			s.pres[m] += a * s.sv[m]
			s.res[m] -= a * s.qv[m]
			mx = max(mx, math.Abs(s.res[m]))
		}
		s.partial[b] = mx
	}
}

// direction: s = z + beta s.
func (s *Sim) direction(w int) {
	lo, hi := parallel.Chunk(len(s.sv), s.kc, w)
	b := s.beta
	for m := lo; m < hi; m++ {
		s.sv[m] = s.zv[m] + b*s.sv[m]
	}
}

func (s *Sim) sum() float64 {
	t := 0.0
	for _, v := range s.partial {
		t += v
	}
	return t
}

func (s *Sim) maxPartial() float64 {
	t := 0.0
	for _, v := range s.partial {
		t = max(t, v)
	}
	return t
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// apply subtracts the pressure gradient from the faces of component comp (0 u, 1 v, 2
// w) that touch liquid, marks them valid, and the others not (closed faces hold 0); a
// columns side's wet faces keep their prescribed velocity and are valid.
func (s *Sim) apply(w, comp int) { s.gradient(w, comp, false) }

// displace sets the density correction's displacement of the faces of component comp
// (tu, tv or tw, in cells): minus the gradient of what solve left in pres where a face
// touches liquid, 0 elsewhere and on a columns side's wet faces (spread.go).
func (s *Sim) displace(w, comp int) { s.gradient(w, comp, true) }

// gradient is apply, or with spread displace: the same faces and the same differences.
func (s *Sim) gradient(w, comp int, spread bool) {
	f, a, fl, n0, n1, n2, st := s.faceGrid(comp)
	out := [3][]float32{s.tu, s.tv, s.tw}[comp]
	lo, hi := parallel.Chunk(n1*n2, s.kc, w)
	last := [3]int{s.nx, s.ny, s.nz}[comp]
	for r := lo; r < hi; r++ {
		j, k := r%n1, r/n1
		for i := 0; i < n0; i++ {
			fi := i + n0*r
			if a[fi] == 0 {
				if spread {
					out[fi] = 0
				} else {
					f[fi], fl[fi] = 0, 0
				}
				continue
			}
			// The cells below (L) and above (R) the face along comp's axis.
			var idx int // the face's coordinate along the axis
			switch comp {
			case 0:
				idx = i
			case 1:
				idx = j
			default:
				idx = k
			}
			if comp < 2 && (idx == 0 || idx == last) {
				side, col := Side(2*comp+b2i(idx == last)), j
				if comp == 1 {
					col = i
				}
				if s.wetFace(side, col, k) {
					if spread {
						out[fi] = 0
					} else {
						fl[fi] = faceValid
					}
					continue
				}
			}
			ci, cj, ck := i, j, k
			cR := -1
			if idx < last {
				cR = s.cellIndex(ci, cj, ck)
			}
			cL := -1
			if idx > 0 {
				cL = s.cellIndex(ci, cj, ck) - st
			}
			mL, mR := int32(-1), int32(-1)
			if cL >= 0 {
				mL = s.cellToM[cL]
			}
			if cR >= 0 {
				mR = s.cellToM[cR]
			}
			var g float32 // the face's change
			switch {
			case mL >= 0 && mR >= 0:
				g = -float32(s.pres[mR] - s.pres[mL])
			case mL >= 0:
				g = float32(s.pres[mL] / theta(0.5-s.rho[cL], s.air(cR)))
			case mR >= 0:
				g = -float32(s.pres[mR] / theta(0.5-s.rho[cR], s.air(cL)))
			default:
				if spread {
					out[fi] = 0
				} else {
					fl[fi] = 0
				}
				continue
			}
			if spread {
				out[fi] = g
				continue
			}
			f[fi] += g
			fl[fi] = faceValid
		}
	}
}

// air is the level set of an air neighbour: the cell's, or the outside's (0.5: empty).
func (s *Sim) air(c int) float32 {
	if c < 0 {
		return 0.5
	}
	return 0.5 - s.rho[c]
}

// faceGrid is component comp's velocities, open shares, states, node counts and the
// cell stride along its axis.
func (s *Sim) faceGrid(comp int) (f, a []float32, fl []uint8, n0, n1, n2, stride int) {
	switch comp {
	case 0:
		return s.u, s.au, s.fu, s.nx + 1, s.ny, s.nz, 1
	case 1:
		return s.v, s.av, s.fv, s.nx, s.ny + 1, s.nz, s.nx
	}
	return s.w, s.aw, s.fw, s.nx, s.ny, s.nz + 1, s.nx * s.ny
}
