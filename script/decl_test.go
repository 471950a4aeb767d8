package script

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestDocsDeclareTheSameNames: docs/scripting.md documents, in its headings, exactly the
// functions the declaration tables give scripts (vp.*, sim:*, solid:*, source:*, body:*,
// timer:*, meter:*, region:*), and each declaration has a one-line doc naming it.
func TestDocsDeclareTheSameNames(t *testing.T) {
	s := mustLoad(t, "decl.lua", small, opts(nil))
	declared := map[string]bool{"vp.version": true} // vp's one value, beside its functions
	for prefix, ds := range s.declared() {
		for _, d := range ds {
			name := prefix + d.name
			declared[name] = true
			if d.fn == nil || !strings.Contains(d.doc, name) || strings.Contains(d.doc, "\n") {
				t.Errorf("%s: want a function and a one-line doc naming it, got doc %q", name, d.doc)
			}
		}
	}
	// The tables scripts see are the declared ones.
	for prefix, mt := range map[string]*lua.LTable{"sim:": s.mt.sim, "solid:": s.mt.solid, "source:": s.mt.emitter, "timer:": s.mt.timer, "body:": s.mt.body, "meter:": s.mt.meter, "region:": s.mt.region} {
		idx := mt.RawGetString("__index").(*lua.LTable)
		idx.ForEach(func(k, _ lua.LValue) {
			if !declared[prefix+k.String()] {
				t.Errorf("%s%s is in the method table but not declared", prefix, k)
			}
		})
	}
	s.vpMod.ForEach(func(k, _ lua.LValue) {
		if !declared["vp."+k.String()] {
			t.Errorf("vp.%s is in the module but not declared", k)
		}
	})

	md, err := os.ReadFile("../docs/scripting.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	name := regexp.MustCompile("`(?:function )?((?:vp\\.|sim:|solid:|source:|timer:|body:|meter:|region:)[a-z_]+)")
	for _, line := range strings.Split(string(md), "\n") {
		if !strings.HasPrefix(line, "### ") {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(line, -1) {
			documented[m[1]] = true
		}
	}
	if missing, extra := setDiff(declared, documented), setDiff(documented, declared); len(missing)+len(extra) > 0 {
		t.Errorf("docs/scripting.md's headings and the declarations differ:\ndeclared, not documented: %v\ndocumented, not declared: %v", missing, extra)
	}
}

// setDiff lists the keys of a that b lacks, sorted.
func setDiff(a, b map[string]bool) []string {
	var d []string
	for k := range a {
		if !b[k] {
			d = append(d, k)
		}
	}
	sort.Strings(d)
	return d
}
