package region

// A region whose box holds a curved wall (docs/method.md, "The coupling to the columns":
// a solid that cuts the columns' cells): the columns see each cell as wall or open
// whole, the region sees the wall's true shape.

import (
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// TestCurvedWall: a glass (a cylinder 30 mm across, walls 2.5 mm, 20 mm tall, its bottom
// 3 mm thick) of 2 mm columns holding water 9 mm deep, a region of 1 mm cells over it:
// where the region's solid takes part of a cell the columns see open, that liquid is
// seeded above the cell's level (the region is placed: it refused once), the volume is
// exact after every step for 0.3 s, and no wall column shows liquid over its top (a
// wall's held height is its floor: the liquid beside a wall is the open cells').
func TestCurvedWall(t *testing.T) {
	const dx, high = 0.002, 0.03
	v := func(x, y, z float64) terrain.Vec3 { return terrain.Vec3{X: x, Y: y, Z: z} }
	outer, err := terrain.Cylinder(v(0.03, 0.03, 0), v(0, 0, 1), 0.015, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := terrain.Cylinder(v(0.03, 0.03, 0.003), v(0, 0, 1), 0.0125, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	glass, err := terrain.Difference(outer, inner)
	if err != nil {
		t.Fatal(err)
	}
	c, err := terrain.Extract(glass, terrain.Domain{SizeX: 0.06, SizeY: 0.06, Height: high, Dx: dx}, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := gpusim.DefaultSettings()
	st.Workers = 2
	sim := newSim(t, c, st)
	if _, err := sim.Fill(0.03, 0.03, 0.004, 0.012); err != nil {
		t.Fatal(err)
	}
	// The glass's cells, x and y 14 to 46 mm: 7 to 23.
	g := newRegion(t, sim, Settings{X: 7, Y: 7, NX: 16, NY: 16, Refine: 2, NZ: 26, Workers: 2, Solid: glass})
	stepChecked(t, g, 0.3, nil)
	hs := sim.LiveHeights(nil)
	walls, wet := 0, 0
	for _, col := range g.Held() {
		f := float64(sim.Floor(col))
		if f < 0.01 {
			if float64(hs[col]) > f {
				wet++
			}
			continue
		}
		walls++
		if h := float64(hs[col]); h != f {
			t.Errorf("wall column %d (its top at %.1f mm) shows liquid %.3g mm deep over it", col, f*1e3, (h-f)*1e3)
		}
	}
	t.Logf("%d wall columns dry on top, %d columns inside wet; the fastest particle %.3g m/s", walls, wet, g.Liquid().MaxSpeed())
	if walls == 0 || wet == 0 {
		t.Errorf("%d wall columns, %d wet ones inside: the glass is not in the box", walls, wet)
	}
}
