package script

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestSimReport: sim:report keeps the latest value of each name, in the order first
// reported (one call's new names sorted); nothing before the first report.
func TestSimReport(t *testing.T) {
	s := mustLoad(t, "rep.lua", small+`sim:report{ b = 2, a = 1 }
sim:report{ a = 3 }
sim:report{}
function main() vp.wait(0.002) sim:report{ c = -1.5, a = sim:time() } end
`, opts(nil))
	want := []Reported{{"a", 3}, {"b", 2}}
	if got := s.Reported(); !reflect.DeepEqual(got, want) {
		t.Errorf("after the set-up: %v, want %v", got, want)
	}
	if err := runToEnd(t, s, 100); err != nil {
		t.Fatal(err)
	}
	got := s.Reported()
	if len(got) != 3 || got[0].Name != "a" || got[0].Value < 0.002 || got[1] != (Reported{"b", 2}) || got[2] != (Reported{"c", -1.5}) {
		t.Errorf("at the end: %v", got)
	}
	if got := mustLoad(t, "none.lua", small, opts(nil)).Reported(); got != nil {
		t.Errorf("no report: %v", got)
	}
}

// TestSimReportErrors: a bad table is an error naming the key, and records nothing.
func TestSimReportErrors(t *testing.T) {
	for _, tc := range []struct{ call, want string }{
		{`sim:report{ ok = 1, level = 0/0 }`, `the value of "level" is nan: it must be a finite number`},
		{`sim:report{ ok = 1, flow = 1/0 }`, `the value of "flow" is inf`},
		{`sim:report{ ok = 1, depth = "deep" }`, `the value of "depth" is "deep", want a number`},
		{`sim:report{ ok = 1, flag = true }`, `the value of "flag" is true, want a number`},
		{`sim:report{ ok = 1, t = {} }`, `the value of "t" is a table, want a number`},
		{`sim:report{ ok = 1, 5 }`, `the key [1] is a number`},
		{`sim:report{ ok = 1, ["a b"] = 1 }`, `the key "a b" has " "`},
		{`sim:report{ ok = 1, [""] = 1 }`, `the key "" is empty`},
		{`sim:report{ ok = 1, [string.rep("x", 65)] = 1 }`, `longer than 64 bytes`},
		{`sim:report(1)`, `want a table`},
		{`sim.report{ ok = 1 }`, `call it with a colon`},
	} {
		_, err := LoadSource("bad.lua", []byte(small+tc.call+"\n"), opts(nil))
		e := wantError(t, err, "bad.lua", 2, "sim:report", tc.want)
		if e != nil && t.Failed() {
			t.Logf("%s: %v", tc.call, e)
		}
	}
	// A failing call inside pcall records nothing, not even its good names.
	s := mustLoad(t, "pcall.lua", small+`pcall(sim.report, sim, { ok = 1, bad = "x" })`+"\n", opts(nil))
	if got := s.Reported(); got != nil {
		t.Errorf("a refused table recorded %v", got)
	}
	// Too many names.
	var b strings.Builder
	b.WriteString(small + "local t = {}\nfor i = 1, " + fmt.Sprint(MaxReportNames+1) + " do t['n' .. i] = i end\nsim:report(t)\n")
	_, err := LoadSource("many.lua", []byte(b.String()), opts(nil))
	wantError(t, err, "many.lua", 4, "sim:report", "too many names", fmt.Sprint(MaxReportNames))
}
