package archcheck

import (
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/vpbench/vpbench/"

// forbidden lists, for a package, the packages of this module it must not reach, directly
// or through others (its non-test code, in every build).
var forbidden = map[string][]string{
	"terrain":          {"gpusim", "surface", "scene", "script", "engine", "preview", "tui"},
	"gpusim":           {"surface", "scene", "script", "engine", "preview", "tui"},
	"surface":          {"gpusim", "scene", "script", "engine", "preview", "tui"},
	"scene":            {"script", "engine", "preview", "tui"},
	"script":           {"engine", "preview", "tui"},
	"preview":          {"script", "engine", "tui"},
	"engine":           {"tui"},
	"internal/clip":    {"preview", "scene", "script", "engine"},
	"internal/fileout": {"preview", "surface"},
}

// notDirect lists, for a package, the packages it must not import itself (it may reach
// them through another): the UI talks to the run loop's messages, never to the world.
var notDirect = map[string][]string{
	"tui":     {"script", "scene", "gpusim", "preview"},
	"preview": {"gpusim"}, // it draws frames made from a scene, not the solver's state
}

// TestImportsGoDown: no package reaches one it must not, nor imports one it must not.
func TestImportsGoDown(t *testing.T) {
	root := moduleRoot(t)
	direct := map[string][]string{}
	var walk func(pkg string)
	walk = func(pkg string) {
		if _, done := direct[pkg]; done {
			return
		}
		direct[pkg] = nil
		ctx := build.Default
		ctx.UseAllFiles = true // every build: cgo or not, cuda or not, any architecture
		bp, err := ctx.ImportDir(filepath.Join(root, pkg), build.IgnoreVendor)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return
			}
			if _, ok := err.(*build.MultiplePackageError); !ok {
				t.Fatalf("%s: %v", pkg, err)
			}
		}
		for _, imp := range bp.Imports {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				direct[pkg] = append(direct[pkg], rel)
				walk(rel)
			}
		}
	}
	reach := func(pkg string) map[string]bool {
		seen := map[string]bool{}
		var visit func(p string)
		visit = func(p string) {
			for _, q := range direct[p] {
				if !seen[q] {
					seen[q] = true
					visit(q)
				}
			}
		}
		walk(pkg)
		visit(pkg)
		return seen
	}
	pkgs := make([]string, 0, len(forbidden))
	for p := range forbidden {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		r := reach(p)
		for _, q := range forbidden[p] {
			if r[q] {
				t.Errorf("%s reaches %s: the imports must go down the stack (docs/architecture.md)", p, q)
			}
		}
	}
	for p, qs := range notDirect {
		walk(p)
		for _, q := range qs {
			for _, d := range direct[p] {
				if d == q {
					t.Errorf("%s imports %s: it talks to the run loop's messages only (docs/architecture.md)", p, q)
				}
			}
		}
	}
	if !reach("engine")["scene"] || !reach("preview")["scene"] {
		t.Error("the walk found no imports: the check would pass whatever the code does")
	}
}

func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}
