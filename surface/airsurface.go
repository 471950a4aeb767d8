package surface

import (
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/vpbench/vpbench/internal/parallel"
)

// Liquid in the air as liquid (docs/preview.md, "Liquid in the air", states the method
// and its decisions): the drops are the sources of a smooth implicit field, F(p) = sum_i
// W(q_i(p)), W(q) = (1 - q^2)^3 for q < 1 and 0 beyond, q_i the distance from p to drop
// i in units of its kernel's reach, an ellipsoid stretched along the drop's velocity
// (after Cords, "Moving with the Flow: Wave Particles in Flowing Liquids", Eq. 17). The
// surface F = W(1/2) is meshed by marching cubes on a sparse lattice: only the tiles of
// the lattice that some drop reaches are visited, and in a tile only the rows a drop
// reaches. A drop whose kernel meets no other's is that surface on its own, an
// ellipsoid: it is drawn from a template instead.

// AirSettings are the parameters of an AirSurface. Zero fields take the defaults
// (DefaultAirSettings).
type AirSettings struct {
	// Spacing is the lattice spacing h, m. 0: chosen every frame from the drops, the
	// median drop's radius (to a quarter octave) over RadiusCells.
	Spacing float64
	// RadiusCells is the median drop's radius in lattice cells when Spacing is 0.
	// Default 1 (1.5 halves the volume's scatter of small bodies, at twice the cost).
	RadiusCells float64
	// StretchTime tau, s: a drop moving at speed |v| is drawn as long as its diameter plus
	// |v| tau, and as much thinner as keeps its volume. Default 2 ms.
	StretchTime float64
	// MaxStretch caps the stretch (length over diameter). Default 3.
	MaxStretch float64
	// Workers is the number of goroutines (at most 8); 0: GOMAXPROCS. The mesh does not
	// depend on it.
	Workers int
}

// DefaultAirSettings: the spacing from the drops (their median radius), a 2 ms stretch
// time, a stretch of at most 3, GOMAXPROCS workers.
func DefaultAirSettings() AirSettings {
	return AirSettings{RadiusCells: 1, StretchTime: 0.002, MaxStretch: 3}
}

// Box is an axis-aligned box, m.
type Box struct {
	Min, Max [3]float64
}

const (
	airTile = 32          // lattice cells along a tile's side
	airDim  = airTile + 3 // a tile's buffer: its points, the next tile's first (its cells' far corners) and one more each side (the gradient)
	// airKappa is a kernel's reach over the drop's radius: an isolated drop at rest is
	// the sphere q = 1/airKappa, of its radius.
	airKappa = 2.0
	// airMaxRadiusCells: the spacing is at least the largest radius over this (a
	// kernel, 1.25 times that at most, reaches at most 2 x 3 x 15 = 90 cells from its
	// centre).
	airMaxRadiusCells = 12
	// airMinRadiusCells: a drop is drawn with a radius of at least 0.9 cells (it could
	// otherwise hold no lattice point and vanish), and stretched no thinner.
	airMinRadiusCells = 0.9
	airMaxTiles       = 1 << 21 // the tile directory's size at most (8 MiB)
	airCoordBits      = 20      // lattice coordinates in an edge key
	airForeign        = 1 << 31 // a tile's triangle corner on an edge another tile owns
	airHistBins       = 256     // quarter-octave radius bins, 2^-40 m to 2^24 m
	airHistOffset     = 160
)

// airIso is the iso-level W(1/airKappa).
var airIso = float32(math.Pow(1-1/(airKappa*airKappa), 3))

// AirSurface meshes the drops in the air as the surface of one liquid: drops closer than
// their diameter merge into one body, a stream into a rope, and far ones stay drops.
// Its buffers are reused: once they have grown, Append allocates nothing. The mesh does
// not depend on the number of workers. An AirSurface is not safe for concurrent use.
type AirSurface struct {
	s   AirSettings
	par *parallel.Pool
	nw  int

	// The frame's lattice: point i of axis a lies at (o[a] + i) h.
	h     float64
	o     [3]int64
	n     [3]int32 // points per axis
	nt    [3]int32 // tiles per axis
	dir   []int32  // tile directory (nt[0] nt[1] nt[2]): tile index, or -1
	valid []int32  // the drops drawn
	drops []airDrop
	hist  [airHistBins]int32

	tiles   []airTileRec
	pairs   []int32 // tile of each (drop, tile) pair, drop by drop
	members []int32 // drops of each tile, in drop order

	next    atomic.Int32 // the next tile to mesh
	wk      []airWorker
	fParams func(w int)
	fTiles  func(w int)
	fCopy   func(w int)
	bounds  [maxWorkers + 1]int // tile (fCopy) or drop (fParams) chunks
	chunks  int
	src     []Drop // the drops fParams reads
	m       *Mesh  // the mesh fCopy writes into
	// loneV and loneI are the first vertex and corner of the lone drops in the mesh.
	loneV, loneI uint32
	// lost counts triangle corners whose edge no tile owned (none, by construction:
	// the tests check it); such a corner takes its tile's first vertex.
	lost atomic.Int32
	// pairDrop is the drop of each pair.
	pairDrop []int32
	alone    []bool // per drop: its kernel reaches no other's
	// memberLone is, for each entry of members, whether the drop is lone in that tile.
	memberLone []bool
	fLone      func(w int)
	lone       []int32 // the lone drops
	lbounds    [maxWorkers + 1]int
	// mcOnly meshes every drop by marching cubes, lone or not (tests).
	mcOnly bool
}

// airDrop is a drop in lattice units: its kernel, q^2 = d.M d with d the point less the
// centre, and its ellipsoid (for a lone drop): radius, stretch and direction.
type airDrop struct {
	lo, hi [3]int32   // the kernel's bounding box, lattice points
	c      [3]float32 // centre less lo
	m      [6]float32 // M: xx yy zz xy xz yz
	r, s   float32
	u      [3]float32
	reach  float32 // the kernel's longest semi-axis, lattice units
}

// airTileRec is a tile of the lattice that some drop reaches, and where its part of the
// mesh lies.
type airTileRec struct {
	t            [3]int32 // tile coordinates
	first, count int32    // its drops in members
	w            int32    // the worker that meshed it
	v0, nv       int32    // its vertices in the worker's arena
	i0, ni       int32    // its triangle corners
	l0, nl       int32    // its low-face vertices (airRef), sorted by key
	f0           int32    // its foreign edges' keys
	base, first3 uint32   // its first vertex and corner in the mesh
}

// airRef is a vertex on an edge starting on a tile's low faces: the tiles below it refer
// to it by the edge's key.
type airRef struct {
	key uint64
	idx uint32
}

// airWorker is one worker's scratch (a tile's buffer) and arena (its tiles' mesh parts).
type airWorker struct {
	field    []float32 // airDim^3 values, zero outside a tile's meshing
	vidx     []int32   // 3 per point: the vertex on its +x, +y, +z edge (-1 none, -2-j foreign j)
	tlo, thi []int16   // per row: the x range written
	ilo, ihi []int16   // per row: the x range inside (F >= iso)
	rows     []int32   // rows written
	rqMark   []bool    // row quads queued
	rq       []int32   // row quads with an inside corner
	slots    []int32   // vidx entries set
	order    []uint64  // a tile's drops by their boxes' low x (lonesWorker)
	count    [256]int32

	pos, nor []float32
	idx      []uint32
	low      []airRef
	foreign  []uint64
}

// NewAirSurface returns a builder with settings s (zero fields: the defaults; values
// that make no sense, NaN or negative, also take them).
func NewAirSurface(s AirSettings) *AirSurface {
	d := DefaultAirSettings()
	if !(s.Spacing > 0) || math.IsInf(s.Spacing, 0) {
		s.Spacing = 0
	}
	if !(s.RadiusCells > 0) || math.IsInf(s.RadiusCells, 0) {
		s.RadiusCells = d.RadiusCells
	}
	if !(s.StretchTime >= 0) || math.IsInf(s.StretchTime, 0) {
		s.StretchTime = d.StretchTime
	}
	if !(s.MaxStretch >= 1) || math.IsInf(s.MaxStretch, 0) {
		s.MaxStretch = d.MaxStretch
	}
	nw := s.Workers
	if nw < 1 {
		nw = runtime.GOMAXPROCS(0)
	}
	nw = min(max(nw, 1), maxWorkers)
	a := &AirSurface{s: s, nw: nw, par: parallel.New(nw), wk: make([]airWorker, nw)}
	for w := range a.wk {
		k := &a.wk[w]
		k.field = make([]float32, airDim*airDim*airDim)
		k.vidx = make([]int32, 3*airDim*airDim*airDim)
		for i := range k.vidx {
			k.vidx[i] = -1
		}
		k.tlo, k.thi = make([]int16, airDim*airDim), make([]int16, airDim*airDim)
		k.ilo, k.ihi = make([]int16, airDim*airDim), make([]int16, airDim*airDim)
		for i := range k.tlo {
			k.tlo[i], k.thi[i] = airDim, -1
		}
		k.rqMark = make([]bool, airDim*airDim)
		// At most every row, row quad and edge of a tile: full size at once, whichever
		// tiles the worker takes.
		k.rows, k.rq = make([]int32, 0, airDim*airDim), make([]int32, 0, airDim*airDim)
		k.slots = make([]int32, 0, 3*airDim*airDim*airDim)
	}
	a.fParams, a.fTiles, a.fCopy, a.fLone = a.paramsChunk, a.tilesWorker, a.copyChunk, a.lonesWorker
	runtime.AddCleanup(a, func(p *parallel.Pool) { p.Stop() }, a.par)
	return a
}

// Settings returns the settings in use (defaults filled in).
func (a *AirSurface) Settings() AirSettings { return a.s }

// Spacing is the lattice spacing of the last Append, m (0 before any, or when it drew
// nothing).
func (a *AirSurface) Spacing() float64 { return a.h }

// Append adds the surface of the drops to m and returns m: vertices with unit normals
// (the field's gradient) and opacity 1, triangles counter-clockwise seen from outside,
// after what m held. Drops with a position or radius that is not a finite number, a
// radius <= 0, or a centre outside box are left out; a velocity that is not finite counts
// as zero.
func (a *AirSurface) Append(m *Mesh, drops []Drop, box Box) *Mesh {
	a.h = 0
	// Forget the last frame's tiles in the directory now, while a.nt is the lattice they
	// were listed on: lattice may change it, and their entries would then be looked up at
	// other places and stay behind, pointing at tiles the next frame has not listed.
	for i := range a.tiles {
		a.dir[a.dirIndex(a.tiles[i].t)] = -1
	}
	a.tiles = a.tiles[:0]
	if !a.lattice(drops, box) {
		return m
	}
	a.splitRange(len(a.valid), 256)
	a.drops = slices.Grow(a.drops[:0], len(a.valid))[:len(a.valid)]
	a.src = drops
	a.par.Do(a.chunks, a.fParams)
	a.bin()
	a.findLone()

	for w := range a.wk {
		k := &a.wk[w]
		k.pos, k.nor, k.idx, k.low, k.foreign = k.pos[:0], k.nor[:0], k.idx[:0], k.low[:0], k.foreign[:0]
	}
	a.next.Store(0)
	a.par.Do(min(a.nw, len(a.tiles)), a.fTiles)
	// Which worker meshes which tile varies from frame to frame: let every worker's
	// arena hold the whole frame, so that the next one of this size allocates nothing.
	var nPos, nIdx, nLow, nFor int
	for w := range a.wk {
		k := &a.wk[w]
		nPos, nIdx, nLow, nFor = nPos+len(k.pos), nIdx+len(k.idx), nLow+len(k.low), nFor+len(k.foreign)
	}
	for w := range a.wk {
		k := &a.wk[w]
		k.pos, k.nor = slices.Grow(k.pos, nPos-len(k.pos)), slices.Grow(k.nor, nPos-len(k.nor))
		k.idx, k.low = slices.Grow(k.idx, nIdx-len(k.idx)), slices.Grow(k.low, nLow-len(k.low))
		k.foreign = slices.Grow(k.foreign, nFor-len(k.foreign))
	}

	nv, ni := uint32(m.NumVertices()), uint32(len(m.Indices))
	for i := range a.tiles {
		t := &a.tiles[i]
		t.base, t.first3 = nv, ni
		nv += uint32(t.nv)
		ni += uint32(t.ni)
	}
	a.loneV, a.loneI = nv, ni // the lone drops follow the tiles
	nv += uint32(len(a.lone) * len(airLoneVerts))
	ni += uint32(len(a.lone) * 3 * len(airLoneTris))
	nv0 := m.NumVertices()
	grow(&m.Positions, 3*(int(nv)-nv0))
	grow(&m.Normals, 3*(int(nv)-nv0))
	grow(&m.Opacity, int(nv)-nv0)
	grow(&m.Indices, int(ni)-len(m.Indices))
	// Copy in chunks of tiles of near-equal size.
	k := min(a.nw, max(1, (int(nv)-nv0)/4096))
	a.bounds[0] = 0
	c, i := 1, 0
	for ; c < k; c++ {
		target := uint32(nv0) + (nv-uint32(nv0))*uint32(c)/uint32(k)
		for i < len(a.tiles) && a.tiles[i].base < target {
			i++
		}
		a.bounds[c] = i
	}
	a.bounds[k] = len(a.tiles)
	for c := range k + 1 {
		a.lbounds[c] = len(a.lone) * c / k
	}
	a.m = m
	a.par.Do(k, a.fCopy)
	a.m, a.src = nil, nil
	return m
}

// lattice picks the frame's spacing and lattice and lists the drops drawn; false: none.
func (a *AirSurface) lattice(drops []Drop, box Box) bool {
	for ax := range 3 {
		if !(box.Max[ax] >= box.Min[ax]) || math.IsInf(box.Min[ax], 0) || math.IsInf(box.Max[ax], 0) {
			return false
		}
	}
	a.valid = a.valid[:0]
	clear(a.hist[:])
	rmax := 0.0
	for i := range drops {
		d := &drops[i]
		r := float64(d.Radius)
		x, y, z := float64(d.X), float64(d.Y), float64(d.Z)
		// NaN fails every comparison: a NaN position or radius is left out here.
		if !(r > 0) || math.IsInf(r, 0) || !(x >= box.Min[0] && x <= box.Max[0] && y >= box.Min[1] &&
			y <= box.Max[1] && z >= box.Min[2] && z <= box.Max[2]) {
			continue
		}
		a.valid = append(a.valid, int32(i))
		a.hist[radiusBin(r)]++
		rmax = max(rmax, r)
	}
	if len(a.valid) == 0 {
		return false
	}
	h := a.s.Spacing
	if h == 0 {
		half, cum := int32(len(a.valid)+1)/2, int32(0)
		for b, n := range a.hist {
			if cum += n; cum >= half {
				h = math.Exp2((float64(b-airHistOffset)+0.5)/4) / a.s.RadiusCells
				break
			}
		}
	}
	h = max(h, rmax/airMaxRadiusCells)
	ext := max(box.Max[0]-box.Min[0], box.Max[1]-box.Min[1], box.Max[2]-box.Min[2])
	h = max(h, ext/(1<<(airCoordBits-1)))
	for range 200 { // coarser until the tile directory fits (a few rounds at most)
		margin := int64(math.Ceil(airKappa*a.s.MaxStretch*1.25*max(rmax/h, airMinRadiusCells))) + 2
		tiles := int64(1)
		fits := true
		for ax := range 3 {
			lo := int64(math.Floor(box.Min[ax]/h)) - margin
			hi := int64(math.Floor(box.Max[ax]/h)) + margin + 1
			n := hi - lo + 1
			a.o[ax], a.n[ax] = lo, int32(min(n, 1<<airCoordBits))
			nt := (n + airTile - 1) / airTile
			a.nt[ax] = int32(min(nt, 1<<airCoordBits))
			tiles *= nt
			fits = fits && n < 1<<airCoordBits
		}
		if fits && tiles <= airMaxTiles {
			break
		}
		h *= math.Pow(2, 0.25)
	}
	a.h = h
	if nd := int(a.nt[0]) * int(a.nt[1]) * int(a.nt[2]); len(a.dir) < nd {
		old := len(a.dir)
		a.dir = slices.Grow(a.dir, nd-old)[:nd]
		for i := old; i < nd; i++ {
			a.dir[i] = -1
		}
	}
	return true
}

// radiusBin is r's quarter-octave bin: floor(4 log2 r), offset and clamped.
func radiusBin(r float64) int {
	m, e := math.Frexp(r) // r = m 2^e, m in [0.5, 1)
	k := 4*e - 4
	switch {
	case m >= 0.8408964152537145: // 2^(-1/4)
		k += 3
	case m >= 0.7071067811865476:
		k += 2
	case m >= 0.5946035575013605:
		k++
	}
	return min(max(k+airHistOffset, 0), airHistBins-1)
}

// splitRange sets bounds to n items in chunks of at least minItems, at most one per worker.
func (a *AirSurface) splitRange(n, minItems int) {
	k := min(a.nw, max(1, n/minItems))
	for c := range k + 1 {
		a.bounds[c] = n * c / k
	}
	a.chunks = k
}

// paramsChunk turns chunk w of the drops drawn into kernels in lattice units.
func (a *AirSurface) paramsChunk(w int) {
	h, tau, smax := a.h, a.s.StretchTime, a.s.MaxStretch
	for k := a.bounds[w]; k < a.bounds[w+1]; k++ {
		src := &a.src[a.valid[k]]
		p := [3]float64{float64(src.X)/h - float64(a.o[0]), float64(src.Y)/h - float64(a.o[1]), float64(src.Z)/h - float64(a.o[2])}
		rho := float64(src.Radius) / h
		v := [3]float64{float64(src.VX), float64(src.VY), float64(src.VZ)}
		sp := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		s := 1.0
		var u [3]float64
		if sp > 0 && !math.IsInf(sp, 0) { // NaN fails sp > 0: at rest
			s = max(1, min(1+sp*tau/h/(2*rho), smax))
			u = [3]float64{v[0] / sp, v[1] / sp, v[2] / sp}
		}
		d := &a.drops[k]
		d.r, d.s, d.u = float32(rho), float32(s), [3]float32{float32(u[0]), float32(u[1]), float32(u[2])}
		// The kernel marching cubes meshes: its radius enlarged to make up for the
		// facets (airCompensate), at least airMinRadiusCells, and stretched no thinner.
		r := min(max(airCompensation(airFacets*math.Sqrt(s)/(rho*rho))*rho, airMinRadiusCells), 1.25*airMaxRadiusCells)
		s = min(s, (r/airMinRadiusCells)*(r/airMinRadiusCells))
		ra, rb := airKappa*r*s, airKappa*r/math.Sqrt(s) // the kernel's semi-axes along and across v
		d.reach = float32(ra)
		ib := 1 / (rb * rb)
		dd := 1/(ra*ra) - ib
		d.m = [6]float32{float32(ib + dd*u[0]*u[0]), float32(ib + dd*u[1]*u[1]), float32(ib + dd*u[2]*u[2]),
			float32(dd * u[0] * u[1]), float32(dd * u[0] * u[2]), float32(dd * u[1] * u[2])}
		for ax := range 3 {
			e := math.Sqrt(rb*rb + (ra*ra-rb*rb)*u[ax]*u[ax]) // the ellipsoid's half extent along ax
			lo := min(max(int32(math.Ceil(p[ax]-e)), 1), a.n[ax]-2)
			d.lo[ax], d.hi[ax] = lo, min(max(int32(math.Floor(p[ax]+e)), 1), a.n[ax]-2)
			d.c[ax] = float32(p[ax] - float64(lo))
		}
	}
}

// airFacets is how much of a sphere's volume marching cubes' flat facets cut away, over
// (h / R)^2 (R the sphere's radius): 0.51-0.55 measured for R from 0.9 h to 6 h.
const airFacets = 0.545

// airCompensate returns g such that the marching-cubes mesh of a sphere of radius g rho
// (lattice units) has the volume of the sphere of radius rho: g^3 (1 - airFacets /
// (g rho)^2) = 1, that is g^3 - c g - 1 = 0 with c = airFacets / rho^2.
func airCompensate(rho float64) float64 {
	c := airFacets / (rho * rho)
	g := math.Sqrt(c) + 1 // above the root (g^3 - c g is convex and rising there): Newton comes down to it
	for range 8 {
		g -= (g*g*g - c*g - 1) / (3*g*g - c)
	}
	return g
}

// airCompTable holds airCompensate's root for c = 0, 1/16, ..., 64.
var airCompTable = func() (t [1025]float32) {
	for i := range t {
		c := float64(i) / 16
		t[i] = float32(airCompensate(math.Sqrt(airFacets / c)))
	}
	return t
}()

// airCompensation is the root g of g^3 - c g - 1 = 0 (c >= 0), from airCompTable
// (linear between its entries: within 1e-3), or g = sqrt(c) + 1/(2c) for c > 64.
func airCompensation(c float64) float64 {
	if !(c < 64) {
		return math.Sqrt(c) + 1/(2*c)
	}
	x := c * 16
	i := int(x)
	f := x - float64(i)
	return float64(airCompTable[i]) + f*float64(airCompTable[i+1]-airCompTable[i])
}

// floorDiv is floor(a / b) for b > 0.
func floorDiv(a, b int32) int32 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// bin lists the tiles the drops reach (tile t owns points [32 t, 32 t + 32) and reads
// [32 t - 1, 32 t + 33]), in the order the drops first reach them, and each tile's drops
// in drop order.
func (a *AirSurface) bin() {
	a.pairs, a.pairDrop = a.pairs[:0], a.pairDrop[:0] // the directory was reset by Append
	for k := range a.drops {
		d := &a.drops[k]
		var tl, th [3]int32
		for ax := range 3 {
			tl[ax] = max(floorDiv(d.lo[ax]-2, airTile), 0)
			th[ax] = min((d.hi[ax]+1)/airTile, a.nt[ax]-1)
		}
		for tz := tl[2]; tz <= th[2]; tz++ {
			for ty := tl[1]; ty <= th[1]; ty++ {
				for tx := tl[0]; tx <= th[0]; tx++ {
					t := [3]int32{tx, ty, tz}
					di := a.dirIndex(t)
					ti := a.dir[di]
					if ti < 0 {
						ti = int32(len(a.tiles))
						a.tiles = append(a.tiles, airTileRec{t: t})
						a.dir[di] = ti
					}
					a.tiles[ti].count++
					a.pairs = append(a.pairs, ti)
					a.pairDrop = append(a.pairDrop, int32(k))
				}
			}
		}
	}
	n := int32(0)
	for i := range a.tiles {
		t := &a.tiles[i]
		t.first, n, t.count = n, n+t.count, 0
	}
	a.members = slices.Grow(a.members[:0], int(n))[:n]
	for j, ti := range a.pairs {
		t := &a.tiles[ti]
		a.members[t.first+t.count] = a.pairDrop[j]
		t.count++
	}
}

func (a *AirSurface) dirIndex(t [3]int32) int {
	return (int(t[2])*int(a.nt[1])+int(t[1]))*int(a.nt[0]) + int(t[0])
}

// tilesWorker meshes tiles until none is left.
func (a *AirSurface) tilesWorker(w int) {
	k := &a.wk[w]
	for {
		i := int(a.next.Add(1)) - 1
		if i >= len(a.tiles) {
			return
		}
		a.meshTile(k, int32(w), &a.tiles[i])
	}
}

const airDim2 = airDim * airDim

// airEdge is a cube edge: its start corner, axis, and the offsets in a tile's buffer of
// its start point from the cell's and of its end point from its start.
type airEdge struct {
	d          [3]int32
	ax         int32
	off, stepv int32
}

// meshTile splats the tile's drops into the worker's buffer, meshes the cells the tile
// owns that have a corner inside, and leaves the buffer clean.
func (a *AirSurface) meshTile(k *airWorker, w int32, t *airTileRec) {
	var g0 [3]int32 // the lattice point at the buffer's (0, 0, 0)
	for ax := range 3 {
		g0[ax] = t.t[ax]*airTile - 1
	}
	field := k.field
	for _, di := range a.members[t.first : t.first+t.count] {
		d := &a.drops[di]
		var lo, hi [3]int32
		empty := false
		for ax := range 3 {
			lo[ax], hi[ax] = max(d.lo[ax]-g0[ax], 0), min(d.hi[ax]-g0[ax], airDim-1)
			empty = empty || lo[ax] > hi[ax]
		}
		if empty {
			continue
		}
		mxx, myy, mzz, mxy, mxz, myz := d.m[0], d.m[1], d.m[2], d.m[3], d.m[4], d.m[5]
		ox, oy := d.lo[0]-g0[0], d.lo[1]-g0[1] // the buffer's x and y of the drop's lo
		cx, cy := d.c[0], d.c[1]
		// The rows (y, z) the kernel reaches: min over x of q^2 = the Schur complement's
		// form sa dy^2 + 2 sb dy dz + sc dz^2 < 1, for each z an interval of y.
		sa, sb, sc := myy-mxy*mxy/mxx, myz-mxy*mxz/mxx, mzz-mxz*mxz/mxx
		for z := lo[2]; z <= hi[2]; z++ {
			dz := float32(z+g0[2]-d.lo[2]) - d.c[2]
			czz, bz, cyz := mzz*dz*dz, mxz*dz, 2*myz*dz
			dy2 := sb*dz*sb*dz - sa*(sc*dz*dz-1)
			if !(dy2 > 0) {
				continue
			}
			sqy := float32(math.Sqrt(float64(dy2)))
			y0 := max(256-int32(256-((-sb*dz-sqy)/sa+cy))+oy, lo[1])
			y1 := min(int32((-sb*dz+sqy)/sa+cy+256)-256+oy, hi[1])
			for y := y0; y <= y1; y++ {
				dy := float32(y+g0[1]-d.lo[1]) - d.c[1]
				// q^2 = (mxx dx + rb) dx + rc along the row.
				rb := 2 * (mxy*dy + bz)
				rc := (myy*dy+cyz)*dy + czz
				x0, x1 := lo[0], hi[0]
				row := z*airDim + y
				f := field[row*airDim+x0 : row*airDim+x1+1]
				for j := range f {
					dx := float32(x0+int32(j)-ox) - cx
					v := 1 - ((mxx*dx+rb)*dx + rc)
					b := math.Float32bits(v)
					v = math.Float32frombits(b &^ uint32(int32(b)>>31)) // 0 beyond the kernel: no branch
					f[j] += v * v * v
				}
				if k.thi[row] < 0 {
					k.rows = append(k.rows, row)
				}
				k.tlo[row], k.thi[row] = min(k.tlo[row], int16(x0)), max(k.thi[row], int16(x1))
			}
		}
	}

	// Rows' inside ranges; the row quads (the cells between four rows) with an inside
	// corner, among the cells the tile owns (buffer coordinates 1..airTile).
	iso := airIso
	for _, row := range k.rows {
		f := field[row*airDim : row*airDim+airDim]
		il, ih := int16(-1), int16(-1)
		for x := k.tlo[row]; x <= k.thi[row]; x++ {
			if f[x] >= iso {
				if il < 0 {
					il = x
				}
				ih = x
			}
		}
		k.ilo[row], k.ihi[row] = il, ih
		if il < 0 {
			continue
		}
		z, y := row/airDim, row%airDim
		for qz := max(z-1, 1); qz <= min(z, airTile); qz++ {
			for qy := max(y-1, 1); qy <= min(y, airTile); qy++ {
				if q := qz*airDim + qy; !k.rqMark[q] {
					k.rqMark[q] = true
					k.rq = append(k.rq, q)
				}
			}
		}
	}

	t.w, t.v0, t.i0, t.l0, t.f0 = w, int32(len(k.pos)/3), int32(len(k.idx)), int32(len(k.low)), int32(len(k.foreign))
	for _, q := range k.rq {
		cz, cy := q/airDim, q%airDim
		r := [4]int32{q, q + 1, q + airDim, q + airDim + 1} // (y, z), (y+1, z), (y, z+1), (y+1, z+1)
		xlo, xhi := int16(airDim), int16(-1)
		for _, rr := range r {
			if k.ilo[rr] >= 0 {
				xlo, xhi = min(xlo, k.ilo[rr]), max(xhi, k.ihi[rr])
			}
		}
		x0, x1 := max(int32(xlo)-1, 1), min(int32(xhi), airTile)
		f00 := field[r[0]*airDim : r[0]*airDim+airDim]
		f10 := field[r[1]*airDim : r[1]*airDim+airDim]
		f01 := field[r[2]*airDim : r[2]*airDim+airDim]
		f11 := field[r[3]*airDim : r[3]*airDim+airDim]
		col := func(x int32) uint8 { // the corners at x: bits 0, 2, 4, 6 of a case
			return b2u(f00[x] >= iso) | b2u(f10[x] >= iso)<<2 | b2u(f01[x] >= iso)<<4 | b2u(f11[x] >= iso)<<6
		}
		prev := col(x0)
		for x := x0; x <= x1; x++ {
			nxt := col(x + 1)
			c := prev | nxt<<1
			prev = nxt
			if c == 0 || c == 255 {
				continue
			}
			cell := q*airDim + x
			for _, e := range airTris[airTriStart[c]:airTriStart[c+1]] {
				ed := &airEdges[e]
				if v := k.vidx[3*(cell+ed.off)+ed.ax]; v >= 0 { // made already (the most)
					k.idx = append(k.idx, uint32(v))
					continue
				}
				k.idx = append(k.idx, a.edgeVertex(k, t, cell, e, [3]int32{x, cy, cz}, g0))
			}
		}
	}
	t.nv, t.ni, t.nl = int32(len(k.pos)/3)-t.v0, int32(len(k.idx))-t.i0, int32(len(k.low))-t.l0
	slices.SortFunc(k.low[t.l0:], cmpAirRef)

	for _, s := range k.slots {
		k.vidx[s] = -1
	}
	for _, row := range k.rows {
		clear(field[row*airDim+int32(k.tlo[row]) : row*airDim+int32(k.thi[row])+1])
		k.tlo[row], k.thi[row], k.ilo[row], k.ihi[row] = airDim, -1, -1, -1
	}
	for _, q := range k.rq {
		k.rqMark[q] = false
	}
	k.slots, k.rows, k.rq = k.slots[:0], k.rows[:0], k.rq[:0]
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func cmpAirRef(x, y airRef) int {
	switch {
	case x.key < y.key:
		return -1
	case x.key > y.key:
		return 1
	}
	return 0
}

// edgeVertex returns the tile's vertex on edge e of the cell at buffer point cell (buffer
// coordinates c): made on first use from the field (linear interpolation of the
// crossing, the normal minus the interpolated central-difference gradient), or, for an
// edge starting in the next tile, a foreign reference resolved when the mesh is joined.
func (a *AirSurface) edgeVertex(k *airWorker, t *airTileRec, cell int32, e uint8, c [3]int32, g0 [3]int32) uint32 {
	ed := &airEdges[e]
	p := cell + ed.off
	slot := 3*p + ed.ax
	if v := k.vidx[slot]; v != -1 {
		if v >= 0 {
			return uint32(v)
		}
		return airForeign | uint32(-2-v)
	}
	s := [3]int32{c[0] + ed.d[0], c[1] + ed.d[1], c[2] + ed.d[2]}
	g := [3]int32{s[0] + g0[0], s[1] + g0[1], s[2] + g0[2]}
	key := ((uint64(g[2])<<airCoordBits|uint64(g[1]))<<airCoordBits|uint64(g[0]))<<2 | uint64(ed.ax)
	k.slots = append(k.slots, slot)
	if s[0] > airTile || s[1] > airTile || s[2] > airTile {
		j := int32(len(k.foreign)) - t.f0
		k.foreign = append(k.foreign, key)
		k.vidx[slot] = -2 - j
		return airForeign | uint32(j)
	}
	f := k.field
	q := p + ed.stepv
	v0, v1 := f[p], f[q]
	u := (airIso - v0) / (v1 - v0)
	if !(u > 0) {
		u = 0
	} else if u > 1 {
		u = 1
	}
	ga := [3]float32{f[p+1] - f[p-1], f[p+airDim] - f[p-airDim], f[p+airDim2] - f[p-airDim2]}
	gb := [3]float32{f[q+1] - f[q-1], f[q+airDim] - f[q-airDim], f[q+airDim2] - f[q-airDim2]}
	n := [3]float32{-(ga[0] + u*(gb[0]-ga[0])), -(ga[1] + u*(gb[1]-ga[1])), -(ga[2] + u*(gb[2]-ga[2]))}
	l := float32(math.Sqrt(float64(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])))
	if l > 0 {
		il := 1 / l
		n[0], n[1], n[2] = n[0]*il, n[1]*il, n[2]*il
	} else { // a flat spot: along the edge, towards its lower end
		n = [3]float32{}
		n[ed.ax] = 1
		if v1 > v0 {
			n[ed.ax] = -1
		}
	}
	h := a.h
	pos := [3]float64{float64(a.o[0]+int64(g[0])) * h, float64(a.o[1]+int64(g[1])) * h, float64(a.o[2]+int64(g[2])) * h}
	pos[ed.ax] += float64(u) * h
	idx := int32(len(k.pos)/3) - t.v0
	k.pos = append(k.pos, float32(pos[0]), float32(pos[1]), float32(pos[2]))
	k.nor = append(k.nor, n[0], n[1], n[2])
	if s[0] == 1 || s[1] == 1 || s[2] == 1 {
		k.low = append(k.low, airRef{key, uint32(idx)})
	}
	k.vidx[slot] = idx
	return uint32(idx)
}

// copyChunk writes chunk w of the tiles into the mesh.
func (a *AirSurface) copyChunk(w int) {
	m := a.m
	for i := a.bounds[w]; i < a.bounds[w+1]; i++ {
		t := &a.tiles[i]
		k := &a.wk[t.w]
		copy(m.Positions[3*t.base:], k.pos[3*t.v0:3*(t.v0+t.nv)])
		copy(m.Normals[3*t.base:], k.nor[3*t.v0:3*(t.v0+t.nv)])
		op := m.Opacity[t.base : t.base+uint32(t.nv)]
		for j := range op {
			op[j] = 1
		}
		dst := m.Indices[t.first3 : t.first3+uint32(t.ni)]
		for j, v := range k.idx[t.i0 : t.i0+t.ni] {
			if v&airForeign == 0 {
				dst[j] = t.base + v
				continue
			}
			dst[j] = a.resolve(k.foreign[t.f0+int32(v&^airForeign)], t.base)
		}
	}
	for i := a.lbounds[w]; i < a.lbounds[w+1]; i++ {
		a.lonePut(i)
	}
}

// findLone marks the drops whose kernel meets no other's (kernelsMeet): each is the
// ellipsoid F = iso on its own, drawn from a template (lonePut) and left out of the
// lattice. Two drops' boxes meet in some tile both reach: each tile checks its drops
// (lonesWorker), a drop is lone when it is so in all of its tiles.
func (a *AirSurface) findLone() {
	n := len(a.drops)
	a.alone = slices.Grow(a.alone[:0], n)[:n]
	a.memberLone = slices.Grow(a.memberLone[:0], len(a.members))[:len(a.members)]
	a.lone = a.lone[:0]
	if a.mcOnly {
		return
	}
	for k := range a.alone {
		a.alone[k] = true
	}
	most := 0
	for i := range a.tiles {
		most = max(most, int(a.tiles[i].count))
	}
	for w := range a.wk {
		a.wk[w].order = slices.Grow(a.wk[w].order[:0], most)
	}
	a.next.Store(0)
	a.par.Do(min(a.nw, len(a.tiles)), a.fLone)
	for j, k := range a.members {
		a.alone[k] = a.alone[k] && a.memberLone[j]
	}
	for k, lone := range a.alone {
		if lone {
			a.lone = append(a.lone, int32(k))
		}
	}
	for i := range a.tiles {
		t := &a.tiles[i]
		mem := a.members[t.first : t.first+t.count]
		j := 0
		for _, k := range mem {
			if !a.alone[k] {
				mem[j] = k
				j++
			}
		}
		t.count = int32(j)
	}
}

// lonesWorker sets memberLone for the drops of tiles until none is left: whether no
// other drop of the tile has a box meeting theirs. The drops are swept in order of their
// boxes' low x, each looking both ways until it finds a box it meets or the boxes are
// too far in x: in a stream, a drop meets the first it looks at.
func (a *AirSurface) lonesWorker(w int) {
	k := &a.wk[w]
	for {
		i := int(a.next.Add(1)) - 1
		if i >= len(a.tiles) {
			return
		}
		t := &a.tiles[i]
		mem := a.members[t.first : t.first+t.count]
		flags := a.memberLone[t.first : t.first+t.count]
		// Counting sort by low x: the drops reaching the tile have it in [32 t - 147,
		// 32 t + 33] (a box is at most 145 wide).
		base := t.t[0]*airTile - 147
		clear(k.count[:])
		width := int32(0)
		for _, d := range mem {
			dr := &a.drops[d]
			k.count[dr.lo[0]-base+1]++
			width = max(width, dr.hi[0]-dr.lo[0])
		}
		for b := 1; b < len(k.count); b++ {
			k.count[b] += k.count[b-1]
		}
		order := slices.Grow(k.order[:0], len(mem))[:len(mem)]
		for j, d := range mem {
			b := a.drops[d].lo[0] - base
			order[k.count[b]] = uint64(a.drops[d].lo[0])<<32 | uint64(j)
			k.count[b]++
		}
		k.order = order
		for p, o := range order {
			j := uint32(o)
			d := &a.drops[mem[j]]
			lone := true
			for q := p + 1; lone && q < len(order) && int32(order[q]>>32) <= d.hi[0]; q++ {
				lone = !kernelsMeet(d, &a.drops[mem[uint32(order[q])]])
			}
			for q := p - 1; lone && q >= 0 && int32(order[q]>>32) >= d.lo[0]-width; q-- {
				lone = !kernelsMeet(d, &a.drops[mem[uint32(order[q])]])
			}
			flags[j] = lone
		}
	}
}

// kernelsMeet tells whether two drops' kernels may overlap: their boxes share a lattice
// point and their bounding spheres (the longest semi-axis) meet. Kernels that do not
// overlap give no lattice point two drops' values, and no cell inside corners of both
// (an inside point lies at least 0.9 cells within its kernel: airMinRadiusCells): the
// mesh of the one is the same with or without the other.
func kernelsMeet(x, y *airDrop) bool {
	if !(x.lo[0] <= y.hi[0] && y.lo[0] <= x.hi[0] && x.lo[1] <= y.hi[1] && y.lo[1] <= x.hi[1] &&
		x.lo[2] <= y.hi[2] && y.lo[2] <= x.hi[2]) {
		return false
	}
	var d2 float32
	for ax := range 3 {
		d := float32(x.lo[ax]-y.lo[ax]) + x.c[ax] - y.c[ax]
		d2 += d * d
	}
	return d2 < (x.reach+y.reach)*(x.reach+y.reach)
}

// lonePut writes lone drop i (of a.lone): the template mapped onto the drop's ellipsoid,
// semi-axes r s along its velocity and r / sqrt(s) across (its volume), the normals the
// ellipsoid's.
func (a *AirSurface) lonePut(i int) {
	k := a.lone[i]
	d := &a.drops[k]
	src := &a.src[a.valid[k]]
	m := a.m
	v0 := a.loneV + uint32(i*len(airLoneVerts))
	r := float32(a.h) * d.r * airLoneScale
	ra, rb := r*d.s, r/float32(math.Sqrt(float64(d.s)))
	na, nb := 1/d.s, float32(math.Sqrt(float64(d.s))) // the normal's parts, along and across
	u := d.u
	pos := m.Positions[3*v0 : 3*(v0+uint32(len(airLoneVerts)))]
	nor := m.Normals[3*v0 : 3*(v0+uint32(len(airLoneVerts)))]
	for j := range airLoneVerts {
		t := &airLoneVerts[j]
		ut := u[0]*t[0] + u[1]*t[1] + u[2]*t[2] // 0 at rest
		pos[3*j] = src.X + ra*ut*u[0] + rb*(t[0]-ut*u[0])
		pos[3*j+1] = src.Y + ra*ut*u[1] + rb*(t[1]-ut*u[1])
		pos[3*j+2] = src.Z + ra*ut*u[2] + rb*(t[2]-ut*u[2])
		n := [3]float32{na*ut*u[0] + nb*(t[0]-ut*u[0]), na*ut*u[1] + nb*(t[1]-ut*u[1]), na*ut*u[2] + nb*(t[2]-ut*u[2])}
		l := 1 / float32(math.Sqrt(float64(n[0]*n[0]+n[1]*n[1]+n[2]*n[2])))
		nor[3*j], nor[3*j+1], nor[3*j+2] = n[0]*l, n[1]*l, n[2]*l
	}
	op := m.Opacity[v0 : v0+uint32(len(airLoneVerts))]
	for j := range op {
		op[j] = 1
	}
	idx := m.Indices[a.loneI+uint32(i*3*len(airLoneTris)):][:3*len(airLoneTris)]
	for j, f := range &airLoneTris {
		idx[3*j], idx[3*j+1], idx[3*j+2] = v0+f[0], v0+f[1], v0+f[2]
	}
}

// A lone drop's template: the icosahedron with each face cut in four, its vertices on
// the unit sphere (42 vertices, 80 faces, outward counter-clockwise), and the scale that
// gives it the unit sphere's volume.
var airLoneVerts, airLoneTris, airLoneScale = airLoneTemplate()

func airLoneTemplate() (verts [42][3]float32, tris [80][3]uint32, scale float32) {
	var v [][3]float64
	for _, p := range icoVerts {
		v = append(v, [3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
	}
	mids := map[[2]uint32]uint32{}
	mid := func(i, j uint32) uint32 {
		key := [2]uint32{min(i, j), max(i, j)}
		if m, ok := mids[key]; ok {
			return m
		}
		p, q := v[i], v[j]
		c := [3]float64{p[0] + q[0], p[1] + q[1], p[2] + q[2]}
		l := math.Sqrt(c[0]*c[0] + c[1]*c[1] + c[2]*c[2])
		v = append(v, [3]float64{c[0] / l, c[1] / l, c[2] / l})
		mids[key] = uint32(len(v) - 1)
		return mids[key]
	}
	vol := 0.0
	for k, f := range icoFaces {
		ab, bc, ca := mid(f[0], f[1]), mid(f[1], f[2]), mid(f[2], f[0])
		for j, t := range [4][3]uint32{{f[0], ab, ca}, {f[1], bc, ab}, {f[2], ca, bc}, {ab, bc, ca}} {
			tris[4*k+j] = t
			a, b, c := v[t[0]], v[t[1]], v[t[2]]
			vol += (a[0]*(b[1]*c[2]-b[2]*c[1]) + a[1]*(b[2]*c[0]-b[0]*c[2]) + a[2]*(b[0]*c[1]-b[1]*c[0])) / 6
		}
	}
	for i, p := range v {
		verts[i] = [3]float32{float32(p[0]), float32(p[1]), float32(p[2])}
	}
	return verts, tris, float32(math.Cbrt(4 * math.Pi / 3 / vol))
}

// resolve returns the mesh index of the vertex on the edge of key, made by the tile that
// owns the edge's start.
func (a *AirSurface) resolve(key uint64, fallback uint32) uint32 {
	const mask = 1<<airCoordBits - 1
	var tc [3]int32
	for ax := range 3 {
		tc[ax] = int32(key>>(2+airCoordBits*ax)&mask) / airTile
	}
	if ti := a.dir[a.dirIndex(tc)]; ti >= 0 {
		o := &a.tiles[ti]
		refs := a.wk[o.w].low[o.l0 : o.l0+o.nl]
		lo, hi := 0, len(refs)
		for lo < hi {
			mid := (lo + hi) / 2
			if refs[mid].key < key {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < len(refs) && refs[lo].key == key {
			return o.base + refs[lo].idx
		}
	}
	a.lost.Add(1)
	return fallback
}

// The cube: corner c at (c&1, c>>1&1, c>>2&1); edge e = 4 axis + u + 2 v runs along axis
// from the corner whose other two coordinates (in axis order) are u and v.
var airEdges, airTriStart, airTris = airTables()

// airTables builds the edges and, for each of the 256 cases (bit c set: corner c inside),
// its triangles as edge triples, counter-clockwise seen from outside. Each face of the
// cube is cut on its own: its crossing edges paired by segments, the two inside corners
// of an ambiguous face (diagonal corners inside) each cut off by a segment of its own;
// the segments are oriented by the face (the inside on their left, seen from outside the
// liquid), chained into loops and each loop fanned into triangles. A face shared by two
// cells is cut the same way from both, its segments walked in opposite directions: the
// mesh has no cracks and every edge has one triangle on each side.
func airTables() (edges [12]airEdge, start [257]uint16, tris []uint8) {
	other := [3][2]int{{1, 2}, {0, 2}, {0, 1}}
	var ec [12][2]int // an edge's corners
	for e := range 12 {
		ax, u, v := e/4, e&1, e>>1&1
		c0 := u<<other[ax][0] | v<<other[ax][1]
		ec[e] = [2]int{c0, c0 | 1<<ax}
		d := [3]int32{int32(c0 & 1), int32(c0 >> 1 & 1), int32(c0 >> 2 & 1)}
		edges[e] = airEdge{d: d, ax: int32(ax), off: d[0] + d[1]*airDim + d[2]*airDim2,
			stepv: [3]int32{1, airDim, airDim2}[ax]}
	}
	corner := func(c int) [3]float64 { return [3]float64{float64(c & 1), float64(c >> 1 & 1), float64(c >> 2 & 1)} }
	mid := func(e int) [3]float64 {
		p, q := corner(ec[e][0]), corner(ec[e][1])
		return [3]float64{(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2}
	}
	sub := func(p, q [3]float64) [3]float64 { return [3]float64{p[0] - q[0], p[1] - q[1], p[2] - q[2]} }
	cross := func(p, q [3]float64) [3]float64 {
		return [3]float64{p[1]*q[2] - p[2]*q[1], p[2]*q[0] - p[0]*q[2], p[0]*q[1] - p[1]*q[0]}
	}
	dot := func(p, q [3]float64) float64 { return p[0]*q[0] + p[1]*q[1] + p[2]*q[2] }
	var faces [12]uint8 // bit 2 axis + side: the two faces an edge lies on
	for e := range 12 {
		for ax := range 3 {
			if ax != e/4 {
				faces[e] |= 1 << (2*ax + ec[e][0]>>ax&1)
			}
		}
	}
	for cs := range 256 {
		start[cs] = uint16(len(tris))
		in := func(c int) bool { return cs>>c&1 == 1 }
		crosses := func(e int) bool { return in(ec[e][0]) != in(ec[e][1]) }
		next := [12]int{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
		for ax := range 3 {
			for side := range 2 {
				var nf [3]float64
				nf[ax] = float64(2*side - 1)
				var fe []int // the face's crossing edges
				var fc []int // its corners
				for e := range 12 {
					if e/4 != ax && ec[e][0]>>ax&1 == side && crosses(e) {
						fe = append(fe, e)
					}
				}
				for c := range 8 {
					if c>>ax&1 == side {
						fc = append(fc, c)
					}
				}
				var segs [][2]int
				switch len(fe) {
				case 0:
					continue
				case 2:
					segs = [][2]int{{fe[0], fe[1]}}
				case 4: // ambiguous: each inside corner cut off alone
					for _, c := range fc {
						if !in(c) {
							continue
						}
						var s []int
						for _, e := range fe {
							if ec[e][0] == c || ec[e][1] == c {
								s = append(s, e)
							}
						}
						segs = append(segs, [2]int{s[0], s[1]})
					}
				default:
					panic("surface: a cube face with an odd number of crossings")
				}
				for _, sg := range segs {
					m1, m2 := mid(sg[0]), mid(sg[1])
					m := [3]float64{(m1[0] + m2[0]) / 2, (m1[1] + m2[1]) / 2, (m1[2] + m2[2]) / 2}
					var tv [3]float64 // in the face, from inside to outside
					shared := -1
					for _, c := range ec[sg[0]] {
						if c == ec[sg[1]][0] || c == ec[sg[1]][1] {
							shared = c
						}
					}
					if shared >= 0 {
						if in(shared) {
							tv = sub(m, corner(shared))
						} else {
							tv = sub(corner(shared), m)
						}
					} else {
						for _, c := range fc {
							p := corner(c)
							if in(c) {
								p = [3]float64{-p[0], -p[1], -p[2]}
							}
							tv = [3]float64{tv[0] + p[0], tv[1] + p[1], tv[2] + p[2]}
						}
					}
					if dot(sub(m2, m1), cross(tv, nf)) < 0 {
						sg[0], sg[1] = sg[1], sg[0]
					}
					if next[sg[0]] != -1 {
						panic("surface: a cube edge starts two segments")
					}
					next[sg[0]] = sg[1]
				}
			}
		}
		var done [12]bool
		for e := range 12 {
			if !crosses(e) || done[e] {
				continue
			}
			var loop []int
			for f := e; f < 0 || !done[f]; f = next[f] {
				if f < 0 {
					panic("surface: an open loop")
				}
				done[f] = true
				loop = append(loop, f)
			}
			tris = airTriangulate(tris, loop, faces)
		}
	}
	start[256] = uint16(len(tris))
	return edges, start, tris
}

// airTriangulate appends a triangulation of loop (a polygon of cube edges, in order) to
// tris. Its diagonals join no two edges that lie on one face of the cube: such a
// diagonal would lie in the face, where the cell across it may draw the same one, and
// four triangles would share an edge. Among the triangulations without such diagonals
// it takes the first a fan from the earliest corner gives, else the first a search
// finds; a loop that has none (none of the 256 cases) is fanned.
func airTriangulate(tris []uint8, loop []int, faces [12]uint8) []uint8 {
	n := len(loop)
	ok := func(i, j int) bool { // loop[i] and loop[j] may be joined
		if (i+1)%n == j || (j+1)%n == i {
			return true
		}
		return faces[loop[i]]&faces[loop[j]] == 0
	}
	// Triangulate the chain i..j (the polygon loop[i], ..., loop[j], closed by the
	// diagonal i-j): a triangle (i, k, j) with valid diagonals, the two sides recursively.
	var tri func(i, j int, out []uint8) ([]uint8, bool)
	tri = func(i, j int, out []uint8) ([]uint8, bool) {
		if j-i < 2 {
			return out, true
		}
		for k := i + 1; k < j; k++ {
			if !ok(i, k) || !ok(k, j) {
				continue
			}
			o := append(out, uint8(loop[i]), uint8(loop[k]), uint8(loop[j]))
			o, good := tri(i, k, o)
			if !good {
				continue
			}
			if o, good = tri(k, j, o); good {
				return o, true
			}
		}
		return out, false
	}
	for r := range n { // rotate the loop so that a fan or search from its corner r works
		rot := append(append([]int(nil), loop[r:]...), loop[:r]...)
		loop = rot
		if out, good := tri(0, n-1, nil); good {
			return append(tris, out...)
		}
		loop = append(rot[n-r:], rot[:n-r]...)
	}
	for j := 1; j+1 < n; j++ {
		tris = append(tris, uint8(loop[0]), uint8(loop[j]), uint8(loop[j+1]))
	}
	return tris
}
