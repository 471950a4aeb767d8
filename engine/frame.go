package engine

import (
	"errors"
	"fmt"
	"image"
	"time"

	"github.com/vpbench/vpbench/internal/meshio"
	"github.com/vpbench/vpbench/preview"
	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/surface"
)

// frameDone is what a frame did: the figures the runner's parts are fed after it (the
// clocks, the window, the pacer, the timeline, the checkpointer and the recorder).
type frameDone struct {
	Time    float64 // simulated time at the frame's end, s
	Covered float64 // simulated time the frame covered, s
	Steps   int64   // solver steps it took
	// Sim is the solver's wall time, Waves the wave particles', Surf the surface's.
	Sim, Waves, Surf time.Duration
	// Region is the 3D region's share of Sim over RegionSteps of its steps (0: none
	// stepped).
	Region      time.Duration
	RegionSteps int64
}

// Export writes the liquid surface every so many frames (`--export-every`).
type Export struct {
	Every  int    // frames between two meshes (0: never)
	Dir    string // folder of the numbered meshes
	Format string // "obj", "ply" (binary) or "ply-ascii" (meshio.Names)
}

// Validate checks the export settings, naming the flag at fault.
func (e Export) Validate() error {
	if e.Every < 0 {
		return fmt.Errorf("--export-every is %d: it must be >= 0", e.Every)
	}
	if _, err := meshio.ParseFormat(e.Format); err != nil {
		return fmt.Errorf("--export-format is %q: want \"obj\", \"ply\" (binary, with opacity) or \"ply-ascii\"", e.Format)
	}
	return nil
}

// Shooter renders a frame of the preview to a PNG file (sim:screenshot): the window's
// camera and size when a window shows src, the default view otherwise. preview.Host is
// one; it returns the render time for Table 1.
type Shooter interface {
	RenderPNG(src *preview.Source, f *preview.Frame, path string) (time.Duration, error)
	// RenderImage draws f the same way at width x height (0: the window's size, or
	// 1280 x 720), for a recording.
	RenderImage(src *preview.Source, f *preview.Frame, width, height int) (*image.RGBA, time.Duration, error)
}

// view carries what a preview window asks of the surface into the scene: the camera
// position (the convex-meniscus cap) and the meniscus switch (the window's M key). The
// scenario's own settings stay as they are (scene.View).
func setView(src *preview.Source, sc *scene.Scene) {
	v := scene.View{Eye: src.Eye()}
	if on, set := src.MeniscusOverride(); set {
		v.Meniscus = &on
	}
	sc.SetView(v)
}

// frameWork is what a frame does after its steps: build the liquid surface (Table 1's
// surface column), hand it to the preview while a window or a screenshot wants it, and
// write it out every Export.Every frames.
type frameWork struct {
	surface bool
	overlap bool // Config.Overlap, where the run allows it (Runner.step)
	rule    overlapRule
	allowed bool // the last do's frame could overlap: the rule learns from its times
	// overlapped counts the frames whose surface was built beside the next frame's steps.
	overlapped int
	// late is the build time of the last frame's surface when this frame, in step, took
	// it (the overlap just went off): Table 1 counts it as that frame's.
	late    time.Duration
	export  Export
	src     *preview.Source  // nil: no preview
	builder *surface.Builder // the builder of the last frame (a new one is prepared untimed)
	prep    time.Duration    // the last do's one-time preparation, left out of the frame's total
	terrain terrainExport    // the terrain files --export-every wrote (export.go)
}

// do runs the work of frame number frame. It returns the surface's duration (0: none
// built). The terrain mesh and minimum heights are prepared once (again after a terrain
// change) before the clock starts: Table 1's surface column is the per-frame work.
func (w *frameWork) do(sc *scene.Scene, frame int) (time.Duration, error) {
	w.prep, w.late = 0, 0
	wanted := w.src != nil && w.src.Wanted()
	export := w.export.Every > 0 && frame%w.export.Every == 0
	allowed := w.overlap && (w.surface || wanted) && !export && !(wanted && sc.BodyCount() > 0)
	w.allowed = allowed
	if sc.SetOverlap(allowed && w.rule.overlap()) {
		return w.beside(sc, wanted)
	}
	// A surface still in flight (the overlap just went off) is the last frame's.
	late, err := w.finish(sc, wanted)
	w.late = late
	if err != nil || !w.surface && !wanted {
		return 0, err
	}
	t0 := time.Now()
	b, err := sc.SurfaceBuilder()
	if err != nil {
		return 0, err
	}
	if b != w.builder { // prepared now
		w.builder, w.prep = b, time.Since(t0)
	}
	if export {
		sc.Sync() // the file is named for this frame: its steps, not the pipelined previous ones
	}
	if wanted {
		setView(w.src, sc)
	}
	t0 = time.Now()
	m, err := sc.BuildSurface()
	d := time.Since(t0)
	if err != nil {
		return d, err
	}
	if wanted {
		f, err := preview.FrameOf(sc, m)
		if err != nil {
			return d, err
		}
		w.src.Publish(f)
	}
	if export {
		if err := w.exportFrame(sc, frame, m); err != nil {
			return d, fmt.Errorf("--export-every: %w", err)
		}
	}
	return d, nil
}

// beside is do with the overlap on: it takes the last frame's surface (its build
// ran beside this frame's steps), hands it to the window, and starts this frame's. It
// returns the build time of the surface taken (0: none, the first frame).
func (w *frameWork) beside(sc *scene.Scene, wanted bool) (time.Duration, error) {
	w.overlapped++
	d, err := w.finish(sc, wanted)
	if err != nil {
		return d, err
	}
	t0 := time.Now()
	b, err := sc.SurfaceBuilder()
	if err != nil {
		return d, err
	}
	if b != w.builder { // prepared now
		w.builder, w.prep = b, time.Since(t0)
	}
	if wanted {
		setView(w.src, sc)
	}
	return d, sc.StartSurface()
}

// finish takes the surface in flight, if any, and hands it to the window; it returns
// its build time. The frame is the surface's: its time is the state's it was built from
// (the window's other parts, the terrain and the settings, are the same one frame on;
// frames with bodies are not overlapped).
func (w *frameWork) finish(sc *scene.Scene, wanted bool) (time.Duration, error) {
	m, d, at, ok := sc.FinishSurface()
	if !ok || !wanted {
		return d, nil
	}
	f, err := preview.FrameOf(sc, m)
	if err != nil {
		return d, err
	}
	f.Time = at
	w.src.Publish(f)
	return d, nil
}

// screenshot is sim:screenshot's hook: the preview's view of the current state, drawn
// by shooter. Its render time goes to Table 1 (record).
func (w *frameWork) screenshot(shooter Shooter, record func(time.Duration)) func(sc *scene.Scene, path string) error {
	return func(sc *scene.Scene, path string) error {
		if shooter == nil {
			return errors.New("screenshots need the preview host: run the scenario with vpbench run, vpbench render or the UI")
		}
		f, err := w.currentFrame(sc)
		if err != nil {
			return err
		}
		took, err := shooter.RenderPNG(w.src, &f, path)
		if err != nil {
			return err
		}
		record(took)
		return nil
	}
}

// currentFrame is the preview's frame of sc's state now, its surface built with the
// window's camera and meniscus switch (screenshots and recordings).
func (w *frameWork) currentFrame(sc *scene.Scene) (preview.Frame, error) {
	if w.src != nil {
		setView(w.src, sc)
	}
	m, err := sc.BuildSurface()
	if err != nil {
		return preview.Frame{}, err
	}
	return preview.FrameOf(sc, m)
}
