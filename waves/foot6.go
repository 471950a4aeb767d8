package waves

// The field's common case: a particle of the default radius (3 dx), whose footprint is
// 6 cells wide, in open water (every cell of it holds one column of its layer, no test
// a cell). fieldBand gathers consecutive such particles into a batch of foot6 jobs, and
// addFoots computes their kernel weights and adds their rows to the field, job after job.
// On amd64 it is SSE2 assembly (foot6_amd64.s): the x and y axes side by side in a
// register for the weights, and a row is two vector multiply-adds instead of six scalar
// ones. Elsewhere (other processors, -tags purego, or a System whose choice, core.vector,
// says so) it is addFootsGo, the reference. Both do the same IEEE operations in the same
// order, without fused multiply-adds, so they give the same bits (TestAddFoots,
// TestFieldVectorSameAsGo), as do axisWeights and fieldBand's other paths for the same
// particle: a column's sum never depends on which path, or which worker, added a
// particle. The assembly writes nothing beside the rows (TestAddFoots' guard zones).

// foot6 is one particle's job for addFoots.
type foot6 struct {
	ux, uy  float64  // kernel arguments (x - x_p) / R of the footprint's first column and of its first row in the grid: > -1
	s       float64  // dx / R
	twoCos  float64  // 2 cos(pi s)
	twoCos2 float64  // 2 cos(2 pi s)
	a       float32  // the particle's amplitude
	r0, r1  int32    // the rows to add, 0 <= r0 < r1 <= 6, counted from the footprint's first row in the grid
	offs    [6]int32 // per row q in [r0, r1): the index in dst of the column of its first cell; offs[q] + 6 <= len(dst)
	_       [4]byte
}

// addFootsGo is addFoots in Go: for each job in order, the weights as axisWeights
// computes them (kernelPoly without the test of |u| < 1, which ux, uy > -1 make hold for
// the weights that count), then per row dst[offs[q] + k] += (wy[q] a) wx[k], k < 6.
func addFootsGo(dst []float32, jobs []foot6) {
	for i := range jobs {
		p := &jobs[i]
		var wx, wy [6]float32
		kx, ky := kernelPoly(p.ux), kernelPoly(p.uy)
		wx[0], wy[0] = float32(kx), float32(ky)
		x0, y0 := float64(2*kx)-1, float64(2*ky)-1
		kx, ky = kernelPoly(p.ux+p.s), kernelPoly(p.uy+p.s)
		wx[1], wy[1] = float32(kx), float32(ky)
		x1, y1 := float64(2*kx)-1, float64(2*ky)-1
		x2, y2 := float64(p.twoCos*x1)-x0, float64(p.twoCos*y1)-y0
		x3, y3 := float64(p.twoCos*x2)-x1, float64(p.twoCos*y2)-y1
		x4, y4 := float64(p.twoCos2*x2)-x0, float64(p.twoCos2*y2)-y0
		x5, y5 := float64(p.twoCos2*x3)-x1, float64(p.twoCos2*y3)-y1
		wx[2], wy[2] = float32(0.5+float64(0.5*x2)), float32(0.5+float64(0.5*y2))
		wx[3], wy[3] = float32(0.5+float64(0.5*x3)), float32(0.5+float64(0.5*y3))
		wx[4], wy[4] = float32(0.5+float64(0.5*x4)), float32(0.5+float64(0.5*y4))
		wx[5], wy[5] = float32(0.5+float64(0.5*x5)), float32(0.5+float64(0.5*y5))
		for q := p.r0; q < p.r1; q++ {
			wj := wy[q] * p.a
			d := (*[6]float32)(dst[p.offs[q]:])
			d[0] += float32(wj * wx[0])
			d[1] += float32(wj * wx[1])
			d[2] += float32(wj * wx[2])
			d[3] += float32(wj * wx[3])
			d[4] += float32(wj * wx[4])
			d[5] += float32(wj * wx[5])
		}
	}
}
