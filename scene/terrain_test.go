package scene

import (
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// TestSetColumns: a scene given another scene's columns (before and after it has a
// solver) solves on exactly those, pictures them (a closed terrain mesh from
// terrain.ColumnsSolid) and refuses columns of another grid.
func TestSetColumns(t *testing.T) {
	a := small(t, nil)
	box, err := terrain.Box(terrain.Vec3{X: 0.002, Y: 0.002, Z: -1}, terrain.Vec3{X: 0.006, Y: 0.005, Z: 0.004})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.SetTerrain(box); err != nil {
		t.Fatal(err)
	}
	cols := a.Columns()
	for _, withSolver := range []bool{false, true} {
		b := small(t, nil)
		if withSolver {
			if _, err := b.EnsureSolver(); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := b.SetColumns(cols); err != nil {
			t.Fatal(err)
		}
		if b.Columns() != cols {
			t.Errorf("solver %v: the solver does not hold the columns given", withSolver)
		}
		if terrain.BoundOf(b.Solid()) != terrain.SignOnly {
			t.Errorf("solver %v: the picture's solid is %T, not the columns'", withSolver, b.Solid())
		}
		m, _, err := b.TerrainMesh()
		if err != nil {
			t.Fatal(err)
		}
		if m.NumTriangles() == 0 {
			t.Errorf("solver %v: an empty terrain mesh", withSolver)
		}
		// Setting a terrain again brings its own picture back.
		if _, _, err := b.SetTerrain(box); err != nil {
			t.Fatal(err)
		}
		if b.Solid() != box {
			t.Errorf("solver %v: SetTerrain did not replace the columns' picture", withSolver)
		}
	}
	c := small(t, func(c *Config) { c.Layers = 3 })
	if _, _, err := c.SetColumns(cols); err == nil || !strings.Contains(err.Error(), "of 2 layers") {
		t.Errorf("columns of another grid: error %v", err)
	}
	if _, _, err := c.SetColumns(nil); err == nil {
		t.Error("nil columns: no error")
	}
}
