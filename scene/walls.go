package scene

import "github.com/vpbench/vpbench/gpusim"

// Walled tells which sides of the domain are walls, in gpusim.Settings.Sides' order
// (-x, +x, -y, +y): the preview draws a rim along those (an open side drains, docs/method.md,
// "Open sides").
func (s *Scene) Walled() [4]bool {
	var w [4]bool
	for i, sd := range s.settings.Solver.Sides {
		w[i] = sd == gpusim.SideWall
	}
	return w
}

// BorderFloor is the highest floor, m, among the border cells' lowest columns (0 before
// the solver exists): where a wall's rim has to rise from to frame the liquid at a side.
func (s *Scene) BorderFloor() float64 {
	floor := 0.0
	if s.sim == nil {
		return floor
	}
	c := s.sim.Columns()
	border := func(x, y int) {
		if k := y*c.Nx + x; c.CellStart[k] < c.CellStart[k+1] { // not solid to the top
			floor = max(floor, float64(c.Base[c.CellStart[k]]))
		}
	}
	for x := range c.Nx {
		border(x, 0)
		border(x, c.Ny-1)
	}
	for y := range c.Ny {
		border(0, y)
		border(c.Nx-1, y)
	}
	return floor
}
