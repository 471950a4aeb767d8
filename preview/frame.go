package preview

import (
	"math"
	"slices"
	"sync"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/surface"
	"github.com/vpbench/vpbench/terrain"
)

// Frame is what one picture shows: the terrain mesh, the floating bodies, the liquid
// surface and how to colour it. A Frame the Mailbox hands out owns its slices; the terrain mesh is shared
// and never changed (a terrain change comes as a new mesh and a new TerrainVersion).
type Frame struct {
	Time  float64    // simulated s
	Box   Box        // the domain, for the camera
	Color [3]float32 // the liquid's colour, sRGB in [0, 1]
	// DepthMax is the surface's depth_max (m, surface.Settings.DepthMax): the depth at
	// which Opacity reaches 1, from which the renderer takes the depth (Opacity *
	// DepthMax) for absorption. 0 means DefaultDepthMax.
	DepthMax float32
	// Absorption is the liquid's extinction per channel (red, green, blue), 1/m: light
	// through a depth d of it keeps exp(-Absorption * d). Zero means derived from Color
	// (liquidSigma): a custom colour absorbs the channels it lacks.
	Absorption [3]float32

	Terrain        *terrain.Mesh
	TerrainVersion uint64 // changes when Terrain does

	// Camera is the scenario's camera (sim:camera; LookAt fitted to Box) when
	// CameraVersion is not 0. The window takes it when CameraVersion changes and keeps it
	// until the user moves the view; screenshots and recordings without a window draw
	// from it instead of the default preset.
	Camera        Camera
	CameraVersion uint64

	// Walls are the domain's walled sides, in the solver's sides' order (-x, +x, -y,
	// +y): the renderer draws a low glass rim along each, from the box's bottom up to
	// WallTop (m), so that liquid standing at a side is seen to stand against something.
	// An open side (liquid leaves through it) has none.
	Walls   [4]bool
	WallTop float32

	// The liquid surface (surface.Mesh's arrays).
	Positions, Normals, Opacity []float32
	Indices                     []uint32
	// Topology changes when Indices do (the renderer uploads them only then); 0 means
	// unknown (always uploaded).
	Topology uint64
	// SideIndex is where the liquid's sides lie in Indices (surface.Mesh.SideIndex): the
	// renderer draws the sides along walled sides (Walls) only. All zero: no sides known,
	// every triangle is drawn.
	SideIndex [5]int

	// The floating bodies' surfaces (scene.BodyMesh's arrays), world space: positions
	// and unit normals (xyz), an sRGB colour a vertex, triangles counter-clockwise seen
	// from outside. They are drawn lit and shadowed like the terrain, in their own
	// colours, and cast the key light's shadow; empty when there are none.
	BodyPositions, BodyNormals, BodyColors []float32
	BodyIndices                            []uint32

	// Sinks are the sinks' marks (scene.Scene.Sinks): each is drawn on the floor as a
	// drain, the disc it takes liquid from (sinks.go); empty when there are none.
	Sinks []scene.Sink

	// Seq numbers published frames, from 1.
	Seq uint64
}

// FrameOf is the frame of sc's current state with the liquid surface surf (nil: no
// liquid): the run loop publishes it, screenshots and recordings draw it. Its arrays are
// surf's and the scene's body mesh's (scene.BodyMesh), not copies: publish or draw it
// before the next build. It runs on the goroutine that drives sc.
func FrameOf(sc *scene.Scene, surf *surface.Mesh) (Frame, error) {
	tm, version, err := sc.TerrainMesh()
	if err != nil {
		return Frame{}, err
	}
	sx, sy, h := sc.Extent()
	st := sc.Settings()
	f := Frame{
		Time:           sc.Time(),
		Box:            Box{Max: [3]float64{sx, sy, h}},
		Color:          st.Liquid.Color,
		Absorption:     st.Liquid.Absorption,
		DepthMax:       float32(st.Surface.DepthMax), // the opacity's depth scale, for absorption
		Terrain:        tm,
		TerrainVersion: uint64(version),
	}
	if surf != nil {
		f.Positions, f.Normals, f.Opacity, f.Indices = surf.Positions, surf.Normals, surf.Opacity, surf.Indices
		f.SideIndex = surf.SideIndex
	}
	bm, err := sc.BodyMesh()
	if err != nil {
		return Frame{}, err
	}
	if bm != nil {
		f.BodyPositions, f.BodyNormals, f.BodyColors, f.BodyIndices = bm.Positions, bm.Normals, bm.Colors, bm.Indices
	}
	if c, v, ok := sc.Camera(); ok {
		if f.Camera, err = SceneCamera(c, f.Box); err != nil {
			return Frame{}, err
		}
		f.CameraVersion = v
	}
	f.Walls = sc.Walled()
	f.Sinks = sc.Sinks()
	var sideTop [4]float32
	if surf != nil {
		sideTop = surf.SideTop
	}
	f.WallTop = wallTop(sc.BorderFloor(), h, f.Walls, sideTop, surf != nil)
	return f, nil
}

// WallRim is how far the walls' glass rim rises above the highest floor along the
// domain's border (scene.BorderFloor), as a share of the domain's height: low, so that it
// frames the liquid at the sides without hiding the scene.
const WallRim = 0.1

// wallTop is the walls' glass rim's top, m: WallRim h above the border's highest floor,
// and where the liquid stands higher against a walled side (sideTop, the surface's
// Mesh.SideTop, when haveSide), the first step of WallRim h above that floor that rises
// half a step above the liquid; at most the domain's height h. The glass stood at the
// floor's rim only, so that the liquid held by a wall (the dam break's column) stood
// above it as a board with nothing beside it. Steps rather than the liquid's height
// itself: the rim does not move with every ripple of a clip.
func wallTop(floor, h float64, walls [4]bool, sideTop [4]float32, haveSide bool) float32 {
	step := WallRim * h
	top := floor + step
	for s, walled := range walls {
		if !walled || !haveSide || math.IsInf(float64(sideTop[s]), -1) || !(step > 0) {
			continue
		}
		need := float64(sideTop[s]) + step/2
		top = max(top, floor+step*math.Ceil((need-floor)/step))
	}
	return float32(min(top, h))
}

// DefaultDepthMax is the depth_max a Frame without one is drawn with: the surface's
// default (surface.DefaultSettings), 2 mm.
const DefaultDepthMax = 0.002 // m

// Mailbox passes the latest frame from the goroutine that builds it (the runner) to the
// one that draws it, without either waiting for the other: three frames rotate (the
// writer fills a spare, the reader holds one, one waits), so Publish never blocks on a
// draw and the reader always gets the newest. Once the frames have grown to the mesh's
// size, neither side allocates.
type Mailbox struct {
	mu     sync.Mutex
	latest *Frame // the newest complete frame, when fresh
	spare  *Frame // the writer's next buffer
	fresh  bool

	// Writer-only.
	seq     uint64
	topo    uint64
	lastIdx []uint32
}

// NewMailbox returns an empty mailbox.
func NewMailbox() *Mailbox {
	return &Mailbox{latest: &Frame{}, spare: &Frame{}}
}

// Publish copies f (its slices too: the caller may reuse them at once) into the mailbox;
// f's Topology and Seq are the mailbox's to set. It is called by one goroutine at a time.
func (mb *Mailbox) Publish(f Frame) {
	mb.seq++
	if !slices.Equal(mb.lastIdx, f.Indices) || mb.topo == 0 {
		mb.topo++
		mb.lastIdx = append(mb.lastIdx[:0], f.Indices...)
	}
	mb.mu.Lock()
	dst := mb.spare
	mb.spare = nil
	mb.mu.Unlock()

	dst.Time, dst.Box, dst.Color, dst.DepthMax, dst.Absorption = f.Time, f.Box, f.Color, f.DepthMax, f.Absorption
	dst.Terrain, dst.TerrainVersion = f.Terrain, f.TerrainVersion
	dst.Camera, dst.CameraVersion = f.Camera, f.CameraVersion
	dst.Walls, dst.WallTop, dst.SideIndex = f.Walls, f.WallTop, f.SideIndex
	dst.Positions = append(dst.Positions[:0], f.Positions...)
	dst.Normals = append(dst.Normals[:0], f.Normals...)
	dst.Opacity = append(dst.Opacity[:0], f.Opacity...)
	dst.Indices = append(dst.Indices[:0], f.Indices...)
	dst.BodyPositions = append(dst.BodyPositions[:0], f.BodyPositions...)
	dst.BodyNormals = append(dst.BodyNormals[:0], f.BodyNormals...)
	dst.BodyColors = append(dst.BodyColors[:0], f.BodyColors...)
	dst.BodyIndices = append(dst.BodyIndices[:0], f.BodyIndices...)
	dst.Sinks = append(dst.Sinks[:0], f.Sinks...)
	dst.Topology = mb.topo
	dst.Seq = mb.seq

	mb.mu.Lock()
	mb.spare, mb.latest = mb.latest, dst
	mb.fresh = true
	mb.mu.Unlock()
}

// Take returns the newest frame published since the last Take, swapping it with front
// (the frame the reader is done with, which becomes a buffer for the writer; nil the
// first time); ok is false, and front is returned unchanged, when nothing new came.
func (mb *Mailbox) Take(front *Frame) (f *Frame, ok bool) {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if !mb.fresh {
		return front, false
	}
	if front == nil {
		front = &Frame{}
	}
	f, mb.latest = mb.latest, front
	mb.fresh = false
	return f, true
}
