package script

import (
	"fmt"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/surface"
	"github.com/vpbench/vpbench/terrain"
)

// What the preview reads of a scenario: the terrain mesh, the liquid's colour, the
// surface settings, and the sim:screenshot hook (Options.Screenshot). The script package
// does no drawing itself (no OpenGL here): the command gives it a renderer.

// LiquidColors are the named liquid colours of sim:set{liquid = name}: sRGB in [0, 1].
var LiquidColors = map[string][3]float32{
	"water":  {0.55, 0.74, 0.92},
	"blood":  {0.55, 0.02, 0.03},
	"coffee": {0.33, 0.19, 0.09},
	"paint":  {0.93, 0.68, 0.10},
}

// LiquidAbsorptions are the named liquids' extinctions (red, green, blue), 1/m: light
// through a depth d keeps exp(-a d) of each channel (the preview's Beer-Lambert
// shading). Blood's are whole blood's absorption near 620, 540 and 470 nm (about 0.4,
// 24 and 15 per mm: haemoglobin takes green and blue away within a few hundredths of a
// millimetre, so even a thin film reads red while the terrain still shows through in
// red). Water, coffee and paint keep the rates their colours gave before (the preview's
// colour rule, capped at 4/mm): real water is clear over millimetres, and a tint is what
// makes a few millimetres of it read as liquid.
var LiquidAbsorptions = map[string][3]float32{
	"water":  {1160, 320, 140},
	"blood":  {400, 24000, 15000},
	"coffee": {1800, 3000, 4000},
	"paint":  {120, 500, 4000},
}

// maxAbsorption bounds sim:set's absorption, 1/m: beyond it a micron absorbs everything.
const maxAbsorption = 1e7

// DefaultLiquid is the liquid of a scenario that names none.
const DefaultLiquid = "water"

// previewState is the preview's part of the scenario.
type previewState struct {
	liquid  string     // a name of LiquidColors, or "custom"
	color   [3]float32 // its colour
	colorOK bool       // set (else DefaultLiquid)
	// absorption is the liquid's extinction, 1/m (LiquidAbsorptions for a named liquid,
	// sim:set's absorption); zero: the preview derives it from the colour.
	absorption [3]float32
}

// LiquidColor is the liquid's colour (sRGB in [0, 1]) and its name ("custom" for an
// {r, g, b} table). Runner goroutine only.
func (s *Scenario) LiquidColor() (rgb [3]float32, name string) {
	if !s.surf.preview.colorOK {
		return LiquidColors[DefaultLiquid], DefaultLiquid
	}
	return s.surf.preview.color, s.surf.preview.liquid
}

// LiquidAbsorption is the liquid's extinction per channel (red, green, blue), 1/m; zero
// when the scenario gives a custom colour and no absorption (the preview derives one
// from the colour). Runner goroutine only.
func (s *Scenario) LiquidAbsorption() [3]float32 {
	if !s.surf.preview.colorOK {
		return LiquidAbsorptions[DefaultLiquid]
	}
	return s.surf.preview.absorption
}

// SetLiquid sets the liquid's colour by name (see LiquidColors).
func (s *Scenario) SetLiquid(name string) error {
	rgb, ok := LiquidColors[name]
	if !ok {
		return fmt.Errorf("liquid %q: want one of %s, or an {r, g, b} table of numbers in [0, 1]", name, liquidNames())
	}
	s.surf.preview = previewState{liquid: name, color: rgb, colorOK: true, absorption: LiquidAbsorptions[name]}
	return nil
}

func liquidNames() string {
	names := make([]string, 0, len(LiquidColors))
	for k := range LiquidColors {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// parseLiquid reads sim:set's liquid key (a name or an {r, g, b} table) and absorption
// key (an {r, g, b} table of extinctions, 1/m) over the current liquid; nil when both are
// absent. A named liquid brings its absorption, a custom colour none (derived from the
// colour) unless absorption is given too. It changes nothing: the caller applies it
// once every key has been checked.
func (s *Scenario) parseLiquid(c call, t *lua.LTable) *previewState {
	st := s.parseLiquidColor(c, t)
	a, ok := t.RawGetString("absorption").(*lua.LTable)
	if !ok {
		if v := t.RawGetString("absorption"); v != lua.LNil {
			c.fail("absorption is %s: want an {r, g, b} table of extinctions in 1/m (blood: {400, 24000, 15000})", typeName(v))
		}
		return st
	}
	if st == nil {
		cur := s.surf.preview
		if !cur.colorOK {
			cur = previewState{liquid: DefaultLiquid, color: LiquidColors[DefaultLiquid], colorOK: true}
		}
		st = &cur
	}
	for i, x := range c.vecValue("absorption", a, 3) {
		if !(x >= 0 && x <= maxAbsorption) {
			c.fail("absorption[%d] is %s: each extinction must lie in [0, %g] 1/m", i+1, fmtNum(x), maxAbsorption)
		}
		st.absorption[i] = float32(x)
	}
	return st
}

// parseLiquidColor reads the liquid key alone; nil when it is absent.
func (s *Scenario) parseLiquidColor(c call, t *lua.LTable) *previewState {
	switch v := t.RawGetString("liquid").(type) {
	case *lua.LNilType:
	case lua.LString:
		rgb, ok := LiquidColors[string(v)]
		if !ok {
			c.fail("liquid %q: want one of %s, or an {r, g, b} table of numbers in [0, 1]", string(v), liquidNames())
		}
		return &previewState{liquid: string(v), color: rgb, colorOK: true, absorption: LiquidAbsorptions[string(v)]}
	case *lua.LTable:
		rgb := c.vecValue("liquid", v, 3)
		var col [3]float32
		for i, x := range rgb {
			if !(x >= 0 && x <= 1) {
				c.fail("liquid[%d] is %s: each of r, g, b must lie in [0, 1]", i+1, fmtNum(x))
			}
			col[i] = float32(x)
		}
		return &previewState{liquid: "custom", color: col, colorOK: true}
	default:
		c.fail("liquid is %s: want a name (%s) or an {r, g, b} table", typeName(v), liquidNames())
	}
	return nil
}

// TerrainMesh is the terrain's triangle mesh (made with the surface builder) and a
// version that changes whenever the terrain does. Runner goroutine only.
func (s *Scenario) TerrainMesh() (*terrain.Mesh, int, error) {
	if _, err := s.SurfaceBuilder(); err != nil {
		return nil, 0, err
	}
	return s.surf.mesh, s.surf.version, nil
}

// SurfaceSettings are the liquid surface's settings (sim:set's surface keys).
func (s *Scenario) SurfaceSettings() surface.Settings { return s.surf.settings }

// SetSurfaceSettings changes the surface settings (the preview's meniscus switch and
// camera, `vpbench render --meniscus=false`). Runner goroutine only.
func (s *Scenario) SetSurfaceSettings(st surface.Settings) error {
	if err := st.Validate(); err != nil {
		return err
	}
	s.surf.settings = st
	if s.surf.builder != nil {
		return s.surf.builder.SetSettings(st)
	}
	return nil
}

// Extent is the simulation domain: the grid's size in x and y and its height, m.
func (s *Scenario) Extent() (sx, sy, h float64) {
	if s.sim == nil {
		return 0, 0, 0
	}
	c := s.sim.Columns()
	return float64(c.Nx) * c.Dx, float64(c.Ny) * c.Dx, c.Height
}

// screenshot is sim:screenshot(path).
func (s *Scenario) screenshot(c call) {
	c.ensureSim()
	path := c.L.CheckString(2)
	if err := safeOutputPath(path); err != nil {
		c.fail("%v", err)
	}
	if !strings.EqualFold(path[max(0, len(path)-4):], ".png") {
		c.fail("%q: screenshots are PNG files (the name must end in .png)", path)
	}
	if s.opt.Screenshot == nil {
		c.fail("screenshots need the preview, which this program does not provide: run the scenario with vpbench (run, render or the UI), which renders offscreen when no window is open")
	}
	resume := s.pauseWatchdog() // rendering is Go work, not the script's
	err := s.opt.Screenshot(s, path)
	resume()
	if err != nil {
		c.fail("%v", err)
	}
}
