package gpusim

// Carrying the state over a terrain change (re-topology): when the terrain is replaced
// mid-run (a tool moves, an organ shifts), the liquid and the pipe fluxes of the old
// columns are mapped onto the new ones. Both functions here are pure: they read the old
// and new columns and return the new state; Sim wires them in.

import (
	"fmt"
	"math"
	"slices"

	"github.com/vpbench/vpbench/terrain"
)

// retopoRings is how far, in cells (Chebyshev distance), liquid displaced by a terrain
// change may be carried sideways: rings 1, 2, ... retopoRings around its cell. Eight cells
// covers a solid pushed into a pool over a patch up to 16 cells wide; what finds no room
// within that distance is rejected (reported, never dropped), as a source's overflow is.
const retopoRings = 8

// sameGrid reports whether two column decompositions share a grid (cell counts and cell
// size), naming the first mismatch. The domain height and the layer count may differ.
func sameGrid(a, b *terrain.Columns) error {
	switch {
	case a == nil || b == nil:
		return fmt.Errorf("terrain: no columns")
	case a.Nx != b.Nx || a.Ny != b.Ny:
		return fmt.Errorf("terrain: grid is %dx%d cells, the simulation's is %dx%d", b.Nx, b.Ny, a.Nx, a.Ny)
	case a.Dx != b.Dx:
		return fmt.Errorf("terrain: dx is %g m, the simulation's is %g m", b.Dx, a.Dx)
	}
	return nil
}

// retopoPiece is a stretch of liquid whose space became solid, waiting to be placed.
type retopoPiece struct {
	x, y  int
	z     float64 // the bottom of the displaced liquid, m
	vol   float64 // its volume over dx^2 (a depth, m); may be a sub-ulp negative residual
	above int     // the new column resting on the solid that took its place, -1 if none
}

// carryLiquid maps the liquid of the old columns (heights oldH, rounding residuals oldR)
// onto the new columns nw, on the same grid (see sameGrid; the caller checks it). It
// returns the new heights and residuals, and the volume (m^3) that found no room.
//
// Liquid in an old column lies in [Base, h]; its volume is (h - Base + r) dx^2. Per cell:
//
//   - Kept: the part of each old liquid interval that overlaps a new column's range
//     [Base, Max] stays in that column. A new column's kept lengths are stacked from its
//     Base up (liquid of two old columns that merged falls together). An old residual r
//     goes with its surface: to the new column holding h (or, if h is now inside a solid,
//     with the liquid displaced from just under h).
//   - Displaced: each stretch of an old liquid interval that lies in a new solid (between
//     two new columns, below the lowest, above the highest, or anywhere in a cell with no
//     column left) is placed, in cell order and bottom to top within a cell:
//     1. above, into the new column resting on that solid, up to its room (Max - level;
//     a room under 2^-40 of Max counts as none, see hasRoom);
//     2. beside, ring by ring (Chebyshev distance 1, 2, ... retopoRings; cells of a ring
//     in row order), into the column ColumnAt(x', y', z) of each neighbour cell, z being
//     the displaced stretch's bottom. Within a ring the liquid levels the candidates:
//     it raises the lowest levels first to one common level, each capped at its Max
//     (water filling); what the ring cannot hold goes on to the next ring;
//     3. what is left after the last ring is rejected.
//     A sub-ulp negative amount (a dry column owing a rounding whose space became solid)
//     goes whole to the first column found the same way, room or not (with none within
//     reach, to rejected, which it lowers by that crumb).
//
// Bookkeeping is in float64 depths (m). Each new column's exact level L (float64) is
// returned as the float32 height h nearest L within [Base, Max] and the residual
// r = L - h (float32), the form the solver carries; so
//
//	sum over new columns of (h - Base + r) dx^2 + rejected == sum over old of (h - Base + r) dx^2
//
// up to float64 rounding and the float32 rounding of each r (2^-24 |r|). r is at most half
// an ulp of h, except where h is clamped: a column left dry may owe (h = Base, r < 0), and
// a full one carry (h = Max, r > 0), the sub-ulp residuals of old columns whose surfaces
// were higher up, as the solver's clampHeight leaves them. Base <= h <= Max holds for
// every new column. For an unchanged terrain heights and residuals come back identical
// (a residual of exactly half an ulp included).
// The result is deterministic (no maps, no goroutines); it allocates.
func carryLiquid(old *terrain.Columns, oldH, oldR []float32, nw *terrain.Columns) (newH, newR []float32, rejected float64) {
	n := nw.NumColumns()
	c := &carrier{old: old, nw: nw, oldH: oldH, oldR: oldR, dx2: nw.Dx * nw.Dx,
		top: make([]float64, n), extra: make([]float64, n)}
	for j := range n {
		c.top[j] = float64(nw.Base[j])
	}
	// Pass 1: what stays, and the sub-ulp debts (their column does not depend on levels).
	for y := range nw.Ny {
		for x := range nw.Nx {
			c.cell(x, y, false)
		}
	}
	// Pass 2: place the displaced liquid. Levels only rise from here (but for float64
	// crumbs), so a cell with no room now never gets any: roomSAT lets whole rings with
	// none be skipped.
	c.buildRoomSAT()
	for y := range nw.Ny {
		for x := range nw.Nx {
			c.cell(x, y, true)
		}
	}
	newH = make([]float32, n)
	newR = make([]float32, n)
	for j := range n {
		newH[j], newR[j] = splitLevel(c.top[j], c.extra[j], nw.Base[j], nw.Max[j])
	}
	return newH, newR, c.rejected
}

// carrier is carryLiquid's working state.
type carrier struct {
	old, nw    *terrain.Columns
	oldH, oldR []float32
	dx2        float64
	top        []float64 // per new column: Base + the kept lengths stacked on it, m
	extra      []float64 // per new column: residuals and displaced liquid placed in it, m
	rejected   float64   // m^3
	// roomSAT is the summed-area table of the cells that had room after pass 1:
	// roomSAT[(y)*(Nx+1) + x] counts those in [0, x) x [0, y).
	roomSAT []int32
	// full marks the cells none of whose columns has room left (kept up to date in pass
	// 2, so that ring scans skip them without a ColumnAt).
	full    []bool
	ring    []retopoCand
	scratch []float64
}

func (c *carrier) level(j int) float64 { return c.top[j] + c.extra[j] }

// cell splits the liquid of the old columns of cell (x, y) over the new columns. Without
// place (pass 1) it adds the kept lengths and the residuals to their new columns and
// books the debts; with place (pass 2) it places the displaced stretches, bottom to top.
// Both passes make the same decisions, so each stretch is handled exactly once.
func (c *carrier) cell(x, y int, place bool) {
	old, nw := c.old, c.nw
	olo, ohi := old.Cell(x, y)
	nlo, nhi := nw.Cell(x, y)
	for i := olo; i < ohi; i++ {
		b := float64(old.Base[i])
		h := float64(c.oldH[i])
		r := float64(c.oldR[i])
		if h < b { // not a valid state; keep its volume as a residual
			r += h - b
			h = b
		}
		wet := h > b
		// in tells whether the surface h belongs to the interval (lo, hi] (wet: the
		// liquid just under h is there) or [lo, hi) (dry: the room above it is).
		in := func(lo, hi float64) bool {
			if wet {
				return lo < h && h <= hi
			}
			return lo <= h && h < hi
		}
		placedR := false
		for j := nlo; j < nhi; j++ {
			nb, nm := float64(nw.Base[j]), float64(nw.Max[j])
			if ov := min(h, nm) - max(b, nb); ov > 0 && !place {
				c.top[j] += ov
			}
			if !placedR && in(nb, nm) {
				if !place {
					c.extra[j] += r
				}
				placedR = true
			}
		}
		// The gaps between the new columns' ranges: gap g lies under column nlo+g
		// (g = nhi-nlo: above the topmost column).
		for g := 0; g <= nhi-nlo; g++ {
			gLo, gHi, above := math.Inf(-1), math.Inf(1), -1
			if g > 0 {
				gLo = float64(nw.Max[nlo+g-1])
			}
			if g < nhi-nlo {
				gHi, above = float64(nw.Base[nlo+g]), nlo+g
			}
			pLo, pHi := max(b, gLo), min(h, gHi)
			vol := max(pHi-pLo, 0)
			if !placedR && in(gLo, gHi) {
				vol += r
				placedR = true
				if pHi <= pLo {
					pLo = h
				}
			}
			p := retopoPiece{x: x, y: y, z: pLo, vol: vol, above: above}
			switch {
			case vol < 0 && !place:
				if j := retopoFirstColumn(nw, p); j >= 0 {
					c.extra[j] += vol
				} else {
					c.rejected += vol * c.dx2
				}
			case vol > 0 && place:
				c.place(p)
			}
		}
	}
}

// place puts a displaced stretch (vol > 0) above, then beside, and rejects the rest.
func (c *carrier) place(p retopoPiece) {
	nw := c.nw
	v := p.vol
	if j := p.above; j >= 0 {
		if l, m := c.level(j), float64(nw.Max[j]); hasRoom(l, m) {
			a := min(v, m-l)
			c.extra[j] += a
			v -= a
			c.checkFull(p.x, p.y)
		}
	}
	for d := 1; d <= retopoRings && v > 0; d++ {
		if c.roomIn(p.x, p.y, d) == c.roomIn(p.x, p.y, d-1) {
			if c.roomIn(p.x, p.y, retopoRings) == c.roomIn(p.x, p.y, d) {
				break // no room in any ring left
			}
			continue
		}
		// The ring's cells in row order, as forRing (written out: this is the hot loop).
		c.ring = c.ring[:0]
		x0, x1 := max(p.x-d, 0), min(p.x+d, nw.Nx-1)
		for cy := max(p.y-d, 0); cy <= min(p.y+d, nw.Ny-1); cy++ {
			if cy == p.y-d || cy == p.y+d {
				for cx := x0; cx <= x1; cx++ {
					c.candidate(cx, cy, p.z)
				}
				continue
			}
			if p.x-d >= 0 {
				c.candidate(p.x-d, cy, p.z)
			}
			if p.x+d < nw.Nx {
				c.candidate(p.x+d, cy, p.z)
			}
		}
		if len(c.ring) > 0 {
			v, c.scratch = waterFill(c.ring, v, c.extra, c.scratch)
			for _, k := range c.ring {
				c.checkFull(k.x, k.y)
			}
		}
	}
	if v > 0 {
		c.rejected += v * c.dx2
	}
}

// candidate adds the column of cell (cx, cy) at height z to the ring if it has room.
func (c *carrier) candidate(cx, cy int, z float64) {
	k := cy*c.nw.Nx + cx
	if c.full[k] { // a cell with no column is full too
		return
	}
	lo, hi := int(c.nw.CellStart[k]), int(c.nw.CellStart[k+1])
	j := hi - 1 // as ColumnAt: the first column whose Max >= z, else the topmost
	for i := lo; i < hi; i++ {
		if float64(c.nw.Max[i]) >= z {
			j = i
			break
		}
	}
	if l, m := c.level(j), float64(c.nw.Max[j]); hasRoom(l, m) {
		c.ring = append(c.ring, retopoCand{j, cx, cy, l, m})
	}
}

// hasRoom tells whether a column at level l below its Max m has room for liquid: more
// than 2^-40 of m, far below a float32 ulp. (A column filled to m in float64 may be left
// an ulp of float64 short; such crumbs would keep a full cell a candidate for ever.)
func hasRoom(l, m float64) bool { return m-l > m*0x1p-40 }

// buildRoomSAT records which cells have a column with room (Max above its level).
func (c *carrier) buildRoomSAT() {
	nw := c.nw
	w := nw.Nx + 1
	c.roomSAT = make([]int32, w*(nw.Ny+1))
	c.full = make([]bool, nw.Nx*nw.Ny)
	for y := range nw.Ny {
		var row int32
		for x := range nw.Nx {
			if !c.checkFull(x, y) {
				row++
			}
			c.roomSAT[(y+1)*w+x+1] = c.roomSAT[y*w+x+1] + row
		}
	}
}

// checkFull updates and returns whether cell (x, y) has no column with room left.
func (c *carrier) checkFull(x, y int) bool {
	lo, hi := c.nw.Cell(x, y)
	full := true
	for j := lo; j < hi; j++ {
		if hasRoom(c.level(j), float64(c.nw.Max[j])) {
			full = false
			break
		}
	}
	c.full[y*c.nw.Nx+x] = full
	return full
}

// roomIn counts the cells within Chebyshev distance d of (x, y) that had room after pass 1.
func (c *carrier) roomIn(x, y, d int) int32 {
	nw := c.nw
	x0, y0 := max(x-d, 0), max(y-d, 0)
	x1, y1 := min(x+d+1, nw.Nx), min(y+d+1, nw.Ny)
	w := nw.Nx + 1
	s := c.roomSAT
	return s[y1*w+x1] - s[y0*w+x1] - s[y1*w+x0] + s[y0*w+x0]
}

// retopoCand is a column that displaced liquid may go to: its level and its Max.
type retopoCand struct {
	col      int
	x, y     int // its cell
	lvl, cap float64
}

// forRing calls fn for every cell of the grid at Chebyshev distance d from (x, y), in
// row order (y, then x, ascending).
func forRing(c *terrain.Columns, x, y, d int, fn func(cx, cy int)) {
	x0, x1 := max(x-d, 0), min(x+d, c.Nx-1)
	for cy := max(y-d, 0); cy <= min(y+d, c.Ny-1); cy++ {
		if cy == y-d || cy == y+d {
			for cx := x0; cx <= x1; cx++ {
				fn(cx, cy)
			}
			continue
		}
		if x-d >= 0 {
			fn(x-d, cy)
		}
		if x+d < c.Nx {
			fn(x+d, cy)
		}
	}
}

// retopoFirstColumn is the column a piece would be tried in first: the one above it in its
// own cell, else ColumnAt of the first cell of the nearest ring that has a column; -1 if
// none lies within retopoRings.
func retopoFirstColumn(c *terrain.Columns, p retopoPiece) int {
	if p.above >= 0 {
		return p.above
	}
	for d := 1; d <= retopoRings; d++ {
		found := -1
		forRing(c, p.x, p.y, d, func(cx, cy int) {
			if found < 0 {
				found = c.ColumnAt(cx, cy, p.z)
			}
		})
		if found >= 0 {
			return found
		}
	}
	return -1
}

// waterFill pours the depth v (> 0) into the candidates (each with lvl < cap), raising the
// lowest levels first to one common level L, each capped at its cap: column k gets
// clamp(L - lvl, 0, cap - lvl), added to extra. It returns what did not fit (0 when it all
// fit: the float64 rounding of the split is given to the column that got the most), and
// the scratch buffer for reuse.
func waterFill(cs []retopoCand, v float64, extra []float64, scratch []float64) (float64, []float64) {
	var room float64
	for _, c := range cs {
		room += c.cap - c.lvl
	}
	if v >= room {
		for _, c := range cs {
			extra[c.col] += c.cap - c.lvl
		}
		return v - room, scratch
	}
	// F(L) = sum clamp(L - lvl, 0, cap - lvl) is piecewise linear, its slope +1 past each
	// lvl and -1 past each cap: walk the sorted breakpoints to where it reaches v.
	if cap(scratch) < 2*len(cs) {
		scratch = make([]float64, 2*len(cs))
	}
	lv, cp := scratch[:len(cs)], scratch[len(cs):2*len(cs)]
	for k, c := range cs {
		lv[k], cp[k] = c.lvl, c.cap
	}
	slices.Sort(lv)
	slices.Sort(cp)
	L := cp[len(cp)-1]
	x, f, slope := lv[0], 0.0, 0
	for i, j := 0, 0; j < len(cp); {
		var next float64
		up := i < len(lv) && lv[i] <= cp[j]
		if up {
			next = lv[i]
		} else {
			next = cp[j]
		}
		if slope > 0 && f+float64(slope)*(next-x) >= v {
			L = x + (v-f)/float64(slope)
			break
		}
		f += float64(slope) * (next - x)
		x = next
		if up {
			slope++
			i++
		} else {
			slope--
			j++
		}
	}
	rest, most, mostK := v, -1.0, 0
	for k, c := range cs {
		a := min(max(L-c.lvl, 0), c.cap-c.lvl)
		extra[c.col] += a
		rest -= a
		if a > most {
			most, mostK = a, k
		}
	}
	extra[cs[mostK].col] += rest
	return 0, scratch
}

// splitLevel returns the float32 height h in [base, max] and residual r (float32) of the
// exact level top + extra: h is top rounded to float32 when extra moves it by at most half
// an ulp (so an unchanged state comes back bit for bit), else the nearest float32 of the
// level, clamped; r is what h leaves out.
func splitLevel(top, extra float64, base, hmax float32) (float32, float32) {
	h0 := min(max(float32(top), base), hmax)
	e := (top - float64(h0)) + extra // exact but for extra's own rounding
	if e == 0 {
		return h0, 0
	}
	dir := float32(math.Inf(1))
	if e < 0 {
		dir = float32(math.Inf(-1))
	}
	if math.Abs(e) <= 0.5*math.Abs(float64(math.Nextafter32(h0, dir)-h0)) {
		return h0, float32(e)
	}
	h1 := min(max(float32(float64(h0)+e), base), hmax)
	return h1, float32((float64(h0) - float64(h1)) + e)
}

// mapFluxes carries the pipe fluxes over a terrain change on the same grid. A new pipe
// (a', b') takes the flux of the first old pipe (a, b), in pipe order, that joins the same
// two cells in the same direction and whose ends' liquid ranges [Base, Max] overlap the
// new ends' (a with a', b with b', a positive length each); a new pipe with no such old
// pipe starts at 0. For an unchanged terrain every flux is kept.
func mapFluxes(old *topology, oldF []float32, nw *topology) []float32 {
	oc, nc := old.cols, nw.cols
	oldCell := columnCells(oc)
	// firstPipe[i]: the first old pipe owned by column i (pipes are ordered by owner).
	firstPipe := make([]int32, oc.NumColumns()+1)
	for _, a := range old.pipeA {
		firstPipe[a+1]++
	}
	for i := range oc.NumColumns() {
		firstPipe[i+1] += firstPipe[i]
	}
	newCell := columnCells(nc)
	out := make([]float32, nw.numPipes())
	for p := range out {
		a2, b2 := int(nw.pipeA[p]), int(nw.pipeB[p])
		ca, cb := newCell[a2], newCell[b2]
		lo, hi := oc.CellStart[ca], oc.CellStart[ca+1]
		for q := firstPipe[lo]; q < firstPipe[hi]; q++ {
			a, b := int(old.pipeA[q]), int(old.pipeB[q])
			if oldCell[b] == cb && rangesOverlap(oc, a, nc, a2) && rangesOverlap(oc, b, nc, b2) {
				out[p] = oldF[q]
				break
			}
		}
	}
	return out
}

// columnCells returns the cell index (y*Nx + x) of every column.
func columnCells(c *terrain.Columns) []int32 {
	cell := make([]int32, c.NumColumns())
	for k := range c.Nx * c.Ny {
		for i := c.CellStart[k]; i < c.CellStart[k+1]; i++ {
			cell[i] = int32(k)
		}
	}
	return cell
}

// rangesOverlap tells whether column i of a and column j of b have liquid ranges
// [Base, Max] sharing a stretch of positive length.
func rangesOverlap(a *terrain.Columns, i int, b *terrain.Columns, j int) bool {
	return max(a.Base[i], b.Base[j]) < min(a.Max[i], b.Max[j])
}
