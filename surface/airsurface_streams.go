package surface

import (
	"math"
	"math/bits"
	"slices"
)

// Streams (docs/preview.md, "Streams: ropes, not beads"): the parcels that follow one
// another on one path are a stream, drawn as one rope. The solver releases a stream over
// an edge as parcels a release interval apart (each the liquid that gathered at the edge
// since the last); a parcel's liquid is, in truth, spread along its path back to where
// the next one is now. Merging the parcels' kernels on the lattice cannot draw that:
// parcels of the waterfall are 6 radii apart at the lip and 19 at the floor, and the
// rope their volume makes is a quarter of a lattice cell thick there. So a stream is
// drawn as a tube along the parcels' path (their parabola: each link a cubic Hermite
// curve through the two parcels with their velocities, which is the parabola itself when
// they fly ballistically), its radius that of a jet carrying the stream's flow rate at
// the local speed (continuity: pi R^2 |v| = Q, Q = a parcel's volume over the release
// interval): it thins as it falls and speeds up. The parcels of a stream are left out of
// the lattice; every other drop is drawn as before.
//
// Finding a parcel's follower. Two parcels on one ballistic path share their horizontal
// velocity and their apex's horizontal place, p_h + v_h v_z / g (exact for the solver's
// symplectic Euler steps, whatever the step); the follower B of A left the edge T =
// (v_Bz - v_Az) / g later and lies where A was then. The drops are hashed by their
// apex's cell (airStreamCell radii of the median radius), and A's follower is, among
// the drops of the 3 x 3 cells around its own, the nearest in time (least T) that
// passes: T in [airMinLink, StreamTime]; horizontal velocities within airStreamTurn of
// the speed; A less B less the mean velocity times T within airStreamMiss rA across and
// rA + airStreamDrop g T up and down. A parcel is the follower of at most one: of several that chose it, the one with
// the least T (then the least miss, then the first) keeps it. A link is a stream's part
// only then; a drop with no link in either direction is not in a stream.

// The streams' tolerances. A stream's parcels keep their horizontal velocity to 0.1 %
// of their speed and their path to 2 % of their radius (the library's waterfall, rock
// and surgery: at most 0.12 % and 2 %, one link of 128 at a third of the radius); a
// spray's parcels that happen to leave in nearly one direction a step apart differ by
// 1 to 6 % and 20 to 40 %, and are left apart.
const (
	// airStreamCell is the apex hash's cell size over the median radius: follower looks
	// at the one to four cells within its tolerance. airChainCell is the chains' hash's
	// (ropeSide): about the distance between two cells' streams side by side.
	airStreamCell = 0.25
	airChainCell  = 0.75
	// airStreamProbe: follower examines at most this many drops of a cell. A cell more
	// crowded is a spray's or a heap's (the fountain's parcels waiting on the pedestal,
	// 76 in one place), not a stream's (a stream's parcels share a cell with the few of
	// the streams beside it), and examining every pair of it cost more than the rest of
	// the frame.
	airStreamProbe = 32
	// airStreamTurn: the most two parcels of a stream differ in horizontal velocity,
	// over their speed; airStreamMiss: the most a follower's path misses its leader
	// across, over the leader's radius.
	airStreamTurn = 0.005
	airStreamMiss = 0.1
	// airStreamDrop: up and down, the miss may be a radius and airStreamDrop g T more:
	// the solver's steps (symplectic Euler, sub-steps hs) put the leader lower than the
	// mean velocity says by g T hs / 2, which this allows for sub-steps up to 6 ms.
	airStreamDrop = 0.003
	// airMinLink: two parcels that left less than this apart (s) are not a stream's
	// consecutive parcels (the same step's parcels side by side).
	airMinLink = 1e-4
	// airRopeSides is the number of vertices around a rope.
	airRopeSides = 8
	// airCapRings: each end of a rope is a hemisphere, a ring at 45 degrees and a pole.
	airCapRings = 1
	// airMaxBend is the most a rope turns over one of its segments, radians (10
	// degrees); a link has at most airMaxSegs segments.
	airMaxBend = math.Pi / 18
	airMaxSegs = 6
	// airRopeChunk is the number of ropes in a piece of the copy.
	airRopeChunk = 8
)

// airStreams is the frame's streams: the apex hash, each drop's follower and leader,
// and the chains they make (ropes).
type airStreams struct {
	g, tmax float64 // gravity, m/s^2, and the longest link (StreamTime), s
	cell    float64 // the apex hash's cell, m (0: no drop is hashed)
	ccell   float64 // the chains' hash's cell, m
	hb      uint32  // the hash table has 2^hb slots
	// Per drop drawn (all: a.valid before the streams leave theirs out): its apex's cell
	// (ok false: it is in no stream), the next drop in its slot's chain, its follower
	// (-1 none), the link's interval and miss, its leader (-1 none) and its chain (-1
	// none).
	all    []int32
	key    []airApex
	vz     []float64 // its vertical velocity (follower's first test, without its drop)
	next   []int32
	follow []int32
	ft, fm []float32
	lead   []int32
	chain  []int32
	head   []int32 // the hash table: each slot's first drop
	// The chains, front (the parcel furthest along) to back: node holds their drops (in
	// a.src), nodeT the interval of the link behind each (0 for a chain's last), segs
	// the segments of each piece of each rope (the front extension, the links front to
	// back, the tail).
	node   []int32
	nodeT  []float32
	segs   []uint8
	chains []airChain
	// The chains hashed by their front parcel's apex cell (ropeSide): each slot's first
	// chain and each chain's next; 2^chb slots.
	chead, cnext []int32
	chb          uint32
	// The ropes' size, and where they start in the mesh (sizes).
	nv, ni int
	v0, i0 uint32
}

// airApex is a drop's apex cell in the hash.
type airApex struct {
	x, y int32
	ok   bool
}

// airChain is a stream's rope: its drops (node[n0 : n0+n]; k0 the front's place in
// all), its pieces' segments (segs[s0 : s0+n+1]: the front extension, the n-1 links,
// the tail), how far it is drawn past its front parcel and behind its last (s of
// flight), and its vertices and triangle corners, from the ropes' first.
type airChain struct {
	n0, n, s0, k0  int32
	key            airApex // its front parcel's apex cell ...
	ax, ay         float64 // ... and place
	tFront, tTail  float64
	v0, i0, nv, ni int32
}

// airRopeTrig is cos and sin of the angles of a rope's vertices around it.
var airRopeTrig = func() (t [airRopeSides][2]float64) {
	for j := range t {
		a := 2 * math.Pi * float64(j) / airRopeSides
		t[j] = [2]float64{math.Cos(a), math.Sin(a)}
	}
	return t
}()

// airCapTrig is cos and sin of the caps' rings' latitudes, from the pole's side.
var airCapTrig = [airCapRings][2]float64{{math.Sqrt2 / 2, math.Sqrt2 / 2}}

// streamsPrepare hashes the drops drawn (a.valid) by their apex's cell, for
// followWorker (worker 0, between the scan and the links). rMed: their median radius.
func (a *AirSurface) streamsPrepare(rMed float64) {
	st := &a.st
	n := len(a.valid)
	st.g, st.tmax = a.s.Gravity, a.s.StreamTime
	st.key = slices.Grow(st.key[:0], n)[:n]
	st.vz = slices.Grow(st.vz[:0], n)[:n]
	st.next = slices.Grow(st.next[:0], n)[:n]
	st.follow = slices.Grow(st.follow[:0], n)[:n]
	st.ft = slices.Grow(st.ft[:0], n)[:n]
	st.fm = slices.Grow(st.fm[:0], n)[:n]
	st.lead = slices.Grow(st.lead[:0], n)[:n]
	st.chain = slices.Grow(st.chain[:0], n)[:n]
	st.all = append(st.all[:0], a.valid...)
	st.cell = 0
	if a.noStreams || !(rMed > 0) {
		for k := range st.key {
			st.key[k].ok = false
		}
		return
	}
	st.cell, st.ccell = airStreamCell*rMed, airChainCell*rMed
	st.hb = uint32(max(bits.Len(uint(n)), 5) + 1)
	st.head = slices.Grow(st.head[:0], 1<<st.hb)[:1<<st.hb]
	for i := range st.head {
		st.head[i] = -1
	}
	ic, ig := 1/st.cell, 1/st.g
	for k, i := range a.valid {
		d := &a.src[i]
		vx, vy, vz := float64(d.VX), float64(d.VY), float64(d.VZ)
		xa := (float64(d.X) + vx*vz*ig) * ic
		ya := (float64(d.Y) + vy*vz*ig) * ic
		// A velocity that is not a finite number (NaN fails both), or an apex too far
		// for the cell's coordinates: in no stream.
		if !(math.Abs(xa) < 1<<30 && math.Abs(ya) < 1<<30) || math.IsInf(vz, 0) || math.IsNaN(vz) {
			st.key[k] = airApex{}
			continue
		}
		st.vz[k] = vz
		key := airApex{int32(math.Floor(xa)), int32(math.Floor(ya)), true}
		slot := airApexHash(key.x, key.y, st.hb)
		if h := st.head[slot]; h >= 0 && st.key[h] == key && a.src[st.all[h]] == *d {
			// The same parcel twice (parcels waiting in one place): no stream's.
			st.key[k] = airApex{}
			continue
		}
		st.key[k] = key
		st.next[k], st.head[slot] = st.head[slot], int32(k)
	}
}

// airApexHash is the slot of apex cell (x, y) in a table of 2^hb slots.
func airApexHash(x, y int32, hb uint32) uint32 {
	return (uint32(x)*0x9E3779B1 ^ uint32(y)*0x85EBCA77) >> (32 - hb)
}

// chainApex sets c's front parcel's apex and its cell in the chains' hash.
func (a *AirSurface) chainApex(c *airChain) {
	st := &a.st
	d := &a.src[st.all[c.k0]]
	ic, ig := 1/st.ccell, 1/st.g
	vz := float64(d.VZ)
	c.ax, c.ay = float64(d.X)+float64(d.VX)*vz*ig, float64(d.Y)+float64(d.VY)*vz*ig
	c.key = airApex{int32(math.Floor(c.ax * ic)), int32(math.Floor(c.ay * ic)), true}
}

// followWorker finds the followers of pieces of the drops drawn until none is left.
func (a *AirSurface) followWorker() {
	st := &a.st
	for {
		lo := (int(a.next.Add(1)) - 1) * airParamsChunk
		if lo >= len(a.valid) {
			return
		}
		for k := lo; k < min(lo+airParamsChunk, len(a.valid)); k++ {
			st.follow[k], st.ft[k], st.fm[k] = -1, 0, 0
			if st.cell > 0 && st.key[k].ok {
				st.follow[k], st.ft[k], st.fm[k] = a.follower(k)
			}
		}
	}
}

// follower returns drop k's follower (of the drops drawn; -1: none), the link's
// interval and its miss across.
func (a *AirSurface) follower(k int) (int32, float32, float32) {
	st := &a.st
	A := &a.src[st.all[k]]
	ka := st.key[k]
	pa := [3]float64{float64(A.X), float64(A.Y), float64(A.Z)}
	va := [3]float64{float64(A.VX), float64(A.VY), float64(A.VZ)}
	ra := float64(A.Radius)
	best, bt, bm := int32(-1), math.Inf(1), math.Inf(1)
	// The cells within the tolerance of A's apex (its follower shares the apex).
	ic, tol := 1/st.cell, airStreamMiss*ra
	xa := pa[0] + va[0]*va[2]/st.g
	ya := pa[1] + va[1]*va[2]/st.g
	x0, x1 := int32(math.Floor((xa-tol)*ic)), int32(math.Floor((xa+tol)*ic))
	y0, y1 := int32(math.Floor((ya-tol)*ic)), int32(math.Floor((ya+tol)*ic))
	if x0 < ka.x-1 || x1 > ka.x+1 || y0 < ka.y-1 || y1 > ka.y+1 { // a radius far above the median's
		x0, x1, y0, y1 = ka.x-1, ka.x+1, ka.y-1, ka.y+1
	}
	for cy := y0; cy <= y1; cy++ {
		for cx := x0; cx <= x1; cx++ {
			probe := 0
			for j := st.head[airApexHash(cx, cy, st.hb)]; j >= 0 && probe < airStreamProbe; j = st.next[j] {
				if int(j) == k || st.key[j].x != cx || st.key[j].y != cy {
					continue
				}
				probe++
				T := (st.vz[j] - va[2]) / st.g
				if !(T >= airMinLink && T <= st.tmax) || T > bt {
					continue
				}
				B := &a.src[st.all[j]]
				vb := [3]float64{float64(B.VX), float64(B.VY), float64(B.VZ)}
				vm := [3]float64{(va[0] + vb[0]) / 2, (va[1] + vb[1]) / 2, (va[2] + vb[2]) / 2}
				sp := math.Sqrt(vm[0]*vm[0] + vm[1]*vm[1] + vm[2]*vm[2])
				if dvx, dvy := va[0]-vb[0], va[1]-vb[1]; dvx*dvx+dvy*dvy > airStreamTurn*airStreamTurn*sp*sp {
					continue
				}
				e := [3]float64{pa[0] - float64(B.X) - vm[0]*T, pa[1] - float64(B.Y) - vm[1]*T, pa[2] - float64(B.Z) - vm[2]*T}
				miss := math.Sqrt(e[0]*e[0] + e[1]*e[1])
				if !(miss <= tol && math.Abs(e[2]) <= ra+airStreamDrop*st.g*T) {
					continue
				}
				if T < bt || miss < bm || (miss == bm && j < best) {
					best, bt, bm = j, T, miss
				}
			}
		}
	}
	return best, float32(bt), float32(bm)
}

// streamsLink keeps each follower's best leader, lists the chains and sizes their
// ropes, and leaves the drops in a stream out of a.valid (worker 0, after followWorker).
func (a *AirSurface) streamsLink() {
	st := &a.st
	for k := range st.lead {
		st.lead[k], st.chain[k] = -1, -1
	}
	for k, f := range st.follow {
		if f < 0 {
			continue
		}
		if l := st.lead[f]; l < 0 || st.ft[k] < st.ft[l] || (st.ft[k] == st.ft[l] && st.fm[k] < st.fm[l]) {
			st.lead[f] = int32(k)
		}
	}
	link := func(k int32) int32 { // k's follower, if it kept k as its leader
		if f := st.follow[k]; f >= 0 && st.lead[f] == k {
			return f
		}
		return -1
	}
	st.node, st.nodeT, st.segs, st.chains = st.node[:0], st.nodeT[:0], st.segs[:0], st.chains[:0]
	st.nv, st.ni = 0, 0
	for k := range st.lead {
		if st.lead[k] >= 0 || link(int32(k)) < 0 {
			continue // not a stream's front
		}
		c := airChain{n0: int32(len(st.node)), s0: int32(len(st.segs)), k0: int32(k)}
		a.chainApex(&c)
		for j := int32(k); j >= 0; j = link(j) {
			st.chain[j] = int32(len(st.chains))
			st.node = append(st.node, st.all[j])
			t := float32(0)
			if link(j) >= 0 {
				t = st.ft[j]
			}
			st.nodeT = append(st.nodeT, t)
		}
		c.n = int32(len(st.node)) - c.n0
		a.ropeSegments(&c)
		rings := 2*airCapRings + 1 // the caps' and the front parcel's
		for _, s := range st.segs[c.s0 : c.s0+c.n+1] {
			rings += int(s)
		}
		c.v0, c.i0 = int32(st.nv), int32(st.ni)
		c.nv, c.ni = int32(airRopeSides*rings+2), int32(6*airRopeSides*(rings-1)+6*airRopeSides)
		st.nv, st.ni = st.nv+int(c.nv), st.ni+int(c.ni)
		st.chains = append(st.chains, c)
	}
	if len(st.chains) == 0 {
		return
	}
	st.chb = uint32(max(bits.Len(uint(len(st.chains))), 4) + 1)
	st.chead = slices.Grow(st.chead[:0], 1<<st.chb)[:1<<st.chb]
	for i := range st.chead {
		st.chead[i] = -1
	}
	st.cnext = slices.Grow(st.cnext[:0], len(st.chains))[:len(st.chains)]
	for i := range st.chains {
		slot := airApexHash(st.chains[i].key.x, st.chains[i].key.y, st.chb)
		st.cnext[i], st.chead[slot] = st.chead[slot], int32(i)
	}
	// The rest are drawn on the lattice: their radii alone choose its spacing.
	n := 0
	for k, i := range st.all {
		if st.chain[k] >= 0 {
			a.hist[radiusBin(float64(a.src[i].Radius))]--
			continue
		}
		a.valid[n] = i
		n++
	}
	a.valid = a.valid[:n]
}

// ropeSegments sets how far rope c is drawn past its front parcel and behind its last,
// and the segments of its pieces: as many as keep each within airMaxBend of turning.
func (a *AirSurface) ropeSegments(c *airChain) {
	st := &a.st
	g := st.g
	nodes, ts := st.node[c.n0:c.n0+c.n], st.nodeT[c.n0:c.n0+c.n]
	vel := func(i int32) [3]float64 {
		d := &a.src[i]
		return [3]float64{float64(d.VX), float64(d.VY), float64(d.VZ)}
	}
	segsFor := func(u, w [3]float64) uint8 {
		lu, lw := math.Sqrt(u[0]*u[0]+u[1]*u[1]+u[2]*u[2]), math.Sqrt(w[0]*w[0]+w[1]*w[1]+w[2]*w[2])
		cos := 1.0
		if lu > 0 && lw > 0 {
			cos = min(max((u[0]*w[0]+u[1]*w[1]+u[2]*w[2])/(lu*lw), -1), 1)
		}
		return uint8(min(max(int(math.Ceil(math.Acos(cos)/airMaxBend)), 1), airMaxSegs))
	}
	// The front: the stream goes on past its front parcel, whose leader has landed, for
	// one interval: down to where it landed (what is past it is under the surface it
	// landed on).
	v0 := vel(nodes[0])
	c.tFront = float64(ts[0])
	st.segs = append(st.segs, segsFor(v0, [3]float64{v0[0], v0[1], v0[2] - g*c.tFront}))
	for i := range c.n - 1 {
		st.segs = append(st.segs, segsFor(vel(nodes[i+1]), vel(nodes[i])))
	}
	// The tail: the last parcel's liquid spreads back along its path for one interval
	// (the next parcel is gathering at the edge), but not past the path's apex, where a
	// stream leaving an edge sideways began.
	vl := vel(nodes[c.n-1])
	c.tTail = float64(ts[c.n-2])
	if vl[2] < 0 {
		c.tTail = min(c.tTail, -vl[2]/g)
	}
	tail := uint8(0)
	if c.tTail > airMinLink {
		tail = segsFor([3]float64{vl[0], vl[1], vl[2] + g*c.tTail}, vl)
	} else {
		c.tTail = 0
	}
	st.segs = append(st.segs, tail)
}

// airRing is a rope's cross-section: its centre and unit tangent, and about them an
// ellipse of semi-axes ea and eb (along the frame's n and b), or in a sheet a strip ea
// wide each way and eb thick (airStrip); its caps are el long.
type airRing struct {
	c, t       [3]float64
	ea, eb, el float64
	strip      bool
}

// ropeSide finds the stream beside rope c, of the same sheet: of the other streams
// flying the same way (horizontal velocities within a tenth of the speed) whose front
// parcel's apex lies within airSheetReach radii of c's front parcel's, that parcel
// moved along its path to c's front parcel's age (its vertical velocity), the one
// nearest across c's path, and along it within as much. It returns the unit vector to
// it, across the path, and its distance (0: none).
func (a *AirSurface) ropeSide(c *airChain) ([3]float64, float64) {
	st := &a.st
	g, ig := st.g, 1/st.g
	A := &a.src[st.all[c.k0]]
	pa := [3]float64{float64(A.X), float64(A.Y), float64(A.Z)}
	va := [3]float64{float64(A.VX), float64(A.VY), float64(A.VZ)}
	sp := math.Sqrt(va[0]*va[0] + va[1]*va[1] + va[2]*va[2])
	if !(sp > 0) {
		return [3]float64{}, 0
	}
	t := [3]float64{va[0] / sp, va[1] / sp, va[2] / sp}
	reach := airSheetReach * float64(A.Radius)
	nc := min(int32(math.Ceil(reach/st.ccell)), airSheetCells)
	self := int32(st.chain[c.k0])
	best, bj := 0.0, int32(-1)
	var side [3]float64
	for dy := -nc; dy <= nc; dy++ {
		for dx := -nc; dx <= nc; dx++ {
			key := airApex{c.key.x + dx, c.key.y + dy, true}
			for j := st.chead[airApexHash(key.x, key.y, st.chb)]; j >= 0; j = st.cnext[j] {
				if j == self || st.chains[j].key != key {
					continue
				}
				// Apexes further apart than the reach across and along: too far.
				if ex, ey := st.chains[j].ax-c.ax, st.chains[j].ay-c.ay; ex*ex+ey*ey > 2*reach*reach {
					continue
				}
				B := &a.src[st.all[st.chains[j].k0]]
				vb := [3]float64{float64(B.VX), float64(B.VY), float64(B.VZ)}
				if dvx, dvy := vb[0]-va[0], vb[1]-va[1]; dvx*dvx+dvy*dvy > 0.01*sp*sp {
					continue
				}
				dt := (vb[2] - va[2]) * ig // B reaches A's vertical velocity dt later
				o := [3]float64{float64(B.X) + vb[0]*dt - pa[0], float64(B.Y) + vb[1]*dt - pa[1], float64(B.Z) + vb[2]*dt - 0.5*g*dt*dt - pa[2]}
				along := o[0]*t[0] + o[1]*t[1] + o[2]*t[2]
				o = [3]float64{o[0] - along*t[0], o[1] - along*t[1], o[2] - along*t[2]}
				d := math.Sqrt(o[0]*o[0] + o[1]*o[1] + o[2]*o[2])
				if d < 0.1*float64(A.Radius) || d > reach || math.Abs(along) > reach {
					continue
				}
				if bj < 0 || d < best || (d == best && j < bj) {
					best, bj, side = d, j, [3]float64{o[0] / d, o[1] / d, o[2] / d}
				}
			}
		}
	}
	return side, best
}

// A stream beside another of the same sheet (a curtain falling off an edge, a cell's
// stream beside the next cell's) is drawn as a strip of the sheet: its cross-section
// flat, half the distance between them wide on each side, as thin as keeps its area,
// so that side by side they make one sheet, each ray crossing one strip, instead of
// tubes with a crease between each two (the preview draws every face of the liquid,
// so that overlapping tubes show every crease). airSheetReach: the farthest such
// neighbour, in radii of the rope's front parcel; airSheetCells: the apex hash's cells
// searched each way, at most.
const (
	airSheetReach = 1.5
	airSheetCells = 4
	// airStripOverlap: a strip is this much wider than the distance to the stream beside
	// it, so that their ends overlap and no gap shows between them.
	airStripOverlap = 1.1
	// airStripBend: a strip's normals lean across it, towards its ends, by up to
	// atan(airStripBend), as a cylinder's would: a flat sheet seen edge on (the
	// waterfall's from the default view) mirrored the dark studio alone and read as a
	// black blade; leaning, each strip catches the light somewhere across it.
	airStripBend = 0.6
)

// ropePut writes rope c into the mesh (its vertices and triangles at the ropes' start
// plus its offsets): rings back to front, parallel-transported frames (or, in a sheet,
// frames turned to the stream beside it), an end cap on each side; normals the tube's
// (the radius changes too slowly along the rope to tilt them by more than a degree or
// two).
func (a *AirSurface) ropePut(c *airChain) {
	st := &a.st
	g := st.g
	nodes, ts := st.node[c.n0:c.n0+c.n], st.nodeT[c.n0:c.n0+c.n]
	segs := st.segs[c.s0 : c.s0+c.n+1]
	m := a.m
	base := st.v0 + uint32(c.v0)
	pos := m.Positions[3*base : 3*(base+uint32(c.nv))]
	nor := m.Normals[3*base : 3*(base+uint32(c.nv))]
	op := m.Opacity[base : base+uint32(c.nv)]
	for j := range op {
		op[j] = 1
	}
	side, width := a.ropeSide(c)
	drop := func(i int) (p, v [3]float64, vol, r float64) {
		d := &a.src[nodes[i]]
		r = float64(d.Radius)
		return [3]float64{float64(d.X), float64(d.Y), float64(d.Z)}, [3]float64{float64(d.VX), float64(d.VY), float64(d.VZ)},
			4 * math.Pi / 3 * r * r * r, r
	}
	// The flow rate of the piece behind parcel i: its volume over its link's interval
	// (the last's over the link ahead of it); at a parcel, the mean of the pieces on
	// either side.
	qBehind := func(i int) float64 {
		_, _, vol, _ := drop(i)
		t := float64(ts[i])
		if i == int(c.n)-1 {
			t = float64(ts[i-1])
		}
		return vol / t
	}
	qAt := func(i int) float64 {
		if i == 0 {
			return qBehind(0)
		}
		return (qBehind(i-1) + qBehind(i)) / 2
	}
	var (
		ring       int // tube rings written
		n, b       [3]float64
		last       airRing
		vertsStart = airCapRings*airRopeSides + 1 // the tube's first vertex: after the back pole and cap
	)
	emit := func(p, v [3]float64, q, rmax float64) {
		sp := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		r := rmax // a jet's radius carrying q at speed sp, at most the parcels'
		t := [3]float64{0, 0, -1}
		if sp > 0 {
			r = min(math.Sqrt(q/(math.Pi*sp)), rmax)
			t = [3]float64{v[0] / sp, v[1] / sp, v[2] / sp}
		}
		flat := false
		if width > 0 { // in a sheet: n across the flow, towards the stream beside it
			d := side[0]*t[0] + side[1]*t[1] + side[2]*t[2]
			u := [3]float64{side[0] - d*t[0], side[1] - d*t[1], side[2] - d*t[2]}
			if l := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2]); l > 0.3 {
				n, flat = [3]float64{u[0] / l, u[1] / l, u[2] / l}, true
			}
		}
		if !flat {
			if ring == 0 {
				n = airPerp(t)
			} else { // parallel transport: the last normal, less its part along the new tangent
				d := n[0]*t[0] + n[1]*t[1] + n[2]*t[2]
				u := [3]float64{n[0] - d*t[0], n[1] - d*t[1], n[2] - d*t[2]}
				if l := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2]); l > 1e-6 {
					n = [3]float64{u[0] / l, u[1] / l, u[2] / l}
				} else {
					n = airPerp(t)
				}
			}
		}
		b = [3]float64{t[1]*n[2] - t[2]*n[1], t[2]*n[0] - t[0]*n[2], t[0]*n[1] - t[1]*n[0]}
		rg := airRing{c: p, t: t, ea: r, eb: r, el: r}
		if flat && width > 2*r {
			// A strip of a sheet: the stream's cross-section spread over the width.
			rg.ea, rg.eb, rg.strip = airStripOverlap*width/2, math.Pi/2*r*r/width, true
			rg.el = rg.eb
		}
		if ring == 0 {
			a.ropeCap(pos, nor, rg, n, b, -1)
		}
		last = rg
		o := 3 * (vertsStart + ring*airRopeSides)
		a.ropeRing(pos[o:], nor[o:], rg, n, b, 1, 0)
		ring++
	}
	// The tail, back to front: s of flight behind the last parcel.
	{
		i := int(c.n) - 1
		p, v, _, r := drop(i)
		qa, qb := qAt(i), qBehind(i)
		for k := range int(segs[c.n]) {
			s := c.tTail * (1 - float64(k)/float64(segs[c.n]))
			f := s / c.tTail
			emit([3]float64{p[0] - v[0]*s, p[1] - v[1]*s, p[2] - v[2]*s - 0.5*g*s*s},
				[3]float64{v[0], v[1], v[2] + g*s}, qa+(qb-qa)*f, r)
		}
	}
	// The links, back to front: from parcel i+1 (u = 0) to parcel i (u = 1), the cubic
	// Hermite curve with their velocities times the interval as tangents.
	for i := int(c.n) - 2; i >= 0; i-- {
		pa, va, _, ra := drop(i)
		pb, vb, _, rb := drop(i + 1)
		T := float64(ts[i])
		qa, qb := qAt(i), qAt(i+1)
		ns := int(segs[i+1])
		for k := range ns {
			u := float64(k) / float64(ns)
			u2, u3 := u*u, u*u*u
			h00, h10, h01, h11 := 2*u3-3*u2+1, u3-2*u2+u, -2*u3+3*u2, u3-u2
			d00, d10, d01, d11 := 6*u2-6*u, 3*u2-4*u+1, -6*u2+6*u, 3*u2-2*u
			var p, v [3]float64
			for ax := range 3 {
				p[ax] = h00*pb[ax] + h10*T*vb[ax] + h01*pa[ax] + h11*T*va[ax]
				v[ax] = (d00*pb[ax]+d01*pa[ax])/T + d10*vb[ax] + d11*va[ax]
			}
			emit(p, v, qb+(qa-qb)*u, max(ra, rb))
		}
	}
	// The front: from the front parcel on, s of flight past it.
	{
		p, v, _, r := drop(0)
		q := qAt(0)
		ns := int(segs[0])
		for k := range ns + 1 {
			s := c.tFront * float64(k) / float64(ns)
			emit([3]float64{p[0] + v[0]*s, p[1] + v[1]*s, p[2] + v[2]*s - 0.5*g*s*s},
				[3]float64{v[0], v[1], v[2] - g*s}, q, r)
		}
	}
	o := 3 * (vertsStart + ring*airRopeSides)
	a.ropeCap(pos[o:], nor[o:], last, n, b, 1)
	a.ropeIndices(c, ring)
}

// airPerp returns a unit vector perpendicular to the unit vector t.
func airPerp(t [3]float64) [3]float64 {
	e := [3]float64{1, 0, 0} // the axis t is least along
	if math.Abs(t[1]) < math.Abs(t[0]) && math.Abs(t[1]) <= math.Abs(t[2]) {
		e = [3]float64{0, 1, 0}
	} else if math.Abs(t[2]) < math.Abs(t[0]) && math.Abs(t[2]) < math.Abs(t[1]) {
		e = [3]float64{0, 0, 1}
	}
	d := e[0]*t[0] + e[1]*t[1] + e[2]*t[2]
	u := [3]float64{e[0] - d*t[0], e[1] - d*t[1], e[2] - d*t[2]}
	l := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
	return [3]float64{u[0] / l, u[1] / l, u[2] / l}
}

// airStrip is a strip's cross-section (airRing): airRopeSides points (across, through)
// and the normal's part through: a flat hexagon, its faces' normals straight through
// it, each end of its width two points in one place, one with each face's normal.
// Strips side by side overlap a little at their sharp ends and show one face: their
// seams have no normal grazing the eye (tubes, or a strip with rounded ends, showed a
// bright line at each).
var airStrip = [airRopeSides][3]float64{
	{1, 0, 1}, {1.0 / 3, 1, 1}, {-1.0 / 3, 1, 1}, {-1, 0, 1},
	{-1, 0, -1}, {-1.0 / 3, -1, -1}, {1.0 / 3, -1, -1}, {1, 0, -1},
}

// ropeRing writes a ring of ring rg's airRopeSides vertices into pos and nor, at
// latitude lat on its cap (0: the tube's ring itself): its cross-section scaled by cos
// lat, moved by rg.el sin lat along its tangent; the normals the cross-section's,
// tilted by lat towards the tangent.
func (a *AirSurface) ropeRing(pos, nor []float32, rg airRing, n, b [3]float64, cosLat, sinLat float64) {
	// Per ring: the axes of its cross-section (pa, pb) and its centre moved along the
	// cap (pc); the normal's axes (na, nb), which for a round rope give unit normals.
	var pa, pb, pc, na, nb [3]float64
	prof := &airRopeProfile
	if rg.strip {
		prof = &airStripProfile
	}
	for ax := range 3 {
		pa[ax], pb[ax] = cosLat*rg.ea*n[ax], cosLat*rg.eb*b[ax]
		pc[ax] = rg.c[ax] + sinLat*rg.el*rg.t[ax]
		na[ax], nb[ax] = n[ax], b[ax]
	}
	round := !rg.strip && rg.ea == rg.eb
	if !rg.strip && !round { // an ellipse's normal: (cos / ea, sin / eb)
		for ax := range 3 {
			na[ax], nb[ax] = n[ax]/rg.ea, b[ax]/rg.eb
		}
	}
	for j := range airRopeSides {
		q := &prof[j] // position (across, through), normal (across, through)
		var d [3]float64
		for ax := range 3 {
			pos[3*j+ax] = float32(pc[ax] + q[0]*pa[ax] + q[1]*pb[ax])
			d[ax] = q[2]*na[ax] + q[3]*nb[ax]
		}
		if !round || sinLat != 0 {
			l := cosLat / math.Sqrt(d[0]*d[0]+d[1]*d[1]+d[2]*d[2])
			for ax := range 3 {
				d[ax] = l*d[ax] + sinLat*rg.t[ax]
			}
			il := 1 / math.Sqrt(d[0]*d[0]+d[1]*d[1]+d[2]*d[2])
			d = [3]float64{d[0] * il, d[1] * il, d[2] * il}
		}
		for ax := range 3 {
			nor[3*j+ax] = float32(d[ax])
		}
	}
}

// airRopeProfile and airStripProfile are the cross-sections' points (across, through)
// and their normals' parts (across, through): a round rope's circle, a strip's flat
// hexagon (airStrip) with normals leaning by airStripBend.
var airRopeProfile, airStripProfile = func() (r, s [airRopeSides][4]float64) {
	for j, cs := range airRopeTrig {
		r[j] = [4]float64{cs[0], cs[1], cs[0], cs[1]}
		q := airStrip[j]
		s[j] = [4]float64{q[0], q[1], airStripBend * q[0], q[2]}
	}
	return r, s
}()

// ropeCap writes an end's cap: side -1 the back (its pole first, then its rings towards
// the tube, into pos from the rope's first vertex), +1 the front (its rings from the
// tube, then its pole, into pos from the end of the tube's rings).
func (a *AirSurface) ropeCap(pos, nor []float32, rg airRing, n, b [3]float64, side float64) {
	pole := func(dst, dn []float32) {
		for ax := range 3 {
			dst[ax] = float32(rg.c[ax] + side*rg.el*rg.t[ax])
			dn[ax] = float32(side * rg.t[ax])
		}
	}
	if side < 0 {
		pole(pos, nor)
		for k, cs := range &airCapTrig { // from the pole
			o := 3 * (1 + k*airRopeSides)
			a.ropeRing(pos[o:], nor[o:], rg, n, b, cs[0], -cs[1])
		}
		return
	}
	for k := range airCapRings { // towards the pole
		cs := airCapTrig[airCapRings-1-k]
		o := 3 * k * airRopeSides
		a.ropeRing(pos[o:], nor[o:], rg, n, b, cs[0], cs[1])
	}
	pole(pos[3*airCapRings*airRopeSides:], nor[3*airCapRings*airRopeSides:])
}

// ropeIndices writes rope c's triangles, counter-clockwise seen from outside: a fan
// around each pole and a strip of quads between consecutive rings (rings tube rings
// and the caps' 2 airCapRings).
func (a *AirSurface) ropeIndices(c *airChain, rings int) {
	st := &a.st
	base := st.v0 + uint32(c.v0)
	idx := a.m.Indices[st.i0+uint32(c.i0) : st.i0+uint32(c.i0+c.ni)]
	all := rings + 2*airCapRings
	ringAt := func(i int) uint32 { return base + 1 + uint32(i*airRopeSides) }
	o := 0
	r0 := ringAt(0)
	for j := range uint32(airRopeSides) {
		j1 := (j + 1) % airRopeSides
		idx[o], idx[o+1], idx[o+2] = r0+j1, r0+j, base
		o += 3
	}
	for i := range all - 1 {
		ra, rb := ringAt(i), ringAt(i+1)
		for j := range uint32(airRopeSides) {
			j1 := (j + 1) % airRopeSides
			idx[o], idx[o+1], idx[o+2] = ra+j, ra+j1, rb+j
			idx[o+3], idx[o+4], idx[o+5] = ra+j1, rb+j1, rb+j
			o += 6
		}
	}
	rl, pole := ringAt(all-1), base+uint32(c.nv)-1
	for j := range uint32(airRopeSides) {
		j1 := (j + 1) % airRopeSides
		idx[o], idx[o+1], idx[o+2] = rl+j, rl+j1, pole
		o += 3
	}
}
