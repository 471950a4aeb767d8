package waves

import (
	"testing"
	"time"
)

// The pool runs every job on every worker exactly once, and the caller sees the workers'
// writes when run returns, whether the workers and the caller caught the next job while
// spinning or had gone to sleep (waits longer than spinTime), and with more workers than
// threads.
func TestPool(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		runs := make([]int, n)
		last := make([]int, n)
		p := newPool(n, func(kind, w int) {
			runs[w]++
			last[w] = kind
			if kind%50 == 7 && w == n-1 {
				time.Sleep(2 * spinTime) // the caller sleeps
			}
		})
		for i := range 2000 {
			p.run(i)
			for w := range n {
				if runs[w] != i+1 || last[w] != i {
					t.Fatalf("%d workers, run %d: worker %d ran %d jobs, the last %d", n, i, w, runs[w], last[w])
				}
			}
			if i%50 == 20 {
				time.Sleep(2 * spinTime) // the workers sleep
			}
		}
		p.stop()
	}
}
