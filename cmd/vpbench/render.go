package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/preview"
	"github.com/vpbench/vpbench/script"
)

// renderCommand is `vpbench render --at T [--png out.png] ... scenario.lua`: run the
// scenario headless to simulated time T and draw the preview's picture of that moment
// offscreen into a PNG.
func renderCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vpbench render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f scenarioFlags
	f.register(fs)
	at := fs.Float64("at", 0, "simulated seconds to run before the picture")
	out := fs.String("png", "", "the picture's file (default: the scenario's name with .png, in the working folder)")
	width := fs.Int("width", 1280, "picture width, pixels")
	height := fs.Int("height", 720, "picture height, pixels")
	view := fs.String("view", "default", "camera preset: "+strings.Join(preview.Presets(), ", "))
	meniscus := fs.Bool("meniscus", true, "meniscus shading (false: plain surface normals, for comparison)")
	liquid := fs.String("liquid", "", "liquid colour, overriding the script's: water, blood, coffee or paint")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: vpbench render --at T [--png out.png] [--width W --height H] [--view preset] [--meniscus=false] [--param name=value]... scenario.lua\n\n"+
			"Runs a scenario headless to simulated time T and renders the preview's picture offscreen into a PNG.\n"+
			"Needs an X display for OpenGL; without DISPLAY it starts a private Xvfb when Xvfb is installed.\n\nflags:\n")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("vpbench render takes one scenario file, got %d", len(pos))
	}
	if math.IsNaN(*at) || math.IsInf(*at, 0) || *at < 0 {
		return usagef("--at is %v: it must be a number of simulated seconds >= 0", *at)
	}
	if *width < 16 || *height < 16 || *width > 8192 || *height > 8192 {
		return usagef("--width and --height are %d and %d: each must be in [16, 8192]", *width, *height)
	}
	if _, err := preview.PresetCamera(*view, preview.Box{}); err != nil {
		return usagef("--view: %v", err)
	}
	if *liquid != "" {
		if _, ok := script.LiquidColors[*liquid]; !ok {
			return usagef("--liquid %q: want water, blood, coffee or paint", *liquid)
		}
	}
	path := pos[0]
	png := *out
	if png == "" {
		png = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + ".png"
	}
	if previewHost == nil {
		return fmt.Errorf("vpbench render: %v", preview.ErrNotServing)
	}
	// The run loop takes the scenario to --at (the first step boundary at or after it;
	// at 0 it takes no step) and draws the picture there, before the scenario closes.
	until := *at
	if until == 0 {
		until = math.SmallestNonzeroFloat64 // reached at t = 0: no step
	}
	draw := func(sc *script.Scenario) error {
		if *liquid != "" {
			if err := sc.SetLiquid(*liquid); err != nil {
				return err
			}
		}
		// The camera frames the terrain (the liquid lies on it) for the picture's aspect.
		sx, sy, h := sc.Extent()
		tm, _, err := sc.TerrainMesh()
		if err != nil {
			return err
		}
		cam, _ := preview.FrameCamera(*view, &preview.Frame{Box: preview.Box{Max: [3]float64{sx, sy, h}}, Terrain: tm},
			float64(*width)/float64(*height))
		st := sc.SurfaceSettings()
		eye := cam.Eye()
		st.Camera, st.Meniscus = &eye, *meniscus
		if err := sc.SetSurfaceSettings(st); err != nil {
			return err
		}
		t0 := time.Now()
		m, err := sc.BuildSurface()
		if err != nil {
			return err
		}
		surf := time.Since(t0)
		fr, err := engine.FrameOf(sc, m)
		if err != nil {
			return err
		}
		img, took, err := previewHost.Render(&fr, cam, *width, *height, preview.RenderOptions{})
		if err != nil {
			return err
		}
		if err := preview.WritePNG(png, img); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: t = %.3f s, %d liquid triangles; surface %.1f ms, render %.1f ms (%dx%d, offscreen); wrote %s\n",
			sc.Name(), sc.Time(), m.NumTriangles(), float64(surf)/1e6, float64(took)/1e6, *width, *height, png)
		return nil
	}
	cfg := engine.Config{Path: path, Script: f.options(nil), Until: until, Speed: engine.Speed{Max: true},
		Headless: true, NoMap: true, Shooter: previewHost, Final: draw}
	res := runHeadless(ctx, cfg, stdout, nil)
	if res.Err == nil && res.State.Status == engine.StatusFinished && res.State.Time < *at {
		fmt.Fprintf(stderr, "%s: main returned at t = %.3f s, before --at %g: the picture shows that moment\n", filepath.Base(path), res.State.Time, *at)
	}
	return res.Err
}
