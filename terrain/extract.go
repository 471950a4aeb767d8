package terrain

import (
	"fmt"
	"math"
	"runtime"
)

// Extraction tolerances, as fractions of the cell size dx.
const (
	// MarchStep is the shortest step along a ray: a feature thinner than this along the
	// vertical may be missed. Solids with a bound step max(|Dist|, MarchStep*dx) instead.
	MarchStep = 1.0 / 8
	// RootTolerance is how closely an interval end is located (by bisection).
	RootTolerance = 1e-4
	// SliverWidth: a free interval thinner than this is dropped as numerical noise (a
	// tangent touch, a seam between two solids); no liquid could fit in it anyway.
	SliverWidth = 1e-3
)

// maxAxisCells bounds the cells along one axis before Domain.Grid is called, so that an
// absurd size/dx ratio is an error rather than an integer overflow.
const maxAxisCells = 1 << 30

// grid validates d and returns its cell counts.
func grid(d Domain) (nx, ny int, err error) {
	if err := d.Validate(); err != nil {
		return 0, 0, fmt.Errorf("terrain: %w", err)
	}
	if fx, fy := d.SizeX/d.Dx, d.SizeY/d.Dx; fx > maxAxisCells || fy > maxAxisCells {
		return 0, 0, fmt.Errorf("terrain: the domain is %.3g x %.3g cells of %g m: at most %d along each axis", fx, fy, d.Dx, maxAxisCells)
	}
	nx, ny = d.Grid()
	return nx, ny, nil
}

// Extract computes the columns of solid s over domain d, with at most layers columns per
// cell.
//
// Through each cell centre a ray runs up from z = 0 to d.Height; every interval along it
// where s.Dist > 0 is a column, with Min = Base = the interval's start and Max = its end
// (d.Height when free to the top). The domain floor counts as a solid of zero thickness:
// a cell free at z = 0 starts a column with Min = Base = 0.
//
// Where every part of s can list its solid intervals along a line (planes, boxes,
// spheres, cylinders, closed meshes, heightfields where the line stays vertical in
// their frame, and unions, intersections, differences, translations, scalings and
// rotations of those: vertical.go), the intervals come from that list, exact up to
// rounding: a solid interval thinner than RootTolerance*dx is ignored, and so is a free
// one thinner than MarchStep*dx (what marching would step over). Otherwise the ray
// marches in steps of MarchStep*dx, or max(|Dist|, MarchStep*dx) when s has a
// VerticalBound or better, and bisects each sign change to RootTolerance*dx; free
// intervals thinner than SliverWidth*dx are dropped. The two agree to the root
// tolerance, but for features thinner than MarchStep*dx, which marching finds or misses
// by chance. A ColumnsSolid's free intervals are taken as they are, with no tolerance.
//
// A cell with more than layers free intervals keeps the topmost layers of them and
// counts the others in Columns.Dropped: sources pour liquid from above and the visible
// surface lies there, so the lowest cavities are the ones to lose; their space is
// treated as solid.
//
// Extract validates d and layers, and checks MemoryEstimate against the available memory
// (CheckMemory) before allocating. Cells are spread over runtime.GOMAXPROCS goroutines by
// rows; the result does not depend on their number. A NaN distance, or a panic in
// s.Dist, is returned as an error naming the cell and the point. The result passes
// Columns.Validate.
func Extract(s Solid, d Domain, layers int) (*Columns, error) {
	return extract(s, d, layers, runtime.GOMAXPROCS(0), false)
}

// extract is Extract on a number of workers; march makes it march every line (tests
// compare the two ways).
func extract(s Solid, d Domain, layers, workers int, march bool) (*Columns, error) {
	if s == nil {
		return nil, fmt.Errorf("terrain: extract: solid is nil")
	}
	nx, ny, err := grid(d)
	if err != nil {
		return nil, err
	}
	if layers < 1 {
		return nil, fmt.Errorf("terrain: layers is %d: it must be >= 1", layers)
	}
	if err := CheckMemory(nx, ny, layers); err != nil {
		return nil, err
	}
	if mulSat(mulSat(uint64(nx), uint64(ny)), uint64(layers)) > math.MaxInt32 {
		return nil, fmt.Errorf("terrain: a %d x %d grid with %d layers may hold more than %d columns, the most Columns can index", nx, ny, layers, math.MaxInt32)
	}

	bounded := BoundOf(s) >= VerticalBound
	along := !march && canAlong(s)
	workers = max(1, min(workers, ny))
	rays := make([]ray, workers)
	for w := range rays {
		rays[w] = ray{
			pr:      probe{s: s},
			bounded: bounded,
			height:  d.Height,
			step:    MarchStep * d.Dx,
			tol:     RootTolerance * d.Dx,
			sliver:  SliverWidth * d.Dx,
			along:   along,
		}
	}
	counts := make([]int32, nx*ny)
	rows := make([][]Interval, ny)
	dropped := make([]int, ny)

	err = forRows(ny, workers, func(w, y int) (err error) {
		r := &rays[w]
		x := 0
		defer func() {
			if err != nil {
				err = fmt.Errorf("terrain: extracting cell (%d, %d): %w", x, y, err)
			}
		}()
		defer r.pr.catch(&err)
		out := make([]Interval, 0, nx)
		cy := (float64(y) + 0.5) * d.Dx
		for ; x < nx; x++ {
			if err := r.cast((float64(x)+0.5)*d.Dx, cy); err != nil {
				return err
			}
			sp := r.spans
			if len(sp) > layers {
				dropped[y] += len(sp) - layers
				sp = sp[len(sp)-layers:]
			}
			for _, v := range sp {
				out = append(out, Interval{Min: float32(v.lo), Base: float32(v.lo), Max: float32(v.hi)})
			}
			counts[y*nx+x] = int32(len(sp))
		}
		rows[y] = out
		return nil
	})
	if err != nil {
		return nil, err
	}

	c := &Columns{Nx: nx, Ny: ny, Dx: d.Dx, Height: d.Height, Layers: layers, CellStart: make([]int32, nx*ny+1)}
	total := int32(0)
	for k, n := range counts {
		total += n
		c.CellStart[k+1] = total
	}
	c.Min = make([]float32, total)
	c.Base = make([]float32, total)
	c.Max = make([]float32, total)
	i := 0
	for y, row := range rows {
		for _, v := range row {
			c.Min[i], c.Base[i], c.Max[i] = v.Min, v.Base, v.Max
			i++
		}
		rows[y] = nil
		c.Dropped += dropped[y]
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("terrain: extraction built inconsistent columns (a bug): %w", err)
	}
	return c, nil
}

// span is a free interval [lo, hi] along a ray, in metres.
type span struct{ lo, hi float64 }

// ray finds the free intervals along vertical lines for one worker; spans is reused.
type ray struct {
	pr      probe
	bounded bool    // Dist is at most the vertical distance to the surface
	height  float64 // domain top
	step    float64 // shortest march step
	tol     float64 // root tolerance
	sliver  float64 // thinnest interval kept
	x, y    float64
	spans   []span
	along   bool  // the solid lists its intervals along a line (canAlong): no marching
	liner   liner // alongLine's scratch space
}

func (r *ray) at(z float64) (float64, error) { return r.pr.dist(Vec3{r.x, r.y, z}) }

// cast fills r.spans with the free intervals, bottom to top, of the vertical line
// through (x, y) between 0 and r.height: from the solid's own list of its intervals
// where it has one, else by marching.
func (r *ray) cast(x, y float64) error {
	r.x, r.y = x, y
	r.spans = r.spans[:0]
	if cs, ok := r.pr.s.(*columnsSolid); ok && r.along {
		r.columnsFree(cs) // exact, no tolerance: its columns back
		return nil
	}
	if r.along {
		err := r.castAlong()
		if err != errAmbiguous {
			return err
		}
		r.spans = r.spans[:0]
	}
	return r.march()
}

// castAlong lists the free intervals from the solid intervals alongLine gives. It keeps
// what marching is sure to find, and no less: a solid interval thinner than the root
// tolerance is ignored (a tangent or a silhouette can leave one as thin as rounding), and
// so is a free interval thinner than the march step (a scanned rock resting on a table
// leaves gaps of a few hundredths of a cell under its edge: no liquid reaches them, and
// marching would step over them).
func (r *ray) castAlong() error {
	r.pr.last = Vec3{r.x, r.y, 0} // named by an error from a panic in a heightfield's fn
	r.liner.buf = r.liner.buf[:0]
	if _, err := r.liner.alongLine(r.pr.s, line{Vec3{r.x, r.y, 0}, Vec3{0, 0, 1}}, 0, r.height); err != nil {
		return err
	}
	z := 0.0
	for _, v := range r.liner.buf {
		if v.hi-v.lo < r.tol {
			continue
		}
		if v.lo-z >= r.step {
			r.add(z, v.lo)
		}
		z = v.hi
	}
	if r.height-z >= r.step {
		r.add(z, r.height)
	}
	return nil
}

// march finds the free intervals by stepping up the line and bisecting each change of
// Dist's sign.
func (r *ray) march() error {
	z0 := 0.0
	d0, err := r.at(z0)
	if err != nil {
		return err
	}
	free, start := d0 > 0, 0.0
	for z0 < r.height {
		step := r.step
		if r.bounded {
			step = max(step, math.Abs(d0))
		}
		z1 := min(z0+step, r.height)
		d1, err := r.at(z1)
		if err != nil {
			return err
		}
		if (d1 > 0) != free {
			zc, err := r.root(z0, d0, z1, d1)
			if err != nil {
				return err
			}
			if free {
				r.add(start, zc)
			} else {
				start = zc
			}
			free = !free
		}
		z0, d0 = z1, d1
	}
	if free {
		r.add(start, r.height)
	}
	return nil
}

// add keeps a free interval unless it is a sliver (also in float32, the storage type).
func (r *ray) add(lo, hi float64) {
	if hi-lo < r.sliver || !(float32(lo) < float32(hi)) {
		return
	}
	r.spans = append(r.spans, span{lo, hi})
}

// root locates a sign change of Dist between heights a and b (a < b) whose distances da
// and db differ in sign, to r.tol. With a bound, no sign change lies within |da| of a
// nor within |db| of b, so the bracket shrinks for free before each bisection: one step
// for a surface crossed at right angles.
func (r *ray) root(a, da, b, db float64) (float64, error) {
	freeA := da > 0
	for range 64 { // bisection from a step of dx/8 needs 11; 64 stops at float resolution
		lo, hi := a, b
		if r.bounded {
			lo, hi = a+min(math.Abs(da), b-a), b-min(math.Abs(db), b-a)
			if lo >= hi {
				return 0.5 * (lo + hi), nil
			}
		}
		if hi-lo <= r.tol {
			return 0.5 * (lo + hi), nil
		}
		m := 0.5 * (lo + hi)
		dm, err := r.at(m)
		if err != nil {
			return 0, err
		}
		if (dm > 0) == freeA {
			a, da = m, dm
		} else {
			b, db = m, dm
		}
	}
	return 0.5 * (a + b), nil
}
