package archcheck

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/vpbench/vpbench/"

// layers gives every package of the module its floor: a package imports only packages on
// lower floors (docs/architecture.md, "Imports"). A package that is not here fails the
// test: a new one takes a floor when it is made.
var layers = map[string]int{
	// 1: leaves, no import of this module.
	"internal/fileout": 1, "internal/parallel": 1, "internal/roofline": 1, "internal/filestamp": 1,
	"internal/edgemeasure": 1, "internal/archcheck": 1, "internal/doccheck": 1, "internal/guard": 1, "internal/suggest": 1, "internal/ckcodec": 1, "timing": 1, "scripts": 1,
	"gpusim/internal/element": 1, "gpusim/kernels": 1, "gpusim/internal/cudaprobe": 1, "tools/genrock": 1,
	"gpusim/kernels/internal/argsgen": 1,
	// 2: file formats and kernels' homes.
	"internal/meshio": 2, "internal/clip": 2, "gpusim/internal/rows": 2, "gpusim/internal/hostkernels": 2,
	// 3: the solid world.
	"terrain": 3,
	// 4: the systems on the columns, each on its own (none imports another).
	"gpusim": 4, "surface": 4, "bodies": 4, "waves": 4, "liquid3d": 4,
	// 5: the coupling of the 3D region to the columns (two systems of floor 4 joined; the
	// scene holds a region).
	"region": 5,
	// 6: the world of one run, and the checks of the solver against analytic answers.
	"scene": 6, "validate": 6,
	// 7: the Lua binding, and the renderer of a scene's frames.
	"script": 7, "preview": 7, "tools/edgemeasure": 7,
	// 8: the run loop, and studies over many runs.
	"engine": 8, "sweep": 8,
	// 9: the terminal UI.
	"tui": 9,
	// 10: the command.
	"cmd/vpbench": 10,
}

// notDirect lists, for a package, packages below it that it must not import itself (it
// may reach them through another).
var notDirect = map[string][]string{
	// The scene is the only door to the solver and its 3D region (docs/architecture.md).
	"engine": {"gpusim", "region"},
	"script": {"gpusim", "region"},
	// The UI talks to the run loop's messages, never to the world.
	"tui": {"script", "scene", "gpusim", "region", "preview"},
	// The preview draws frames made from a scene, not the solver's state.
	"preview": {"gpusim", "region"},
}

// TestLayers: every package has a floor, and every import goes to a lower floor and is
// not one its importer must not make itself.
func TestLayers(t *testing.T) {
	imports := moduleImports(t)
	for _, err := range checkLayers(imports, layers, notDirect) {
		t.Error(err)
	}
	if len(imports["engine"]) == 0 || len(imports["preview"]) == 0 {
		t.Error("the walk found no imports: the check would pass whatever the code does")
	}
}

// TestLayersCatch: the check fails an import up the stack, one across a floor, a package
// without a floor, and the engine or the script importing the solver.
func TestLayersCatch(t *testing.T) {
	for _, c := range []struct {
		name    string
		imports map[string][]string
		want    string
	}{
		{"up", map[string][]string{"terrain": {"scene"}}, "terrain (floor 3) imports scene (floor 6)"},
		{"region on the scene", map[string][]string{"region": {"scene"}}, "region (floor 5) imports scene (floor 6)"},
		{"across", map[string][]string{"waves": {"surface"}}, "waves (floor 4) imports surface (floor 4)"},
		{"validate on the engine", map[string][]string{"validate": {"engine"}}, "validate (floor 6) imports engine (floor 8)"},
		{"no floor", map[string][]string{"region3d": {"terrain"}}, "region3d has no floor"},
		{"engine on the solver", map[string][]string{"engine": {"gpusim"}}, "engine imports gpusim"},
		{"script on the solver", map[string][]string{"script": {"gpusim"}}, "script imports gpusim"},
		{"script on the region", map[string][]string{"script": {"region"}}, "script imports region"},
	} {
		errs := checkLayers(c.imports, layers, notDirect)
		if !slices.ContainsFunc(errs, func(s string) bool { return strings.Contains(s, c.want) }) {
			t.Errorf("%s: %q, want an error with %q", c.name, errs, c.want)
		}
	}
}

// checkLayers is what TestLayers finds wrong with imports (package -> the module's
// packages it imports).
func checkLayers(imports map[string][]string, layers map[string]int, notDirect map[string][]string) []string {
	var errs []string
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		lp, ok := layers[p]
		if !ok {
			errs = append(errs, p+" has no floor: give it one in internal/archcheck's layers (and a row in docs/architecture.md)")
			continue
		}
		for _, q := range imports[p] {
			if lq, ok := layers[q]; ok && lq >= lp {
				errs = append(errs, p+" (floor "+itoa(lp)+") imports "+q+" (floor "+itoa(lq)+"): imports go down the stack (docs/architecture.md)")
			}
			if slices.Contains(notDirect[p], q) {
				errs = append(errs, p+" imports "+q+": it must reach it through another package (docs/architecture.md)")
			}
		}
	}
	return errs
}

// TestNoStaleFloors: every package with a floor exists.
func TestNoStaleFloors(t *testing.T) {
	imports := moduleImports(t)
	for p := range layers {
		if _, ok := imports[p]; !ok {
			t.Errorf("%s has a floor but is no package of the module", p)
		}
	}
}

// TestArchitectureDocTable: docs/architecture.md's table of packages lists every package
// of the module, each with exactly the module's packages it imports.
func TestArchitectureDocTable(t *testing.T) {
	imports := moduleImports(t)
	doc, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := docTable(string(doc))
	if len(rows) < 10 {
		t.Fatalf("docs/architecture.md: found %d rows of the packages' table", len(rows))
	}
	for p, imps := range imports {
		got, ok := rows[p]
		if !ok {
			t.Errorf("docs/architecture.md: no row for package %s", p)
			continue
		}
		want := slices.Clone(imps)
		sort.Strings(want)
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("docs/architecture.md: %s imports %v, the table says %v", p, want, got)
		}
	}
	for p := range rows {
		if _, ok := imports[p]; !ok {
			t.Errorf("docs/architecture.md: a row for %s, which is no package of the module", p)
		}
	}
}

var backticked = regexp.MustCompile("`([^`]+)`")

// docTable reads the table under "## The packages": its first column's package (in
// backticks, a trailing slash dropped) and its last column's imports (in backticks, or
// "none").
func docTable(doc string) map[string][]string {
	rows := map[string][]string{}
	_, rest, ok := strings.Cut(doc, "## The packages")
	if !ok {
		return rows
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	for _, line := range strings.Split(rest, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(line), "| `") {
			continue
		}
		m := backticked.FindStringSubmatch(cells[1])
		if m == nil {
			continue
		}
		pkg := strings.TrimSuffix(m[1], "/")
		imps := []string{}
		for _, im := range backticked.FindAllStringSubmatch(cells[len(cells)-2], -1) {
			imps = append(imps, strings.TrimSuffix(im[1], "/"))
		}
		rows[pkg] = imps
	}
	return rows
}

// moduleImports is every package of the module (a directory with Go files other than
// tests, not in a module of its own) and the module's packages its code imports, in every build (cgo or not, cuda or
// not, any architecture).
func moduleImports(t *testing.T) map[string][]string {
	root := moduleRoot(t)
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin" || name == "out") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
			return filepath.SkipDir // a module of its own (gpusim/internal/asmgen)
		}
		ctx := build.Default
		ctx.UseAllFiles = true
		bp, err := ctx.ImportDir(path, build.IgnoreVendor)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			if _, ok := err.(*build.MultiplePackageError); !ok {
				return err
			}
		}
		if len(bp.GoFiles)+len(bp.CgoFiles)+len(bp.IgnoredGoFiles) == 0 {
			return nil // tests only
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		var imps []string
		for _, imp := range bp.Imports {
			if q, ok := strings.CutPrefix(imp, module); ok && !slices.Contains(imps, q) {
				imps = append(imps, q)
			}
		}
		out[rel] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

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
