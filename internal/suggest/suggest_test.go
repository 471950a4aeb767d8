package suggest

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"until", "until", 0}, {"untill", "until", 1}, {"utnil", "until", 1}, {"rn", "run", 1}, {"abc", "", 3}, {"kitten", "sitting", 3}} {
		if d := Distance(c.a, c.b); d != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"run", "render", "check", "validate"}
	for _, c := range []struct {
		name, want string
		ok         bool
	}{{"rn", "run", true}, {"rendr", "render", true}, {"VALIDAT", "validate", true}, {"xyz", "", false}, {"chk", "", false}} {
		got, ok := Closest(c.name, names, strings.ToLower)
		if got != c.want || ok != c.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	if _, ok := Closest("VALIDAT", names, nil); ok {
		t.Error("without norm the case counts: VALIDAT is 8 changes from validate")
	}
}
