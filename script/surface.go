package script

import (
	"fmt"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/surface"
	"github.com/vpbench/vpbench/terrain"
)

// surfaceState is the liquid surface of the scenario: the terrain's triangle mesh and the
// surface builder are made when first needed (they cost a marching-cubes pass over the
// domain), and made again after the terrain changes.
type surfaceState struct {
	solid    terrain.Solid
	version  int // bumped on every terrain change
	builtFor int // the version builder was made for (0: none)
	builder  *surface.Builder
	settings surface.Settings // set by sim:set; surface.DefaultSettings until then
	mesh     *terrain.Mesh    // the terrain mesh builder was made with (the preview draws it)
	preview  previewState     // the liquid's colour (preview.go)
	heights  []float32        // BuildSurface's copy of the heights, reused
	// BuildSurface's copies of the particles in the air and their spheres, reused.
	particles []gpusim.Particle
	drops     []surface.Drop
}

// terrainChanged records the new terrain solid; the surface follows on its next use.
func (s *Scenario) terrainChanged(solid terrain.Solid) {
	s.surf.solid = solid
	s.surf.version++
}

// terrainSolid is the terrain's solid: the one last set, or the empty domain's.
func (s *Scenario) terrainSolid() terrain.Solid {
	if s.surf.solid == nil {
		return emptySolid
	}
	return s.surf.solid
}

// SurfaceBuilder returns the surface builder for the current terrain, making it (and the
// terrain mesh) if needed. It must be called from the goroutine that drives the scenario.
func (s *Scenario) SurfaceBuilder() (*surface.Builder, error) {
	if s.sim == nil {
		return nil, fmt.Errorf("%s: the scene has no terrain yet", s.name)
	}
	if s.surf.builder != nil && s.surf.builtFor == s.surf.version {
		return s.surf.builder, nil
	}
	mesh, err := terrain.SurfaceMesh(s.terrainSolid(), s.cfg.domain)
	if err != nil {
		return nil, fmt.Errorf("terrain mesh: %w", err)
	}
	b, err := surface.NewBuilder(s.sim.Columns(), mesh, s.surf.settings)
	if err != nil {
		return nil, err
	}
	s.surf.builder, s.surf.builtFor, s.surf.mesh = b, s.surf.version, mesh
	return b, nil
}

// BuildSurface makes the liquid surface mesh of the current state.
func (s *Scenario) BuildSurface() (*surface.Mesh, error) {
	b, err := s.SurfaceBuilder()
	if err != nil {
		return nil, err
	}
	// Where liquid falls as particles, the surface does not draw a sheet down the drop.
	fall := 0.0
	if s.sim.Settings().Falling == gpusim.FallingParticles {
		fall = s.sim.FallDrop()
	}
	if st := b.Settings(); st.FallDrop != fall {
		st.FallDrop = fall
		if err := b.SetSettings(st); err != nil {
			return nil, err
		}
	}
	var m *surface.Mesh
	if s.snapOK { // a script already read this state: its heights are at hand
		m = b.Build(s.snap.Height)
		s.surf.particles = append(s.surf.particles[:0], s.snap.Particles...)
	} else {
		s.surf.heights = s.sim.Heights(s.surf.heights)
		m = b.Build(s.surf.heights)
		s.surf.particles = s.sim.Particles(s.surf.particles)
	}
	// Liquid in the air: spheres after the surface (surface.Drop).
	s.surf.drops = s.surf.drops[:0]
	for _, p := range s.surf.particles {
		s.surf.drops = append(s.surf.drops, surface.Drop{X: p.X, Y: p.Y, Z: p.Z, Radius: float32(p.Radius())})
	}
	return m.AppendDrops(s.surf.drops, b.Settings().DepthMax), nil
}

// ExportMesh writes the liquid surface mesh of the current state to path: PLY (with
// per-vertex opacity) when the name ends in .ply, OBJ otherwise. Missing folders are made.
func (s *Scenario) ExportMesh(path string) error {
	s.Sync()
	m, err := s.BuildSurface()
	if err != nil {
		return err
	}
	return m.WriteFile(path)
}

// setSurface applies the surface keys of a sim:set table; nothing changes if one is bad.
func (s *Scenario) setSurface(c call, t *lua.LTable) {
	s.applySurface(c, s.surfaceSettings(c, t))
}

// surfaceSettings reads the surface fields of t over the current settings and checks
// them; applySurface sets them.
func (s *Scenario) surfaceSettings(c call, t *lua.LTable) surface.Settings {
	st := s.surf.settings
	st.DepthMax = c.num(t, "depth_max", st.DepthMax, false, "")
	st.MeniscusLength = c.num(t, "meniscus_length", st.MeniscusLength, false, "")
	st.ContactAngle = c.num(t, "contact_angle", st.ContactAngle, false, "")
	st.Meniscus = c.boolean(t, "meniscus", st.Meniscus)
	if err := st.Validate(); err != nil {
		c.fail("%v", err)
	}
	return st
}

// applySurface makes st the surface settings (of the builder too, when there is one).
func (s *Scenario) applySurface(c call, st surface.Settings) {
	s.surf.settings = st
	if s.surf.builder != nil {
		if err := s.surf.builder.SetSettings(st); err != nil {
			c.fail("%v", err)
		}
	}
}

// safeOutputPath checks a path a script wants to write: relative, inside the working
// folder (no ".."), so that a scenario cannot write anywhere else.
func safeOutputPath(p string) error {
	if p == "" {
		return fmt.Errorf("the path is empty")
	}
	if filepath.IsAbs(p) {
		return fmt.Errorf("%q is an absolute path: scripts write below the working folder (use a relative path)", p)
	}
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(p)), "/") {
		if part == ".." {
			return fmt.Errorf("%q leaves the working folder", p)
		}
	}
	return nil
}
