package scene

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/internal/meshio"
	"github.com/vpbench/vpbench/liquid3d"
	"github.com/vpbench/vpbench/surface"
	"github.com/vpbench/vpbench/terrain"
)

// surfaceState is the liquid surface of the scene: the terrain's triangle mesh and the
// surface builder are made when first needed (they cost a marching-cubes pass over the
// domain), and made again after the terrain changes.
type surfaceState struct {
	version  int // bumped on every terrain change
	builtFor int // the version builder was made for (0: none)
	builder  *surface.Builder
	mesh     *terrain.Mesh // the terrain mesh builder was made with (the preview draws it)
	heights  []float32     // BuildSurface's copy of the heights, reused
	// BuildSurface's copies of the particles in the air and their drops, reused, and
	// the mesher that draws them as liquid (made when first needed).
	particles []gpusim.Particle
	drops     []surface.Drop
	air       *surface.AirSurface
	// The region's particles above its held columns' surface (regionDrops), reused.
	airborne []liquid3d.Particle
}

// View is what a viewer asks of the liquid surface, beside the scenario's settings.
type View struct {
	// Eye is the camera position, m, for the convex-meniscus cap (surface.Settings.Camera);
	// nil: no viewer.
	Eye *[3]float64
	// Meniscus, when set, overrides the scenario's meniscus switch (the window's M key,
	// `vpbench render --meniscus=false`); nil: the scenario's setting stands.
	Meniscus *bool
}

// view is a View held by value: the run loop sets one every frame, and copies kept here
// allocate nothing.
type view struct {
	eye                   [3]float64
	hasEye                bool
	meniscus, hasMeniscus bool
}

// SetView sets the viewer's camera and meniscus switch for the surfaces built from now
// on (it keeps copies, not v's pointers). The scenario's own settings are untouched: a
// view taken away restores them.
func (s *Scene) SetView(v View) {
	s.waitSurface() // a build in flight reads the camera
	s.view = view{}
	if v.Eye != nil {
		s.view.eye, s.view.hasEye = *v.Eye, true
	}
	if v.Meniscus != nil {
		s.view.meniscus, s.view.hasMeniscus = *v.Meniscus, true
	}
}

// surfaceSettings are the settings a surface is built with: the scenario's, with the
// viewer's camera and meniscus switch, and the solver's fall threshold (where liquid
// falls as particles, the surface does not draw a sheet down the drop).
func (s *Scene) surfaceSettings() surface.Settings {
	st := s.settings.Surface
	st.Camera = nil
	if s.view.hasEye {
		st.Camera = &s.view.eye
	}
	if s.view.hasMeniscus {
		st.Meniscus = s.view.meniscus
	}
	st.FallDrop = 0
	if s.sim != nil && s.sim.Settings().Falling == gpusim.FallingParticles {
		st.FallDrop = s.sim.FallDrop()
	}
	return st
}

// SurfaceBuilder returns the surface builder for the current terrain, making it (and the
// terrain mesh) if needed. A surface in flight (the overlap) is waited for first.
func (s *Scene) SurfaceBuilder() (*surface.Builder, error) {
	s.waitSurface()
	if s.sim == nil {
		return nil, fmt.Errorf("%s: the scene has no terrain yet", s.name)
	}
	if s.surf.builder != nil && s.surf.builtFor == s.surf.version {
		return s.surf.builder, nil
	}
	mesh, err := terrain.SurfaceMesh(s.Solid(), s.domain)
	if err != nil {
		return nil, fmt.Errorf("terrain mesh: %w", err)
	}
	b, err := surface.NewBuilder(s.sim.Columns(), mesh, s.surfaceSettings())
	if err != nil {
		return nil, err
	}
	s.surf.builder, s.surf.builtFor, s.surf.mesh = b, s.surf.version, mesh
	return b, nil
}

// BuildSurface makes the liquid surface mesh of the current state, with the liquid in
// the air after it: the particles as one smooth body of liquid, drops closer than their
// size merged, each stretched along its velocity (surface.AirSurface). The mesh is the
// builder's: valid until the next build.
func (s *Scene) BuildSurface() (*surface.Mesh, error) {
	b, err := s.SurfaceBuilder()
	if err != nil {
		return nil, err
	}
	if err := b.SetSettings(s.surfaceSettings()); err != nil {
		return nil, err
	}
	m := b.Build(s.surfaceHeights())
	s.surfaceDrops()
	if len(s.surf.drops) == 0 {
		return m, nil
	}
	return s.airSurface().Append(m, s.surf.drops, s.airBox()), nil
}

// surfaceHeights are the heights a surface is built from: the solver's, displaced by
// the waves where there are any (a buffer of the scene's, valid until the next call).
func (s *Scene) surfaceHeights() []float32 {
	switch {
	case s.waves.sys != nil: // the heights the waves read, displaced by them
		return s.displaced(s.flow().Height)
	case s.snapOK: // the state was read already: its heights are at hand
		return s.snap.Height
	default:
		s.surf.heights = s.sim.Heights(s.surf.heights)
		return s.surf.heights
	}
}

// surfaceDrops sets s.surf.drops to the liquid in the air: the solver's particles and
// the region's airborne liquid.
func (s *Scene) surfaceDrops() {
	if s.waves.sys == nil && s.snapOK {
		s.surf.particles = append(s.surf.particles[:0], s.snap.Particles...)
	} else {
		s.surf.particles = s.sim.Particles(s.surf.particles)
	}
	s.surf.drops = s.surf.drops[:0]
	for _, p := range s.surf.particles {
		s.surf.drops = append(s.surf.drops, surface.Drop{X: p.X, Y: p.Y, Z: p.Z, Radius: float32(p.Radius()),
			VX: p.VX, VY: p.VY, VZ: p.VZ})
	}
	s.regionDrops()
}

// airSurface is the mesher of the liquid in the air, made when first needed (and again
// when gravity changes).
func (s *Scene) airSurface() *surface.AirSurface {
	if g := s.sim.Settings().Gravity; s.surf.air == nil || s.surf.air.Settings().Gravity != g {
		as := surface.DefaultAirSettings() // GOMAXPROCS workers, as the builder
		as.Gravity = g                     // the parcels' paths, for the streams' ropes
		s.surf.air = surface.NewAirSurface(as)
	}
	return s.surf.air
}

// regionDrops adds to the drops the region's liquid that its held columns cannot show
// (region.Airborne: a splash, a jet, a crest, what fell into the box), each particle a
// drop of its volume, so that the liquid in the air is drawn as one body with the
// falling liquid around it (docs/method.md, "The region in the picture").
func (s *Scene) regionDrops() {
	if s.rg.g == nil {
		return
	}
	s.surf.airborne = s.rg.g.Airborne(s.surf.airborne[:0])
	for _, p := range s.surf.airborne {
		r := math.Cbrt(3 * p.Volume / (4 * math.Pi))
		s.surf.drops = append(s.surf.drops, surface.Drop{X: float32(p.Pos.X), Y: float32(p.Pos.Y), Z: float32(p.Pos.Z), Radius: float32(r),
			VX: float32(p.Vel.X), VY: float32(p.Vel.Y), VZ: float32(p.Vel.Z)})
	}
}

// airBox is the box the liquid in the air is drawn in: the domain, and as much again
// beside it on every side (a spray may leave the top); particles outside are not drawn.
func (s *Scene) airBox() surface.Box {
	d := s.domain
	m := max(d.SizeX, d.SizeY, d.Height)
	return surface.Box{Min: [3]float64{-m, -m, -m}, Max: [3]float64{d.SizeX + m, d.SizeY + m, d.Height + m}}
}

// TerrainMesh is the terrain's triangle mesh (made with the surface builder) and a
// version that changes whenever the terrain does.
func (s *Scene) TerrainMesh() (*terrain.Mesh, int, error) {
	if _, err := s.SurfaceBuilder(); err != nil {
		return nil, 0, err
	}
	return s.surf.mesh, s.surf.version, nil
}

// ExportMesh writes the liquid surface mesh of the current state to path: binary PLY
// (with per-vertex opacity) when the name ends in .ply, OBJ otherwise (ExportMeshFormat
// for ASCII PLY). Missing folders are made.
func (s *Scene) ExportMesh(path string) error {
	return s.ExportMeshFormat(path, meshio.ByExt(path, false))
}
