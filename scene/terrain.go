package scene

import (
	"fmt"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// emptySolid is the terrain of a scene that sets none: free space above the domain floor.
var emptySolid, _ = terrain.Plane(terrain.Vec3{Z: -1}, terrain.Vec3{Z: 1})

// SetTerrain extracts solid's columns (nil: the empty domain) and builds the solver on
// them, or hands them to it (the liquid is carried over: see gpusim.Sim.SetTerrain). It
// returns the volume that found no room, m^3, and the warnings raised (free intervals
// treated as solid, a dt above the stability limit). On an error nothing changes.
//
// Extraction evaluates the solid on several goroutines; a solid that calls back into a
// script (a heightfield's function) must be safe for that.
func (s *Scene) SetTerrain(solid terrain.Solid) (rejected float64, warnings []string, err error) {
	if solid == nil {
		solid = emptySolid
	}
	cols, err := terrain.Extract(solid, s.domain, s.layers)
	if err != nil {
		return 0, nil, err
	}
	return s.install(cols, solid)
}

// SetColumns is SetTerrain with the columns given rather than extracted (a checkpoint's):
// the solver is built on them, or they are handed to it, and the terrain's picture (the
// surface's terrain mesh, Solid) becomes terrain.ColumnsSolid(cols), the columns' blocky
// outline, until the next SetTerrain. cols must pass Columns.Validate and be of the
// scene's grid (its domain's cells, dx, height and layers); they are shared, not copied.
func (s *Scene) SetColumns(cols *terrain.Columns) (rejected float64, warnings []string, err error) {
	if cols == nil {
		return 0, nil, fmt.Errorf("%s: set columns: nil columns", s.name)
	}
	if err := cols.Validate(); err != nil {
		return 0, nil, err
	}
	nx, ny := s.domain.Grid()
	if cols.Nx != nx || cols.Ny != ny || cols.Dx != s.domain.Dx || cols.Height != s.domain.Height || cols.Layers != s.layers {
		return 0, nil, fmt.Errorf("%s: the columns are a %dx%d grid of %d layers (dx %g m, height %g m), the scene's %dx%d of %d (dx %g m, height %g m)",
			s.name, cols.Nx, cols.Ny, cols.Layers, cols.Dx, cols.Height, nx, ny, s.layers, s.domain.Dx, s.domain.Height)
	}
	return s.install(cols, terrain.ColumnsSolid(cols))
}

// install builds the solver on cols, or hands them to it, with solid as the terrain's
// picture (SetTerrain, SetColumns).
func (s *Scene) install(cols *terrain.Columns, solid terrain.Solid) (rejected float64, warnings []string, err error) {
	s.waitSurface() // the builder in flight reads the old columns
	if s.sim == nil {
		sim, err := gpusim.New(cols, s.settings.Solver)
		if err != nil {
			return 0, nil, err
		}
		s.sim = sim
		if err := s.syncWaves(); err != nil {
			s.sim.Close()
			s.sim = nil
			return 0, nil, err
		}
	} else {
		old := s.sim.Columns()
		if s.waves.sys != nil {
			s.waves.terrainH = s.sim.Heights(s.waves.terrainH)
		}
		change := func() error {
			rejected, err = s.sim.SetTerrain(cols)
			return err
		}
		if s.rg.g != nil { // the region takes the terrain inside its box, around the columns' change
			err = s.rg.g.SetTerrain(cols, solid, change)
			s.bookRegion()
		} else {
			err = change()
		}
		if err != nil {
			return 0, nil, err
		}
		if s.waves.sys != nil {
			s.waves.sys.SetColumns(cols)
			s.terrainImpacts(old, s.waves.terrainH)
		}
		if s.bodies.world != nil {
			if err := s.bodies.world.SetColumns(cols); err != nil {
				return rejected, nil, err
			}
		}
	}
	s.stale()
	s.solid = solid
	s.surf.version++ // the surface follows on its next use
	if cols.Dropped > 0 && cols.Dropped != s.lastDropped {
		warnings = append(warnings, fmt.Sprintf("the terrain has %d free intervals below the topmost %d of their cells: they are treated as solid (raise layers to keep them)", cols.Dropped, cols.Layers))
	}
	s.lastDropped = cols.Dropped
	warnings = append(warnings, s.sim.Warnings()...)
	s.storeTime()
	return rejected, warnings, nil
}

// EnsureSolver builds the solver on the empty domain if no terrain has been set yet (a
// scenario that fills before it sets a terrain, or sets none).
func (s *Scene) EnsureSolver() ([]string, error) {
	if s.sim != nil {
		return nil, nil
	}
	_, warnings, err := s.SetTerrain(nil)
	return warnings, err
}

// Solid is the terrain's solid: the one last set, or the empty domain's.
func (s *Scene) Solid() terrain.Solid {
	if s.solid == nil {
		return emptySolid
	}
	return s.solid
}

// Extent is the grid's size in x and y and its height, m (zeros before the solver).
func (s *Scene) Extent() (sx, sy, h float64) {
	if s.sim == nil {
		return 0, 0, 0
	}
	c := s.sim.Columns()
	return float64(c.Nx) * c.Dx, float64(c.Ny) * c.Dx, c.Height
}
