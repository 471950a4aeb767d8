package liquid3d

import (
	"fmt"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// slope is the liquid below a tilted plane: its level runs from 0.7 of the box's height
// at x = 0 to 0.3 at the far end, half the box.
type slope struct{ lx, lz float64 }

func (s slope) Dist(p terrain.Vec3) float64 {
	return p.Z - s.lz*(0.7-0.4*p.X/s.lx)
}

// sloshing is an n^3 box of 1 mm cells, half full of water let go from a tilted
// surface, stepped 0.1 s into its sloshing.
func sloshing(b testing.TB, n, workers int) *Sim {
	const h = 1e-3
	set := DefaultSettings(n, n, n, h)
	set.Workers = workers
	s := newSim(b, set)
	s.Fill(slope{float64(n) * h, float64(n) * h}, v3(0, 0, 0))
	for s.Time() < 0.1-1e-9 {
		step(b, s, 1.0/120)
	}
	return s
}

// BenchmarkStep: one Step of 1/120 s of a sloshing box half full, 16^3, 32^3 and 48^3
// cells: ns a cell and substep in all and in each phase (the pressure solve's and, of
// it, the preconditioner's triangular solves also a cell and CG iteration), substeps
// and CG iterations a substep.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{16, 32, 48} {
		b.Run(fmt.Sprintf("%d", n), func(b *testing.B) {
			s := sloshing(b, n, 0)
			b.ReportAllocs()
			b.ResetTimer()
			var sum StepStats
			for range b.N {
				st := step(b, s, 1.0/120)
				sum.Substeps += st.Substeps
				sum.Iterations += st.Iterations
				sum.Sort += st.Sort
				sum.P2G += st.P2G
				sum.Pressure += st.Pressure
				sum.Precondition += st.Precondition
				sum.Extrapolate += st.Extrapolate
				sum.G2P += st.G2P
			}
			b.StopTimer()
			cs := float64(n*n*n) * float64(sum.Substeps) // cell-substeps
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/cs, "ns/cell-substep")
			b.ReportMetric(float64(sum.Sort.Nanoseconds())/cs, "sort-ns")
			b.ReportMetric(float64(sum.P2G.Nanoseconds())/cs, "p2g-ns")
			b.ReportMetric(float64(sum.Pressure.Nanoseconds())/cs, "pressure-ns")
			b.ReportMetric(float64(sum.Pressure.Nanoseconds())/cs/float64(sum.Iterations)*float64(sum.Substeps), "pressure-ns/cell-iter")
			b.ReportMetric(float64(sum.Precondition.Nanoseconds())/cs, "mic-ns")
			b.ReportMetric(float64(sum.Extrapolate.Nanoseconds())/cs, "extrap-ns")
			b.ReportMetric(float64(sum.G2P.Nanoseconds())/cs, "g2p-ns")
			b.ReportMetric(float64(sum.Substeps)/float64(b.N), "substeps/op")
			b.ReportMetric(float64(sum.Iterations)/float64(sum.Substeps), "CG-iters/substep")
			b.ReportMetric(float64(s.Count()), "particles")
		})
	}
}
