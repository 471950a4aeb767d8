package gpusim

import "math"

// Depth-averaged velocities, from the pipes' fluxes (docs/solver.md, "Velocities").
//
// A column's velocity along x is the mean of the volume fluxes through its two x faces
// (the sum over the pipes through each face; a wall's face carries none) over the face's
// area dx times the column's depth: vx = (q_west + q_east) / (2 dx d), and likewise along
// y. The pipes model carries no momentum, so this is the flux the height differences
// drive, which is what moves with the liquid: what wave particles drift with, what a flow
// meter reads.

// velocityMinDepth is the depth below which a column counts as dry for its velocity (0),
// m; velocityDepthFloor the least depth its flux is divided by, so that a film a few
// microns thick does not report the speed of a sheet of its flux at that depth.
const (
	velocityMinDepth   = 1e-5
	velocityDepthFloor = 1e-4
)

// velocityState holds what Velocities needs besides the fluxes, made once per terrain.
type velocityState struct {
	topo *topology
	// adjX: per entry of the topology's adjacency, 1 where its pipe joins a column to one
	// in the +x neighbour cell, 0 where to the +y one (a weight: no branch to mispredict).
	// A pipe's flux is positive along +x (+y) at both its ends, so a column's face flux is
	// the plain sum of its pipes' along each axis.
	adjX []float32
	flux []float32
	// general makes Velocities take the fluxes in pipe order even where the backend
	// holds them in the dense layout (the tests compare the two).
	general bool
}

func (v *velocityState) setup(t *topology) {
	if v.topo == t {
		return
	}
	c := t.cols
	cellOf := make([]int32, c.NumColumns())
	for k := 0; k < c.Nx*c.Ny; k++ {
		for i := c.CellStart[k]; i < c.CellStart[k+1]; i++ {
			cellOf[i] = int32(k)
		}
	}
	v.topo = t
	v.adjX = make([]float32, len(t.adjPipe))
	for k, p := range t.adjPipe {
		if c.Nx > 1 && cellOf[t.pipeB[p]]-cellOf[t.pipeA[p]] == 1 {
			v.adjX[k] = 1
		}
	}
	v.flux = make([]float32, t.numPipes())
}

// Velocities copies each column's depth-averaged velocity (m/s) into vx and vy (grown as
// needed, reused) and returns them: 0 in a column shallower than 10 microns, the flux
// divided by a depth of at least 0.1 mm elsewhere. From the current state (it waits for
// steps in flight).
func (s *Sim) Velocities(vx, vy []float32) ([]float32, []float32) {
	s.Sync()
	s.be.readHeight(s.scratch)
	return s.velocities(s.scratch, vx, vy)
}

// denseFluxes is a backend that holds its fluxes in the dense layout (one column a cell):
// fx[i] is the flux into cell i from its -x neighbour, fy[i] from its -y neighbour
// (denseGrid). They may be read between steps.
type denseFluxes interface {
	denseFlux() (fx, fy []float32, ok bool)
}

// velocities fills vx, vy from the backend's fluxes and the heights h: straight from the
// dense layout's arrays where the backend has them (no copy into pipe order, a third of
// the time), else from the fluxes in pipe order.
func (s *Sim) velocities(h, vx, vy []float32) ([]float32, []float32) {
	v := &s.vel
	v.setup(s.topo)
	n := s.cols.NumColumns()
	if cap(vx) < n {
		vx = make([]float32, n)
	}
	if cap(vy) < n {
		vy = make([]float32, n)
	}
	vx, vy = vx[:n], vy[:n]
	if d, ok := s.be.(denseFluxes); ok && !v.general {
		if fx, fy, ok := d.denseFlux(); ok {
			v.computeDense(h, fx, fy, vx, vy)
			return vx, vy
		}
	}
	s.be.readFlux(v.flux)
	v.compute(h, vx, vy)
	return vx, vy
}

// compute fills vx, vy from the fluxes in v.flux (pipe order) and the heights h: a pass
// over each column's pipes (its adjacency), nothing scattered.
func (v *velocityState) compute(h, vx, vy []float32) {
	t := v.topo
	c := t.cols
	n := c.NumColumns()
	flux, adjX, adjPipe, start := v.flux, v.adjX, t.adjPipe, t.adjStart
	base := c.Base[:n]
	h = h[:n]
	for i := range n {
		d := h[i] - base[i]
		if !(d > velocityMinDepth) {
			vx[i], vy[i] = 0, 0
			continue
		}
		var qx, qy float32
		for k := start[i]; k < start[i+1]; k++ {
			f, ax := flux[adjPipe[k]], adjX[k]
			qx += f * ax
			qy += f * (1 - ax)
		}
		inv := 1 / (2 * float32(c.Dx)) / max(d, velocityDepthFloor)
		vx[i], vy[i] = qx*inv, qy*inv
	}
}

// computeDense is compute from the dense layout's fluxes (denseFluxes): the faces of cell
// i are fx[i] and fx[i+1] along x, fy[i] and fy[i+nx] along y, those on the grid's sides
// carrying nothing.
func (v *velocityState) computeDense(h, fx, fy, vx, vy []float32) {
	c := v.topo.cols
	nx, ny := c.Nx, c.Ny
	base := c.Base
	for y := range ny {
		for x := range nx {
			i := y*nx + x
			d := h[i] - base[i]
			if !(d > velocityMinDepth) {
				vx[i], vy[i] = 0, 0
				continue
			}
			var qx, qy float32
			if x > 0 {
				qx += fx[i]
			}
			if x+1 < nx {
				qx += fx[i+1]
			}
			if y > 0 {
				qy += fy[i]
			}
			if y+1 < ny {
				qy += fy[i+nx]
			}
			inv := 1 / (2 * float32(c.Dx)) / max(d, velocityDepthFloor)
			vx[i], vy[i] = qx*inv, qy*inv
		}
	}
}

// pipeFlux is a backend that reads one pipe's flux where it lies (the CPU backend):
// ColumnVelocity's way to a few columns' velocities without copying every flux.
type pipeFlux interface {
	flux(p int) *float32
}

// ColumnVelocity returns column i's depth-averaged velocity now (m/s), as Velocities
// gives it, from its own pipes: O(its pipes) on the CPU backend (the floating bodies
// read the columns under them every update), a copy of every flux on a device backend.
// h is the column's height (Heights); zero where the column is dry.
func (s *Sim) ColumnVelocity(i int, h float32) (vx, vy float64) {
	c := s.cols
	d := h - c.Base[i]
	if !(d > velocityMinDepth) {
		return 0, 0
	}
	v := &s.vel
	v.setup(s.topo)
	pf, ok := s.be.(pipeFlux)
	if !ok {
		if len(v.flux) != s.topo.numPipes() {
			v.flux = make([]float32, s.topo.numPipes())
		}
		s.Sync()
		s.be.readFlux(v.flux)
	}
	t := s.topo
	var qx, qy float32
	for k := t.adjStart[i]; k < t.adjStart[i+1]; k++ {
		var f float32
		if ok {
			f = *pf.flux(int(t.adjPipe[k]))
		} else {
			f = v.flux[t.adjPipe[k]]
		}
		ax := v.adjX[k]
		qx += f * ax
		qy += f * (1 - ax)
	}
	inv := 1 / (2 * float32(c.Dx)) / max(d, velocityDepthFloor)
	return float64(qx * inv), float64(qy * inv)
}

// VelocityAt returns the depth-averaged velocity (m/s) of the column of cell (x, y)
// whose free interval holds z (the topmost wet column when z is NaN), from the current
// state; zero outside the domain or where that column is dry.
func (s *Sim) VelocityAt(px, py, z float64) (vx, vy float64) {
	c := s.cols
	x, y, ok := c.CellAt(px, py)
	if !ok {
		return 0, 0
	}
	s.velAt.x, s.velAt.y = s.Velocities(s.velAt.x, s.velAt.y)
	col := -1
	if math.IsNaN(z) {
		s.be.readHeight(s.scratch)
		lo, hi := c.Cell(x, y)
		for i := hi - 1; i >= lo; i-- {
			if float64(s.scratch[i])-float64(c.Base[i]) > velocityMinDepth {
				col = i
				break
			}
		}
	} else {
		col = c.ColumnAt(x, y, z)
	}
	if col < 0 {
		return 0, 0
	}
	return float64(s.velAt.x[col]), float64(s.velAt.y[col])
}

// Impact is a parcel of falling liquid that landed: where (m), its volume (m^3) and
// speed (m/s) as it landed, the column it landed in, and the simulated time (s).
type Impact struct {
	X, Y, Z       float64
	Volume, Speed float64
	Column        int32
	Time          float64
}

// maxImpacts bounds the landings kept between two Impacts calls: a consumer that stops
// reading loses the oldest beyond it, never memory.
const maxImpacts = 1 << 16

// RecordImpacts turns the recording of landings on or off (off by default; off drops
// what was recorded).
func (s *Sim) RecordImpacts(on bool) {
	s.fall.recordImpacts = on
	if !on {
		s.fall.impacts = s.fall.impacts[:0]
	}
}

// Impacts appends the landings recorded since the last call to dst[:0] and forgets them;
// in the order they happened (step by step, particle order within a step).
func (s *Sim) Impacts(dst []Impact) []Impact {
	dst = append(dst[:0], s.fall.impacts...)
	s.fall.impacts = s.fall.impacts[:0]
	return dst
}
