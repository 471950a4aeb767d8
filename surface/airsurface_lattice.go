package surface

import (
	"math"
	"slices"
)

// AirSurface's drops on the lattice (airsurface.go): the drops drawn and their radii
// (the scan), the frame's spacing and lattice, each drop's kernel in lattice units and
// its planes' ranges (with the radius that makes up for marching cubes' facets), and the
// tiles the kernels reach.

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
	a.kern.planes(planes[n:], &args)
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
