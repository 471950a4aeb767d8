package gpusim

import (
	"fmt"
	"strconv"
	"strings"
)

// The enumerated settings' names: one table each, in the order of the values (value i is
// named names[i]), which String, the Parse functions, the script's parser (through the
// scene's aliases) and the command line's help all read, so that a name is written once.
// The tables hold the canonical, lower-case names: String writes them and messages list
// them. Reading a name ignores its case (ASCII letters only): "SWE", "Swe" and "swe" are
// the same method (CanonicalName, and every Parse function through parseName).
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

// nameAliases are the other names a setting's parser takes, by the field parseName is
// given, each standing for the value it maps to: side "wall" is "walls" (ParseSide).
// Matched ignoring case, as the names are.
var nameAliases = map[string]map[string]int{
	"side": {"wall": int(SideWall)},
}

// parseName is the value named s in names, its case ignored (CanonicalName), or an error
// naming the setting (field), the value as given and the canonical names it takes.
func parseName(names []string, field, s string) (int, error) {
	if i := lookupName(names, s); i >= 0 {
		return i, nil
	}
	for alias, v := range nameAliases[field] {
		if equalFoldASCII(alias, s) {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%s %q: want %s", field, s, WantNames(names))
}

// CanonicalName is the name of names that s spells, its case ignored ("SWE" is "swe"),
// as the tables write it; ok is false when s names none of them. The command line and the
// script's parser read an enumerated setting's name with it, so that every reader folds
// case the same way, here.
func CanonicalName(names []string, s string) (name string, ok bool) {
	if i := lookupName(names, s); i >= 0 {
		return names[i], true
	}
	return "", false
}

// lookupName is the index in names of the name s spells, its case ignored, or -1.
func lookupName(names []string, s string) int {
	for i, n := range names {
		if equalFoldASCII(n, s) {
			return i
		}
	}
	return -1
}

// equalFoldASCII reports whether a and b are equal with ASCII letters' case ignored.
// Unicode's folding (strings.EqualFold) would also take "\u017fwe" (a long s) for "swe".
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
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
