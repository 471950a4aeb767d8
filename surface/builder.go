package surface

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	"github.com/vpbench/vpbench/terrain"
)

// Directions of the 8-neighbourhood, counter-clockwise from +x. opp(d) = (d+4)&7.
const (
	dirE = iota
	dirNE
	dirN
	dirNW
	dirW
	dirSW
	dirS
	dirSE
)

var (
	dirX = [8]int32{1, 1, 0, -1, -1, -1, 0, 1}
	dirY = [8]int32{0, 1, 1, 1, 0, -1, -1, -1}
)

func opp(d int) int { return (d + 4) & 7 }

// dirOf returns the direction of the step (sx, sy), both in {-1, 0, 1}, not both 0.
func dirOf(sx, sy int32) int {
	return int(dirTable[(sy+1)*3+sx+1])
}

var dirTable = [9]int8{dirSW, dirS, dirSE, dirW, -1, dirE, dirNW, dirN, dirNE}

// Global minimum depth, in cells (paper Sec. 4.4: 0.05 dx), and the clearance eps above
// a terrain vertex that the local minimum heights aim for, in cells.
const (
	globalMinCells = 0.05
	epsCells       = 0.01
)

// noLinks is a vertex's 8 link slots before links.
var noLinks = [8]int32{-1, -1, -1, -1, -1, -1, -1, -1}

// noCandidate marks a direction whose neighbour cell has no column the link search
// could find.
const noCandidate = 255

// Column flags, rewritten every frame.
const (
	flagWet      = 1 << iota // h > b
	flagBoundary             // dry, linked to a wet column: a dry vertex
	flagExtra                // the wall of an extra vertex
)

// Builder builds the liquid surface of one terrain (see the package documentation). It
// is not safe for concurrent use; Build's result is owned by the Builder and overwritten
// by the next Build.
//
// Internally a frame works on vertices: the wet columns first (in column order), then
// the dry columns linked to them, then the extra vertices. Links, heights and the
// meniscus state are stored per vertex, so that every pass after the first reads
// contiguous memory however few of the columns are wet.
type Builder struct {
	cols   *terrain.Columns
	s      Settings
	n      int // columns
	nx, ny int
	dx     float64

	// Terrain-only data, from NewBuilder.
	st       []colState // per column: link range, base and this frame's clamped height
	colXY    []uint32   // cell of each column: x | y<<16
	cellMask []uint8    // per cell: bit d set when the neighbour in direction d exists and has a column
	dOff     [8]int32   // cell index offset of each direction
	candOff  []uint8    // 8 per column: where the link search starts in the neighbour cell (see probe)
	rowCols  []int32    // cumulative count of columns over the rows before (len ny+1)
	hmin     []float32  // minimum surface height of a wet column, m
	local    []float32  // l_k, m: the local minimum depth from the terrain mesh (>= global)
	vertKept int        // terrain vertices that constrained the local heights
	vertSkip int        // terrain vertices discarded or without a column in their quartet

	// Per column, per frame.
	flag    []uint8
	vertOf  []int32 // per column: its vertex (wet and boundary columns); -1 for other dry ones until links
	extraOf []int32 // per wall column (flagExtra): its extra vertex, counted from 0
	cellNW  []uint8 // per cell: its number of wet vertices (0 .. Layers)
	cellV0  []int32 // per cell with wet vertices: the first (they are consecutive)
	cellDry []bool  // per cell: it holds a dry vertex or an extra vertex
	rowWet  []int32 // cumulative count of wet cells over the rows before (len ny+1)

	// Per frame lists.
	wetList  []int32 // vertex v < nWet is column wetList[v]
	dryList  []int32 // vertex nWet+k is column dryList[k]
	extraCol []int32 // vertex nWet+nDry+e stands on wall column extraCol[e]
	facing   []int32 // pairs (wet vertex, direction) facing an unlinked wall
	ring     []int32 // the meniscus's first ring (vertices), in a fixed order

	// Per vertex, per frame.
	lk          []int32   // 8 per vertex: the linked vertex in each direction, or -1
	zv          []float32 // surface height, m
	basev       []float32 // base of the column (of the wall for an extra vertex), m
	vxy         []uint32  // cell: x | y<<16
	edge        []bool    // wet vertex linked to a dry or extra vertex (first ring)
	extraFacing []uint8   // per extra vertex: directions whose link is a column facing the wall

	// Contour (contour.go): the contact vertices, numbered after the nodes (the wet, dry
	// and extra vertices).
	nodes      int32   // wet + dry + extra vertices this frame
	contactOf  []int32 // 8 per wet vertex: a first-ring vertex's contact on each floor link (from 0), else -1
	ctSlot     []int32 // per contact vertex (from 0): its link slot 8v+d
	tanContact float64 // tan of the contact angle the contour uses

	// Sides (sides.go).
	sideStart int32   // the first side vertex
	sideTri   int     // where the sides' triangles start in the mesh's indices
	sideOf    []int32 // per wet vertex on the border being closed: its first side vertex

	// Meniscus, per vertex.
	band   []int32
	dist   []float32 // distance to the NBC, m (+Inf outside the band)
	nbc    []int32   // the NBC (a dry or extra vertex; -2 outside the band)
	nxy    []uint32  // the NBC's cell, x | y<<16
	sweeps int       // dead-reckoning sweeps of the last frame
	vcap   int       // the most vertices the per-vertex arrays have held

	pool *pool
	wk   []worker
	// Method values made once, so that handing them to the pool allocates nothing.
	fClassify, fWetVertices, fLinks, fLinksBack, fBoundary, fBLinks, fTri, fTilt, fContacts, fDiagonals func(w, lo, hi int)
	fMeniscus                                                                                           func()       // the meniscus, then plain normals (see triangulate)
	normalsNext                                                                                         atomic.Int32 // the next block of plain normals to take (see takePlainNormals)
	h                                                                                                   []float32    // the heights of the frame being built

	mesh Mesh
}

// colState is what the link test reads of a column, together in memory.
type colState struct {
	lo   float32 // bottom of the link range: Max of the column below, -Inf for the lowest
	max  float32
	base float32
	hc   float32 // this frame's height clamped to [base, max]; base when dry
}

// worker is one goroutine's scratch: lists it builds for its chunk, joined in chunk
// order afterwards.
type worker struct {
	wet []int32 // heights: the chunk's wet columns

	dry    []int32 // links: pairs (link slot, dry column) of the chunk, forward directions
	facing []int32 // links: pairs (vertex, direction) facing an unlinked wall, forward

	dryBack, facingBack []int32  // the same for the backward directions
	ring                []int32  // links: wet vertices of the chunk linked to a dry column
	idx                 []uint32 // triangulate: triangles of the chunk

	nodesA, nodesB []int32
	cliques        []clique
	inQuad         [16]int32
	_              [64]byte // keep workers off each other's cache lines
}

// clique is a group of three mutually linked vertices in a quartet: the vertex at each
// corner (a, b, c, d = (x,y), (x+1,y), (x,y+1), (x+1,y+1)), -1 at the corner it omits.
type clique struct {
	node [4]int32
	omit int
	keep bool
}

// NewBuilder prepares the surface of cols. terrainMesh is the terrain's surface (from
// terrain.SurfaceMesh of the solid cols was extracted from) and sets the local minimum
// heights (paper Sec. 4.4); nil means no local minimum (the global 0.05 dx only).
func NewBuilder(cols *terrain.Columns, terrainMesh *terrain.Mesh, s Settings) (*Builder, error) {
	return newBuilderWorkers(cols, terrainMesh, s, 0)
}

// newBuilderWorkers is NewBuilder with a number of workers (0: GOMAXPROCS, at most
// maxWorkers).
func newBuilderWorkers(cols *terrain.Columns, terrainMesh *terrain.Mesh, s Settings, workers int) (*Builder, error) {
	if cols == nil {
		return nil, fmt.Errorf("surface: no columns")
	}
	if err := cols.Validate(); err != nil {
		return nil, fmt.Errorf("surface: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if !(cols.Dx > 0) || math.IsInf(cols.Dx, 0) {
		return nil, fmt.Errorf("surface: columns have dx = %g", cols.Dx)
	}
	if terrainMesh != nil {
		if len(terrainMesh.Positions)%3 != 0 || len(terrainMesh.Normals) != len(terrainMesh.Positions) {
			return nil, fmt.Errorf("surface: terrain mesh has %d position and %d normal values", len(terrainMesh.Positions), len(terrainMesh.Normals))
		}
	}
	n := cols.NumColumns()
	// Vertices: at most every column, plus one extra vertex per column; 8 links each.
	if n >= math.MaxInt32/32 || cols.Nx*cols.Ny >= math.MaxInt32/4 || cols.Nx > 1<<16-1 || cols.Ny > 1<<16-1 || cols.Layers >= noCandidate {
		return nil, fmt.Errorf("surface: %d columns on %dx%d cells: too many", n, cols.Nx, cols.Ny)
	}
	b := &Builder{cols: cols, s: s, n: n, nx: cols.Nx, ny: cols.Ny, dx: cols.Dx}
	b.st = make([]colState, n)
	b.colXY = make([]uint32, n)
	b.cellMask = make([]uint8, b.nx*b.ny)
	for d := range 8 {
		b.dOff[d] = dirY[d]*int32(b.nx) + dirX[d]
	}
	for y := 0; y < b.ny; y++ {
		for x := 0; x < b.nx; x++ {
			var mask uint8
			for d := range 8 {
				nx, ny := x+int(dirX[d]), y+int(dirY[d])
				if nx >= 0 && ny >= 0 && nx < b.nx && ny < b.ny {
					if lo, hi := cols.Cell(nx, ny); hi > lo {
						mask |= 1 << d
					}
				}
			}
			b.cellMask[y*b.nx+x] = mask
			lo, hi := cols.Cell(x, y)
			for k := lo; k < hi; k++ {
				b.colXY[k] = uint32(x) | uint32(y)<<16
				b.st[k] = colState{lo: float32(math.Inf(-1)), max: cols.Max[k], base: cols.Base[k], hc: cols.Base[k]}
				if k > lo {
					b.st[k].lo = cols.Max[k-1]
				}
			}
		}
	}
	// The link search of column k in direction d starts at the neighbour's first column
	// whose max is above k's base (the liquid height never drops below the base);
	// noCandidate when there is none.
	b.candOff = make([]uint8, 8*n)
	for k := range n {
		x, y := b.cellOf(int32(k))
		for d := range 8 {
			b.candOff[8*k+d] = noCandidate
			nx, ny := int(x+dirX[d]), int(y+dirY[d])
			if nx < 0 || ny < 0 || nx >= b.nx || ny >= b.ny {
				continue
			}
			lo, hi := cols.Cell(nx, ny)
			for j := lo; j < hi; j++ {
				if cols.Max[j] > cols.Base[k] {
					b.candOff[8*k+d] = uint8(j - lo)
					break
				}
			}
		}
	}
	b.rowCols = make([]int32, b.ny+1)
	for y := range b.ny + 1 {
		b.rowCols[y] = cols.CellStart[y*b.nx]
	}
	b.minimumHeights(terrainMesh)

	b.flag = make([]uint8, n)
	b.vertOf = make([]int32, n)
	for k := range b.vertOf {
		b.vertOf[k] = -1
	}
	b.extraOf = make([]int32, n)
	b.cellNW = make([]uint8, b.nx*b.ny)
	b.cellV0 = make([]int32, b.nx*b.ny)
	b.cellDry = make([]bool, b.nx*b.ny)
	b.rowWet = make([]int32, b.ny+1)

	// Per-vertex storage for a frame where a quarter of the columns are wet; it grows
	// when a frame needs more, and stays.
	b.resize(n/4 + 64)
	b.pool = newPool(workers)
	b.wk = make([]worker, b.pool.workers)
	b.fClassify, b.fWetVertices = b.classifyRows, b.wetVertices
	b.fLinks, b.fLinksBack = b.linksForward, b.linksBackward
	b.fBoundary, b.fBLinks, b.fTri = b.boundaryChunk, b.boundaryLinksChunk, b.triChunk
	b.fTilt = b.tiltNormals
	b.fContacts, b.fDiagonals = b.contactChunk, b.diagonalChunk
	b.fMeniscus = func() {
		if b.s.Meniscus {
			b.meniscus()
		}
		b.takePlainNormals()
	}
	// The pool's goroutines hold only their channels: when b is collected, close them.
	runtime.AddCleanup(b, func(p *pool) { p.stop() }, b.pool)
	return b, nil
}

// SetSettings replaces the settings; what NewBuilder precomputed stays valid.
func (b *Builder) SetSettings(s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	b.s = s
	return nil
}

// Settings returns the current settings.
func (b *Builder) Settings() Settings { return b.s }

// Build makes the surface for the liquid heights h (absolute, m; one per column, as
// gpusim.Snapshot.Height). The result is owned by b and valid until the next Build. It
// panics when len(h) is not the number of columns.
func (b *Builder) Build(h []float32) *Mesh {
	if len(h) != b.n {
		panic(fmt.Sprintf("surface: Build got %d heights for %d columns", len(h), b.n))
	}
	b.nextFrame()
	b.h = h
	b.heights()
	b.h = nil
	b.links()
	b.boundary()
	b.extras()
	if linkBoundaryPairs {
		b.boundaryLinks()
	}
	b.contacts()
	b.band = b.band[:0]
	b.triangulate()
	if b.s.Meniscus && len(b.band) > 0 {
		b.pool.run(len(b.band), minHeavy, b.fTilt)
	}
	b.boundaryNormals()
	b.contactNormals()
	b.sides()
	return &b.mesh
}

// nextFrame empties the lists.
func (b *Builder) nextFrame() {
	b.wetList = b.wetList[:0]
	b.dryList = b.dryList[:0]
	b.extraCol = b.extraCol[:0]
	b.extraFacing = b.extraFacing[:0]
	b.facing = b.facing[:0]
	b.ring = b.ring[:0]
	b.mesh.Indices = b.mesh.Indices[:0]
}

// numVertices is the number of output vertices: wet columns, boundary-dry columns, extra
// vertices, in that order.
func (b *Builder) numVertices() int { return len(b.wetList) + len(b.dryList) + len(b.extraCol) }

// nWet is the number of wet vertices (the first ones).
func (b *Builder) nWet() int32 { return int32(len(b.wetList)) }

// isWet reports whether vertex v is a wet column.
func (b *Builder) isWet(v int32) bool { return v < int32(len(b.wetList)) }

// L returns the vertex linked to vertex v in direction d, or -1.
func (b *Builder) L(v int32, d int) int32 { return b.lk[8*v+int32(d)] }

// resize sets the length of the per-vertex arrays to nv, keeping their contents.
func (b *Builder) resize(nv int) {
	b.vcap = max(b.vcap, nv)
	b.lk = resizeKeep(b.lk, 8*nv)
	b.zv = resizeKeep(b.zv, nv)
	b.basev = resizeKeep(b.basev, nv)
	b.vxy = resizeKeep(b.vxy, nv)
	b.nxy = resizeKeep(b.nxy, nv)
	b.edge = resizeKeep(b.edge, nv)
	b.dist = resizeKeep(b.dist, nv)
	b.nbc = resizeKeep(b.nbc, nv)
	m := &b.mesh
	m.Positions = resizeKeep(m.Positions, 3*nv)
	m.Normals = resizeKeep(m.Normals, 3*nv)
	m.Opacity = resizeKeep(m.Opacity, nv)
}

// resizeKeep returns s with length n and its first min(len, n) elements kept, reusing
// its storage when large enough (new storage has room to grow).
func resizeKeep[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	t := make([]T, n, n+n/4+64)
	copy(t, s)
	return t
}

// heights classifies the columns: the clamped height of each, the flags, the wet cells
// and the list of wet columns, numbered in column order. classifyRows finds the wet
// columns of row chunks (a row's cells and columns belong to one chunk) and counts them
// per cell and row; their lists joined in order are the wet vertices, which
// wetVertices then sets up in even shares. The result does not depend on the chunks.
func (b *Builder) heights() {
	clear(b.cellNW)
	clear(b.cellDry)
	clear(b.rowWet)
	k := b.pool.runWeighted(b.ny, b.rowCols, minLight, b.fClassify)
	total := 0
	for w := range k {
		total += len(b.wk[w].wet)
	}
	b.wetList = resizeKeep(b.wetList, total)[:0]
	for w := range k {
		b.wetList = append(b.wetList, b.wk[w].wet...)
	}
	b.resize(total)
	b.pool.run(total, minHeavy, b.fWetVertices)
	for y := range b.ny {
		b.rowWet[y+1] += b.rowWet[y]
	}
}

// classifyRows lists the wet columns of rows lo .. hi-1 in the chunk's worker, counts
// them per cell (cellNW) and the wet cells per row (rowWet, before the prefix sum), and
// resets the columns that were wet or on the boundary last frame and are dry now.
func (b *Builder) classifyRows(w, lo, hi int) {
	wk := &b.wk[w]
	wk.wet = wk.wet[:0]
	st, flag, vertOf, colXY := b.st, b.flag, b.vertOf, b.colXY
	cellNW, rowWet := b.cellNW, b.rowWet
	nx := int32(b.nx)
	first, end := b.rowCols[lo], b.rowCols[hi]
	h, base := b.h[first:end], b.cols.Base[first:end]
	for k := range h {
		hk, bk := h[k], base[k]
		c := first + int32(k)
		if hk > bk { // false for NaN
			wk.wet = append(wk.wet, c)
			xy := colXY[c]
			x, y := int32(xy&0xffff), int32(xy>>16)
			if cell := y*nx + x; cellNW[cell] == 0 {
				cellNW[cell] = 1
				rowWet[y+1]++
			} else {
				cellNW[cell]++
			}
		} else if flag[c] != 0 {
			// Dry now, wet or on the boundary last frame (flag 0 means hc = base and no
			// vertex already: most columns, most frames, write nothing).
			st[c].hc = bk
			flag[c] = 0
			vertOf[c] = -1
		}
	}
}

// wetVertices sets up the wet vertices lo .. hi-1: clamped height, flags, position,
// opacity, link slots at -1, and the first vertex of each wet cell (cellV0, written by
// that vertex only).
func (b *Builder) wetVertices(_, lo, hi int) {
	st, flag, vertOf, base, hmin, colXY := b.st, b.flag, b.vertOf, b.cols.Base, b.hmin, b.colXY
	h := b.h[:b.n]
	pos, opacity := b.mesh.Positions, b.mesh.Opacity
	dx := b.dx
	inv := float32(1 / b.s.DepthMax)
	nx := int32(b.nx)
	prevCell := int32(-1)
	if lo > 0 {
		prevCell = b.cellIndex(b.wetList[lo-1])
	}
	for v := int32(lo); v < int32(hi); v++ {
		k := b.wetList[v]
		s := &st[k]
		hk, bk := min(h[k], s.max), base[k]
		s.hc = hk
		flag[k] = flagWet
		vertOf[k] = v
		z := min(max(hk, hmin[k]), s.max)
		b.zv[v] = z
		b.basev[v] = bk
		xy := colXY[k]
		x, y := int32(xy&0xffff), int32(xy>>16)
		b.vxy[v] = xy
		*(*[8]int32)(b.lk[8*v:]) = noLinks // links set them (see linksForward)
		p := pos[3*v : 3*v+3 : 3*v+3]
		p[0] = float32((float64(x) + 0.5) * dx)
		p[1] = float32((float64(y) + 0.5) * dx)
		p[2] = z
		opacity[v] = min((hk-bk)*inv, 1)
		if c := y*nx + x; c != prevCell {
			b.cellV0[c] = v
			prevCell = c
		}
	}
}

// vcell returns the cell coordinates of vertex v.
func (b *Builder) vcell(v int32) (int32, int32) { return unpack(b.vxy[v]) }

// unpack splits a packed cell x | y<<16.
func unpack(xy uint32) (int32, int32) { return int32(xy & 0xffff), int32(xy >> 16) }

// cellOf returns the cell coordinates of column k.
func (b *Builder) cellOf(k int32) (int32, int32) {
	xy := b.colXY[k]
	return int32(xy & 0xffff), int32(xy >> 16)
}

// cellIndex returns the cell index of column k.
func (b *Builder) cellIndex(k int32) int32 {
	xy := b.colXY[k]
	return int32(xy>>16)*int32(b.nx) + int32(xy&0xffff)
}

// find returns the column of cell whose link range (lo, max) holds z, or -1.
func (b *Builder) find(cell int32, z float32) int32 {
	cs := b.cols.CellStart
	for k := cs[cell]; k < cs[cell+1]; k++ {
		if s := &b.st[k]; z < s.max {
			if s.lo < z {
				return k
			}
			return -1
		}
	}
	return -1
}

// links sets the 8 links of every wet vertex (paper Sec. 4.1), numbers the dry columns
// linked to a wet one (after the wet ones), and collects the directions where a wet
// column faces the wall of a column it is not linked to (extra vertices, Sec. 4.3) and
// the first ring of the meniscus.
//
// The link test is symmetric (i links j exactly when j links i: each holds the other's
// height in its open range, and the ranges of a cell are disjoint), so the search runs in
// the four forward directions only, and a link found there is also written as the
// backward link of the other end (linksForward); afterwards only a backward direction
// left unlinked, at the wet boundary, is searched, for a dry column or a wall
// (linksBackward). This halves the searches, the largest cost of a frame.
func (b *Builder) links() {
	chunks := [2]int{
		b.pool.run(len(b.wetList), minHeavy, b.fLinks),
		b.pool.run(len(b.wetList), minHeavy, b.fLinksBack),
	}
	nw := int32(len(b.wetList))
	// The forward lists of every chunk, then the backward ones: an order that does not
	// depend on the number of chunks.
	for pass, k := range chunks {
		for w := range k {
			wk := &b.wk[w]
			dry, facing := wk.dry, wk.facing
			if pass == 1 {
				dry, facing = wk.dryBack, wk.facingBack
			}
			for p := 0; p < len(dry); p += 2 {
				slot, j := dry[p], dry[p+1]
				if b.flag[j]&flagBoundary == 0 {
					b.flag[j] |= flagBoundary
					b.cellDry[b.cellIndex(j)] = true
					b.vertOf[j] = nw + int32(len(b.dryList))
					b.dryList = append(b.dryList, j)
				}
				b.lk[slot] = b.vertOf[j]
			}
			b.facing = append(b.facing, facing...)
		}
	}
	for w := range chunks[1] {
		b.ring = append(b.ring, b.wk[w].ring...)
	}
}

// linksForward does the link test of the wet vertices lo .. hi-1 in the forward
// directions (E, NE, N, NW). A link to a wet vertex j is written both ways: v's forward
// slot and j's backward one (every slot has one writer: the link's forward end; heights
// set them all to -1). A link to a dry column is left at -1 and noted (slot, column) for
// links to number it.
func (b *Builder) linksForward(w, lo, hi int) {
	wk := &b.wk[w]
	wk.dry, wk.facing = wk.dry[:0], wk.facing[:0]
	cs, st, vertOf, lk := b.cols.CellStart, b.st, b.vertOf, b.lk
	dOff := b.dOff
	for v := lo; v < hi; v++ {
		i := b.wetList[v]
		si := st[i]
		cell := b.cellIndex(i)
		mask := b.cellMask[cell]
		cand := b.candOff[8*i : 8*i+4 : 8*i+4]
		edge := false
		for d := range 4 {
			if mask&(1<<d) == 0 { // outside the domain, or a cell without columns
				continue
			}
			// The column whose range (lo, max) holds si.hc: the first from the candidate
			// on whose max is above it, if its lo is below. A cell with one column needs
			// no candidate (and most cells have one).
			nc := cell + dOff[d]
			j, end := cs[nc], cs[nc+1]
			if end-j > 1 {
				off := cand[d]
				if off == noCandidate {
					continue
				}
				j += int32(off)
			}
			sj := &st[j]
			if !(si.hc < sj.max && sj.lo < si.hc) {
				if j, sj = b.search(j, end, si.hc); j < 0 {
					continue
				}
			}
			if hj := sj.hc; si.lo < hj && hj < si.max {
				if vj := vertOf[j]; vj >= 0 && b.falls(&si, sj) {
					// A fall between two pools: no sheet (Settings.FallDrop).
				} else if vj >= 0 { // wet (dry columns get a vertex after links)
					lk[8*v+d] = vj
					lk[8*vj+int32(d)+4] = int32(v)
				} else {
					edge = true
					wk.dry = append(wk.dry, int32(8*v+d), j)
				}
			} else if si.max < sj.base {
				wk.facing = append(wk.facing, int32(v), int32(d))
			}
		}
		b.edge[v] = edge
	}
}

// falls tells whether liquid falls between the wet columns of si and sj, which are then
// not linked (Settings.FallDrop): one's surface lies more than FallDrop below the
// other's floor. The test is symmetric, as the link test is.
func (b *Builder) falls(si, sj *colState) bool {
	d := float32(b.s.FallDrop)
	return d > 0 && (si.base-sj.hc > d || sj.base-si.hc > d)
}

// search returns the column from start to end-1 whose range (lo, max) holds z, or -1:
// the first whose max is above z, if its lo is below.
func (b *Builder) search(start, end int32, z float32) (int32, *colState) {
	for k := start; k < end; k++ {
		if s := &b.st[k]; z < s.max {
			if s.lo < z {
				return k, s
			}
			return -1, nil
		}
	}
	return -1, nil
}

// linksBackward searches the backward directions (W, SW, S, SE) of the wet vertices
// lo .. hi-1 that linksForward left unlinked (a dry column or a wall there: at the
// boundary only), and collects the chunk's first-ring vertices.
func (b *Builder) linksBackward(w, lo, hi int) {
	wk := &b.wk[w]
	wk.dryBack, wk.facingBack, wk.ring = wk.dryBack[:0], wk.facingBack[:0], wk.ring[:0]
	lk := b.lk
	for v := lo; v < hi; v++ {
		l := lk[8*v+4 : 8*v+8 : 8*v+8]
		if l[0]|l[1]|l[2]|l[3] >= 0 { // all four linked (no sign bit set)
			if b.edge[v] {
				wk.ring = append(wk.ring, int32(v))
			}
			continue
		}
		i := b.wetList[v]
		cell := b.cellIndex(i)
		mask := b.cellMask[cell]
		edge := b.edge[v]
		for d := 4; d < 8; d++ {
			if l[d-4] < 0 && mask&(1<<d) != 0 {
				edge = b.probe(int32(v), i, cell, d, &wk.dryBack, &wk.facingBack) || edge
			}
		}
		b.edge[v] = edge
		if edge {
			wk.ring = append(wk.ring, int32(v))
		}
	}
}

// probe runs the link test of wet vertex v (column i) in direction d, whose neighbour
// cell exists and has columns, for linksBackward: it sets the link to a wet vertex,
// notes a dry column in dry or a facing wall in facing, and reports whether the link is
// to a dry column.
func (b *Builder) probe(v, i, cell int32, d int, dry, facing *[]int32) bool {
	cs, si := b.cols.CellStart, &b.st[i]
	nc := cell + b.dOff[d]
	j, end := cs[nc], cs[nc+1]
	if end-j > 1 {
		off := b.candOff[8*i+int32(d)]
		if off == noCandidate {
			return false
		}
		j += int32(off)
	}
	j, sj := b.search(j, end, si.hc)
	if j < 0 {
		return false
	}
	if hj := sj.hc; si.lo < hj && hj < si.max {
		if vj := b.vertOf[j]; vj >= 0 {
			if !b.falls(si, sj) {
				b.lk[8*v+int32(d)] = vj
			}
			return false
		}
		*dry = append(*dry, 8*v+int32(d), j)
		return true
	}
	if si.max < sj.base {
		*facing = append(*facing, v, int32(d))
	}
	return false
}
