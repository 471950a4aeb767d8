package script

import (
	"strings"
	"testing"

	didyoumean "github.com/vpbench/vpbench/internal/suggest"
)

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"viscosity", "viscosity", 0},
		{"viscocity", "viscosity", 1}, // a substitution
		{"viscoity", "viscosity", 1},  // an insertion
		{"vsicosity", "viscosity", 1}, // a transposition
		{"spere", "sphere", 1}, {"raduis", "radius", 1}, {"visc", "viscosity", 5},
	} {
		if d := didyoumean.Distance(c.a, c.b); d != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
		if d := didyoumean.Distance(c.b, c.a); d != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.b, c.a, d, c.d)
		}
	}
	if got := suggest("at", []string{"fn", "radius"}); got != "" {
		t.Errorf("suggest(at) = %q: a short name far from every field gets no suggestion", got)
	}
	if got := suggest("Surface_Tension", []string{"viscosity", "surface_tension"}); got != " (did you mean surface_tension?)" {
		t.Errorf("case variant: %q", got)
	}
}

// TestNearMissSuggestions: a misspelt field, function or method names what was meant,
// at the script line, and a place given in millimetres is told that lengths are metres.
func TestNearMissSuggestions(t *testing.T) {
	const file = "near.lua"
	sim := "local sim = vp.sim{ size = {0.1, 0.1}, height = 0.05, dx = 0.002, layers = 1 }\n"
	for _, c := range []struct {
		name, src string
		line      int
		parts     []string
	}{
		{"vp.sim field", "local sim = vp.sim{ size = {0.1, 0.1}, dx = 0.002, viscocity = 1e-6 }\n", 1,
			[]string{`vp.sim: unknown field "viscocity" (did you mean viscosity?)`}},
		{"sim:set field", sim + "sim:set{ viscocity = 1e-6 }\n", 2,
			[]string{`sim:set: unknown field "viscocity" (did you mean viscosity?)`}},
		{"sim:source field", sim + "sim:source{ at = {0.05, 0.05, 0.01}, raduis = 0.005, rate = 1e-6 }\n", 2,
			[]string{`sim:source: unknown field "raduis" (did you mean radius?)`}},
		{"two edits", sim + "sim:set{ vsicocity = 1e-6 }\n", 2,
			[]string{`unknown field "vsicocity" (did you mean viscosity?)`}},
		{"three edits: no guess", sim + "sim:set{ vsicocitty = 1e-6 }\n", 2,
			[]string{`unknown field "vsicocitty": allowed fields are`}},
		{"vp function", sim + "local b = vp.spere{ center = {0, 0, 0}, radius = 1 }\n", 2,
			[]string{"vp.spere: no such function in vp (did you mean vp.sphere?)"}},
		{"vp function, nothing near", sim + "vp.frobnicate()\n", 2,
			[]string{"vp.frobnicate: no such function in vp"}},
		{"sim method", sim + "sim:sorce{ at = {0.05, 0.05, 0.01}, rate = 1e-6 }\n", 2,
			[]string{"sim:sorce: no such method of sim (did you mean sim:source?)"}},
		{"solid method", sim + "local b = vp.sphere{ center = {0, 0, 0}, radius = 1 }:translte{0, 0, 1}\n", 2,
			[]string{"solid:translte: no such method of solid (did you mean solid:translate?)"}},
		{"source in millimetres", sim + "sim:source{ at = {50, 50, 30}, radius = 0.005, rate = 1e-6 }\n", 2,
			[]string{"sim:source: at = {50, 50, 30} is outside the 0.1 x 0.1 m domain: lengths are in metres"}},
		{"fill in millimetres", sim + "sim:fill{ at = {50, 50, 30}, level = 0.01 }\n", 2,
			[]string{"sim:fill: at = {50, 50, 30} is outside the 0.1 x 0.1 m domain: lengths are in metres"}},
		{"query in millimetres", sim + "print(sim:depth(50, 50))\n", 2,
			[]string{"sim:depth: (x, y) = (50, 50) is outside the domain [0, 0.1] x [0, 0.1]: lengths are in metres"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := LoadSource(file, []byte(c.src), Options{Workers: -1})
			if err == nil {
				s.Close()
			}
			e := wantError(t, err, file, c.line, c.parts...)
			if e != nil && strings.Contains(e.Msg, "non-function") {
				t.Errorf("Lua's own message leaks: %v", e)
			}
		})
	}
	// What the tables have is still there, and vp.version reads as before.
	s, err := LoadSource(file, []byte(sim+"assert(vp.version == '"+Version+"')\nassert(type(vp.sphere) == 'function')\nassert(type(sim.source) == 'function')\n"), Options{Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
