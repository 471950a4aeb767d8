package region

import (
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/liquid3d"
	"github.com/vpbench/vpbench/terrain"
)

// TestAirborne: a tank at rest with a region cutting its surface has no liquid above
// the held columns (the bulk, its top layers included, lies under the margin); a blob
// let go 10 mm above the surface inside the box is all above it until it lands, and
// then none of it is; the particles named are the region's own (volume and place).
func TestAirborne(t *testing.T) {
	const dx, level = 4e-3, 0.0227
	c := flat(t, 16, 8, dx, 0.048)
	st := gpusim.DefaultSettings()
	st.Workers = 2
	sim := newColumns(t, c, st, level)
	g := newRegion(t, sim, Settings{X: 5, Y: 2, NX: 6, NY: 4, Refine: 2, NZ: 24, Workers: 2})
	if got := g.Airborne(nil); len(got) != 0 {
		t.Fatalf("before a step: %d particles above the surface, want none (no heights yet)", len(got))
	}
	for range 30 {
		step(t, g)
	}
	if got := g.Airborne(nil); len(got) != 0 {
		t.Fatalf("at rest: %d particles above the surface (the first at z = %.3f mm), want none", len(got), got[0].Pos.Z*1e3)
	}
	// A blob of 2 x 2 x 2 mm (8 x 8 x 8 particles of 0.25 mm) over the box's middle.
	var blob []liquid3d.Particle
	x0, y0, z0 := 0.032, 0.016, level+0.010
	const n, s = 8, 0.25e-3
	for k := range n {
		for j := range n {
			for i := range n {
				blob = append(blob, liquid3d.Particle{Pos: terrain.Vec3{X: x0 + float64(i)*s, Y: y0 + float64(j)*s, Z: z0 + float64(k)*s}, Volume: s * s * s})
			}
		}
	}
	if err := g.Liquid().AddParticles(blob); err != nil {
		t.Fatal(err)
	}
	step(t, g)
	got := g.Airborne(nil)
	vol := 0.0
	for _, p := range got {
		vol += p.Volume
		if p.Pos.Z < level+0.005 || p.Pos.X < x0-dx || p.Pos.X > x0+dx {
			t.Errorf("a particle above the surface at (%.2f, %.2f, %.2f) mm: not the blob's", p.Pos.X*1e3, p.Pos.Y*1e3, p.Pos.Z*1e3)
			break
		}
	}
	t.Logf("a step after the blob: %d of its %d particles above the surface (%.3g of its %.3g m^3)", len(got), len(blob), vol, float64(len(blob))*s*s*s)
	if len(got) != len(blob) {
		t.Errorf("%d particles above the surface a step after the blob, want its %d", len(got), len(blob))
	}
	for sim.Time() < 1 {
		step(t, g)
	}
	if got := g.Airborne(nil); len(got) != 0 {
		t.Errorf("1 s after, the blob landed: %d particles still above the surface, want none", len(got))
	}
}
