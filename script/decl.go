package script

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// decl declares one function scripts call, beside the Go function that does the work:
// its name as scripts write it after the table ("terrain" for sim:terrain), the function,
// and a one-line doc that docs/scripting.md expands. Each file declares the functions of
// its concept (sim_settings.go the settings, sim_sources.go the sources and sinks, ...);
// an object's method table is the union of its concepts' declarations, and a test checks
// that docs/scripting.md documents exactly the names declared.
type decl struct {
	name string
	fn   lua.LGFunction
	doc  string
}

// decls joins the declarations of several concepts; a name declared twice is a
// programming error, caught by every test that loads a script.
func decls(groups ...[]decl) []decl {
	var all []decl
	seen := map[string]bool{}
	for _, g := range groups {
		for _, d := range g {
			if seen[d.name] {
				panic(fmt.Sprintf("script: %q declared twice", d.name))
			}
			seen[d.name] = true
			all = append(all, d)
		}
	}
	return all
}

// declared are the script functions of each object, by the prefix scripts write before
// their names: "vp." (the module), "sim:", "solid:", "source:" (sources and sinks share
// their methods), "timer:", "body:", "meter:" and "region:".
func (s *Scenario) declared() map[string][]decl {
	return map[string][]decl{
		"vp.":     s.vpFuncs(),
		"sim:":    s.simMethods(),
		"solid:":  s.solidMethods(),
		"source:": s.emitterMethods(),
		"timer:":  s.timerMethods(),
		"body:":   s.bodyHandleMethods(),
		"meter:":  s.meterMethods(),
		"region:": s.regionHandleMethods(),
	}
}
