package gpusim

// sim:fill{ velocity = {u, v} } (Sim.FillMoving): the filled liquid starts moving.

import (
	"math"
	"testing"
)

// TestFillMoving: a closed flat basin 60 x 40 cells (dx 0.5 mm) filled 4 mm deep moving
// at (u, v) = (40, -30) mm/s. Right after the fill every pipe inside carries u d dx (x)
// or v d dx (y) and the velocity read in the middle (Sim.Velocities) is (u, v) to float32
// rounding; the heights and the volume are those of a fill at rest, bit for bit. Over the
// first step the liquid's centroid moves by the momentum the pipes carry, which is known
// beforehand: every interior pipe's flux, kept by the damping zeta = omega^dt and the
// viscous factor gamma = d^2/(d^2 + 3 dt nu) (the head is level: nothing accelerates it),
// moves its liquid a cell, so the centroid moves dt zeta gamma u (nx-1)/nx along x (the
// pipes beside the walls are none) and likewise along y. The pipes must move it so to
// 0.1 % (measured: to 1e-5). The shallow water equations advect the velocity: a uniform
// flow not at all, but a column beside a wall carries half the discharge of the others
// (one of its faces is the wall), so the faces next to the walls are slowed in the first
// step; they are held to 2 % (measured -0.9 % along x, -1.3 % along y, the shorter
// axis). After 20 steps it still moves that way, and the volume is unchanged to 1e-12.
func TestFillMoving(t *testing.T) {
	t.Parallel()
	const (
		nx, ny = 60, 40
		dx     = 0.0005
		depth  = 0.004
		u, v   = 0.04, -0.03
	)
	for _, method := range []Method{MethodPipes, MethodSWE} {
		t.Run(method.String(), func(t *testing.T) {
			t.Parallel()
			cols := sidesFloor(t, nx, ny) // floor at 1 mm
			st := settings(0.003, 1e-6, 2)
			st.Method = method
			still := newSim(t, cols, st)
			sim := newSim(t, cols, st)
			level := 0.001 + depth
			a0, err := still.Fill(0.01, 0.01, 0.002, level)
			if err != nil {
				t.Fatal(err)
			}
			a1, err := sim.FillMoving(0.01, 0.01, 0.002, level, u, v)
			if err != nil {
				t.Fatal(err)
			}
			var s0, s1 Snapshot
			still.Snapshot(&s0)
			sim.Snapshot(&s1)
			if a0 != a1 || firstDiffBits(s0.Height, s1.Height) >= 0 || still.Volume() != sim.Volume() {
				t.Fatalf("a moving fill added %g m^3 (at rest %g) or changed the heights", a1, a0)
			}
			d := float64(s1.Height[0]) - float64(cols.Base[0])
			f := sim.Fluxes(nil)
			for p, fp := range f {
				a, b := sim.Pipe(p)
				want := float32(v * d * dx)
				if b == a+1 {
					want = float32(u * d * dx)
				}
				if fp != want {
					t.Fatalf("pipe %d (%d-%d): flux %g, want %g", p, a, b, fp, want)
				}
			}
			vx, vy := sim.Velocities(nil, nil)
			mid := (ny/2)*nx + nx/2
			if math.Abs(float64(vx[mid])-u) > 1e-6*u || math.Abs(float64(vy[mid])-v) > 1e-6*math.Abs(v) {
				t.Fatalf("velocity in the middle (%g, %g) m/s, want (%g, %g)", vx[mid], vy[mid], u, v)
			}
			centroid := func() (x, y, vol float64) {
				var snap Snapshot
				sim.Snapshot(&snap)
				for i, h := range snap.Height {
					dd := float64(h) - float64(cols.Base[i]) + float64(sim.be.(*cpuBackend).r[i])
					cx, cy := cols.CellCentre(i%nx, i/nx)
					x, y, vol = x+dd*cx, y+dd*cy, vol+dd
				}
				return x / vol, y / vol, vol * dx * dx
			}
			x0, y0, v0 := centroid()
			sim.Step(1)
			x1, y1, _ := centroid()
			zeta := math.Pow(st.Damping, st.Dt)
			gamma := d * d / (d*d + 3*st.Dt*st.Viscosity)
			wx := st.Dt * zeta * gamma * u * (nx - 1) / nx
			wy := st.Dt * zeta * gamma * v * (ny - 1) / ny
			t.Logf("%v: the first step moved the centroid (%.5g, %.5g) um, expected (%.5g, %.5g) um (%+.3f %%, %+.3f %%)",
				method, (x1-x0)*1e6, (y1-y0)*1e6, wx*1e6, wy*1e6, 100*((x1-x0)/wx-1), 100*((y1-y0)/wy-1))
			tol := 1e-3
			if method == MethodSWE {
				tol = 0.02
			}
			if math.Abs((x1-x0)/wx-1) > tol || math.Abs((y1-y0)/wy-1) > tol {
				t.Errorf("the first step moved the centroid (%.5g, %.5g) m, want (%.5g, %.5g) within %g %%", x1-x0, y1-y0, wx, wy, 100*tol)
			}
			sim.Step(20)
			x2, y2, _ := centroid()
			if !(x2 > x1 && y2 < y1) {
				t.Errorf("after 21 steps the centroid is at (%g, %g) mm, after 1 at (%g, %g): it does not keep moving along (u, v)", x2*1e3, y2*1e3, x1*1e3, y1*1e3)
			}
			if vol := sim.Volume(); math.Abs(vol-v0) > 1e-12*v0 {
				t.Errorf("volume %.17g after 21 steps, %.17g at the fill", vol, v0)
			}
		})
	}
}
