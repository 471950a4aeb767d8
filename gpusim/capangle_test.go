package gpusim

import (
	"math"
	"testing"
)

// TestContactAngleDrop: with the capillary pressure exact (a step needing no smoothing)
// the contact angle acts at the line (capangle.go). A 5 microlitre drop of water set down
// as a tall cylinder on a flat floor, 30 degrees advancing and 20 receding (vp.sim's
// band), with either method, settles as one piece that stands higher than the puddle's
// wetting head would let it (the heads made a pancake under 0.25 mm), keeps its volume,
// stays where it was set, and stops. The numbers against the Young-Laplace shape, with one
// angle, are validate's sessile_drop. (With one angle the pipes' rim keeps trading a
// column or two, advancing and receding, which the band stops.)
func TestContactAngleDrop(t *testing.T) {
	t.Parallel()
	for _, m := range []Method{MethodPipes, MethodSWE} {
		st := wettingSettings(30*math.Pi/180, 2)
		st.CapillaryPressure, st.Dt, st.Method = true, 5e-5, m
		st.ContactHysteresis = 10 * math.Pi / 180
		if n := CapillarySmoothing(st, st.Dt, 0.00025); n != 0 {
			t.Fatalf("%v: %d smoothing passes at dt %g: want the exact pressure", m, n, st.Dt)
		}
		const n, dx, vol = 48, 0.00025, 5e-9
		sim := newSim(t, flatScene(t, n, n, dx), st)
		mid := float64(n) * dx / 2
		pourDisc(t, sim, mid, mid, 0.00115, vol)
		sim.Step(int(math.Round(1.2 / sim.Dt())))
		a1, _, _, _ := footprint(sim)
		sim.Step(int(math.Round(0.3 / sim.Dt())))
		a2, deepest, _, _ := footprint(sim)
		sn := snapshot(sim)
		c := sn.Columns
		wet := make([]bool, n*n)
		var cx, cy, v float64
		for i, h := range sn.Height {
			d := float64(h - c.Base[i])
			wet[i] = d > DryDepth
			cx += d * (float64(i%n) + 0.5) * dx
			cy += d * (float64(i/n) + 0.5) * dx
			v += d
		}
		off := math.Hypot(cx/v-mid, cy/v-mid)
		pieces := countPieces(n, n, wet)
		volErr := math.Abs(sim.Volume()-vol) / vol
		capR := sphericalCapR(vol, 30*math.Pi/180)
		t.Logf("%v: footprint %.2f mm^2 at 1.2 s, %.2f at 1.5 s (the spherical cap's %.2f); deepest %.3f mm "+
			"(wetting head %.3f); %d pieces; centroid %.3f mm off; volume error %.1e", m, a1*1e6, a2*1e6,
			math.Pi*capR*capR*1e6, deepest*1e3, st.WettingHead()*1e3, pieces, off*1e3, volErr)
		if pieces != 1 {
			t.Errorf("%v: %d wet pieces, want one drop", m, pieces)
		}
		if a2 != a1 {
			t.Errorf("%v: the footprint still moves: %.2f mm^2 at 1.2 s, %.2f at 1.5 s", m, a1*1e6, a2*1e6)
		}
		// The caps of 5 microlitres at 20 and 30 degrees stand 0.40 and 0.58 mm (gravity
		// included): a drop pinned between them stands between.
		if !(deepest > 0.4e-3 && deepest < 0.7e-3) {
			t.Errorf("%v: deepest %.3f mm, want a cap's, 0.4 to 0.7", m, deepest*1e3)
		}
		if off > dx/2 {
			t.Errorf("%v: the drop's centroid moved %.3f mm from where it was set: want under half a cell", m, off*1e3)
		}
		if volErr > 1e-6 {
			t.Errorf("%v: volume %g, set %g", m, sim.Volume(), vol)
		}
	}
}

// sphericalCapR is the footprint radius of a spherical cap of volume v at contact angle
// theta.
func sphericalCapR(v, theta float64) float64 {
	s, c := math.Sin(theta), math.Cos(theta)
	return math.Cbrt(3 * v * s * s * s / (math.Pi * (1 - c) * (1 - c) * (2 + c)))
}

// countPieces counts the 4-connected true regions of an nx x ny grid.
func countPieces(nx, ny int, wet []bool) int {
	seen := make([]bool, len(wet))
	var stack []int
	pieces := 0
	for i, w := range wet {
		if !w || seen[i] {
			continue
		}
		pieces++
		seen[i] = true
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := k%nx, k/nx
			for _, o := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				xx, yy := x+o[0], y+o[1]
				if j := yy*nx + xx; xx >= 0 && yy >= 0 && xx < nx && yy < ny && wet[j] && !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
	}
	return pieces
}
