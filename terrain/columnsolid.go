package terrain

import "math"

// columnsSolid is the solid a Columns value describes: ColumnsSolid.
type columnsSolid struct{ c *Columns }

// ColumnsSolid returns the solid described by c: a point is free where it lies strictly
// inside one of its cell's free intervals (Min, Max), and solid everywhere else: between
// the columns, below the lowest (and below the domain floor), above the topmost, and in
// a cell with no column. A point outside the grid horizontally belongs to the nearest
// cell. It is how a terrain known only by its columns (a checkpoint's) is meshed and
// extracted again; c must pass Columns.Validate and is shared, not copied (Columns are
// never modified once built).
//
// Dist is the vertical distance to the nearest interval end in the point's cell:
// positive inside a free interval, negative (or zero, on an end) in the solid; -Height
// in a cell with no column. It is not continuous across cells (the solid is made of
// vertical prisms, blocky), so the solid's Bound is SignOnly, whatever its magnitude
// tells along one vertical line.
//
// The solid lists its intervals along vertical lines (see Extract), so extraction never
// marches it, and Extract takes its intervals as they are, with no tolerance: Extract of
// ColumnsSolid(c) on c's own grid (the same Nx, Ny, Dx, Height) and layers gives back c's
// columns bit for bit (CellStart, Min, Base, Max), for columns with Min == Base (all that
// Extract makes); Dropped is 0 there, the dropped intervals being solid in c. Its surface
// (SurfaceMesh) is the columns' blocky outline, good for pictures.
func ColumnsSolid(c *Columns) Solid { return &columnsSolid{c} }

func (s *columnsSolid) Bound() Bound { return SignOnly }

// cellIndex is the cell along one axis holding coordinate v (m), clamped to the grid.
func cellIndex(v, dx float64, n int) int {
	f := math.Floor(v / dx)
	switch {
	case !(f >= 0): // NaN too
		return 0
	case f >= float64(n):
		return n - 1
	}
	return int(f)
}

// cell returns the index range of the columns of the cell holding (x, y).
func (s *columnsSolid) cell(x, y float64) (lo, hi int) {
	c := s.c
	return c.Cell(cellIndex(x, c.Dx, c.Nx), cellIndex(y, c.Dx, c.Ny))
}

func (s *columnsSolid) Dist(p Vec3) float64 {
	c := s.c
	lo, hi := s.cell(p.X, p.Y)
	if lo == hi {
		return -c.Height
	}
	z, d := p.Z, math.Inf(1)
	for i := lo; i < hi; i++ {
		a, b := float64(c.Min[i]), float64(c.Max[i])
		if z > a && z < b {
			return min(z-a, b-z)
		}
		d = min(d, math.Abs(z-a), math.Abs(z-b))
	}
	return -d // NaN for a NaN z: the callers report it
}

// columnsAlong appends, for alongLine, the solid intervals of s on the line o + t d (d
// vertical: d.X = d.Y = 0, d.Z != 0), cut to [lo, hi]: the gaps between the cell's free
// intervals, in order of t.
func (l *liner) columnsAlong(s *columnsSolid, ln line, lo, hi float64) {
	c := s.c
	first, last := s.cell(ln.o.X, ln.o.Y)
	oz, dz := ln.o.Z, ln.d.Z
	// Gap k (0 <= k <= n) lies between free interval k-1 and free interval k, in z.
	n := last - first
	gap := func(k int) {
		a, b := math.Inf(-1), math.Inf(1)
		if k > 0 {
			a = float64(c.Max[first+k-1])
		}
		if k < n {
			b = float64(c.Min[first+k])
		}
		ta, tb := (a-oz)/dz, (b-oz)/dz
		if dz < 0 {
			ta, tb = tb, ta
		}
		l.clip(ta, tb, lo, hi)
	}
	if dz > 0 {
		for k := 0; k <= n; k++ {
			gap(k)
		}
	} else {
		for k := n; k >= 0; k-- {
			gap(k)
		}
	}
}

// columnsFree fills r.spans with s's free intervals on the vertical line of r, cut to
// [0, r.height], exactly as s holds them (Extract's path for a ColumnsSolid).
func (r *ray) columnsFree(s *columnsSolid) {
	c := s.c
	lo, hi := s.cell(r.x, r.y)
	for i := lo; i < hi; i++ {
		a, b := max(float64(c.Min[i]), 0), min(float64(c.Max[i]), r.height)
		if float32(a) < float32(b) {
			r.spans = append(r.spans, span{a, b})
		}
	}
}
