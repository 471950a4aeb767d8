package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/internal/clip"
	"github.com/vpbench/vpbench/internal/fileout"
	"github.com/vpbench/vpbench/preview"
	"github.com/vpbench/vpbench/scene"
)

// renderCommand is `vpbench render --at T [--png out.png] ... scenario.lua`: run the
// scenario headless to simulated time T and draw the preview's picture of that moment
// offscreen into a PNG; or, with --to, a clip (package clip): the pictures at simulated
// times A, A + 1/F, ..., so a clip is the same on every machine.
func renderCommand(ctx context.Context, p process, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vpbench render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f scenarioFlags
	f.register(fs)
	at := fs.Float64("at", 0, "simulated seconds to run before the picture")
	out := fs.String("png", "", "the picture's file: FILE.png (PNG) or FILE.jpg, FILE.jpeg (JPEG, quality 92); other extensions are refused (default: the scenario's name with .png, in the working folder)")
	from := fs.Float64("from", 0, "a clip's first picture, simulated seconds (with --to)")
	to := fs.Float64("to", 0, "a clip's last picture, simulated seconds: makes a clip of the pictures at --from, --from + 1/--fps, ... up to --to")
	fps := fs.Float64("fps", 30, "a clip's pictures a simulated second (the video plays them at this rate)")
	clipOut := fs.String("out", "", "what render writes: without --to, the picture, as --png (out.png or out.jpg); with --to, the clip: a video (clip.mp4, .mkv or .mov; clip.gif for an animated GIF; needs ffmpeg) or numbered pictures (frames/f_%04d.png)")
	width := fs.Int("width", 1280, "picture width, pixels")
	height := fs.Int("height", 720, "picture height, pixels")
	view := fs.String("view", "default", "camera preset: "+strings.Join(preview.Presets(), ", "))
	meniscus := fs.Bool("meniscus", true, "meniscus shading (false: plain surface normals, for comparison)")
	liquid := fs.String("liquid", "", "liquid colour, overriding the script's: water, blood, coffee or paint")
	var camFlags cameraFlags
	camFlags.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("vpbench render takes one scenario file, got %d", len(pos))
	}
	// --out is a clip with --to or --from, else the picture (as --png): a name that only
	// a clip can take (a video, numbered pictures) asks for --to.
	isClip := flagGiven(fs, "to") || flagGiven(fs, "from") ||
		flagGiven(fs, "out") && clip.CheckOut(*clipOut) == nil && (pictureFormat(*clipOut) == "" || strings.Contains(*clipOut, "%"))
	for _, v := range []struct {
		name string
		v    float64
	}{{"--at", *at}, {"--from", *from}, {"--to", *to}} {
		if math.IsNaN(v.v) || math.IsInf(v.v, 0) || v.v < 0 {
			return usagef("%s is %v: it must be a number of simulated seconds >= 0", v.name, v.v)
		}
	}
	if isClip {
		switch {
		case flagGiven(fs, "at") || flagGiven(fs, "png"):
			return usagef("--at and --png make a picture, --from and --to a clip (written to --out): give one or the other")
		case !flagGiven(fs, "to"):
			return usagef("a clip needs --to, its last picture's simulated time")
		case *to <= *from:
			return usagef("--to %g is not after --from %g", *to, *from)
		case math.IsNaN(*fps) || *fps <= 0 || *fps > 1000:
			return usagef("--fps is %v: it must be a number of pictures a simulated second in (0, 1000]", *fps)
		case (*to-*from)**fps > 100000:
			return usagef("--from %g --to %g at --fps %g is %.0f pictures: at most 100,000", *from, *to, *fps, (*to-*from)**fps)
		}
		if err := clip.CheckOut(*clipOut); err != nil {
			return usagef("%v", err)
		}
	}
	png := *out
	if !isClip {
		if flagGiven(fs, "out") {
			if flagGiven(fs, "png") {
				return usagef("--png %q and --out %q both name the picture: give one", *out, *clipOut)
			}
			png = *clipOut
		}
		if png == "" && (flagGiven(fs, "png") || flagGiven(fs, "out")) {
			return usagef("the picture's file name is empty: give FILE.png or FILE.jpg")
		}
		if png != "" && pictureFormat(png) == "" {
			flagName := "--png"
			if flagGiven(fs, "out") {
				flagName = "--out"
			}
			return usagef("%s %q: a picture is written as PNG (FILE.png) or JPEG (FILE.jpg, FILE.jpeg); %q names neither", flagName, png, filepath.Ext(png))
		}
	}
	if *width < 16 || *height < 16 || *width > 8192 || *height > 8192 {
		return usagef("--width and --height are %d and %d: each must be in [16, 8192]", *width, *height)
	}
	if _, err := preview.PresetCamera(*view, preview.Box{}); err != nil {
		return usagef("--view: %v", err)
	}
	userCam, haveUserCam, err := camFlags.camera(func(name string) bool { return flagGiven(fs, name) })
	if err != nil {
		return err
	}
	if *liquid != "" {
		if _, err := scene.NamedLiquid(*liquid); err != nil {
			return usagef("--liquid %q: want %s", *liquid, scene.LiquidNames())
		}
	}
	path := pos[0]
	if p.host == nil {
		return fmt.Errorf("vpbench render: %v", preview.ErrNotServing)
	}
	pm := &pictureMaker{host: p.host, view: *view, width: *width, height: *height, meniscus: *meniscus, liquid: *liquid, viewGiven: flagGiven(fs, "view")}
	if haveUserCam {
		pm.userCam = &userCam
	}
	if isClip {
		return renderClip(ctx, path, f, pm, *from, *to, *fps, *clipOut, stdout, stderr)
	}
	if png == "" {
		png = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + ".png"
	}
	// The run loop takes the scenario to --at (the first step boundary at or after it;
	// at 0 it takes no step) and draws the picture there, before the scenario closes.
	until := *at
	if until == 0 {
		until = math.SmallestNonzeroFloat64 // reached at t = 0: no step
	}
	draw := func(sc *scene.Scene) error {
		img, err := pm.picture(sc)
		if err != nil {
			return err
		}
		if err := writePicture(png, img); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: t = %.3f s, %d liquid triangles; surface %.1f ms, render %.1f ms (%dx%d, offscreen); wrote %s\n",
			sc.Name(), sc.Time(), pm.triangles, float64(pm.lastSurface)/1e6, float64(pm.lastRender)/1e6, *width, *height, png)
		return nil
	}
	cfg := engine.Config{Path: path, Script: f.options(nil), Until: until, Speed: engine.Speed{Max: true},
		Headless: true, NoMap: true, Shooter: pm.host, Final: draw}
	res := runHeadless(ctx, cfg, stdout, nil)
	if res.Err == nil && res.State.Status == engine.StatusFinished && res.State.Time < *at {
		fmt.Fprintf(stderr, "%s: main returned at t = %.3f s, before --at %g: the picture shows that moment\n", filepath.Base(path), res.State.Time, *at)
	}
	return res.Err
}

// pictureFormat is the format a picture's file name asks for by its extension, any
// case: "png" (.png) or "jpeg" (.jpg, .jpeg); "" for any other.
func pictureFormat(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png":
		return "png"
	case ".jpg", ".jpeg":
		return "jpeg"
	}
	return ""
}

// jpegQuality is the quality of render's JPEG pictures, on image/jpeg's scale of 1 to
// 100.
const jpegQuality = 92

// writePicture writes img to path in the format its extension names (pictureFormat,
// checked with the command line), replacing the file only once it is complete.
func writePicture(path string, img image.Image) error {
	switch pictureFormat(path) {
	case "png":
		return preview.WritePNG(path, img)
	case "jpeg":
		return fileout.Write(path, func(w io.Writer) error {
			return jpeg.Encode(w, img, &jpeg.Options{Quality: jpegQuality})
		})
	}
	return fmt.Errorf("%s: a picture is written as PNG (.png) or JPEG (.jpg, .jpeg)", path)
}

// pictureMaker draws the preview's picture of a scenario's state: the camera fitted to
// the scene once (the first picture's terrain), so that a clip's view holds still.
type pictureMaker struct {
	host          *preview.Host // draws the pictures
	view          string
	width, height int
	meniscus      bool
	liquid        string
	userCam       *scene.Camera // --eye, --target, --fov; nil: none
	viewGiven     bool          // --view was given: it wins over the script's sim:camera

	cam     preview.Camera
	haveCam bool
	// The last picture's figures.
	triangles               int
	lastSurface, lastRender time.Duration
}

func (p *pictureMaker) picture(sc *scene.Scene) (*image.RGBA, error) {
	if p.liquid != "" { // --liquid overrides the script's, for every picture
		l, err := scene.NamedLiquid(p.liquid)
		if err != nil {
			return nil, err
		}
		if _, err := sc.Change(func(st *scene.Settings) { st.Liquid = l.WithLook(st.Liquid) }); err != nil {
			return nil, err
		}
	}
	if c, err := renderCamera(sc, p.userCam, p.viewGiven); err != nil {
		return nil, err
	} else if c != nil { // --eye, or the script's camera (which may move from one picture to the next)
		p.cam, p.haveCam = *c, false
	} else if !p.haveCam {
		// The camera frames the terrain (the liquid lies on it) for the picture's aspect.
		sx, sy, h := sc.Extent()
		tm, _, err := sc.TerrainMesh()
		if err != nil {
			return nil, err
		}
		p.cam, _ = preview.FrameCamera(p.view, &preview.Frame{Box: preview.Box{Max: [3]float64{sx, sy, h}}, Terrain: tm},
			float64(p.width)/float64(p.height))
		p.haveCam = true
	}
	eye := p.cam.Eye()
	sc.SetView(scene.View{Eye: &eye, Meniscus: &p.meniscus})
	t0 := time.Now()
	m, err := sc.BuildSurface()
	if err != nil {
		return nil, err
	}
	p.lastSurface = time.Since(t0)
	p.triangles = m.NumTriangles()
	fr, err := preview.FrameOf(sc, m)
	if err != nil {
		return nil, err
	}
	img, took, err := p.host.Render(&fr, p.cam, p.width, p.height, preview.RenderOptions{})
	p.lastRender = took
	return img, err
}

// renderClip runs the scenario to --to, one frame a step, and draws the picture due at
// from + k/fps at the first step boundary at or after it, into out.
func renderClip(ctx context.Context, path string, f scenarioFlags, pm *pictureMaker, from, to, fps float64, out string, stdout, stderr io.Writer) error {
	w, err := clip.New(ctx, out, pm.width, pm.height, fps)
	if err != nil {
		return err
	}
	n := int(math.Floor((to-from)*fps+1e-9)) + 1 // pictures k = 0 .. n-1
	const tol = 1e-9
	k := 0
	var renderSum, surfSum time.Duration
	var drawn int
	onFrame := func(sc *scene.Scene) error {
		t := sc.Time()
		if k >= n || t < from+float64(k)/fps-tol {
			return nil
		}
		img, err := pm.picture(sc)
		if err != nil {
			return err
		}
		drawn++
		renderSum += pm.lastRender
		surfSum += pm.lastSurface
		// Every picture due by now shows this state (steps longer than 1/fps repeat it).
		for ; k < n && t >= from+float64(k)/fps-tol; k++ {
			if err := w.Write(img); err != nil {
				return err
			}
		}
		return nil
	}
	prog := newProgress(stderr, stdout, to, 0)
	cfg := engine.Config{Path: path, Script: f.options(nil), Until: to, FrameSteps: 1, Speed: engine.Speed{Max: true},
		Headless: true, NoMap: true, Shooter: pm.host, OnFrame: onFrame}
	res := runHeadless(ctx, cfg, stdout, prog)
	prog.finish()
	if res.Err != nil || k < n {
		if cerr := w.Close(res.Err != nil || ctx.Err() != nil); cerr != nil && res.Err == nil {
			return cerr
		}
		if res.Err != nil {
			return res.Err
		}
		if ctx.Err() != nil {
			return nil
		}
		fmt.Fprintf(stderr, "%s: the run ended at t = %.3f s, before --to %g: the clip has %d of its %d pictures\n",
			filepath.Base(path), res.State.Time, to, k, n)
		return nil
	}
	if err := w.Close(false); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d pictures, t = %g to %g s at %g a second (%dx%d); surface %.1f ms, render %.1f ms a picture; wrote %s\n",
		filepath.Base(path), n, from, to, fps, pm.width, pm.height,
		float64(surfSum)/1e6/float64(max(drawn, 1)), float64(renderSum)/1e6/float64(max(drawn, 1)), out)
	return nil
}
