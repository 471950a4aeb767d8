package gpusim

// Flow meters: the volume per second that crosses a segment of the plan, signed, summed
// over the layers (docs/solver.md, "Flow meters"). A meter is the pipes whose cells'
// centres lie on the two sides of its segment, each with the sign of its crossing; its
// rate is their fluxes' signed sum now, its total the volume they moved since it was
// made: the flux of every step times dt, exactly what the heights received, so that a
// meter across a channel and the volume upstream of it balance to rounding. While a Sim
// has meters its steps run one at a time (the totals read the fluxes after each).

import (
	"fmt"
	"math"
)

// Meter is a flow meter's segment: from (X1, Y1) to (X2, Y2), m, counting the pipes
// whose shared free interval reaches into [Zmin, Zmax] (m; -Inf and +Inf: every layer).
// Its rate is positive for liquid crossing from the left of the segment to its right,
// looking from (X1, Y1) towards (X2, Y2).
type Meter struct {
	X1, Y1, X2, Y2 float64
	Zmin, Zmax     float64
}

// meterState is one meter: its pipes, their signs, and the volume counted.
type meterState struct {
	m     Meter
	pipes []int32
	sign  []float32
	total float64 // m^3 since the meter was made
}

// AddMeter makes a flow meter and returns its id (0, 1, ...). The segment must have a
// length and lie in the domain's plan; a meter that no pipe crosses is an error (a
// segment shorter than a cell between two centres, or one along a wall).
func (s *Sim) AddMeter(m Meter) (int, error) {
	for _, f := range []struct {
		n string
		v float64
	}{{"from[1] (x)", m.X1}, {"from[2] (y)", m.Y1}, {"to[1] (x)", m.X2}, {"to[2] (y)", m.Y2}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return 0, fmt.Errorf("flow meter: %s is %v: it must be a finite number (m)", f.n, f.v)
		}
	}
	if math.IsNaN(m.Zmin) || math.IsNaN(m.Zmax) || !(m.Zmin <= m.Zmax) {
		return 0, fmt.Errorf("flow meter: the height range [%g, %g] is empty", m.Zmin, m.Zmax)
	}
	if m.X1 == m.X2 && m.Y1 == m.Y2 {
		return 0, fmt.Errorf("flow meter: from and to are the same point: a meter is a segment")
	}
	c := s.cols
	sx, sy := float64(c.Nx)*c.Dx, float64(c.Ny)*c.Dx
	for _, p := range [][2]float64{{m.X1, m.Y1}, {m.X2, m.Y2}} {
		if p[0] < 0 || p[1] < 0 || p[0] > sx || p[1] > sy {
			return 0, fmt.Errorf("flow meter: {%g, %g} is outside the domain's plan (%g x %g m)", p[0], p[1], sx, sy)
		}
	}
	st := meterState{m: m}
	t := s.topo
	for p := range t.numPipes() {
		a, b := int(t.pipeA[p]), int(t.pipeB[p])
		ka, kb := cellOf(c, a), cellOf(c, b)
		ax, ay, bx, by := ka%c.Nx, ka/c.Nx, kb%c.Nx, kb/c.Nx
		pa := [2]float64{(float64(ax) + 0.5) * c.Dx, (float64(ay) + 0.5) * c.Dx}
		pb := [2]float64{(float64(bx) + 0.5) * c.Dx, (float64(by) + 0.5) * c.Dx}
		sg, ok := crossing(m, pa, pb)
		if !ok {
			continue
		}
		lo := float64(max(c.Base[a], c.Base[b]))
		hi := float64(min(c.Max[a], c.Max[b]))
		if hi < m.Zmin || lo > m.Zmax {
			continue
		}
		st.pipes = append(st.pipes, int32(p))
		st.sign = append(st.sign, sg)
	}
	if len(st.pipes) == 0 {
		return 0, fmt.Errorf("flow meter: no pipe between two columns crosses the segment {%g, %g} to {%g, %g} in heights [%g, %g]: make it cross a cell's centre line",
			m.X1, m.Y1, m.X2, m.Y2, m.Zmin, m.Zmax)
	}
	s.meters = append(s.meters, st)
	return len(s.meters) - 1, nil
}

// crossing tells whether the segment from cell centre pa to pb crosses the meter's
// segment, and the sign of the crossing (+1 from its left to its right). The meter's
// segment includes its start and not its end, and the centres' segment its start and not
// its end, so that a meter made of two segments meeting at a point, or passing through a
// centre, counts each pipe once.
func crossing(m Meter, pa, pb [2]float64) (float32, bool) {
	dx, dy := m.X2-m.X1, m.Y2-m.Y1
	side := func(p [2]float64) float64 { return dx*(p[1]-m.Y1) - dy*(p[0]-m.X1) } // > 0: left
	sa, sb := side(pa), side(pb)
	if (sa > 0) == (sb > 0) {
		return 0, false
	}
	// Where the centres' segment meets the meter's line, as a share of the meter.
	ex, ey := pb[0]-pa[0], pb[1]-pa[1]
	den := dx*ey - dy*ex
	if den == 0 {
		return 0, false
	}
	u := ((pa[0]-m.X1)*ey - (pa[1]-m.Y1)*ex) / den
	if u < 0 || u >= 1 {
		return 0, false
	}
	if sa > 0 {
		return 1, true // left to right
	}
	return -1, true
}

// MeterRate returns meter id's rate now, m^3/s (its pipes' fluxes, signed).
func (s *Sim) MeterRate(id int) (float64, error) {
	if id < 0 || id >= len(s.meters) {
		return 0, fmt.Errorf("flow meter %d does not exist (%d made)", id, len(s.meters))
	}
	s.Sync()
	return s.meterRate(&s.meters[id]), nil
}

// MeterTotal returns the volume that crossed meter id since it was made, m^3.
func (s *Sim) MeterTotal(id int) (float64, error) {
	if id < 0 || id >= len(s.meters) {
		return 0, fmt.Errorf("flow meter %d does not exist (%d made)", id, len(s.meters))
	}
	s.Sync()
	return s.meters[id].total, nil
}

// Meters is the number of flow meters made.
func (s *Sim) Meters() int { return len(s.meters) }

// Meter is meter id's line and height range, as made (AddMeter).
func (s *Sim) Meter(id int) (Meter, error) {
	if id < 0 || id >= len(s.meters) {
		return Meter{}, fmt.Errorf("no flow meter with id %d", id)
	}
	return s.meters[id].m, nil
}

// MeterTotals returns every meter's total, in id order (a checkpoint's), and
// SetMeterTotals sets them (a resume's; the same meters made again, in order).
func (s *Sim) MeterTotals() []float64 {
	out := make([]float64, len(s.meters))
	for i := range s.meters {
		out[i] = s.meters[i].total
	}
	return out
}

// SetMeterTotals sets the meters' totals (MeterTotals); the counts must match.
func (s *Sim) SetMeterTotals(t []float64) error {
	if len(t) != len(s.meters) {
		return fmt.Errorf("flow meters: %d totals for %d meters", len(t), len(s.meters))
	}
	for i, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("flow meter %d: total %v", i, v)
		}
	}
	for i, v := range t {
		s.meters[i].total = v
	}
	return nil
}

// meterRate is the signed sum of the meter's pipes' fluxes now.
func (s *Sim) meterRate(m *meterState) float64 {
	var q float64
	if pf, ok := s.be.(pipeFlux); ok {
		for k, p := range m.pipes {
			q += float64(m.sign[k]) * float64(*pf.flux(int(p)))
		}
		return q
	}
	if len(s.vel.flux) != s.topo.numPipes() {
		s.vel.flux = make([]float32, s.topo.numPipes())
	}
	s.be.readFlux(s.vel.flux)
	for k, p := range m.pipes {
		q += float64(m.sign[k]) * float64(s.vel.flux[p])
	}
	return q
}

// countMeters adds one step's crossings to every meter's total: the fluxes the step
// applied, times dt.
func (s *Sim) countMeters() {
	for i := range s.meters {
		m := &s.meters[i]
		m.total += s.meterRate(m) * s.dt
	}
}
