package scene

import (
	"fmt"
	"sort"
	"strings"
)

// Liquid is how the liquid looks: its colour and how fast it absorbs light.
type Liquid struct {
	// Name is a name of LiquidColors, or "custom" for a colour given as numbers.
	Name string
	// Color is the liquid's colour, sRGB in [0, 1].
	Color [3]float32
	// Absorption is the liquid's extinction per channel (red, green, blue), 1/m: light
	// through a depth d keeps exp(-a d) of each channel. Zero: the preview derives it
	// from the colour.
	Absorption [3]float32
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
// red). Water, coffee and paint keep the rates their colours gave before (the preview's
// colour rule, capped at 4/mm): real water is clear over millimetres, and a tint is what
// makes a few millimetres of it read as liquid.
var LiquidAbsorptions = map[string][3]float32{
	"water":  {1160, 320, 140},
	"blood":  {400, 24000, 15000},
	"coffee": {1800, 3000, 4000},
	"paint":  {120, 500, 4000},
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
	return Liquid{Name: name, Color: rgb, Absorption: LiquidAbsorptions[name]}, nil
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
// extinction outside [0, MaxAbsorption].
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
	return nil
}
