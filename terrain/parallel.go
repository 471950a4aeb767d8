package terrain

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// forRows calls fn(w, row) for every row in [0, n) on up to workers goroutines (w is the
// calling worker, 0 <= w < workers, so fn may use per-worker scratch space). Rows are
// handed out in increasing order. On failure it returns the error of the lowest failing
// row, whatever the number of workers: a worker stops once its next row lies above a row
// known to fail, and every lower row has already been handed out and runs to its end.
func forRows(n, workers int, fn func(w, row int) error) error {
	workers = max(1, min(workers, n))
	if workers == 1 {
		for row := 0; row < n; row++ {
			if err := fn(0, row); err != nil {
				return err
			}
		}
		return nil
	}
	var next, failRow atomic.Int64
	failRow.Store(int64(n))
	type failure struct {
		row int
		err error
	}
	fails := make([]failure, workers)
	var wg sync.WaitGroup
	for w := range workers {
		fails[w].row = n
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				row := int(next.Add(1) - 1)
				if row >= n || int64(row) > failRow.Load() {
					return
				}
				if err := fn(w, row); err != nil {
					fails[w] = failure{row, err}
					for {
						cur := failRow.Load()
						if int64(row) >= cur || failRow.CompareAndSwap(cur, int64(row)) {
							break
						}
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	first := failure{row: n}
	for _, f := range fails {
		if f.err != nil && f.row < first.row {
			first = f
		}
	}
	return first.err
}

// probe evaluates a solid for one worker, turning a NaN distance or a panic in Dist into
// an error that names the point.
type probe struct {
	s    Solid
	last Vec3  // the point of the latest call, for a panic's report
	h    hints // the meshes' last far points and their signs (hints.go)
}

// dist returns s.Dist(p), or an error when it is NaN.
func (pr *probe) dist(p Vec3) (float64, error) {
	pr.last = p
	d := distHinted(pr.s, p, &pr.h)
	if d != d {
		return 0, fmt.Errorf("the solid's distance is NaN at %v m", p)
	}
	return d, nil
}

// catch, deferred by a function that calls dist, turns a panic into *err. A panic value
// that is an error stays reachable through errors.As / errors.Is.
func (pr *probe) catch(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if e, ok := r.(error); ok {
		*err = fmt.Errorf("the solid's distance function failed at %v m: %w", pr.last, e)
	} else {
		*err = fmt.Errorf("the solid's distance function failed at %v m: %v", pr.last, r)
	}
}
