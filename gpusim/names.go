package gpusim

import (
	"fmt"
	"strconv"
	"strings"
)

// The enumerated settings' names: one table each, in the order of the values (value i is
// named names[i]), which String, the Parse functions, the script's parser (through the
// scene's aliases) and the command line's help all read, so that a name is written once.
var (
	// MethodNames are Method's names: "pipes", "swe".
	MethodNames = []string{"pipes", "swe"}
	// CrossSectionNames are CrossSection's names: "paper", "film".
	CrossSectionNames = []string{"paper", "film"}
	// ExtendedPipesNames are ExtendedPipes' names: "off", "axis", "unified".
	ExtendedPipesNames = []string{"off", "axis", "unified"}
	// FallingNames are Falling's names: "particles", "off".
	FallingNames = []string{"particles", "off"}
	// SideValueNames are Side's names: "walls", "open" (ParseSide also takes "wall").
	SideValueNames = []string{"walls", "open"}
)

// nameOf is value v's name in names, or kind(v) for a value without one.
func nameOf(names []string, kind string, v int) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, v)
}

// parseName is the value named s in names, or an error naming the setting (field) and
// the names it takes.
func parseName(names []string, field, s string) (int, error) {
	for i, n := range names {
		if n == s {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s %q: want %s", field, s, WantNames(names))
}

// WantNames lists names as a message does: `"a" or "b"`, `"a", "b" or "c"`.
func WantNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
