package preview

import (
	"math"
	"testing"
)

// TestStreamIsContinuous: the waterfall at t = 1.5 s seen from the side across the basin.
// Its stream is parcels 6 to 19 radii apart along their path; on each parcel's path,
// the point where it was half-way to the parcel that left the edge after it on the same
// path (the same horizontal velocity to 0.1 %, the same apex to 0.2 radii, left 0.1-50
// ms later) is liquid in truth. Drawn as liquid in the air (ropes, the scene's surface)
// at least 95 % of those points that are in the picture, clear of the basin and in
// front of no other liquid, show water; drawn as spheres (Mesh.AppendDrops) most show
// what lies behind: the test sees the gaps it asks to be closed.
func TestStreamIsContinuous(t *testing.T) {
	cam, img, beads, ps := waterfallSide(t)
	const g = 9.81
	var points, water, waterBeads int
	for _, a := range ps {
		va := [3]float64{float64(a.VX), float64(a.VY), float64(a.VZ)}
		sp := math.Sqrt(va[0]*va[0] + va[1]*va[1] + va[2]*va[2])
		r := float64(a.Radius())
		ax, ay := float64(a.X)+va[0]*va[2]/g, float64(a.Y)+va[1]*va[2]/g
		best := math.Inf(1)
		for _, q := range ps {
			T := (float64(q.VZ) - va[2]) / g
			if !(T > 1e-4 && T <= 0.05 && T < best) ||
				math.Hypot(float64(q.VX)-va[0], float64(q.VY)-va[1]) > 1e-3*sp ||
				math.Hypot(float64(q.X)+float64(q.VX)*float64(q.VZ)/g-ax, float64(q.Y)+float64(q.VY)*float64(q.VZ)/g-ay) > 0.2*r {
				continue
			}
			best = T
		}
		if math.IsInf(best, 1) {
			continue
		}
		s := best / 2 // back along a's path
		mid := [3]float64{float64(a.X) - va[0]*s, float64(a.Y) - va[1]*s, float64(a.Z) - va[2]*s - 0.5*g*s*s}
		x, y, ok := cam.Project(mid, picW, picH)
		if !ok || mid[2] < 0.004 || x < 1 || y < 1 || x > picW-2 || y > picH-2 {
			continue
		}
		if c, _ := pixelAt(beads, cam, mid); isWater(c) {
			waterBeads++
		}
		points++
		if c, _ := pixelAt(img, cam, mid); isWater(c) {
			water++
		}
	}
	t.Logf("%d particles; %d points half-way between a parcel and its follower: %d water as ropes, %d as spheres", len(ps), points, water, waterBeads)
	if points < 50 || water*100 < points*95 {
		t.Errorf("%d of %d points between a stream's parcels are water: want 95 %%", water, points)
	}
	if waterBeads*2 > points {
		t.Errorf("drawn as spheres, %d of %d points between the parcels are water: the test sees no gap", waterBeads, points)
	}
}
