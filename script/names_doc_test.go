package script

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/scene"
)

// TestEnumNamesDocumented: docs/scripting.md's settings table names exactly the names the
// parser takes for each enumerated setting (the scene's name tables), no more, no fewer.
func TestEnumNamesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/scripting.md")
	if err != nil {
		t.Fatal(err)
	}
	quoted := regexp.MustCompile("`\"([a-z_]+)\"`")
	for _, c := range []struct {
		field string
		names []string
	}{
		{"method", scene.MethodNames},
		{"cross_section", scene.CrossSectionNames},
		{"extended_pipes", scene.ExtendedPipesNames},
		{"falling", scene.FallingNames},
		{"sides", scene.SideValueNames},
	} {
		var row string
		for _, line := range strings.Split(string(doc), "\n") {
			if strings.HasPrefix(line, "| `"+c.field+"` |") {
				row = line
				break
			}
		}
		if row == "" {
			t.Errorf("docs/scripting.md: no row for %s", c.field)
			continue
		}
		var got []string
		for _, m := range quoted.FindAllStringSubmatch(row, -1) {
			if !slices.Contains(got, m[1]) {
				got = append(got, m[1])
			}
		}
		want := slices.Clone(c.names)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("docs/scripting.md's %s row names %q; the parser takes %q", c.field, got, want)
		}
	}
}
