package script

import (
	"fmt"
	"math"
	"sort"

	lua "github.com/yuin/gopher-lua"
)

// Reports: sim:report{ name = value, ... } hands numbers to the run loop, which records
// the latest value of each name in the run's timeline (vpbench run --timeline). The
// scenario keeps only the latest value of each name and the order the names were first
// reported in; the run loop reads them with Reported.

const (
	// MaxReportNames bounds the distinct names a scenario may report (each is a column of
	// the timeline).
	MaxReportNames = 256
	// maxReportName bounds a name's length.
	maxReportName = 64
)

// Reported is one name a script reported and its latest value.
type Reported struct {
	Name  string
	Value float64
}

// reportState is what sim:report has recorded: the names in the order first reported,
// and the latest value of each.
type reportState struct {
	names  []string
	values map[string]float64
}

func (s *Scenario) reportMethods() []decl {
	return []decl{
		{"report", s.simReport, "sim:report{ name = value, ... }: numbers the run's timeline records (--timeline), the latest value of each name"},
	}
}

// simReport is sim:report{ inflow = q, level = z }: every key a name (letters, digits,
// _ . -; at most 64 bytes), every value a finite number. A bad table records nothing.
func (s *Scenario) simReport(L *lua.LState) int {
	c := s.simCall(L, "report")
	t := c.table(2, "{ name = number, ... }")
	got := map[string]float64{}
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		ks, ok := k.(lua.LString)
		if !ok {
			c.fail("the key [%s] is %s: report values by name, { level = 0.01 }", describeValue(k), typeName(k))
		}
		name := string(ks)
		if err := checkReportName(name); err != nil {
			c.fail("%v", err)
		}
		n, ok := v.(lua.LNumber)
		if !ok {
			c.fail("the value of %s is %s, want a number", describeValue(ks), describeValue(v))
		}
		f := float64(n)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			c.fail("the value of %s is %s: it must be a finite number", describeValue(ks), fmtNum(f))
		}
		got[name] = f
	}
	var fresh []string
	for name := range got {
		if _, ok := s.reports.values[name]; !ok {
			fresh = append(fresh, name)
		}
	}
	if len(s.reports.names)+len(fresh) > MaxReportNames {
		c.fail("too many names: a scenario may report at most %d distinct names (%d reported so far, %d new here)",
			MaxReportNames, len(s.reports.names), len(fresh))
	}
	sort.Strings(fresh) // the order of one call's new names (a table has none)
	if s.reports.values == nil {
		s.reports.values = map[string]float64{}
	}
	s.reports.names = append(s.reports.names, fresh...)
	for name, f := range got {
		s.reports.values[name] = f
	}
	return 0
}

// checkReportName says why a report name is refused: it must be 1 to 64 letters,
// digits, '_', '.' or '-' (a CSV column header and a JSON key as it is).
func checkReportName(name string) error {
	if name == "" {
		return fmt.Errorf(`the key "" is empty: names are letters, digits, '_', '.' or '-'`)
	}
	if len(name) > maxReportName {
		return fmt.Errorf("the key %q is longer than %d bytes", name[:maxReportName]+"...", maxReportName)
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '.' || b == '-') {
			return fmt.Errorf("the key %q has %q: names are letters, digits, '_', '.' or '-'", name, string(rune(b)))
		}
	}
	return nil
}

// Reported is what the script has reported through sim:report: every name in the order
// first reported, with its latest value (a copy; nil when nothing was reported). Call it
// on the runner's goroutine, between Advance calls.
func (s *Scenario) Reported() []Reported {
	if len(s.reports.names) == 0 {
		return nil
	}
	out := make([]Reported, len(s.reports.names))
	for i, n := range s.reports.names {
		out[i] = Reported{n, s.reports.values[n]}
	}
	return out
}
