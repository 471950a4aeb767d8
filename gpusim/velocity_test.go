package gpusim

import (
	"math"
	"testing"
)

// TestVelocitiesFromFluxes: with fluxes set by hand on a 4 x 3 pool 2 mm deep (every x
// pipe 1e-7 m^3/s, every y pipe 2e-7), an inner column's velocity is the face flux over
// dx times the depth, a column on a wall half of it (the wall's face carries nothing).
func TestVelocitiesFromFluxes(t *testing.T) {
	const dx, depth = 0.001, 0.002
	c := ledgeScene(t, 4, 3, dx, 0, 0, 0.001, 0.05)
	sim := newSim(t, c, fallSettings(0, 1))
	if _, err := sim.Fill(dx/2, dx/2, 0.0015, 0.001+depth); err != nil {
		t.Fatal(err)
	}
	flux := make([]float32, sim.NumPipes())
	for p := range flux {
		a, b := sim.Pipe(p)
		flux[p] = 2e-7                    // along y
		if b == a+1 && a%c.Nx != c.Nx-1 { // one column a cell: the +x neighbour is the next
			flux[p] = 1e-7
		}
	}
	sim.be.writeFlux(flux)
	vx, vy := sim.Velocities(nil, nil)
	u, w := 1e-7/(dx*depth), 2e-7/(dx*depth)
	for y := range c.Ny {
		for x := range c.Nx {
			lo, _ := c.Cell(x, y)
			wantX, wantY := u, w
			if x == 0 || x == c.Nx-1 {
				wantX = u / 2
			}
			if y == 0 || y == c.Ny-1 {
				wantY = w / 2
			}
			if math.Abs(float64(vx[lo])-wantX) > 1e-5*wantX || math.Abs(float64(vy[lo])-wantY) > 1e-5*wantY {
				t.Errorf("cell (%d, %d): velocity (%g, %g) m/s, want (%g, %g)", x, y, vx[lo], vy[lo], wantX, wantY)
			}
		}
	}
	if gx, gy := sim.VelocityAt(1.5*dx, 1.5*dx, math.NaN()); math.Abs(gx-u) > 1e-5*u || math.Abs(gy-w) > 1e-5*w {
		t.Errorf("VelocityAt the inner cell: (%g, %g), want (%g, %g)", gx, gy, u, w)
	}
	if gx, gy := sim.VelocityAt(-dx, dx, math.NaN()); gx != 0 || gy != 0 {
		t.Errorf("VelocityAt outside the domain: (%g, %g), want 0", gx, gy)
	}
}

// TestVelocityOfADamBreak: liquid released from the left half of a channel runs in +x:
// 0.1 s after, the column at the middle moves at +x (tens of mm/s) and not across (its
// vy is 0 up to rounding), and the snapshots carry the same velocities bit for bit once
// asked, none before.
func TestVelocityOfADamBreak(t *testing.T) {
	const dx = 0.001
	c := ledgeScene(t, 40, 4, dx, 0, 0, 0.001, 0.05)
	sim := newSim(t, c, fallSettings(0, 2))
	h := sim.Heights(nil)
	for y := range c.Ny {
		for x := range c.Nx / 2 {
			lo, _ := c.Cell(x, y)
			h[lo] = 0.005
		}
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	sim.Step(1)
	sim.Snapshot(&snap)
	if snap.VX != nil {
		t.Error("a snapshot carries velocities that were not asked for")
	}
	sim.SetSnapshotVelocity(true)
	for sim.Time() < 0.1 {
		sim.Step(1)
	}
	vx, vy := sim.Velocities(nil, nil)
	mid, _ := c.Cell(c.Nx/2, 1)
	if !(vx[mid] > 0.01) || math.Abs(float64(vy[mid])) > 1e-6*float64(vx[mid]) {
		t.Errorf("at the dam: velocity (%g, %g) m/s, want tens of mm/s along +x and none across", vx[mid], vy[mid])
	}
	sim.Snapshot(&snap)
	for i := range vx {
		if snap.VX[i] != vx[i] || snap.VY[i] != vy[i] {
			t.Fatalf("column %d: snapshot velocity (%g, %g), Velocities (%g, %g)", i, snap.VX[i], snap.VY[i], vx[i], vy[i])
		}
		// One column's velocity from its own pipes (the bodies' read) is the field's.
		if gx, gy := sim.ColumnVelocity(i, snap.Height[i]); float32(gx) != vx[i] || float32(gy) != vy[i] {
			t.Fatalf("column %d: ColumnVelocity (%g, %g), Velocities (%g, %g)", i, gx, gy, vx[i], vy[i])
		}
	}
}

// TestImpactsRecorded: a 10 mm^3 drop let go 10 mm above a pool lands as one impact of
// its volume, at about sqrt(2 g 10 mm) (0.44 m/s), at the time of the step it landed in,
// where it was dropped; with recording off nothing is listed.
func TestImpactsRecorded(t *testing.T) {
	const dx, depth, vol = 0.001, 0.002, 1e-8
	for _, on := range []bool{false, true} {
		sim, _ := landingPool(t, 20, dx, depth)
		sim.RecordImpacts(on)
		mid := 10.5 * dx
		if err := sim.Drop(mid, mid, 0.011+depth, vol, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
		landed := -1.0
		for sim.Stats().Particles > 0 {
			sim.Step(1)
			landed = sim.Time()
		}
		got := sim.Impacts(nil)
		if !on {
			if len(got) != 0 {
				t.Errorf("recording off: %d impacts listed", len(got))
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("%d impacts, want 1: %+v", len(got), got)
		}
		im := got[0]
		want := math.Sqrt(2 * 9.81 * 0.01)
		if im.Volume != vol || math.Abs(im.Speed-want) > 0.1*want || im.Time != landed ||
			math.Abs(im.X-mid) > dx || math.Abs(im.Y-mid) > dx {
			t.Errorf("impact %+v: want volume %g at %.3f m/s, t = %g, at (%g, %g)", im, vol, want, landed, mid, mid)
		}
		if again := sim.Impacts(got); len(again) != 0 {
			t.Errorf("impacts listed twice: %+v", again)
		}
	}
}

// TestVelocitiesDenseMatchesGeneral: on a one-layer grid with fluxes of all sizes and
// signs and a ragged wet area, the velocities read from the dense layout's arrays are
// those the fluxes in pipe order give through the adjacency, bit for bit.
func TestVelocitiesDenseMatchesGeneral(t *testing.T) {
	c := ledgeScene(t, 37, 23, 0.001, 0, 0, 0.001, 0.05)
	sim := newSim(t, c, fallSettings(0, 1))
	h := sim.Heights(nil)
	for i := range h {
		h[i] = c.Base[i] + float32(i%7)*1e-4 // some dry, some thinner than the floor
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
	flux := make([]float32, sim.NumPipes())
	for p := range flux {
		flux[p] = float32(math.Sin(float64(p)*1.7)) * 1e-6
	}
	sim.be.writeFlux(flux)
	if _, _, ok := sim.be.(denseFluxes).denseFlux(); !ok {
		t.Fatal("a one-layer grid is not in the dense layout")
	}
	dense, denseY := sim.Velocities(nil, nil)
	sim.vel.general = true
	gen, genY := sim.Velocities(nil, nil)
	nonzero := 0
	for i := range dense {
		if dense[i] != gen[i] || denseY[i] != genY[i] {
			t.Fatalf("column %d: dense (%g, %g), general (%g, %g)", i, dense[i], denseY[i], gen[i], genY[i])
		}
		if dense[i] != 0 {
			nonzero++
		}
	}
	if nonzero < len(dense)/2 {
		t.Errorf("only %d of %d columns move", nonzero, len(dense))
	}
}
