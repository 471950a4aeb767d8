package surface

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

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
	a := &AirSurface{s: s, nw: nw, par: parallel.New(nw), wk: make([]airWorker, nw)}
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

// The frame's phases run in one job of all the workers (frame): each phase's work is
// taken in pieces from a shared counter, whichever worker is free (a worker that starts
// late takes less), and placed by the piece, not by the worker; between two phases
// worker 0 alone does the serial steps (serial) while the others wait (sync).
const (
	airScanChunk   = 1024 // drops a piece of the scan
	airParamsChunk = 256  // drops a piece of the kernels
	airLoneChunk   = 32   // lone drops a piece of the copy
)

// The serial steps, after each phase.
const (
	airAfterScan = iota
	airAfterFollow
	airAfterParams
	airAfterPlanes
	airAfterLone
	airAfterTiles
)

// frame is worker w's part of a frame.
func (a *AirSurface) frame(w int) {
	k := &a.wk[w]
	a.scanWorker(k)
	a.sync(w, airAfterScan)
	if len(a.valid) == 0 {
		return // nothing drawn
	}
	a.followWorker()
	a.sync(w, airAfterFollow)
	if a.h != 0 { // drops on the lattice
		a.paramsWorker()
		a.sync(w, airAfterParams)
		if w == 0 {
			a.bin() // while the others start on the planes
		}
		a.planesWorker(w)
		a.sync(w, airAfterPlanes)
		if !a.mcOnly {
			a.lonesWorker(k)
		}
		a.sync(w, airAfterLone)
		a.tilesWorker(k, int32(w))
	}
	a.sync(w, airAfterTiles)
	a.copyWorker(k)
}

// sync waits for every worker to arrive; worker 0 then does the serial step and lets
// the others go on.
func (a *AirSurface) sync(w, step int) {
	if a.nw == 1 {
		a.serial(step)
		return
	}
	if w != 0 {
		gen := a.gen.Load()
		if a.arrived.Add(1) == int32(a.nw-1) {
			a.wake()
		}
		a.await(func() bool { return a.gen.Load() != gen })
		return
	}
	a.await(func() bool { return a.arrived.Load() == int32(a.nw-1) })
	a.arrived.Store(0)
	a.serial(step)
	a.gen.Add(1)
	a.wake()
}

// await returns once done holds: it checks, yielding now and then, for airSpin, then
// sleeps on cond until woken (wake) and done holds. (A worker asleep wakes late; one
// that spins takes a processor another job may need: the serial steps and a phase's
// last pieces take less than airSpin.)
func (a *AirSurface) await(done func() bool) {
	var t0 time.Time
	for i := 0; !done(); i++ {
		if i&63 != 63 {
			continue
		}
		if i == 63 {
			t0 = time.Now()
		} else if time.Since(t0) > airSpin {
			a.mu.Lock()
			a.sleepers.Add(1)
			for !done() {
				a.cond.Wait()
			}
			a.sleepers.Add(-1)
			a.mu.Unlock()
			return
		}
		runtime.Gosched()
	}
}

// airSpin is how long a worker waiting at a sync checks before it sleeps.
const airSpin = 300 * time.Microsecond

// wake wakes the workers asleep at a sync, to check whether they may go on. (A worker
// counts itself asleep, and checks, under mu: it cannot miss a wake.)
func (a *AirSurface) wake() {
	if a.sleepers.Load() > 0 {
		a.mu.Lock()
		a.cond.Broadcast()
		a.mu.Unlock()
	}
}

// serial does a serial step (worker 0, the others waiting).
func (a *AirSurface) serial(step int) {
	a.next.Store(0)
	switch step {
	case airAfterScan:
		a.gather()
	case airAfterFollow:
		a.streamsLink()
		a.lattice()
	case airAfterParams:
	case airAfterPlanes:
		// Let every worker's arena hold the whole frame's planes (which worker takes
		// which drops varies from frame to frame): the next frame of this size
		// allocates nothing.
		n := 0
		for w := range a.wk {
			n += len(a.wk[w].planes)
		}
		for w := range a.wk {
			a.wk[w].planes = slices.Grow(a.wk[w].planes, n-len(a.wk[w].planes))
		}
		a.tileOrder()
		a.lonePrepare()
	case airAfterLone:
		for w := range a.wk {
			k := &a.wk[w]
			k.pos, k.nor, k.idx, k.low, k.foreign = k.pos[:0], k.nor[:0], k.idx[:0], k.low[:0], k.foreign[:0]
		}
	case airAfterTiles:
		a.loneCollect()
		a.sizes()
	}
}

// scanWorker lists the drops drawn (those with a finite positive radius and a centre in
// the box) of pieces of the frame's drops, and counts their radii in the worker's
// histogram.
func (a *AirSurface) scanWorker(k *airWorker) {
	clear(k.hist[:])
	k.rmax = 0
	box := &a.box
	for {
		c := int(a.next.Add(1)) - 1
		lo := c * airScanChunk
		if lo >= len(a.src) {
			return
		}
		hi := min(lo+airScanChunk, len(a.src))
		out := a.scanned[lo:hi]
		n := 0
		for i := lo; i < hi; i++ {
			d := &a.src[i]
			r := float64(d.Radius)
			x, y, z := float64(d.X), float64(d.Y), float64(d.Z)
			// NaN fails every comparison: a NaN position or radius is left out here.
			if !(r > 0) || math.IsInf(r, 0) || !(x >= box.Min[0] && x <= box.Max[0] && y >= box.Min[1] &&
				y <= box.Max[1] && z >= box.Min[2] && z <= box.Max[2]) {
				continue
			}
			out[n] = int32(i)
			n++
			k.hist[radiusBin(r)]++
			k.rmax = max(k.rmax, r)
		}
		a.scanCount[c] = int32(n)
	}
}

// gather lists the drops drawn (in order), counts their radii and hashes them for the
// streams (streamsPrepare).
func (a *AirSurface) gather() {
	a.valid = a.valid[:0]
	for c, n := range a.scanCount {
		a.valid = append(a.valid, a.scanned[c*airScanChunk:c*airScanChunk+int(n)]...)
	}
	if len(a.valid) == 0 {
		return
	}
	clear(a.hist[:])
	a.rmax = 0
	for w := range a.wk {
		k := &a.wk[w]
		for b, n := range &k.hist {
			a.hist[b] += n
		}
		a.rmax = max(a.rmax, k.rmax)
	}
	a.streamsPrepare(a.medianRadius())
}

// medianRadius is the median radius of the drops a.hist counts (a.valid), to a quarter
// octave.
func (a *AirSurface) medianRadius() float64 {
	half, cum := int32(len(a.valid)+1)/2, int32(0)
	for b, n := range a.hist {
		if cum += n; cum >= half {
			return math.Exp2((float64(b-airHistOffset) + 0.5) / 4)
		}
	}
	return 0
}

// lattice picks the frame's spacing and lattice for the drops left on it (a.valid, once
// the streams have taken theirs); a.h stays 0 when there are none.
func (a *AirSurface) lattice() {
	a.drops, a.kbox, a.order = a.drops[:0], a.kbox[:0], a.order[:0]
	if len(a.valid) == 0 {
		return
	}
	rmax := a.rmax
	box := &a.box
	h := a.s.Spacing
	if h == 0 {
		h = a.medianRadius() / a.s.RadiusCells
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
	a.h, a.ih = h, 1/h
	if nd := int(a.nt[0]) * int(a.nt[1]) * int(a.nt[2]); len(a.dir) < nd {
		old := len(a.dir)
		a.dir = slices.Grow(a.dir, nd-old)[:nd]
		for i := old; i < nd; i++ {
			a.dir[i] = -1
		}
	}
	a.drops = slices.Grow(a.drops[:0], len(a.valid))[:len(a.valid)]
	a.kbox = slices.Grow(a.kbox[:0], len(a.valid))[:len(a.valid)]
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

// paramsWorker turns pieces of the drops drawn into kernels in lattice units.
func (a *AirSurface) paramsWorker() {
	for {
		lo := (int(a.next.Add(1)) - 1) * airParamsChunk
		if lo >= len(a.valid) {
			return
		}
		for k := lo; k < min(lo+airParamsChunk, len(a.valid)); k++ {
			a.params(k)
		}
	}
}

// params turns drop k (of the drops drawn) into its kernel in lattice units.
func (a *AirSurface) params(k int) {
	ih, tau, smax := a.ih, a.s.StretchTime, a.s.MaxStretch
	src := &a.src[a.valid[k]]
	p := [3]float64{float64(src.X)*ih - float64(a.o[0]), float64(src.Y)*ih - float64(a.o[1]), float64(src.Z)*ih - float64(a.o[2])}
	rho := float64(src.Radius) * ih
	irho := 1 / rho
	v := [3]float64{float64(src.VX), float64(src.VY), float64(src.VZ)}
	sp := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	s := 1.0
	var u [3]float64
	if sp > 0 && !math.IsInf(sp, 0) { // NaN fails sp > 0: at rest
		s = airClamp(1+sp*tau*ih*0.5*irho, 1, smax)
		isp := 1 / sp
		u = [3]float64{v[0] * isp, v[1] * isp, v[2] * isp}
	}
	d := &a.drops[k]
	d.r, d.s, d.u = float32(rho), float32(s), [3]float32{float32(u[0]), float32(u[1]), float32(u[2])}
	// The kernel marching cubes meshes: its radius enlarged to make up for the facets
	// (airCompensate), at least airMinRadiusCells, and stretched no thinner.
	r := airClamp(airCompensation(airFacets*math.Sqrt(s)*irho*irho)*rho, airMinRadiusCells, 1.25*airMaxRadiusCells)
	if sm := r * r * (1 / (airMinRadiusCells * airMinRadiusCells)); s > sm {
		s = sm
	}
	isq := 1 / math.Sqrt(s)
	ra, rb := airKappa*r*s, airKappa*r*isq // the kernel's semi-axes along and across v
	d.reach = float32(ra)
	// M = ib I + dd u u^T; its inverse N = rb^2 I + dn u u^T.
	ir2 := 1 / (airKappa * airKappa * r * r)
	ib := ir2 * s
	dd := ir2*isq*isq*isq*isq - ib
	d.m = [6]float32{float32(ib + dd*u[0]*u[0]), float32(ib + dd*u[1]*u[1]), float32(ib + dd*u[2]*u[2]),
		float32(dd * u[0] * u[1]), float32(dd * u[0] * u[2]), float32(dd * u[1] * u[2])}
	rb2, dn := rb*rb, ra*ra-rb*rb
	nn := [3]float64{rb2 + dn*u[0]*u[0], rb2 + dn*u[1]*u[1], rb2 + dn*u[2]*u[2]} // N's diagonal
	for ax := range 3 {
		e := math.Sqrt(nn[ax]) // the ellipsoid's half extent along ax
		lo := min(max(int32(math.Ceil(p[ax]-e)), 1), a.n[ax]-2)
		d.lo[ax], d.hi[ax] = lo, min(max(int32(math.Floor(p[ax]+e)), 1), a.n[ax]-2)
		d.c[ax] = float32(p[ax] - float64(lo))
	}
	a.kbox[k] = airKernelBox{lo: d.lo, hi: d.hi, c: d.c, reach: d.reach}
	// What its planes' ranges need (planes): from N's entries.
	inzz := 1 / nn[2]
	nxz, nyz := dn*u[0]*u[2]*inzz, dn*u[1]*u[2]*inzz
	d.pk = [5]float32{float32(inzz), float32(nxz), float32(nyz),
		float32(math.Sqrt(max(nn[0]-dn*u[0]*u[2]*nxz, 0))), float32(math.Sqrt(max(nn[1]-dn*u[1]*u[2]*nyz, 0)))}
}

// planesWorker appends the planes' ranges of pieces of the drops drawn to worker w's
// arena until none is left (planes).
func (a *AirSurface) planesWorker(w int) {
	pl := a.wk[w].planes[:0]
	for {
		lo := (int(a.next.Add(1)) - 1) * airParamsChunk
		if lo >= len(a.drops) {
			break
		}
		for k := lo; k < min(lo+airParamsChunk, len(a.drops)); k++ {
			a.planes(&a.drops[k], w, &pl)
		}
	}
	a.wk[w].planes = pl
}

// planes appends drop d's planes' ranges to pl, worker w's: in plane z (dz from the
// centre), the kernel's section reaches the rows within sqrt(Ay t) of nyz/nzz dz and
// the columns within sqrt(Ax t) of nxz/nzz dz, t = 1 - dz^2/nzz (the ellipsoid's
// projection on the (y, z) plane is the ellipse of N's (y, z) block, Ay = nyy -
// nyz^2/nzz; so for x; params).
func (a *AirSurface) planes(d *airDrop, w int, pl *[]uint32) {
	wx, wy := d.hi[0]-d.lo[0], d.hi[1]-d.lo[1]
	d.pc, d.po = int32(w), int32(len(*pl))
	if wx > 255 || wy > 255 { // too wide for a byte: the box's
		d.po = -1
		return
	}
	nz := int(max(d.hi[2]-d.lo[2]+1, 0))
	planes := slices.Grow(*pl, nz)
	n := len(planes)
	planes = planes[:n+nz]
	args := airPlanesArgs{c: d.c, pk: d.pk, wx: wx, wy: wy}
	airPlanes(planes[n:], &args)
	*pl = planes
}

// airClamp is x clamped to [lo, hi], for a number x (branches, which the processor
// predicts: min and max of floats are longer, to order NaNs and zeros).
func airClamp(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
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

// bin lists the tiles the drops reach (tile t owns points [32 t, 32 t + 32) and reads
// [32 t - 1, 32 t + 33]), in the order the drops first reach them, and each tile's drops
// in drop order; pairs lists each drop's tiles, drop by drop (pairStart[k] the first of
// drop k's), and pairSlot where each pair is in members.
func (a *AirSurface) bin() {
	a.pairs = a.pairs[:0] // the directory was reset by Append
	a.pairStart = slices.Grow(a.pairStart[:0], len(a.drops)+1)[:len(a.drops)+1]
	nt0, nt01 := int(a.nt[0]), int(a.nt[0])*int(a.nt[1])
	cnt := a.tileCount[:0] // the tiles' drops, counted, then their next slot in members
	for k := range a.drops {
		d := &a.drops[k]
		a.pairStart[k] = int32(len(a.pairs))
		var tl, th [3]int32
		for ax := range 3 {
			tl[ax] = max((d.lo[ax]-2)>>airTileShift, 0) // floor((lo - 2) / airTile)
			th[ax] = min((d.hi[ax]+1)>>airTileShift, a.nt[ax]-1)
		}
		for tz := tl[2]; tz <= th[2]; tz++ {
			for ty := tl[1]; ty <= th[1]; ty++ {
				row := int(tz)*nt01 + int(ty)*nt0
				for tx := tl[0]; tx <= th[0]; tx++ {
					ti := a.dir[row+int(tx)]
					if ti < 0 {
						ti = int32(len(a.tiles))
						a.tiles = append(a.tiles, airTileRec{t: [3]int32{tx, ty, tz}})
						cnt = append(cnt, 0)
						a.dir[row+int(tx)] = ti
					}
					cnt[ti]++
					a.pairs = append(a.pairs, ti)
				}
			}
		}
	}
	a.pairStart[len(a.drops)] = int32(len(a.pairs))
	n := int32(0)
	for i := range a.tiles {
		t := &a.tiles[i]
		t.first, t.count = n, cnt[i]
		cnt[i] = n
		n += t.count
	}
	a.tileCount = cnt
	a.members = slices.Grow(a.members[:0], int(n))[:n]
	a.pairSlot = slices.Grow(a.pairSlot[:0], int(n))[:n]
	for k := range a.drops {
		for j := a.pairStart[k]; j < a.pairStart[k+1]; j++ {
			slot := cnt[a.pairs[j]]
			cnt[a.pairs[j]] = slot + 1
			a.members[slot], a.pairSlot[j] = int32(k), slot
		}
	}
}

func (a *AirSurface) dirIndex(t [3]int32) int {
	return (int(t[2])*int(a.nt[1])+int(t[1]))*int(a.nt[0]) + int(t[0])
}

// tileOrder lists the tiles by their number of drops, most first, the order they are
// taken in (which tile is handled when changes nothing in the mesh): the last ones are
// short, and the workers finish together.
func (a *AirSurface) tileOrder() {
	a.order = a.order[:0]
	for i := range a.tiles {
		a.order = append(a.order, int32(i))
	}
	slices.SortFunc(a.order, func(x, y int32) int {
		if c := a.tiles[y].count - a.tiles[x].count; c != 0 {
			return int(c)
		}
		return int(x - y)
	})
}

// tilesWorker meshes tiles until none is left, then takes pieces of the drops for
// aloneChunk.
func (a *AirSurface) tilesWorker(k *airWorker, w int32) {
	nc := (len(a.drops) + airScanChunk - 1) / airScanChunk
	for {
		i := int(a.next.Add(1)) - 1
		switch {
		case i < len(a.order):
			a.meshTile(k, w, &a.tiles[a.order[i]])
		case i < len(a.order)+nc:
			a.aloneChunk(i - len(a.order))
		default:
			return
		}
	}
}

const airDim2 = airDim * airDim

// airEdge is a cube edge: its start corner, axis, the offset in a tile's buffer of its
// start point from the cell's, and its entry in vidx less 3 times the cell's point.
type airEdge struct {
	d             [3]int32
	ax, off, slot int32
}

// meshTile splats the tile's drops into the worker's buffer, meshes the cells the tile
// owns that have a corner inside, and leaves the buffer clean.
func (a *AirSurface) meshTile(k *airWorker, w int32, t *airTileRec) {
	var g0 [3]int32 // the lattice point at the buffer's (0, 0, 0)
	for ax := range 3 {
		g0[ax] = t.t[ax]*airTile - 1
	}
	for _, di := range a.members[t.first : t.first+t.count] {
		if a.isLone(di) {
			continue // drawn from the template
		}
		d := &a.drops[di]
		k.splat(d, a.wk[d.pc].planes[max(d.po, 0):], g0)
	}

	// Each written row's inside points (F >= iso) as a bit mask, the rows with one.
	field, mask := k.field, k.mask
	var inside [airRowWords + 2]uint64 // two more: zero, for airShift
	for wi, word := range &k.written {
		for word != 0 {
			row := int32(wi<<6 + bits.TrailingZeros64(word))
			word &= word - 1
			m := airRowMask(field, row)
			mask[row] = m
			if m != 0 {
				inside[row>>6] |= 1 << (row & 63)
			}
		}
	}
	// The row quads (the cells between rows q, q + 1, q + airDim and q + airDim + 1)
	// with an inside corner, among those of the cells the tile owns (buffer coordinates
	// 1..airTile).
	var quads [airRowWords]uint64
	for i := range quads {
		quads[i] = (inside[i] | airShift(&inside, i, 1) | airShift(&inside, i, airDim) | airShift(&inside, i, airDim+1)) &
			airQuadBits[i]
	}

	t.w, t.v0, t.i0, t.l0, t.f0 = w, int32(len(k.pos)/3), int32(len(k.idx)), int32(len(k.low)), int32(len(k.foreign))
	// First the vertices: each edge that crosses the surface starting at a point of
	// the cells the tile owns is numbered by the cell it starts (the cell's +x, +y and
	// +z edges); then the triangles, which find them in vidx.
	for qi, word := range &quads {
		for word != 0 {
			q := int32(qi<<6 + bits.TrailingZeros64(word))
			word &= word - 1
			a.quadVertices(k, q, g0)
		}
	}
	idx := k.idx
	for qi, word := range &quads {
		for word != 0 {
			q := int32(qi<<6 + bits.TrailingZeros64(word))
			word &= word - 1
			a.meshQuad(k, t, q, g0, &idx)
		}
	}
	k.idx = idx
	// The vertices, from the field, in the order they were numbered.
	n := len(k.pos)
	k.pos, k.nor = slices.Grow(k.pos, 3*len(k.pend))[:n+3*len(k.pend)], slices.Grow(k.nor, 3*len(k.pend))[:n+3*len(k.pend)]
	a.vertices(k, k.pos[n:], k.nor[n:], g0)
	k.pend = k.pend[:0]
	t.nv, t.ni, t.nl, t.nf = int32(len(k.pos)/3)-t.v0, int32(len(k.idx))-t.i0, int32(len(k.low))-t.l0, int32(len(k.foreign))-t.f0
	slices.SortFunc(k.low[t.l0:], cmpAirRef)

	for _, s := range k.slots {
		k.vidx[s] = -1
	}
	for wi, word := range &k.written {
		for word != 0 {
			row := int32(wi<<6 + bits.TrailingZeros64(word))
			word &= word - 1
			clear(field[row*airDim : row*airDim+airDim])
			mask[row] = 0
		}
	}
	k.written = [airRowWords]uint64{}
	k.slots = k.slots[:0]
}

// quadVertices numbers the vertices on the +x, +y and +z edges of the cells of row
// quad q (their corner 0 on row q) that cross the surface (their two ends' masks
// differ), in that order, each by x.
func (a *AirSurface) quadVertices(k *airWorker, q int32, g0 [3]int32) {
	cz, cy := q/airDim, q%airDim
	m00 := k.mask[q]
	low := cy == 1 || cz == 1 // the row lies on a low face: its vertices are referred to from below
	for ax, cross := range [3]uint64{m00 ^ m00>>1, m00 ^ k.mask[q+1], m00 ^ k.mask[q+airDim]} {
		cross &= airCellBits
		for cross != 0 {
			x := int32(bits.TrailingZeros64(cross))
			cross &= cross - 1
			p := q*airDim + x
			slot := 3*p + int32(ax)
			idx := int32(len(k.pend))
			k.pend = append(k.pend, p<<2|int32(ax))
			k.vidx[slot] = idx
			k.slots = append(k.slots, slot)
			if low || x == 1 {
				key := ((uint64(cz+g0[2])<<airCoordBits|uint64(cy+g0[1]))<<airCoordBits|uint64(x+g0[0]))<<2 | uint64(ax)
				k.low = append(k.low, airRef{key, uint32(idx)})
			}
		}
	}
}

// meshQuad meshes the cells of row quad q (the cells between rows q, q + 1, q + airDim
// and q + airDim + 1) that have a corner inside and one outside, appending their
// triangles' corners to idx.
func (a *AirSurface) meshQuad(k *airWorker, t *airTileRec, q int32, g0 [3]int32, pidx *[]uint32) {
	idx := *pidx
	cz, cy := q/airDim, q%airDim
	m00, m10, m01, m11 := k.mask[q], k.mask[q+1], k.mask[q+airDim], k.mask[q+airDim+1]
	// The cells with a corner inside and one outside: cell x has its corners at x and
	// x + 1.
	or, and := m00|m10|m01|m11, m00&m10&m01&m11
	cells := (or | or>>1) &^ (and & (and >> 1)) & airCellBits
	for cells != 0 {
		x := int32(bits.TrailingZeros64(cells))
		cells &= cells - 1
		c := uint8(m00>>x&3) | uint8(m10>>x&3)<<2 | uint8(m01>>x&3)<<4 | uint8(m11>>x&3)<<6
		cell := q*airDim + x
		for _, e := range airTris[airTriStart[c]:airTriStart[c+1]] {
			if v := k.vidx[3*cell+airEdges[e].slot]; v >= 0 { // numbered already (all but the foreign)
				idx = append(idx, uint32(v))
				continue
			}
			idx = append(idx, a.edgeVertex(k, t, cell, e, [3]int32{x, cy, cz}, g0))
		}
	}
	*pidx = idx
}

// airRowWords is the number of words of a bit set of a tile buffer's rows.
const airRowWords = (airDim*airDim + 63) / 64

// airShift returns word i of the bit set b shifted down by n bits (bit j of the result
// is bit j + n of b), n < 64; b has a zero word past the set's.
func airShift(b *[airRowWords + 2]uint64, i, n int) uint64 {
	return b[i]>>n | b[i+1]<<(64-n)
}

// airQuadBits is the bit set of the row quads of the cells a tile owns: z and y in
// 1..airTile.
var airQuadBits = func() (b [airRowWords]uint64) {
	for z := 1; z <= airTile; z++ {
		for y := 1; y <= airTile; y++ {
			q := z*airDim + y
			b[q>>6] |= 1 << (q & 63)
		}
	}
	return b
}()

// airCellBits are the cells a tile owns along a row, buffer x 1..airTile.
const airCellBits = (1<<airTile - 1) << 1

func cmpAirRef(x, y airRef) int {
	switch {
	case x.key < y.key:
		return -1
	case x.key > y.key:
		return 1
	}
	return 0
}

// edgeVertex returns the tile's vertex on edge e of the cell at buffer point cell
// (buffer coordinates c) that vidx does not hold: for an edge starting in the next
// tile, a foreign reference, resolved when the mesh is joined; else (none:
// quadVertices numbered every edge that crosses the surface and starts in the tile's
// cells) a vertex numbered now.
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
	k.slots = append(k.slots, slot)
	s := [3]int32{c[0] + ed.d[0], c[1] + ed.d[1], c[2] + ed.d[2]}
	foreign := s[0] > airTile || s[1] > airTile || s[2] > airTile
	if foreign || s[0] == 1 || s[1] == 1 || s[2] == 1 {
		g := [3]int32{s[0] + g0[0], s[1] + g0[1], s[2] + g0[2]}
		key := ((uint64(g[2])<<airCoordBits|uint64(g[1]))<<airCoordBits|uint64(g[0]))<<2 | uint64(ed.ax)
		if foreign {
			j := int32(len(k.foreign)) - t.f0
			k.foreign = append(k.foreign, key)
			k.vidx[slot] = -2 - j
			return airForeign | uint32(j)
		}
		k.low = append(k.low, airRef{key, uint32(len(k.pend))})
	}
	idx := int32(len(k.pend))
	k.pend = append(k.pend, p<<2|ed.ax)
	k.vidx[slot] = idx
	return uint32(idx)
}

// vertices makes the tile's vertices listed in k.pend (an edge's start, buffer index
// p, and axis: p<<2 | axis), into pos and nor: where the field crosses the iso-level
// along the edge, linearly interpolated; the normal minus the central-difference
// gradient interpolated along the edge.
func (a *AirSurface) vertices(k *airWorker, pos, nor []float32, g0 [3]int32) {
	f := k.field
	h := a.h
	for i, pe := range k.pend {
		p, ax := pe>>2, pe&3
		q := p + [3]int32{1, airDim, airDim2}[ax]
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
			n[ax] = 1
			if v1 > v0 {
				n[ax] = -1
			}
		}
		// The start's lattice coordinates.
		z := p / airDim2
		y := (p - z*airDim2) / airDim
		g := [3]int32{p - z*airDim2 - y*airDim + g0[0], y + g0[1], z + g0[2]}
		pt := [3]float64{float64(a.o[0]+int64(g[0])) * h, float64(a.o[1]+int64(g[1])) * h, float64(a.o[2]+int64(g[2])) * h}
		pt[ax] += float64(u) * h
		pos[3*i], pos[3*i+1], pos[3*i+2] = float32(pt[0]), float32(pt[1]), float32(pt[2])
		nor[3*i], nor[3*i+1], nor[3*i+2] = n[0], n[1], n[2]
	}
}

// sizes places the tiles' parts of the mesh and the lone drops in it, grows it to hold
// them, and lets every worker's arena hold the whole frame's (which worker meshes which
// tile varies from frame to frame: the next frame of this size allocates nothing).
func (a *AirSurface) sizes() {
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
	m := a.m
	nv, ni := uint32(m.NumVertices()), uint32(len(m.Indices))
	nf, nvt := int32(0), int32(0)
	for i := range a.tiles {
		t := &a.tiles[i]
		nf, nvt = max(nf, t.nf), max(nvt, t.nv)
		t.base, t.first3 = nv, ni
		nv += uint32(t.nv)
		ni += uint32(t.ni)
	}
	for w := range a.wk {
		a.wk[w].res = slices.Grow(a.wk[w].res[:0], int(nf))
		a.wk[w].pend = slices.Grow(a.wk[w].pend[:0], int(nvt)) // the largest tile's, whichever worker meshes it
	}
	a.loneV, a.loneI = nv, ni // the lone drops follow the tiles
	nv += uint32(len(a.lone) * len(airLoneVerts))
	ni += uint32(len(a.lone) * 3 * len(airLoneTris))
	a.st.v0, a.st.i0 = nv, ni // the ropes follow them
	nv += uint32(a.st.nv)
	ni += uint32(a.st.ni)
	nv0 := m.NumVertices()
	grow(&m.Positions, 3*(int(nv)-nv0))
	grow(&m.Normals, 3*(int(nv)-nv0))
	grow(&m.Opacity, int(nv)-nv0)
	grow(&m.Indices, int(ni)-len(m.Indices))
}

// copyWorker writes tiles' parts of the mesh, pieces of the lone drops and pieces of the
// ropes into it until none is left.
func (a *AirSurface) copyWorker(k *airWorker) {
	nl := (len(a.lone) + airLoneChunk - 1) / airLoneChunk
	nr := (len(a.st.chains) + airRopeChunk - 1) / airRopeChunk
	for {
		i := int(a.next.Add(1)) - 1
		switch {
		case i < len(a.order):
			a.copyTile(&a.tiles[a.order[i]], k.res)
		case i < len(a.order)+nl:
			lo := (i - len(a.order)) * airLoneChunk
			for j := lo; j < min(lo+airLoneChunk, len(a.lone)); j++ {
				a.lonePut(j)
			}
		case i < len(a.order)+nl+nr:
			lo := (i - len(a.order) - nl) * airRopeChunk
			for j := lo; j < min(lo+airRopeChunk, len(a.st.chains)); j++ {
				a.ropePut(&a.st.chains[j])
			}
		default:
			return
		}
	}
}

// copyTile writes tile t's part of the mesh into it (res: scratch, for the vertices of
// its foreign corners).
func (a *AirSurface) copyTile(t *airTileRec, res []uint32) {
	m := a.m
	k := &a.wk[t.w]
	// Its foreign edges' vertices, each looked up once.
	fr := res[:t.nf] // sizes made room
	for j, key := range k.foreign[t.f0 : t.f0+t.nf] {
		fr[j] = a.resolve(key, t.base)
	}
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
		dst[j] = fr[v&^airForeign]
	}
}

// lonePrepare readies the search for the lone drops, the drops whose kernel meets no
// other's (boxesMeet and spheresMeet): each is the ellipsoid F = iso on its own, drawn
// from a template (lonePut) and left out of the lattice. Two drops' boxes meet in some
// tile both reach: each tile checks its drops (lonesWorker), a drop is lone when it is
// so in all of its tiles (isLone).
func (a *AirSurface) lonePrepare() {
	n := len(a.drops)
	a.alone = slices.Grow(a.alone[:0], n)[:n]
	a.memberLone = slices.Grow(a.memberLone[:0], len(a.members))[:len(a.members)]
	if a.mcOnly {
		return
	}
	most := 0
	for i := range a.tiles {
		most = max(most, int(a.tiles[i].count))
	}
	hb := max(bits.Len(uint(most)), 5) + 1
	for w := range a.wk {
		k := &a.wk[w]
		k.boxes, k.raw = slices.Grow(k.boxes[:0], most)[:most], slices.Grow(k.raw[:0], most)[:most]
		k.chain = slices.Grow(k.chain[:0], most)[:most]
		k.head = slices.Grow(k.head[:0], 1<<hb)[:1<<hb]
	}
}

// isLone tells whether drop k is lone: so in each of its tiles (lonesWorker).
func (a *AirSurface) isLone(k int32) bool {
	if a.mcOnly {
		return false
	}
	for _, slot := range a.pairSlot[a.pairStart[k]:a.pairStart[k+1]] {
		if !a.memberLone[slot] {
			return false
		}
	}
	return true
}

// aloneChunk sets alone for piece c of the drops (airScanChunk of them), and lists the
// piece's lone drops (in scanned, at the piece's start; loneCollect gathers them).
func (a *AirSurface) aloneChunk(c int) {
	lo := c * airScanChunk
	n := 0
	for k := lo; k < min(lo+airScanChunk, len(a.drops)); k++ {
		lone := a.isLone(int32(k))
		a.alone[k] = lone
		if lone {
			a.scanned[lo+n] = int32(k)
			n++
		}
	}
	a.scanCount[c] = int32(n)
}

// loneCollect lists the lone drops, in order.
func (a *AirSurface) loneCollect() {
	a.lone = a.lone[:0]
	for c := range (len(a.drops) + airScanChunk - 1) / airScanChunk {
		a.lone = append(a.lone, a.scanned[c*airScanChunk:c*airScanChunk+int(a.scanCount[c])]...)
	}
}

// lonesWorker sets memberLone for the drops of tiles until none is left: whether no
// other drop of the tile has a kernel meeting theirs. The drops' boxes are sorted by
// their low x and swept, each looking both ways until it finds a kernel it meets or the
// boxes are too far in x: in a stream, a drop meets the first it looks at.
func (a *AirSurface) lonesWorker(k *airWorker) {
	for {
		i := int(a.next.Add(1)) - 1
		if i >= len(a.order) {
			return
		}
		t := &a.tiles[a.order[i]]
		mem := a.members[t.first : t.first+t.count]
		flags := a.memberLone[t.first : t.first+t.count]
		// The boxes, in the tile's order, then sorted by low x: counting (by comparisons
		// where the lows span more than 255 points: boxes over 200 cells wide, with a
		// MaxStretch above 3).
		raw, boxes := k.raw[:len(mem)], k.boxes[:len(mem)]
		lo0, hi0, width := int32(math.MaxInt32), int32(math.MinInt32), int32(0)
		for j, d := range mem {
			raw[j] = a.kbox[d]
			raw[j].j = int32(j)
			lo0, hi0 = min(lo0, raw[j].lo[0]), max(hi0, raw[j].lo[0])
			width = max(width, raw[j].hi[0]-raw[j].lo[0])
		}
		if span := hi0 - lo0 + 2; span <= int32(len(k.count)) {
			count := k.count[:span]
			clear(count)
			for j := range raw {
				count[raw[j].lo[0]-lo0+1]++
			}
			sum := int32(0)
			for b, n := range count {
				sum += n
				count[b] = sum
			}
			for j := range raw {
				b := raw[j].lo[0] - lo0
				boxes[count[b]] = raw[j]
				count[b]++
			}
		} else {
			copy(boxes, raw)
			slices.SortFunc(boxes, func(x, y airKernelBox) int { return int(x.lo[0] - y.lo[0]) })
		}
		// First the drops whose boxes' low corners share a block of 4^3 points (a hash
		// table of chains, about twice as many slots as drops): most drops of a stream
		// meet one of those.
		hb := uint32(max(bits.Len(uint(len(boxes))), 5) + 1)
		head := k.head[:1<<hb]
		for i := range head {
			head[i] = -1
		}
		chain := k.chain[:len(boxes)]
		for p := range boxes {
			b := airBlockHash(&boxes[p], hb)
			chain[p], head[b] = head[b], int32(p)
		}
		for p := range boxes {
			d := &boxes[p]
			lone := true
			for q, n := head[airBlockHash(d, hb)], 0; lone && q >= 0 && n < 4; q, n = chain[q], n+1 {
				if q != int32(p) && boxesMeet(d, &boxes[q]) {
					lone = !spheresMeet(d, &boxes[q])
				}
			}
			if !lone {
				flags[d.j] = false
				continue
			}
			// Then every box that may meet its own.
			for q := p + 1; lone && q < len(boxes) && boxes[q].lo[0] <= d.hi[0]; q++ {
				if boxesMeet(d, &boxes[q]) {
					lone = !spheresMeet(d, &boxes[q])
				}
			}
			for q := p - 1; lone && q >= 0 && boxes[q].lo[0] >= d.lo[0]-width; q-- {
				if boxesMeet(d, &boxes[q]) {
					lone = !spheresMeet(d, &boxes[q])
				}
			}
			flags[d.j] = lone
		}
	}
}

// airBlockHash is the slot of the block of 4^3 lattice points holding the low corner of
// box d in a hash table of 2^hb slots (lonesWorker).
func airBlockHash(d *airKernelBox, hb uint32) uint32 {
	return (uint32(d.lo[0]>>2)*0x9E3779B1 ^ uint32(d.lo[1]>>2)*0x85EBCA77 ^ uint32(d.lo[2]>>2)*0xC2B2AE3D) >> (32 - hb)
}

// airKernelBox is a drop's kernel's box, centre and reach, for boxesMeet and
// spheresMeet; j: the drop's place in its tile's list.
type airKernelBox struct {
	lo, hi [3]int32
	c      [3]float32
	reach  float32
	j      int32
}

// Two drops' kernels meet (may overlap) where their boxes share a lattice point
// (boxesMeet) and their bounding spheres, of the longest semi-axis, meet (spheresMeet).
// Kernels that do not overlap give no lattice point two drops' values, and no cell
// inside corners of both (an inside point lies at least 0.9 cells within its kernel:
// airMinRadiusCells): the mesh of the one is the same with or without the other.

// boxesMeet tells whether two drops' boxes share a lattice point: no difference of a
// high and a low coordinate is negative (lattice coordinates: no overflow).
func boxesMeet(x, y *airKernelBox) bool {
	return (y.hi[0]-x.lo[0])|(x.hi[0]-y.lo[0])|(y.hi[1]-x.lo[1])|(x.hi[1]-y.lo[1])|(y.hi[2]-x.lo[2])|(x.hi[2]-y.lo[2]) >= 0
}

// spheresMeet tells whether two drops' bounding spheres meet.
func spheresMeet(x, y *airKernelBox) bool {
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
	lp := airLoneArgs{x: src.X, y: src.Y, z: src.Z, ra: ra, rb: rb, na: na, nb: nb, u: d.u}
	airLone(m.Positions[3*v0:3*(v0+uint32(len(airLoneVerts)))], m.Normals[3*v0:3*(v0+uint32(len(airLoneVerts)))], &lp)
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
		// The last ref with a key <= key (a search without branches to mispredict).
		lo := 0
		for n := len(refs); n > 1; {
			half := n / 2
			if refs[lo+half].key <= key {
				lo += half
			}
			n -= half
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
		off := d[0] + d[1]*airDim + d[2]*airDim2
		edges[e] = airEdge{d: d, ax: int32(ax), off: off, slot: 3*off + int32(ax)}
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

// splat adds drop d's kernel to the worker's buffer, whose point (0, 0, 0) is lattice
// point g0, and marks the rows it writes. Only the planes, rows and columns the kernel
// reaches (pl, its planes' ranges) are evaluated; the values are from the points'
// lattice coordinates alone: a point gets the same bits in every tile whose buffer
// holds it.
func (k *airWorker) splat(d *airDrop, pl []uint32, g0 [3]int32) {
	a := airSplatArgs{m: d.m, c: d.c}
	for ax := range 3 {
		a.o[ax] = d.lo[ax] - g0[ax] // the buffer's coordinates of the box's low corner
		a.lo[ax], a.hi[ax] = max(a.o[ax], 0), min(d.hi[ax]-g0[ax], airDim-1)
		if a.lo[ax] > a.hi[ax] {
			return
		}
	}
	if d.po < 0 { // a box too wide for its planes' ranges: the box's
		for z := a.lo[2]; z <= a.hi[2]; z++ {
			airSplatPlane(k.field, &k.written, z, a.lo[1], a.hi[1], a.lo[0], a.hi[0], &a)
		}
		return
	}
	airSplat(k.field, &k.written, pl[a.lo[2]-a.o[2]:a.hi[2]-a.o[2]+1], &a)
}
