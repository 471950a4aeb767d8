package liquid3d

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/vpbench/vpbench/internal/parallel"
	"github.com/vpbench/vpbench/terrain"
)

// Particle is one particle of liquid as the region gives it out or takes it in: its
// position and velocity in the world's frame (m, m/s) and its volume (m^3).
type Particle struct {
	Pos, Vel terrain.Vec3
	Volume   float64
}

// StepStats is what one Step did.
type StepStats struct {
	Substeps int // CFL-limited substeps taken
	// Iterations is the conjugate gradient's iterations over the step's solves;
	// MaxIterations the most in one solve; Capped the solves that stopped at
	// Settings.MaxIterations before reaching the tolerance.
	Iterations, MaxIterations, Capped int
	LiquidCells                       int // cells in the last substep's pressure solve
	// Packed is the most cells a substep found packed (over Settings.Packing), and
	// SpreadIterations the density correction's conjugate gradient's iterations over
	// the step (spread.go).
	Packed, SpreadIterations int
	Left                     int // particles that left through open and columns sides
	Seeded                   int // particles seeded by inflow through columns sides
	// The wall time of the step's phases: the sort (with the particles that leave and
	// those the columns sides' inflow seeds), the particles to the grid (with gravity
	// and viscosity), the pressure projection (its matrix, MIC(0)'s factor and the
	// conjugate gradient; Precondition: the triangular solves alone, sequential), the
	// extrapolation, and the grid to the particles (with their move).
	Sort, P2G, Pressure, Precondition, Extrapolate, G2P time.Duration
	Spread                                              time.Duration // the density correction's solve
}

// Sim is a 3D region of liquid: a MAC grid with APIC particles. Its methods must be
// called from one goroutine at a time.
type Sim struct {
	set         Settings
	nx, ny, nz  int
	ncell       int
	h           float64
	hf, invh    float32
	pool        *parallel.Pool
	k           int       // workers
	kc          int       // workers the current job is split over
	phase       int       // the job runJob does
	job         func(int) // s.runJob, bound once
	solidJob    func(int)
	dt          float32 // the substep's
	dtSub       float64 // the substep's, as Step cut it
	time        float64
	sortPending bool
	spreading   bool    // the substep's density correction is in tu, tv, tw (spread.go)
	deep        []uint8 // per liquid cell: inside the liquid, as found (spread.go)
	lastStats   StepStats
	cur         StepStats // the step's, while it runs
	maxSpeed    float32   // the fastest particle at the last sort, m/s

	// Grid. The faces: u (x) (NX+1) x NY x NZ, v (y) NX x (NY+1) x NZ, w (z) NX x NY x
	// (NZ+1), x fastest; cells NX x NY x NZ; corners (NX+1) x (NY+1) x (NZ+1).
	node       []float32 // the solid's distance at the corners, m
	au, av, aw []float32 // the faces' open shares (0 closed: a wall, or in the solid)
	u, v, w    []float32 // the faces' velocities, m/s
	mu, mv, mw []float32 // the particles' weights on the faces (P2G)
	tu, tv, tw []float32 // scratch: the velocities before viscosity; the density correction (spread.go)
	fu, fv, fw []uint8   // the faces' state (faceValid or 0)
	gu, gv, gw []uint8   // the next extrapolation layer's states
	layer      int       // the extrapolation layer being made
	rho        []float32 // the particles' volume about each cell's centre, per cell volume
	invOpen    []float32 // 1 / the share of a centre's kernel where liquid can be (kernelShares)
	rhoOut     []float32 // the columns' liquid within a centre's kernel (columns.go); nil without columns sides

	// Particles, structure of arrays: positions in cells from the origin, velocities
	// m/s, APIC's affine matrix (row c: the gradient, per cell, of velocity component
	// c), volumes m^3. b* are the sort's second buffers.
	np          int
	px, py, pz  []float32
	vx, vy, vz  []float32
	cm          [9][]float32
	vol         []float64
	bpx         [3][]float32
	bvx         [3][]float32
	bcm         [9][]float32
	bvol        []float64
	key         []int32 // the particle's cell in sort order; -1 left the box
	order       []int32 // the sort: the particle taken to each place
	cellStart   []int32 // particles of key c: [cellStart[c], cellStart[c+1])
	next        []int32
	sx, sy, sz  int     // the sort key's strides: the slab axis slowest
	slabAxis    int     // 0 x, 1 y, 2 z
	slabs       []int32 // slab s: cells [slabs[s], slabs[s+1]) along the slab axis
	workerMax   []float32
	workerCount []int32

	// Pressure (pressure.go).
	cellToM    []int32 // cell -> index in the solve, -1 for no liquid
	lcell      []int32 // index -> cell
	nbr        []int32 // 6 per index: -x +x -y +y -z +z neighbours' indices, -1 none
	diag       []float64
	offx       []float64 // the coupling with the +x neighbour (negative), 0 none
	offy, offz []float64
	precon     []float64
	pres       []float64
	res        []float64
	zv         []float64
	sv         []float64
	qv         []float64
	partial    []float64
	alpha      float64
	beta       float64

	// Accounting (float64, in particle order).
	added, out float64
	in         float64 // seeded by inflow through columns sides
	outflow    []Particle

	// The columns beyond the columns sides (columns.go), indexed by Side; nil for
	// other sides.
	cols [4]*sideColumns
	// fullExtrap makes extrapLayer test every face, also in rows of air it would leave
	// to a clear (tests compare the two).
	fullExtrap bool
}

// Face states.
const faceValid uint8 = 1 // holds a liquid velocity (a solve's, or extrapolated)

// New makes an empty region. Close it to stop its workers.
func New(set Settings) (*Sim, error) {
	if err := set.Validate(); err != nil {
		return nil, err
	}
	s := &Sim{set: set, nx: set.NX, ny: set.NY, nz: set.NZ, h: set.H}
	s.ncell = s.nx * s.ny * s.nz
	s.hf, s.invh = float32(set.H), float32(1/set.H)
	s.pool = parallel.New(set.Workers)
	s.k = s.pool.Workers()
	s.kc = s.k
	s.job = s.runJob
	nu := (s.nx + 1) * s.ny * s.nz
	nv := s.nx * (s.ny + 1) * s.nz
	nw := s.nx * s.ny * (s.nz + 1)
	s.node = make([]float32, (s.nx+1)*(s.ny+1)*(s.nz+1))
	s.au, s.u, s.mu, s.tu, s.fu, s.gu = make([]float32, nu), make([]float32, nu), make([]float32, nu), make([]float32, nu), make([]uint8, nu), make([]uint8, nu)
	s.av, s.v, s.mv, s.tv, s.fv, s.gv = make([]float32, nv), make([]float32, nv), make([]float32, nv), make([]float32, nv), make([]uint8, nv), make([]uint8, nv)
	s.aw, s.w, s.mw, s.tw, s.fw, s.gw = make([]float32, nw), make([]float32, nw), make([]float32, nw), make([]float32, nw), make([]uint8, nw), make([]uint8, nw)
	s.rho = make([]float32, s.ncell)
	s.invOpen = make([]float32, s.ncell)
	s.cellStart = make([]int32, s.ncell+1)
	s.next = make([]int32, s.ncell)
	s.cellToM = make([]int32, s.ncell)
	s.workerMax = make([]float32, s.k)
	s.workerCount = make([]int32, s.k)

	// The slab axis (the P2G's colouring): a horizontal one, so that the slabs split the
	// work wherever the liquid lies (it lies low: slabs along z would give one worker the
	// liquid and another the air); y where the box is 8 cells wide or more along it (or
	// wider than along x), x otherwise; z only for a box narrower than 8 cells both ways
	// and taller than wide. y before x: the faces' rows run along x, so slabs along x
	// put the workers into the same rows, and the cache lines they share moved between
	// the cores at each particle (transfer.go runs such a P2G on one worker where the rows
	// are short; docs/benchmarks.md, "Two workers in the P2G of a narrow region"). The
	// axis does not depend on the workers: nor do the bits.
	n := [3]int{s.nx, s.ny, s.nz}
	s.slabAxis = 0
	if n[1] >= 8 || n[1] > n[0] {
		s.slabAxis = 1
	}
	if n[s.slabAxis] < 8 && n[2] > n[s.slabAxis] {
		s.slabAxis = 2
	}
	switch s.slabAxis {
	case 0: // x slowest, then z, then y
		s.sy, s.sz, s.sx = 1, s.ny, s.ny*s.nz
	case 1: // y slowest, then z, then x
		s.sx, s.sz, s.sy = 1, s.nx, s.nx*s.nz
	default: // z slowest, then y, then x: the grid's own order
		s.sx, s.sy, s.sz = 1, s.nx, s.nx*s.ny
	}
	na := n[s.slabAxis]
	for c := 0; c+2 <= na; c += 2 {
		s.slabs = append(s.slabs, int32(c))
	}
	s.slabs = append(s.slabs, int32(na)) // an odd last cell joins the last slab
	if len(s.slabs) == 1 {
		s.slabs = []int32{0, int32(na)}
	}
	s.sampleSolid()
	s.newColumns()
	return s, nil
}

// Close stops the region's workers; the region must not be used after.
func (s *Sim) Close() { s.pool.Stop() }

// Settings returns the region's settings.
func (s *Sim) Settings() Settings { return s.set }

// Time is the simulated time, s.
func (s *Sim) Time() float64 { return s.time }

// Count is the number of particles in the region.
func (s *Sim) Count() int { return s.np }

// Volume is the liquid in the region: the sum of its particles' volumes, m^3, in
// particle order.
func (s *Sim) Volume() float64 {
	sum := 0.0
	for _, v := range s.vol[:s.np] {
		sum += v
	}
	return sum
}

// Accounting is the volume put into the region (every particle added through Fill and
// AddParticles, float64 in the order added) and the volume that left it through open
// and columns sides: Volume() equals added + Inflow() - out to float64 rounding.
func (s *Sim) Accounting() (added, out float64) { return s.added, s.out }

// Inflow is the volume seeded by the inflow through columns sides (float64, in the
// order seeded), m^3.
func (s *Sim) Inflow() float64 { return s.in }

// TakeOutflow appends to dst the particles that left the region through its open and
// columns sides since the last call, in the order they left, and forgets them.
func (s *Sim) TakeOutflow(dst []Particle) []Particle {
	dst = append(dst, s.outflow...)
	s.outflow = s.outflow[:0]
	return dst
}

// LastStats is what the last Step did.
func (s *Sim) LastStats() StepStats { return s.lastStats }

// Particles appends the region's particles to dst, in the region's order.
func (s *Sim) Particles(dst []Particle) []Particle {
	for p := 0; p < s.np; p++ {
		dst = append(dst, Particle{Pos: s.world(p), Vel: terrain.Vec3{X: float64(s.vx[p]), Y: float64(s.vy[p]), Z: float64(s.vz[p])}, Volume: s.vol[p]})
	}
	return dst
}

func (s *Sim) world(p int) terrain.Vec3 {
	o := s.set.Origin
	return terrain.Vec3{X: o.X + float64(s.px[p])*s.h, Y: o.Y + float64(s.py[p])*s.h, Z: o.Z + float64(s.pz[p])*s.h}
}

// AddParticles puts particles into the region (with no affine velocity) and books their
// volume as added. A particle outside the box, inside the solid (as the corners sample
// it), or with a volume that is not a finite number > 0 is an error, and then none is
// added.
func (s *Sim) AddParticles(ps []Particle) error {
	for i, p := range ps {
		if err := s.check(p); err != nil {
			return fmt.Errorf("liquid3d: particle %d: %w", i, err)
		}
	}
	for _, p := range ps {
		g := p.Pos.Sub(s.set.Origin).Scale(1 / s.h)
		s.push(float32(g.X), float32(g.Y), float32(g.Z), p.Vel, p.Volume)
	}
	return nil
}

// InSolid tells whether a particle at pos would be inside the region's solid (as
// AddParticles samples it); a position outside the box is not.
func (s *Sim) InSolid(pos terrain.Vec3) bool {
	g := pos.Sub(s.set.Origin).Scale(1 / s.h)
	if g.X < 0 || g.Y < 0 || g.Z < 0 || g.X >= float64(s.nx) || g.Y >= float64(s.ny) || g.Z >= float64(s.nz) {
		return false
	}
	d, _, _, _ := s.solidAt(float32(g.X), float32(g.Y), float32(g.Z))
	return d <= 0
}

func (s *Sim) check(p Particle) error {
	if !(p.Volume > 0) || math.IsInf(p.Volume, 0) {
		return fmt.Errorf("volume %g: it must be a finite number > 0", p.Volume)
	}
	if !p.Pos.IsFinite() || !p.Vel.IsFinite() {
		return fmt.Errorf("position %v, velocity %v: they must be finite", p.Pos, p.Vel)
	}
	g := p.Pos.Sub(s.set.Origin).Scale(1 / s.h)
	if g.X < 0 || g.Y < 0 || g.Z < 0 || g.X >= float64(s.nx) || g.Y >= float64(s.ny) || g.Z >= float64(s.nz) {
		return fmt.Errorf("position %v is outside the box", p.Pos)
	}
	if d, _, _, _ := s.solidAt(float32(g.X), float32(g.Y), float32(g.Z)); d <= 0 {
		return fmt.Errorf("position %v is inside the solid", p.Pos)
	}
	return nil
}

func (s *Sim) push(x, y, z float32, vel terrain.Vec3, vol float64) {
	s.place(x, y, z, float32(vel.X), float32(vel.Y), float32(vel.Z), vol)
	s.added += vol
}

// place appends a particle (no affine velocity) without booking its volume.
func (s *Sim) place(x, y, z, vx, vy, vz float32, vol float64) {
	s.px, s.py, s.pz = append(s.px, x), append(s.py, y), append(s.pz, z)
	s.vx, s.vy, s.vz = append(s.vx, vx), append(s.vy, vy), append(s.vz, vz)
	for c := range s.cm {
		s.cm[c] = append(s.cm[c], 0)
	}
	s.vol = append(s.vol, vol)
	s.np++
	s.sortPending = true
}

// Fill seeds liquid where the region is inside the given shape (a terrain.Solid: Dist <=
// 0 is the liquid) and outside the region's solid: 2 x 2 x 2 particles a cell, at the
// centres of its eight octants, each of an eighth of the cell's volume, all moving at
// vel. It returns the particles added and their volume.
func (s *Sim) Fill(shape terrain.Solid, vel terrain.Vec3) (int, float64) {
	if shape == nil {
		return 0, 0
	}
	vol := s.h * s.h * s.h / 8
	n0, v0 := s.np, s.added
	for k := 0; k < s.nz; k++ {
		for j := 0; j < s.ny; j++ {
			for i := 0; i < s.nx; i++ {
				for o := 0; o < 8; o++ {
					gx := float64(i) + 0.25 + 0.5*float64(o&1)
					gy := float64(j) + 0.25 + 0.5*float64(o>>1&1)
					gz := float64(k) + 0.25 + 0.5*float64(o>>2)
					wp := s.set.Origin.Add(terrain.Vec3{X: gx * s.h, Y: gy * s.h, Z: gz * s.h})
					if shape.Dist(wp) > 0 {
						continue
					}
					if s.set.Solid != nil && s.set.Solid.Dist(wp) <= 0 {
						continue
					}
					if d, _, _, _ := s.solidAt(float32(gx), float32(gy), float32(gz)); d <= 0 {
						continue
					}
					s.push(float32(gx), float32(gy), float32(gz), vel, vol)
				}
			}
		}
	}
	return s.np - n0, s.added - v0
}

// FillBox is Fill with the box [min, max].
func (s *Sim) FillBox(min, max terrain.Vec3, vel terrain.Vec3) (int, float64, error) {
	b, err := terrain.Box(min, max)
	if err != nil {
		return 0, 0, err
	}
	n, v := s.Fill(b, vel)
	return n, v, nil
}

// ErrNotFinite is returned by Step when a particle's position or velocity is no longer
// a finite number: the state is lost (it never happens in a stable run).
var ErrNotFinite = errors.New("liquid3d: a particle's position or velocity is not finite")

// Step advances the region by dt seconds in CFL-limited substeps.
func (s *Sim) Step(dt float64) error {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("liquid3d: dt is %g: it must be a finite number > 0", dt)
	}
	s.cur = StepStats{}
	st := &s.cur
	if s.sortPending {
		n, err := s.sort()
		if err != nil {
			return err
		}
		st.Left += n
	}
	left := dt
	for left > 0 {
		sub := s.substepLimit()
		if sub >= left {
			sub = left
		} else if sub > left/2 {
			sub = left / 2 // two even substeps rather than one full and a sliver
		}
		s.dt, s.dtSub = float32(sub), sub
		s.substep(st)
		t0 := time.Now()
		st.Seeded += s.seedInflow()
		n, err := s.sort()
		st.Sort += time.Since(t0)
		if err != nil {
			return err
		}
		st.Left += n
		st.Substeps++
		left -= sub
		s.time += sub
	}
	s.lastStats = *st
	return nil
}

// substepLimit is the CFL limit: the fastest particle plus the speed gravity gives over
// a few cells (sqrt(5 g H), as in Bridson's book) moves CFL cells; and the explicit
// viscosity's limit.
func (s *Sim) substepLimit() float64 {
	vmax := float64(s.maxSpeed)
	lim := s.set.CFL * s.h / (vmax + math.Sqrt(5*s.set.Gravity*s.h) + 1e-9)
	if s.set.Viscosity > 0 {
		lim = min(lim, 0.9*s.h*s.h/(6*s.set.Viscosity))
	}
	return lim
}

// substep: particles to grid, gravity and viscosity (the columns' velocities on the
// faces below their levels before and after), the pressure projection, the velocities
// extrapolated into the air, grid to particles and the particles moved.
func (s *Sim) substep(st *StepStats) {
	t0 := time.Now()
	s.p2g()
	s.imposeColumns()
	s.forces()
	s.imposeColumns()
	t1 := time.Now()
	it, capped := s.project()
	t2 := time.Now()
	st.Iterations += it
	st.MaxIterations = max(st.MaxIterations, it)
	if capped {
		st.Capped++
	}
	st.LiquidCells = len(s.lcell)
	s.spread()
	t4 := time.Now()
	st.Spread += t4.Sub(t2)
	s.extrapolate()
	t3 := time.Now()
	s.par(phG2P)
	st.P2G += t1.Sub(t0)
	st.Pressure += t2.Sub(t1)
	st.Extrapolate += t3.Sub(t4)
	st.G2P += time.Since(t3)
}

// The jobs runJob dispatches.
const (
	phKeys = iota
	phPermute
	phP2GEven
	phP2GOdd
	phNormalize
	phViscosity
	phBuild
	phMatvec
	phUpdate
	phDirection
	phApplyU
	phApplyV
	phApplyW
	phDisplaceU
	phDisplaceV
	phDisplaceW
	phExtrapU
	phExtrapV
	phExtrapW
	phG2P
)

// par runs job phase ph on the workers.
func (s *Sim) par(ph int) { s.parK(ph, s.k) }

// parK runs job phase ph on k workers (the same results for any k: a job's chunks only
// say who computes what).
func (s *Sim) parK(ph, k int) {
	s.phase, s.kc = ph, k
	s.pool.Do(k, s.job)
}

func (s *Sim) runJob(w int) {
	switch s.phase {
	case phKeys:
		s.keys(w)
	case phPermute:
		s.permute(w)
	case phP2GEven:
		s.p2gSlabs(w, 0)
	case phP2GOdd:
		s.p2gSlabs(w, 1)
	case phNormalize:
		s.normalize(w)
	case phViscosity:
		s.viscosity(w)
	case phBuild:
		s.build(w)
	case phMatvec:
		s.matvec(w)
	case phUpdate:
		s.update(w)
	case phDirection:
		s.direction(w)
	case phApplyU, phApplyV, phApplyW:
		s.apply(w, s.phase-phApplyU)
	case phDisplaceU, phDisplaceV, phDisplaceW:
		s.displace(w, s.phase-phDisplaceU)
	case phExtrapU, phExtrapV, phExtrapW:
		s.extrapLayer(w, s.phase-phExtrapU)
	case phG2P:
		s.g2p(w)
	}
}

// Index helpers.
func (s *Sim) cellIndex(i, j, k int) int { return i + s.nx*(j+s.ny*k) }
func (s *Sim) uIndex(i, j, k int) int    { return i + (s.nx+1)*(j+s.ny*k) }
func (s *Sim) vIndex(i, j, k int) int    { return i + s.nx*(j+(s.ny+1)*k) }
func (s *Sim) wIndex(i, j, k int) int    { return i + s.nx*(j+s.ny*k) }
func (s *Sim) nodeIndex(i, j, k int) int { return i + (s.nx+1)*(j+(s.ny+1)*k) }
