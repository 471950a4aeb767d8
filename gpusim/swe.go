package gpusim

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/gpusim/internal/element"
)

// The shallow water equations on the pipes (docs/solver.md, "The shallow water
// equations"; Settings.Method = MethodSWE). The same columns, pipes, outflow and inflow
// scaling and height update as the virtual pipes; what differs is the state a pipe
// carries and how its flux is made:
//
//   - the state is a velocity u per pipe (m/s, positive from its end a to its end b),
//     not a flux;
//   - each substep advects u with the flow, semi-Lagrangian: along the pipe's axis
//     towards the centre of the column upstream (whose velocity is the mean of its
//     faces' fluxes over its depth, as Sim.Velocities reports it), then across it
//     towards the columns beside, where the transverse velocity carries it; both are
//     linear interpolations, so the advected velocity is bounded by its neighbours';
//   - the head difference accelerates it, u += dt g (h_a - h_b) / dx, then damping
//     (zeta), the contact-line law and the paper's viscosity factor act on it as on a
//     pipe's flux;
//   - the flux is u dx D, D the depth of the column upstream (upwind), and the outflow
//     scaling (K) and inflow scaling (S) then scale flux and velocity alike. A face whose
//     upstream column is dry carries no velocity; with surface tension, one out of a
//     receding edge into a deeper column carries the deeper one's depth (sweDrainDepth).
//
// A lake at rest has equal heights, so zero head differences and zero velocities: it
// stays exactly at rest over any terrain. Volume is exact as for the pipes (the same
// scaling and height update). Each step is cut into substeps short enough for the
// fastest wave: sqrt(2 g d) + |u| over the deepest, fastest column, times the substep,
// at most sweCFL cells. The SWE runs on the general layout, on the CPU backend and, with
// the same operations in the same order, on the device (vp_swe_* in kernels/vpbench.cu;
// docs/cuda.md, "The shallow water equations").

// sweCFL is the share of a cell the fastest wave may cross in one substep. The
// symplectic step of the gravity waves is stable to dt sqrt(2 g d) / dx = 1 on a
// 4-neighbour grid, but accuracy goes first: Ritter's front (10 mm onto a dry channel,
// dx 1 mm, dt 4.28 ms) ran 11% short at 0.9 (3 substeps of 1.43 ms) and within 2% at 0.7
// (4 substeps), as with substeps of 1 ms.
const sweCFL = 0.7

// sweMaxSubsteps caps the substeps of one step: 64 cover liquid 4,000 cells deep at the
// paper's step; a deeper pool moves slower than its waves would (the velocity clamp).
const sweMaxSubsteps = 64

// sweClamp is the largest velocity a pipe may carry, in cells a substep (Chentanez and
// Mueller's velocity clamp): it binds only where the substep is capped.
const sweClamp = 0.5

// sweMinDepth is the depth below which a column has no velocity for the advection, m.
const sweMinDepth = 1e-7

// sweState is the SWE's state and scratch on a cpuBackend.
type sweState struct {
	// d is, per pipe, the face depth its flux was made with, m: with the flux (the
	// backend's f, scaled) it is the state, the pipe's velocity being f / (dx d) (0 where
	// d is 0). Keeping the velocity as that quotient, rather than as an array of its
	// own scaled like the flux, saves a pass over the pipes a substep.
	d []float32
	// The per-column values are interleaved by axis (index 2i for x, 2i+1 for y), so
	// that a pipe reads its axis's values by index arithmetic (sweFlux), not by
	// switching between arrays.
	//
	// q: the discharge per unit width along each axis (the mean of the column's two faces'
	// fluxes over dx), m^2/s; us the velocity the momentum it carries out has: its
	// upstream face's (Stelling and Duinmeijer's upwind choice); cuv the depth-averaged
	// velocity along each axis, m/s.
	q, us, cuv []float32
	// sides is unused on the CPU (nil): the device's sides kernel fills its twin, the
	// mean along-velocity of the column's neighbours on each side (vp_swe_sides); the
	// CPU's flux finds the one side it needs inline (sweFlux, sweSide).
	sides []float32
	// wet: per column, 1 where its depth is at least sweMinDepth (the sides' test of a
	// neighbour), written by sweColumns from the heights the substep starts with, so that
	// sweFlux reads a byte a neighbour, not its height and floor.
	wet    []uint8
	axis   []uint8 // per pipe: 0 along x, 1 along y
	alongX []bool  // per pipe: joins +x neighbours (else +y)
	// side8: per entry of the topology's adjacency, which side of its column the pipe
	// leaves by: 0 -x, 1 +x, 2 -y, 3 +y (topology.adjDir; the device's copy is sweSides').
	side8 []uint8
	speed []float32 // per worker: its columns' fastest wave, m/s
	// The chunks of the SWE's own passes that the workers claim (swe_step.go): the
	// step's first columns pass and the flux.
	colNext, fluxNext sweCounter
	full              stepParams
	sub               stepParams // the substep's parameters, for subM substeps a step
	subM              int
	// Per substep constants, set with sub.
	gDtDx    float32 // g dt / dx
	twoDtDx  float32 // 2 dt / dx: the along-axis interpolation weight per m/s
	dtDx     float32 // dt / dx: the transverse one
	vmax     float32 // the velocity clamp, m/s
	g        float32
	dx       float32
	substeps int64 // substeps taken so far (Stats)
}

func newSWEState(t *topology) *sweState {
	n, np := t.cols.NumColumns(), t.numPipes()
	s := &sweState{d: make([]float32, np),
		q: make([]float32, 2*n), us: make([]float32, 2*n), cuv: make([]float32, 2*n), wet: make([]uint8, n),
		alongX: make([]bool, np), axis: make([]uint8, np)}
	for k, p := range t.adjPipe {
		if t.adjSign[k] > 0 { // the column is the pipe's a: adjDir says which way it runs
			s.alongX[p] = t.adjDir[k] == sidePlusX
			if !s.alongX[p] {
				s.axis[p] = 1
			}
		}
	}
	s.side8 = t.adjDir
	return s
}

// setSubsteps makes the parameters of m substeps a step from the full step's.
func (s *sweState) setSubsteps(m int) {
	if m == s.subM {
		return
	}
	s.subM = m
	f := &s.full
	s.sub = makeStepParams(f.st, f.dt/float64(m), f.dx)
	dt := s.sub.dt
	s.g = float32(f.st.Gravity)
	s.dx = float32(f.dx)
	s.gDtDx = float32(dt * f.st.Gravity / f.dx)
	s.twoDtDx = float32(2 * dt / f.dx)
	s.dtDx = float32(dt / f.dx)
	s.vmax = float32(sweClamp * f.dx / dt)
}

// substepsFor is how many substeps a step of dt needs for waves of speed v (m/s) on
// cells of dx.
func substepsFor(v, dt, dx float64) int {
	m := math.Ceil(v * dt / (sweCFL * dx))
	return int(min(max(m, 1), sweMaxSubsteps))
}

// sweColumns computes, for columns [lo, hi), from the current fluxes and face depths:
// the discharges, the upwind velocities of the momentum they carry, the depth-averaged
// velocities, the wet flags and, with speed, the fastest wave among them into vmax,
// which it returns. A regular column (four pipes: -y, -x, +x, +y; kernels_csr.go) reads
// its faces directly; the others sum theirs by side. A dry regular column (h = b, every
// face's flux +0: nothing flows in) takes the fast path: its values are +0, the same bits
// the full computation gives (q = (+0 + +0)/2dx, us = upwind(-0, u, u) of faces without
// velocity, cuv = 0 under sweMinDepth).
func (c *cpuBackend) sweColumns(lo, hi int, speed bool, vmax float32) float32 {
	s, t := c.swe, c.topo
	h, base, f, dd := c.h, c.base, c.f, s.d
	as, ap, side := t.adjStart, t.adjPipe, s.side8
	q, us, cuv, wet, reg := s.q, s.us, s.cuv, s.wet, c.regular
	invdx, g2 := 1/s.dx, 2*s.g
	for i := lo; i < hi; i++ {
		// Flux and depth through the faces on i's -x, +x, -y and +y sides.
		var fW, fE, fS, fN, dW, dE, dS, dN float32
		e := as[i]
		d := h[i] - base[i]
		if reg[i] {
			pS, pW, pE, pN := ap[e], ap[e+1], ap[e+2], ap[e+3]
			fS, fW, fE, fN = f[pS], f[pW], f[pE], f[pN]
			if math.Float32bits(d)|math.Float32bits(fS)|math.Float32bits(fW)|math.Float32bits(fE)|math.Float32bits(fN) == 0 {
				q[2*i], q[2*i+1], us[2*i], us[2*i+1], cuv[2*i], cuv[2*i+1], wet[i] = 0, 0, 0, 0, 0, 0, 0
				continue
			}
			dS, dW, dE, dN = dd[pS], dd[pW], dd[pE], dd[pN]
		} else {
			for k := e; k < as[i+1]; k++ {
				p := ap[k]
				switch side[k] {
				case 0:
					fW, dW = fW+f[p], dW+dd[p]
				case 1:
					fE, dE = fE+f[p], dE+dd[p]
				case 2:
					fS, dS = fS+f[p], dS+dd[p]
				default:
					fN, dN = fN+f[p], dN+dd[p]
				}
			}
		}
		uW, uE, uS, uN := faceVelocity(fW, dW, invdx), faceVelocity(fE, dE, invdx), faceVelocity(fS, dS, invdx), faceVelocity(fN, dN, invdx)
		qx, qy := 0.5*invdx*(fW+fE), 0.5*invdx*(fS+fN)
		q[2*i], q[2*i+1] = qx, qy
		// The upstream face's velocity, chosen without a branch (upwind picks its second
		// value for a negative discharge).
		us[2*i], us[2*i+1] = element.Upwind(-qx, uE, uW), element.Upwind(-qy, uN, uS)
		if d < sweMinDepth {
			cuv[2*i], cuv[2*i+1], wet[i] = 0, 0, 0
			continue
		}
		wet[i] = 1
		// The mean of its faces' velocities (a wall's, or a dry face's, 0): bounded by
		// them, where the discharge over the column's own depth is not at a thin edge.
		cuv[2*i], cuv[2*i+1] = 0.5*(uW+uE), 0.5*(uS+uN)
		if speed {
			// The fastest of its faces, not its mean: at a front the face ahead carries
			// nothing and the mean is half the speed the liquid crosses cells at.
			fast := max(element.Abs32(uW), element.Abs32(uE), element.Abs32(uS), element.Abs32(uN))
			vmax = max(vmax, float32(math.Sqrt(float64(g2*d)))+fast)
		}
	}
	return vmax
}

// faceVelocity is the velocity of a face that carries flux f through depth d (summed
// over its pipes), m/s: 0 where it has none.
func faceVelocity(f, d, invdx float32) float32 {
	if d > 0 {
		return f * invdx / d
	}
	return 0
}

// sweSide is the mean along-velocity (axis ax's) of the wet neighbours of column i on
// one side across that axis (plus 0: -y for an x pipe, -x for a y pipe; 1: +y, +x), the
// column's own where it has none there (free slip at walls and edges). A neighbour is
// wet by sweColumns' flag (its depth at least sweMinDepth). For a regular column
// (adjacency -y, -x, +x, +y) the side's single neighbour is entry ax ^ 3 plus, which
// sweFlux reads inline; this is the general loop, the neighbours summed in adjacency
// order.
func (c *cpuBackend) sweSide(i, ax, plus int) float32 {
	s, t := c.swe, c.topo
	want := uint8(2*(1-ax) + plus) // side8's code: 0 -x, 1 +x, 2 -y, 3 +y
	var sum, n float32
	for k := t.adjStart[i]; k < t.adjStart[i+1]; k++ {
		if o := t.adjOther[k]; s.side8[k] == want && s.wet[o] != 0 {
			sum, n = sum+s.cuv[2*int(o)+ax], n+1
		}
	}
	if n > 0 {
		return sum / n
	}
	return s.cuv[2*i+ax]
}

// sweFlux is the flux phase of pipes [lo, hi) (see the top of this file): the advected,
// accelerated, damped and viscous velocity into uRaw, and the raw flux u dx D into f.
func (c *cpuBackend) sweFlux(lo, hi int) {
	s := c.swe
	p := &c.p
	// Everything the loop reads but does not change, in locals: through s and p the
	// compiler would load them again after every store.
	h, dh0, base, f := c.h, c.driveHeights(), c.base, c.f
	pa, pb, axis := c.topo.pipeA, c.topo.pipeB, s.axis
	q, us, cuv, dd, cw, reg := s.q, s.us, s.cuv, s.d, s.wet, c.regular
	as, ao := c.topo.adjStart, c.topo.adjOther
	invdx, dtDx, gDtDx, vmax := 1/s.dx, s.dtDx, s.gDtDx, s.vmax
	zeta, dxf, visc3, wet := p.Zeta, p.Dxf, p.Visc3, p.Wet > 0
	slip3, dryCut := sweSlipCut(p)
	hr, corner := p.cap.recede, p.cap.corner
	for j := lo; j < hi; j++ {
		a, b := int(pa[j]), int(pb[j])
		da, db := h[a]-base[a], h[b]-base[b]
		if math.Float32bits(da)|math.Float32bits(db) == 0 {
			// Dry at both ends (h = b exactly): the upwind depth is +0 whatever the
			// velocity, so the face depth and the flux are +0 (FlushFlux's), the bits the
			// full computation gives.
			dd[j], f[j] = 0, 0
			continue
		}
		ax := int(axis[j])
		xa, xb := 2*a+ax, 2*b+ax // this axis's values of a and b
		u0 := faceVelocity(f[j], dd[j], invdx)
		// Along the axis, in momentum-conserving form (Stelling and Duinmeijer): what the
		// discharges carry in and out of the face's cell, less what the face's own velocity
		// is carried with, over the face's mean depth.
		ua := u0
		if hm := 0.5 * (da + db); hm > sweMinDepth {
			qa, qb := q[xa], q[xb]
			adv := (float32(qb*us[xb]) - float32(qa*us[xa])) - float32(u0*(qb-qa))
			ua = u0 - float32(dtDx*adv)/hm
		}
		// Across it: towards the neighbours' along-velocity, a cell away, on the side the
		// flow across comes from (chosen without a branch: its sign is unpredictable).
		// The neighbours' velocity on that side of a and of b (sweSide), the side
		// picked by vt's sign bit as element.Upwind picks: the minus side for a clear
		// bit.
		vt := 0.5 * (cuv[2*a+1-ax] + cuv[2*b+1-ax])
		plus := int(math.Float32bits(vt) >> 31)
		var sa, sb float32
		if reg[a] {
			o := int(ao[int(as[a])+(ax^(3*plus))])
			sa = cuv[2*a+ax]
			if cw[o] != 0 {
				sa = cuv[2*o+ax]
			}
		} else {
			sa = c.sweSide(a, ax, plus)
		}
		if reg[b] {
			o := int(ao[int(as[b])+(ax^(3*plus))])
			sb = cuv[2*b+ax]
			if cw[o] != 0 {
				sb = cuv[2*o+ax]
			}
		} else {
			sb = c.sweSide(b, ax, plus)
		}
		nb := 0.5 * (sa + sb)
		w := element.Abs32(vt) * dtDx
		if w > 1 { // rare: faster than the flow across a cell a substep
			w = 1
		}
		ut := ua + float32(w*(nb-ua)) // converted: never fused

		dh := dh0[a] - dh0[b]
		t1 := float32(zeta * ut)
		un := t1 + float32(gDtDx*dh)
		if wet {
			un = p.Wetting(un, t1, gDtDx, dh, da, db)
		}
		d := element.Upwind(un, da, db) // >= 0: heights never go below their floors
		if d < hr && d > DryDepth {     // rare: a thin upwind column (sweDrainDepth)
			d = c.sweDrainDepth(un, a, b, da, db, d, hr, corner)
		}
		if visc3 > 0 { // the viscosity factor (element.Params.Viscous)
			d2 := float32(d * (d + slip3))
			un *= d2 / (d2 + visc3)
		}
		if element.Abs32(un) > vmax { // rare: the clamp (see sweClamp)
			un = min(max(un, -vmax), vmax)
		}
		if d <= dryCut {
			un = 0
		}
		dd[j] = d
		f[j] = element.FlushFlux(float32(un*dxf) * d)
	}
}

// sweDrainDepth is the face depth of a pipe whose upwind column (a where un's sign bit is
// clear, else b) is d deep, thinner than the receding head hr: the other end's depth
// where that is deeper and the upwind column is a receding edge (sweRecedes), else d.
//
// A receding edge drains back into the liquid behind it through that liquid's depth. The
// SWE's flux is the velocity times the upwind depth, so an edge thinner than the bulk
// gave back only a film's worth a substep while the bulk's waves pushed the bulk's depth
// out over it: the edge drained exponentially, never dried, and stood as a film a column
// wide ahead of the bulk, which then was no edge and never receded (a fast pour at 60
// degrees stood 2.13 mm deep against the head's 2.71, the slow pour 2.00). The outflow
// scaling keeps the edge from giving more than it holds. The pipes need no such rule:
// their flux does not scale with the upwind depth.
func (c *cpuBackend) sweDrainDepth(un float32, a, b int, da, db, d, hr, corner float32) float32 {
	up, other := a, db
	if math.Float32bits(un)>>31 != 0 {
		up, other = b, da
	}
	if other > d && sweRecedes(up, d, c.h, c.base, c.topo.adjStart, c.topo.adjOther, hr, corner) {
		return other
	}
	return d
}

// sweRecedes reports whether wet column i, d deep, is a receding edge as the capillary
// head reads it (capHeadColumn, capRecedeHead): dry ground beside it below its surface,
// and thinner than hr less the corner margin (none at a sloping shore, capShoreCorner).
// The SWE takes no wetted ground (capParams.mark 0), so no flag enters the test.
func sweRecedes(i int, d float32, h, base []float32, adjStart, adjOther []int32, hr, corner float32) bool {
	hi, bi := h[i], base[i]
	faces, up := false, false
	for _, j := range adjOther[adjStart[i]:adjStart[i+1]] {
		if h[j]-base[j] <= DryDepth && base[j] < hi {
			faces = true
			up = up || base[j] > bi
		}
	}
	return faces && d < hr-capShoreCorner(up, corner)
}

// sweSlip3 is three slip lengths, in cells, of the viscosity factor with the contact angle
// at the line (capangle.go): the factor reads d (d + 3 lambda) for d^2, the drag of a film
// that slips lambda at the floor (a Navier slip, as thin-film models regularize a moving
// contact line). Without it the drag (3 nu / d^2) locked a receding edge's last
// microns, which drained as exp(-t/tau) and never dried: a drop poured as a cylinder
// stood 15% too wide after 3 s, still drawing in. With lambda = dx/12 it drew in to
// within 3% by 1 s.
const sweSlip3 = 0.25

// sweSlipCut is the SWE's flux phase's slip (3 lambda, m) and the upwind depth at or below
// which a face carries nothing: 0 and 0, or with the contact angle at the line
// (capangle.go) sweSlip3 cells and DryDepth (a dry column gives nothing: under a micron
// deep, a column beside the liquid that the gate reads high would push its film out
// ahead of the edge).
func sweSlipCut(p *stepParams) (slip3, dryCut float32) {
	if p.cap.dropA > 0 {
		return float32(sweSlip3) * p.Dxf, DryDepth
	}
	return 0, 0
}

// substepsOr: substeps so far (0 without the SWE).
func (s *sweState) substepsOr() int64 {
	if s == nil {
		return 0
	}
	return s.substeps
}

func (c *cpuBackend) saveSWE() *sweState { return c.swe }

func (c *cpuBackend) restoreSWE(d []float32) { copy(c.swe.d, d) }

// switchMethod changes the method mid-run (Sim.Set): a new CPU backend for st, with the
// heights, residuals, lifted floors, capillary head and extended pipes' history carried
// over, and the fluxes, from which the new method takes its state (writeFlux: the SWE
// derives each pipe's velocity from its flux and upwind depth; the pipes keep the
// fluxes the SWE's velocities made). Only the CPU backend changes its method mid-run.
func (s *Sim) switchMethod(st Settings) error {
	if name := s.be.name(); name != "cpu" {
		return fmt.Errorf("method cannot change to %q mid-run on the %s backend: the method changes mid-run on the cpu backend only (make the Sim with method %q)", st.Method, name, st.Method)
	}
	old, ok := s.be.(checkpointBackend)
	if !ok {
		return fmt.Errorf("method cannot change mid-run on the %s backend", s.be.name())
	}
	n := s.cols.NumColumns()
	h, r, prev := make([]float32, n), make([]float32, n), make([]float32, n)
	s.be.readHeight(h)
	s.be.readResidual(r)
	f := s.Fluxes(nil)
	wet := make([]uint8, n)
	fresh, capOn := old.saveCap(prev, wet)
	ext := old.saveExt()
	var floors []float32
	var cols []int32
	for _, i := range s.lift.lifted {
		cols = append(cols, i)
		floors = append(floors, s.lift.floor[i])
	}
	s.be.close()
	if err := s.install(s.cols, s.topo, st); err != nil {
		return err // not reached: a cpu backend is always made
	}
	s.apply(st)
	if len(cols) > 0 {
		_ = s.be.liftFloors(cols, floors)
	}
	s.be.writeHeight(h)
	s.be.writeResidual(r)
	s.be.writeFlux(f)
	cb := s.be.(checkpointBackend)
	if capOn {
		cb.restoreCap(prev, wet, fresh)
	}
	cb.restoreExt(ext)
	s.publish()
	return nil
}

// fromFluxes sets each pipe's face depth from its flux and the heights: the depth of the
// column the flux comes from (its velocity is then f / (dx d)).
func (s *sweState) fromFluxes(c *cpuBackend) {
	pa, pb := c.topo.pipeA, c.topo.pipeB
	for p, f := range c.f {
		a, b := pa[p], pb[p]
		s.d[p] = max(element.Upwind(f, c.h[a]-c.base[a], c.h[b]-c.base[b]), 0)
	}
}
