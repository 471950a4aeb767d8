package scene

import (
	"fmt"
	"sort"
	"strings"
)

// Liquid is the liquid: how it looks (its colour and how fast it absorbs light) and the
// properties its capillary physics reads (surface tension and density).
type Liquid struct {
	// Name is a name of LiquidColors, or "custom" for a colour given as numbers.
	Name string
	// Color is the liquid's colour, sRGB in [0, 1].
	Color [3]float32
	// Absorption is the liquid's extinction per channel (red, green, blue), 1/m: light
	// through a depth d keeps exp(-a d) of each channel. Zero: the preview derives it
	// from the colour.
	Absorption [3]float32
	// SurfaceTension is sigma, N/m; Density is rho, kg/m^3. They act when capillarity is
	// on (Settings.Capillarity): the solver's capillary length is sqrt(sigma / (rho g)).
	SurfaceTension, Density float64
}

// LiquidProperties are the named liquids' surface tension (N/m) and density (kg/m^3):
// water at 20 C; whole blood (about 0.056 N/m, 1060 kg/m^3); black coffee (its
// dissolved solids lower water's tension a little); paint is a water-based acrylic
// (surfactants bring it down to about 0.040 N/m; pigments make it about 1.3 times as
// dense as water).
var LiquidProperties = map[string][2]float64{
	"water":  {0.072, 1000},
	"blood":  {0.056, 1060},
	"coffee": {0.065, 1000},
	"paint":  {0.040, 1300},
}

// WithLook is other with l's look (its name, colour and absorption) and its own surface
// tension and density: vpbench render --liquid changes the picture, not the physics.
func (l Liquid) WithLook(other Liquid) Liquid {
	other.Name, other.Color, other.Absorption = l.Name, l.Color, l.Absorption
	return other
}

// LiquidColors are the named liquids' colours: sRGB in [0, 1].
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
// red). Paint is opaque: its pigment scatters light out of a wet film within a few
// hundredths of a millimetre (a coat of 50 microns hides what it covers), the same in
// every channel, so its colour is its body colour and what lies under it is gone by
// 0.05 mm (26/mm: exp(-3) along the default view's path of 2.3 d). Its old rates (0.12,
// 0.5, 4 per mm, from its colour) let a 0.1 mm coat show the rock through it as a pale
// yellow glaze, which a thin film on a slope broke into specks where it thinned.
// Water and coffee keep the rates their colours gave before (the preview's colour rule,
// capped at 4/mm): real water is clear over millimetres, and a tint is what makes a few
// millimetres of it read as liquid.
var LiquidAbsorptions = map[string][3]float32{
	"water":  {1160, 320, 140},
	"blood":  {400, 24000, 15000},
	"coffee": {1800, 3000, 4000},
	"paint":  {26000, 26000, 26000},
}

// MaxAbsorption bounds an extinction, 1/m: beyond it a micron absorbs everything.
const MaxAbsorption = 1e7

// DefaultLiquidName is the liquid of a scenario that names none.
const DefaultLiquidName = "water"

// DefaultLiquid is the liquid of a scenario that names none: water.
func DefaultLiquid() Liquid {
	l, _ := NamedLiquid(DefaultLiquidName)
	return l
}

// NamedLiquid is the liquid called name (LiquidColors), with its absorption.
func NamedLiquid(name string) (Liquid, error) {
	rgb, ok := LiquidColors[name]
	if !ok {
		return Liquid{}, fmt.Errorf("liquid %q: want one of %s, or an {r, g, b} table of numbers in [0, 1]", name, LiquidNames())
	}
	ph := LiquidProperties[name]
	return Liquid{Name: name, Color: rgb, Absorption: LiquidAbsorptions[name], SurfaceTension: ph[0], Density: ph[1]}, nil
}

// LiquidNames lists the named liquids, sorted and comma-separated.
func LiquidNames() string {
	names := make([]string, 0, len(LiquidColors))
	for k := range LiquidColors {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Validate names the first value out of range: a colour channel outside [0, 1], an
// extinction outside [0, MaxAbsorption], a surface tension or a density out of range.
func (l Liquid) Validate() error {
	for i, x := range l.Color {
		if !(x >= 0 && x <= 1) {
			return fmt.Errorf("liquid[%d] is %g: each of r, g, b must lie in [0, 1]", i+1, x)
		}
	}
	for i, x := range l.Absorption {
		if !(x >= 0 && x <= MaxAbsorption) {
			return fmt.Errorf("absorption[%d] is %g: each extinction must lie in [0, %g] 1/m", i+1, x, float64(MaxAbsorption))
		}
	}
	if !(l.SurfaceTension >= 0 && l.SurfaceTension <= 10) {
		return fmt.Errorf("surface_tension is %g: it must be in [0, 10] N/m (water 0.072)", l.SurfaceTension)
	}
	if !(l.Density > 0 && l.Density <= 1e5) {
		return fmt.Errorf("density is %g: it must be in (0, 1e5] kg/m^3 (water 1000)", l.Density)
	}
	return nil
}
