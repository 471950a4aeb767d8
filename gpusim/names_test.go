package gpusim

import (
	"strings"
	"testing"
)

// TestNamesIgnoreCase: every enumerated setting's parser takes its names in any case
// ("SWE", "Swe"), String writes the canonical lower-case name, and a bad name's error
// quotes it as given and lists the canonical names.
func TestNamesIgnoreCase(t *testing.T) {
	parse := map[string]func(string) (string, error){
		"method": func(s string) (string, error) { v, err := ParseMethod(s); return v.String(), err },
		"cross_section": func(s string) (string, error) {
			v, err := ParseCrossSection(s)
			return v.String(), err
		},
		"extended_pipes": func(s string) (string, error) {
			v, err := ParseExtendedPipes(s)
			return v.String(), err
		},
		"falling": func(s string) (string, error) { v, err := ParseFalling(s); return v.String(), err },
		"side":    func(s string) (string, error) { v, err := ParseSide(s); return v.String(), err },
	}
	tables := map[string][]string{"method": MethodNames, "cross_section": CrossSectionNames,
		"extended_pipes": ExtendedPipesNames, "falling": FallingNames, "side": SideValueNames}
	for field, names := range tables {
		for _, n := range names {
			if n != strings.ToLower(n) {
				t.Errorf("%s's name %q is not lower-case", field, n)
			}
			for _, variant := range []string{n, strings.ToUpper(n), strings.ToUpper(n[:1]) + n[1:]} {
				got, err := parse[field](variant)
				if err != nil || got != n {
					t.Errorf("%s %q: got %q, %v; want %q", field, variant, got, err, n)
				}
				if c, ok := CanonicalName(names, variant); !ok || c != n {
					t.Errorf("CanonicalName(%s, %q) = %q, %v; want %q", field, variant, c, ok, n)
				}
			}
		}
		_, err := parse[field]("Bogus")
		if err == nil {
			t.Fatalf("%s \"Bogus\" accepted", field)
		}
		if msg := err.Error(); !strings.Contains(msg, `"Bogus"`) || !strings.Contains(msg, WantNames(names)) {
			t.Errorf("%s \"Bogus\": error %q does not quote the value and list %s", field, msg, WantNames(names))
		}
	}
	for _, s := range []string{"WALL", "Wall", "wall"} {
		if v, err := ParseSide(s); err != nil || v != SideWall {
			t.Errorf("ParseSide(%q) = %v, %v; want walls", s, v, err)
		}
	}
	// Only ASCII letters fold: a long s (U+017F), which Unicode folds to s, is no s here;
	// nor does an alias stand for a name of another setting.
	for _, s := range []string{"\u017fwe", "sw", "swe ", ""} {
		if _, err := ParseMethod(s); err == nil {
			t.Errorf("ParseMethod(%q) accepted", s)
		}
		if _, ok := CanonicalName(MethodNames, s); ok {
			t.Errorf("CanonicalName(MethodNames, %q) accepted", s)
		}
	}
	if _, err := ParseFalling("wall"); err == nil {
		t.Error(`ParseFalling("wall") accepted`)
	}
}
