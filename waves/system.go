package waves

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/vpbench/vpbench/internal/parallel"
	"github.com/vpbench/vpbench/terrain"
)

// System is a set of wave particles on a column grid. It reads the solver's heights and
// velocities (Flow) and never changes them. A System is not safe for concurrent use.
type System struct{ c *core }

// Impact starts a ring of waves.
type Impact struct {
	X, Y, Z   float64 // where, m (Z picks the layer: the column of cell (X,Y) whose free interval holds Z, as Columns.ColumnAt)
	Amplitude float64 // crest height of the ring it starts, m (before Settings.Amplitude)
	Radius    float64 // kernel radius, m (0 = Settings.Radius); it sets the wavelength (lambda = 2 radius, k = pi / radius)
	Time      float64 // simulated time of the impact, s (applied at the wave step that holds it)
}

// Flow is the solver's state the waves read, per column.
type Flow struct {
	Height []float32 // per column liquid height, m (the solver's)
	VX, VY []float32 // per column depth-averaged velocity, m/s (may be nil: still liquid)
}

// Particle is one wave particle's state (Particles), or a particle to start (Launch).
type Particle struct {
	X, Y       float64 // position, m
	Z          float64 // the liquid height of its column at its last step, m (Launch: picks the column, as Impact.Z)
	Column     int     // the column it rides on (Launch: ignored)
	DirX, DirY float64 // unit direction of travel (Launch: normalised; zero is refused)
	Amplitude  float64 // m (Launch: as given, without Settings.Amplitude)
	Radius     float64 // kernel radius, m (Launch: 0 = the default)
	Angle      float64 // dispersion angle, rad: 0 for a piece of a plane wave
	Distance   float64 // distance travelled since its ring was born, m
}

// Stats counts what happened since New (Particles is the live count now).
type Stats struct {
	Particles int
	Steps     int64 // wave steps taken
	Impacts   int   // impacts and launches that started particles
	Dropped   int   // impacts and launches dropped because they would pass MaxParticles
	Missed    int   // impacts and launches that found no wet column (outside the domain, dry, NaN)
	Unsplit   int   // subdivisions skipped because they would pass MaxParticles
	Removed   int   // particles removed: amplitude below MinAmplitude, or their column ran dry
}

// pending is a queued impact or launch.
type pending struct {
	time   float64
	seq    int64
	impact bool
	im     Impact
	p      Particle
}

// core is the System's state; the workers' goroutines hold it, not the System, so that
// an unreachable System is collected and its cleanup stops them.
type core struct {
	cols *terrain.Columns
	st   Settings
	p    params
	// walkAll closes every block, so that every move walks its cells (the tests compare
	// the fast path with it).
	walkAll bool
	// vector: the field's common footprints by addFoots' assembly (foot6Asm), else by
	// its Go twin (the tests compare them).
	vector bool

	// per column and per cell, from the columns
	colX, colY []int32 // per column: its cell's x and y
	rowNS      []int32 // per row y: rowNS[y*(Nx+1)+x] = cells in x' < x of row y that do not hold exactly one column
	rowBase    []int32 // per row: CellStart of its first cell if every cell of it holds one column, else -1
	flat       bool    // every cell holds one column: cell (x, y)'s is y*Nx + x
	invDx      float64

	// blocks of blockSize^2 cells, for the open-water fast path (step.go)
	nbx, nby int
	// Per block b and layer k < blkK[b], at [b*blockLayers + k] (step.go, "Open blocks"):
	blkK       []uint8   // the number of columns every cell of the block holds (0: not the same for all, more than blockLayers, or the block leaves the grid)
	blkMaxBase []float32 // max Base of the k-th columns of the block's cells
	blkMinMax  []float32 // min Max of the same
	blkMaxLow  []float32 // max Max of the (k-1)-th columns (-Inf for k = 0)
	blkSelf    []uint8   // per Advance: bit k set when layer k is open within the block
	blkMask    []uint8   // per Advance: bit k set when the block is open on layer k
	blkClear   []int32   // per Advance: Chebyshev distance, in blocks, to the nearest block not open with one column a cell (0: not so open)
	blkShut    []int32   // per Advance: summed-area table of the blocks not so open (clearance)
	blkHmin    []float32 // per Advance (and Displacement), per block and layer: the lowest liquid height of the layer in an open block
	blkHmax    []float32 // the highest
	blkField   []bool    // per Displacement: fieldOpen's flags
	depth      []float32 // per column, per Advance: liquid height - Base, written for the columns of open blocks of one column a cell

	// per Displacement (field.go): each row's band (the worker that sums it)
	rowBand  []int32
	rowBandN int // the number of bands rowBand is for

	// particles, structure of arrays
	px, py     []float64
	dirx, diry []float32
	amp, rad   []float32
	ang, dist  []float32
	pz         []float32 // liquid height of its column at the last step of an Advance
	pcol       []int32
	pcx, pcy   []int32 // its cell

	queue []pending
	seq   int64
	stack []int32 // split's work list

	t0    float64 // time when the step count last restarted (a new Step)
	steps int64   // steps since t0
	stats Stats

	pool *parallel.Pool
	jobs [jobKinds]func(w int) // c.job(kind, w) bound once per kind: passing one to Do allocates nothing
	ws   []scratch

	// the job in flight
	flow     Flow
	dtJob    float64
	nJob     int
	dst      []float32
	full     bool // the cap is reached: no subdivision this step
	lastStep bool // the last step of this Advance: write pz
}

// scratch is one worker's working space.
type scratch struct {
	splits  []int32
	dead    int
	unsplit int
	// caches of the last values computed (same inputs, same outputs: they never change results)
	ck, ch, ccg, cdc float64 // dispersion(ck, ch) = (ccg, cdc)
	dk, ddt          float64 // decay factor for (dk, ddt)
	kr, kk           float64 // kk = pi / kr
	dfac             float32
	wx, wy           []float32  // the field's kernel weights along x and y (wide footprints)
	bands            [][]int32  // per band: the particles of this worker's share that reach it, in order
	bandsOwn         [4][]int32 // bands' headers, up to 4 workers: here, padded from the next worker's (bandLists rewrites one a particle; sharing a cache line made it 4 times slower)
	jobs             []foot6    // fieldBand's batch for addFoots
	_                [64]byte
}

func (sc *scratch) reset() { sc.ck, sc.dk, sc.kr = -1, -1, -1 }

// New makes a System for the columns cols (which it keeps and reads, never changes)
// with the settings st. It returns an error naming the first bad field of st.
func New(cols *terrain.Columns, st Settings) (*System, error) {
	if cols == nil {
		return nil, fmt.Errorf("waves: no columns")
	}
	if err := st.Validate(); err != nil {
		return nil, err
	}
	if !(cols.Dx > 0) || cols.Nx < 1 || cols.Ny < 1 || len(cols.CellStart) != cols.Nx*cols.Ny+1 {
		return nil, fmt.Errorf("waves: columns have grid %dx%d, dx %g m, %d cell starts: not a column grid", cols.Nx, cols.Ny, cols.Dx, len(cols.CellStart))
	}
	c := &core{st: st, vector: foot6Asm}
	c.p = resolve(st, cols.Dx)
	c.setColumns(cols)
	c.startPool()
	s := &System{c: c}
	runtime.AddCleanup(s, func(c *core) { c.stopPool() }, c)
	return s, nil
}

func (c *core) startPool() {
	c.ws = make([]scratch, c.p.workers)
	for i := range c.ws {
		c.ws[i].reset()
		if sc := &c.ws[i]; c.p.workers <= len(sc.bandsOwn) {
			sc.bands = sc.bandsOwn[:c.p.workers]
		} else {
			sc.bands = make([][]int32, c.p.workers)
		}
		c.ws[i].jobs = make([]foot6, 0, 32)
	}
	c.pool = parallel.NewSpin(c.p.workers, spinTime)
	for kind := range c.jobs {
		c.jobs[kind] = func(w int) { c.job(kind, w) }
	}
}

// spinTime is how long a waiting worker spins before it parks (internal/parallel's
// NewSpin). The phases of a call and the steps of an Advance follow each other within
// microseconds; waking a parked thread for each of them cost 30-90 us on the 2-vCPU VM
// of docs/waves.md ("Cost"), several times a frame.
const spinTime = 50 * time.Microsecond

// run calls the job kind on every worker, worker w taking its chunk w (parallel.Chunk)
// of the job's items, and returns when all have returned.
func (c *core) run(kind int) { c.pool.Do(c.pool.Workers(), c.jobs[kind]) }

func (c *core) stopPool() {
	if c.pool != nil {
		c.pool.Stop()
		c.pool = nil
	}
}

// Close stops the System's worker goroutines now instead of when the System is
// collected. The System must not be used after.
func (s *System) Close() { s.c.stopPool() }

// Settings returns the settings in use.
func (s *System) Settings() Settings { return s.c.st }

// SetSettings changes the settings mid-run. Gravity, surface tension, density, viscosity
// and MinAmplitude act from the next step on every particle; Amplitude and Radius on
// impacts applied from now on; a lower MaxParticles removes no particle. A new Step
// restarts the step count from the current Time.
func (s *System) SetSettings(st Settings) error {
	if err := st.Validate(); err != nil {
		return err
	}
	c := s.c
	old := c.p
	c.st = st
	c.p = resolve(st, c.cols.Dx)
	if c.p.dt != old.dt {
		c.t0, c.steps = c.time(), 0
	}
	if c.p.workers != old.workers {
		c.stopPool()
		c.startPool()
	}
	for i := range c.ws {
		c.ws[i].reset()
	}
	return nil
}

// StepSize returns the wave step, s.
func (s *System) StepSize() float64 { return s.c.p.dt }

// Count returns the number of live particles.
func (s *System) Count() int { return len(s.c.px) }

// Time returns the simulated time of the particles: the end of the last wave step, s.
func (s *System) Time() float64 { return s.c.time() }

func (c *core) time() float64 { return c.t0 + float64(c.steps)*c.p.dt }

// Stats returns the counters.
func (s *System) Stats() Stats {
	st := s.c.stats
	st.Particles = len(s.c.px)
	return st
}

// Clear removes every particle and every queued impact and launch.
func (s *System) Clear() {
	s.c.truncate(0)
	s.c.queue = s.c.queue[:0]
}

// Impact queues an impact; it takes effect at the wave step that holds im.Time, on the
// next Advance that reaches it (at once, on the next step, if im.Time is already past).
func (s *System) Impact(im Impact) {
	c := s.c
	c.seq++
	c.queue = append(c.queue, pending{time: im.Time, seq: c.seq, impact: true, im: im})
}

// Launch queues one particle, to start at simulated time t like an impact: the column of
// cell (p.X, p.Y) whose free interval holds p.Z; direction, amplitude, radius, dispersion
// angle and distance as given. A line of launches with Angle 0 makes a plane wave.
func (s *System) Launch(p Particle, t float64) {
	c := s.c
	c.seq++
	c.queue = append(c.queue, pending{time: t, seq: c.seq, p: p})
}

// Particles appends the live particles' states to dst[:0] and returns it.
func (s *System) Particles(dst []Particle) []Particle {
	c := s.c
	dst = dst[:0]
	for i := range c.px {
		dst = append(dst, Particle{
			X: c.px[i], Y: c.py[i], Z: float64(c.pz[i]), Column: int(c.pcol[i]),
			DirX: float64(c.dirx[i]), DirY: float64(c.diry[i]), Amplitude: float64(c.amp[i]),
			Radius: float64(c.rad[i]), Angle: float64(c.ang[i]), Distance: float64(c.dist[i]),
		})
	}
	return dst
}

// SetColumns moves the System onto new columns (the terrain changed; the grid may
// differ). Each particle goes to the column of the cell under it whose free interval
// [Base, Max] holds the liquid height it last saw; particles outside the new grid, or
// with no such column, are removed (and counted in Stats.Removed). Particles whose new
// column holds no liquid are removed at the next step.
func (s *System) SetColumns(cols *terrain.Columns) {
	c := s.c
	c.setColumns(cols)
	c.p = resolve(c.st, cols.Dx)
	n := 0
	for i := range c.px {
		x, y, ok := cols.CellAt(c.px[i], c.py[i])
		col := int32(-1)
		if ok {
			lo, hi := cols.Cell(x, y)
			z := c.pz[i]
			for j := lo; j < hi; j++ {
				if cols.Base[j] <= z && z <= cols.Max[j] {
					col = int32(j)
					break
				}
			}
		}
		if col < 0 {
			c.stats.Removed++
			continue
		}
		c.pcol[i] = col
		c.pcx[i], c.pcy[i] = int32(x), int32(y)
		c.move(n, i)
		n++
	}
	c.truncate(n)
}

// setColumns builds the per-column and per-cell tables of cols.
func (c *core) setColumns(cols *terrain.Columns) {
	c.cols = cols
	c.invDx = 1 / cols.Dx
	nx, ny := cols.Nx, cols.Ny
	n := cols.NumColumns()
	c.colX = resize(c.colX, n)
	c.colY = resize(c.colY, n)
	c.depth = resize(c.depth, n)
	c.rowNS = resize(c.rowNS, ny*(nx+1))
	c.rowBase = resize(c.rowBase, ny)
	for y := range ny {
		ns := int32(0)
		for x := range nx {
			lo, hi := cols.Cell(x, y)
			for j := lo; j < hi; j++ {
				c.colX[j], c.colY[j] = int32(x), int32(y)
			}
			c.rowNS[y*(nx+1)+x] = ns
			if hi-lo != 1 {
				ns++
			}
		}
		c.rowNS[y*(nx+1)+nx] = ns
		c.rowBase[y] = -1
		if ns == 0 {
			c.rowBase[y] = cols.CellStart[y*nx]
		}
	}
	c.flat = cols.CellStart[0] == 0
	for y := range ny {
		c.flat = c.flat && c.rowNS[y*(nx+1)+nx] == 0
	}
	c.nbx, c.nby = (nx+blockSize-1)/blockSize, (ny+blockSize-1)/blockSize
	nb := c.nbx * c.nby
	c.blkK = resize(c.blkK, nb)
	c.blkMaxBase = resize(c.blkMaxBase, nb*blockLayers)
	c.blkMinMax = resize(c.blkMinMax, nb*blockLayers)
	c.blkMaxLow = resize(c.blkMaxLow, nb*blockLayers)
	c.blkSelf = resize(c.blkSelf, nb)
	c.blkMask = resize(c.blkMask, nb)
	c.blkClear = resize(c.blkClear, nb)
	c.blkShut = resize(c.blkShut, (c.nbx+1)*(c.nby+1))
	clear(c.blkShut) // its first row and column stay 0
	c.blkHmin = resize(c.blkHmin, nb*blockLayers)
	c.blkHmax = resize(c.blkHmax, nb*blockLayers)
	c.blkField = resize(c.blkField, nb)
	for by := range c.nby {
		for bx := range c.nbx {
			b := by*c.nbx + bx
			x0, y0 := bx*blockSize, by*blockSize
			K := 0
			if x0+blockSize <= nx && y0+blockSize <= ny {
				lo, hi := cols.Cell(x0, y0)
				K = hi - lo
				for y := y0; y < y0+blockSize; y++ {
					for x := x0; x < x0+blockSize; x++ {
						if lo, hi := cols.Cell(x, y); hi-lo != K {
							K = 0
						}
					}
				}
				if K > blockLayers {
					K = 0
				}
			}
			c.blkK[b] = uint8(K)
			mb, mm, ml := c.blkMaxBase[b*blockLayers:][:blockLayers], c.blkMinMax[b*blockLayers:][:blockLayers], c.blkMaxLow[b*blockLayers:][:blockLayers]
			for k := range blockLayers {
				mb[k], mm[k], ml[k] = float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.Inf(-1))
			}
			for y := y0; K > 0 && y < y0+blockSize; y++ {
				for x := x0; x < x0+blockSize; x++ {
					lo, _ := cols.Cell(x, y)
					for k := range K {
						mb[k] = max(mb[k], cols.Base[lo+k])
						mm[k] = min(mm[k], cols.Max[lo+k])
						if k > 0 {
							ml[k] = max(ml[k], cols.Max[lo+k-1])
						}
					}
				}
			}
		}
	}
}

// resize returns s with length n, reusing its storage when it can.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// grow appends one zero particle and returns its index.
func (c *core) grow() int {
	c.px = append(c.px, 0)
	c.py = append(c.py, 0)
	c.dirx = append(c.dirx, 0)
	c.diry = append(c.diry, 0)
	c.amp = append(c.amp, 0)
	c.rad = append(c.rad, 0)
	c.ang = append(c.ang, 0)
	c.dist = append(c.dist, 0)
	c.pz = append(c.pz, 0)
	c.pcol = append(c.pcol, 0)
	c.pcx = append(c.pcx, 0)
	c.pcy = append(c.pcy, 0)
	return len(c.px) - 1
}

// move copies particle i to index j.
func (c *core) move(j, i int) {
	if i == j {
		return
	}
	c.px[j], c.py[j] = c.px[i], c.py[i]
	c.dirx[j], c.diry[j] = c.dirx[i], c.diry[i]
	c.amp[j], c.rad[j] = c.amp[i], c.rad[i]
	c.ang[j], c.dist[j] = c.ang[i], c.dist[i]
	c.pz[j], c.pcol[j] = c.pz[i], c.pcol[i]
	c.pcx[j], c.pcy[j] = c.pcx[i], c.pcy[i]
}

// truncate keeps the first n particles.
func (c *core) truncate(n int) {
	c.px, c.py = c.px[:n], c.py[:n]
	c.dirx, c.diry = c.dirx[:n], c.diry[:n]
	c.amp, c.rad = c.amp[:n], c.rad[:n]
	c.ang, c.dist = c.ang[:n], c.dist[:n]
	c.pz, c.pcol = c.pz[:n], c.pcol[:n]
	c.pcx, c.pcy = c.pcx[:n], c.pcy[:n]
}

// compact removes the particles marked dead (amplitude 0), keeping the others' order.
func (c *core) compact() {
	n := 0
	for i := range c.amp {
		if c.amp[i] != 0 {
			c.move(n, i)
			n++
		}
	}
	c.truncate(n)
}

// sortQueue orders the queue by time, then by the order of the calls.
func (c *core) sortQueue() {
	slices.SortFunc(c.queue, func(a, b pending) int {
		if r := cmp.Compare(a.time, b.time); r != 0 {
			return r
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// checkFlow panics when f does not fit the columns: a programming error.
func (c *core) checkFlow(f Flow) {
	n := c.cols.NumColumns()
	if len(f.Height) != n {
		panic(fmt.Sprintf("waves: Flow.Height has %d entries for %d columns", len(f.Height), n))
	}
	if (f.VX == nil) != (f.VY == nil) {
		panic("waves: Flow.VX and Flow.VY must both be given or both be nil")
	}
	if f.VX != nil && (len(f.VX) != n || len(f.VY) != n) {
		panic(fmt.Sprintf("waves: Flow.VX and VY have %d and %d entries for %d columns", len(f.VX), len(f.VY), n))
	}
}
