package surface

import (
	"math"
	"runtime"
	"slices"
	"sync"
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
// ellipsoid: it is drawn from a template instead. A frame is one job of the workers
// (frame), each phase taken in pieces; the splat, the planes' ranges, the rows' masks and
// the template have AVX2 kernels on amd64 (airsurface_splat_amd64.s), which give their Go
// twins' bits (airsurface_splat.go).

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
	// StreamTime, s: parcels on one path that left it at most this apart are one stream,
	// drawn as a rope (airsurface_streams.go). Default 50 ms.
	StreamTime float64
	// Gravity, m/s^2: the paths the parcels fly (the solver's). Default 9.81.
	Gravity float64
	// Workers is the number of goroutines (at most 8); 0: GOMAXPROCS. The mesh does not
	// depend on it.
	Workers int
}

// DefaultAirSettings: the spacing from the drops (their median radius), a 2 ms stretch
// time, a stretch of at most 3, streams of parcels at most 50 ms apart, gravity 9.81
// m/s^2, GOMAXPROCS workers.
func DefaultAirSettings() AirSettings {
	return AirSettings{RadiusCells: 1, StretchTime: 0.002, MaxStretch: 3, StreamTime: 0.05, Gravity: 9.81}
}

// Box is an axis-aligned box, m.
type Box struct {
	Min, Max [3]float64
}

const (
	airTileShift = 5
	airTile      = 1 << airTileShift // lattice cells along a tile's side
	airDim       = airTile + 3       // a tile's buffer: its points, the next tile's first (its cells' far corners) and one more each side (the gradient)
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
	// kern: the kernels, AVX2 where the processor has it (tests set the Go twins).
	kern airKernels

	// The frame's lattice: point i of axis a lies at (o[a] + i) h.
	h, ih float64 // h and 1/h
	o     [3]int64
	n     [3]int32 // points per axis
	nt    [3]int32 // tiles per axis
	dir   []int32  // tile directory (nt[0] nt[1] nt[2]): tile index, or -1
	valid []int32  // the drops drawn
	drops []airDrop
	kbox  []airKernelBox // each drop's kernel's box, centre and reach (lonesWorker)
	hist  [airHistBins]int32

	tiles     []airTileRec
	pairs     []int32 // tile of each (drop, tile) pair, drop by drop
	tileCount []int32 // bin's counts
	pairStart []int32 // each drop's first pair, and their number
	pairSlot  []int32 // each pair's place in members
	members   []int32 // drops of each tile, in drop order

	order []int32 // the tiles in the order they are meshed (tileOrder)

	// The frame's job (frame): its drops, box and mesh; the next piece of work of the
	// current phase; the workers arrived at the end of the phase and the phases ended.
	src          []Drop
	box          Box
	m            *Mesh
	next         atomic.Int32
	arrived, gen atomic.Int32
	sleepers     atomic.Int32 // workers asleep at a sync, on cond
	mu           sync.Mutex
	cond         sync.Cond
	fFrame       func(w int)
	wk           []airWorker
	// scanned holds the drops drawn of each piece of the drops (scanWorker), then the
	// lone drops of each (aloneChunk), at the piece's start; scanCount how many.
	scanned, scanCount []int32
	// loneV and loneI are the first vertex and corner of the lone drops in the mesh.
	loneV, loneI uint32
	// lost counts triangle corners whose edge no tile owned (none, by construction:
	// the tests check it); such a corner takes its tile's first vertex.
	lost  atomic.Int32
	alone []bool // per drop: its kernel reaches no other's
	// memberLone is, for each entry of members, whether the drop is lone in that tile.
	memberLone []bool
	lone       []int32 // the lone drops
	rmax       float64 // the largest radius drawn
	// st: the streams, drawn as ropes (airsurface_streams.go).
	st airStreams
	// mcOnly meshes every drop by marching cubes, lone or not (tests); noStreams draws
	// no ropes (tests).
	mcOnly, noStreams bool
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
	// pc and po: its planes' ranges (splat) are planes[po:] of worker pc, for each
	// plane of its box the rows y0..y1 and columns x0..x1 its kernel reaches there,
	// from its box's low corner (y0 > y1: none), a byte each from the lowest; po = -1:
	// none (a box more than 255 wide), the box's.
	pc, po int32
	// pk: nzz^-1, nxz/nzz, nyz/nzz, sqrt(Ax) and sqrt(Ay) of N = M^-1 (planes).
	pk [5]float32
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
	f0, nf       int32    // its foreign edges' keys
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
	field   []float32           // airDim^3 values (and airRowPad), zero outside a tile's meshing
	vidx    []int32             // 3 per point: the vertex on its +x, +y, +z edge (-1 none, -2-j foreign j)
	mask    []uint64            // per row: its points inside (F >= iso), bit x
	written [airRowWords]uint64 // the rows written, a bit each
	slots   []int32             // vidx entries set
	boxes   []airKernelBox      // a tile's drops' boxes by their low x (lonesWorker)
	raw     []airKernelBox      // the same in the tile's order
	head    []int32             // lonesWorker's hash table: the first box of each slot's chain
	chain   []int32             // the next box in its slot's chain
	planes  []uint32            // the planes' ranges of the drops it took (paramsWorker)
	count   [256]int32          // lonesWorker's counting sort
	hist    [airHistBins]int32  // the radii of the drops drawn it scanned (scanWorker)
	rmax    float64             // their largest

	pos, nor []float32
	idx      []uint32
	low      []airRef
	foreign  []uint64
	pend     []int32  // the tile's vertices to make: their edge's start<<2 | axis (edgeVertex)
	res      []uint32 // copyTile's scratch
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
	if !(s.StreamTime > 0) || math.IsInf(s.StreamTime, 0) {
		s.StreamTime = d.StreamTime
	}
	if !(s.Gravity > 0) || math.IsInf(s.Gravity, 0) {
		s.Gravity = d.Gravity
	}
	nw := s.Workers
	if nw < 1 {
		nw = runtime.GOMAXPROCS(0)
	}
	nw = min(max(nw, 1), maxWorkers)
	a := &AirSurface{s: s, nw: nw, par: parallel.New(nw), kern: newAirKernels(true), wk: make([]airWorker, nw)}
	for w := range a.wk {
		k := &a.wk[w]
		k.field = make([]float32, airDim*airDim*airDim+airRowPad)
		k.vidx = make([]int32, 3*airDim*airDim*airDim)
		for i := range k.vidx {
			k.vidx[i] = -1
		}
		k.mask = make([]uint64, airDim*airDim)
		// At most every edge of a tile: full size at once, whichever tiles the worker
		// takes.
		k.slots = make([]int32, 0, 3*airDim*airDim*airDim)
	}
	a.fFrame = a.frame
	a.cond.L = &a.mu
	runtime.AddCleanup(a, func(p *parallel.Pool) { p.Stop() }, a.par)
	return a
}

// Settings returns the settings in use (defaults filled in).
func (a *AirSurface) Settings() AirSettings { return a.s }

// Spacing is the lattice spacing of the last Append, m (0 before any, or when it drew
// nothing on the lattice: no drops, or only streams).
func (a *AirSurface) Spacing() float64 { return a.h }

// Append adds the surface of the drops to m and returns m: vertices with unit normals
// (the field's gradient) and opacity 1, triangles counter-clockwise seen from outside,
// after what m held. Drops with a position or radius that is not a finite number, a
// radius <= 0, or a centre outside box are left out; a velocity that is not finite counts
// as zero.
func (a *AirSurface) Append(m *Mesh, drops []Drop, box Box) *Mesh {
	a.h = 0
	// Forget the last frame's tiles in the directory now, while a.nt is the lattice they
	// were listed on: the next lattice may change it, and their entries would then be
	// looked up at other places and stay behind, pointing at tiles the next frame has
	// not listed.
	for i := range a.tiles {
		a.dir[a.dirIndex(a.tiles[i].t)] = -1
	}
	a.tiles = a.tiles[:0]
	for ax := range 3 {
		if !(box.Max[ax] >= box.Min[ax]) || math.IsInf(box.Min[ax], 0) || math.IsInf(box.Max[ax], 0) {
			return m
		}
	}
	if len(drops) == 0 {
		return m
	}
	a.scanned = slices.Grow(a.scanned[:0], len(drops))[:len(drops)]
	nc := (len(drops) + airScanChunk - 1) / airScanChunk
	a.scanCount = slices.Grow(a.scanCount[:0], nc)[:nc]
	a.src, a.m, a.box = drops, m, box
	a.next.Store(0)
	a.par.Do(a.nw, a.fFrame)
	a.m, a.src = nil, nil
	return m
}
